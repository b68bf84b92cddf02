/*
 * fuzz-mlog.c - a libFuzzer target for the metric log parser of
 * mct-metrics(1): lib/metrics.c's header, lines, values with units, wall
 * times and the step function.  tests/fuzz.sh builds and runs it
 * (FUZZ_TARGETS).
 *
 * The input (at most 16 KiB) is a log: its first byte picks the options
 * (time unit, --tz UTC or +08:00, a --sync, -m, --join, --time), the rest
 * is read as mct-metrics reads a file, one line at a time, the first not
 * blank the header.  Invariants:
 *   - a header error has a reason; after one, nothing more is read.
 *   - a line is 1 (samples), 0 (skipped) or -1 (bad, with a reason, and
 *     then no samples and no bad values).
 *   - every sample is of a column that is a metric, its time sane, its
 *     value below 10^18 in millionths; no more samples than columns.
 *   - every bad value has a reason and the line of a line read so far;
 *     the earlier line of the same time (dup) is one before this one.
 *   - a wall time mct_wall_ns() accepts is of a real date: its seconds
 *     since the epoch, taken back to a date by days arithmetic, have the
 *     text's day, month and year.
 *   - device 0's samples in a series: over any interval, min <= max, the
 *     mean between them, the samples at most those added.
 * A failed invariant prints what failed and abort()s.
 */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mct.h"

#define FUZZ_NAME "fuzz-mlog.c"
#include "fuzz.h"

/* The civil date of a day count since 1970-01-01 (H. Hinnant). */
static void
civil(int64_t z, int64_t *y, int64_t *m, int64_t *d)
{
	int64_t era, doe, yoe, doy, mp;

	z += 719468;
	era = (z >= 0 ? z : z - 146096) / 146097;
	doe = z - era * 146097;
	yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
	doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
	mp = (5 * doy + 2) / 153;
	*d = doy - (153 * mp + 2) / 5 + 1;
	*m = mp < 10 ? mp + 3 : mp - 9;
	*y = yoe + era * 400 + (*m <= 2);
}

/* A wall time accepted is a real date (UTC, no offset in the text). */
static void
check_date(const char *s, size_t n)
{
	static const struct mct_tz utc = { 0, 0 };
	int64_t ns, days, y, m, d;
	size_t i;

	if (n < 19 || mct_wall_ns(s, 19, &utc, &ns) != 0 ||
	    (s[17] == '6' && s[18] == '0'))
		return;		/* (a leap second is the next day's first) */
	for (i = 0; i < 19; i++)
		if (i != 4 && i != 7 && i != 10 && i != 13 && i != 16 &&
		    (s[i] < '0' || s[i] > '9'))
			return;
	days = ns / INT64_C(1000000000) - (ns % INT64_C(1000000000) < 0);
	days = (days - ((days % 86400 + 86400) % 86400)) / 86400;
	civil(days, &y, &m, &d);
	CHECK(y == (s[0] - '0') * 1000 + (s[1] - '0') * 100 +
	    (s[2] - '0') * 10 + (s[3] - '0') &&
	    m == (s[5] - '0') * 10 + (s[6] - '0') &&
	    d == (s[8] - '0') * 10 + (s[9] - '0'),
	    "a wall time accepted is of its own (real) date");
}

static void
check_line(const struct mct_mlog *l, int r, long long line)
{
	size_t i;

	CHECK(r >= -1 && r <= 1, "a line is 1, 0 or -1");
	if (r < 0)
		CHECK(l->why[0] != '\0' && l->nsample == 0 && l->nbad == 0,
		    "a bad line has a reason, and no samples, no bad values");
	CHECK(l->nsample <= (size_t)l->ncol, "no more samples than columns");
	for (i = 0; i < l->nsample; i++) {
		const struct mct_msample *m = &l->sample[i];

		CHECK(m->col >= 0 && m->col < l->ncol &&
		    l->col[m->col].role == MCT_MC_METRIC,
		    "a sample is of a metric column");
		CHECK(MCT_SANE_NS(m->ts), "a sample's time is sane");
		CHECK(m->v < INT64_C(1000000000000000000) &&
		    m->v > -INT64_C(1000000000000000000),
		    "a value is below 10^12");
	}
	for (i = 0; i < l->nbad; i++)
		CHECK(l->bad[i].why[0] != '\0' && l->bad[i].line >= 1 &&
		    l->bad[i].line <= line, "a bad value has a reason and a line "
		    "read so far");
	CHECK(l->nlost >= 0, "values lost are counted");
	CHECK(l->dup >= 0 && l->dup < line, "the earlier line is earlier");
}

