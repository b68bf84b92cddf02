/*
 * unit-runsum.c - runsum.c: a run's device figures (its span, busy time
 * and steady rounds).
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "mct.h"
#include "unit.h"

static void
runsum_add(struct mct_runsum *rs, const char *json, int dev)
{
	struct mct_event ev;

	mct_event_init(&ev, json, strlen(json), NULL);
	mct_runsum_event(rs, &ev, dev);
	mct_event_free(&ev);
}

/* Run rs: n rounds of kernel name, 100 ns apart from ts 0. */
static void
rounds_of(struct mct_runsum *rs, const char *name, int n,
    const struct mct_method *m)
{
	char json[128];
	int i;

	mct_runsum_init(rs, "name");
	for (i = 0; i < n; i++) {
		snprintf(json, sizeof(json), "{\"ph\":\"X\",\"name\":\"%s\","
		    "\"ts\":%d,\"dur\":50}", name, 100 * i);
		runsum_add(rs, json, 1);
	}
	mct_runsum_end(rs, m);
}

static void
test_alike(const struct mct_method *m)
{
	struct mct_runsum a, b, c, d;

	rounds_of(&a, "gemm", 5, m);
	rounds_of(&b, "gemm", 9, m);
	rounds_of(&c, "gemm2", 5, m);
	rounds_of(&d, "gem", 5, m);
	ok(a.nof == 1 && a.of[0].rounds == 5 && strcmp(a.st.str[a.of[0].sig],
	    "gemm") == 0, "runsum: the rounds of one kernel are of its "
	    "signature");
	ok(mct_runsum_alike(&a, &b) && mct_runsum_alike(&b, &a) &&
	    mct_runsum_alike(&a, &a),
	    "runsum: rounds of one signature are alike, however many");
	ok(!mct_runsum_alike(&a, &c) && !mct_runsum_alike(&c, &d) &&
	    !mct_runsum_alike(&d, &a),
	    "runsum: rounds of another signature are not alike, a prefix "
	    "neither");
	mct_runsum_free(&a);
	mct_runsum_free(&b);
	mct_runsum_free(&c);
	mct_runsum_free(&d);
}

void
test_runsum(void)
{
	struct mct_method m = { .min_rounds = 3, .min_share = 1, .split = 5,
	    .overlap = 80, .join = -1 };
	struct mct_runsum rs;
	int64_t v[] = { 5, 1, 4, 2 }, w[] = { -3, -2 }, x[] = { 7 };
	static const int sts[] = { 0, 110, 420 }, sdur[] = { 100, 300, 120 },
	    kts[] = { 10, 120, 430 };
	char json[128];
	int i;

	ok(mct_median_i64(v, 4) == 3 && mct_median_i64(w, 2) == -3 &&
	    mct_median_i64(x, 1) == 7,
	    "runsum: median, of an even count the mean rounded down");
	mct_runsum_init(&rs, NULL);
	/* two overlapping calls (busy 15 of 0..15), one apart; not X, none */
	runsum_add(&rs, "{\"ph\":\"X\",\"name\":\"k\",\"ts\":10,\"dur\":10}", 1);
	runsum_add(&rs, "{\"ph\":\"X\",\"name\":\"k\",\"ts\":0,\"dur\":15}", 1);
	runsum_add(&rs, "{\"ph\":\"X\",\"name\":\"k\",\"ts\":100,\"dur\":5}", 1);
	runsum_add(&rs, "{\"ph\":\"i\",\"name\":\"k\",\"ts\":200}", 1);
	runsum_add(&rs, "{\"ph\":\"X\",\"name\":\"h\",\"ts\":300,\"dur\":5}", 0);
	mct_runsum_end(&rs, &m);
	ok(rs.n == 3 && rs.start == 0 && rs.end == 105 && rs.busy == 25,
	    "runsum: span and busy time are of the device calls, busy their "
	    "union");
	mct_runsum_free(&rs);
	/* five rounds of one kernel: a steady phase, each round 100 ns */
	mct_runsum_init(&rs, "name");
	for (i = 0; i < 5; i++) {
		snprintf(json, sizeof(json), "{\"ph\":\"X\",\"name\":\"k\","
		    "\"ts\":%d,\"dur\":50}", 100 + 100 * i);
		runsum_add(&rs, json, 1);
	}
	runsum_add(&rs, "{\"ph\":\"X\",\"name\":\"z\",\"ts\":2000,\"dur\":10}", 1);
	mct_runsum_end(&rs, &m);
	ok(rs.hasround && rs.rounds == 5 && rs.round == 90,
	    "runsum: steady rounds as mct-phases finds them, and their median "
	    "time (%ld rounds of %lld)", rs.rounds, (long long)rs.round);
	mct_runsum_free(&rs);
	/* three profiler steps of 100, 300 and 120 ns: the rounds, each its
	 * own time (the median 120; the phase's span over them is 180) */
	mct_runsum_init(&rs, "name");
	for (i = 0; i < 3; i++) {
		snprintf(json, sizeof(json), "{\"ph\":\"X\",\"name\":"
		    "\"ProfilerStep#%d\",\"ts\":%d,\"dur\":%d}", i, sts[i],
		    sdur[i]);
		runsum_add(&rs, json, 0);
		snprintf(json, sizeof(json), "{\"ph\":\"X\",\"name\":\"k\","
		    "\"ts\":%d,\"dur\":50}", kts[i]);
		runsum_add(&rs, json, 1);
	}
	mct_runsum_end(&rs, &m);
	ok(rs.hasround && rs.rounds == 3 && rs.round == 120,
	    "runsum: profiler steps are the rounds, the median of their own "
	    "times (%ld rounds of %lld)", rs.rounds, (long long)rs.round);
	ok(rs.nof == 1 && rs.of[0].sig == -1 && rs.of[0].rounds == 3,
	    "runsum: rounds of profiler steps are of kind -1");
	mct_runsum_free(&rs);
	test_alike(&m);
}
