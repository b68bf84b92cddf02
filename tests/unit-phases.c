/*
 * unit-phases.c - phases.c: the device-lane test, overlaps, and the phases
 * of a small set of calls (a steady run of five rounds between an init and
 * a tail).
 */
#include "config.h"

#include <string.h>

#include "mct.h"
#include "unit.h"

/*
 * A step's name is its decoded value, however it is spelt; the raw bytes
 * answer where they can (no backslash where they leave the rule).
 */
static void
test_step_names(void)
{
	static const struct {
		const char	*json, *name;	/* the name, NAME of NAME#N */
		int		 step, of;	/* ProfilerStep#<digit>, NAME#N */
		int64_t		 n;
	} t[] = {
		{ "\"ProfilerStep#12\"", "ProfilerStep", 1, 1, 12 },
		{ "\"Profiler\\u0053tep#12\"", "ProfilerStep", 1, 1, 12 },
		{ "\"\\u0050rofilerStep#3\"", "ProfilerStep", 1, 1, 3 },
		{ "\"ProfilerStep\\u00233\"", "ProfilerStep", 1, 1, 3 },
		{ "\"ProfilerStep#\\u0031\\u0032\"", "ProfilerStep", 1, 1, 12 },
		{ "\"ProfilerStep#1\\u0041\"", "ProfilerStep", 1, 0, 0 },
		{ "\"ProfilerStep#1A\"", "ProfilerStep", 1, 0, 0 },
		{ "\"ProfilerStep#\\u0041\"", "ProfilerStep", 0, 0, 0 },
		{ "\"ProfilerStep#\\\\1\"", "ProfilerStep", 0, 0, 0 },
		{ "\"ProfilerStep#\"", "ProfilerStep", 0, 0, 0 },
		{ "\"Profiler\\u0053tep#\"", "ProfilerStep", 0, 0, 0 },
		{ "\"ProfilerStep\"", "ProfilerStep", 0, 0, 0 },
		{ "\"\"", "ProfilerStep", 0, 0, 0 },
		{ "12", "ProfilerStep", 0, 0, 0 },
		{ "\"ProfilerStep#1234567890123456789\"", "ProfilerStep", 1, 0, 0 },
		{ "\"Opt\\u0069mizer#7\"", "Optimizer", 0, 1, 7 },
		{ "\"a\\\\b#1\"", "a\\b", 0, 1, 1 },	/* a\b#1 */
		{ "\"a\\nb#1\"", "a\\nb", 0, 0, 0 },	/* a, a newline, b#1 */
	};
	struct mct_val v;
	int64_t n;
	size_t i;
	int of;

	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		v.p = t[i].json;
		v.len = strlen(v.p);
		v.type = v.p[0] == '"' ? MCT_J_STRING : MCT_J_NUMBER;
		n = 0;
		of = mct_is_step_of(&v, t[i].name, &n);
		ok(mct_is_step_name(&v) == t[i].step && of == t[i].of &&
		    (!of || n == t[i].n), "phases: %s is %sa training step, "
		    "%s%s#N", t[i].json, t[i].step ? "" : "not ",
		    t[i].of ? "" : "not ", t[i].name);
	}
}

/*
 * Which events are steps: one rule for both kinds of name (mct(7),
 * "Steps"): an X event of the host of any cat but gpu_user_annotation.
 */
