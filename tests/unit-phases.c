/*
 * unit-phases.c - phases.c: the device-lane test, overlaps, and the phases
 * of a small set of calls (a steady run of five rounds between an init and
 * a tail).
 */
#include "config.h"

#include <string.h>

#include "mct.h"
#include "unit.h"

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
}
