/*
 * unit-metrics.c - metrics.c: wall times, log lines, the step function
 * (mct-metrics).
 */
#include "config.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

#include "mct.h"
#include "unit.h"

void
test_metrics_wall(void)
{
	struct mct_tz utc, cst, bad;
	struct tm tm;
	int64_t ns;
	uint64_t seed = 12345;
	char txt[64];
	int i, good = 1;

	ok(mct_tz_parse("UTC", &utc) == 0 && !utc.local && utc.off == 0 &&
	    mct_tz_parse("+08:00", &cst) == 0 && cst.off == 28800 &&
	    mct_tz_parse("-0530", &bad) == 0 && bad.off == -19800 &&
	    mct_tz_parse("+25", &bad) != 0 && mct_tz_parse("+1:5", &bad) != 0 &&
	    mct_tz_parse("Asia/Shanghai", &bad) == 0 && bad.local,
	    "metrics: --tz takes UTC, +HH:MM, -HHMM and names; not +25");
	/* timegm() of the C library is the oracle, over 3000 years */
	for (i = 0; i < 2000; i++) {
		time_t t;

		seed = seed * UINT64_C(6364136223846793005) +
		    UINT64_C(1442695040888963407);
		/* 1825 to 2115: the wall times int64 ns holds */
		t = (time_t)((seed >> 11) % UINT64_C(9200000000)) -
		    INT64_C(4600000000);
		gmtime_r(&t, &tm);
		snprintf(txt, sizeof(txt), "%04d-%02d-%02dT%02d:%02d:%02d.%09d",
		    tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour,
		    tm.tm_min, tm.tm_sec, (int)((seed & 0x3fffffff) % 1000000000));
		if (mct_wall_ns(txt, strlen(txt), &utc, &ns) != 0 ||
		    ns != (int64_t)t * 1000000000 +
		    (int64_t)((seed & 0x3fffffff) % 1000000000)) {
			good = 0;
			diag("%s: %lld", txt, (long long)ns);
			break;
		}
	}
	ok(good, "metrics: wall times as timegm() says, to the ns");
	ok(mct_wall_ns("2026/12/02 07:00:01.123", 23, &utc, &ns) == 0 &&
	    ns == INT64_C(1796194801123000000) &&
	    mct_wall_ns("2026/12/02 15:00:01.123", 23, &cst, &ns) == 0 &&
	    ns == INT64_C(1796194801123000000) &&
	    mct_wall_ns("2026-12-02 08:00:01.123+01:00", 29, &cst, &ns) == 0 &&
	    ns == INT64_C(1796194801123000000) &&
	    mct_wall_ns("2026-12-02T07:00:01,123Z", 24, &cst, &ns) == 0 &&
	    ns == INT64_C(1796194801123000000) &&
	    mct_wall_ns("2024-02-29 00:00:00", 19, &utc, &ns) == 0 &&
	    ns == INT64_C(1709164800000000000),
	    "metrics: nvidia-smi's wall time, --tz, an offset in the text, "
	    "a leap day");
	ok(mct_wall_ns("2026/12/02", 10, &utc, &ns) != 0 &&
	    mct_wall_ns("2026-12-02 07:00", 16, &utc, &ns) != 0 &&
	    mct_wall_ns("2026/13/02 07:00:00", 19, &utc, &ns) != 0 &&
	    mct_wall_ns("2026/02/31 07:00:00", 19, &utc, &ns) != 0 &&
	    mct_wall_ns("2026-04-31 07:00:00", 19, &utc, &ns) != 0 &&
	    mct_wall_ns("2100-02-29 07:00:00", 19, &utc, &ns) != 0 &&
	    mct_wall_ns("2000-02-29 07:00:00", 19, &utc, &ns) == 0 &&
	    mct_wall_ns("2026/12-02 07:00:00", 19, &utc, &ns) != 0 &&
	    mct_wall_ns("2026-12-02 07:00:00.", 20, &utc, &ns) != 0 &&
	    mct_wall_ns("2026-12-02 07:00:00.0000000001", 30, &utc, &ns) != 0 &&
	    mct_wall_ns("2026-12-02 07:00:00 x", 21, &utc, &ns) != 0 &&
	    mct_wall_ns("2262-04-12 00:00:00", 19, &utc, &ns) != 0 &&
	    mct_wall_ns("1677-09-21 00:00:00", 19, &utc, &ns) != 0,
	    "metrics: no date alone, no minutes alone, no month 13, no "
	    "31 February or April, 29 February of 2000 but not 2100, no "
	    "mixed separators, nothing below a ns, nothing after, nothing "
	    "beyond int64 ns");
}

