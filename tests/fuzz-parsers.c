/*
 * fuzz-parsers.c - a libFuzzer target for the small languages of the
 * command line: times and durations, the --where predicates, field lists
 * and rules files.  tests/fuzz.sh builds and runs it (FUZZ_TARGETS).
 *
 * The input, cut at its first NUL (as a command-line argument would be;
 * at most 4096 bytes), goes to:
 *   - mct_parse_dur() and mct_parse_time().  Invariants: a time without @
 *     is the duration of the same text; @T is absolute and T's duration;
 *     a duration read back from mct_fmt_dec() text in ns, us and s is
 *     itself; a parsed value is never INT64_MIN.  And as a number in
 *     each unit, mct_ns_text() writes mct_dec_ns()'s ns (nothing where it
 *     fails), the reader's conversion.
 *   - mct_fields_parse().  Invariants: every field has its text, a path
 *     has segments, and the texts joined by commas are the list again.
 *   - mct_expr_parse(), with and without REG_ICASE, then mct_expr_eval()
 *     on fixed events (made by hand as struct mct_event with JSON text,
 *     as a stream line is) under headers with and without an origin.
 *     Invariants: a parse error has a message; the verdict does not change
 *     with blanks around the text, nor does any result; eval is 0 or 1 and
 *     the same twice.
 * The whole input, NUL bytes included, is also written to a file and
 * loaded with mct_rules_load(), in place of the rules of the input before,
 * then every fixed event is classified with mct_category().  Invariants: a
 * category is a JSON string; loading the same file again gives the same
 * categories (nothing of the inputs before is left); after a failed load,
 * nothing is loaded and the next good load works.  FUZZ_RULES=0 in the
 * environment leaves this part out.
 *
 * A failed invariant prints what failed (also through the sanitizer's
 * report, which -close_fd_mask=2 keeps) and abort()s, so that libFuzzer
 * keeps the input.  Every finding stops the run: those of the first runs
 * (a leak of a --where condition that fails to parse, rel and end
 * overflowing int64, a quote inside a field segment) are fixed (d84d98e).
 */
#include "config.h"

#include <sys/types.h>

#include <fcntl.h>
#include <regex.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mct_private.h"

#define FUZZ_NAME "fuzz-parsers.c"
#include "fuzz.h"

/* Events as a stream holds them: compact JSON objects, ts/dur in ns. */
static const char *const events[] = {
	"{\"name\":\"kernel_kernel\",\"ph\":\"X\",\"pid\":2,\"tid\":1,"
	    "\"ts\":1712195494409000000,\"dur\":253990000,\"cat\":\"kernel\","
	    "\"args\":{\"grid\":[2056,32,1],\"block\":\"(128, 1, 1)\","
	    "\"co_id\":18446744073709551616,\"registers per thread\":192,"
	    "\"a.b\":{\"c\":[1,{\"d\":null}]},\"s\":\"x\\u0000y\\\"z\"}}",
	"{\"name\":\"mcLaunchKernel\",\"ph\":\"X\",\"pid\":\"1\",\"tid\":7,"
	    "\"ts\":-5,\"dur\":0,\"args\":{\"co_id\":3,\"bytes\":1.5e3}}",
	"{\"name\":\"memcpy DTOD(device,device)\",\"ph\":\"X\",\"ts\":\"123\","
	    "\"dur\":9223372036854775807,\"launch\":{\"name\":\"mcMemcpyAsync\","
	    "\"ts\":9223372036854775807,\"dur\":-9223372036854775807},"
	    "\"latency\":-1,\"queue\":true}",
	"{\"ph\":\"M\",\"name\":\"process_name\",\"args\":{\"name\":\"C500\"}}",
	"{}",
	"{\"name\":\"\\u00e9\\ud800\",\"ts\":9223372036854775807,"
	    "\"dur\":9223372036854775807,\"id\":\"0x1f\",\"cat\":[1,2]}",
};

static struct mct_header headers[3];

static void
init_headers(void)
{
	if (headers[0].line != NULL)
		return;
	headers[0].line = (char *)"";
	headers[1] = headers[0];
	headers[1].facts.has_origin = 1;
	headers[1].facts.origin = 1712195480123456789;
	headers[2] = headers[0];
	headers[2].facts.has_origin = 1;
	headers[2].facts.origin = -9223372036854775807;
}