static void
check_series(struct mct_series *s, int64_t lo, int64_t hi, size_t added)
{
	struct mct_over o;
	int64_t a, span = hi - lo;
	int k;

	for (k = 0; k < 8; k++) {
		a = lo - span / 4 + (span / 8) * k;
		if (mct_series_over(s, a, span / 3, &o) != 0)
			continue;
		CHECK(o.min <= o.max, "min <= max");
		CHECK(o.samples >= 1 && (size_t)o.samples <= added,
		    "samples at most those added");
		CHECK(o.covered > 0 && o.wsum >= (mct_i128)o.min * o.covered &&
		    o.wsum <= (mct_i128)o.max * o.covered,
		    "the mean is between min and max");
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const enum mct_unit units[] = { MCT_UNIT_NS, MCT_UNIT_US,
	    MCT_UNIT_MS, MCT_UNIT_S };
	struct mct_mlog l = { 0 };
	struct mct_series s = { 0 };
	const char *p, *end, *nl, *why;
	int64_t lo = 0, hi = 0;
	long long line = 0;
	size_t i, added = 0;
	int hdr = 0, r, opt;

	if (size < 1 || size > 16384)
		return 0;
	opt = data[0];
	l.tunit = units[opt & 3];
	if (opt & 4)
		l.tz.off = 8 * 3600;
	if (opt & 8) {
		l.has_sync = 1;
		l.sync_t = 1000;
		l.sync_ts = INT64_C(1712195480123456789);
	}
	if (opt & 16)
		l.metrics = "power,clocks.sm,x";
	if (opt & 32)
		l.join = "util,x,ERR";
	if (opt & 64)
		l.timecol = "2";
	p = (const char *)data + 1;
	end = (const char *)data + size;
	for (; p < end; p = nl + 1) {
		if ((nl = memchr(p, '\n', (size_t)(end - p))) == NULL)
			nl = end;
		line++;
		check_date(p, (size_t)(nl - p));
		if (!hdr) {
			for (i = 0; p + i < nl && (p[i] == ' ' || p[i] == '\t' ||
			    p[i] == '\r'); i++)
				;
			if (p + i == nl)
				continue;
			why = NULL;
			if (mct_mlog_header(&l, p, (size_t)(nl - p), &why) != 0) {
				CHECK(why != NULL && *why != '\0',
				    "a header error has a reason");
				break;
			}
			CHECK(l.tcol >= 0 && l.tcol < l.ncol,
			    "the time column is a column");
			hdr = 1;
			continue;
		}
		l.line = line;
		r = mct_mlog_line(&l, p, (size_t)(nl - p));
		check_line(&l, r, line);
		for (i = 0; r == 1 && i < l.nsample; i++) {
			if (l.sample[i].dev != 0 || l.sample[i].col !=
			    l.sample[0].col)
				continue;
			if (added == 0 || l.sample[i].ts < lo)
				lo = l.sample[i].ts;
			if (added == 0 || l.sample[i].ts > hi)
				hi = l.sample[i].ts;
			mct_series_add(&s, l.sample[i].ts, l.sample[i].v);
			added++;
		}
	}
	if (added > 0)
		check_series(&s, lo, hi, added);
	mct_series_free(&s);
	mct_mlog_free(&l);
	return 0;
}