void
test_metrics_log(void)
{
	static const char hdr[] = "timestamp, index, clocks.sm [MHz], "
	    "util (%), name";
	struct mct_mlog l = { .tunit = MCT_UNIT_NS };
	const char *why = NULL;
	char b[64];
	int64_t v;
	int r;

	ok(mct_mlog_header(&l, hdr, sizeof(hdr) - 1, &why) == 0 &&
	    l.ncol == 5 && l.tcol == 0 && l.dcol == 1 &&
	    strcmp(l.col[2].name, "clocks.sm") == 0 &&
	    strcmp(l.col[2].unit, "MHz") == 0 &&
	    strcmp(l.col[3].name, "util") == 0 &&
	    strcmp(l.col[3].unit, "%") == 0 && l.col[4].unit == NULL,
	    "metrics: a header's time, device, names and units");
	r = mct_mlog_line(&l, "2026/12/02 07:00:01.5, 3, 1410 MHz, [N/A], "
	    "\"H100, SXM\"", 52);
	ok(r == 1 && l.nsample == 1 && l.sample[0].ts ==
	    INT64_C(1796194801500000000) && l.sample[0].dev == 3 &&
	    l.sample[0].col == 2 && l.sample[0].v == INT64_C(1410000000) &&
	    l.col[4].role == MCT_MC_UNKNOWN && l.nbad == 0 && l.dup == 0,
	    "metrics: a line: time, device, a value with its unit; [N/A] is "
	    "no sample, a quoted comma stays in its field, text is no metric");
	ok(mct_mlog_line(&l, "2026/12/02 07:00:01.6, 3, 1410", 30) == -1 &&
	    strcmp(l.why, "3 fields, the header has 5") == 0 &&
	    mct_mlog_line(&l, "2026/12/02 07:00:01.6, GPU[x], 1, 1, x", 38) ==
	    -1 && mct_mlog_line(&l, hdr, sizeof(hdr) - 1) == 0 &&
	    mct_mlog_line(&l, "# a comment", 11) == 0 &&
	    mct_mlog_line(&l, "\r", 1) == 0,
	    "metrics: bad lines say why; the header again, comments and "
	    "blank lines are skipped");
	l.line = 7;
	r = mct_mlog_line(&l, "2026/12/02 07:00:01.7, 3, 1.4105 GHz, 1, x", 42);
	ok(r == 1 && l.nsample == 2 && l.sample[0].v == INT64_C(1410500000) &&
	    l.sample[1].v == 1000000 && l.nbad == 0 && l.dup == 0,
	    "metrics: a value in another unit of the column's quantity is "
	    "converted to the column's (1.4105 GHz is 1410.5 MHz)");
	l.line = 8;
	r = mct_mlog_line(&l, "2026/12/02 07:00:01.7, 3, 45 W, ERR!, x", 38);
	ok(r == 1 && l.nsample == 0 && l.nbad == 2 && l.bad[0].line == 8 &&
	    strcmp(l.bad[0].why, "clocks.sm: '45 W' is not in MHz; the value "
	    "is skipped") == 0 && strcmp(l.bad[1].why, "util: 'ERR!' is no "
	    "number; the value is skipped") == 0 && l.dup == 7,
	    "metrics: a value in a unit of another quantity, and one that is "
	    "no number, each skipped alone and said with its line; the same "
	    "time and device as line 7: %s", ESC(l.bad[0].why));
	mct_mlog_free(&l);
	memset(&l, 0, sizeof(l));
	ok(mct_mlog_header(&l, "\xef\xbb\xbftime,gpu,power", 17, &why) == 0 &&
	    l.tcol == 0 && l.dcol == 1 && l.col[2].unit == NULL,
	    "metrics: a byte order mark before the header is skipped");
	l.line = 2;
	(void)mct_mlog_line(&l, "1,0,[Unknown]", 13);
	l.line = 3;
	(void)mct_mlog_line(&l, "2,0,oops", 8);
	ok(l.nbad == 0 && l.col[2].role == MCT_MC_UNKNOWN,
	    "metrics: values that are no number in a column of no unit: "
	    "nothing said yet (it may be text)");
	l.line = 4;
	r = mct_mlog_line(&l, "3,0,250 W", 9);
	ok(r == 1 && l.nsample == 1 && l.sample[0].v == INT64_C(250000000) &&
	    strcmp(l.col[2].unit, "W") == 0 && l.nbad == 2 &&
	    l.bad[0].line == 2 && l.bad[1].line == 3 &&
	    strstr(l.bad[0].why, "'[Unknown]' is no number") != NULL,
	    "metrics: the column's first number makes it a metric (its unit "
	    "the value's), and its earlier values bad, each with its line");
	l.line = 5;
	r = mct_mlog_line(&l, "4,0,250000 mW", 13);
	ok(r == 1 && l.nsample == 1 && l.sample[0].v == INT64_C(250000000),
	    "metrics: 250000 mW in a column of W is 250");
	l.has_sync = 1;
	l.sync_t = 0;
	l.sync_ts = INT64_C(4000000000000000000);
	ok(mct_mlog_line(&l, "4000000000000000000,0,1", 23) == -1 &&
	    strcmp(l.why, "time '4000000000000000000' is out of range once "
	    "--sync moves it") == 0 && mct_mlog_line(&l, "5,0,1", 5) == 1 &&
	    l.sample[0].ts == INT64_C(4000000000000000005),
	    "metrics: a time --sync moves out of range is a bad line (no "
	    "overflow), one in range is moved");
	mct_mlog_free(&l);
	ok(mct_value_e6("12.3456789", 10, &v) == 0 &&
	    v == 12345679 && mct_value_e6("1e15", 4, &v) != 0 && mct_fmt_e6(b, -1500000) == 4 &&
	    strcmp(b, "-1.5") == 0,
	    "metrics: values in millionths, rounded once; too large is an "
	    "error; written back without trailing zeros");
	mct_mlog_free(&l);
}