static void
fuzz_time(const char *s)
{
	static const enum mct_unit units[] = { MCT_UNIT_NS, MCT_UNIT_US,
	    MCT_UNIT_MS, MCT_UNIT_S };
	int64_t d, t, x;
	char buf[96], want[32];
	size_t n, w;
	int abs, u;

	/* the reader's conversion to text is mct_dec_ns() then mct_i64() */
	for (u = 0; u < 4; u++) {
		w = mct_ns_text(buf, s, strlen(s), units[u]);
		n = mct_dec_ns(s, strlen(s), units[u], &x) == 0 ?
		    mct_i64(want, x) : 0;
		CHECK(w == n && memcmp(buf, want, n) == 0,
		    "mct_ns_text is mct_dec_ns's ns as text");
	}

	if (mct_parse_dur(s, &d) == 0) {
		CHECK(d != INT64_MIN, "a duration is never INT64_MIN");
		CHECK(mct_parse_time(s, &t, &abs) == 0 && !abs && t == d,
		    "a time without @ is the duration of the same text");
		n = mct_fmt_dec(buf, d, 1);
		memcpy(buf + n, "ns", 3);
		CHECK(mct_parse_dur(buf, &x) == 0 && x == d,
		    "mct_fmt_dec(d, 1) ns reads back");
		n = mct_fmt_dec(buf, d, 1000);
		memcpy(buf + n, "us", 3);
		CHECK(mct_parse_dur(buf, &x) == 0 && x == d,
		    "mct_fmt_dec(d, 1000) us reads back");
		n = mct_fmt_dec(buf, d, 1000000000);
		memcpy(buf + n, "s", 2);
		CHECK(mct_parse_dur(buf, &x) == 0 && x == d,
		    "mct_fmt_dec(d, 10^9) s reads back");
	} else if (*s != '@')
		CHECK(mct_parse_time(s, &t, &abs) != 0,
		    "a time without @ is no duration: no time either");
	if (*s == '@') {
		int ok = mct_parse_time(s, &t, &abs) == 0;

		CHECK(ok == (mct_parse_dur(s + 1, &d) == 0),
		    "@T is a time when T is a duration");
		CHECK(!ok || (abs && t == d), "@T is absolute, T's value");
	}
}

static void
fuzz_fields(const char *s)
{
	struct mct_field *fs = NULL;
	struct mct_buf join = { 0 };
	int nf = 0, k, rc;

	rc = mct_fields_parse(s, &fs, &nf);
	CHECK(nf >= 0 && (nf == 0 || fs != NULL), "a field count");
	if (rc == 0) {
		CHECK(nf >= 1, "a list has a field");
		for (k = 0; k < nf; k++) {
			CHECK(fs[k].text != NULL, "a field has its text");
			CHECK(mct_field_virtual(&fs[k]) || fs[k].nseg > 0,
			    "a path has segments");
			if (k)
				mct_buf_addc(&join, ',');
			mct_buf_adds(&join, fs[k].text);
		}
		CHECK(strcmp(join.p ? join.p : "", s) == 0,
		    "the texts joined by commas are the list");
	}
	for (k = 0; k < nf; k++)
		mct_field_free(&fs[k]);
	free(fs);
	mct_buf_free(&join);
}

/* Parse s; evaluate on every event under every header into res[]. */
static int
expr1(const char *s, int cflags, signed char *res, size_t nres)
{
	char err[512];
	struct mct_expr *e;
	size_t i, h, k = 0;

	err[0] = '\0';
	e = mct_expr_parse(s, cflags, err, sizeof(err));
	if (e == NULL) {
		CHECK(err[0] != '\0', "a parse error has a message");
		return -1;
	}
	for (i = 0; i < sizeof(events) / sizeof(events[0]); i++)
		for (h = 0; h < sizeof(headers) / sizeof(headers[0]); h++) {
			struct mct_event ev = { 0 };
			int r1, r2;

			ev.json = events[i];
			ev.len = strlen(events[i]);
			ev.file = "fuzz";
			ev.hdr = &headers[h];
			ev.byline = 1;
			r1 = mct_expr_eval(e, &ev, &headers[h]);
			r2 = mct_expr_eval(e, &ev, &headers[h]);
			CHECK(r1 == 0 || r1 == 1, "eval is 0 or 1");
			CHECK(r1 == r2, "eval is the same twice");
			if (k < nres)
				res[k++] = (signed char)r1;
			free(ev.kv);
		}
	mct_expr_free(e);
	return 0;
}