static void
test_step_events(void)
{
	static const struct {
		const char	*json;
		int		 step;
	} t[] = {
		{ "{\"ph\":\"X\",\"cat\":\"user_annotation\","
		    "\"name\":\"ProfilerStep#4\"}", 1 },
		{ "{\"ph\":\"X\",\"name\":\"ProfilerStep#4\",\"pid\":7}", 1 },
		{ "{\"ph\":\"X\",\"cat\":\"python_function\","
		    "\"name\":\"ProfilerStep#4\"}", 1 },
		{ "{\"ph\":\"X\",\"cat\":\"Operator\","
		    "\"name\":\"ProfilerStep#4\"}", 1 },
		{ "{\"ph\":\"X\",\"cat\":\"gpu_user_annotation\","
		    "\"name\":\"ProfilerStep#4\"}", 0 },
		{ "{\"ph\":\"X\",\"cat\":\"kernel\","
		    "\"name\":\"ProfilerStep#4\"}", 0 },
		{ "{\"ph\":\"X\",\"name\":\"ProfilerStep#4\",\"pid\":2}", 0 },
		{ "{\"ph\":\"B\",\"cat\":\"user_annotation\","
		    "\"name\":\"ProfilerStep#4\"}", 0 },
		{ "{\"ph\":\"i\",\"name\":\"ProfilerStep#4\"}", 0 },
		{ "{\"cat\":\"user_annotation\",\"name\":\"ProfilerStep#4\"}", 0 },
	};
	struct mct_header h = { 0 };
	struct mct_event ev;
	int64_t n;
	size_t i;

	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		mct_event_init(&ev, t[i].json, strlen(t[i].json), &h);
		n = 0;
		ok(mct_is_step(&ev) == t[i].step &&
		    mct_is_step_n(&ev, "ProfilerStep", &n) == t[i].step &&
		    (!t[i].step || n == 4), "phases: %s is %s", t[i].json,
		    t[i].step ? "a step to both rules" : "no step to either");
		mct_event_free(&ev);
	}
}

void
test_phases(void)
{
	static const struct {
		const char	*json;
		int		 dev;
	} lane[] = {
		{ "{\"ph\":\"X\",\"cat\":\"kernel\",\"pid\":9}", 1 },
		{ "{\"ph\":\"X\",\"cat\":\"gpu_memcpy\"}", 1 },
		{ "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"pid\":2}", 0 },
		{ "{\"ph\":\"X\",\"pid\":2}", 1 },
		{ "{\"ph\":\"X\",\"pid\":\"3\"}", 1 },
		{ "{\"ph\":\"X\",\"pid\":1}", 0 },
		{ "{\"ph\":\"X\",\"pid\":23}", 0 },
	};
	struct mct_method m = { .min_rounds = 3, .min_share = 1, .split = 5,
	    .overlap = 80, .join = -1 };
	struct mct_call c[6];
	struct mct_phaser f = { .dev = c, .ndev = 6, .nsig = 2, .m = &m,
	    .origin = 0, .tend = 2010, .hasend = 1 };
	struct mct_header h = { 0 };
	struct mct_event ev;
	size_t i;

	for (i = 0; i < sizeof(lane) / sizeof(lane[0]); i++) {
		mct_event_init(&ev, lane[i].json, strlen(lane[i].json), &h);
		ok(mct_device(&ev) == lane[i].dev, "phases: %s is %sa "
		    "device event", lane[i].json, lane[i].dev ? "" : "not ");
		mct_event_free(&ev);
	}
	ok(mct_phases_overlap(0, 10, 5, 20) == 5 &&
	    mct_phases_overlap(0, 10, 10, 20) == 0 &&
	    mct_phases_overlap(5, 6, 0, 20) == 1,
	    "phases: overlap of two intervals");
	for (i = 0; i < 5; i++)
		c[i] = (struct mct_call){ (int64_t)(100 + 100 * i), 50, 0, 0 };
	c[5] = (struct mct_call){ 2000, 10, 1, 1 };
	mct_phases_find(&f);
	ok(f.nph == 3 && f.ph[0].kind == MCT_PH_INIT && f.ph[0].start == 0 &&
	    f.ph[0].end == 100 && f.ph[1].kind == MCT_PH_STEADY &&
	    f.ph[1].start == 100 && f.ph[1].end == 550 &&
	    f.ph[1].rounds == 5 && f.ph[1].nanc == 1 &&
	    f.ph[1].anc[0].total == 250 && f.ph[2].kind == MCT_PH_TAIL &&
	    f.ph[2].start == 550 && f.ph[2].end == 2010,
	    "phases: init, a steady run of 5 rounds, the tail");
	mct_phases_free(&f);
	ok(f.ph == NULL && f.nph == 0, "phases: freed");
	test_step_names();
	test_step_events();
}