/* The step function's JSON over [a, a + dur), or "-" for none. */
static const char *
over_text(struct mct_series *s, int64_t a, int64_t dur, struct mct_buf *b)
{
	struct mct_over o;

	b->len = 0;
	if (mct_series_over(s, a, dur, &o) != 0)
		return "-";
	mct_over_json(&o, b);
	mct_buf_addc(b, '\0');
	return b->p;
}

static void test_metrics_series_grows(struct mct_buf *);

void
test_metrics_series(void)
{
	struct mct_series s = { 0 };
	struct mct_buf b = { 0 };

	/* 10 at 100, 20 at 110, 40 at 120 (out of order), 5 at 125 */
	mct_series_add(&s, 100, 10000000);
	mct_series_add(&s, 110, 20000000);
	mct_series_add(&s, 125, 5000000);
	mct_series_add(&s, 120, 40000000);
	ok(strcmp(over_text(&s, 105, 10, &b), "{\"mean\":15.000,\"min\":10,"
	    "\"max\":20,\"samples\":2}") == 0,
	    "metrics: half of each step: the mean between");
	ok(strcmp(over_text(&s, 90, 35, &b), "{\"mean\":20.000,\"min\":10,"
	    "\"max\":40,\"samples\":3}") == 0,
	    "metrics: before the first sample nothing is covered: (10x10 + "
	    "20x10 + 40x5) / 25");
	ok(strcmp(over_text(&s, 111, 3, &b), "{\"mean\":20.000,\"min\":20,"
	    "\"max\":20,\"samples\":1}") == 0 &&
	    strcmp(over_text(&s, 120, 0, &b), "{\"mean\":40.000,\"min\":40,"
	    "\"max\":40,\"samples\":1}") == 0 &&
	    strcmp(over_text(&s, 99, 0, &b), "-") == 0 &&
	    strcmp(over_text(&s, 50, 40, &b), "-") == 0,
	    "metrics: inside one step; a point takes the sample in effect; "
	    "nothing before the first sample");
	/* 5 at 125 holds at most 2 x (125 - 120) = 10 ns: until 135 */
	ok(strcmp(over_text(&s, 130, 100, &b), "{\"mean\":5.000,\"min\":5,"
	    "\"max\":5,\"samples\":1}") == 0 &&
	    strcmp(over_text(&s, 135, 10, &b), "-") == 0 &&
	    strcmp(over_text(&s, 134, 0, &b), "{\"mean\":5.000,\"min\":5,"
	    "\"max\":5,\"samples\":1}") == 0,
	    "metrics: the last sample holds twice the time since the one "
	    "before, then nothing");
	mct_series_free(&s);
	/* thirds: 1 for 1 ns, 2 for 2 ns: 5/3 = 1.667; -5/3 = -1.667 */
	mct_series_add(&s, 0, 1000000);
	mct_series_add(&s, 1, 2000000);
	mct_series_add(&s, 3, 0);
	ok(strcmp(over_text(&s, 0, 3, &b), "{\"mean\":1.667,\"min\":1,"
	    "\"max\":2,\"samples\":2}") == 0,
	    "metrics: the mean rounded to three decimals");
	mct_series_free(&s);
	mct_series_add(&s, 0, -1000000);
	mct_series_add(&s, 1, -2000000);
	mct_series_add(&s, 3, 0);
	mct_series_add(&s, 4, 1);	/* 0.000001 */
	mct_series_add(&s, 2004, 0);
	ok(strcmp(over_text(&s, 0, 3, &b), "{\"mean\":-1.667,\"min\":-2,"
	    "\"max\":-1,\"samples\":2}") == 0 &&
	    strcmp(over_text(&s, 3, 2000, &b), "{\"mean\":0.000,\"min\":0,"
	    "\"max\":0.000001,\"samples\":2}") == 0,
	    "metrics: negative means round away from zero; no -0.000");
	/* forgetting keeps the sample in effect */
	mct_series_forget(&s, 2);
	ok(s.lo == 1 && strcmp(over_text(&s, 2, 1, &b), "{\"mean\":-2.000,"
	    "\"min\":-2,\"max\":-2,\"samples\":1}") == 0,
	    "metrics: forgetting keeps the sample in effect");
	mct_series_free(&s);
	test_metrics_series_grows(&b);
	mct_buf_free(&b);
}