static void
fuzz_expr(const char *s, size_t len)
{
	enum { NRES = 6 * 3 };
	signed char a[NRES], b[NRES];
	char *padded;
	int ra, rb, cf;

	for (cf = 0; cf <= 1; cf++) {
		ra = expr1(s, cf ? REG_ICASE : 0, a, NRES);
		/* blanks around the text change nothing */
		padded = malloc(len + 3);
		if (padded == NULL)
			abort();
		padded[0] = ' ';
		memcpy(padded + 1, s, len);
		padded[len + 1] = '\t';
		padded[len + 2] = '\0';
		rb = expr1(padded, cf ? REG_ICASE : 0, b, NRES);
		free(padded);
		CHECK(ra == rb, "the same verdict with blanks around");
		if (ra == 0)
			CHECK(memcmp(a, b, NRES) == 0,
			    "the same results with blanks around");
	}
}

static char tmppath[256];
static int tmpfd = -1;

static void
rm_tmp(void)
{
	if (tmppath[0])
		unlink(tmppath);
}

#define NCAT	((sizeof(events) / sizeof(events[0])) * \
	    (sizeof(headers) / sizeof(headers[0])))

/* The category of every fixed event under every header, copied. */
static void
classify_all(char **out)
{
	size_t i, h, k = 0;
	const char *c;

	for (i = 0; i < sizeof(events) / sizeof(events[0]); i++)
		for (h = 0; h < sizeof(headers) / sizeof(headers[0]); h++) {
			struct mct_event ev = { 0 };

			ev.json = events[i];
			ev.len = strlen(events[i]);
			ev.file = "fuzz";
			ev.hdr = &headers[h];
			ev.byline = 1;
			c = mct_category(&ev, &headers[h]);
			CHECK(c == NULL || (c[0] == '"' && c[strlen(c) - 1] == '"'),
			    "a category is a JSON string");
			out[k++] = c ? strdup(c) : NULL;
			free(ev.kv);
		}
}

/* Load a small good rules file; 0 if it loaded and classifies. */
static int
good_rules(void)
{
	static const char good[] = "k\tname==a\n";
	char *cat[NCAT];
	size_t i;
	int rv;

	if (ftruncate(tmpfd, 0) != 0 ||
	    pwrite(tmpfd, good, sizeof(good) - 1, 0) != sizeof(good) - 1)
		abort();
	if ((rv = mct_rules_load(tmppath)) == 0) {
		classify_all(cat);
		for (i = 0; i < NCAT; i++)
			free(cat[i]);
	}
	return rv;
}

static void
fuzz_rules(const uint8_t *data, size_t n)
{
	char *first[NCAT], *again[NCAT];
	size_t off, i;

	if (tmpfd == -1) {
		const char *dir = getenv("TMPDIR");

		snprintf(tmppath, sizeof(tmppath), "%s/mct-fuzz-rules.XXXXXX",
		    dir && *dir ? dir : "/tmp");
		if ((tmpfd = mkstemp(tmppath)) == -1) {
			perror(tmppath);
			abort();
		}
		atexit(rm_tmp);
	}
	if (ftruncate(tmpfd, 0) != 0)
		abort();
	for (off = 0; off < n; ) {
		ssize_t w = pwrite(tmpfd, data + off, n - off, (off_t)off);

		if (w <= 0)
			abort();
		off += (size_t)w;
	}
	if (mct_rules_load(tmppath) != 0) {
		/* nothing is left loaded: a good file loads after it */
		CHECK(good_rules() == 0, "a good rules file loads after a bad one");
		return;
	}
	classify_all(first);
	CHECK(mct_rules_load(tmppath) == 0, "a rules file loads twice");
	classify_all(again);
	for (i = 0; i < NCAT; i++)
		CHECK((first[i] == NULL && again[i] == NULL) ||
		    (first[i] != NULL && again[i] != NULL &&
		    strcmp(first[i], again[i]) == 0),
		    "a rules file loaded again gives the same categories");
	for (i = 0; i < NCAT; i++) {
		free(first[i]);
		free(again[i]);
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int rules = -1;
	char *s;
	size_t len;

	if (size > 4096)
		return 0;
	if (rules == -1) {
		const char *v = getenv("FUZZ_RULES");

		rules = v == NULL || strcmp(v, "0") != 0;
		mct_records_register();	/* as a tool starts */
	}
	init_headers();
	s = malloc(size + 1);
	if (s == NULL)
		abort();
	if (size)
		memcpy(s, data, size);
	s[size] = '\0';
	len = strlen(s);
	fuzz_time(s);
	fuzz_fields(s);
	fuzz_expr(s, len);
	free(s);
	if (rules)
		fuzz_rules(data, size);
	return 0;
}