/*
 * A series that grows past its first block many times over (a log held
 * whole), and one that forgets as it goes (sorted input): every sample
 * stays where it was, checked by the sum over each interval of 10 ns
 * (sample i is i at time 10 i: the mean over [10 i, 10 i + 10) is i).
 */
static void
test_metrics_series_grows(struct mct_buf *b)
{
	struct mct_series s = { 0 };
	struct mct_over o;
	char want[128];
	int64_t i, n = 100000, bad = 0;

	for (i = 0; i < n; i++)
		mct_series_add(&s, 10 * i, i * 1000000);
	for (i = 0; i < n - 1; i += 997) {
		snprintf(want, sizeof(want), "{\"mean\":%lld.000,\"min\":%lld,"
		    "\"max\":%lld,\"samples\":1}", (long long)i, (long long)i,
		    (long long)i);
		bad += strcmp(over_text(&s, 10 * i, 10, b), want) != 0;
	}
	ok(bad == 0 && s.cap >= (size_t)n && mct_series_over(&s, 0, 10 * n -
	    10, &o) == 0 && o.samples == n - 1 &&
	    o.wsum == (mct_i128)10 * 1000000 * ((n - 1) * (n - 2) / 2),
	    "metrics: a series of 100,000 samples grown from 4,096: every "
	    "sample where it was");
	mct_series_free(&s);
	/* forgetting as it goes: the room is used again, not grown */
	for (i = 0, bad = 0; i < n; i++) {
		mct_series_add(&s, 10 * i, i * 1000000);
		if (i % 100 == 99) {
			mct_series_forget(&s, 10 * (i - 50));
			bad += mct_series_over(&s, 10 * (i - 50), 10, &o) != 0 ||
			    o.min != (i - 50) * 1000000;
		}
	}
	ok(bad == 0 && s.cap <= 4096,
	    "metrics: a series that forgets as it goes keeps its first room");
	mct_series_free(&s);
}
