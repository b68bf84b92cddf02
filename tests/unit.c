/*
 * unit.c - unit tests for libmct, in TAP (run by automake as tests/unit).
 *
 * The sections follow lib/mct.h: time.c (exact decimals, the time syntax,
 * numbers for people), json.c (the scanner and field access on compact
 * text), field.c, reader.c end to end on small temporary files, and
 * input.c (reading a plain file again and in parts) and rules.c (loading,
 * replacing, failing, resetting).
 *
 * The scanner is also checked against json-c by a differential test:
 * random events (nested values, strings with escapes and UTF-8, numbers
 * of every shape, random whitespace) and mangled copies of them (bytes
 * flipped, deleted, duplicated, inserted; texts cut off) are given to
 * both, and mct_scan() must accept exactly what json-c accepts in strict
 * mode, apart from json-c's known leniencies and mct's documented
 * repairs, and its compacted copy must parse to the same value.
 *
 * No test is skipped under the sanitizers: lib/ has no known undefined
 * behaviour left (the float-to-int64 cast of mct_fmt_double() and the \u
 * escapes of mct_jstr() once had some).
 *
 * MCT_UNIT_SEED=N runs the differential test with another seed;
 * MCT_UNIT_VERBOSE=1 prints every disagreement, not the first 20;
 * MCT_UNIT_STDERR=1 leaves the reader's stderr alone (its messages are
 * then not checked, but a sanitizer's report is seen).
 */
#include "config.h"

#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>

#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <json-c/json.h>
#include <zlib.h>

#include "mct.h"

typedef mct_i128 i128;

/* ------------------------------------------------------------------ */
/* TAP */

/* In shared memory: the reader tests run in a child process (see main). */
static struct counts {
	int	ntests, nfailed;
} counts0, *C = &counts0;

static void tap(int, const char *, va_list)
    __attribute__((format(printf, 2, 0)));
static int ok(int, const char *, ...) __attribute__((format(printf, 2, 3)));
static void diag(const char *, ...) __attribute__((format(printf, 1, 2)));

static void
tap(int pass, const char *fmt, va_list ap)
{
	char name[512];
	char *p;

	vsnprintf(name, sizeof(name), fmt, ap);
	for (p = name; *p; p++)
		if (*p == '#' || *p == '\n')
			*p = '_';	/* '#' starts a TAP directive */
	C->ntests++;
	printf("%sok %d - %s\n", pass ? "" : "not ", C->ntests, name);
	if (!pass)
		C->nfailed++;
}

static int
ok(int pass, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	tap(pass, fmt, ap);
	va_end(ap);
	return pass;
}

static void
diag(const char *fmt, ...)
{
	char msg[8192];
	va_list ap;
	char *p, *nl;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	for (p = msg; p; p = nl) {
		if ((nl = strchr(p, '\n')) != NULL)
			*nl++ = '\0';
		printf("# %s\n", p);
	}
	fflush(stdout);
}

/* Text as a C string literal's inside, for messages (a ring of 8). */
static const char *
esc(const char *s, size_t n)
{
	static char *ring[8];
	static int next;
	struct mct_buf b = { 0 };
	size_t i;

	if (s == NULL)
		return "(null)";
	mct_buf_grow(&b, n * 2 + 8);
	for (i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		char tmp[8];

		if (c == '\\' || c == '"') {
			mct_buf_addc(&b, '\\');
			mct_buf_addc(&b, c);
		} else if (c == '\n')
			mct_buf_adds(&b, "\\n");
		else if (c == '\t')
			mct_buf_adds(&b, "\\t");
		else if (c < 0x20 || c >= 0x7f) {
			snprintf(tmp, sizeof(tmp), "\\x%02x", c);
			mct_buf_adds(&b, tmp);
		} else
			mct_buf_addc(&b, c);
	}
	mct_buf_addc(&b, '\0');
	free(ring[next]);
	ring[next] = b.p;
	next = (next + 1) % 8;
	return b.p;
}

#define ESC(s)	esc((s), strlen(s))

static const char *
i128s(i128 v)
{
	static char ring[4][48];
	static int next;
	char tmp[48], *b = ring[next++ % 4];
	unsigned __int128 u = v < 0 ? -(unsigned __int128)v : (unsigned __int128)v;
	int n = 0, i = 0;

	do {
		tmp[n++] = (char)('0' + (int)(u % 10));
		u /= 10;
	} while (u);
	if (v < 0)
		b[i++] = '-';
	while (n)
		b[i++] = tmp[--n];
	b[i] = '\0';
	return b;
}

/* ------------------------------------------------------------------ */
/* time.c */

static void
t_dec_e6(const char *s, int want_rc, const char *want)
{
	i128 v = 0;
	int rc = mct_dec_e6(s, strlen(s), &v);

	if (want_rc == 0)
		ok(rc == 0 && strcmp(i128s(v), want) == 0,
		    "mct_dec_e6(\"%s\") = %s (got rc %d, %s)", s, want, rc, i128s(v));
	else
		ok(rc == -1, "mct_dec_e6(\"%s\") is -1 (got rc %d)", ESC(s), rc);
}

static void
t_dec_ns(const char *s, enum mct_unit u, int want_rc, int64_t want)
{
	int64_t v = 0;
	int rc = mct_dec_ns(s, strlen(s), u, &v);

	if (want_rc == 0)
		ok(rc == 0 && v == want, "mct_dec_ns(\"%s\", %s) = %" PRId64
		    " (got rc %d, %" PRId64 ")", s, mct_unit_name(u), want, rc, v);
	else
		ok(rc == -1, "mct_dec_ns(\"%s\", %s) is -1 (got rc %d, %" PRId64 ")",
		    ESC(s), mct_unit_name(u), rc, v);
}

static void
t_int(const char *s, int want_rc, int64_t want)
{
	int64_t v = 0;
	int rc = mct_int(s, strlen(s), &v);

	if (want_rc == 0)
		ok(rc == 0 && v == want, "mct_int(\"%s\") = %" PRId64 " (got rc %d, %"
		    PRId64 ")", s, want, rc, v);
	else
		ok(rc == -1, "mct_int(\"%s\") is -1 (got rc %d)", ESC(s), rc);
}

static void
t_dur(const char *s, int want_rc, int64_t want)
{
	int64_t v = 0;
	int rc = mct_parse_dur(s, &v);

	if (want_rc == 0)
		ok(rc == 0 && v == want, "mct_parse_dur(\"%s\") = %" PRId64
		    " ns (got rc %d, %" PRId64 ")", s, want, rc, v);
	else
		ok(rc == -1, "mct_parse_dur(\"%s\") is -1 (got rc %d, %" PRId64 ")",
		    ESC(s), rc, v);
}

static void
t_time(const char *s, int want_rc, int64_t want, int want_abs)
{
	int64_t v = 0;
	int a = -1, rc = mct_parse_time(s, &v, &a);

	if (want_rc == 0)
		ok(rc == 0 && v == want && a == want_abs, "mct_parse_time(\"%s\") = %"
		    PRId64 " ns, absolute %d (got rc %d, %" PRId64 ", %d)", s,
		    want, want_abs, rc, v, a);
	else
		ok(rc == -1, "mct_parse_time(\"%s\") is -1 (got rc %d)", ESC(s), rc);
}

static void
t_fmt_dec(int64_t v, int64_t div, const char *want)
{
	char buf[64];
	size_t n = mct_fmt_dec(buf, v, div);

	ok(n == strlen(want) && strcmp(buf, want) == 0,
	    "mct_fmt_dec(%" PRId64 ", %" PRId64 ") = \"%s\" (got \"%s\", %zu)",
	    v, div, want, buf, n);
}

static void
t_fmt_human(double ns, const char *want)
{
	char buf[64];
	size_t n = mct_fmt_human(buf, ns);

	ok(n == strlen(want) && strcmp(buf, want) == 0,
	    "mct_fmt_human(%.17g) = \"%s\" (got \"%s\")", ns, want, buf);
}

static void
t_fmt_count(int64_t v, const char *want)
{
	char buf[64];
	size_t n = mct_fmt_count(buf, v);

	ok(n == strlen(want) && strcmp(buf, want) == 0,
	    "mct_fmt_count(%" PRId64 ") = \"%s\" (got \"%s\")", v, want, buf);
}

static void
t_fmt_double(double d, const char *want)
{
	char buf[64];
	size_t n = mct_fmt_double(buf, d);

	ok(n == strlen(want) && strcmp(buf, want) == 0,
	    "mct_fmt_double(%.17g) = \"%s\" (got \"%s\")", d, want, buf);
}

static uint64_t rng_state;

static uint64_t
rnd(void)
{
	uint64_t z = (rng_state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static unsigned
rn(unsigned n)
{
	return n ? (unsigned)(rnd() % n) : 0;
}

static void
test_time(void)
{
	static const char *bad[] = {
		"", "-", "+", ".", "-.", "abc", "1x", "1e", "1e+", "1E-", "--1",
		" 1", "1 ", "0x10", "1.2.3", "1..2", "e5", "1e5.5", "NaN",
		"Infinity", "1,5",
	};
	char buf[64];
	size_t i;
	int64_t v;
	enum mct_unit u;
	int nbad, a;

	/* mct_dec_e6: the number times 10^6, exactly */
	t_dec_e6("1712195495519689.047", 0, "1712195495519689047000");
	t_dec_e6("0", 0, "0");
	t_dec_e6("-0", 0, "0");
	t_dec_e6("1", 0, "1000000");
	t_dec_e6("-2.5", 0, "-2500000");
	t_dec_e6("1.5e3", 0, "1500000000");
	t_dec_e6("1.5E+3", 0, "1500000000");
	t_dec_e6("15e-1", 0, "1500000");
	t_dec_e6("1e0000000000000000006", 0, "1000000000000");
	t_dec_e6("0.0000005", 0, "1");	/* half rounds away from zero */
	t_dec_e6("0.00000049999999", 0, "0");
	t_dec_e6("-0.0000005", 0, "-1");
	t_dec_e6("-0.00000049", 0, "0");
	t_dec_e6("0.0000015", 0, "2");
	t_dec_e6("2.0000025", 0, "2000003");
	t_dec_e6("1e-7", 0, "0");
	t_dec_e6("5e-7", 0, "1");
	t_dec_e6("1e-999999", 0, "0");
	t_dec_e6("0.1234567890123456789012345678901234567890123456789", 0,
	    "123457");
	t_dec_e6("123456789012345678901234567890", 0,
	    "123456789012345678901234567890000000");
	t_dec_e6("1e30", 0, "1000000000000000000000000000000000000");
	t_dec_e6("1e400", -1, NULL);	/* too large */
	t_dec_e6("1234567890123456789012345678901234567890", -1, NULL);
	for (i = 0, nbad = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		i128 e6;

		if (mct_dec_e6(bad[i], strlen(bad[i]), &e6) != -1) {
			diag("mct_dec_e6(\"%s\") accepted it", ESC(bad[i]));
			nbad++;
		}
	}
	ok(nbad == 0, "mct_dec_e6 rejects %zu texts that are not numbers",
	    sizeof(bad) / sizeof(bad[0]));
	ok(mct_dec_e6("12345", 3, &(i128){ 0 }) == 0, "mct_dec_e6 reads only n bytes");

	/* mct_dec_ns: a number in a unit, as integer ns */
	t_dec_ns("1712195495519689.047", MCT_UNIT_US, 0, 1712195495519689047LL);
	t_dec_ns("1712195495519689047", MCT_UNIT_NS, 0, 1712195495519689047LL);
	t_dec_ns("1712195495519689", MCT_UNIT_US, 0, 1712195495519689000LL);
	t_dec_ns("0.0005", MCT_UNIT_US, 0, 1);
	t_dec_ns("0.0004999", MCT_UNIT_US, 0, 0);
	t_dec_ns("-0.0005", MCT_UNIT_US, 0, -1);
	t_dec_ns("0.0015", MCT_UNIT_US, 0, 2);
	t_dec_ns("-0.0015", MCT_UNIT_US, 0, -2);
	t_dec_ns("-2.5", MCT_UNIT_US, 0, -2500);
	t_dec_ns("1.5e3", MCT_UNIT_US, 0, 1500000);
	t_dec_ns("1.5e3", MCT_UNIT_NS, 0, 1500);
	t_dec_ns("1e-3", MCT_UNIT_US, 0, 1);
	t_dec_ns("123456789e-3", MCT_UNIT_US, 0, 123456789);
	t_dec_ns("1.0000005", MCT_UNIT_MS, 0, 1000001);
	t_dec_ns("26.57", MCT_UNIT_S, 0, 26570000000LL);
	t_dec_ns("12", MCT_UNIT_NS, 0, 12);
	t_dec_ns("-12", MCT_UNIT_NS, 0, -12);
	t_dec_ns("12.5", MCT_UNIT_NS, 0, 13);
	t_dec_ns("-12.5", MCT_UNIT_NS, 0, -13);
	t_dec_ns("9223372036854775807", MCT_UNIT_NS, 0, INT64_MAX);
	t_dec_ns("-9223372036854775807", MCT_UNIT_NS, 0, -INT64_MAX);
	t_dec_ns("9223372036854775.807", MCT_UNIT_US, 0, INT64_MAX);
	t_dec_ns("9223372036854775808", MCT_UNIT_NS, -1, 0);
	t_dec_ns("9223372036854775.808", MCT_UNIT_US, -1, 0);
	t_dec_ns("1e10", MCT_UNIT_S, -1, 0);
	t_dec_ns("1e400", MCT_UNIT_NS, -1, 0);
	t_dec_ns("-", MCT_UNIT_NS, -1, 0);
	t_dec_ns("+1.5", MCT_UNIT_US, 0, 1500);
	t_dec_ns("123456789012345.678", MCT_UNIT_US, 0, 123456789012345678LL);
	t_dec_ns("1234567890123456.789", MCT_UNIT_US, 0, 1234567890123456789LL);
	t_dec_ns("1.", MCT_UNIT_S, 0, 1000000000);
	t_dec_ns("1..5", MCT_UNIT_US, -1, 0);
	t_dec_ns(".", MCT_UNIT_US, -1, 0);
	{
		static const int64_t iv[] = { 0, 7, -7, 10, -100, 1661203462598738047LL,
		    INT64_MAX, -INT64_MAX, INT64_MIN };
		struct mct_buf b = { 0 };
		char want[32];
		size_t ai, bad_i = 0;

		for (ai = 0; ai < sizeof(iv) / sizeof(iv[0]); ai++) {
			b.len = 0;
			mct_buf_addi(&b, iv[ai]);
			snprintf(want, sizeof(want), "%" PRId64, iv[ai]);
			if (b.len != strlen(want) || memcmp(b.p, want, b.len) != 0)
				bad_i++;
		}
		ok(bad_i == 0, "mct_buf_addi writes %zu integers as printf does",
		    sizeof(iv) / sizeof(iv[0]));
		mct_buf_free(&b);
	}
	{
		/*
		 * mct_ns_text: the text of mct_dec_ns()'s ns, or 0 where it
		 * fails; on random numbers of every form, the plain ones it
		 * writes as text (digits, a fraction of up to the unit's
		 * digits) and the others it hands to mct_dec_ns().
		 */
		static const enum mct_unit us[] = { MCT_UNIT_NS, MCT_UNIT_US,
		    MCT_UNIT_MS, MCT_UNIT_S };
		static const char *fixed[] = { "0", "0.0", "0.000", "0.5",
		    "0.05", "0.001", "0.0001", "00", "01.5", "1.", "-0", "-0.5",
		    "1661203462607008", "1661203462607008.123",
		    "1661203462607008.1234", "999999999999999.999",
		    "9999999999999999", "99999999999999999", "1e3", "1.5E-2",
		    "+1", ".5", "5.", "1..5", "12a", "",
		    /* about int64's end, 19 digits of ns */
		    "9223372036854775807", "9223372036854775808",
		    "1661203462598738", "9223372036854775", "9223372036854776",
		    "9223372036854775.807", "9223372036854775.808",
		    "9223372036854775.8", "9223372036854.775807",
		    "9223372036854.775808", "9223372036.854775807",
		    "9223372036.854775808", "1000000000000000000",
		    "9999999999999999.999", "0.000000001",
		    /* 8 to 16 bytes: taken two words at a time if digits */
		    "12345678", "1234567.8", "12345678.", "123456789012345a",
		    "a234567890123456", "1661203462.607008", "0123456789",
		    "999999999999999", "99999999999999999.9",
		    "8999999999999999", "9000000000000000" };
		char text[64], got[32], want[32];
		size_t n, w, k;
		int64_t ns;
		int ti, j, ui, nwrong = 0, nfast = 0, ntried = 0;

		for (ti = 0; ti < 40000 + (int)(sizeof(fixed) / sizeof(fixed[0]));
		    ti++) {
			if (ti < (int)(sizeof(fixed) / sizeof(fixed[0])))
				snprintf(text, sizeof(text), "%s", fixed[ti]);
			else {
				n = 0;
				if (rnd() % 8 == 0)
					text[n++] = '-';
				k = 1 + rnd() % 19;	/* integer digits */
				for (j = 0; j < (int)k; j++)
					text[n++] = (char)('0' + (j == 0 &&
					    k > 1 && rnd() % 16 ? 1 + rnd() % 9 :
					    rnd() % 10));
				if (rnd() % 2) {
					text[n++] = '.';
					k = 1 + rnd() % 11;
					for (j = 0; j < (int)k; j++)
						text[n++] = (char)('0' +
						    (rnd() % 3 ? rnd() % 10 : 0));
				}
				if (rnd() % 12 == 0)
					n += (size_t)snprintf(text + n,
					    sizeof(text) - n, "e%d",
					    (int)(rnd() % 9) - 4);
				text[n] = '\0';
			}
			for (ui = 0; ui < 4; ui++) {
				ntried++;
				w = mct_ns_text(got, text, strlen(text), us[ui]);
				if (mct_dec_ns(text, strlen(text), us[ui], &ns) != 0)
					want[0] = '\0';
				else
					snprintf(want, sizeof(want), "%" PRId64, ns);
				if (w != strlen(want) || memcmp(got, want, w) != 0) {
					if (nwrong++ < 5)
						printf("# mct_ns_text(\"%s\", %s): "
						    "\"%.*s\", want \"%s\"\n", text,
						    mct_unit_name(us[ui]), (int)w,
						    got, want);
				}
				if (strchr(text, 'e') == NULL &&
				    text[0] != '-' && w > 0)
					nfast++;
			}
		}
		ok(nwrong == 0 && nfast > 1000,
		    "mct_ns_text equals mct_dec_ns's ns as text on %d numbers "
		    "and units (%d plain)", ntried, nfast);
	}
	t_dec_ns("", MCT_UNIT_NS, -1, 0);
	t_dec_ns("12a", MCT_UNIT_NS, -1, 0);
	t_dec_ns("1.2.3", MCT_UNIT_US, -1, 0);
	t_dec_ns("abc", MCT_UNIT_US, -1, 0);
	t_dec_ns("\"5\"", MCT_UNIT_US, -1, 0);

	/* mct_int: strict */
	t_int("0", 0, 0);
	t_int("42", 0, 42);
	t_int("-42", 0, -42);
	t_int("9223372036854775807", 0, INT64_MAX);
	t_int("-9223372036854775808", 0, INT64_MIN);
	t_int("9223372036854775808", -1, 0);
	t_int("-9223372036854775809", -1, 0);
	t_int("9999999999999999999", -1, 0);
	t_int("1712195480123456789", 0, INT64_C(1712195480123456789));
	t_int("-0000000000000000001", 0, -1);
	t_int("12345/78", -1, 0);
	t_int("1234567:", -1, 0);
	t_int("17121954801234567?9", -1, 0);
	t_int("00000000000000000000042", 0, 42);
	t_int("18446744073709551616", -1, 0);
	t_int("99999999999999999999999", -1, 0);
	t_int("", -1, 0);
	t_int("-", -1, 0);
	t_int("+5", -1, 0);
	t_int(" 5", -1, 0);
	t_int("5 ", -1, 0);
	t_int("5x", -1, 0);
	t_int("1.0", -1, 0);
	t_int("1e3", -1, 0);
	t_int("0x10", -1, 0);
	t_int("--5", -1, 0);
	ok(mct_int("123", 2, &v) == 0 && v == 12, "mct_int reads only n bytes");

	/* units */
	ok(mct_parse_unit("us", &u) == 0 && u == MCT_UNIT_US &&
	    mct_parse_unit("ns", &u) == 0 && u == MCT_UNIT_NS &&
	    mct_parse_unit("ms", &u) == 0 && u == MCT_UNIT_MS &&
	    mct_parse_unit("s", &u) == 0 && u == MCT_UNIT_S &&
	    mct_parse_unit("auto", &u) == 0 && u == MCT_UNIT_AUTO,
	    "mct_parse_unit knows auto ns us ms s");
	ok(mct_parse_unit("US", &u) == -1 && mct_parse_unit("", &u) == -1 &&
	    mct_parse_unit("sec", &u) == -1, "mct_parse_unit rejects US, empty, sec");
	ok(strcmp(mct_unit_name(MCT_UNIT_US), "us") == 0 &&
	    strcmp(mct_unit_name(MCT_UNIT_S), "s") == 0 &&
	    mct_unit_ns(MCT_UNIT_MS) == 1000000 && mct_unit_ns(MCT_UNIT_S) ==
	    1000000000 && mct_unit_ns(MCT_UNIT_NS) == 1,
	    "mct_unit_name and mct_unit_ns");
	ok(mct_e6_ns((i128)1500, MCT_UNIT_US, &v) == 0 && v == 2 &&
	    mct_e6_ns((i128)-1500, MCT_UNIT_US, &v) == 0 && v == -2 &&
	    mct_e6_ns((i128)1000000, MCT_UNIT_S, &v) == 0 && v == 1000000000,
	    "mct_e6_ns rounds half away from zero and scales");

	/* the time syntax of the command line */
	t_dur("26.57s", 0, 26570000000LL);
	t_dur("500us", 0, 500000);
	t_dur("1.5ms", 0, 1500000);
	t_dur("2m", 0, 120000000000LL);
	t_dur("1.5m", 0, 90000000000LL);
	t_dur("250", 0, 250);
	t_dur("250ns", 0, 250);
	t_dur("0", 0, 0);
	t_dur("0.5", 0, 1);
	t_dur("-0.5", 0, -1);
	t_dur("0.0000000005s", 0, 1);
	t_dur("-3s", 0, -3000000000LL);
	t_dur("+3s", 0, 3000000000LL);
	t_dur(".5s", 0, 500000000);
	t_dur("9223372036s", 0, 9223372036000000000LL);
	t_dur("9223372037s", -1, 0);
	t_dur("99999999999999999999999999s", -1, 0);
	t_dur("12x", -1, 0);
	t_dur("", -1, 0);
	t_dur("s", -1, 0);
	t_dur("ms", -1, 0);
	t_dur("1.2.3", -1, 0);
	t_dur("1.2.3s", -1, 0);
	t_dur(".", -1, 0);
	t_dur("-", -1, 0);
	t_dur("1 s", -1, 0);
	t_dur(" 1s", -1, 0);
	t_dur("1S", -1, 0);
	t_dur("1sec", -1, 0);
	t_dur("1e3s", -1, 0);
	t_dur("1s2", -1, 0);
	t_dur("@1s", -1, 0);
	t_time("26.5s", 0, 26500000000LL, 0);
	t_time("@123", 0, 123, 1);
	t_time("@1.5s", 0, 1500000000, 1);
	t_time("@1712195495519689047", 0, 1712195495519689047LL, 1);
	t_time("@", -1, 0, 0);
	t_time("@@1", -1, 0, 0);
	t_time("@12x", -1, 0, 0);
	ok(mct_opt_time("--from", "1.5ms", &v, &a) == 0 && v == 1500000 && a == 0,
	    "mct_opt_time parses a valid time");

	/* numbers for people */
	t_fmt_dec(1234567, 1000, "1234.567");
	t_fmt_dec(1234000, 1000, "1234");
	t_fmt_dec(1230000, 1000000, "1.23");
	t_fmt_dec(1000, 1000, "1");
	t_fmt_dec(-1500, 1000, "-1.5");
	t_fmt_dec(-5, 1000, "-0.005");
	t_fmt_dec(0, 1000, "0");
	t_fmt_dec(5, 1, "5");
	t_fmt_dec(1712195495519689047LL, 1000, "1712195495519689.047");
	t_fmt_dec(INT64_MIN, 1, "-9223372036854775808");
	t_fmt_dec(INT64_MIN, 1000000000, "-9223372036.854775808");
	t_fmt_dec(INT64_MAX, 1000, "9223372036854775.807");
	t_fmt_human(2590, "2.59 us");
	t_fmt_human(253990000, "253.99 ms");
	t_fmt_human(27940000000.0, "27.94 s");
	t_fmt_human(0, "0.00 us");
	t_fmt_human(80980000000.0, "80.98 s");
	t_fmt_human(-2590, "-2.59 us");
	t_fmt_count(225852, "225,852");
	t_fmt_count(0, "0");
	t_fmt_count(999, "999");
	t_fmt_count(1000, "1,000");
	t_fmt_count(189069, "189,069");
	t_fmt_count(-1234567, "-1,234,567");
	t_fmt_count(INT64_MAX, "9,223,372,036,854,775,807");
	t_fmt_count(INT64_MIN, "-9,223,372,036,854,775,808");
	t_fmt_double(0.1, "0.1");
	t_fmt_double(0.3, "0.3");
	t_fmt_double(2.5, "2.5");
	t_fmt_double(1.0 / 3, "0.3333333333333333");
	t_fmt_double(100, "100");
	t_fmt_double(-42, "-42");
	t_fmt_double(1e21, "1e+21");
	t_fmt_double(1e-7, "1e-07");
	t_fmt_double(5e-324, "5e-324");
	t_fmt_double(1.7976931348623157e308, "1.7976931348623157e+308");
	t_fmt_double(NAN, "null");
	t_fmt_double(INFINITY, "null");
	{
		int nwrong = 0, k;

		rng_state = 42;
		for (k = 0; k < 20000; k++) {
			uint64_t bits = rnd();
			double d, back;
			json_object *o;

			if (k % 2)
				memcpy(&d, &bits, sizeof(d));
			else
				d = (double)(int64_t)(bits >> 20) / (double)(1 + rn(100000));
			if (isnan(d) || isinf(d))
				continue;
			mct_fmt_double(buf, d);
			back = strtod(buf, NULL);
			o = json_tokener_parse(buf);
			if (back != d || o == NULL) {
				if (nwrong++ < 5)
					diag("mct_fmt_double(%a) = \"%s\" reads back as %a%s",
					    d, buf, back, o ? "" : " (not JSON)");
			}
			/* shortest: one digit less does not read back */
			if (strchr(buf, 'e') == NULL && strchr(buf, '.') != NULL) {
				char shorter[400];
				int digits = 0;
				char *q;

				for (q = buf; *q == '-' || *q == '0' || *q == '.'; q++)
					;	/* leading zeros are not significant */
				for (; *q && *q != 'e'; q++)
					digits += *q >= '0' && *q <= '9';
				if (digits > 1) {
					snprintf(shorter, sizeof(shorter), "%.*g",
					    digits - 1, d);
					if (strtod(shorter, NULL) == d && nwrong++ < 5)
						diag("mct_fmt_double(%a) = \"%s\" but \"%s\" "
						    "is shorter", d, buf, shorter);
				}
			}
			json_object_put(o);
		}
		ok(nwrong == 0, "mct_fmt_double: 20000 random doubles read back "
		    "exactly, as JSON, shortest");
	}
}

/* ------------------------------------------------------------------ */
/* json.c: the scanner */

/* Scan text[0..n) into a fresh out buffer (if out), NUL-terminated. */
static int
scan(const char *text, size_t n, int event, int index, struct mct_buf *out,
    struct mct_scan *s)
{
	struct mct_kv *kv = s->kv;
	int kvcap = s->kvcap, rc;

	memset(s, 0, sizeof(*s));
	s->kv = kv;
	s->kvcap = kvcap;
	s->p = text;
	s->end = text + n;
	s->out = out;
	s->event = event;
	s->index = index;
	if (out)
		out->len = 0;
	rc = mct_scan(s);
	if (out) {
		mct_buf_grow(out, 0);
		out->p[out->len] = '\0';
	}
	return rc;
}

static const char *
rcname(int rc)
{
	switch (rc) {
	case MCT_SCAN_OK: return "OK";
	case MCT_SCAN_MORE: return "MORE";
	case MCT_SCAN_ERROR: return "ERROR";
	case MCT_SCAN_TRACE: return "TRACE";
	}
	return "?";
}

/* Scan text; expect rc, the output (if OK), fixes, errmsg (if ERROR). */
static void
t_scan(const char *text, size_t n, int want_rc, const char *want_out,
    unsigned want_fixes, const char *want_msg)
{
	struct mct_buf out = { 0 };
	struct mct_scan s = { 0 };
	int rc = scan(text, n, 0, 0, &out, &s), pass;
	const char *got = out.p ? out.p : "";

	pass = rc == want_rc && s.fixes == want_fixes;
	if (want_out)
		pass = pass && out.len == strlen(want_out) &&
		    memcmp(got, want_out, out.len) == 0;
	if (want_msg)
		pass = pass && s.errmsg && strcmp(s.errmsg, want_msg) == 0;
	if (want_rc == MCT_SCAN_OK && want_out)
		pass = pass && s.p == text + n;
	ok(pass, "mct_scan \"%s\" -> %s%s%s%s", esc(text, n), rcname(want_rc),
	    want_out ? " \"" : "", want_out ? esc(want_out, strlen(want_out)) :
	    "", want_out ? "\"" : "");
	if (!pass)
		diag("got %s, fixes %#x, errmsg %s, out \"%s\", p at %td",
		    rcname(rc), s.fixes, s.errmsg ? s.errmsg : "-",
		    esc(got, out.len), s.p - text);
	/*
	 * .plain: no repair; .spaced: the copy is shorter than the text,
	 * whitespace gone (only whitespace, being plain).  Said alike
	 * without .out, where there is no copy to measure.
	 */
	if (rc == MCT_SCAN_OK && (s.plain != (s.fixes == 0) ||
	    (s.plain && s.spaced != (out.len != (size_t)(s.p - text)))))
		ok(0, "mct_scan .plain %d .spaced %d on \"%s\"", s.plain,
		    s.spaced, esc(text, n));
	/* Without .out the result is the same (trailing commas aside). */
	if (!(want_fixes & MCT_FIX_COMMA)) {
		int plain = s.plain, spaced = s.spaced;
		int rc0 = scan(text, n, 0, 0, NULL, &s);

		if (rc0 != rc)
			ok(0, "mct_scan without .out agrees on \"%s\" (%s vs %s)",
			    esc(text, n), rcname(rc0), rcname(rc));
		else if (rc == MCT_SCAN_OK &&
		    (s.plain != plain || s.spaced != spaced))
			ok(0, "mct_scan without .out: .plain %d .spaced %d on "
			    "\"%s\" (with .out: %d %d)", s.plain, s.spaced,
			    esc(text, n), plain, spaced);
	}
	free(s.kv);
	mct_buf_free(&out);
}

#define TS(text, rc, out, fixes, msg) \
	t_scan((text), sizeof(text) - 1, (rc), (out), (fixes), (msg))

/* Is t[0..n) a JSON number (RFC 8259)?  Independent of lib/. */
static int
json_number(const char *t, size_t n)
{
	size_t i = 0;

	if (i < n && t[i] == '-')
		i++;
	if (i < n && t[i] == '0')
		i++;
	else if (i < n && t[i] >= '1' && t[i] <= '9')
		while (i < n && t[i] >= '0' && t[i] <= '9')
			i++;
	else
		return 0;
	if (i < n && t[i] == '.') {
		i++;
		if (i >= n || t[i] < '0' || t[i] > '9')
			return 0;
		while (i < n && t[i] >= '0' && t[i] <= '9')
			i++;
	}
	if (i < n && (t[i] == 'e' || t[i] == 'E')) {
		i++;
		if (i < n && (t[i] == '+' || t[i] == '-'))
			i++;
		if (i >= n || t[i] < '0' || t[i] > '9')
			return 0;
		while (i < n && t[i] >= '0' && t[i] <= '9')
			i++;
	}
	return i == n;
}

/*
 * json-c in strict mode, as the oracle.  json-c 0.16 leaves a pending high
 * surrogate in the tokener after an error (a following parse of "\u0041"
 * gives U+FFFD A even after json_tokener_reset()), so a parse that fails
 * gets a new tokener.
 */
static struct json_tokener *jtok;

static int
jws(unsigned char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

static int
only_ws(const char *p, const char *end)
{
	for (; p < end; p++)
		if (!jws((unsigned char)*p))
			return 0;
	return 1;
}

/* Parse t[0..n) with json-c (t[n] is NUL).  Returns accepted or not. */
static int
jc_parse(const char *t, size_t n, json_object **op)
{
	json_object *o;
	int good;

	if (jtok == NULL) {
		jtok = json_tokener_new_ex(600);
		json_tokener_set_flags(jtok, JSON_TOKENER_STRICT);
	} else
		json_tokener_reset(jtok);
	o = json_tokener_parse_ex(jtok, t, (int)n + 1);
	good = json_tokener_get_error(jtok) == json_tokener_success &&
	    only_ws(t + json_tokener_get_parse_end(jtok), t + n);
	if (!good) {
		json_object_put(o);
		o = NULL;
		json_tokener_free(jtok);
		jtok = NULL;
	}
	if (op)
		*op = o;
	else
		json_object_put(o);
	return good;
}

/* Does json-c accept the compact text, and does mct rescan it unchanged? */
static int
valid_compact(const char *t, size_t n)
{
	struct mct_buf out = { 0 }, copy = { 0 };
	struct mct_scan s = { 0 };
	int good;

	mct_buf_add(&copy, t, n);
	good = jc_parse(copy.p, n, NULL);
	/* the NUL after the text ends a bare number, as a newline would */
	good = good && scan(copy.p, n + 1, 0, 0, &out, &s) == MCT_SCAN_OK &&
	    s.fixes == 0 && s.p == copy.p + n && out.len == n &&
	    memcmp(out.p, t, n) == 0;
	free(s.kv);
	mct_buf_free(&out);
	mct_buf_free(&copy);
	return good;
}

static void
test_scan(void)
{
	struct mct_buf out = { 0 };
	struct mct_scan s = { 0 };
	struct mct_buf deep = { 0 };
	const char *t;
	int rc, i;

	/* valid values: compacted, texts kept */
	TS("{ \"a\" : 1 , \"b\" : [ 1 , 2 ] }", MCT_SCAN_OK,
	    "{\"a\":1,\"b\":[1,2]}", 0, NULL);
	TS("{\n\t\"a\":\r\n  {  }  ,\"b\":[ ]}", MCT_SCAN_OK, "{\"a\":{},\"b\":[]}",
	    0, NULL);
	TS("{\"n\":[1.10,-0.0e+5,12345678901234567890123,0,-0,1E-7,3e0010]}",
	    MCT_SCAN_OK,
	    "{\"n\":[1.10,-0.0e+5,12345678901234567890123,0,-0,1E-7,3e0010]}",
	    0, NULL);
	TS("{\"s\":\"\\u00e9\\n\\\"x\\\\\\/\\b\\f\\r\\t\\uD83D\\uDE00\"}", MCT_SCAN_OK,
	    "{\"s\":\"\\u00e9\\n\\\"x\\\\\\/\\b\\f\\r\\t\\uD83D\\uDE00\"}", 0, NULL);
	TS("{\"u\":\"\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\xf4\x8f\xbf\xbf\"}",
	    MCT_SCAN_OK, "{\"u\":\"\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80"
	    "\xf4\x8f\xbf\xbf\"}", 0, NULL);
	TS("{\"t\":true,\"f\":false,\"z\":null}", MCT_SCAN_OK,
	    "{\"t\":true,\"f\":false,\"z\":null}", 0, NULL);
	TS("[ 1 , \"x\" , [ ] , { } ]", MCT_SCAN_OK, "[1,\"x\",[],{}]", 0, NULL);
	TS("\"a b\"", MCT_SCAN_OK, "\"a b\"", 0, NULL);
	TS("true", MCT_SCAN_OK, "true", 0, NULL);
	TS("{\"long\":\"abcdefghijklmnopqrstuvwxyz0123456789 abcdefghij\"}",
	    MCT_SCAN_OK, "{\"long\":\"abcdefghijklmnopqrstuvwxyz0123456789 "
	    "abcdefghij\"}", 0, NULL);
	TS("{\"a\":                                        1}", MCT_SCAN_OK,
	    "{\"a\":1}", 0, NULL);
	TS("{\"a\":\"\x7f\"}", MCT_SCAN_OK, "{\"a\":\"\x7f\"}", 0, NULL);

	/* syntax errors */
	TS("{\"a\":1 \"b\":2}", MCT_SCAN_ERROR, NULL, 0, "expected ',' or '}'");
	TS("[1 2]", MCT_SCAN_ERROR, NULL, 0, "expected ',' or ']'");
	TS("{\"a\" 1}", MCT_SCAN_ERROR, NULL, 0, "expected ':' after a key");
	TS("{1:2}", MCT_SCAN_ERROR, NULL, 0, "expected a string key");
	TS("{'a':1}", MCT_SCAN_ERROR, NULL, 0, "expected a string key");
	TS("{\"a\":x}", MCT_SCAN_ERROR, NULL, 0, "unexpected character");
	TS("{\"a\":'x'}", MCT_SCAN_ERROR, NULL, 0, "unexpected character");
	TS("{\"a\":tru}", MCT_SCAN_ERROR, NULL, 0, "invalid literal");
	TS("{\"a\":nul,\"b\":1}", MCT_SCAN_ERROR, NULL, 0, "invalid literal");
	TS("{\"a\":True}", MCT_SCAN_ERROR, NULL, 0, "unexpected character");
	TS("{\"a\":01}", MCT_SCAN_ERROR, NULL, 0, "expected ',' or '}'");
	TS("{\"a\":-01}", MCT_SCAN_ERROR, NULL, 0, "expected ',' or '}'");
	TS("{\"a\":-}", MCT_SCAN_ERROR, NULL, 0, "invalid number");
	TS("{\"a\":1.}", MCT_SCAN_ERROR, NULL, 0, "invalid number");
	TS("{\"a\":.5}", MCT_SCAN_ERROR, NULL, 0, "unexpected character");
	TS("{\"a\":+1}", MCT_SCAN_ERROR, NULL, 0, "unexpected character");
	TS("{\"a\":1e}", MCT_SCAN_ERROR, NULL, 0, "invalid number");
	TS("{\"a\":1e+}", MCT_SCAN_ERROR, NULL, 0, "invalid number");
	TS("{\"a\":-Inf}", MCT_SCAN_ERROR, NULL, 0, "invalid literal");
	TS("{\"a\":1,,\"b\":2}", MCT_SCAN_ERROR, NULL, 0, "expected a string key");
	TS("[1,,2]", MCT_SCAN_ERROR, NULL, 0, "unexpected character");
	TS("{,}", MCT_SCAN_ERROR, NULL, 0, "expected a string key");
	TS("[,]", MCT_SCAN_ERROR, NULL, 0, "unexpected character");
	TS("{\"a\":1]", MCT_SCAN_ERROR, NULL, 0, "expected ',' or '}'");
	TS("{\"a\"\v:1}", MCT_SCAN_ERROR, NULL, 0, "expected ':' after a key");
	TS("{/*c*/\"a\":1}", MCT_SCAN_ERROR, NULL, 0, "expected a string key");

	/* errpos points at the offending byte */
	t = "{\"a\":1 \"b\":2}";
	rc = scan(t, strlen(t), 0, 0, &out, &s);
	ok(rc == MCT_SCAN_ERROR && s.errpos == t + 7,
	    "mct_scan: errpos is the offset of the unexpected byte (7, got %td)",
	    s.errpos - t);

	/* the text ends inside the value */
	TS("{\"a\":", MCT_SCAN_MORE, NULL, 0, NULL);
	TS("{\"a\"", MCT_SCAN_MORE, NULL, 0, NULL);
	TS("{", MCT_SCAN_MORE, NULL, 0, NULL);
	TS("{ ", MCT_SCAN_MORE, NULL, 0, NULL);
	TS("", MCT_SCAN_MORE, NULL, 0, NULL);
	TS("  ", MCT_SCAN_MORE, NULL, 0, NULL);
	TS("{\"a\":\"xy", MCT_SCAN_MORE, NULL, 0, NULL);
	TS("{\"a\":\"abcdefghijklmnopq", MCT_SCAN_MORE, NULL, 0, NULL);
	TS("{\"a\":1", MCT_SCAN_MORE, NULL, 0, NULL);
	TS("{\"a\":1.5e", MCT_SCAN_MORE, NULL, 0, NULL);
	TS("{\"a\":-", MCT_SCAN_MORE, NULL, 0, NULL);
	TS("{\"a\":tr", MCT_SCAN_MORE, NULL, 0, NULL);
	TS("{\"a\":\"\\", MCT_SCAN_MORE, NULL, 0, NULL);
	TS("{\"a\":\"\\u12", MCT_SCAN_MORE, NULL, 0, NULL);
	TS("{\"a\":\"\xe2\x82", MCT_SCAN_MORE, NULL, 0, NULL);
	TS("{\"a\":[1,{\"b\":", MCT_SCAN_MORE, NULL, 0, NULL);
	TS("12", MCT_SCAN_MORE, NULL, 0, NULL);	/* a number needs its end */
	TS("12 ", MCT_SCAN_OK, NULL, 0, NULL);
	/* A complete object ending in a bad \u escape is not "cut off". */
	{
		const char *u = "{\"a\":\"\\u1\"}";

		rc = scan(u, strlen(u), 0, 0, &out, &s);
		ok(rc == MCT_SCAN_OK && s.fixes == MCT_FIX_ESCAPE,
		    "mct_scan \"%s\" at the very end of the "
		    "text -> OK with MCT_FIX_ESCAPE (got %s)", ESC(u), rcname(rc));
		rc = scan("{\"a\":\"\\u1\"} ", strlen(u) + 1, 0, 0, &out, &s);
		ok(rc == MCT_SCAN_OK && s.fixes == MCT_FIX_ESCAPE,
		    "mct_scan \"%s \" -> OK with MCT_FIX_ESCAPE", ESC(u));
	}

	/* repairs */
	TS("{\"a\":\"x\\qy\"}", MCT_SCAN_OK, "{\"a\":\"x\\\\qy\"}", MCT_FIX_ESCAPE,
	    NULL);
	TS("{\"a\":\"\\u12zz\"}", MCT_SCAN_OK, "{\"a\":\"\\\\u12zz\"}",
	    MCT_FIX_ESCAPE, NULL);
	TS("{\"a\":\"x\ty\"}", MCT_SCAN_OK, "{\"a\":\"x\\u0009y\"}", MCT_FIX_CTRL,
	    NULL);
	TS("{\"a\":\"\x01\x1f\"}", MCT_SCAN_OK, "{\"a\":\"\\u0001\\u001f\"}",
	    MCT_FIX_CTRL, NULL);
	TS("{\"a\":\"x\0y\"}", MCT_SCAN_OK, "{\"a\":\"x\\u0000y\"}", MCT_FIX_CTRL,
	    NULL);
	TS("{\"a\":\"\xff\"}", MCT_SCAN_OK, "{\"a\":\"\xef\xbf\xbd\"}",
	    MCT_FIX_UTF8, NULL);
	TS("{\"a\":\"\xc0\x80\"}", MCT_SCAN_OK,
	    "{\"a\":\"\xef\xbf\xbd\xef\xbf\xbd\"}", MCT_FIX_UTF8, NULL);
	TS("{\"a\":\"\xed\xa0\x80\"}", MCT_SCAN_OK,
	    "{\"a\":\"\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\"}", MCT_FIX_UTF8, NULL);
	TS("{\"a\":\"\xe2\x82x\"}", MCT_SCAN_OK,
	    "{\"a\":\"\xef\xbf\xbd\xef\xbf\xbdx\"}", MCT_FIX_UTF8, NULL);
	TS("{\"a\":\"\xf4\x90\x80\x80\"}", MCT_SCAN_OK, NULL, MCT_FIX_UTF8, NULL);
	TS("{\"a\":1,}", MCT_SCAN_OK, "{\"a\":1}", MCT_FIX_COMMA, NULL);
	TS("{\"a\":1 , }", MCT_SCAN_OK, "{\"a\":1}", MCT_FIX_COMMA, NULL);
	TS("[1,2,]", MCT_SCAN_OK, "[1,2]", MCT_FIX_COMMA, NULL);
	TS("{\"a\":[1, ],\"b\":{\"c\":[],},}", MCT_SCAN_OK,
	    "{\"a\":[1],\"b\":{\"c\":[]}}", MCT_FIX_COMMA, NULL);
	TS("{\"a\":NaN,\"b\":Infinity,\"c\":-Infinity}", MCT_SCAN_OK,
	    "{\"a\":null,\"b\":null,\"c\":null}",
	    MCT_FIX_NAN, NULL);
	TS("{\"a\":\"\\q\x01\xff\",\"b\":[NaN,],}", MCT_SCAN_OK,
	    "{\"a\":\"\\\\q\\u0001\xef\xbf\xbd\",\"b\":[null]}",
	    MCT_FIX_ESCAPE | MCT_FIX_CTRL | MCT_FIX_UTF8 | MCT_FIX_COMMA |
	    MCT_FIX_NAN, NULL);
	TS("{\"\\q\x01\":1}", MCT_SCAN_OK, "{\"\\\\q\\u0001\":1}",
	    MCT_FIX_ESCAPE | MCT_FIX_CTRL, NULL);
	t = "{\"a\":\"ok\",\"b\":\"x\\q\x01\"}";
	rc = scan(t, strlen(t), 0, 0, &out, &s);
	ok(rc == MCT_SCAN_OK && s.fixpos == t + 16,
	    "mct_scan: fixpos is where the first repair was needed (16, got %td)",
	    s.fixpos ? s.fixpos - t : -1);
	/* A repaired output needs no more repairs and is valid JSON. */
	t = "{\"a\":\"\\q\x01\xff\xc0\",\"b\":[NaN,Infinity,],}";
	rc = scan(t, strlen(t), 0, 0, &out, &s);
	ok(rc == MCT_SCAN_OK && valid_compact(out.p, out.len),
	    "mct_scan: a repaired copy is valid JSON that needs no repair");
	/* Repairs that grow the text a lot still fit (the buffer grows). */
	{
		struct mct_buf big = { 0 };

		mct_buf_adds(&big, "{\"a\":\"");
		for (i = 0; i < 5000; i++)
			mct_buf_addc(&big, i % 2 ? 0x01 : 0xff);
		mct_buf_adds(&big, "\"}");
		rc = scan(big.p, big.len, 0, 0, &out, &s);
		ok(rc == MCT_SCAN_OK && out.len == 6 + 2500 * 6 + 2500 * 3 + 2 &&
		    valid_compact(out.p, out.len),
		    "mct_scan: 5000 repaired bytes make a %d-byte copy (got %zu)",
		    6 + 2500 * 9 + 2, out.len);
		mct_buf_free(&big);
	}

	/* The output is appended to what the buffer holds. */
	free(s.kv);
	out.len = 0;
	mct_buf_adds(&out, "X");
	memset(&s, 0, sizeof(s));
	s.p = "{ \"a\" : 1 }";
	s.end = s.p + strlen(s.p);
	s.out = &out;
	s.index = 1;
	rc = mct_scan(&s);
	ok(rc == MCT_SCAN_OK && out.len == 8 && memcmp(out.p, "X{\"a\":1}", 8) == 0 &&
	    s.nkv == 1 && s.kv[0].koff == 3 && s.kv[0].klen == 1 &&
	    s.kv[0].voff == 6 && s.kv[0].vlen == 1,
	    "mct_scan appends to .out; .kv offsets count from out->p");

	/* p is left after the value */
	t = "{\"a\":1} {\"b\":2}";
	rc = scan(t, strlen(t), 0, 0, &out, &s);
	ok(rc == MCT_SCAN_OK && s.p == t + 7 && out.len == 7,
	    "mct_scan stops after the first value (p at 7, got %td)", s.p - t);

	/* nesting: 512 levels, not 513 */
	for (i = 0; i < 512; i++)
		mct_buf_addc(&deep, '[');
	for (i = 0; i < 512; i++)
		mct_buf_addc(&deep, ']');
	rc = scan(deep.p, deep.len, 0, 0, &out, &s);
	ok(rc == MCT_SCAN_OK && out.len == 1024, "mct_scan: 512 nested arrays");
	deep.len = 0;
	for (i = 0; i < 513; i++)
		mct_buf_addc(&deep, i % 2 ? '[' : '{');
	rc = scan(deep.p, deep.len, 0, 0, &out, &s);
	ok(rc == MCT_SCAN_ERROR, "mct_scan: 513 nested levels are an error (%s)",
	    s.errmsg ? s.errmsg : "-");
	deep.len = 0;
	for (i = 0; i < 600; i++)
		mct_buf_adds(&deep, "{\"a\":");
	rc = scan(deep.p, deep.len, 0, 0, &out, &s);
	ok(rc == MCT_SCAN_ERROR && s.errmsg &&
	    strcmp(s.errmsg, "nested too deeply") == 0,
	    "mct_scan: 600 nested objects: \"nested too deeply\"");
	mct_buf_free(&deep);

	/* the index of first-level keys, with and without .out */
	t = "{ \"ts\" : 1 , \"name\" : \"x\" , \"args\" : { \"a\" : [ 1 ] } , "
	    "\"k\\\"q\" : null }";
	rc = scan(t, strlen(t), 0, 1, &out, &s);
	ok(rc == MCT_SCAN_OK && s.nkv == 4 &&
	    s.kv[0].klen == 2 && memcmp(out.p + s.kv[0].koff, "ts", 2) == 0 &&
	    s.kv[0].vlen == 1 && memcmp(out.p + s.kv[0].voff, "1", 1) == 0 &&
	    s.kv[1].klen == 4 && memcmp(out.p + s.kv[1].koff, "name", 4) == 0 &&
	    s.kv[1].vlen == 3 && memcmp(out.p + s.kv[1].voff, "\"x\"", 3) == 0 &&
	    s.kv[2].vlen == 9 &&
	    memcmp(out.p + s.kv[2].voff, "{\"a\":[1]}", 9) == 0 &&
	    s.kv[3].klen == 4 && memcmp(out.p + s.kv[3].koff, "k\\\"q", 4) == 0 &&
	    s.kv[3].vlen == 4 && memcmp(out.p + s.kv[3].voff, "null", 4) == 0,
	    "mct_scan .index with .out: keys and values in the compact copy");
	rc = scan(t, strlen(t), 0, 1, NULL, &s);
	ok(rc == MCT_SCAN_OK && s.nkv == 4 &&
	    s.kv[0].klen == 2 && memcmp(t + s.kv[0].koff, "ts", 2) == 0 &&
	    s.kv[1].klen == 4 && memcmp(t + s.kv[1].koff, "name", 4) == 0 &&
	    memcmp(t + s.kv[1].voff, "\"x\"", 3) == 0 && s.kv[1].vlen == 3 &&
	    s.kv[2].vlen == 15 &&
	    memcmp(t + s.kv[2].voff, "{ \"a\" : [ 1 ] }", 15) == 0 &&
	    s.kv[3].klen == 4 && memcmp(t + s.kv[3].koff, "k\\\"q", 4) == 0,
	    "mct_scan .index without .out: offsets into the input text");
	rc = scan("[{\"a\":1}]", 9, 0, 1, &out, &s);
	ok(rc == MCT_SCAN_OK && s.nkv == 0, "mct_scan .index: keys of nested "
	    "objects are not first-level keys");
	rc = scan("{\"a\":{\"b\":1},\"c\":[{\"d\":2}]}", 27, 0, 1, &out, &s);
	ok(rc == MCT_SCAN_OK && s.nkv == 2 && s.kv[1].klen == 1 &&
	    out.p[s.kv[1].koff] == 'c' && s.kv[0].vlen == 7 && s.kv[1].vlen == 9,
	    "mct_scan .index: values that are containers span them whole");

	/* the top-level "traceEvents": [ */
	free(s.kv);
	memset(&s, 0, sizeof(s));
	t = "{\"otherData\" : {\"v\":1} , \"traceEvents\" : [ {\"ts\":1} ] }";
	s.p = t;
	s.end = t + strlen(t);
	out.len = 0;
	s.out = &out;
	s.toplevel = s.index = 1;
	rc = mct_scan(&s);
	ok(rc == MCT_SCAN_TRACE && s.p == strchr(t, '[') + 1 && s.nkv == 1 &&
	    out.len == 21 && memcmp(out.p, "{\"otherData\":{\"v\":1},", 21) == 0 &&
	    s.kv[0].klen == 9 && s.kv[0].vlen == 7,
	    "mct_scan .toplevel: TRACE after \"traceEvents\": [, with the keys "
	    "before it (got %s, out \"%s\")", rcname(rc), esc(out.p, out.len));
	t = "{\"traceEvents\":{\"a\":1}}";
	s.p = t;
	s.end = t + strlen(t);
	out.len = 0;
	rc = mct_scan(&s);
	ok(rc == MCT_SCAN_OK, "mct_scan .toplevel: \"traceEvents\" not an array "
	    "is a plain key");
	t = "{\"a\":{\"traceEvents\":[1]}}";
	s.p = t;
	s.end = t + strlen(t);
	out.len = 0;
	rc = mct_scan(&s);
	ok(rc == MCT_SCAN_OK, "mct_scan .toplevel: a nested \"traceEvents\" is "
	    "a plain key");
	t = "{\"traceEvents\"  ";
	s.p = t;
	s.end = t + strlen(t);
	out.len = 0;
	rc = mct_scan(&s);
	ok(rc == MCT_SCAN_MORE, "mct_scan .toplevel: MORE before the ':'");
	t = "{\"traceEvents\":[{\"ts\":1}]}";
	rc = scan(t, strlen(t), 0, 0, &out, &s);
	ok(rc == MCT_SCAN_OK && out.len == strlen(t), "mct_scan without "
	    ".toplevel reads the whole trace");

	free(s.kv);
	mct_buf_free(&out);
}

/* t less its whitespace outside strings, in a static buffer. */
static const char *
unspaced(const char *t)
{
	static char buf[1024];
	size_t n = 0;
	int instr = 0;

	for (; *t && n + 1 < sizeof(buf); t++) {
		if (instr && *t == '\\' && t[1]) {
			buf[n++] = *t++;
			buf[n++] = *t;
			continue;
		}
		if (*t == '"')
			instr = !instr;
		if (instr || !strchr(" \t\r\n", *t))
			buf[n++] = *t;
	}
	buf[n] = '\0';
	return buf;
}

/* Event mode: what the framer learns. */
static void
t_event(const char *t, const char *want_out, int ts_kind, const char *ts_e6,
    int dur_kind, int meta, int coid)
{
	struct mct_buf out = { 0 };
	struct mct_scan s = { 0 };
	int rc = scan(t, strlen(t), 1, 1, &out, &s), pass, i;
	/* plain: the copy is the text less its whitespace, and no more */
	int plain = strcmp(unspaced(t), want_out) == 0;
	int spaced = plain && strlen(t) != strlen(want_out);

	for (i = 0; i < 2; i++) {
		if (i == 1)
			(void)scan(t, strlen(t), 1, 1, NULL, &s);
		ok(s.plain == plain && s.spaced == spaced, "mct_scan .event "
		    "\"%s\"%s: .plain %d, .spaced %d", ESC(t), i ?
		    " without .out" : "", plain, spaced);
	}
	rc = scan(t, strlen(t), 1, 1, &out, &s);

	pass = rc == MCT_SCAN_OK && out.len == strlen(want_out) &&
	    memcmp(out.p, want_out, out.len) == 0 && s.ts_kind == ts_kind &&
	    (ts_kind == MCT_TS_NONE || strcmp(i128s(s.ts_e6), ts_e6) == 0) &&
	    s.dur_kind == dur_kind && s.is_meta == meta && s.has_co_id == coid;
	ok(pass, "mct_scan .event \"%s\" -> \"%s\", ts %d %s, dur %d, meta %d, "
	    "co_id %d", ESC(t), ESC(want_out), ts_kind, ts_e6 ? ts_e6 : "-",
	    dur_kind, meta, coid);
	if (!pass)
		diag("got %s \"%s\", ts %d %s, dur %d, meta %d, co_id %d", rcname(rc),
		    esc(out.p, out.len), s.ts_kind, i128s(s.ts_e6), s.dur_kind,
		    s.is_meta, s.has_co_id);
	free(s.kv);
	mct_buf_free(&out);
}

/* Random whitespace: none mostly, else a run that may cross a block. */
static void
u_ws(struct mct_buf *b)
{
	static const char ws[] = " \n\t\r";
	unsigned k, n = rn(4) ? 0 : rn(3) ? 1 + rn(3) : 1 + rn(90);

	for (k = 0; k < n; k++)
		mct_buf_addc(b, ws[rn(4)]);
}

/* A random plain JSON value, spaced at random, depth levels at most. */
static void
u_value(struct mct_buf *b, int depth)
{
	/* strings full of what must not end or cut them */
	static const char *const bits[] = { "a", "b c", "\\\"", "\\\\", "\\n",
	    "\\u00e9", "{", "}", "[", "]", ",", ":", " ", "\xc3\xa9", "\\/",
	    "\\\\\\\"", "xxxxxxxxxxxxxxxx" };
	unsigned k, n;
	int obj;

	switch (depth > 0 ? rn(5) : rn(4)) {
	case 0:
		mct_buf_addc(b, '"');
		for (k = 0, n = rn(12); k < n; k++)
			mct_buf_adds(b, bits[rn(sizeof(bits) / sizeof(bits[0]))]);
		mct_buf_addc(b, '"');
		break;
	case 1:
		mct_buf_adds(b, rn(2) ? "-12.5e3" : "1712195480123456789");
		break;
	case 2:
		mct_buf_adds(b, rn(3) == 0 ? "true" : rn(2) ? "false" : "null");
		break;
	case 3:
		mct_buf_addc(b, '0');
		break;
	default:		/* an object two times in three, or an array */
		obj = rn(3) < 2;
		mct_buf_addc(b, obj ? '{' : '[');
		for (k = 0, n = rn(4); k < n; k++) {
			if (k)
				mct_buf_addc(b, ',');
			u_ws(b);
			if (obj) {
				mct_buf_adds(b, rn(2) ? "\"k\\\"}\"" : "\"ts\"");
				u_ws(b);
				mct_buf_addc(b, ':');
				u_ws(b);
			}
			u_value(b, depth - 1);
			u_ws(b);
		}
		mct_buf_addc(b, obj ? '}' : ']');
		break;
	}
}

/*
 * What mct_unspace() must make of t[0..n), found another way: whitespace
 * outside strings dropped, a line end after each object that closes at
 * the top.  -1 if something else than ',' is between objects.
 */
static int
u_want(const char *t, size_t n, struct mct_buf *w)
{
	size_t i;
	int instr = 0, depth = 0, nobj = 0;

	for (i = 0; i < n; i++) {
		char c = t[i];

		if (instr) {
			mct_buf_addc(w, c);
			if (c == '\\')
				mct_buf_addc(w, t[++i]);
			else if (c == '"')
				instr = 0;
			continue;
		}
		if (c == ' ' || c == '\n' || c == '\t' || c == '\r')
			continue;
		if (depth == 0 && c == ',')
			continue;
		if (depth == 0 && c != '{')
			return -1;
		mct_buf_addc(w, c);
		if (c == '"')
			instr = 1;
		else if (c == '{' || c == '[')
			depth++;
		else if ((c == '}' || c == ']') && --depth == 0) {
			mct_buf_addc(w, '\n');
			nobj++;
		}
	}
	return depth == 0 && !instr ? nobj : -1;
}

/*
 * The first-level "ts" and "dur" numbers of the compact object line
 * l[0..n), as mct_unspace() notes them (object number o, the line at ls
 * of the text), found by a walk of the line; appended to times as text
 * "o:klen:voff:vlen;".
 */
static void
u_times(const char *l, size_t n, int o, size_t ls, struct mct_buf *times)
{
	size_t i, ks = 0, v, e;
	int depth = 0, instr = 0;
	char note[64];

	for (i = 0; i < n; i++) {
		if (instr) {
			if (l[i] == '\\')
				i++;
			else if (l[i] == '"')
				instr = 0;
			continue;
		}
		if (l[i] == '"') {
			instr = 1;
			ks = i;
		} else if (l[i] == '{' || l[i] == '[')
			depth++;
		else if (l[i] == '}' || l[i] == ']')
			depth--;
		else if (l[i] == ':' && depth == 1) {
			int klen = (int)(i - ks) - 2;

			if (!((klen == 2 && memcmp(l + ks, "\"ts\"", 4) == 0) ||
			    (klen == 3 && memcmp(l + ks, "\"dur\"", 5) == 0)))
				continue;
			v = i + 1;
			if (!(l[v] == '-' || (l[v] >= '0' && l[v] <= '9')))
				continue;
			for (e = v; e < n && strchr("0123456789.-+eE", l[e]) &&
			    l[e] != '\0'; e++)
				;
			snprintf(note, sizeof(note), "%d:%d:%zu:%zu;", o, klen,
			    ls + v, e - v);
			mct_buf_adds(times, note);
		}
	}
}

static void
test_unspace(void)
{
	struct mct_buf t = { 0 }, got = { 0 }, want = { 0 };
	struct mct_buf tgot = { 0 }, twant = { 0 };
	struct mct_times tm = { 0 };
	int i, k, n, nw, bad = 0, cases = 0, tbad = 0, tcases = 0;
	static const char *const top[] = { "\"name\"", "\"ts\"", "\"dur\"",
	    "\"xts\"", "\"args\"", "\"ts\" " };
	static const char *const wrong[] = {
		"{\"a\":1} x {\"b\":2}",	/* not a separator */
		"{\"a\":\"cut",			/* a string cut */
		"{\"a\":[1,2}",			/* braces unbalanced: ends open */
		"]{\"a\":1}",			/* closes what never opened */
	};

	rng_state = 7;
	for (i = 0; i < 3000; i++) {
		t.len = 0;
		for (k = 0, n = 1 + rn(12); k < n; k++) {
			unsigned j, nk = 1 + rn(5);

			u_ws(&t);
			mct_buf_addc(&t, '{');
			for (j = 0; j < nk; j++) {
				if (j)
					mct_buf_addc(&t, ',');
				mct_buf_adds(&t, top[rn(6)]);
				mct_buf_addc(&t, ':');
				u_ws(&t);
				if (rn(2))
					mct_buf_adds(&t, rn(2) ?
					    "1661203462598738.047" : "-5");
				else
					u_value(&t, 4);
				u_ws(&t);
			}
			mct_buf_addc(&t, '}');
			u_ws(&t);
			if (k + 1 < n || rn(2))
				mct_buf_addc(&t, ',');
		}
		want.len = got.len = 0;
		nw = u_want(t.p, t.len, &want);
		n = mct_unspace(t.p, t.len, &got, &tm);
		cases++;
		if (n >= 0 && tm.known) {
			const char *l = want.p, *nl;

			/* the times it noted, and those a walk of each line finds */
			tgot.len = twant.len = 0;
			for (k = 0; k < tm.n; k++) {
				char note[64];

				snprintf(note, sizeof(note), "%u:%u:%u:%u;",
				    tm.kv[k].koff, tm.kv[k].klen, tm.kv[k].voff,
				    tm.kv[k].vlen);
				mct_buf_adds(&tgot, note);
			}
			for (k = 0; k < nw && (nl = memchr(l, '\n',
			    want.len - (size_t)(l - want.p))) != NULL; k++) {
				u_times(l, (size_t)(nl - l), k,
				    (size_t)(l - want.p), &twant);
				l = nl + 1;
			}
			tcases++;
			if (tgot.len != twant.len || (tgot.len > 0 &&
			    memcmp(tgot.p, twant.p, tgot.len) != 0)) {
				if (tbad++ == 0)
					diag("mct_unspace times of \"%s\": "
					    "got %s, want %s", esc(want.p,
					    want.len), esc(tgot.p, tgot.len),
					    esc(twant.p, twant.len));
			}
		}
		if (n != nw || got.len != want.len ||
		    memcmp(got.p, want.p, got.len) != 0) {
			if (bad++ == 0)
				diag("mct_unspace \"%s\": got %d \"%s\", want %d "
				    "\"%s\"", esc(t.p, t.len), n, esc(got.p,
				    got.len), nw, esc(want.p, want.len));
		}
	}
	ok(bad == 0, "mct_unspace: %d random texts of spaced objects, short "
	    "and long (64-byte blocks), as found another way (%d differ)",
	    cases, bad);
	ok(tbad == 0 && tcases > 1000, "mct_unspace: the first-level ts and "
	    "dur numbers it notes of %d texts are those a walk finds (%d "
	    "differ)", tcases, tbad);
	for (i = 0; i < (int)(sizeof(wrong) / sizeof(wrong[0])); i++) {
		/* short, and long enough to go by blocks */
		for (k = 0; k < 2; k++) {
			t.len = 0;
			if (k)
				for (n = 0; n < 40; n++)
					mct_buf_adds(&t, "{\"pad\" : [ 1, 2 ]} ,\n");
			mct_buf_adds(&t, wrong[i]);
			got.len = 0;
			ok(mct_unspace(t.p, t.len, &got, NULL) == -1,
			    "mct_unspace \"%s\" (%zu bytes): -1", ESC(wrong[i]),
			    t.len);
		}
	}
	mct_buf_free(&t);
	mct_buf_free(&got);
	mct_buf_free(&want);
	mct_buf_free(&tgot);
	mct_buf_free(&twant);
	free(tm.kv);
}

static void
test_event(void)
{
	static const char *bad_ts[] = { "+5", ".5", "5.", "007", "-.5", "1.e3" };
	struct mct_buf out = { 0 };
	struct mct_scan s = { 0 };
	size_t i;
	int nbad = 0;

	t_event("{\"ph\":\"X\",\"ts\":1712195495519689.047,\"dur\":2.5,"
	    "\"args\":{\"co_id\":7}}", "{\"ph\":\"X\",\"ts\":1712195495519689.047,"
	    "\"dur\":2.5,\"args\":{\"co_id\":7}}", MCT_TS_FRAC,
	    "1712195495519689047000", MCT_TS_FRAC, 0, 1);
	t_event("{\"ph\":\"M\",\"ts\":5}", "{\"ph\":\"M\",\"ts\":5}", MCT_TS_INT,
	    "5000000", MCT_TS_NONE, 1, 0);
	t_event("{ \"ts\" : 123 , \"dur\" : 4 }", "{\"ts\":123,\"dur\":4}",
	    MCT_TS_INT, "123000000", MCT_TS_INT, 0, 0);
	t_event("{\"ts\":-5}", "{\"ts\":-5}", MCT_TS_INT, "-5000000", MCT_TS_NONE,
	    0, 0);
	t_event("{\"ts\":0}", "{\"ts\":0}", MCT_TS_INT, "0", MCT_TS_NONE, 0, 0);
	t_event("{\"ts\":1.5e3}", "{\"ts\":1.5e3}", MCT_TS_FRAC, "1500000000",
	    MCT_TS_NONE, 0, 0);
	t_event("{\"ts\":15e2}", "{\"ts\":15e2}", MCT_TS_INT, "1500000000",
	    MCT_TS_NONE, 0, 0);
	t_event("{\"ts\":9999999999999999999}", "{\"ts\":9999999999999999999}",
	    MCT_TS_INT, "9999999999999999999000000", MCT_TS_NONE, 0, 0);
	t_event("{\"ts\":12345678901234567890123}",
	    "{\"ts\":12345678901234567890123}", MCT_TS_INT,
	    "12345678901234567890123000000", MCT_TS_NONE, 0, 0);
	t_event("{\"ts\":\"123\",\"dur\":\"4.5\",\"ph\":\"X\"}",
	    "{\"ts\":123,\"dur\":4.5,\"ph\":\"X\"}", MCT_TS_INT, "123000000",
	    MCT_TS_FRAC, 0, 0);
	t_event("{\"ts\":\"-7\"}", "{\"ts\":-7}", MCT_TS_INT, "-7000000",
	    MCT_TS_NONE, 0, 0);
	t_event("{\"ts\":\"1e3\"}", "{\"ts\":1e3}", MCT_TS_INT, "1000000000",
	    MCT_TS_NONE, 0, 0);
	t_event("{\"ts\":\"1\\u0032\"}", "{\"ts\":\"1\\u0032\"}", MCT_TS_NONE,
	    NULL, MCT_TS_NONE, 0, 0);
	t_event("{\"ts\":\"abc\",\"dur\":\"\"}", "{\"ts\":\"abc\",\"dur\":\"\"}",
	    MCT_TS_NONE, NULL, MCT_TS_NONE, 0, 0);
	t_event("{\"ts\":\" 1\"}", "{\"ts\":\" 1\"}", MCT_TS_NONE, NULL,
	    MCT_TS_NONE, 0, 0);
	t_event("{\"ts\":{\"a\":\"1\"},\"dur\":[2]}", "{\"ts\":{\"a\":\"1\"},"
	    "\"dur\":[2]}", MCT_TS_NONE, NULL, MCT_TS_NONE, 0, 0);
	t_event("{\"args\":{\"ts\":\"5\",\"dur\":6}}", "{\"args\":{\"ts\":\"5\","
	    "\"dur\":6}}", MCT_TS_NONE, NULL, MCT_TS_NONE, 0, 0);
	t_event("{\"co_id\":1,\"args\":{\"x\":{\"co_id\":2}},\"a\":{\"args\":"
	    "{\"co_id\":3}}}", "{\"co_id\":1,\"args\":{\"x\":{\"co_id\":2}},"
	    "\"a\":{\"args\":{\"co_id\":3}}}", MCT_TS_NONE, NULL, MCT_TS_NONE, 0, 0);
	t_event("{\"args\":1,\"x\":{\"co_id\":2}}", "{\"args\":1,\"x\":{\"co_id\""
	    ":2}}", MCT_TS_NONE, NULL, MCT_TS_NONE, 0, 0);
	t_event("{\"ph\":\"MM\",\"x\":\"M\",\"args\":{\"ph\":\"M\"}}",
	    "{\"ph\":\"MM\",\"x\":\"M\",\"args\":{\"ph\":\"M\"}}", MCT_TS_NONE,
	    NULL, MCT_TS_NONE, 0, 0);
	t_event("{\"ts\":5,\"ts\":7}", "{\"ts\":5,\"ts\":7}", MCT_TS_INT,
	    "7000000", MCT_TS_NONE, 0, 0);

	/* A string ts that is not a JSON number stays a string. */
	for (i = 0; i < sizeof(bad_ts) / sizeof(bad_ts[0]); i++) {
		char t[64];
		int rc;

		snprintf(t, sizeof(t), "{\"ts\":\"%s\",\"ph\":\"X\"}", bad_ts[i]);
		rc = scan(t, strlen(t), 1, 1, &out, &s);
		if (rc != MCT_SCAN_OK || out.len != strlen(t) ||
		    memcmp(out.p, t, out.len) != 0 || s.ts_kind != MCT_TS_NONE) {
			diag("mct_scan .event \"%s\" -> \"%s\", ts kind %d",
			    ESC(t), esc(out.p, out.len), s.ts_kind);
			nbad++;
		}
	}
	ok(nbad == 0, "mct_scan .event: \"ts\":\"+5\", \".5\", \"5.\", \"007\", "
	    "\"-.5\", \"1.e3\" stay strings (%d of %zu do not)", nbad,
	    sizeof(bad_ts) / sizeof(bad_ts[0]));
	/* An exponent in ts or dur: the text must be rewritten (.odd) */
	{
		int odd1, odd2, odd3;

		scan("{\"ts\":15e2}", 11, 1, 1, &out, &s);
		odd1 = s.odd;
		scan("{\"dur\":\"1E3\"}", 14, 1, 1, &out, &s);
		odd2 = s.odd;
		scan("{\"ts\":1500,\"args\":{\"ts\":1e3}}", 30, 1, 1, &out, &s);
		odd3 = s.odd;
		ok(odd1 && odd2 && !odd3, "mct_scan .event: .odd for an exponent in "
		    "ts or dur (%d %d %d)", odd1, odd2, odd3);
	}
	free(s.kv);
	mct_buf_free(&out);
}

/* Is p[0..n) valid UTF-8 (no overlongs, surrogates, beyond U+10FFFF)? */
static int
utf8_valid(const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)s, *end = p + n;

	while (p < end) {
		unsigned c = *p, cp, k, i;

		if (c < 0x80) {
			p++;
			continue;
		}
		k = c >= 0xf0 ? 3 : c >= 0xe0 ? 2 : c >= 0xc0 ? 1 : 0;
		if (k == 0 || c > 0xf4 || (size_t)(end - p) <= k)
			return 0;
		cp = c & (0x3f >> k);
		for (i = 1; i <= k; i++) {
			if ((p[i] & 0xc0) != 0x80)
				return 0;
			cp = cp << 6 | (p[i] & 0x3f);
		}
		if ((k == 1 && cp < 0x80) || (k == 2 && cp < 0x800) ||
		    (k == 3 && cp < 0x10000) || cp > 0x10ffff ||
		    (cp >= 0xd800 && cp < 0xe000))
			return 0;
		p += k + 1;
	}
	return 1;
}

/* mct_skip, mct_index, mct_jstr on compact text */
static void
test_compact(void)
{
	struct mct_buf b = { 0 };
	struct mct_kv *kv = NULL;
	int nkv = 0, cap = 0, n;
	const char *t, *next;
	struct mct_val v;

#define SKIP(text, type, rest) do {					\
	t = (text);							\
	n = mct_skip(t, t + strlen(t), &next);				\
	ok(n == (type) && strcmp(next, (rest)) == 0,			\
	    "mct_skip \"%s\" -> type %d, rest \"%s\" (got %d, \"%s\")",	\
	    ESC(t), (type), ESC(rest), n, ESC(next));			\
} while (0)
	SKIP("\"a\\\"b\",1", MCT_J_STRING, ",1");
	SKIP("\"a\\\\\",1", MCT_J_STRING, ",1");
	SKIP("{\"a\":[1,{\"b\":\"}]\"}]},2", MCT_J_OBJECT, ",2");
	SKIP("[[],[[]],\"]\"]]", MCT_J_ARRAY, "]");
	SKIP("123]", MCT_J_NUMBER, "]");
	SKIP("-1.5e3}", MCT_J_NUMBER, "}");
	SKIP("1.5", MCT_J_NUMBER, "");
	SKIP("true,", MCT_J_BOOL, ",");
	SKIP("false", MCT_J_BOOL, "");
	SKIP("null}", MCT_J_NULL, "}");
	SKIP("\"k\":1", MCT_J_STRING, ":1");
	SKIP("", MCT_J_NONE, "");
	t = "\"abc";
	n = mct_skip(t, t + 4, &next);
	ok(n == MCT_J_STRING && next == t + 4, "mct_skip: an unterminated string "
	    "ends at the end");
	t = "\"ab\\";
	n = mct_skip(t, t + 4, &next);
	ok(next == t + 4, "mct_skip: a backslash at the end stays within the text");
#undef SKIP

	t = "{\"a\":1,\"b\":[1,2],\"c\":{\"d\":\"x,y\"},\"e\\\"f\":\"\"}";
	n = mct_index(t, strlen(t), &kv, &nkv, &cap);
	ok(n == 4 && nkv == 4 &&
	    kv[0].koff == 2 && kv[0].klen == 1 && kv[0].voff == 5 && kv[0].vlen == 1 &&
	    kv[1].koff == 8 && kv[1].klen == 1 && kv[1].vlen == 5 &&
	    memcmp(t + kv[2].voff, "{\"d\":\"x,y\"}", kv[2].vlen) == 0 &&
	    kv[2].vlen == 11 && kv[3].klen == 4 &&
	    memcmp(t + kv[3].koff, "e\\\"f", 4) == 0 && kv[3].vlen == 2,
	    "mct_index: four keys with their values");
	ok(mct_index("{}", 2, &kv, &nkv, &cap) == 0 && nkv == 0,
	    "mct_index \"{}\": no keys");
	ok(mct_index("[1]", 3, &kv, &nkv, &cap) == -1 &&
	    mct_index("", 0, &kv, &nkv, &cap) == -1 &&
	    mct_index("\"a\"", 3, &kv, &nkv, &cap) == -1,
	    "mct_index: not an object is -1");
	ok(mct_index("{\"a\"1}", 6, &kv, &nkv, &cap) == -1,
	    "mct_index: a key without ':' is -1");
	/* Kineto's long args: nested values skipped eight bytes at a time */
	t = "{\"args\":{\"Input Dims\":[[],[2,3],[]],\"s\":\"]}[{\\\"\",\"x\":"
	    "{\"y\":[{\"z\":\"}\"}]}},\"ts\":5}";
	n = mct_index(t, strlen(t), &kv, &nkv, &cap);
	ok(n == 2 && kv[0].klen == 4 && t[kv[0].voff] == '{' &&
	    t[kv[0].voff + kv[0].vlen - 1] == '}' && kv[1].klen == 2 &&
	    kv[1].vlen == 1 && t[kv[1].voff] == '5',
	    "mct_index: brackets and quotes inside nested strings are skipped");
	t = "{\"a\":[[1,2],{\"b\":\"c\"}],\"d\":[0123456789abcdef}";
	ok(mct_index(t, strlen(t), &kv, &nkv, &cap) == -1,
	    "mct_index: a nested value that does not close is -1");
	free(kv);

#define JSTR(text, want, wantlen) do {					\
	v.type = MCT_J_STRING;						\
	v.p = (text);							\
	v.len = sizeof(text) - 1;					\
	b.len = 0;							\
	mct_jstr(&v, &b);						\
	ok(b.len == (wantlen) && memcmp(b.p, (want), (wantlen)) == 0,	\
	    "mct_jstr \"%s\" -> \"%s\" (got \"%s\")", ESC(text),	\
	    esc((want), (wantlen)), esc(b.p, b.len));			\
} while (0)
	JSTR("\"plain\"", "plain", 5);
	JSTR("\"\"", "", 0);
	JSTR("\"a\\nb\\tc\\rd\\be\\ff\"", "a\nb\tc\rd\be\ff", 11);
	JSTR("\"\\\"\\\\\\/\"", "\"\\/", 3);
	JSTR("\"\\u0041\\u00e9\\u20AC\"", "A\xc3\xa9\xe2\x82\xac", 6);
	JSTR("\"\\ud83d\\ude00\"", "\xf0\x9f\x98\x80", 4);
	JSTR("\"\\uDBFF\\uDFFF\"", "\xf4\x8f\xbf\xbf", 4);
	JSTR("\"\\ud800\"", "\xef\xbf\xbd", 3);
	JSTR("\"\\udc00x\"", "\xef\xbf\xbdx", 4);
	JSTR("\"\\ud800\\u0041\"", "\xef\xbf\xbd" "A", 4);
	JSTR("\"\\ud800\\ud800\\udc00\"", "\xef\xbf\xbd\xf0\x90\x80\x80", 7);
	JSTR("\"\\ud800\\n\"", "\xef\xbf\xbd\n", 4);
	JSTR("\"\\u0000a\"", "\0a", 2);
	JSTR("\"\xc3\xa9 raw\"", "\xc3\xa9 raw", 6);
	JSTR("\"\\\\q\"", "\\q", 2);
	/* An invalid \u escape (stream lines are not checked token by token) */
	v.type = MCT_J_STRING;
	v.p = "\"a\\u-,.!b\"";
	v.len = strlen(v.p);
	b.len = 0;
	mct_jstr(&v, &b);
	ok(utf8_valid(b.p, b.len), "mct_jstr \"%s\" gives valid UTF-8 (got "
	    "\"%s\")", ESC(v.p), esc(b.p, b.len));
	v.type = MCT_J_NUMBER;
	v.p = "1.50";
	v.len = 4;
	b.len = 0;
	mct_jstr(&v, &b);
	ok(b.len == 4 && memcmp(b.p, "1.50", 4) == 0, "mct_jstr on a number: "
	    "its text");
	v.type = MCT_J_ARRAY;
	v.p = "[1,\"a\"]";
	v.len = 7;
	b.len = 0;
	mct_jstr(&v, &b);
	ok(b.len == 7 && memcmp(b.p, "[1,\"a\"]", 7) == 0, "mct_jstr on an array: "
	    "its text");
	b.len = 0;
	mct_buf_adds(&b, "x");
	v.type = MCT_J_STRING;
	v.p = "\"y\"";
	v.len = 3;
	mct_jstr(&v, &b);
	ok(b.len == 2 && strcmp(b.p, "xy") == 0, "mct_jstr appends");
#undef JSTR

	v.type = MCT_J_STRING;
	v.p = "\"abc\"";
	v.len = 5;
	ok(mct_jstr_eq(&v, "abc", 3) && !mct_jstr_eq(&v, "ab", 2) &&
	    !mct_jstr_eq(&v, "abcd", 4), "mct_jstr_eq on a plain string");
	v.p = "\"a\\u0062c\"";
	v.len = 10;
	ok(mct_jstr_eq(&v, "abc", 3) && !mct_jstr_eq(&v, "a\\u0062c", 8),
	    "mct_jstr_eq compares the unescaped text");
	v.type = MCT_J_NUMBER;
	v.p = "1";
	v.len = 1;
	ok(!mct_jstr_eq(&v, "1", 1), "mct_jstr_eq: a number is not a string");

	/* mct_buf_addjstr round trip through json-c */
	{
		static const char raw[] = "q\"b\\s\x01\n\x1f\xc3\xa9 end";
		json_object *o;

		b.len = 0;
		mct_buf_addjstr(&b, raw, sizeof(raw) - 1);
		o = json_tokener_parse(b.p);
		ok(o && json_object_get_type(o) == json_type_string &&
		    json_object_get_string_len(o) == (int)sizeof(raw) - 1 &&
		    memcmp(json_object_get_string(o), raw, sizeof(raw) - 1) == 0,
		    "mct_buf_addjstr writes a JSON string json-c reads back (\"%s\")",
		    esc(b.p, b.len));
		json_object_put(o);
	}
	mct_buf_free(&b);
}

/* ------------------------------------------------------------------ */
/* field.c */

static void
t_field(const char *text, int want_rc, const char *vf, int time, int nseg,
    const char *seg0, const char *seg1)
{
	struct mct_field f;
	int rc = mct_field_parse(text, &f), pass;

	if (want_rc != 0) {
		ok(rc == -1 && f.nseg == 0 && f.text == NULL,
		    "mct_field_parse(\"%s\") is -1, the field cleared", ESC(text));
		if (rc == 0)
			mct_field_free(&f);
		return;
	}
	pass = rc == 0 && f.vf == (vf ? mct_vfield(vf) : NULL) &&
	    mct_field_time(&f) == time && f.nseg == nseg &&
	    f.text && strcmp(f.text, text) == 0;
	if (pass && nseg > 0)
		pass = strcmp(f.seg[0], seg0) == 0 && f.seglen[0] == strlen(seg0);
	if (pass && nseg > 1)
		pass = strcmp(f.seg[1], seg1) == 0 && f.seglen[1] == strlen(seg1);
	ok(pass, "mct_field_parse(\"%s\"): entry %s, time %d, %d segments "
	    "%s%s%s", ESC(text), vf ? vf : "none", time, nseg,
	    seg0 ? ESC(seg0) : "", seg1 ? " " : "", seg1 ? ESC(seg1) : "");
	if (!pass && rc == 0)
		diag("got entry %s, time %d, %d segments, first \"%s\"",
		    f.vf ? f.vf->name : "none", mct_field_time(&f), f.nseg,
		    f.nseg ? ESC(f.seg[0]) : "");
	if (rc == 0)
		mct_field_free(&f);
}

static void
t_get(struct mct_event *ev, const char *field, int want_rc, int type,
    const char *text)
{
	struct mct_field f;
	struct mct_val v;
	int rc;

	if (mct_field_parse(field, &f) != 0) {
		ok(0, "mct_get %s: the field parses", ESC(field));
		return;
	}
	rc = mct_get(ev, &f, &v);
	if (want_rc == 0)
		ok(rc == 0 && (int)v.type == type && v.len == strlen(text) &&
		    memcmp(v.p, text, v.len) == 0,
		    "mct_get %s -> type %d \"%s\" (got rc %d, type %d, \"%s\")",
		    ESC(field), type, ESC(text), rc, v.type,
		    rc == 0 ? esc(v.p, v.len) : "");
	else
		ok(rc == -1 && v.type == MCT_J_NONE && v.p == NULL,
		    "mct_get %s is missing (got rc %d)", ESC(field), rc);
	mct_field_free(&f);
}

static void
t_field_ns(struct mct_event *ev, const char *field,
    const struct mct_header *h, int want_rc, int64_t want)
{
	struct mct_field f;
	int64_t ns = 0;
	int rc;

	mct_field_parse(field, &f);
	rc = mct_field_ns(ev, &f, h, &ns);
	ok(rc == want_rc && (rc != 0 || ns == want), "mct_field_ns %s -> %d %"
	    PRId64 " (got %d %" PRId64 ")", field, want_rc, want, rc, ns);
	mct_field_free(&f);
}

static void
test_field(void)
{
	static const char json[] = "{\"name\":\"k\\u0031\",\"ph\":\"X\",\"ts\":100,"
	    "\"dur\":50,\"args\":{\"grid\":[2056,32,1],\"registers per thread\":64,"
	    "\"a.b\":\"dot\",\"nested\":{\"deep\":true,\"n\":null},"
	    "\"esc\\\"key\":1,\"sp\\u0020ace\":2,\"ts\":\"x\"},\"big\":"
	    "12345678901234567890,\"neg\":-5,\"f\":1.5}";
	struct mct_event ev = { 0 }, ev2 = { 0 };
	struct mct_header h = { 0 };
	struct mct_field *fs = NULL;
	struct mct_val v;
	int nf = 0, i, rc;
	int64_t ns;

	t_field("name", 0, NULL, 0, 1, "name", NULL);
	t_field("ts", 0, "ts", 1, 1, "ts", NULL);
	t_field("dur", 0, "dur", 1, 1, "dur", NULL);
	t_field("\"ts\"", 0, "ts", 1, 1, "ts", NULL);
	t_field("rel", 0, "rel", 1, 0, NULL, NULL);
	t_field("end", 0, "end", 1, 0, NULL, NULL);
	t_field("args.ts", 0, NULL, 0, 2, "args", "ts");
	t_field("args.grid", 0, NULL, 0, 2, "args", "grid");
	t_field("args.\"registers per thread\"", 0, NULL, 0, 2, "args",
	    "registers per thread");
	t_field("args.\"a.b\"", 0, NULL, 0, 2, "args", "a.b");
	t_field("args.\"esc\\\"key\"", 0, NULL, 0, 2, "args", "esc\"key");
	t_field("\"a b\".c", 0, NULL, 0, 2, "a b", "c");
	t_field("a.b.c.d", 0, NULL, 0, 4, "a", "b");
	t_field("", -1, 0, 0, 0, NULL, NULL);
	t_field(".", -1, 0, 0, 0, NULL, NULL);
	t_field("a.", -1, 0, 0, 0, NULL, NULL);
	t_field(".a", -1, 0, 0, 0, NULL, NULL);
	t_field("a..b", -1, 0, 0, 0, NULL, NULL);
	t_field("\"a", -1, 0, 0, 0, NULL, NULL);
	t_field("\"a\"b", -1, 0, 0, 0, NULL, NULL);
	t_field("\"\"", -1, 0, 0, 0, NULL, NULL);
	t_field("a.\"\"", -1, 0, 0, 0, NULL, NULL);
	t_field("args.\"x", -1, 0, 0, 0, NULL, NULL);

	rc = mct_fields_parse("ts,dur,ph,pid,tid,name", &fs, &nf);
	ok(rc == 0 && nf == 6 && strcmp(fs[5].seg[0], "name") == 0 &&
	    mct_field_time(&fs[0]) && mct_field_time(&fs[1]) &&
	    !mct_field_time(&fs[2]), "mct_fields_parse: the default columns");
	for (i = 0; i < nf; i++)
		mct_field_free(&fs[i]);
	free(fs);
	rc = mct_fields_parse("name,args.\"a,b\",rel", &fs, &nf);
	ok(rc == 0 && nf == 3 && fs[1].nseg == 2 && strcmp(fs[1].seg[1], "a,b") == 0 &&
	    fs[2].vf == mct_vfield("rel"), "mct_fields_parse: a comma inside quotes "
	    "does not split");
	for (i = 0; i < nf; i++)
		mct_field_free(&fs[i]);
	free(fs);
	rc = mct_fields_parse("name,args.\"a\\\"b\",ph", &fs, &nf);
	ok(rc == 0 && nf == 3 && fs[1].nseg == 2 &&
	    strcmp(fs[1].seg[1], "a\"b") == 0, "mct_fields_parse: an escaped "
	    "quote inside quotes (name,args.\"a\\\"b\",ph)");
	for (i = 0; i < nf; i++)
		mct_field_free(&fs[i]);
	free(fs);
	ok(mct_fields_parse("a,,b", &fs, &nf) == -1, "mct_fields_parse "
	    "\"a,,b\" is -1");
	for (i = 0; i < nf; i++)
		mct_field_free(&fs[i]);
	free(fs);
	ok(mct_fields_parse("", &fs, &nf) == -1, "mct_fields_parse \"\" is -1");
	for (i = 0; i < nf; i++)
		mct_field_free(&fs[i]);
	free(fs);
	ok(mct_fields_parse("a,", &fs, &nf) == -1, "mct_fields_parse \"a,\" is -1");
	for (i = 0; i < nf; i++)
		mct_field_free(&fs[i]);
	free(fs);

	ev.json = json;
	ev.len = sizeof(json) - 1;
	t_get(&ev, "name", 0, MCT_J_STRING, "\"k\\u0031\"");
	t_get(&ev, "ph", 0, MCT_J_STRING, "\"X\"");
	t_get(&ev, "ts", 0, MCT_J_NUMBER, "100");
	t_get(&ev, "args.grid", 0, MCT_J_ARRAY, "[2056,32,1]");
	t_get(&ev, "args.\"registers per thread\"", 0, MCT_J_NUMBER, "64");
	t_get(&ev, "args.\"a.b\"", 0, MCT_J_STRING, "\"dot\"");
	t_get(&ev, "args.nested", 0, MCT_J_OBJECT, "{\"deep\":true,\"n\":null}");
	t_get(&ev, "args.nested.deep", 0, MCT_J_BOOL, "true");
	t_get(&ev, "args.nested.n", 0, MCT_J_NULL, "null");
	t_get(&ev, "args.\"esc\\\"key\"", 0, MCT_J_NUMBER, "1");
	t_get(&ev, "args.\"sp ace\"", 0, MCT_J_NUMBER, "2");
	t_get(&ev, "args.ts", 0, MCT_J_STRING, "\"x\"");
	t_get(&ev, "big", 0, MCT_J_NUMBER, "12345678901234567890");
	t_get(&ev, "args.missing", -1, 0, NULL);
	t_get(&ev, "args.nested.deep.x", -1, 0, NULL);
	t_get(&ev, "name.x", -1, 0, NULL);
	t_get(&ev, "args.grid.0", -1, 0, NULL);
	t_get(&ev, "missing", -1, 0, NULL);
	t_get(&ev, "args.\"registers\"", -1, 0, NULL);
	ok(mct_get_key(&ev, "dur", &v) == 0 && v.type == MCT_J_NUMBER &&
	    v.len == 2 && memcmp(v.p, "50", 2) == 0 && ev.indexed && ev.nkv == 8,
	    "mct_get_key indexes the event once (%d keys)", ev.nkv);
	ok(mct_get_key(&ev, "nope", &v) == -1 && v.type == MCT_J_NONE &&
	    v.p == NULL && v.len == 0, "mct_get_key: a missing key");
	ok(mct_get_key(&ev, "registers per thread", &v) == -1,
	    "mct_get_key looks at first-level keys only");
	{
		/* a well-known key without a slot: missing, or spelt with escapes */
		struct mct_event e2;
		struct mct_buf many = { 0 };
		int k, found;

#define T2(t)	mct_event_set(&e2, (t), strlen(t))
		mct_event_init(&e2, NULL, 0, NULL);
		T2("{\"a\":1,\"c\\u0061t\":\"x\"}");
		found = mct_get_key(&e2, "cat", &v) == 0 && v.len == 3;
		T2("{\"a\":1,\"b\":\"\\u0061\"}");
		found = found && mct_get_key(&e2, "cat", &v) == -1 &&
		    mct_get_key(&e2, "dur", &v) == -1 && e2.wkdone == 3;
		T2("{\"a\":1,\"b\":2}");
		found = found && mct_get_key(&e2, "cat", &v) == -1 &&
		    e2.wkdone == 2 && mct_get_key(&e2, "b", &v) == 0;
		mct_buf_addc(&many, '{');
		for (k = 0; k < 130; k++)
			mct_buf_adds(&many, "\"k\":0,");
		mct_buf_adds(&many, "\"cat\":\"y\"}");
		mct_event_set(&e2, many.p, many.len);
		found = found && mct_get_key(&e2, "cat", &v) == 0 && v.len == 3 &&
		    e2.nkv == 131;
		ok(found, "mct_get_key: a well-known key with no slot is missing, "
		    "unless spelt with escapes or past slot 127");
#undef T2
		mct_event_free(&e2);
		mct_buf_free(&many);
	}
	{
		struct mct_field rel, end;

		mct_field_parse("rel", &rel);
		mct_field_parse("end", &end);
		ok(mct_get(&ev, &rel, &v) == -1 && mct_get(&ev, &end, &v) == -1,
		    "mct_get on a virtual field is missing (use mct_field_ns)");
		mct_field_free(&rel);
		mct_field_free(&end);
	}
	ok(mct_get_ns(&ev, "ts", &ns) == 0 && ns == 100, "mct_get_ns ts");
	ok(mct_get_ns(&ev, "f", &ns) == -1 && mct_get_ns(&ev, "name", &ns) == -1 &&
	    mct_get_ns(&ev, "big", &ns) == -1 && mct_get_ns(&ev, "x", &ns) == -1,
	    "mct_get_ns: a fraction, a string, beyond int64, missing are -1");
	h.has_origin = 1;
	h.origin = 40;
	t_field_ns(&ev, "ts", &h, 0, 100);
	t_field_ns(&ev, "dur", &h, 0, 50);
	t_field_ns(&ev, "rel", &h, 0, 60);
	t_field_ns(&ev, "end", &h, 0, 150);
	t_field_ns(&ev, "neg", &h, 0, -5);
	t_field_ns(&ev, "args.\"registers per thread\"", &h, 0, 64);
	t_field_ns(&ev, "name", &h, -1, 0);
	t_field_ns(&ev, "f", &h, -1, 0);
	t_field_ns(&ev, "missing", &h, -1, 0);
	h.has_origin = 0;
	t_field_ns(&ev, "rel", &h, -1, 0);
	ok(!mct_is_header(&ev), "mct_is_header: an event is not the header");
	{
		struct mct_event m;

		/* a metadata event's ts (0) is no point on the timeline */
		h.has_origin = 1;
		mct_event_init(&m, "{\"ph\":\"M\",\"ts\":100}", 19, &h);
		t_field_ns(&m, "rel", &h, -1, 0);
		t_field_ns(&m, "ts", &h, 0, 100);
		h.has_origin = 0;
		mct_event_free(&m);
	}
	free(ev.kv);

	ev2.json = "{\"ts\":7,\"name\":\"n\"}";
	ev2.len = strlen(ev2.json);
	t_field_ns(&ev2, "end", &h, 0, 7);
	t_field_ns(&ev2, "dur", &h, -1, 0);
	free(ev2.kv);
	memset(&ev2, 0, sizeof(ev2));
	ev2.json = "{\"name\":\"mct_header\",\"ph\":\"M\",\"args\":{}}";
	ev2.len = strlen(ev2.json);
	ok(mct_is_header(&ev2), "mct_is_header: the header line");
	free(ev2.kv);
	memset(&ev2, 0, sizeof(ev2));
	ev2.json = "{\"name\":\"mct\\u005fheader\"}";
	ev2.len = strlen(ev2.json);
	ok(mct_is_header(&ev2), "mct_is_header: an escaped name");
	free(ev2.kv);
	/* an event whose key index is reused for another event */
	memset(&ev2, 0, sizeof(ev2));
	ev2.json = "{\"a\":1,\"b\":2,\"c\":3}";
	ev2.len = strlen(ev2.json);
	mct_get_key(&ev2, "c", &v);
	ev2.json = "{\"x\":\"y\"}";
	ev2.len = strlen(ev2.json);
	ev2.indexed = 0;
	ok(mct_get_key(&ev2, "c", &v) == -1 && mct_get_key(&ev2, "x", &v) == 0 &&
	    v.len == 3 && ev2.nkv == 1, "mct_get_key: a reset event is indexed "
	    "again (kv kept)");
	free(ev2.kv);
}

/*
 * A getter for the tests: the event's args.n as a time, or as text made
 * in the scratch buffer.
 */
static int
get_args_n(struct mct_event *ev, const struct mct_header *h,
    struct mct_buf *b, struct mct_val *v, int64_t *ns)
{
	struct mct_field f;
	int rc;

	mct_field_parse("args.n", &f);
	rc = ns ? mct_field_ns(ev, &f, h, ns) : mct_get(ev, &f, v);
	mct_field_free(&f);
	if (rc == 0 && v != NULL) {
		b->len = 0;
		mct_buf_add(b, v->p, v->len);
		v->p = b->p;
	}
	return rc;
}

/* The table of virtual fields: its entries, their flags, a getter. */
static void
test_vfields(void)
{
	static const struct {
		const char	*name;
		int		 time, point, virt;
	} want[] = {
		{ "ts", 1, MCT_P_ABS, 0 }, { "dur", 1, MCT_P_NONE, 0 },
		{ "rel", 1, MCT_P_REL, 1 }, { "end", 1, MCT_P_ABS, 1 },
		{ "category", 0, MCT_P_NONE, 1 },
		{ "latency", 1, MCT_P_NONE, 0 }, { "queue", 1, MCT_P_NONE, 0 },
		{ "launch.ts", 1, MCT_P_ABS, 0 }, { "launch.dur", 1, MCT_P_NONE, 0 },
		{ "span", 1, MCT_P_NONE, 0 }, { "busy", 1, MCT_P_NONE, 0 },
		{ "round", 1, MCT_P_NONE, 0 }, { "tdur", 1, MCT_P_NONE, 0 },
		{ "compute", 1, MCT_P_NONE, 0 }, { "skew", 1, MCT_P_NONE, 0 },
		{ "median.compute", 1, MCT_P_NONE, 0 },
		{ "wait", 1, MCT_P_NONE, 0 },
	};
	static const char json[] = "{\"name\":\"k\",\"ts\":100,\"dur\":50,"
	    "\"args\":{\"n\":7}}";
	const struct mct_vfield *vf, *cat;
	struct mct_header h = { .has_origin = 1, .origin = 40 };
	struct mct_field f, g;
	struct mct_event ev;
	struct mct_buf k = { 0 };
	struct mct_val v;
	mct_getter *saved;
	int64_t ns;
	size_t i;

	for (i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		vf = mct_vfield(want[i].name);
		ok(vf != NULL && strcmp(vf->name, want[i].name) == 0 &&
		    vf->time == want[i].time && (int)vf->point == want[i].point &&
		    (vf->get != NULL) == want[i].virt, "vfields: %s is an "
		    "entry: time %d, point %d, %s", want[i].name, want[i].time,
		    want[i].point, want[i].virt ? "virtual" : "a path");
		mct_field_parse(want[i].name, &f);
		ok(f.vf == vf && mct_field_time(&f) == want[i].time &&
		    mct_field_virtual(&f) == want[i].virt &&
		    (f.nseg == 0) == want[i].virt, "vfields: the field %s "
		    "parses to its entry", want[i].name);
		mct_field_free(&f);
	}
	ok(mct_vfield("name") == NULL && mct_vfield("args.ts") == NULL &&
	    mct_vfield("launch") == NULL, "vfields: other names are no entry");

	mct_field_parse("launch.\"ts\"", &f);
	ok(f.vf == mct_vfield("launch.ts") && f.nseg == 2,
	    "vfields: launch.\"ts\" is the entry launch.ts");
	mct_field_free(&f);
	mct_field_parse("\"launch.ts\"", &f);
	ok(f.vf == NULL && f.nseg == 1, "vfields: \"launch.ts\" is one key "
	    "with a dot, no entry");
	mct_field_free(&f);
	mct_field_parse("\"rel\"", &f);
	ok(f.vf == NULL && f.nseg == 1 && !mct_field_virtual(&f),
	    "vfields: \"rel\" is the key rel, not the virtual field");
	mct_field_free(&f);
	mct_field_parse("launch.ts.x", &f);
	ok(f.vf == NULL && !mct_field_time(&f), "vfields: launch.ts.x is no "
	    "entry");
	mct_field_free(&f);

	ok(mct_field_register("ts", get_args_n) == -1 &&
	    mct_field_register("nope", get_args_n) == -1 &&
	    mct_vfield("ts")->get == NULL, "vfields: only a virtual field "
	    "takes a getter");

	/* a getter registered after the field was parsed is the one used */
	mct_event_init(&ev, json, sizeof(json) - 1, &h);
	cat = mct_vfield("category");
	saved = cat->get;
	mct_field_parse("category", &f);
	ok(mct_field_register("category", get_args_n) == 0 &&
	    mct_get(&ev, &f, &v) == 0 && v.type == MCT_J_NUMBER &&
	    v.len == 1 && v.p[0] == '7' && v.p == f.scratch->p,
	    "vfields: a registered getter gives category's value, made in "
	    "the field's scratch");
	ok(mct_field_key(&ev, &f, &h, &k) == 0 && k.len == 1 && k.p[0] == '7' &&
	    mct_field_ns(&ev, &f, &h, &ns) == 0 && ns == 7, "vfields: its "
	    "value as a key and as a number");
	mct_field_register("category", saved);

	/* a virtual time: mct_field_ns and mct_field_key, not mct_get */
	mct_field_parse("end", &g);
	k.len = 0;
	ok(mct_field_ns(&ev, &g, &h, &ns) == 0 && ns == 150 &&
	    mct_get(&ev, &g, &v) == -1 && mct_field_key(&ev, &g, &h, &k) == 0 &&
	    k.len == 3 && memcmp(k.p, "150", 3) == 0, "vfields: end is 150 "
	    "as a time and as a key, missing for mct_get");
	mct_field_free(&g);
	mct_field_parse("rel", &g);
	ok(mct_field_ns(&ev, &g, &h, &ns) == 0 && ns == 60, "vfields: rel is "
	    "ts - origin");
	mct_field_free(&g);
	mct_field_parse("args.none", &g);
	k.len = 0;
	ok(mct_field_key(&ev, &g, &h, &k) == -1 && k.len == 0, "vfields: a "
	    "missing field adds nothing to a key");
	mct_field_free(&g);
	mct_field_free(&f);
	mct_event_free(&ev);
	mct_buf_free(&k);
}

/* ------------------------------------------------------------------ */
/* The scanner against json-c */

static struct mct_buf G;	/* the text being generated */
static int maxprint = 20;	/* diagnostics of disagreements */

static const char *const keypool[] = {
	"name", "ph", "ts", "dur", "pid", "tid", "cat", "id", "args", "co_id",
	"grid", "block", "registers per thread", "bytes", "s", "", "a b",
	"traceEvents", "ts ", "TS", "\\u0074s", "k\\\"q", "\xc3\xa9t\xc3\xa9",
};

static void
g_ws(int style, int depth)
{
	static const char wsc[] = " \t\n\r";
	unsigned i, n;

	switch (style) {
	case 0:
		break;
	case 1:
		if (rn(3) == 0)
			mct_buf_addc(&G, ' ');
		break;
	case 2:
		for (i = 0, n = rn(4); i < n; i++)
			mct_buf_addc(&G, wsc[rn(4)]);
		break;
	case 3:
		mct_buf_addc(&G, '\n');
		for (i = 0; i < (unsigned)depth * 2; i++)
			mct_buf_addc(&G, ' ');
		break;
	default:
		for (i = 0, n = rn(40); i < n; i++)
			mct_buf_addc(&G, rn(10) ? ' ' : wsc[rn(4)]);
		break;
	}
}

static void
g_utf8(unsigned cp)
{
	if (cp < 0x80)
		mct_buf_addc(&G, (int)cp);
	else if (cp < 0x800) {
		mct_buf_addc(&G, (int)(0xc0 | (cp >> 6)));
		mct_buf_addc(&G, (int)(0x80 | (cp & 0x3f)));
	} else if (cp < 0x10000) {
		mct_buf_addc(&G, (int)(0xe0 | (cp >> 12)));
		mct_buf_addc(&G, (int)(0x80 | ((cp >> 6) & 0x3f)));
		mct_buf_addc(&G, (int)(0x80 | (cp & 0x3f)));
	} else {
		mct_buf_addc(&G, (int)(0xf0 | (cp >> 18)));
		mct_buf_addc(&G, (int)(0x80 | ((cp >> 12) & 0x3f)));
		mct_buf_addc(&G, (int)(0x80 | ((cp >> 6) & 0x3f)));
		mct_buf_addc(&G, (int)(0x80 | (cp & 0x3f)));
	}
}

static void
g_u(unsigned cp)
{
	char tmp[8];

	snprintf(tmp, sizeof(tmp), rn(2) ? "\\u%04x" : "\\u%04X", cp);
	mct_buf_adds(&G, tmp);
}

static void
g_string(void)
{
	static const char escs[] = "\"\\/bfnrt";
	unsigned i, n, cp, r;

	mct_buf_addc(&G, '"');
	n = rn(8) == 0 ? rn(60) : rn(12);
	for (i = 0; i < n; i++) {
		r = rn(100);
		if (r < 70) {
			int c;

			do
				c = 0x20 + (int)rn(0x5f);
			while (c == '"' || c == '\\');
			mct_buf_addc(&G, c);
		} else if (r < 78) {
			mct_buf_addc(&G, '\\');
			mct_buf_addc(&G, escs[rn(8)]);
		} else if (r < 84) {
			do
				cp = rn(0x10000);
			while (cp >= 0xd800 && cp < 0xe000);
			g_u(rn(4) ? cp : rn(0x20));
		} else if (r < 87) {
			cp = 0x10000 + rn(0x100000);
			g_u(0xd800 + ((cp - 0x10000) >> 10));
			g_u(0xdc00 + ((cp - 0x10000) & 0x3ff));
		} else if (r < 88) {
			g_u(0xd800 + rn(0x800));	/* a lone surrogate */
		} else if (r < 92) {
			g_utf8(0x80 + rn(0x800 - 0x80));
		} else if (r < 97) {
			do
				cp = 0x800 + rn(0x10000 - 0x800);
			while (cp >= 0xd800 && cp < 0xe000);
			g_utf8(cp);
		} else
			g_utf8(0x10000 + rn(0x100000));
	}
	mct_buf_addc(&G, '"');
}

static void
g_digits(unsigned n, int lead)
{
	unsigned i;

	for (i = 0; i < n; i++)
		mct_buf_addc(&G, '0' + (int)(i == 0 && lead ? 1 + rn(9) : rn(10)));
}

static void
g_number(void)
{
	static const char *const special[] = {
		"0", "-0", "0.0", "-0.0", "9223372036854775807",
		"-9223372036854775808", "18446744073709551615", "18446744073709551616",
		"1712195495519689.047", "1e308", "1e309", "-1e-400", "2.5E+00",
		"0.1", "1E400", "123456789012345678901234567890",
	};
	unsigned r = rn(10);

	if (r == 0) {
		mct_buf_adds(&G, special[rn(sizeof(special) / sizeof(special[0]))]);
		return;
	}
	if (rn(3) == 0)
		mct_buf_addc(&G, '-');
	if (rn(6) == 0)
		mct_buf_addc(&G, '0');
	else
		g_digits(rn(8) == 0 ? 15 + rn(16) : 1 + rn(6), 1);
	if (r >= 5) {
		mct_buf_addc(&G, '.');
		g_digits(1 + rn(rn(4) ? 4 : 20), 0);
	}
	if (r >= 8) {
		mct_buf_addc(&G, rn(2) ? 'e' : 'E');
		if (rn(2))
			mct_buf_addc(&G, rn(2) ? '+' : '-');
		g_digits(1 + rn(3), 0);
	}
}

static void g_value(int, int, int);

static void
g_key(void)
{
	if (rn(3)) {
		mct_buf_addc(&G, '"');
		mct_buf_adds(&G, keypool[rn(sizeof(keypool) / sizeof(keypool[0]))]);
		mct_buf_addc(&G, '"');
	} else
		g_string();
}

static void
g_object(int depth, int maxdepth, int style)
{
	unsigned i, n = rn(7);

	mct_buf_addc(&G, '{');
	for (i = 0; i < n; i++) {
		if (i)
			mct_buf_addc(&G, ',');
		g_ws(style, depth + 1);
		g_key();
		g_ws(style == 3 ? 1 : style, depth + 1);
		mct_buf_addc(&G, ':');
		g_ws(style == 3 ? 1 : style, depth + 1);
		g_value(depth + 1, maxdepth, style);
	}
	if (n)
		g_ws(style, depth);
	mct_buf_addc(&G, '}');
}

static void
g_array(int depth, int maxdepth, int style)
{
	unsigned i, n = rn(6);

	mct_buf_addc(&G, '[');
	for (i = 0; i < n; i++) {
		if (i)
			mct_buf_addc(&G, ',');
		g_ws(style, depth + 1);
		g_value(depth + 1, maxdepth, style);
	}
	if (n)
		g_ws(style, depth);
	mct_buf_addc(&G, ']');
}

static void
g_value(int depth, int maxdepth, int style)
{
	unsigned r = rn(100);

	if (depth >= maxdepth && r < 35)
		r += 35;
	if (r < 20)
		g_object(depth, maxdepth, style);
	else if (r < 35)
		g_array(depth, maxdepth, style);
	else if (r < 60)
		g_string();
	else if (r < 88)
		g_number();
	else
		mct_buf_adds(&G, (const char *[]){ "true", "false", "null" }[rn(3)]);
}

/* A ts or dur value: numbers of every shape, or a string. */
static void
g_time(void)
{
	static const char *const strs[] = {
		"\"123\"", "\"1.5\"", "\"-7\"", "\"1e3\"", "\"1712195495519689.047\"",
		"\"abc\"", "\"\"", "\" 1\"", "\"1\\u0032\"", "\"+5\"", "\".5\"",
		"\"5.\"", "\"007\"",
	};
	unsigned r = rn(20);

	if (r < 15)
		g_number();
	else if (r < 19)
		mct_buf_adds(&G, strs[rn(sizeof(strs) / sizeof(strs[0]))]);
	else
		g_value(2, 3, 0);
}

/* An event: the usual keys in random order, random extras. */
static void
g_event(void)
{
	int style = (int)rn(5), maxdepth = 1 + (int)rn(4);
	unsigned i, n = 2 + rn(8);

	mct_buf_addc(&G, '{');
	for (i = 0; i < n; i++) {
		unsigned k = rn(12);

		if (i)
			mct_buf_addc(&G, ',');
		g_ws(style, 1);
		switch (k) {
		case 0:
		case 1:
			mct_buf_adds(&G, rn(2) ? "\"ts\"" : "\"dur\"");
			g_ws(style == 3 ? 1 : style, 1);
			mct_buf_addc(&G, ':');
			g_ws(style == 3 ? 1 : style, 1);
			g_time();
			break;
		case 2:
			mct_buf_adds(&G, "\"ph\":");
			mct_buf_adds(&G, (const char *[]){ "\"X\"", "\"M\"", "\"B\"",
			    "\"E\"", "\"s\"", "\"MM\"" }[rn(6)]);
			break;
		case 3:
			mct_buf_adds(&G, "\"args\"");
			g_ws(style == 3 ? 1 : style, 1);
			mct_buf_addc(&G, ':');
			g_ws(style == 3 ? 1 : style, 1);
			mct_buf_addc(&G, '{');
			if (rn(2))
				mct_buf_adds(&G, "\"co_id\":93,");
			mct_buf_adds(&G, "\"x\":");
			g_value(2, maxdepth + 1, style);
			mct_buf_addc(&G, '}');
			break;
		default:
			g_key();
			g_ws(style == 3 ? 1 : style, 1);
			mct_buf_addc(&G, ':');
			g_ws(style == 3 ? 1 : style, 1);
			g_value(1, maxdepth, style);
		}
	}
	g_ws(style, 0);
	mct_buf_addc(&G, '}');
}

/* One generated document: mostly an event, sometimes any value. */
static void
g_doc(void)
{
	unsigned r = rn(20);

	G.len = 0;
	if (rn(10) == 0)
		g_ws(2, 0);
	if (r < 17)
		g_event();
	else
		g_value(0, 3, (int)rn(5));
	if (rn(10) == 0)
		g_ws(2, 0);
}

/* Mangle the text in G: flip, delete, duplicate, insert, cut. */
static void
mangle(void)
{
	static const char interesting[] = "{}[],:\"\\ \t\n0123456789-+.eEtfnNI'/xu"
	    "\x80\xc3\xff\x01\x7f";
	unsigned k, times = 1 + (rn(4) == 0) + (rn(8) == 0);
	size_t at;

	for (k = 0; k < times && G.len > 0; k++) {
		at = rn((unsigned)G.len);
		switch (rn(6)) {
		case 0:	/* flip to an interesting byte */
			G.p[at] = interesting[rn(sizeof(interesting) - 1)];
			break;
		case 1:	/* flip to any byte */
			G.p[at] = (char)rn(256);
			break;
		case 2:	/* delete */
			memmove(G.p + at, G.p + at + 1, G.len - at - 1);
			G.len--;
			break;
		case 3:	/* duplicate */
			mct_buf_grow(&G, 1);
			memmove(G.p + at + 1, G.p + at, G.len - at);
			G.len++;
			break;
		case 4:	/* insert an interesting byte */
			mct_buf_grow(&G, 1);
			memmove(G.p + at + 1, G.p + at, G.len - at);
			G.p[at] = interesting[rn(sizeof(interesting) - 1)];
			G.len++;
			break;
		default:	/* cut */
			G.len = at;
			break;
		}
	}
}

struct dstats {
	long cases;
	long agree_ok;		/* both accept, same value */
	long agree_reject;	/* both reject */
	long repaired_jc_rejects;
	long repaired_jc_accepts;
	long jc_quirk;		/* json-c accepts what JSON does not */
	long toplevel_number;	/* a bare number needed the end marked */
	long disagree;
	long check_only_comma;	/* known: without .out a trailing comma is an error */
	long u_escape_at_end;	/* known: \u near the end is taken for MORE */
	long event_checked;
	long event_unquoted;
	long event_fail;
	long index_checked;
	long jc_pair_bug;	/* json-c 0.16 gets a surrogate pair wrong */
	long index_fail;
	long consistency_fail;
	long own_index_checked;	/* mct_scan's index of its copy... */
	long own_index_fail;	/* ...is not mct_index()'s of the copy */
	int printed;
};

/*
 * The index mct_scan() makes of its copy of an event is mct_index()'s of
 * the copy: the reader hands it on with the event (a merge looks up ts
 * in it) instead of indexing the event again.
 */
static void
check_own_index(struct dstats *st, const char *t, size_t n)
{
	static struct mct_buf out;
	static struct mct_scan s;
	static struct mct_kv *kv;
	static int cap;
	int nkv = 0;

	if (scan(t, n, 1, 1, &out, &s) != MCT_SCAN_OK || out.len == 0 ||
	    out.p[0] != '{')
		return;
	st->own_index_checked++;
	if (mct_index(out.p, out.len, &kv, &nkv, &cap) == s.nkv &&
	    (s.nkv == 0 || memcmp(kv, s.kv, (size_t)s.nkv * sizeof(*kv)) == 0))
		return;
	st->own_index_fail++;
	if (st->printed++ < maxprint)
		diag("mct_scan's index of \"%s\" is not mct_index()'s of its "
		    "copy \"%s\"", esc(t, n), esc(out.p, out.len));
}

/*
 * Does the text use something json-c accepts in strict mode that JSON
 * does not allow: single quotes, NaN, Infinity, -01, 00, 1., -.5?
 */
static int
jsonc_quirk(const char *t, size_t n)
{
	size_t i, j;
	int instr = 0;

	for (i = 0; i < n; i++) {
		unsigned char c = (unsigned char)t[i];

		if (instr) {
			if (c == '\\')
				i++;
			else if (c == '"')
				instr = 0;
			continue;
		}
		if (c == '"')
			instr = 1;
		else if (c == '\'' || c == 'N' || c == 'I')
			return 1;
		else if ((c == '-' || (c >= '0' && c <= '9')) && (i == 0 ||
		    !((t[i - 1] >= '0' && t[i - 1] <= '9') || t[i - 1] == '.' ||
		    t[i - 1] == 'e' || t[i - 1] == 'E' || t[i - 1] == '-' ||
		    t[i - 1] == '+'))) {
			j = i + (c == '-');
			if (j < n && t[j] == '.')
				return 1;	/* -.5 */
			if (j + 1 < n && t[j] == '0' && t[j + 1] >= '0' &&
			    t[j + 1] <= '9')
				return 1;
			while (j < n && t[j] >= '0' && t[j] <= '9')
				j++;
			if (j < n && t[j] == '.' && (j + 1 >= n || t[j + 1] < '0' ||
			    t[j + 1] > '9'))
				return 1;
		}
	}
	return 0;
}

static void
disagree(struct dstats *st, const char *what, const char *t, size_t n,
    const char *fmt, ...) __attribute__((format(printf, 5, 6)));

static void
disagree(struct dstats *st, const char *what, const char *t, size_t n,
    const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	st->disagree++;
	if (st->printed++ >= maxprint)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	diag("DISAGREE (%s): input \"%s\"\n  %s", what, esc(t, n), msg);
}

/* The key of a kv as text; raw (escapes kept). */
static int
kv_is(const char *base, const struct mct_kv *kv, const char *k)
{
	return kv->klen == strlen(k) && memcmp(base + kv->koff, k, kv->klen) == 0;
}

/*
 * Event mode on an accepted text: same result as compact mode but for
 * string ts/dur holding a number; the notes match the keys.
 */
static void
check_event(struct dstats *st, const char *t, size_t n, int rc1,
    const struct mct_buf *out1, const struct mct_scan *s1,
    struct mct_scan *se, struct mct_buf *oute)
{
	struct mct_kv *kv1;
	int rc, i, unq = 0, ts_kind = MCT_TS_NONE;
	int dur_kind = MCT_TS_NONE, meta = 0, coid = 0;
	i128 ts_e6 = 0;
	const char *why = NULL;

	st->event_checked++;
	rc = scan(t, n, 1, 1, oute, se);
	if (rc != rc1 || (rc == MCT_SCAN_OK && se->fixes != s1->fixes)) {
		why = "result differs from compact mode";
		goto fail;
	}
	if (rc != MCT_SCAN_OK)
		return;
	if (se->nkv != s1->nkv) {
		why = "key count differs";
		goto fail;
	}
	kv1 = s1->kv;
	for (i = 0; i < se->nkv; i++) {
		const struct mct_kv *a = &kv1[i], *b = &se->kv[i];
		const char *va = out1->p + a->voff, *vb = oute->p + b->voff;

		if (a->klen != b->klen || memcmp(out1->p + a->koff,
		    oute->p + b->koff, a->klen) != 0) {
			why = "keys differ";
			goto fail;
		}
		if (a->vlen == b->vlen && memcmp(va, vb, a->vlen) == 0)
			continue;
		if ((kv_is(out1->p, a, "ts") || kv_is(out1->p, a, "dur")) &&
		    a->vlen == b->vlen + 2 && va[0] == '"' &&
		    memcmp(va + 1, vb, b->vlen) == 0) {
			unq++;
			if (!json_number(vb, b->vlen)) {
				why = "a string ts/dur became a number that is "
				    "not JSON";
				goto fail;
			}
			continue;
		}
		why = "values differ";
		goto fail;
	}
	if (unq)
		st->event_unquoted++;
	if (!valid_compact(oute->p, oute->len)) {
		why = "event-mode output is not valid JSON";
		goto fail;
	}
	if (s1->fixes)
		return;
	/* what the notes should say, from the compact keys */
	for (i = 0; i < s1->nkv; i++) {
		const struct mct_kv *a = &kv1[i];
		const char *v = out1->p + a->voff;
		size_t vn = a->vlen;
		int isdur = kv_is(out1->p, a, "dur");
		i128 e6;

		if (kv_is(out1->p, a, "ph") && vn == 3 && memcmp(v, "\"M\"", 3) == 0)
			meta = 1;
		if (kv_is(out1->p, a, "args") && v[0] == '{') {
			struct mct_kv *akv = NULL;
			int an = 0, acap = 0, j;

			mct_index(v, vn, &akv, &an, &acap);
			for (j = 0; j < an; j++)
				if (kv_is(v, &akv[j], "co_id"))
					coid = 1;
			free(akv);
		}
		if (!isdur && !kv_is(out1->p, a, "ts"))
			continue;
		if (v[0] == '"') {
			/* a string that is a JSON number */
			if (vn < 3 || vn - 2 >= 64 || !json_number(v + 1, vn - 2))
				continue;
			v++;
			vn -= 2;
		} else if (!(v[0] == '-' || (v[0] >= '0' && v[0] <= '9')))
			continue;
		if (mct_dec_e6(v, vn, &e6) != 0)
			continue;
		if (isdur)
			dur_kind = memchr(v, '.', vn) ? MCT_TS_FRAC : MCT_TS_INT;
		else {
			ts_kind = memchr(v, '.', vn) ? MCT_TS_FRAC : MCT_TS_INT;
			ts_e6 = e6;
		}
	}
	if (ts_kind != se->ts_kind || (ts_kind && ts_e6 != se->ts_e6) ||
	    dur_kind != se->dur_kind || meta != se->is_meta ||
	    coid != se->has_co_id) {
		st->event_fail++;
		if (st->printed++ < maxprint)
			diag("event notes of \"%s\": want ts %d %s dur %d meta %d "
			    "co_id %d, got ts %d %s dur %d meta %d co_id %d",
			    esc(t, n), ts_kind, i128s(ts_e6), dur_kind, meta, coid,
			    se->ts_kind, i128s(se->ts_e6), se->dur_kind, se->is_meta,
			    se->has_co_id);
	}
	return;
fail:
	st->event_fail++;
	if (st->printed++ < maxprint)
		diag("event mode on \"%s\": %s\n  compact %s \"%s\"\n  event   %s "
		    "\"%s\"", esc(t, n), why, rcname(rc1),
		    esc(out1->p, out1->len), rcname(rc), esc(oute->p, oute->len));
}

static int
hex4(const char *p, unsigned *v)
{
	int i;

	*v = 0;
	for (i = 0; i < 4; i++) {
		int c = p[i];

		*v <<= 4;
		if (c >= '0' && c <= '9')
			*v |= (unsigned)(c - '0');
		else if (c >= 'a' && c <= 'f')
			*v |= (unsigned)(c - 'a' + 10);
		else if (c >= 'A' && c <= 'F')
			*v |= (unsigned)(c - 'A' + 10);
		else
			return 0;
	}
	return 1;
}

/*
 * json-c 0.16 decodes a surrogate pair to U+FFFD when the code point's
 * low 16 bits look like a surrogate (\ud976\udf80 is U+6DB80; json-c
 * gives U+FFFD): does the JSON string p[0..n) have such a pair?
 */
static int
jsonc_pair_bug(const char *p, size_t n)
{
	unsigned hi, lo, cp;
	size_t i;

	for (i = 0; i + 12 <= n; i++) {
		if (p[i] != '\\')
			continue;
		if (p[i + 1] == 'u' && hex4(p + i + 2, &hi) && hi >= 0xd800 &&
		    hi < 0xdc00 && p[i + 6] == '\\' && p[i + 7] == 'u' &&
		    hex4(p + i + 8, &lo) && lo >= 0xdc00 && lo < 0xe000) {
			cp = 0x10000 + ((hi - 0xd800) << 10) + (lo - 0xdc00);
			if ((cp & 0xf800) == 0xd800)
				return 1;
		}
		i++;	/* the escaped character */
	}
	return 0;
}

/*
 * The first-level index against json-c: every key's last value parses to
 * json-c's member, and strings unescape (mct_jstr) to json-c's bytes.
 */
static void
check_index(struct dstats *st, const char *t, size_t n,
    const struct mct_buf *out, const struct mct_scan *s, json_object *jo)
{
	struct mct_buf key = { 0 }, str = { 0 };
	int i, j;

	if (json_object_get_type(jo) != json_type_object)
		return;
	for (i = 0; i < s->nkv; i++) {
		struct mct_val kv = { MCT_J_STRING, out->p + s->kv[i].koff - 1,
		    s->kv[i].klen + 2 };

		key.len = 0;
		mct_jstr(&kv, &key);
		if (key.len && memchr(key.p, '\0', key.len)) {
			/* json-c cuts keys at a NUL: "\u0000x" would be "" */
			mct_buf_free(&key);
			return;
		}
	}
	st->index_checked++;
	if (s->nkv == 0 && json_object_object_length(jo) != 0)
		goto fail;
	for (i = s->nkv - 1; i >= 0; i--) {
		const struct mct_kv *kv = &s->kv[i];
		struct mct_val kval, vval;
		json_object *member, *mine;
		int later = 0, eq;

		kval.type = MCT_J_STRING;
		kval.p = out->p + kv->koff - 1;
		kval.len = kv->klen + 2;
		key.len = 0;
		mct_jstr(&kval, &key);
		mct_buf_addc(&key, '\0');
		key.len--;
		if (jsonc_pair_bug(kval.p, kval.len)) {
			st->jc_pair_bug++;
			continue;
		}
		for (j = i + 1; j < s->nkv && !later; j++) {
			struct mct_val kj = { MCT_J_STRING, out->p + s->kv[j].koff - 1,
			    s->kv[j].klen + 2 };

			later = mct_jstr_eq(&kj, key.p, key.len);
		}
		if (later)
			continue;	/* json-c keeps the last of duplicates */
		if (!json_object_object_get_ex(jo, key.p, &member))
			goto fail;
		/* (the value is followed by ',' or '}', not NUL: copy it) */
		str.len = 0;
		mct_buf_add(&str, out->p + kv->voff, kv->vlen);
		eq = jc_parse(str.p, str.len, &mine) &&
		    json_object_equal(mine, member);
		json_object_put(mine);
		if (!eq)
			goto fail;
		if (out->p[kv->voff] == '"' &&
		    jsonc_pair_bug(out->p + kv->voff, kv->vlen))
			st->jc_pair_bug++;
		else if (out->p[kv->voff] == '"') {
			vval.type = MCT_J_STRING;
			vval.p = out->p + kv->voff;
			vval.len = kv->vlen;
			str.len = 0;
			mct_jstr(&vval, &str);
			if (json_object_get_type(member) != json_type_string ||
			    (size_t)json_object_get_string_len(member) != str.len ||
			    (str.len && memcmp(json_object_get_string(member), str.p,
			    str.len) != 0)) {
				if (st->printed++ < maxprint)
					diag("mct_jstr \"%s\" -> \"%s\", json-c \"%s\"",
					    esc(vval.p, vval.len), esc(str.p, str.len),
					    ESC(json_object_get_string(member)));
				goto fail;
			}
		}
	}
	mct_buf_free(&key);
	mct_buf_free(&str);
	return;
fail:
	st->index_fail++;
	if (st->printed++ < maxprint)
		diag("index of \"%s\" (compact \"%s\") does not match json-c",
		    esc(t, n), esc(out->p, out->len));
	mct_buf_free(&key);
	mct_buf_free(&str);
}

/* One differential case: the text in G. */
static void
dcase(struct dstats *st)
{
	static struct mct_buf out1, oute, vbuf;
	static struct mct_scan s1, s0, se, sv;
	const char *t;
	size_t n = G.len;
	json_object *jo = NULL, *jout = NULL;
	int rc1, rc0, mct_ok, jc_ok, i;

	mct_buf_grow(&G, 2);
	G.p[n] = '\0';
	t = G.p;
	st->cases++;

	rc1 = scan(t, n, 0, 1, &out1, &s1);
	if ((rc1 == MCT_SCAN_ERROR && (s1.errmsg == NULL || s1.errpos < t ||
	    s1.errpos > t + n)) || (rc1 == MCT_SCAN_OK && (s1.p <= t ||
	    s1.p > t + n))) {
		st->consistency_fail++;
		if (st->printed++ < maxprint)
			diag("mct_scan \"%s\": %s with errpos/p out of range",
			    esc(t, n), rcname(rc1));
	}
	mct_ok = rc1 == MCT_SCAN_OK && only_ws(s1.p, t + n);
	if (rc1 == MCT_SCAN_MORE) {
		/* Mark the end: a bare number completes; nothing else may. */
		struct mct_scan sx = { 0 };
		struct mct_buf ox = { 0 };
		int rcx;

		G.p[n] = ' ';
		rcx = scan(t, n + 1, 0, 0, &ox, &sx);
		G.p[n] = '\0';
		if (rcx == MCT_SCAN_OK) {
			const char *q = t;

			while (q < t + n && jws((unsigned char)*q))
				q++;
			if (*q != '{' && *q != '[') {
				st->toplevel_number++;
				mct_ok = 1;
				rc1 = MCT_SCAN_OK;
				mct_buf_free(&out1);
				out1 = ox;
				memset(&ox, 0, sizeof(ox));
				s1.fixes = sx.fixes;
				s1.nkv = 0;
			} else if (sx.fixes & MCT_FIX_ESCAPE)
				st->u_escape_at_end++;	/* known bug */
			else {
				st->consistency_fail++;
				if (st->printed++ < maxprint)
					diag("mct_scan \"%s\": MORE, but OK when a space "
					    "follows", esc(t, n));
			}
		}
		free(sx.kv);
		mct_buf_free(&ox);
	}

	/* Without .out: the same, except that trailing commas are errors. */
	rc0 = scan(t, n, 0, 1, NULL, &s0);
	if ((s1.fixes & MCT_FIX_COMMA) && rc0 == MCT_SCAN_ERROR &&
	    (rc0 != rc1 || s0.errpos != s1.errpos))
		st->check_only_comma++;	/* known bug */
	else if (rc0 != rc1 && !(rc1 == MCT_SCAN_OK && rc0 == MCT_SCAN_MORE)) {
		st->consistency_fail++;
		if (st->printed++ < maxprint)
			diag("mct_scan \"%s\": %s with .out, %s without", esc(t, n),
			    rcname(rc1), rcname(rc0));
	} else if (rc0 == MCT_SCAN_OK && (s0.fixes != s1.fixes ||
	    s0.nkv != s1.nkv || s0.p != s1.p)) {
		st->consistency_fail++;
		if (st->printed++ < maxprint)
			diag("mct_scan \"%s\": fixes/keys/end differ without .out",
			    esc(t, n));
	} else if (rc0 == MCT_SCAN_ERROR && (s0.errpos != s1.errpos ||
	    strcmp(s0.errmsg, s1.errmsg) != 0)) {
		st->consistency_fail++;
		if (st->printed++ < maxprint)
			diag("mct_scan \"%s\": error \"%s\" at %td with .out, \"%s\" at "
			    "%td without", esc(t, n), s1.errmsg, s1.errpos - t,
			    s0.errmsg, s0.errpos - t);
	} else if (rc0 == MCT_SCAN_OK && s0.fixes == 0) {
		/* Each raw value compacts to the value in the copy. */
		for (i = 0; i < s0.nkv; i++) {
			const struct mct_kv *a = &s0.kv[i], *b = &s1.kv[i];

			if (a->klen != b->klen || memcmp(t + a->koff,
			    out1.p + b->koff, a->klen) != 0 ||
			    scan(t + a->voff, a->vlen + 1, 0, 0, &vbuf, &sv) !=
			    MCT_SCAN_OK || vbuf.len != b->vlen ||
			    memcmp(vbuf.p, out1.p + b->voff, b->vlen) != 0) {
				st->consistency_fail++;
				if (st->printed++ < maxprint)
					diag("mct_scan \"%s\": key %d differs between the "
					    "raw and the compact index", esc(t, n), i);
				break;
			}
		}
	}

	jc_ok = jc_parse(t, n, &jo);
	if (mct_ok && s1.fixes == 0) {
		if (!jc_ok) {
			disagree(st, "mct accepts, json-c rejects", t, n, "mct \"%s\"",
			    esc(out1.p, out1.len));
		} else if (!jc_parse(out1.p, out1.len, &jout) ||
		    !json_object_equal(jo, jout)) {
			disagree(st, "different values", t, n, "mct copy \"%s\"\n  "
			    "json-c \"%s\"", esc(out1.p, out1.len),
			    ESC(json_object_to_json_string_ext(jo,
			    JSON_C_TO_STRING_PLAIN)));
		} else {
			st->agree_ok++;
			if (s1.nkv)
				check_index(st, t, n, &out1, &s1, jo);
		}
	} else if (mct_ok) {
		/* repaired: the copy is valid and needs no more repairs */
		if (!valid_compact(out1.p, out1.len))
			disagree(st, "repaired copy is not valid JSON", t, n,
			    "mct copy \"%s\" (fixes %#x)", esc(out1.p, out1.len),
			    s1.fixes);
		else if (!jc_ok) {
			if (s1.fixes == MCT_FIX_CTRL && !memchr(t, '\0', n) &&
			    !jsonc_quirk(t, n))
				disagree(st, "json-c rejects raw control characters?",
				    t, n, "mct copy \"%s\"", esc(out1.p, out1.len));
			else
				st->repaired_jc_rejects++;
		} else if (s1.fixes & (MCT_FIX_ESCAPE | MCT_FIX_COMMA))
			disagree(st, "json-c accepts what mct repaired", t, n,
			    "fixes %#x, mct copy \"%s\"", s1.fixes,
			    esc(out1.p, out1.len));
		else if (s1.fixes == MCT_FIX_CTRL &&
		    (!jc_parse(out1.p, out1.len, &jout) ||
		    !json_object_equal(jo, jout)))
			disagree(st, "an escaped control character changed the "
			    "value", t, n, "mct copy \"%s\"", esc(out1.p, out1.len));
		else
			st->repaired_jc_accepts++;
	} else if (jc_ok) {
		if (jsonc_quirk(t, n))
			st->jc_quirk++;
		else
			disagree(st, "json-c accepts, mct rejects", t, n,
			    "mct %s: %s at %td", rcname(rc1),
			    s1.errmsg ? s1.errmsg : "-",
			    s1.errpos ? s1.errpos - t : -1);
	} else
		st->agree_reject++;
	json_object_put(jo);
	json_object_put(jout);

	if (rc1 == MCT_SCAN_OK || rn(4) == 0)
		check_event(st, t, n, scan(t, n, 0, 1, &out1, &s1), &out1, &s1,
		    &se, &oute);
	if (mct_ok)
		check_own_index(st, t, n);
}

static void
test_differential(void)
{
	struct dstats st = { 0 };
	struct mct_buf orig = { 0 };
	const char *env = getenv("MCT_UNIT_SEED");
	uint64_t seed = env ? strtoull(env, NULL, 0) : 20240404;
	int d, k;
	size_t cut;
	struct timeval t0, t1;
	clock_t c0 = clock(), c1;

	if (getenv("MCT_UNIT_VERBOSE"))
		maxprint = 100000;
	gettimeofday(&t0, NULL);
	rng_state = seed;
	for (d = 0; d < 13000; d++) {
		g_doc();
		orig.len = 0;
		mct_buf_add(&orig, G.p, G.len);
		dcase(&st);
		for (k = 0; k < 7; k++) {
			G.len = 0;
			mct_buf_add(&G, orig.p, orig.len);
			mangle();
			dcase(&st);
		}
		if (d % 300 == 0) {
			/* cut at every position */
			for (cut = 0; cut < orig.len; cut++) {
				G.len = 0;
				mct_buf_add(&G, orig.p, cut);
				dcase(&st);
			}
		}
	}
	gettimeofday(&t1, NULL);
	c1 = clock();
	if (jtok)
		json_tokener_free(jtok);
	jtok = NULL;
	mct_buf_free(&orig);

	diag("differential, seed %" PRIu64 ", %.2f s (%.2f s CPU): %ld cases: "
	    "%ld both accept "
	    "(same value), %ld both reject, %ld repaired by mct (json-c rejects "
	    "%ld, accepts %ld), %ld json-c leniencies, %ld bare numbers, %ld "
	    "disagreements", seed, (double)(t1.tv_sec - t0.tv_sec) +
	    (double)(t1.tv_usec - t0.tv_usec) / 1e6,
	    (double)(c1 - c0) / CLOCKS_PER_SEC, st.cases, st.agree_ok, st.agree_reject,
	    st.repaired_jc_rejects + st.repaired_jc_accepts,
	    st.repaired_jc_rejects, st.repaired_jc_accepts, st.jc_quirk,
	    st.toplevel_number, st.disagree);
	diag("  event mode: %ld checked, %ld with a string ts/dur unquoted, "
	    "%ld failures; index vs json-c: %ld "
	    "checked, %ld failures, %ld strings skipped for json-c's surrogate "
	    "pair bug; consistency failures %ld; known: %ld "
	    "trailing commas rejected without .out, %ld \\u at the end",
	    st.event_checked, st.event_unquoted,
	    st.event_fail, st.index_checked, st.index_fail, st.jc_pair_bug,
	    st.consistency_fail, st.check_only_comma, st.u_escape_at_end);
	ok(st.cases >= 100000, "differential: at least 100000 cases (%ld)",
	    st.cases);
	ok(st.agree_ok > 10000 && st.agree_reject > 10000 &&
	    st.repaired_jc_rejects > 100, "differential: the cases cover accept, "
	    "reject and repair");
	ok(st.disagree == 0, "differential: mct_scan and json-c agree on %ld "
	    "cases (%ld disagreements)", st.cases, st.disagree);
	ok(st.consistency_fail == 0, "differential: mct_scan with and without "
	    ".out, and at the end of the text, is consistent");
	ok(st.index_fail == 0, "differential: the first-level index and "
	    "mct_jstr match json-c (%ld objects)", st.index_checked);
	ok(st.own_index_checked > 10000 && st.own_index_fail == 0,
	    "differential: mct_scan's index of its copy is mct_index()'s of "
	    "the copy (%ld objects, %ld differ)", st.own_index_checked,
	    st.own_index_fail);
	ok(st.event_fail == 0, "differential: event mode matches compact mode "
	    "and its notes match the keys (%ld cases)", st.event_checked);
	ok(st.check_only_comma == 0, "differential: mct_scan without .out accepts what it "
	    "repairs with .out (%ld trailing commas rejected)",
	    st.check_only_comma);
	mct_buf_free(&G);
}

/* ------------------------------------------------------------------ */
/* reader.c end to end */

static char tmpdir[256];

static const char *
tfile(const char *name, const void *data, size_t n)
{
	static char path[4][512];
	static int next;
	char *p = path[next++ % 4];
	FILE *f;

	snprintf(p, 512, "%s/%s", tmpdir, name);
	if ((f = fopen(p, "wb")) == NULL || fwrite(data, 1, n, f) != n ||
	    fclose(f) != 0) {
		diag("cannot write %s: %s", p, strerror(errno));
		exit(99);
	}
	return p;
}

#define TFILE(name, s)	tfile((name), (s), sizeof(s) - 1)

static int rd_pair_be;		/* readv() reads through pairbe.c */

struct rd {
	struct mct_buf events;	/* one line per event */
	struct mct_buf err;	/* what the reader said on stderr */
	int nev, status, badjson, badkey;
	struct mct_header h;	/* scalars; strings below */
	char *top, *line, *why;
};

static void
rd_free(struct rd *r)
{
	mct_buf_free(&r->events);
	mct_buf_free(&r->err);
	free(r->top);
	free(r->line);
	free(r->why);
	memset(r, 0, sizeof(*r));
}

/* Read operands with the reader, collecting events and stderr. */
static void
readv(int argc, const char **argv, enum mct_unit unit, struct rd *r)
{
	struct mct_opts o = { .unit = unit };
	struct mct_reader *rr;
	struct mct_event *ev;
	struct mct_pairbe *pb = NULL;
	const struct mct_header *h;
	FILE *ef = tmpfile();
	int saved;
	char buf[4096];
	size_t n;

	memset(r, 0, sizeof(*r));
	fflush(stderr);
	saved = dup(2);
	if (getenv("MCT_UNIT_STDERR") == NULL)	/* to see a sanitizer's report */
		dup2(fileno(ef), 2);
	rr = mct_open(argc, (char **)argv, &o);
	h = mct_header(rr);
	if (rd_pair_be)
		h = mct_pairbe_header(pb = mct_pairbe_new(h));
	r->h = *h;
	r->top = h->top ? mct_xstrdup(h->top) : NULL;
	r->line = h->line ? mct_xstrdup(h->line) : NULL;
	r->h.top = r->h.line = NULL;
	/* the header's strings are the reader's: keep copies past mct_close() */
	r->why = h->why ? strdup(h->why) : NULL;
	r->h.why = r->why;
	while (mct_pairbe_next(pb, rr, &ev)) {
		struct mct_val v;
		json_object *jo;

		mct_buf_add(&r->events, ev->json, ev->len);
		mct_buf_addc(&r->events, '\n');
		r->nev++;
		/* every event is one valid JSON object */
		mct_buf_grow(&r->err, ev->len + 1);
		memcpy(r->err.p, ev->json, ev->len);
		r->err.p[ev->len] = '\0';
		jo = json_tokener_parse(r->err.p);
		if (jo == NULL || json_object_get_type(jo) != json_type_object)
			r->badjson++;
		json_object_put(jo);
		if (mct_get_key(ev, "ts", &v) == 0 && v.type == MCT_J_NONE)
			r->badkey++;
	}
	mct_pairbe_free(pb);
	r->status = mct_close(rr);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	r->err.len = 0;
	if (r->err.p)
		r->err.p[0] = '\0';
	rewind(ef);
	while ((n = fread(buf, 1, sizeof(buf), ef)) > 0)
		mct_buf_add(&r->err, buf, n);
	if (r->err.p == NULL)
		mct_buf_adds(&r->err, "");
	fclose(ef);
}

static void
readf(const char *path, enum mct_unit unit, struct rd *r)
{
	const char *argv[] = { path, NULL };

	readv(1, argv, unit, r);
}

static int
events_are(const struct rd *r, const char *want)
{
	return r->events.len == strlen(want) && (r->events.len == 0 ||
	    memcmp(r->events.p, want, r->events.len) == 0);
}

static void
t_read(const char *what, const struct rd *r, const char *events, int status,
    const char *errsub)
{
	int pass = events_are(r, events) && r->status == status &&
	    r->badjson == 0 && r->badkey == 0 &&
	    (errsub ? strstr(r->err.p, errsub) != NULL : r->err.len == 0);

	ok(pass, "reader: %s", what);
	if (!pass)
		diag("want status %d, events:\n%s  got status %d, events:\n%s"
		    "  stderr: %s", status, events, r->status,
		    r->events.p ? r->events.p : "", r->err.p);
}

/* pairbe.c: B/E pairs of a thread as X events. */
static void
test_pairbe(void)
{
	struct rd r;
	const char *p;

	rd_pair_be = 1;
	p = TFILE("be.json", "{\"traceEvents\":["
	    "{\"ph\":\"B\",\"name\":\"o\",\"pid\":1,\"tid\":1,\"ts\":10,"
	    "\"args\":{\"a\":1,\"b\":2}},"
	    "{\"ph\":\"B\",\"name\":\"i\",\"pid\":1,\"tid\":1,\"ts\":12,\"dur\":9},"
	    "{\"ph\":\"B\",\"name\":\"t\",\"pid\":1,\"tid\":\"1\",\"ts\":13},"
	    "{\"ph\":\"E\",\"pid\":1,\"tid\":1,\"ts\":15,\"args\":{\"c\":3}},"
	    "{\"ph\":\"X\",\"name\":\"x\",\"pid\":1,\"tid\":1,\"ts\":16,\"dur\":1},"
	    "{\"ph\":\"E\",\"pid\":1,\"tid\":1,\"ts\":20,\"args\":{\"b\":5}},"
	    "{\"ph\":\"E\",\"pid\":1,\"tid\":1,\"ts\":21},"
	    "{\"ph\":\"B\",\"name\":\"late\",\"pid\":2,\"ts\":30},"
	    "{\"ph\":\"E\",\"pid\":2,\"ts\":29}"
	    "]}");
	readf(p, MCT_UNIT_NS, &r);
	t_read("pairbe: nesting, E's args merged (E wins), dur replaced, "
	    "threads by their JSON text, the unpaired passed on and counted",
	    &r,
	    "{\"ph\":\"X\",\"name\":\"i\",\"pid\":1,\"tid\":1,\"ts\":12,"
	    "\"dur\":3,\"args\":{\"c\":3}}\n"
	    "{\"ph\":\"X\",\"name\":\"x\",\"pid\":1,\"tid\":1,\"ts\":16,\"dur\":1}\n"
	    "{\"ph\":\"X\",\"name\":\"o\",\"pid\":1,\"tid\":1,\"ts\":10,"
	    "\"dur\":10,\"args\":{\"a\":1,\"b\":5}}\n"
	    "{\"ph\":\"E\",\"pid\":1,\"tid\":1,\"ts\":21}\n"
	    "{\"ph\":\"B\",\"name\":\"late\",\"pid\":2,\"ts\":30}\n"
	    "{\"ph\":\"E\",\"pid\":2,\"ts\":29}\n"
	    "{\"ph\":\"B\",\"name\":\"t\",\"pid\":1,\"tid\":\"1\",\"ts\":13}\n",
	    0, "--pair-be: 2 B/E pairs made X events; passed on unchanged: "
	    "1 E with no open B on its thread, 1 B never closed, 1 E before "
	    "its B\n");
	ok(!r.h.sorted && strstr(r.line, ",\"sorted\":false,") != NULL,
	    "pairbe: the header says sorted false");
	rd_free(&r);
	p = TFILE("nobe.json", "[{\"ph\":\"X\",\"ts\":1,\"dur\":2}]");
	readf(p, MCT_UNIT_NS, &r);
	t_read("pairbe: no B/E, nothing said", &r,
	    "{\"ph\":\"X\",\"ts\":1,\"dur\":2}\n", 0, NULL);
	rd_free(&r);
	rd_pair_be = 0;
}

/* reader.c: top-level values over the limit leave the header. */
static void
test_bigtop(void)
{
	struct mct_buf b = { 0 };
	struct rd r;
	const char *p;
	int i;

	mct_buf_adds(&b, "{\"a\":1,\"big\":\"");
	for (i = 0; i < MCT_TOP_MAX; i++)
		mct_buf_addc(&b, 'x');
	mct_buf_adds(&b, "\",\"traceEvents\":[{\"ts\":1}],\"z\":[1]}");
	p = tfile("bigtop.json", b.p, b.len);
	readf(p, MCT_UNIT_NS, &r);
	t_read("a top-level value over 64 KB", &r, "{\"ts\":1}\n", 0, NULL);
	ok(r.top && strcmp(r.top, "\"a\":1,\"z\":[1]") == 0 &&
	    strstr(r.line, "\"top_before\":1,") != NULL &&
	    strstr(r.line, ",\"top_dropped\":{\"big\":65538},") != NULL,
	    "reader: a top-level value over 64 KB is named in top_dropped, "
	    "with its size, not in top");
	rd_free(&r);
	/* 65534 x and the quotes: 64 KB exactly */
	b.len -= strlen("\",\"traceEvents\":[{\"ts\":1}],\"z\":[1]}") + 2;
	mct_buf_adds(&b, "\",\"traceEvents\":[{\"ts\":1}],\"z\":[1]}");
	p = tfile("edgetop.json", b.p, b.len);
	readf(p, MCT_UNIT_NS, &r);
	ok(r.top && strncmp(r.top, "\"a\":1,\"big\":\"xxx", 13) == 0 &&
	    strstr(r.line, "top_dropped") == NULL,
	    "reader: a top-level value of 64 KB stays in the header");
	rd_free(&r);
	mct_buf_free(&b);
}

static void
write_gz(const char *path, const char *mode, const char *data)
{
	gzFile z = gzopen(path, mode);

	if (z == NULL || gzwrite(z, data, (unsigned)strlen(data)) <= 0 ||
	    gzclose(z) != Z_OK) {
		diag("cannot write %s", path);
		exit(99);
	}
}

static void
test_reader(void)
{
	struct rd r;
	const char *p, *q;
	char want[1024], path[512];

	/* Object form */
	p = TFILE("obj.json", "{\"otherData\":{\"v\":1},\"traceEvents\":[\n"
	    "{\"name\":\"a\",\"ph\":\"X\",\"ts\":1.5,\"dur\":2,\"pid\":1},\n"
	    "{\"name\":\"b\",\"ph\":\"M\",\"ts\":0,\"args\":{\"name\":\"x\"}}\n"
	    "],\"displayTimeUnit\":\"ns\"}\n");
	readf(p, MCT_UNIT_AUTO, &r);
	t_read("object form: ts/dur from us to ns", &r,
	    "{\"name\":\"a\",\"ph\":\"X\",\"ts\":1500,\"dur\":2000,\"pid\":1}\n"
	    "{\"name\":\"b\",\"ph\":\"M\",\"ts\":0,\"args\":{\"name\":\"x\"}}\n",
	    0, NULL);
	ok(r.h.unit == MCT_UNIT_US && strcmp(r.h.why, "a ts or dur has a "
	    "fraction") == 0 && r.h.has_origin && r.h.origin == 1500 &&
	    r.h.form == 'o' && r.top && strcmp(r.top, "\"otherData\":{\"v\":1},"
	    "\"displayTimeUnit\":\"ns\"") == 0 && r.h.ntop_before == 1,
	    "reader: object form header: unit, why, origin (M aside), form, top");
	snprintf(want, sizeof(want), "{\"name\":\"mct_header\",\"ph\":\"M\","
	    "\"args\":{\"version\":1,\"unit\":\"us\",\"unit_from\":\"a ts or dur "
	    "has a fraction\",\"origin\":1500,\"form\":\"object\",\"sorted\":true,\"top_before\""
	    ":1,\"top\":{\"otherData\":{\"v\":1},\"displayTimeUnit\":\"ns\"},"
	    "\"sources\":[\"%s\"]}}", p);
	ok(r.line && strcmp(r.line, want) == 0 && r.h.linelen == strlen(want),
	    "reader: the header line");
	if (r.line && strcmp(r.line, want) != 0)
		diag("got %s", r.line);
	rd_free(&r);

	/* Array form, indented, integer ts: the Chrome default unit */
	p = TFILE("arr.json", "[\n  {\"ts\": 10, \"dur\": 5, \"ph\": \"X\"},\n"
	    "  {\"ts\": 3, \"ph\": \"B\"}\n]\n");
	readf(p, MCT_UNIT_AUTO, &r);
	t_read("array form, indented", &r, "{\"ts\":10000,\"dur\":5000,\"ph\":\"X\"}\n"
	    "{\"ts\":3000,\"ph\":\"B\"}\n", 0, NULL);
	ok(r.h.unit == MCT_UNIT_US && strcmp(r.h.why, "Chrome trace format "
	    "default") == 0 && r.h.origin == 3000 && r.h.form == 'a' &&
	    r.top == NULL && r.h.ntop_before == 0,
	    "reader: array form header");
	rd_free(&r);
	readf(p, MCT_UNIT_NS, &r);
	t_read("--unit ns keeps ts", &r, "{\"ts\":10,\"dur\":5,\"ph\":\"X\"}\n"
	    "{\"ts\":3,\"ph\":\"B\"}\n", 0, NULL);
	ok(r.h.unit == MCT_UNIT_NS && strcmp(r.h.why, "given by --unit") == 0 &&
	    r.h.origin == 3, "reader: --unit ns header");
	rd_free(&r);
	readf(p, MCT_UNIT_MS, &r);
	t_read("--unit ms", &r, "{\"ts\":10000000,\"dur\":5000000,\"ph\":\"X\"}\n"
	    "{\"ts\":3000000,\"ph\":\"B\"}\n", 0, NULL);
	rd_free(&r);

	/* NDJSON with args.co_id: ns */
	p = TFILE("nd.json", "{\"ts\":100,\"dur\":7,\"args\":{\"co_id\":1}}\n"
	    "{\"ts\":50,\"ph\":\"X\"}\n");
	readf(p, MCT_UNIT_AUTO, &r);
	t_read("NDJSON with args.co_id is ns", &r,
	    "{\"ts\":100,\"dur\":7,\"args\":{\"co_id\":1}}\n"
	    "{\"ts\":50,\"ph\":\"X\"}\n", 0, NULL);
	ok(r.h.unit == MCT_UNIT_NS && strcmp(r.h.why, "events carry args.co_id "
	    "(mcTracer)") == 0 && r.h.origin == 50 && r.h.form == 'n',
	    "reader: NDJSON header");
	rd_free(&r);

	/* Cut off inside an event */
	p = TFILE("cut.json", "{\"traceEvents\":[{\"ts\":1},{\"ts\":2},{\"ts\":3");
	readf(p, MCT_UNIT_AUTO, &r);
	t_read("cut off inside an event: the events before it", &r,
	    "{\"ts\":1000}\n{\"ts\":2000}\n", 1,
	    ":34: cut off inside an event at the end of the input");
	rd_free(&r);
	/* Cut after a complete event: not damage */
	p = TFILE("cut2.json", "[{\"ts\":1},\n{\"ts\":2},\n");
	readf(p, MCT_UNIT_AUTO, &r);
	t_read("no closing ] after a trailing comma is fine", &r,
	    "{\"ts\":1000}\n{\"ts\":2000}\n", 0, NULL);
	rd_free(&r);
	p = TFILE("cut3.json", "{\"a\":1,\"traceEvents\":[{\"ts\":1}");
	readf(p, MCT_UNIT_AUTO, &r);
	t_read("no closing ]} is fine", &r, "{\"ts\":1000}\n", 0, NULL);
	ok(r.h.form == 'o' && r.top && strcmp(r.top, "\"a\":1") == 0,
	    "reader: the keys before traceEvents of a cut trace");
	rd_free(&r);

	/* gzip, two members */
	snprintf(path, sizeof(path), "%s/t.json.gz", tmpdir);
	write_gz(path, "wb", "[{\"ts\":1,\"ph\":\"X\"},\n");
	write_gz(path, "ab", "{\"ts\":2.5,\"ph\":\"X\"}]\n");
	readf(path, MCT_UNIT_AUTO, &r);
	t_read("gzip with two members", &r, "{\"ts\":1000,\"ph\":\"X\"}\n"
	    "{\"ts\":2500,\"ph\":\"X\"}\n", 0, NULL);
	rd_free(&r);
	/* gzip cut off: the events before it, then the message */
	{
		FILE *f;
		char gz[4096];
		size_t n;

		write_gz(path, "wb", "[{\"ts\":1},{\"ts\":2},{\"ts\":3}]");
		f = fopen(path, "rb");
		n = fread(gz, 1, sizeof(gz), f);
		fclose(f);
		p = tfile("cutgz.json.gz", gz, n - 8);
		readf(p, MCT_UNIT_AUTO, &r);
		t_read("gzip cut off", &r, "{\"ts\":1000}\n{\"ts\":2000}\n"
		    "{\"ts\":3000}\n", 1, "gzip stream cut off");
		rd_free(&r);
	}

	/*
	 * gzip framed in blocks that convert their times as they go (the
	 * fuzzer's find: the spans of a block's first give-up were read
	 * before they were made): a co_id after integer times gives the
	 * guess up (ns after all); three times after a fraction are each
	 * converted (us for sure)
	 */
	{
		static const char *const in[] = {
			"[{\"ts\":0},\n{\"ts\":1,\"dur\":2},{\"ts\":3,\"dur\":4},"
			"{\"ts\":5,\"args\":{\"co_id\":1}},{\"ts\":6,\"dur\":1}]",
			"[{\"ts\":0.5},\n{\"ts\":1,\"dur\":2.5},"
			"{\"ts\":3,\"ts\":4,\"dur\":5},{\"ts\":6}]"
		}, *const out[] = {
			"{\"ts\":0}\n{\"ts\":1,\"dur\":2}\n{\"ts\":3,\"dur\":4}\n"
			"{\"ts\":5,\"args\":{\"co_id\":1}}\n{\"ts\":6,\"dur\":1}\n",
			"{\"ts\":500}\n{\"ts\":1000,\"dur\":2500}\n"
			"{\"ts\":3000,\"ts\":4000,\"dur\":5000}\n{\"ts\":6000}\n"
		};
		static const char *const split[] = { "16", "40", "64" };
		char what[128];
		size_t i, j;

		for (i = 0; i < 2; i++)
			for (j = 0; j < 3; j++) {
				write_gz(path, "wb", in[i]);
				setenv("MCT_SPLIT", split[j], 1);
				setenv("MCT_GZSLOT", "16", 1);
				readf(path, MCT_UNIT_AUTO, &r);
				unsetenv("MCT_SPLIT");
				unsetenv("MCT_GZSLOT");
				snprintf(what, sizeof(what), "gzip in blocks "
				    "of %s, times converted as framed (%s)",
				    split[j], i ? "us" : "ns after all");
				t_read(what, &r, out[i], 0, NULL);
				rd_free(&r);
			}
	}

	/* string ts and dur (rocmProfileData) */
	p = TFILE("str.json", "{\"traceEvents\":[{},{\"ts\":\"123\",\"dur\":\"4\","
	    "\"ph\":\"X\"},{\"ts\":\"5.5\",\"ph\":\"X\"}]}");
	readf(p, MCT_UNIT_AUTO, &r);
	t_read("string ts and dur become numbers", &r, "{}\n{\"ts\":123000,"
	    "\"dur\":4000,\"ph\":\"X\"}\n{\"ts\":5500,\"ph\":\"X\"}\n", 0, NULL);
	ok(r.h.origin == 5500, "reader: the origin from string ts");
	rd_free(&r);

	/* exact decimal conversion of big µs values */
	p = TFILE("big.json", "[{\"ts\":1712195495519689.047,\"dur\":0.0005},"
	    "{\"ts\":1712195495519689.0475,\"dur\":-0.0015}]");
	readf(p, MCT_UNIT_AUTO, &r);
	t_read("big µs values to exact ns, rounded half away from zero", &r,
	    "{\"ts\":1712195495519689047,\"dur\":1}\n"
	    "{\"ts\":1712195495519689048,\"dur\":-2}\n", 0, NULL);
	ok(r.h.origin == 1712195495519689047LL, "reader: an origin beyond 2^53 "
	    "is exact");
	rd_free(&r);

	/* a syntax error: the event is dropped, reading resumes */
	p = TFILE("err.json", "[{\"ts\":1},\n{\"ts\":2 x},\n{\"ts\":3}]\n");
	readf(p, MCT_UNIT_AUTO, &r);
	t_read("a syntax error drops one event", &r, "{\"ts\":1000}\n"
	    "{\"ts\":3000}\n", 1, ":19: expected ',' or '}'; the event at "
	    "offset 11 is dropped");
	rd_free(&r);
	p = TFILE("err2.json", "[{\"ts\":1},{\"ts\":2,\"a\":[1 2]},{\"ts\":3},"
	    "{\"ts\":4}]");
	readf(p, MCT_UNIT_AUTO, &r);
	t_read("resync after \"},\" on one line", &r, "{\"ts\":1000}\n"
	    "{\"ts\":3000}\n{\"ts\":4000}\n", 1, "expected ',' or ']'");
	rd_free(&r);

	/* repairs keep the event */
	p = TFILE("fix.json", "[{\"name\":\"a\\qb\",\"ts\":1},{\"n\":NaN,\"ts\":2,}]");
	readf(p, MCT_UNIT_AUTO, &r);
	t_read("repairs keep the event", &r, "{\"name\":\"a\\\\qb\",\"ts\":1000}\n"
	    "{\"n\":null,\"ts\":2000}\n", 1, "invalid escape kept as a backslash");
	ok(strstr(r.err.p, "NaN or Infinity written as null") &&
	    strstr(r.err.p, "trailing comma dropped"), "reader: every kind of "
	    "repair is reported");
	rd_free(&r);

	/* A non-object element is skipped even with a trailing comma inside. */
	p = TFILE("nonobj2.json", "[[1,],{\"ts\":1}]");
	readf(p, MCT_UNIT_AUTO, &r);
	ok(events_are(&r, "{\"ts\":1000}\n") && r.status == 1 &&
	    strstr(r.err.p, "not an event"), "reader: [[1,],{\"ts\":1}] keeps the event (got %d "
	    "events)", r.nev);
	rd_free(&r);

	/* not events */
	p = TFILE("nonobj.json", "[1,{\"ts\":1},\"x\"]");
	readf(p, MCT_UNIT_AUTO, &r);
	t_read("array elements that are not objects are skipped", &r,
	    "{\"ts\":1000}\n", 1, ":1: not an event (not a JSON object); skipped");
	rd_free(&r);
	p = TFILE("nottrace.json", "hello\n");
	readf(p, MCT_UNIT_AUTO, &r);
	t_read("not a trace: a usage error, not damage", &r, "", 2,
	    ":0: not a trace: expected '{' or '[', found 'h'");
	rd_free(&r);
	p = TFILE("empty.json", "");
	readf(p, MCT_UNIT_AUTO, &r);
	t_read("an empty file: a warning", &r, "", 0,
	    ": empty input: no events");
	ok(!r.h.has_origin && strcmp(r.h.why, "no events") == 0,
	    "reader: an empty file has no origin, \"no events\"");
	rd_free(&r);
	p = TFILE("bom.json", "\xef\xbb\xbf[{\"ts\":1}]");
	readf(p, MCT_UNIT_AUTO, &r);
	t_read("a UTF-8 BOM is skipped", &r, "{\"ts\":1000}\n", 0, NULL);
	rd_free(&r);
	p = TFILE("crlf.json", "{\"ts\":1}\r\n{\"ts\":2}\r\n");
	readf(p, MCT_UNIT_AUTO, &r);
	t_read("NDJSON with CRLF", &r, "{\"ts\":1000}\n{\"ts\":2000}\n", 0, NULL);
	rd_free(&r);

	/* unreadable operands */
	snprintf(path, sizeof(path), "%s/nope.json", tmpdir);
	readf(path, MCT_UNIT_AUTO, &r);
	t_read("a missing file", &r, "", 2, "nope.json: No such file or directory");
	rd_free(&r);
	readf(tmpdir, MCT_UNIT_AUTO, &r);
	t_read("a directory", &r, "", 2, ": is a directory");
	rd_free(&r);

	/* an mct stream is read directly */
	p = TFILE("stream.ndjson", "{\"name\":\"mct_header\",\"ph\":\"M\",\"args\":"
	    "{\"version\":1,\"unit\":\"us\",\"unit_from\":\"given by --unit\","
	    "\"origin\":5,\"form\":\"array\",\"top_before\":0,\"top\":{},"
	    "\"sources\":[\"x\"]}}\n{\"ts\":5,\"ph\":\"X\"}\n\n{\"ts\":7,\"ph\":"
	    "\"X\"}\n");
	readf(p, MCT_UNIT_AUTO, &r);
	t_read("a stream: events as they are", &r, "{\"ts\":5,\"ph\":\"X\"}\n"
	    "{\"ts\":7,\"ph\":\"X\"}\n", 0, NULL);
	ok(r.h.unit == MCT_UNIT_US && r.h.has_origin && r.h.origin == 5 &&
	    r.h.form == 'a' && strcmp(r.h.why, "given by --unit") == 0 &&
	    r.line && strncmp(r.line, "{\"name\":\"mct_header\"", 20) == 0 &&
	    strchr(r.line, '\n') == NULL, "reader: a stream's own header");
	rd_free(&r);
	/* (stream lines are checked for structure only, and not repaired) */
	p = TFILE("stream2.ndjson", "{\"name\":\"mct_header\",\"ph\":\"M\",\"args\":"
	    "{\"version\":1,\"unit\":\"ns\",\"origin\":1}}\n{\"ts\":1,\n"
	    "{\"ts\":2}\n{\"ts\":3} x\n[1]\n{\"ts\":5,\"ph\":\"X\",}\n{\"ts\":6}");
	readf(p, MCT_UNIT_AUTO, &r);
	t_read("a stream's damaged lines are skipped", &r,
	    "{\"ts\":2}\n{\"ts\":6}\n", 1,
	    ":2: not a complete JSON object; line skipped");
	ok(strstr(r.err.p, ":4: not a complete JSON object; line skipped") &&
	    strstr(r.err.p, ":5: not a complete JSON object; line skipped") &&
	    strstr(r.err.p, ":6: not a complete JSON object; line skipped"),
	    "reader: stream messages name the line");
	rd_free(&r);

	/* two operands: one header, the smallest origin */
	{
		const char *argv[3];

		argv[0] = TFILE("two1.json", "[{\"ts\":5.5}]");
		argv[1] = TFILE("two2.json", "[{\"ts\":2}]");
		argv[2] = NULL;
		readv(2, argv, MCT_UNIT_AUTO, &r);
		t_read("two operands, in order", &r, "{\"ts\":5500,\"rank\":0}\n{\"ts\":2000,\"rank\":1}\n",
		    0, NULL);
		ok(r.h.origin == 2000 && r.line && strstr(r.line, "\"sources\":["),
		    "reader: two operands: the smallest origin (got %" PRId64 ")",
		    r.h.origin);
		rd_free(&r);
	}

	/* big input: events across the 1 MB read buffer */
	{
		struct mct_buf big = { 0 };
		int i, nbad = 0;
		char line[128];

		mct_buf_adds(&big, "{\"traceEvents\":[\n");
		for (i = 0; i < 30000; i++) {
			snprintf(line, sizeof(line), "%s{\"name\":\"kernel %d\",\"ph\":"
			    "\"X\",\"ts\":%d.%03d,\"dur\":1}", i ? ",\n" : "", i, i, i % 1000);
			mct_buf_adds(&big, line);
		}
		mct_buf_adds(&big, "\n]}\n");
		p = tfile("big2.json", big.p, big.len);
		readf(p, MCT_UNIT_AUTO, &r);
		for (q = r.events.p, i = 0; q && i < r.nev; i++) {
			const char *tsp = strstr(q, "\"ts\":");
			long long ts = tsp ? strtoll(tsp + 5, NULL, 10) : -1;

			snprintf(line, sizeof(line), "{\"name\":\"kernel %d\",", i);
			if (strncmp(q, line, strlen(line)) != 0 ||
			    ts != (long long)i * 1000 + i % 1000)
				nbad++;
			q = strchr(q, '\n');
			q = q ? q + 1 : NULL;
		}
		ok(r.nev == 30000 && nbad == 0 && r.status == 0 && r.err.len == 0,
		    "reader: 30000 events (%zu bytes) across buffer refills (%d "
		    "events, %d wrong)", big.len, r.nev, nbad);
		rd_free(&r);
		mct_buf_free(&big);
	}

	/* A string ts that is not a JSON number does not become one. */
	p = TFILE("badts.json", "[{\"ts\":\"+5\",\"ph\":\"X\"},{\"ts\":\".5\"},"
	    "{\"ts\":1}]");
	readf(p, MCT_UNIT_AUTO, &r);
	t_read("\"ts\":\"+5\" and \"ts\":\".5\" stay strings", &r,
	    "{\"ts\":\"+5\",\"ph\":\"X\"}\n{\"ts\":\".5\"}\n{\"ts\":1000}\n", 0,
	    NULL);
	ok(r.h.origin == 1000, "reader: strings that are not numbers give no "
	    "origin (got %" PRId64 ")", r.h.origin);
	rd_free(&r);
	/* An exponent in an ns source is rewritten as an integer. */
	p = TFILE("expts.json", "{\"ts\":1e3,\"dur\":\"25E0\",\"args\":"
	    "{\"co_id\":1}}\n{\"ts\":1500}\n");
	readf(p, MCT_UNIT_AUTO, &r);
	t_read("an exponent in an ns source becomes an integer", &r,
	    "{\"ts\":1000,\"dur\":25,\"args\":{\"co_id\":1}}\n{\"ts\":1500}\n",
	    0, NULL);
	rd_free(&r);

}

/* Remove the temporary directory and what is in it. */
static void
rm_tmpdir(void)
{
	char path[600];
	struct dirent *d;
	DIR *dp;

	if ((dp = opendir(tmpdir)) != NULL) {
		while ((d = readdir(dp)) != NULL) {
			if (strcmp(d->d_name, ".") == 0 || strcmp(d->d_name, "..") == 0)
				continue;
			snprintf(path, sizeof(path), "%s/%s", tmpdir, d->d_name);
			unlink(path);
		}
		closedir(dp);
	}
	if (rmdir(tmpdir) != 0)
		diag("could not remove %s: %s", tmpdir, strerror(errno));
}

/* ------------------------------------------------------------------ */
/* input.c: reading a plain file again, and in parts */

/* Read all of a source into buf (at most cap - 1 bytes, NUL-terminated). */
static size_t
src_all(struct mct_src *s, char *buf, size_t cap)
{
	size_t n = 0;
	ssize_t r;

	while (n + 1 < cap && (r = mct_src_read(s, buf + n, 3)) > 0)
		n += (size_t)r;	/* three bytes a read: limits are exact */
	buf[n] = '\0';
	return n;
}

/*
 * mct_src_swap() of gzip: whole buffers of the inflating thread traded,
 * a read that starts inside one ends where it does, and the bytes are
 * all there in order, as mct_src_read() gives them.
 */
static void
test_input_swap(void)
{
	enum { SLOTSZ = 4096, N = 300000 };
	char *text = mct_xmalloc(N + 1), *buf, *was, path[512];
	struct mct_src *s;
	size_t got = 0, i;
	ssize_t n;
	int traded = 0, short_ok = 1, same = 1;

	for (i = 0; i < N; i++)
		text[i] = (char)('a' + (i * 7 + i / 1000) % 26);
	text[N] = '\0';
	snprintf(path, sizeof(path), "%s/swap.gz", tmpdir);
	write_gz(path, "wb", text);
	setenv("MCT_GZSLOT", "4096", 1);
	s = mct_src_open(path);
	unsetenv("MCT_GZSLOT");
	buf = mct_src_buf(SLOTSZ);
	/* three bytes read: the next swap ends where the buffer does */
	n = mct_src_read(s, buf, 3);
	same = n == 3 && memcmp(buf, text, 3) == 0;
	got = 3;
	for (was = buf; (n = mct_src_swap(s, &buf, SLOTSZ)) > 0; was = buf) {
		if (got < SLOTSZ)
			short_ok = got + (size_t)n == SLOTSZ;
		traded += buf != was;
		if (memcmp(buf, text + got, (size_t)n) != 0)
			same = 0;
		got += (size_t)n;
		/* its room is there to write in (ASan says if not) */
		memset(buf - MCT_SRC_BEFORE, 0, MCT_SRC_BEFORE);
		memset(buf + SLOTSZ, 0, MCT_SRC_AFTER);
	}
	ok(n == 0 && got == N && same, "input: gzip read by swaps: every "
	    "byte in order, to the end");
	ok(short_ok, "input: a swap inside a buffer ends where it does");
	ok(traded == (N + SLOTSZ - 1) / SLOTSZ - 1, "input: every buffer but "
	    "the first is traded, not copied (%d)", traded);
	mct_src_buf_free(buf);
	ok(mct_src_close(s) == 0, "input: closed with its traded buffers");
	free(text);
}

static void
test_input(void)
{
	const char *p, *gz;
	struct mct_src *s, *c;
	char buf[256];

	p = TFILE("in.txt", "0123456789abcdefghij");
	gz = tfile("in.gz", "\x1f\x8b", 2);
	s = mct_src_open(p);
	ok(s != NULL && mct_src_rewindable(s), "input: a plain file can be "
	    "read again");
	src_all(s, buf, sizeof(buf));
	ok(strcmp(buf, "0123456789abcdefghij") == 0 && mct_src_pos(s) == 20,
	    "input: read to the end");
	mct_src_rewind(s, 12);
	src_all(s, buf, sizeof(buf));
	ok(strcmp(buf, "0123456789ab") == 0 && mct_src_pos(s) == 12,
	    "input: rewound, it gives the first n bytes, no more");
	c = mct_src_clone(s, 5, 15);
	src_all(c, buf, sizeof(buf));
	ok(c != NULL && strcmp(buf, "56789abcde") == 0 && mct_src_pos(c) == 15,
	    "input: a clone reads from its offset to its limit");
	mct_src_close(c);
	c = mct_src_clone(s, 18, -1);
	src_all(c, buf, sizeof(buf));
	ok(c != NULL && strcmp(buf, "ij") == 0, "input: a clone without a "
	    "limit reads to the end");
	mct_src_close(c);
	mct_src_rewind(s, -1);
	src_all(s, buf, sizeof(buf));
	ok(strcmp(buf, "0123456789abcdefghij") == 0, "input: rewound again, "
	    "without a limit, all of it (the clones did not move it)");
	mct_src_close(s);
	s = mct_src_open(gz);
	ok(s != NULL && !mct_src_rewindable(s), "input: gzip is not read again");
	mct_src_close(s);
	test_input_swap();
}

/* ------------------------------------------------------------------ */
/* reader.c and input.c: the sources kept, errors as data, two readers */

/* Every operand's facts in the header; each event knows its operand. */
static void
test_sources(void)
{
	const char *argv[3];
	struct mct_opts o = { .unit = MCT_UNIT_AUTO };
	struct mct_reader *r;
	struct mct_event *ev;
	const struct mct_header *h;
	const struct mct_source *s;
	int n[2] = { 0, 0 }, other = 0, order = 1, last = 0;

	argv[0] = TFILE("src-a.json", "{\"otherData\":{\"v\":1},\"traceEvents\":[\n"
	    "{\"name\":\"a\",\"ph\":\"X\",\"ts\":1.5,\"dur\":2},\n"
	    "{\"name\":\"b\",\"ph\":\"X\",\"ts\":0.5}\n],\"k\":2}\n");
	argv[1] = TFILE("src-b.json", "{\"ts\":100,\"args\":{\"co_id\":1}}\n"
	    "{\"ts\":150,\"ph\":\"X\"}\n{\"ts\":170,\"ph\":\"X\"}\n");
	argv[2] = NULL;
	r = mct_open(2, (char **)argv, &o);
	h = mct_header(r);
	ok(h->nsrc == 2 && h->src != NULL, "sources: two operands, two sources");
	s = &h->src[0];
	ok(h->nsrc == 2 && strcmp(s->path, argv[0]) == 0 &&
	    strcmp(s->name, argv[0]) == 0 && s->ok && !s->stream &&
	    s->unit == MCT_UNIT_US && strcmp(s->why, "a ts or dur has a "
	    "fraction") == 0 && s->has_origin && s->origin == 500 &&
	    s->form == 'o' && s->top && strcmp(s->top, "\"otherData\":{\"v\":1},"
	    "\"k\":2") == 0 && s->ntop_before == 1 && !s->sorted &&
	    s->nevents == 2 && !s->damaged,
	    "sources: the first operand's facts (object, us, top-level keys)");
	s = &h->src[1];
	ok(h->nsrc == 2 && strcmp(s->path, argv[1]) == 0 && s->ok &&
	    s->unit == MCT_UNIT_NS && strcmp(s->why, "events carry args.co_id "
	    "(mcTracer)") == 0 && s->has_origin && s->origin == 100 &&
	    s->form == 'n' && s->top == NULL && s->ntop_before == 0 &&
	    s->sorted && s->nevents == 3,
	    "sources: the second operand's facts (NDJSON, ns, no keys)");
	ok(h->has_origin && h->origin == 100 && h->unit == MCT_UNIT_US &&
	    h->form == 'o' && h->top && strcmp(h->top, "\"otherData\":{\"v\":1},"
	    "\"k\":2") == 0 && !h->sorted && h->nread == 2,
	    "sources: the header's own fields are as before (the first's)");
	while (mct_next(r, &ev)) {
		if (ev->source == 0 || ev->source == 1)
			n[ev->source]++;
		else
			other++;
		if (ev->source < last)
			order = 0;
		last = ev->source;
		if (ev->source >= 0 && ev->source < h->nsrc &&
		    strcmp(ev->file, h->src[ev->source].name) != 0)
			other++;
	}
	ok(n[0] == 2 && n[1] == 3 && other == 0 && order,
	    "sources: each event knows its operand (ev->source, ev->file)");
	ok(mct_close(r) == 0, "sources: status 0");

	/* an mct stream's facts come from its header line */
	argv[0] = TFILE("src-s.nd", "{\"name\":\"mct_header\",\"ph\":\"M\","
	    "\"args\":{\"version\":1,\"unit\":\"ms\",\"unit_from\":\"given\","
	    "\"origin\":7,\"form\":\"array\",\"sorted\":true,\"top_before\":0,"
	    "\"top\":{\"x\":1},\"sources\":[\"t.json\"]}}\n{\"ts\":7}\n");
	argv[1] = "/nonexistent/mct-unit";
	fflush(stderr);
	{
		int saved = dup(2), fd = open("/dev/null", O_WRONLY);

		dup2(fd, 2);
		r = mct_open(2, (char **)argv, &o);
		fflush(stderr);
		dup2(saved, 2);
		close(saved);
		close(fd);
	}
	h = mct_header(r);
	s = &h->src[0];
	ok(h->nsrc == 2 && s->ok && s->stream && s->unit == MCT_UNIT_MS &&
	    strcmp(s->why, "given") == 0 && s->has_origin && s->origin == 7 &&
	    s->form == 'a' && s->sorted && s->top && strcmp(s->top, "\"x\":1") == 0,
	    "sources: a stream operand's facts from its header");
	ok(h->nsrc == 2 && !h->src[1].ok && strcmp(h->src[1].path, argv[1]) == 0,
	    "sources: an operand that cannot be read is there, not ok");
	ok(mct_close(r) == MCT_EXIT_USAGE, "sources: status 2");
}

static void
set_text(struct mct_event *e, const char *s)
{
	mct_event_set(e, s, strlen(s));
}

/* rank.c: the rank of each source, lines with ranks, one trace of ranks */
static void
test_ranks(void)
{
	const char *argv[3];
	struct mct_opts o = { .unit = MCT_UNIT_AUTO, .rank = MCT_RANK_RULES };
	struct mct_reader *rr;
	struct mct_event *ev, e;
	struct mct_field f;
	struct mct_val v;
	struct mct_buf b = { 0 };
	struct mct_wrap *w;
	struct rd r;
	int64_t n = -1;
	int good = 1, nev = 0;

	ok(mct_rank_in_name("d/job.rank-3.json", &n) == 0 && n == 3 &&
	    mct_rank_in_name("x_rank_12.json.gz", &n) == 0 && n == 12 &&
	    mct_rank_in_name("RANK7", &n) == 0 && n == 7 &&
	    mct_rank_in_name("ranks.json", &n) != 0 &&
	    mct_rank_in_name("rank2/t.json", &n) != 0,
	    "ranks: the number after rank in a file name, not a folder's");
	ok(mct_rank_in_top("\"a\":1,\"distributedInfo\":{\"backend\":\"nccl\","
	    "\"rank\":4,\"world_size\":8}", &n) == 0 && n == 4 &&
	    mct_rank_in_top("\"distributedInfo\":{\"rank\":\"4\"}", &n) != 0 &&
	    mct_rank_in_top(NULL, &n) != 0,
	    "ranks: distributedInfo.rank of the top-level keys");

	argv[0] = TFILE("r-a.json", "{\"distributedInfo\":{\"rank\":1},"
	    "\"traceEvents\":[{\"ts\":3},{}]}");
	argv[1] = TFILE("rank_0.json", "[{\"ts\":1,\"name\":\"x\"}]");
	argv[2] = NULL;
	readv(2, argv, MCT_UNIT_AUTO, &r);
	t_read("ranks: two operands, by distributedInfo and by file name", &r,
	    "{\"ts\":3000,\"rank\":1}\n{\"rank\":1}\n"
	    "{\"ts\":1000,\"name\":\"x\",\"rank\":0}\n", 0, NULL);
	ok(r.line && strstr(r.line, "\"ranks\":[{\"path\":") &&
	    strstr(r.line, "\"rank\":1,\"rank_from\":\"distributedInfo\"") &&
	    strstr(r.line, "\"rank\":0,\"rank_from\":\"file name\""),
	    "ranks: the header lists each source's rank and rule");
	rd_free(&r);

	argv[1] = TFILE("r-b.json", "{\"distributedInfo\":{\"rank\":1},"
	    "\"traceEvents\":[{\"ts\":5}]}");
	readv(2, argv, MCT_UNIT_AUTO, &r);
	t_read("ranks: two sources of one rank: nothing read, status 2", &r,
	    "", 2, "r-a.json and ");
	rd_free(&r);

	/* one operand with --rank=auto: the field rank from the source */
	argv[0] = TFILE("rank3.json", "[{\"ts\":1}]");
	mct_field_parse("rank", &f);
	rr = mct_open(1, (char **)argv, &o);
	while (mct_next(rr, &ev)) {
		nev++;
		good = good && mct_get(ev, &f, &v) == 0 &&
		    v.len == 1 && v.p[0] == '3' && ev->json[ev->len - 2] == '3';
		mct_event_init(&e, "{\"ts\":1}", 8, ev->hdr);
		good = good && mct_get(&e, &f, &v) == 0 && v.p[0] == '3';
		mct_event_free(&e);
	}
	ok(mct_close(rr) == 0 && nev == 1 && good,
	    "ranks: --rank=auto on one operand; the field rank of an event "
	    "without the key is its source's");

	mct_event_init(&e, "{\"ts\":10,\"a\":1}", 15, NULL);
	ok(mct_rank_line(&e, 2, -4, &b) == 0 &&
	    strcmp(b.p, "{\"ts\":6,\"a\":1,\"rank\":2}\n") == 0,
	    "ranks: a line shifted and ranked (%s)", b.p);
	set_text(&e, "{}");
	ok(mct_rank_line(&e, 0, 7, &b) == 0 && strcmp(b.p, "{\"rank\":0}\n") == 0,
	    "ranks: {} ranked");
	/* no shift: no index; whether a comma goes before rank is seen */
	set_text(&e, "{ \t}");
	ok(mct_rank_line(&e, 3, 0, &b) == 0 &&
	    strcmp(b.p, "{ \t\"rank\":3}\n") == 0, "ranks: { } ranked, no shift");
	set_text(&e, "{\"a\":{}}");
	ok(mct_rank_line(&e, 3, 0, &b) == 0 && !e.indexed &&
	    strcmp(b.p, "{\"a\":{},\"rank\":3}\n") == 0,
	    "ranks: a line ranked, no shift, not indexed (%s)", b.p);
	set_text(&e, "[1]");
	ok(mct_rank_line(&e, 0, 0, &b) != 0, "ranks: not an object: left");

	w = mct_wrap_new();
	set_text(&e, "{\"ph\":\"s\",\"pid\":12,\"id\":3,\"rank\":1}");
	ok(mct_wrap_event(w, &e, &b) == 1 && strncmp(b.p, "{\"ph\":\"s\","
	    "\"pid\":10000012,\"id\":1000000000003,\"rank\":1}", b.len) == 0,
	    "wrap: a rank's pid and flow id its own (%.*s)", (int)b.len, b.p);
	set_text(&e, "{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":\"p\","
	    "\"args\":{\"name\":\"gpu\"},\"rank\":2}");
	ok(mct_wrap_event(w, &e, &b) == 1 && strncmp(b.p, "{\"ph\":\"M\","
	    "\"name\":\"process_name\",\"pid\":\"rank 2 p\",\"args\":{\"name\":"
	    "\"rank 2 \xc2\xb7 gpu\"},\"rank\":2}", b.len) == 0,
	    "wrap: a process name says its rank (%.*s)", (int)b.len, b.p);
	set_text(&e, "{\"ph\":\"X\"}");
	ok(mct_wrap_event(w, &e, &b) == 0, "wrap: an event with no rank: as it is");
	set_text(&e, "{\"ph\":\"M\",\"name\":\"process_sort_index\",\"pid\":7,"
	    "\"args\":{\"sort_index\":536870912},\"rank\":1}");
	ok(mct_wrap_event(w, &e, &b) == -1, "wrap: a sort index is kept for the end");
	b.len = 0;
	mct_wrap_end(w, &b);
	mct_buf_addc(&b, '\0');
	ok(strstr(b.p, "\"pid\":10000012,\"args\":{\"name\":\"rank 1 \xc2\xb7 "
	    "pid 12\"}") && strstr(b.p, "\"pid\":10000007,\"args\":{\"sort_index\":"
	    "10000000}") && strstr(b.p, "\"pid\":10000012,\"args\":{\"sort_index\":"
	    "10000001}") && strstr(b.p, "\"pid\":\"rank 2 p\",\"args\":"
	    "{\"sort_index\":20000000}") && !strstr(b.p, "rank 2 \xc2\xb7 pid"),
	    "wrap: names for the processes that had none, sort indexes by rank, "
	    "then by their own (%s)", b.p);
	mct_wrap_free(w);
	mct_event_free(&e);
	mct_field_free(&f);
	mct_buf_free(&b);

	/* merge.c: two operands, one unsorted, in one ts order */
	argv[0] = TFILE("m-a.json", "[{\"ph\":\"M\",\"name\":\"a0\"},"
	    "{\"ts\":5,\"name\":\"a1\"},{\"ts\":1,\"name\":\"a2\"},"
	    "{\"ph\":\"M\",\"name\":\"a3\"},{\"ts\":3,\"name\":\"a4\"}]");
	argv[1] = TFILE("m-b.json", "[{\"ts\":1,\"name\":\"b0\"},"
	    "{\"ts\":4,\"name\":\"b1\"},{\"name\":\"b2\"}]");
	{
		struct mct_opts mo = { .unit = MCT_UNIT_AUTO, .merged = 1 };
		struct mct_merge *m;
		struct mct_buf names = { 0 };

		rr = mct_open(2, (char **)argv, &mo);
		m = mct_merge_open(rr);
		while (m != NULL && mct_merge_next(m, &ev)) {
			if (mct_get_key(ev, "name", &v) == 0)
				mct_buf_add(&names, v.p + 1, v.len - 2);
			mct_buf_addc(&names, ev->source == 0 ? ' ' : ';');
		}
		mct_buf_addc(&names, '\0');
		ok(m != NULL && mct_merge_close(m) == 0 &&
		    mct_header(rr)->sorted &&
		    strcmp(names.p, "a0 a2 a3 b0;a4 b1;b2;a1 ") == 0,
		    "merge: ts order, ties by rank, M events and events without "
		    "ts after the event before them (%s)", names.p);
		mct_close(rr);
		mct_buf_free(&names);
	}
	/*
	 * For a merge the reader hands on the framer's index of each event,
	 * kept when a rank is appended: it must be mct_index()'s of the line
	 * (in ns, ts need no rewriting).
	 * The operands read in turns (b is sorted, a is not).
	 */
	{
		struct mct_opts mo = { .unit = MCT_UNIT_NS, .merged = 1 };
		struct mct_kv *kv = NULL;
		int nkv = 0, cap = 0, got = 0, same = 1, turns = 0, i;
		int more[2] = { 1, 1 };

		rr = mct_open(2, (char **)argv, &mo);
		while (more[0] || more[1])
			for (i = 0; i < 2; i++) {
				if (!more[i] || !(more[i] = mct_next_in(rr, i, &ev)))
					continue;
				got++;
				turns += ev->source == i;
				same = same && ev->indexed &&
				    mct_index(ev->json, ev->len, &kv, &nkv, &cap) ==
				    ev->nkv && memcmp(kv, ev->kv, (size_t)nkv *
				    sizeof(*kv)) == 0 && ev->kv[nkv - 1].klen == 4;
			}
		ok(got == 8 && turns == 8 && same && mct_apart(rr, 0) &&
		    mct_apart(rr, 1) && !mct_apart(rr, 2),
		    "merge: operands read in turns, each event's index handed on "
		    "with its rank key (%d events)", got);
		mct_close(rr);
		free(kv);
	}
}

/* Stderr to a file while f runs; what was said in msg. */
static void
quietly(void (*f)(void *), void *arg, char *msg, size_t cap)
{
	FILE *ef = tmpfile();
	int saved;
	size_t n;

	fflush(stderr);
	saved = dup(2);
	if (getenv("MCT_UNIT_STDERR") == NULL)	/* to see them: set it */
		dup2(fileno(ef), 2);
	f(arg);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	rewind(ef);
	n = fread(msg, 1, cap - 1, ef);
	msg[n] = '\0';
	fclose(ef);
}

struct src_case {
	const char	*path;
	long long	 got, off;
	int		 failed, last;
	char		 msg[256];
	int		 again;		/* a second mct_src_error() had one */
};

static void
src_case_run(void *arg)
{
	struct src_case *c = arg;
	struct mct_src *s = mct_src_open(c->path);
	const char *e;
	char buf[64];
	long long off;
	ssize_t n;

	c->failed = mct_src_failed(s);
	c->got = 0;
	while ((n = mct_src_read(s, buf, sizeof(buf))) > 0)
		c->got += n;
	c->last = (int)n;
	e = mct_src_error(s, &c->off);
	snprintf(c->msg, sizeof(c->msg), "%s", e ? e : "");
	c->again = mct_src_error(s, &off) != NULL;
	mct_src_close(s);
}

/* input.c keeps its errors as data: message and offset, said by no one. */
static void
test_src_errors(void)
{
	struct src_case c = { 0 };
	char said[1024], path[512], gz[4096];
	const char *p;
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "%s/err.json.gz", tmpdir);
	write_gz(path, "wb", "[{\"ts\":1},{\"ts\":2},{\"ts\":3}]");
	f = fopen(path, "rb");
	n = fread(gz, 1, sizeof(gz), f);
	fclose(f);
	p = tfile("err-cut.json.gz", gz, n - 8);	/* no CRC, no length */
	c.path = p;
	quietly(src_case_run, &c, said, sizeof(said));
	ok(!c.failed && c.last == -1 && c.got == 28 &&
	    strcmp(c.msg, "gzip stream cut off") == 0 && said[0] == '\0',
	    "input: a cut gzip stream: -1, the error kept, nothing said");
	if (strcmp(c.msg, "gzip stream cut off") != 0 || said[0])
		diag("got '%s', said '%s'", c.msg, said);
	/* the offset is that of the plain bytes, as the reader says it */
	ok(c.off == 28 && !c.again,
	    "input: the error's offset (28), and it is taken once");
	memcpy(gz + n, "junk", 4);
	p = tfile("err-garbage.json.gz", gz, n + 4);
	c.path = p;
	quietly(src_case_run, &c, said, sizeof(said));
	ok(c.last == -1 && c.got == 28 &&
	    strcmp(c.msg, "garbage after the gzip data") == 0 && said[0] == '\0',
	    "input: garbage after the gzip data, kept as data");
	snprintf(path, sizeof(path), "%s/nope/none.json", tmpdir);
	c.path = path;
	quietly(src_case_run, &c, said, sizeof(said));
	ok(c.failed && c.last == -1 && c.got == 0 &&
	    strcmp(c.msg, strerror(ENOENT)) == 0 && said[0] == '\0',
	    "input: a file that cannot be opened: failed, why kept, nothing said");
	c.path = tmpdir;
	quietly(src_case_run, &c, said, sizeof(said));
	ok(c.failed && strcmp(c.msg, "is a directory") == 0 && said[0] == '\0',
	    "input: a directory: failed, 'is a directory' kept");
}

/* Events of a reader, one line each, up to max of them (0: all). */
static int
take(struct mct_reader *r, struct mct_buf *b, int max)
{
	struct mct_event *ev;
	int n = 0;

	while ((max == 0 || n < max) && mct_next(r, &ev)) {
		mct_buf_add(b, ev->json, ev->len);
		mct_buf_addc(b, ' ');
		mct_buf_addi(b, (int64_t)ev->where);
		mct_buf_addc(b, ' ');
		mct_buf_adds(b, ev->file);
		mct_buf_addc(b, '\n');
		n++;
	}
	return n;
}

static int
open_read(const char *path, int spool, struct mct_buf *b)
{
	const char *argv[] = { path, NULL };
	struct mct_opts o = { .unit = MCT_UNIT_AUTO };
	struct mct_reader *r;

	if (spool)
		setenv("MCT_SPOOL", "1", 1);
	r = mct_open(1, (char **)argv, &o);
	unsetenv("MCT_SPOOL");
	take(r, b, 0);
	return mct_close(r);
}

/* Two readers at once, their calls interleaved: each as if alone. */
static void
test_two_readers(void)
{
	struct mct_buf ta = { 0 }, tb = { 0 }, a1 = { 0 }, b1 = { 0 };
	struct mct_buf a2 = { 0 }, b2 = { 0 };
	const char *pa, *pb, *argv[2] = { NULL, NULL };
	struct mct_opts o = { .unit = MCT_UNIT_AUTO };
	struct mct_reader *ra, *rb;
	int i, na, nb, sa, sb, more;

	/* a: an indented Object form in us, b: NDJSON in ns, spooled */
	mct_buf_adds(&ta, "{\"traceEvents\": [\n");
	for (i = 0; i < 3000; i++) {
		char ev[128];

		snprintf(ev, sizeof(ev), "%s  {\"name\": \"a%d\", \"ph\": \"X\", "
		    "\"ts\": %d.5, \"dur\": %d}", i ? ",\n" : "", i, i * 3, i % 7);
		mct_buf_adds(&ta, ev);
	}
	mct_buf_adds(&ta, "\n], \"displayTimeUnit\": \"ns\"}\n");
	for (i = 0; i < 2000; i++) {
		char ev[128];

		snprintf(ev, sizeof(ev), "{\"name\":\"b%d\",\"ts\":%d,\"dur\":1,"
		    "\"args\":{\"co_id\":%d}}\n", i, 5000 - i, i);
		mct_buf_adds(&tb, ev);
	}
	pa = tfile("two-a.json", ta.p, ta.len);
	pb = tfile("two-b.json", tb.p, tb.len);
	sa = open_read(pa, 0, &a1);
	sb = open_read(pb, 1, &b1);
	argv[0] = pa;
	setenv("MCT_SPLIT", "16384", 1);	/* a framed by threads in pass 1 */
	ra = mct_open(1, (char **)argv, &o);
	unsetenv("MCT_SPLIT");
	argv[0] = pb;
	setenv("MCT_SPOOL", "1", 1);
	rb = mct_open(1, (char **)argv, &o);
	unsetenv("MCT_SPOOL");
	for (more = 1; more; ) {
		na = take(ra, &a2, 1);
		nb = take(rb, &b2, 3);
		more = na > 0 || nb > 0;
	}
	ok(a1.len > 0 && a1.len == a2.len && memcmp(a1.p, a2.p, a1.len) == 0 &&
	    b1.len > 0 && b1.len == b2.len && memcmp(b1.p, b2.p, b1.len) == 0,
	    "two readers: interleaved, each gives the events it gives alone");
	ok(mct_header(ra)->unit == MCT_UNIT_US &&
	    mct_header(rb)->unit == MCT_UNIT_NS &&
	    strcmp(mct_header(ra)->src[0].path, pa) == 0 &&
	    strcmp(mct_header(rb)->src[0].path, pb) == 0,
	    "two readers: each its own header and sources");
	ok(mct_close(ra) == sa && mct_close(rb) == sb && sa == 0 && sb == 0,
	    "two readers: the statuses of each alone");
	mct_buf_free(&ta);
	mct_buf_free(&tb);
	mct_buf_free(&a1);
	mct_buf_free(&b1);
	mct_buf_free(&a2);
	mct_buf_free(&b2);
}

/* ------------------------------------------------------------------ */
/* rules.c */

/* Call fn(arg) with stderr caught; its message in msg. */
struct call {
	int		(*fn)(const char *);
	const char	*arg;
	int		 rc;
};

static void
call_run(void *arg)
{
	struct call *c = arg;

	c->rc = c->fn(c->arg);
}

static int
caught(int (*fn)(const char *), const char *arg, char *msg, size_t cap)
{
	struct call c = { fn, arg, 0 };

	quietly(call_run, &c, msg, cap);
	return c.rc;
}

/* Load a rules file with stderr caught; its message in msg. */
static int
rules_load(const char *path, char *msg, size_t cap)
{
	return caught(mct_rules_load, path, msg, cap);
}

/* The category of a compact event under an empty header, or "(none)". */
static const char *
cat_of(const char *json)
{
	static struct mct_header h;
	struct mct_event ev = { 0 };
	static char out[128];
	const char *c;

	ev.json = json;
	ev.len = strlen(json);
	ev.file = "unit";
	ev.hdr = &h;
	ev.byline = 1;
	c = mct_category(&ev, &h);
	snprintf(out, sizeof(out), "%s", c ? c : "(none)");
	free(ev.kv);
	return out;
}

/*
 * mct_next_lines(): the whole lines of pass 2's chunks, for a tool that
 * writes events as they come.  Taken in turns with mct_next() (the first
 * event of a chunk; mct_next_lines() its rest, then a whole chunk), the
 * events are those of mct_next() alone, and the events' line numbers
 * (ev->where) count the lines handed out either way.
 */
static void
test_next_lines(void)
{
	struct mct_buf t = { 0 }, alone = { 0 }, mixed = { 0 };
	struct mct_opts o = { .unit = MCT_UNIT_AUTO };
	struct mct_reader *r;
	struct mct_event *ev;
	const char *argv[1], *text;
	size_t len;
	unsigned long long nlines;
	int i, pass, form, blocks, badwhere;

	for (form = 0; form < 2; form++) {
		/* indented in fractional us (compacted, converted); compact ns */
		t.len = 0;
		mct_buf_adds(&t, "[\n");
		for (i = 0; i < 3000; i++) {
			char e[160];

			snprintf(e, sizeof(e), form == 0 ? "%s  {\"name\": \"k%d\", "
			    "\"ph\": \"X\", \"ts\": %d.5, \"dur\": 2.25}" :
			    "%s{\"name\":\"k%d\",\"ph\":\"X\",\"ts\":%d,\"dur\":2,"
			    "\"args\":{\"co_id\":1}}", i ? ",\n" : "", i, 1000 + i);
			mct_buf_adds(&t, e);
		}
		mct_buf_adds(&t, "\n]\n");
		argv[0] = tfile("next-lines.json", t.p, t.len);
		alone.len = mixed.len = 0;
		setenv("MCT_SPLIT", "4096", 1);	/* pass 2 by threads, chunks */
		for (pass = 0; pass < 2; pass++) {
			r = mct_open(1, (char **)argv, &o);
			blocks = badwhere = 0;
			nlines = 0;
			for (;;) {
				/* the rest of a chunk, then a whole one */
				for (i = 0; pass == 1 && i < 2 &&
				    mct_next_lines(r, &text, &len); i++) {
					mct_buf_add(&mixed, text, len);
					for (; len > 0; len--)
						nlines += text[len - 1] == '\n';
					blocks++;
				}
				if (!mct_next(r, &ev))
					break;
				badwhere += ev->where != ++nlines;
				mct_buf_add(pass ? &mixed : &alone, ev->json, ev->len);
				mct_buf_addc(pass ? &mixed : &alone, '\n');
			}
			(void)mct_close(r);
		}
		unsetenv("MCT_SPLIT");
		ok(alone.len > 0 && alone.len == mixed.len && memcmp(alone.p,
		    mixed.p, alone.len) == 0 && blocks > 10 && badwhere == 0 &&
		    nlines == 3000, "mct_next_lines() in turns with mct_next(), "
		    "%s: the events of mct_next() alone, %d blocks, every line "
		    "counted (%d wrong, %llu lines)", form == 0 ? "indented us" :
		    "compact ns", blocks, badwhere, nlines);
	}
	mct_buf_free(&t);
	mct_buf_free(&alone);
	mct_buf_free(&mixed);
}

static void
test_rules(void)
{
	static const char a[] = "{\"name\":\"a\",\"ph\":\"X\",\"ts\":1,\"dur\":5}";
	static const char b[] = "{\"name\":\"b\",\"ph\":\"X\",\"ts\":1,\"dur\":2000}";
	static const char m[] = "{\"name\":\"a\",\"ph\":\"M\",\"ts\":0}";
	const char *p1, *p2, *bad, *cat;
	char msg[1024];
	int rc;

	p1 = TFILE("one.rules", "# first match wins\n"
	    "\n-\tph==M\nA\tname==a\nlong one\tdur>=1us\n");
	p2 = TFILE("two.rules", "B\tname==b\n");
	bad = TFILE("bad.rules", "A\tname==a\nB\tdur>>3\n");
	cat = TFILE("cat.rules", "A\tcategory==x\n");

	rc = rules_load(p1, msg, sizeof(msg));
	ok(rc == 0 && msg[0] == '\0', "rules: a file loads");
	ok(strcmp(cat_of(a), "\"A\"") == 0, "rules: the first rule that "
	    "matches gives the label");
	ok(strcmp(cat_of(b), "\"long one\"") == 0, "rules: a label with a "
	    "blank; a duration in a predicate");
	ok(strcmp(cat_of(m), "(none)") == 0, "rules: the label - gives no "
	    "category, before a later rule that matches");
	ok(strcmp(cat_of(a), "\"A\"") == 0, "rules: the cached label is the "
	    "same");

	rc = rules_load(p2, msg, sizeof(msg));
	ok(rc == 0 && strcmp(cat_of(b), "\"B\"") == 0 &&
	    strcmp(cat_of(a), "(none)") == 0, "rules: a second file replaces "
	    "the first (cached labels too)");

	rc = rules_load(bad, msg, sizeof(msg));
	ok(rc == -1 && strstr(msg, "bad.rules:2: ") != NULL, "rules: a bad "
	    "predicate is reported with its file and line (%s)", msg);
	rc = rules_load(p2, msg, sizeof(msg));
	ok(rc == 0 && strcmp(cat_of(b), "\"B\"") == 0 &&
	    strcmp(cat_of(a), "(none)") == 0, "rules: after a failed load, "
	    "nothing of it is left and a good file loads");

	rc = rules_load(cat, msg, sizeof(msg));
	ok(rc == -1 && strstr(msg, "cannot use the field category") != NULL,
	    "rules: a rule on category is refused (%s)", msg);
	rc = rules_load(p1, msg, sizeof(msg));
	ok(rc == 0 && strcmp(cat_of(a), "\"A\"") == 0, "rules: and the next "
	    "load works");

	rc = rules_load("/nonexistent/x.rules", msg, sizeof(msg));
	ok(rc == -1 && strstr(msg, "/nonexistent/x.rules") != NULL,
	    "rules: a missing file is named (%s)", msg);

	/* mct_rules_reset(): the next lookup loads $MCT_RULES again */
	rc = rules_load(p1, msg, sizeof(msg));
	mct_rules_reset();
	setenv("MCT_RULES", p2, 1);
	ok(rc == 0 && strcmp(cat_of(b), "\"B\"") == 0, "rules: after "
	    "mct_rules_reset() the next lookup loads $MCT_RULES");
	unsetenv("MCT_RULES");
	mct_rules_reset();
}

static int
need(const char *unused)
{
	(void)unused;
	return mct_rules_need();
}

static const char *
label_of(struct mct_event *ev, const struct mct_field *f, const char *json)
{
	static char out[128];
	struct mct_val v;

	mct_event_set(ev, json, strlen(json));
	if (mct_get(ev, f, &v) != 0)
		return "(none)";
	snprintf(out, sizeof(out), "%.*s", (int)v.len, v.p);
	return out;
}

/* Rules and the table of virtual fields. */
static void
test_rules_vfields(void)
{
	static const struct mct_header h = { .has_origin = 1, .origin = 1000 };
	const char *rel, *end, *p1;
	struct mct_field cat, endf;
	struct mct_expr *e;
	struct mct_event ev;
	mct_getter *saved;
	char msg[1024], err[256];
	int rc;

	p1 = TFILE("vf1.rules", "A\tname==a\n");
	rel = TFILE("rel.rules", "early\trel<10\nlate\trel>=10\n");
	end = TFILE("end.rules", "short\tend<10\nlong\tend>=10\n");
	mct_event_init(&ev, "{}", 2, &h);

	/* a field parsed before any rules are loaded works once they are */
	mct_rules_reset();
	mct_field_parse("category", &cat);
	rc = rules_load(p1, msg, sizeof(msg));
	ok(rc == 0 && strcmp(label_of(&ev, &cat, "{\"name\":\"a\"}"),
	    "\"A\"") == 0 && strcmp(label_of(&ev, &cat, "{\"name\":\"b\"}"),
	    "(none)") == 0, "rules: category parsed before the rules loaded "
	    "reads their label");

	/* a rule on a virtual field: a label per value, not one cached */
	rc = rules_load(rel, msg, sizeof(msg));
	ok(rc == 0 &&
	    strcmp(label_of(&ev, &cat, "{\"name\":\"k\",\"ts\":1005}"),
	    "\"early\"") == 0 &&
	    strcmp(label_of(&ev, &cat, "{\"name\":\"k\",\"ts\":1050}"),
	    "\"late\"") == 0 &&
	    strcmp(label_of(&ev, &cat, "{\"name\":\"k\",\"ts\":1005}"),
	    "\"early\"") == 0, "rules: a rule on rel caches a label per "
	    "value of rel");
	rc = rules_load(end, msg, sizeof(msg));
	mct_field_parse("end", &endf);
	saved = endf.vf->get;
	/* end's getter replaced: args.n, so ts and dur stay the same
	 * (end<10 is end < origin + 10, 1010) */
	mct_field_register("end", get_args_n);
	ok(rc == 0 &&
	    strcmp(label_of(&ev, &cat, "{\"ts\":1,\"args\":{\"n\":5}}"),
	    "\"short\"") == 0 &&
	    strcmp(label_of(&ev, &cat, "{\"ts\":1,\"args\":{\"n\":5000}}"),
	    "\"long\"") == 0 &&
	    strcmp(label_of(&ev, &cat, "{\"ts\":1,\"args\":{\"n\":5}}"),
	    "\"short\"") == 0, "rules: the cache keys a virtual field "
	    "through its getter");
	mct_field_register("end", saved);
	mct_field_free(&endf);

	/* which fields and expressions need the rules */
	e = mct_expr_parse("name==a || category==x", 0, err, sizeof(err));
	ok(mct_rules_fields(&cat, 1) && e && mct_rules_expr(e) &&
	    !mct_rules_expr(NULL), "rules: category and an expression on it "
	    "need the rules");
	mct_expr_free(e);
	e = mct_expr_parse("name==a && rel>1s", 0, err, sizeof(err));
	ok(e && !mct_rules_expr(e), "rules: an expression without category "
	    "does not");
	mct_expr_free(e);

	/* no exit: mct_rules_need() says why and returns -1, once */
	mct_rules_reset();
	setenv("MCT_RULES", "/nonexistent/z.rules", 1);
	rc = caught(need, NULL, msg, sizeof(msg));
	ok(rc == -1 && strstr(msg, "rules file /nonexistent/z.rules") != NULL,
	    "rules: mct_rules_need() returns -1 after the message (%s)", msg);
	rc = caught(need, NULL, msg, sizeof(msg));
	ok(rc == -1 && msg[0] == '\0' &&
	    strcmp(label_of(&ev, &cat, "{\"name\":\"a\"}"), "(none)") == 0,
	    "rules: then no second message, and no category");
	unsetenv("MCT_RULES");
	mct_rules_reset();
	mct_field_free(&cat);
	mct_event_free(&ev);
}

/* ------------------------------------------------------------------ */
/* table.c: the one hash map, interned strings */

struct hkey {
	uint64_t	code;		/* the hash bits a map keeps */
	uint32_t	i;
};

static int
cmp_hkey(const void *a, const void *b)
{
	const struct hkey *x = a, *y = b;

	return x->code < y->code ? -1 : x->code > y->code;
}

static uint64_t
hkey(const char *s)
{
	return mct_hash(s, strlen(s)) >> 32;
}

/*
 * Two keys whose entries and slots hold the same 32 bits of hash:
 * a pair found before (a search is slow under valgrind), else one
 * found again.
 */
static int
same_hash(char *a, char *b, size_t size)
{
	enum { N = 1 << 20 };
	struct hkey *k;
	uint32_t i;
	int found = 0;

	snprintf(a, size, "c4087866197");
	snprintf(b, size, "c2280561250");
	if (hkey(a) == hkey(b))
		return 1;
	k = malloc(N * sizeof(*k));

	/* numbers scrambled: FNV-1a's low bits of "c0".."cN" hardly collide */
	for (i = 0; i < N; i++) {
		snprintf(a, size, "c%u", i * 2654435761u);
		k[i].code = hkey(a);
		k[i].i = i;
	}
	qsort(k, N, sizeof(*k), cmp_hkey);
	for (i = 1; i < N && !found; i++)
		if (k[i].code == k[i - 1].code) {
			snprintf(a, size, "c%u", k[i - 1].i * 2654435761u);
			snprintf(b, size, "c%u", k[i].i * 2654435761u);
			found = 1;
		}
	free(k);
	return found;
}

static void
test_map(void)
{
	enum { N = 100000 };
	static const char nul[][3] = { "x\0y", "x\0z", "x\0\0" };
	struct mct_map m = { 0 };
	struct mct_mapent *e;
	char key[32], k2[32], big[600];
	size_t it, n;
	int isnew, i, bad, round;

	ok(mct_map_find(&m, "a", 1) == NULL, "map: an empty map finds nothing");
	e = mct_map_add(&m, "a", 1, &isnew);
	ok(isnew && e->val.i == 0 && e->len == 1 && strcmp(e->key, "a") == 0,
	    "map: a new key: value 0, the map's own copy");
	e->val.i = 42;
	e = mct_map_add(&m, "a", 1, &isnew);
	ok(!isnew && e->val.i == 42 && m.n == 1,
	    "map: the same key again is the same entry");
	ok(mct_map_find(&m, "a", 2) == NULL && mct_map_find(&m, "", 0) == NULL,
	    "map: a longer or empty key is another key");
	mct_map_add(&m, "", 0, NULL)->val.i = 7;
	ok(mct_map_find(&m, "", 0) != NULL && mct_map_find(&m, "", 0)->val.i == 7,
	    "map: the empty key is a key");
	mct_map_free(&m);

	/* keys with NUL bytes: all of their bytes count */
	for (i = 0; i < 3; i++)
		mct_map_add(&m, nul[i], 3, NULL)->val.i = i + 1;
	mct_map_add(&m, "x", 1, NULL)->val.i = 9;
	for (bad = 0, i = 0; i < 3; i++)
		bad += (e = mct_map_find(&m, nul[i], 3)) == NULL ||
		    e->val.i != i + 1 || memcmp(e->key, nul[i], 3) != 0;
	ok(bad == 0 && m.n == 4 && mct_map_find(&m, "x", 1)->val.i == 9 &&
	    mct_map_find(&m, "x\0", 2) == NULL,
	    "map: keys with NUL bytes are told apart by every byte");
	mct_map_free(&m);

	/* growth across many keys; a walk in the order keys came */
	for (i = 0; i < N; i++) {
		snprintf(key, sizeof(key), "k%d", i);
		e = mct_map_add(&m, key, strlen(key), &isnew);
		if (!isnew)
			break;
		e->val.i = i;
	}
	for (bad = 0, i = 0; i < N; i++) {
		snprintf(key, sizeof(key), "k%d", i);
		bad += (e = mct_map_find(&m, key, strlen(key))) == NULL ||
		    e->val.i != i;
	}
	ok(m.n == N && bad == 0, "map: %d keys, each found with its value "
	    "(%d wrong)", N, bad);
	for (it = 0, n = 0, bad = 0; (e = mct_map_next(&m, &it)) != NULL; n++)
		bad += e->val.i != (int64_t)n;
	ok(n == N && bad == 0, "map: a walk meets every key once, in the "
	    "order they came");

	/* removing during a walk; holes compacted later, order kept */
	for (it = 0; (e = mct_map_next(&m, &it)) != NULL;)
		if (e->val.i % 2)
			mct_map_del(&m, e);
	for (i = 0; i < N; i++) {
		snprintf(key, sizeof(key), "n%d", i);
		mct_map_add(&m, key, strlen(key), NULL)->val.i = N + i;
	}
	for (bad = 0, i = 0; i < N; i++) {
		snprintf(key, sizeof(key), "k%d", i);
		e = mct_map_find(&m, key, strlen(key));
		bad += i % 2 ? e != NULL : e == NULL || e->val.i != i;
	}
	ok(m.n == N / 2 + N && bad == 0, "map: removed keys are gone, the "
	    "others stay (%d wrong)", bad);
	for (it = 0, n = 0, bad = 0; (e = mct_map_next(&m, &it)) != NULL; n++)
		bad += e->val.i != (int64_t)(n < N / 2 ? 2 * n : n + N / 2);
	ok(n == N / 2 + N && bad == 0, "map: after removals the walk keeps "
	    "the order keys came");
	mct_map_free(&m);
	ok(m.n == 0 && mct_map_find(&m, "k0", 2) == NULL,
	    "map: freed, it is empty and usable");

	/* keys of every length to 600 bytes, removed and made again */
	memset(big, 'b', sizeof(big));
	for (round = 0; round < 3; round++) {
		for (i = 0; i < 600; i++) {
			big[0] = (char)('0' + round);
			e = mct_map_add(&m, big, (size_t)i, &isnew);
			e->val.i = i;
		}
		for (bad = 0, i = 0; i < 600; i++)
			bad += (e = mct_map_find(&m, big, (size_t)i)) == NULL ||
			    e->val.i != i || memcmp(e->key, big, (size_t)i) != 0 ||
			    e->key[i] != '\0';
		for (it = 0; (e = mct_map_next(&m, &it)) != NULL;)
			if (e->len % 3 != (size_t)round)
				mct_map_del(&m, e);
	}
	ok(bad == 0 && m.n == 200, "map: keys of every length to 600 "
	    "bytes, removed and made again (%d wrong)", bad);
	mct_map_free(&m);

	/* a record of the caller's beside each key */
	m.extra = 20;
	for (bad = 0, round = 0; round < 2; round++) {
		for (i = 0; i < 1000; i++) {
			snprintf(key, sizeof(key), "x%d", i);
			e = mct_map_add(&m, key, strlen(key), &isnew);
			bad += e->val.p == NULL || memcmp(e->val.p,
			    "\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0", 20) != 0;
			snprintf(e->val.p, 20, "rec %d", i);
		}
		for (it = 0; (e = mct_map_next(&m, &it)) != NULL;) {
			snprintf(k2, sizeof(k2), "rec %s", e->key + 1);
			bad += strcmp(e->val.p, k2) != 0;
			mct_map_del(&m, e);
		}
	}
	ok(bad == 0 && m.n == 0, "map: extra: a zeroed record beside each key, "
	    "kept with it, zeroed again when its room serves another");
	mct_map_free(&m);

	/* two keys whose hashes the slots cannot tell apart */
	if (!ok(same_hash(key, k2, sizeof(key)), "map: two keys with equal "
	    "hash bits found"))
		return;
	mct_map_add(&m, key, strlen(key), NULL)->val.i = 1;
	mct_map_add(&m, k2, strlen(k2), NULL)->val.i = 2;
	ok(m.n == 2 && mct_map_find(&m, key, strlen(key))->val.i == 1 &&
	    mct_map_find(&m, k2, strlen(k2))->val.i == 2,
	    "map: equal hashes (%s, %s): two keys, two values", key, k2);
	mct_map_del(&m, mct_map_find(&m, key, strlen(key)));
	ok(mct_map_find(&m, key, strlen(key)) == NULL &&
	    mct_map_find(&m, k2, strlen(k2))->val.i == 2,
	    "map: equal hashes: removing one leaves the other");
	mct_map_free(&m);
}

static void
test_intern(void)
{
	struct mct_strtab st = { 0 };
	char key[32];
	int32_t a, b, c, d;
	int i, bad;

	a = mct_intern(&st, "\"kernel\"", 8);
	b = mct_intern(&st, "\"memcpy\"", 8);
	c = mct_intern(&st, "\"kernel\"", 8);
	d = mct_intern(&st, "a\0b", 3);
	ok(a == 0 && b == 1 && c == a && d == 2 && st.n == 3,
	    "intern: the same text, the same index; new texts, the next index");
	ok(strcmp(st.str[a], "\"kernel\"") == 0 && strcmp(st.str[b],
	    "\"memcpy\"") == 0 && memcmp(st.str[d], "a\0b", 4) == 0,
	    "intern: str[] holds the texts, NUL-terminated");
	ok(mct_intern(&st, "a", 1) == 3 && mct_intern(&st, "a\0b", 3) == 2,
	    "intern: a text with a NUL byte is not its prefix");
	for (i = 0; i < 5000; i++) {
		snprintf(key, sizeof(key), "s%d", i);
		mct_intern(&st, key, strlen(key));
	}
	for (bad = 0, i = 0; i < 5000; i++) {
		snprintf(key, sizeof(key), "s%d", i);
		bad += mct_intern(&st, key, strlen(key)) != i + 4 ||
		    strcmp(st.str[i + 4], key) != 0;
	}
	ok(bad == 0 && st.n == 5004, "intern: 5000 more texts keep their "
	    "indexes as the table grows");
	mct_strtab_free(&st);
}

/* ------------------------------------------------------------------ */
/* group.c: the group table */

/* A table over dur and sum:args.b, keyed by name. */
static void
g_table(struct mct_gtab *t, struct mct_field *value, struct mct_agg *sum)
{
	memset(t, 0, sizeof(*t));
	mct_field_parse("dur", value);
	t->value = value;
	mct_agg_parse(t, "sum:args.b", sum);
}

static void
g_add(struct mct_gtab *t, const char *json)
{
	struct mct_event ev;
	struct mct_number x;
	struct mct_val v;
	int has;

	mct_event_init(&ev, json, strlen(json), NULL);
	has = mct_gtab_value(t, &ev, &x) == 0;
	if (mct_get_key(&ev, "name", &v) == 0)
		mct_gtab_add(t, &ev, v.p, v.len, has ? &x : NULL);
	else
		mct_gtab_add(t, &ev, NULL, 0, has ? &x : NULL);
	mct_event_free(&ev);
}

struct g_rows {
	struct mct_buf	 b;
	const struct mct_gtab *t;
	struct mct_agg	*sum;
};

static void
g_row(void *arg, struct mct_group *g, const char *label)
{
	struct g_rows *r = arg;
	struct mct_out out = { .fmt = MCT_O_TSV };
	struct mct_agg count = { .kind = MCT_A_COUNT };

	mct_buf_adds(&r->b, label ? label : g->key);
	mct_buf_addc(&r->b, '=');
	mct_agg_cell(r->t, g, &count, &out, &r->b);
	mct_buf_addc(&r->b, '/');
	mct_agg_cell(r->t, g, r->sum, &out, &r->b);
	mct_buf_addc(&r->b, ' ');
}

/* Two groups agree on count, values, extra sums and span. */
static int
g_same(const struct mct_gtab *ta, struct mct_group *a,
    const struct mct_gtab *tb, struct mct_group *b, struct mct_agg *sum)
{
	static const struct mct_agg aggs[] = { { .kind = MCT_A_TOTAL },
	    { .kind = MCT_A_MEDIAN }, { .kind = MCT_A_MEAN },
	    { .kind = MCT_A_MIN }, { .kind = MCT_A_MAX },
	    { .kind = MCT_A_SHARE }, { .kind = MCT_A_PCT, .qn = 90, .qd = 100 } };
	int i, na, nb, ia, ib;
	int64_t xa = 0, xb = 0;
	double da, db;

	if (a == NULL || b == NULL || a->count != b->count ||
	    a->val.n != b->val.n || a->span != b->span ||
	    a->first != b->first || a->last != b->last)
		return 0;
	for (i = 0; i < (int)(sizeof(aggs) / sizeof(aggs[0])) + 1; i++) {
		const struct mct_agg *g = i < 7 ? &aggs[i] : sum;

		da = mct_agg_value(ta, a, g, &na, &xa, &ia);
		db = mct_agg_value(tb, b, g, &nb, &xb, &ib);
		if (na != nb || ia != ib || (!na && (da != db || xa != xb)))
			return 0;
	}
	return 1;
}

static void
test_group(void)
{
	static const char *ev[] = {
		"{\"name\":\"a\",\"ts\":100,\"dur\":10,\"args\":{\"b\":1}}",
		"{\"name\":\"b\",\"ts\":50,\"dur\":7}",
		"{\"name\":\"a\",\"ts\":300,\"dur\":30,\"args\":{\"b\":\"2\"}}",
		"{\"name\":\"c\",\"ts\":10,\"dur\":1,\"args\":{\"b\":2.5}}",
		"{\"name\":\"a\",\"ts\":200,\"dur\":20}",
		"{\"ts\":5,\"dur\":1000}",
		"{\"name\":\"b\",\"ts\":400,\"args\":{\"b\":4}}",
		"{\"name\":\"c\",\"ts\":20,\"dur\":3}",
		"{\"name\":\"d\",\"dur\":5}",
	};
	enum { NEV = sizeof(ev) / sizeof(ev[0]) };
	struct mct_field va, vb, vc;
	struct mct_agg sa, sb, sc;
	struct mct_gtab a, b, c;
	struct mct_group *g, *h;
	struct mct_order by_count = { .by = -1, .agg = { .kind = MCT_A_COUNT } };
	struct mct_order by_key = { .by = 0 };
	struct g_rows rows = { { 0 }, NULL, NULL };
	struct mct_group *v[8];
	size_t i, k;
	int bad;

	g_table(&a, &va, &sa);
	g_table(&b, &vb, &sb);
	g_table(&c, &vc, &sc);
	for (i = 0; i < NEV; i++) {
		g_add(i < 4 ? &a : &b, ev[i]);
		g_add(&c, ev[i]);
	}
	g = mct_gtab_find(&c, "\"a\"", 3);
	ok(c.n == 4 && g != NULL && g->count == 3 && g->val.n == 3 &&
	    g->val.isum == 60 && g->first == 100 && g->last == 330 &&
	    g->x[0].n == 2 && g->x[0].isum == 3 && g->x[0].min == 1,
	    "group: add: count, values, extra field, span of a group");
	g = mct_gtab_find(&c, "\"b\"", 3);
	h = mct_gtab_find(&c, "\"d\"", 3);
	ok(g != NULL && g->count == 2 && g->val.n == 1 && g->last == 400 &&
	    h != NULL && !h->span && c.alltotal == 1076,
	    "group: add: an event without a value is counted, its value "
	    "missing; share's total has the ungrouped event's");
	ok(mct_gtab_find(&c, "\"e\"", 3) == NULL &&
	    mct_gtab_find(&c, "a", 1) == NULL, "group: find: no such key");
	g = mct_gtab_find(&c, "\"c\"", 3);
	ok(g != NULL && g->x[0].isfloat && g->x[0].dsum == 2.5,
	    "group: a fraction makes the extra field's figures doubles");

	mct_gtab_merge(&a, &b);
	for (bad = 0, i = 0; i < c.n; i++)
		bad += !g_same(&a, mct_gtab_find(&a, c.g[i].key, c.g[i].klen),
		    &c, &c.g[i], &sc);
	ok(a.n == c.n && bad == 0 && a.alltotal == c.alltotal &&
	    a.alltotalf == c.alltotalf, "group: merge: two tables merged equal "
	    "one table over all events (%d groups differ)", bad);

	/* sort */
	for (i = 0; i < c.n; i++)
		v[i] = &c.g[i];
	mct_gtab_sort(&c, v, c.n, &by_count);
	ok(strcmp(v[0]->key, "\"a\"") == 0 && strcmp(v[1]->key, "\"b\"") == 0 &&
	    strcmp(v[2]->key, "\"c\"") == 0 && strcmp(v[3]->key, "\"d\"") == 0,
	    "group: sort by count: largest first, equal counts by key");
	by_count.reverse = 1;
	mct_gtab_sort(&c, v, c.n, &by_count);
	ok(strcmp(v[0]->key, "\"d\"") == 0 && strcmp(v[3]->key, "\"a\"") == 0,
	    "group: sort reversed");
	mct_gtab_sort(&c, v, c.n, &by_key);
	for (bad = 0, k = 1; k < c.n; k++)
		bad += strcmp(v[k - 1]->key, v[k]->key) >= 0;
	ok(bad == 0, "group: sort by a key part: A to Z");

	/* the rows of a report: top 2, others, total */
	rows.t = &c;
	rows.sum = &sc;
	mct_gtab_report(&c, &by_key, 2, 1, g_row, &rows);
	ok(rows.b.p && strcmp(rows.b.p, "\"a\"=3/3 \"b\"=2/4 (others)=3/2.5 "
	    "(total)=8/9.5 ") == 0, "group: report: top rows, others, total (%s)",
	    rows.b.p ? rows.b.p : "");
	mct_buf_free(&rows.b);

	mct_gtab_free(&a);
	mct_gtab_free(&b);
	mct_gtab_free(&c);
	ok(c.n == 0 && mct_gtab_find(&c, "\"a\"", 3) == NULL,
	    "group: freed, the table is empty");
	free(sa.text);
	free(sb.text);
	free(sc.text);
	mct_field_free(&va);
	mct_field_free(&vb);
	mct_field_free(&vc);
}

/*
 * The reader tests, in a child process: a crash in lib/ (or a sanitizer
 * stopping it) is then one failed test, not the end of the TAP stream.
 */
static void
run_reader_tests(void)
{
	const char *tmp = getenv("TMPDIR");
	int status;
	pid_t pid;

	snprintf(tmpdir, sizeof(tmpdir), "%s/mct-unit.XXXXXX",
	    tmp && *tmp ? tmp : "/tmp");
	if (mkdtemp(tmpdir) == NULL) {
		diag("mkdtemp %s: %s", tmpdir, strerror(errno));
		exit(99);
	}
	fflush(stdout);
	fflush(stderr);
	if ((pid = fork()) == -1) {
		test_pairbe();
		test_bigtop();
		test_reader();
		test_input();
		test_sources();
		test_ranks();
		test_src_errors();
		test_two_readers();
		test_next_lines();
		test_rules();
		test_rules_vfields();
		rm_tmpdir();
		return;
	}
	if (pid == 0) {
		test_pairbe();
		test_bigtop();
		test_reader();
		test_input();
		test_sources();
		test_ranks();
		test_src_errors();
		test_two_readers();
		test_next_lines();
		test_rules();
		test_rules_vfields();
		fflush(stdout);
		_exit(0);
	}
	while (waitpid(pid, &status, 0) == -1 && errno == EINTR)
		;
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
		ok(0, "reader: the tests ran to the end (%s %d; MCT_UNIT_STDERR=1 "
		    "shows the reader's stderr)", WIFSIGNALED(status) ? "signal" :
		    "exit status", WIFSIGNALED(status) ? WTERMSIG(status) :
		    WEXITSTATUS(status));
	rm_tmpdir();
}

/* ------------------------------------------------------------------ */
/* stats.c and sketch.c: exact sums of squares, the sketch's bound */

/* A small deterministic generator (xorshift), so failures repeat. */
static uint64_t
sk_rand(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

static void
test_sketch(void)
{
	struct mct_stats a = { 0 }, b = { 0 }, c = { 0 }, w = { 0 }, z = { 0 };
	struct mct_sketch s1 = { 0 }, s2 = { 0 };
	uint64_t x = 88172645463325252ULL;
	double worst = 0, d, m, acc = 0, q, e;
	int64_t v[3000];
	size_t i;
	int bad = 0;

	/* every value within 1/256 of its bucket's midpoint */
	for (i = 0; i < 100000; i++) {
		d = (double)(sk_rand(&x) >> (sk_rand(&x) % 60)) + 1;
		if (i % 3 == 0)
			d = d / 1024;
		memset(&s1, 0, sizeof(s1));
		mct_sketch_add(&s1, i % 2 ? d : -d, 3);
		q = mct_sketch_quantile(&s1, 1, 2, 3, -1e300, 1e300);
		e = fabs(fabs(q) - d) / d;
		if (e > worst)
			worst = e;
		bad |= (q < 0) != (i % 2 == 0);
		mct_sketch_free(&s1);
	}
	ok(worst <= MCT_SKETCH_BOUND && !bad,
	    "sketch: every value within 1/256 of its bucket's midpoint, "
	    "sign kept (worst %.6f)", worst);

	/* exact sums: stddev the same bits in any order and any split */
	for (i = 0; i < 3000; i++) {
		v[i] = (int64_t)(sk_rand(&x) % 1000000000) - (i % 7 ? 0 : 5000);
		mct_stats_add(&w, v[i]);
		mct_stats_add(i % 3 ? &a : &b, v[i]);
	}
	for (i = 3000; i-- > 0;)
		mct_stats_add(&c, v[i]);
	mct_stats_merge(&b, &a);
	m = (double)w.isum / 3000.0;
	for (i = 0; i < 3000; i++)
		acc += ((double)v[i] - m) * ((double)v[i] - m);
	d = sqrt(acc / 2999);
	ok(mct_stats_stddev(&w) == mct_stats_stddev(&b) &&
	    mct_stats_stddev(&w) == mct_stats_stddev(&c) &&
	    fabs(mct_stats_stddev(&w) - d) <= 1e-9 * d && !w.sqover,
	    "stats: stddev from the exact sums: the same bits in any order "
	    "and split, the two-pass value to 1e-9");
	mct_stats_add(&z, INT64_MAX);
	mct_stats_add(&z, INT64_MAX);
	mct_stats_add(&z, INT64_MAX);
	ok(z.sqover && mct_stats_stddev(&z) == 0,
	    "stats: a sum of squares past 128 bits is known, stddev from the "
	    "values then");

	/* past the limit: a split's halves, sketched or not, merged any
	 * way round, give the same quantiles, within the bound */
	{
		struct mct_stats r[3], P = { 0 }, Q = { 0 };
		int k;

		memset(r, 0, sizeof(r));
		for (i = 0; i < 3000; i++) {
			mct_stats_add(i < 1500 ? &r[0] : &r[1], v[i]);
			mct_stats_add(i < 1500 ? &P : &Q, v[i]);
			if (i < 1500)
				mct_stats_add(&r[2], v[i]);
		}
		mct_stats_sketch(&P);
		mct_stats_sketch(&Q);
		mct_stats_merge(&r[0], &Q);	/* a sketch into values */
		mct_stats_merge(&Q, &r[2]);	/* values into a sketch */
		mct_stats_merge(&P, &r[1]);	/* the other half likewise */
		bad = r[0].sk == NULL || Q.sk == NULL || P.sk == NULL ||
		    r[0].n != 3000 || Q.n != 3000 || P.n != 3000;
		for (i = 0; i <= 100; i += 5)
			for (k = 0; k < 2; k++) {
				double e1 = mct_stats_quantile(&r[0], (int64_t)i, 100);
				double e2 = mct_stats_quantile(k ? &Q : &P,
				    (int64_t)i, 100);
				double ex = mct_stats_quantile(&w, (int64_t)i, 100);

				bad |= e1 != e2 || (fabs(ex) > 1e6 &&
				    fabs(e1 - ex) > MCT_SKETCH_BOUND * fabs(ex));
			}
		ok(!bad, "stats: a split's halves, sketched or not, merged "
		    "either way round give the same quantiles, within the "
		    "bound of the exact ones");
		ok(mct_stats_min(&r[0]) == mct_stats_min(&w) &&
		    mct_stats_max(&Q) == mct_stats_max(&w) &&
		    mct_stats_stddev(&r[0]) == mct_stats_stddev(&w) &&
		    mct_stats_stddev(&P) == mct_stats_stddev(&w) &&
		    mct_stats_mean(&Q) == mct_stats_mean(&w),
		    "stats: a sketched set keeps min, max, mean and stddev exact");
		for (k = 0; k < 3; k++)
			mct_stats_free(&r[k]);
		mct_stats_free(&P);
		mct_stats_free(&Q);
	}

	/* two sketches of one set made in different orders are equal */
	for (i = 0; i < 3000; i++) {
		mct_sketch_add(&s1, (double)v[i], 1);
		mct_sketch_add(&s1, -(double)v[i] / 3, 1);
	}
	for (i = 3000; i-- > 0;) {
		mct_sketch_add(&s2, -(double)v[i] / 3, 1);
		mct_sketch_add(&s2, (double)v[i], 1);
	}
	ok(s1.pos.n > 0 && s1.neg.n > 0 &&
	    s1.zero == s2.zero && s1.pos.lo == s2.pos.lo && s1.pos.n == s2.pos.n &&
	    memcmp(s1.pos.c, s2.pos.c, (size_t)s1.pos.n * sizeof(*s1.pos.c)) == 0 &&
	    s1.neg.n == s2.neg.n &&
	    memcmp(s1.neg.c, s2.neg.c, (size_t)s1.neg.n * sizeof(*s1.neg.c)) == 0,
	    "sketch: the same buckets in any order");
	mct_sketch_free(&s1);
	mct_sketch_free(&s2);
	mct_stats_free(&a);
	mct_stats_free(&b);
	mct_stats_free(&c);
	mct_stats_free(&w);
	mct_stats_free(&z);
}

/*
 * phases.c: the device-lane test, overlaps, and the phases of a small set
 * of calls (a steady run of five rounds between an init and a tail).
 */
static void
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
	ok(mct_overlap(0, 10, 5, 20) == 5 && mct_overlap(0, 10, 10, 20) == 0 &&
	    mct_overlap(5, 6, 0, 20) == 1, "phases: overlap of two intervals");
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

/* ------------------------------------------------------------------ */
/* device.c: the device lanes; seen.c: fields no event had */

static int
dev_of(const char *json, int host)
{
	struct mct_event ev;
	int r;

	mct_event_init(&ev, json, strlen(json), NULL);
	r = host ? mct_host_call(&ev) : mct_device(&ev);
	mct_event_free(&ev);
	return r;
}

static void
test_device(void)
{
	static const struct {
		const char	*json;
		int		 dev, host;
	} c[] = {
		{ "{\"ph\":\"X\",\"cat\":\"kernel\",\"pid\":0}", 1, 0 },
		{ "{\"ph\":\"X\",\"cat\":\"Kernel\"}", 1, 0 },
		{ "{\"ph\":\"X\",\"cat\":\"gpu_memcpy\"}", 1, 0 },
		{ "{\"ph\":\"X\",\"cat\":\"Memset\"}", 1, 0 },
		{ "{\"ph\":\"X\",\"cat\":\"mtia_ccp_events\"}", 1, 0 },
		{ "{\"ph\":\"i\",\"cat\":\"kernel\"}", 0, 0 },
		{ "{\"ph\":\"X\",\"pid\":2}", 1, 0 },
		{ "{\"ph\":\"X\",\"pid\":\"3\"}", 1, 0 },
		{ "{\"ph\":\"X\",\"pid\":23}", 0, 0 },
		{ "{\"ph\":\"X\",\"pid\":1}", 0, 1 },
		{ "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"args\":"
		    "{\"correlation\":5}}", 0, 1 },
		{ "{\"ph\":\"X\",\"cat\":\"CUDA Driver\"}", 0, 1 },
		{ "{\"ph\":\"X\",\"cat\":\"cuda_sync\",\"args\":"
		    "{\"correlation\":5}}", 0, 0 },
		{ "{\"ph\":\"X\",\"cat\":\"npu_op\",\"args\":"
		    "{\"correlation\":5}}", 1, 0 },
		{ "{\"ph\":\"X\",\"cat\":\"npu_op\",\"args\":"
		    "{\"co_id\":5}}", 1, 0 },
		{ "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"args\":"
		    "{\"x\":{\"correlation\":5}}}", 0, 0 },
		{ "{\"ph\":\"X\",\"cat\":7,\"pid\":2}", 0, 0 },
	};
	size_t i;

	for (i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		ok(dev_of(c[i].json, 0) == c[i].dev, "device: %s is%s device "
		    "work", c[i].json, c[i].dev ? "" : " not");
		ok(dev_of(c[i].json, 1) == c[i].host, "device: %s is%s a host "
		    "call", c[i].json, c[i].host ? "" : " not");
	}
}

struct seen_case {
	const char	*field;		/* watched, by --by */
	const char	*ev[3];
	const char	*want;		/* what is said */
};

static void
seen_run(void *arg)
{
	struct seen_case *c = arg;
	struct mct_seen s;
	struct mct_field f;
	struct mct_event ev;
	int i;

	memset(&s, 0, sizeof(s));
	mct_field_parse(c->field, &f);
	mct_seen_add(&s, &f, "--by");
	for (i = 0; i < 3 && c->ev[i]; i++) {
		mct_event_init(&ev, c->ev[i], strlen(c->ev[i]), NULL);
		mct_seen_event(&s, &ev);
		mct_event_free(&ev);
	}
	mct_seen_end(&s);
	mct_field_free(&f);
}

static void
test_seen(void)
{
	static struct seen_case c[] = {
		{ "nmae", { "{\"name\":\"a\",\"ts\":1}", NULL },
		    "--by: no event has the field 'nmae' (did you mean "
		    "'name'?)" },
		{ "name", { "{\"ts\":1}", "{\"name\":\"a\"}", NULL }, "" },
		{ "args.corelation", { "{\"args\":{\"correlation\":1}}",
		    NULL }, "--by: no event has the field 'args.corelation' "
		    "(did you mean 'args.correlation'?)" },
		{ "args.regs", { "{\"args\":{\"registers per thread\":1,"
		    "\"reg\":2}}", NULL }, "--by: no event has the field "
		    "'args.regs' (did you mean 'args.reg'?)" },
		{ "args.registers_per_thread", { "{\"args\":{\"registers "
		    "per thread\":1}}", NULL }, "--by: no event has the field "
		    "'args.registers_per_thread' (did you mean "
		    "'args.\"registers per thread\"'?)" },
		{ "zzzzzzzz", { "{\"name\":\"a\"}", NULL },
		    "--by: no event has the field 'zzzzzzzz'" },
		{ "nmae", { NULL }, "" },	/* no events: nothing to say */
		{ "rel", { "{\"name\":\"a\"}", NULL }, "" },	/* virtual */
	};
	char msg[512], none[1] = "", *p;
	size_t i;

	for (i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		quietly(seen_run, &c[i], msg, sizeof(msg));
		/* drop "unit: " and the newline */
		p = strchr(msg, ':');
		p = p && *c[i].want ? p + 2 : msg;
		if ((p = strtok(p, "\n")) == NULL)
			p = none;
		ok(strcmp(p, c[i].want) == 0, "seen: %s -> \"%s\"",
		    c[i].field, p);
	}
}

/*
 * short.c: real kernel names from the Kineto fixtures (CUDA and ROCm),
 * copied here as data, and what people read of them.
 */
static void
test_short(void)
{
	static const struct {
		const char	*name, *want;
	} t[] = {
		{ "void at::native::reduce_kernel<512, 1, at::native::ReduceOp<float, at::native::MeanOps<float, float, float, float>, unsigned int, float, 4> >(at::native::ReduceOp<float, at::native::MeanOps<float, float, float, float>, unsigned int, float, 4>)",
		    "at::native::reduce_kernel" },
		{ "void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>, at::detail::Array<char*, 1> >(int, at::native::FillFunctor<float>, at::detail::Array<char*, 1>)",
		    "at::native::vectorized_elementwise_kernel" },
		{ "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>, at::detail::Array<char*, 3> >(int, at::native::CUDAFunctor_add<float>, at::detail::Array<char*, 3>)",
		    "at::native::vectorized_elementwise_kernel" },
		{ "void at::native::vectorized_elementwise_kernel<8, at::native::CUDAFunctor_add<c10::BFloat16>, std::array<char*, 3ul> >(int, at::native::CUDAFunctor_add<c10::BFloat16>, std::array<char*, 3ul>)",
		    "at::native::vectorized_elementwise_kernel" },
		{ "void at::native::(anonymous namespace)::vectorized_layer_norm_kernel<c10::BFloat16, float>(int, float, c10::BFloat16 const*, c10::BFloat16 const*, c10::BFloat16 const*, float*, float*, c10::BFloat16*)",
		    "at::native::vectorized_layer_norm_kernel" },
		{ "void at::native::vectorized_elementwise_kernel<4, at::native::AUnaryFunctor<long, long, bool, at::native::(anonymous namespace)::CompareEqFunctor<long> >, std::array<char*, 2ul> >(int, at::native::AUnaryFunctor<long, long, bool, at::native::(anonymous namespace)::CompareEqFunctor<long> >, std::array<char*, 2ul>)",
		    "at::native::vectorized_elementwise_kernel" },
		{ "attn_fwd",
		    "attn_fwd" },
		{ "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<c10::BFloat16>, std::array<char*, 3ul> >(int, at::native::CUDAFunctor_add<c10::BFloat16>, std::array<char*, 3ul>)",
		    "at::native::vectorized_elementwise_kernel" },
		{ "void cutlass::Kernel2<cutlass_80_wmma_tensorop_bf16_s161616gemm_bf16_32x32_128x2_tn_align8>(cutlass_80_wmma_tensorop_bf16_s161616gemm_bf16_32x32_128x2_tn_align8::Params)",
		    "cutlass::Kernel2" },
		{ "void pytorch_flash::flash_fwd_kernel<pytorch_flash::Flash_fwd_kernel_traits<64, 128, 128, 4, false, false, cutlass::bfloat16_t, pytorch_flash::Flash_kernel_traits<64, 128, 128, 4, cutlass::bfloat16_t> >, false, false, false, false, false, true, false>(pytorch_flash::Flash_fwd_params)",
		    "pytorch_flash::flash_fwd_kernel" },
		{ "void cutlass::Kernel2<cutlass_80_tensorop_bf16_s16816gemm_relu_bf16_64x64_64x6_tn_align8>(cutlass_80_tensorop_bf16_s16816gemm_relu_bf16_64x64_64x6_tn_align8::Params)",
		    "cutlass::Kernel2" },
		{ "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize64x64x64_warpgroupsize1x1x1_execute_segment_k_off_kernel__5x_cublas",
		    "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize64x64x64_warpgroupsize1x1x1_execute_segment_k_off_kernel__5x_cublas" },
		{ "void cutlass::Kernel2<cutlass_80_tensorop_bf16_s16816gemm_bf16_256x128_64x3_tn_align2>(cutlass_80_tensorop_bf16_s16816gemm_bf16_256x128_64x3_tn_align2::Params)",
		    "cutlass::Kernel2" },
		{ "void cutlass::Kernel<cutlass_80_tensorop_s1688gemm_128x128_32x3_nn_align4>",
		    "cutlass::Kernel" },
		{ "void cutlass::Kernel<cutlass_80_tensorop_s1688gemm_64x64_16x6_nn_align4>(cutlass_80_tensorop_s1688gemm_64x64_16x6_nn_align4::Params)",
		    "cutlass::Kernel" },
		{ "void cutlass::Kernel<cutlass_80_tensorop_s1688gemm_64x64_16x6_nt_align4>(cutlass_80_tensorop_s1688gemm_64x64_16x6_nt_align4::Params)",
		    "cutlass::Kernel" },
		{ "void splitKreduce_kernel<float, float, float, float, true, false, false>(cublasSplitKParams<float>, float const*, float const*, float*, float const*, float const*, float const*, float const*, float*, void*, long, float*, int*)",
		    "splitKreduce_kernel" },
		{ "void at::native::vectorized_elementwise_kernel<2, at::native::CUDAFunctor_add<float>, at::detail::Array<char*, 3> >(int, at::native::CUDAFunctor_add<float>, at::detail::Array<char*, 3>)",
		    "at::native::vectorized_elementwise_kernel" },
		{ "void at::native::(anonymous namespace)::CatArrayBatchedCopy<float, unsigned int, 2, 128, 1>(float*, at::native::(anonymous namespace)::CatArrInputTensorMetadata<float, unsigned int, 128, 1>, at::native::(anonymous namespace)::TensorSizeStride<unsigned int, 4u>, int, unsigned int)",
		    "at::native::CatArrayBatchedCopy" },
		{ "ampere_sgemm_128x64_nn",
		    "ampere_sgemm_128x64_nn" },
		{ "void cutlass::Kernel<cutlass_80_tensorop_s1688gemm_128x64_32x6_nt_align1>(cutlass_80_tensorop_s1688gemm_128x64_32x6_nt_align1::Params)",
		    "cutlass::Kernel" },
		{ "void cutlass::Kernel<cutlass_80_tensorop_s1688gemm_64x64_32x4_nt_align1>(cutlass_80_tensorop_s1688gemm_64x64_32x4_nt_align1::Params)",
		    "cutlass::Kernel" },
		{ "ampere_sgemm_128x128_tn",
		    "ampere_sgemm_128x128_tn" },
		{ "void cutlass::Kernel<cutlass_80_tensorop_s1688gemm_64x128_32x6_nn_align4>(cutlass_80_tensorop_s1688gemm_64x128_32x6_nn_align4::Params)",
		    "cutlass::Kernel" },
		{ "void cutlass::Kernel<cutlass_80_tensorop_s1688gemm_128x128_32x3_nt_align4>(cutlass_80_tensorop_s1688gemm_128x128_32x3_nt_align4::Params)",
		    "cutlass::Kernel" },
		{ "void at::native::vectorized_elementwise_kernel<4, at::native::BinaryFunctor<float, float, float, at::native::binary_internal::MulFunctor<float> >, at::detail::Array<char*, 3> >(int, at::native::BinaryFunctor<float, float, float, at::native::binary_internal::MulFunctor<float> >, at::detail::Array<char*, 3>)",
		    "at::native::vectorized_elementwise_kernel" },
		{ "void at::native::(anonymous namespace)::layer_norm_grad_input_kernel<float, float>(float const*, float const*, float const*, float const*, float const*, float*, int)",
		    "at::native::layer_norm_grad_input_kernel" },
		{ "void at::native::(anonymous namespace)::GammaBetaBackwardCUDAKernel<float, float>(long, long, float const*, float const*, float const*, float const*, float*, float*)",
		    "at::native::GammaBetaBackwardCUDAKernel" },
		{ "void cutlass::Kernel<cutlass_80_tensorop_s1688gemm_64x64_32x6_nn_align4>(cutlass_80_tensorop_s1688gemm_64x64_32x6_nn_align4::Params)",
		    "cutlass::Kernel" },
		{ "void cutlass::Kernel<cutlass_80_tensorop_s1688gemm_128x64_16x6_nt_align4>(cutlass_80_tensorop_s1688gemm_128x64_16x6_nt_align4::Params)",
		    "cutlass::Kernel" },
		{ "void cutlass::Kernel<cutlass_80_tensorop_s1688gemm_256x64_16x4_nn_align4>(cutlass_80_tensorop_s1688gemm_256x64_16x4_nn_align4::Params)",
		    "cutlass::Kernel" },
		{ "void cutlass::Kernel<cutlass_80_tensorop_s1688gemm_64x64_32x4_nn_align1>(cutlass_80_tensorop_s1688gemm_64x64_32x4_nn_align1::Params)",
		    "cutlass::Kernel" },
		{ "void cutlass::Kernel<cutlass_80_tensorop_s1688gemm_128x256_32x3_nn_align1>(cutlass_80_tensorop_s1688gemm_128x256_32x3_nn_align1::Params)",
		    "cutlass::Kernel" },
		{ "void cutlass::Kernel<cutlass_80_tensorop_s1688gemm_128x128_16x4_nt_align1>(cutlass_80_tensorop_s1688gemm_128x128_16x4_nt_align1::Params)",
		    "cutlass::Kernel" },
		{ "void cutlass::Kernel<cutlass_80_tensorop_s1688gemm_256x64_32x3_nt_align1>(cutlass_80_tensorop_s1688gemm_256x64_32x3_nt_align1::Params)",
		    "cutlass::Kernel" },
		{ "void cutlass::Kernel<cutlass_80_tensorop_s1688gemm_64x64_32x6_nt_align4>(cutlass_80_tensorop_s1688gemm_64x64_32x6_nt_align4::Params)",
		    "cutlass::Kernel" },
		{ "void cutlass::Kernel<cutlass_80_tensorop_s1688gemm_128x64_16x6_nn_align4>(cutlass_80_tensorop_s1688gemm_128x64_16x6_nn_align4::Params)",
		    "cutlass::Kernel" },
		{ "void cutlass::Kernel<cutlass_80_tensorop_s1688gemm_64x128_32x3_nt_align4>(cutlass_80_tensorop_s1688gemm_64x128_32x3_nt_align4::Params)",
		    "cutlass::Kernel" },
		{ "void cutlass::Kernel<cutlass_80_tensorop_s1688gemm_64x64_32x4_tn_align4>(cutlass_80_tensorop_s1688gemm_64x64_32x4_tn_align4::Params)",
		    "cutlass::Kernel" },
		{ "ampere_sgemm_128x128_tt",
		    "ampere_sgemm_128x128_tt" },
		{ "void cutlass::Kernel<cutlass_80_tensorop_s1688gemm_64x64_32x6_nt_align1>(cutlass_80_tensorop_s1688gemm_64x64_32x6_nt_align1::Params)",
		    "cutlass::Kernel" },
		{ "ampere_sgemm_64x64_nn",
		    "ampere_sgemm_64x64_nn" },
		{ "void at::native::(anonymous namespace)::CatArrayBatchedCopy<float, unsigned int, 2, 64, 64>(float*, at::native::(anonymous namespace)::CatArrInputTensorMetadata<float, unsigned int, 64, 64>, at::native::(anonymous namespace)::TensorSizeStride<unsigned int, 4u>, int, unsigned int)",
		    "at::native::CatArrayBatchedCopy" },
		{ "void permute_pooled_embs_kernel<float>(float const*, long const*, long const*, long const*, float*, long, long, long)",
		    "permute_pooled_embs_kernel" },
		{ "void recat_copy_async_kernel<float>(long const*, long const*, float const*, float*, long, long, long)",
		    "recat_copy_async_kernel" },
		{ "ncclKernel_SendRecv_RING_SIMPLE_Sum_int8_t(ncclWorkElem)",
		    "ncclKernel_SendRecv_RING_SIMPLE_Sum_int8_t" },
		{ "void at::native::vectorized_elementwise_kernel<4, at::native::BUnaryFunctor<float, float, float, at::native::binary_internal::MulFunctor<float> >, at::detail::Array<char*, 2> >(int, at::native::BUnaryFunctor<float, float, float, at::native::binary_internal::MulFunctor<float> >, at::detail::Array<char*, 2>)",
		    "at::native::vectorized_elementwise_kernel" },
		{ "ncclKernel_AllReduce_RING_LL_Sum_float(ncclWorkElem)",
		    "ncclKernel_AllReduce_RING_LL_Sum_float" },
		{ "void at::native::vectorized_elementwise_kernel<4, at::native::AUnaryFunctor<float, float, float, at::native::binary_internal::MulFunctor<float> >, at::detail::Array<char*, 2> >(int, at::native::AUnaryFunctor<float, float, float, at::native::binary_internal::MulFunctor<float> >, at::detail::Array<char*, 2>)",
		    "at::native::vectorized_elementwise_kernel" },
		{ "void cutlass::Kernel<cutlass_80_tensorop_s1688gemm_256x128_32x3_nn_align1>(cutlass_80_tensorop_s1688gemm_256x128_32x3_nn_align1::Params)",
		    "cutlass::Kernel" },
		{ "void cutlass::Kernel<cutlass_80_tensorop_s1688gemm_256x128_32x3_nt_align1>(cutlass_80_tensorop_s1688gemm_256x128_32x3_nt_align1::Params)",
		    "cutlass::Kernel" },
		{ "void cutlass::Kernel<cutlass_80_tensorop_s1688gemm_128x128_32x3_nn_align1>(cutlass_80_tensorop_s1688gemm_128x128_32x3_nn_align1::Params)",
		    "cutlass::Kernel" },
		{ "void cutlass::Kernel<cutlass_80_tensorop_s1688gemm_128x64_16x6_nt_align1>(cutlass_80_tensorop_s1688gemm_128x64_16x6_nt_align1::Params)",
		    "cutlass::Kernel" },
		{ "void cutlass::Kernel<cutlass_80_tensorop_s1688gemm_128x128_32x3_nt_align1>(cutlass_80_tensorop_s1688gemm_128x128_32x3_nt_align1::Params)",
		    "cutlass::Kernel" },
		{ "void cub::DeviceRadixSortHistogramKernel<cub::DeviceRadixSortPolicy<long, int, int>::Policy800, false, long, int>(int*, long const*, int, int, int)",
		    "cub::DeviceRadixSortHistogramKernel" },
		{ "void cub::DeviceRadixSortExclusiveSumKernel<cub::DeviceRadixSortPolicy<long, int, int>::Policy800, int>(int*)",
		    "cub::DeviceRadixSortExclusiveSumKernel" },
		{ "void cub::DeviceRadixSortOnesweepKernel<cub::DeviceRadixSortPolicy<long, int, int>::Policy800, false, long, int, int, int>(int*, int*, int*, int const*, long*, long const*, int*, int const*, int, int, int)",
		    "cub::DeviceRadixSortOnesweepKernel" },
		{ "void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<int>, at::detail::Array<char*, 1> >(int, at::native::FillFunctor<int>, at::detail::Array<char*, 1>)",
		    "at::native::vectorized_elementwise_kernel" },
		{ "void cub::DeviceCompactInitKernel<cub::ReduceByKeyScanTileState<int, int, true>, int*>(cub::ReduceByKeyScanTileState<int, int, true>, int, int*)",
		    "cub::DeviceCompactInitKernel" },
		{ "void cub::DeviceScanInitKernel<cub::ScanTileState<int, true> >(cub::ScanTileState<int, true>, int)",
		    "cub::DeviceScanInitKernel" },
		{ "void at::native::vectorized_gather_kernel<16, long>(char*, char*, at::native::index_t*, int64_t, int64_t, int64_t, int64_t, bool)",
		    "at::native::vectorized_gather_kernel" },
		{ "Memcpy DtoD (Device -> Device)",
		    "Memcpy DtoD (Device -> Device)" },
		{ "_Znot_mangled",
		    "_Znot_mangled" },
		{ "Cijk_Alik_Bljk_SB_Bias_AS_SAV_UserArgs_MT64x16x32_MI16x16x1_SN_LDSB0_AFC1_AFEM1_AFEM1_ASEM1_CLR1_CADS0_EPS0_GRVWA2_GRVWB2_GSUAMB_ISA90a_IU1_K1_LBSPPA128_LBSPPB128_LBSPPM0_LPA8_LPB8_LPM0_LRVW4_LWPMn1_MIAV0_MIWT1_1_MO40_NTn1_NTA0_NTB0_NTC0_NTD0_NTM0_NEPBS2_NLCA1_NLCB1_ONLL1_PGR2_PLR1_PKA1_SIA3_SS1_SPO1_SRVW0_SSO0_SVW1_TLDS1_USFGROn1_VSn1_VWA1_VWB1_WSGRA1_WSGRB1_WS64_WG64_4_1",
		    "Cijk_Alik_Bljk_…_MT64x16x32" },
		{ "Cijk_Ailk_Bjlk_SB_Bias_AS_SAV_UserArgs_MT64x16x16_MI16x16x1_SN_LDSB0_AFC1_AFEM1_AFEM1_ASEM1_CLR1_CADS0_EPS0_GRVWA1_GRVWB1_GSUAMB_ISA90a_IU1_K1_LBSPPA0_LBSPPB0_LBSPPM0_LPA0_LPB0_LPM0_LRVW1_LWPMn1_MIAV0_MIWT1_1_MO40_NTn1_NTA0_NTB0_NTC0_NTD0_NTM0_NEPBS2_NLCA1_NLCB1_ONLL1_PGR2_PLR1_PKA1_SIA3_SS1_SPO1_SRVW0_SSO0_SVW1_TLDS0_USFGROn1_VSn1_VWA1_VWB1_WSGRA0_WSGRB0_WS64_WG64_4_1",
		    "Cijk_Ailk_Bjlk_…_MT64x16x16" },
		{ "Cijk_Alik_Bljk_B_BS_BH_Bias_HA_S_SAV_UserArgs_MT16x16x128_MI16x16x1_SN_LDSB0_AFC1_AFEM1_AFEM1_ASEM1_CLR1_CADS0_DTVA0_DTVB0_EPS0_FDSI0_GRPM1_GRVWA8_GRVWB8_GSUAMB_GLS0_ISA942_IU1_K1_LBSPPA256_LBSPPB256_LBSPPM0_LPA16_LPB16_LPM0_LRVW8_LWPMn1_MIAV0_MIWT1_1_MO40_NTn1_NTA0_NTB0_NTC0_NTD0_NTM0_NEPBS16_NLCA1_NLCB1_ONLL1_PGR2_PLR1_PKA1_SIA3_SS1_SPO0_SRVW0_SSO0_SVW1_SK0_SKXCCM0_TLDS1_ULSGRO0_USL1_UIOFGRO0_USFGROn1_VSn1_VWA1_VWB1_WSGRA0_WSGRB0_WS64_WG16_4_4",
		    "Cijk_Alik_Bljk_…_MT16x16x128" },
		{ "void at::native::vectorized_elementwise_kernel<4, at::native::(anonymous namespace)::launch_clamp_scalar(at::TensorIteratorBase&, c10::Scalar, c10::Scalar, at::native::detail::ClampLimits)::{lambda()#1}::operator()() const::{lambda()#7}::operator()() const::{lambda(float)#1}, at::detail::Array<char*, 2> >(int, at::native::(anonymous namespace)::launch_clamp_scalar(at::TensorIteratorBase&, c10::Scalar, c10::Scalar, at::native::detail::ClampLimits)::{lambda()#1}::operator()() const::{lambda()#7}::operator()() const::{lambda(float)#1}, at::detail::Array<char*, 2>)",
		    "at::native::vectorized_elementwise_kernel" },
		{ "void at::native::vectorized_elementwise_kernel<4, at::native::mse_kernel_cuda(at::TensorIteratorBase&)::{lambda()#1}::operator()() const::{lambda()#2}::operator()() const::{lambda(float, float)#1}, at::detail::Array<char*, 3> >(int, at::native::mse_kernel_cuda(at::TensorIteratorBase&)::{lambda()#1}::operator()() const::{lambda()#2}::operator()() const::{lambda(float, float)#1}, at::detail::Array<char*, 3>)",
		    "at::native::vectorized_elementwise_kernel" },
	};
	static const char *mangled[][2] = {
		{ "_ZN2ck27kernel_gemm_xdl_cshuffle_v1INS_16GridwiseGemm_xdlIfLb1EEELi256EEEvPKfPf",
		    "ck::kernel_gemm_xdl_cshuffle_v1" },
		{ "_ZN2ck12_GLOBAL__N_19anon_fillEi", "ck::anon_fill" },
	};
	struct mct_buf b = { 0 };
	size_t i;
	int bad = 0;

	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		b.len = 0;
		mct_short(t[i].name, strlen(t[i].name), &b);
		if (b.len != strlen(t[i].want) ||
		    memcmp(b.p, t[i].want, b.len) != 0) {
			diag("short: '%s' gave '%.*s', want '%s'", t[i].name,
			    (int)b.len, b.p, t[i].want);
			bad++;
		}
		if (memchr(b.p, '(', b.len) && t[i].name[0] != 'M')
			bad++;
	}
	ok(bad == 0 && i >= 50, "short: %zu real names shortened", i);
	for (i = 0; i < 2; i++) {
		const char *want = mangled[i][0];

#ifdef HAVE_DEMANGLE
		want = mangled[i][1];
#endif
		b.len = 0;
		mct_short(mangled[i][0], strlen(mangled[i][0]), &b);
		ok(b.len == strlen(want) && memcmp(b.p, want, b.len) == 0,
		    "short: %s -> %s (demangled where the C++ runtime is)",
		    mangled[i][0], want);
	}
	/* appends: what is in the buffer stays */
	b.len = 0;
	mct_buf_adds(&b, "x=");
	mct_short("void f<int>(int)", 16, &b);
	ok(b.len == 3 && memcmp(b.p, "x=f", 3) == 0, "short: appends to the buffer");
	mct_buf_free(&b);
}

/*
 * stack.c: a pair waits for its stack; on a sorted input until an event
 * starts after its launch ended, on another until the end.
 */
static void
stack_feed(struct mct_stack *s, const char *json, const struct mct_header *h)
{
	struct mct_event ev;

	mct_event_init(&ev, json, strlen(json), h);
	mct_stack_event(s, &ev);
	mct_event_free(&ev);
}

static void
test_stack(void)
{
	static const char pairline[] = "{\"name\":\"k\",\"ts\":20}";
	static const char want[] = "{\"name\":\"k\",\"ts\":20,\"stack\":"
	    "[\"step\",\"aten::mm\",\"cudaLaunchKernel\"],\"op\":\"aten::mm\","
	    "\"annotation\":\"step\"}";
	struct mct_launch l = { "\"cudaLaunchKernel\"", "1", "1", 10, 5, 0, 0 };
	struct mct_header h = { .has_origin = 1, .origin = 0 };
	struct mct_buf line = { 0 }, fold = { 0 };
	struct mct_stack_counts c;
	struct mct_stack *s;
	int sorted, r0, r1;

	for (sorted = 1; sorted >= 0; sorted--) {
		s = mct_stack_open(sorted, 0);
		stack_feed(s, "{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":"
		    "\"step\",\"pid\":1,\"tid\":1,\"ts\":0,\"dur\":1000}", &h);
		stack_feed(s, "{\"ph\":\"B\",\"cat\":\"cpu_op\",\"name\":"
		    "\"aten::mm\",\"pid\":1,\"tid\":1,\"ts\":5}", &h);
		mct_stack_pair(s, pairline, sizeof(pairline) - 1, &l);
		r0 = mct_stack_next(s, &line, &fold);
		stack_feed(s, "{\"ph\":\"E\",\"pid\":1,\"tid\":1,\"ts\":30}", &h);
		stack_feed(s, "{\"ph\":\"E\",\"pid\":1,\"tid\":1,\"ts\":31}", &h);
		r1 = mct_stack_next(s, &line, &fold);
		if (!sorted) {
			ok(r1 == 0, "stack: unsorted, nothing before the end");
			mct_stack_end(s);
			r1 = mct_stack_next(s, &line, &fold);
		}
		ok(r0 == 0 && r1 == 1 && line.len == strlen(want) &&
		    memcmp(line.p, want, line.len) == 0,
		    "stack: %s input: the pair waits, then has its stack, op "
		    "and annotation", sorted ? "a sorted" : "an unsorted");
		ok(fold.len == 30 &&
		    memcmp(fold.p, "step;aten::mm;cudaLaunchKernel", 30) == 0,
		    "stack: the folded frames, outermost first");
		ok(mct_stack_next(s, &line, &fold) == 0, "stack: one pair, once");
		if (sorted)
			mct_stack_end(s);
		mct_stack_close(s, &c);
		ok(c.unbalanced == 1 && c.nowhere == 0 && c.deep == 0,
		    "stack: an E without its B is counted");
	}
	mct_buf_free(&line);
	mct_buf_free(&fold);
}

/*
 * flow.c: a device event paired with its launch by correlation id, the
 * one that comes first waiting; host calls forgotten on a sorted input.
 */
struct flow_got {
	struct mct_buf	 out;		/* the pairs, a line each */
	int		 nodev;
};

static void
flow_write(void *arg, struct mct_event *ev)
{
	struct flow_got *g = arg;

	mct_buf_add(&g->out, ev->json, ev->len);
	mct_buf_addc(&g->out, '\n');
}

static void
flow_nodev(void *arg, const struct mct_corr *c, const struct mct_mapent *e)
{
	struct flow_got *g = arg;

	g->nodev += c->ndev == 0 && e->len == 1 && e->key[0] == '9';
}

static int
flow_feed(struct mct_flow *f, const char *json, struct mct_buf *k)
{
	struct mct_event ev;
	int rc;

	mct_event_init(&ev, json, strlen(json), f->hdr);
	rc = mct_flow_add(f, &ev, k);
	mct_event_free(&ev);
	return rc;
}

static void
test_flow(void)
{
	static const char dev[] = "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":"
	    "\"k\",\"ts\":100,\"dur\":10,\"args\":{\"correlation\":7}}";
	static const char want[] = "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":"
	    "\"k\",\"ts\":100,\"dur\":10,\"args\":{\"correlation\":7},"
	    "\"launch\":{\"name\":\"cudaLaunchKernel\",\"ts\":90,\"dur\":5,"
	    "\"pid\":1,\"tid\":2},\"latency\":10,\"queue\":5}\n";
	struct mct_header h = { .has_origin = 1, .origin = 0, .sorted = 1 };
	struct mct_flow f = { .window = 1000 };
	struct flow_got g = { { 0 }, 0 };
	struct mct_buf k = { 0 };
	struct mct_event ev;
	char line[160], big[400];
	int i, rc[4];

	mct_flow_init(&f, &h);
	f.write = flow_write;
	f.nodev = flow_nodev;
	f.arg = &g;
	rc[0] = flow_feed(&f, dev, &k);		/* before its launch: waits */
	ok(rc[0] == MCT_FLOW_KEYED && g.out.len == 0 && f.pairs == 0,
	    "flow: a device event before its launch waits");
	rc[1] = flow_feed(&f, "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":"
	    "\"cudaLaunchKernel\",\"pid\":1,\"tid\":2,\"ts\":90,\"dur\":5,"
	    "\"args\":{\"correlation\":7}}", &k);
	ok(rc[1] == MCT_FLOW_KEYED && f.pairs == 1 &&
	    g.out.len == strlen(want) && memcmp(g.out.p, want, g.out.len) == 0,
	    "flow: its launch comes, and the pair is written with launch, "
	    "latency and queue");
	g.out.len = 0;
	rc[2] = flow_feed(&f, dev, &k);		/* after: at once */
	ok(rc[2] == MCT_FLOW_KEYED && f.pairs == 2 &&
	    g.out.len == strlen(want) && memcmp(g.out.p, want, g.out.len) == 0,
	    "flow: a device event after its launch is paired at once");
	rc[0] = flow_feed(&f, "{\"ph\":\"B\",\"name\":\"b\",\"ts\":1}", &k);
	rc[1] = flow_feed(&f, "{\"ph\":\"X\",\"name\":\"x\",\"ts\":1}", &k);
	snprintf(big, sizeof(big), "{\"ph\":\"X\",\"name\":\"x\",\"ts\":1,"
	    "\"args\":{\"correlation\":\"%0256d\"}}", 0);
	rc[2] = flow_feed(&f, big, &k);
	ok(rc[0] == 0 && rc[1] == MCT_FLOW_NOKEY && rc[2] == MCT_FLOW_NOKEY,
	    "flow: B is no X; an X without id, or with one over 255 bytes, "
	    "is a slice");
	/* a launch of nothing, then time passes on a sorted input */
	flow_feed(&f, "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"c\","
	    "\"ts\":200,\"dur\":1,\"args\":{\"correlation\":9}}", &k);
	for (i = 0; i < 65536 && g.nodev == 0; i++) {
		snprintf(line, sizeof(line), "{\"ph\":\"X\",\"name\":\"x\","
		    "\"ts\":%d}", 2000 + i);
		flow_feed(&f, line, &k);
	}
	ok(g.nodev == 1 && mct_map_find(&f.corrs, "9", 1) == NULL,
	    "flow: a launch without device work is forgotten --window after "
	    "it ended (sorted), and said");
	/* ids are a rank's own; ids over 255 bytes are not ids */
	h.ranked = 1;
	snprintf(line, sizeof(line), "{\"ph\":\"X\",\"rank\":3,\"ts\":1,"
	    "\"args\":{\"co_id\":\"7\"}}");
	mct_event_init(&ev, line, strlen(line), &h);
	rc[3] = mct_flow_key(&f, &ev, &k);
	ok(rc[3] == 0 && k.len == 3 && memcmp(k.p, "3\0367", 3) == 0,
	    "flow: the key is the rank, \\036, then the id (strings unquoted)");
	mct_event_free(&ev);
	mct_flow_free(&f);
	mct_buf_free(&g.out);
	mct_buf_free(&k);
}

/* ------------------------------------------------------------------ */
/* rankpart.c: mct-ranks' partials, and partial.c's line reader under them */

static char rpdir[256];

/* rpdir/name (a ring of 4). */
static const char *
rp_path(const char *name)
{
	static char path[4][512];
	static int next;
	char *p = path[next++ % 4];

	snprintf(p, 512, "%s/%s", rpdir, name);
	return p;
}

/* The file rpdir/name of n bytes of text (0: all of it). */
static const char *
tfile_rp(const char *name, const char *text, size_t n)
{
	const char *p = rp_path(name);
	FILE *f;

	if (n == 0)
		n = strlen(text);
	if ((f = fopen(p, "wb")) == NULL || fwrite(text, 1, n, f) != n ||
	    fclose(f) != 0) {
		diag("cannot write %s: %s", p, strerror(errno));
		exit(99);
	}
	return p;
}

/* The partial rp written (stdout) into the file rpdir/name. */
static const char *
rp_write(const struct mct_rpart *rp, const char *name)
{
	const char *p = rp_path(name);
	int saved, fd;

	fflush(stdout);
	saved = dup(1);
	if ((fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0644)) == -1) {
		diag("cannot write %s: %s", p, strerror(errno));
		exit(99);
	}
	dup2(fd, 1);
	mct_rpart_write(rp);
	fflush(stdout);
	dup2(saved, 1);
	close(saved);
	close(fd);
	return p;
}

/* mct_rpart_read() of path (NULL: mct_rpart_align()), its messages in err. */
static int
rp_read(struct mct_rpart *rp, const char *path, struct mct_buf *err)
{
	FILE *ef = tmpfile();
	char buf[1024];
	size_t n;
	int saved, st;

	fflush(stderr);
	saved = dup(2);
	dup2(fileno(ef), 2);
	st = path ? mct_rpart_read(rp, path) : mct_rpart_align(rp);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	err->len = 0;
	rewind(ef);
	while ((n = fread(buf, 1, sizeof(buf), ef)) > 0)
		mct_buf_add(err, buf, n);
	mct_buf_addc(err, '\0');
	fclose(ef);
	return st;
}

/* The text of file path, NUL-terminated, into b. */
static void
rp_text(const char *path, struct mct_buf *b)
{
	FILE *f = fopen(path, "rb");
	char buf[4096];
	size_t n;

	b->len = 0;
	while (f != NULL && (n = fread(buf, 1, sizeof(buf), f)) > 0)
		mct_buf_add(b, buf, n);
	mct_buf_addc(b, '\0');
	if (f != NULL)
		fclose(f);
}

/* Two ranks, 3 (a round, calls of two names) and 1 (none), from x.json. */
static void
rp_sample(struct mct_rpart *rp, struct mct_strtab *st)
{
	static char src[] = "x.json";
	struct mct_rprank *r;

	memset(rp, 0, sizeof(*rp));
	rp->st = st;
	rp->opt[MCT_RP_KEY] = mct_xstrdup("name");
	rp->opt[MCT_RP_RULES] = mct_xstrdup("r.rules");
	rp->cover.has_origin = 1;
	rp->cover.origin = 5;
	rp->cover.unit = MCT_UNIT_US;
	rp->cover.src = mct_xmalloc(sizeof(char *));
	rp->cover.src[0] = mct_xstrdup(src);
	rp->cover.nsrc = 1;
	r = mct_rpart_rank(rp, 3);
	r->start = 10;
	r->end = 1000;
	r->busy = 700;
	r->compute = 600;
	r->comm = 150;
	r->rounds = 4;
	r->round = 220;
	r->hasround = 1;
	r->origin = 4;
	r->hasorigin = 1;
	mct_rpart_call(r, mct_intern(st, "nccl\"all\\reduce\xc3\xa9", 18),
	    1, 100, 50);
	mct_rpart_call(r, mct_intern(st, "ncclBroadcast", 13), 1, 100, 7);
	mct_rpart_call(r, mct_intern(st, "nccl\"all\\reduce\xc3\xa9", 18),
	    2, 900, 100);
	r = mct_rpart_rank(rp, 1);
	r->start = -5;
	r->end = 20;
	r->busy = r->compute = 25;
}

static int
rp_same_rank(const struct mct_rpart *a, const struct mct_rprank *x,
    const struct mct_rpart *b, const struct mct_rprank *y)
{
	size_t k;

	if (x->rank != y->rank || x->start != y->start || x->end != y->end ||
	    x->busy != y->busy || x->compute != y->compute ||
	    x->comm != y->comm || x->rounds != y->rounds ||
	    x->hasround != y->hasround || (x->hasround && x->round != y->round) ||
	    x->hasorigin != y->hasorigin ||
	    (x->hasorigin && x->origin != y->origin) ||
	    x->ncall != y->ncall)
		return 0;
	for (k = 0; k < x->ncall; k++)
		if (strcmp(a->st->str[x->call[k].name],
		    b->st->str[y->call[k].name]) != 0 ||
		    x->call[k].n != y->call[k].n || x->call[k].ts != y->call[k].ts ||
		    x->call[k].dur != y->call[k].dur)
			return 0;
	return 1;
}

static void
test_rankpart(void)
{
	struct mct_strtab st = { 0 }, st2 = { 0 };
	struct mct_rpart rp, in = { 0 };
	struct mct_buf err = { 0 }, t = { 0 };
	const char *a, *b, *p, *want;
	char cut[600];
	size_t hl, off;
	int s;

	snprintf(rpdir, sizeof(rpdir), "%s/mct-unit-rp.XXXXXX",
	    getenv("TMPDIR") && *getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	if (mkdtemp(rpdir) == NULL) {
		diag("mkdtemp %s: %s", rpdir, strerror(errno));
		exit(99);
	}
	rp_sample(&rp, &st);
	a = rp_write(&rp, "a.nd");
	rp_text(a, &t);
	hl = (size_t)(strchr(t.p, '\n') - t.p) + 1;
	want = "{\"mct_ranks_partial\":1,\"key\":\"name\",\"device\":"
	    "null,\"rules\":\"r.rules\",\"unit\":\"us\",\"origin\":5,\"sources\":"
	    "[\"x.json\"]}\n{\"rank\":3,\"start\":10,\"end\":1000,\"busy\":700,"
	    "\"compute\":600,\"comm\":150,\"rounds\":4,\"round\":220,"
	    "\"origin\":4}\n{\"rank\":3,"
	    "\"call\":\"nccl\\\"all\\\\reduce\xc3\xa9\",\"n\":1,\"ts\":100,"
	    "\"dur\":50}\n";
	ok(strncmp(t.p, want, strlen(want)) == 0 &&
	    strstr(t.p, "{\"rank\":1,\"start\":-5,\"end\":20,\"busy\":25,"
	    "\"compute\":25,\"comm\":0,\"rounds\":0,"
	    "\"round\":null,\"origin\":null}\n{\"mct_ranks_partial_end\":5}\n")
	    != NULL,
	    "rankpart: header, a rank's figures, its calls, the end line");

	in.st = &st2;
	s = rp_read(&in, a, &err);
	ok(s == MCT_EXIT_OK && *err.p == '\0' && in.nrk == 2 &&
	    rp_same_rank(&rp, &rp.rk[0], &in, &in.rk[0]) &&
	    rp_same_rank(&rp, &rp.rk[1], &in, &in.rk[1]),
	    "rankpart: read back, every figure and call is the same "
	    "(names with escapes and UTF-8 too)");
	ok(in.known[MCT_RP_KEY] && strcmp(in.opt[MCT_RP_KEY], "name") == 0 &&
	    in.known[MCT_RP_DEVICE] && in.opt[MCT_RP_DEVICE] == NULL &&
	    strcmp(in.opt[MCT_RP_RULES], "r.rules") == 0 &&
	    in.cover.unit == MCT_UNIT_US && in.cover.origin == 5 &&
	    in.cover.nsrc == 1 && strcmp(in.cover.src[0], "x.json") == 0,
	    "rankpart: the options and the traces covered come back");
	/* what was read is written again byte for byte (a merge's partial) */
	b = rp_write(&in, "b.nd");
	rp_text(b, &err);
	ok(strcmp(err.p, t.p) == 0, "rankpart: a partial of a partial is the same");

	/* the same rank twice: refused, both files named */
	s = rp_read(&in, b, &err);
	snprintf(cut, sizeof(cut), "b.nd:%zu: rank 3 is also in ", hl);
	ok(s == MCT_EXIT_USAGE && strstr(err.p, cut) &&
	    strstr(err.p, "a.nd: a rank split across partials cannot be merged"),
	    "rankpart: a rank in two partials is exit 2, both named (%s)",
	    esc(err.p, err.len));
	mct_rpart_free(&in);

	/* another rank, origin and source: merged with the first */
	rp.rk[0].rank = 7;
	rp.nrk = 1;
	rp.cover.origin = 2;
	free(rp.cover.src[0]);
	rp.cover.src[0] = mct_xstrdup("y.json");
	b = rp_write(&rp, "b.nd");
	memset(&in, 0, sizeof(in));
	in.st = &st2;
	s = rp_read(&in, a, &err);
	s = mct_status(s, rp_read(&in, b, &err));
	ok(s == MCT_EXIT_OK && in.nrk == 3 && in.rk[2].rank == 7 &&
	    in.rk[2].ncall == 3 && in.cover.origin == 2 && in.cover.nsrc == 2 &&
	    strcmp(in.cover.src[1], "y.json") == 0,
	    "rankpart: two partials: every rank, the smaller origin, both sources");

	/* --align start: each rank to the earliest rank's origin */
	in.rk[2].origin = 1;
	s = rp_read(&in, NULL, &err);
	ok(s == -1 && in.rk[0].shift == 0 && in.rk[0].start == 10 &&
	    strstr(err.p, "--align start: rank 1 of ") &&
	    strstr(err.p, "a.nd has no origin of its own"),
	    "rankpart: --align start wants every rank's origin (rank 1 has "
	    "none): %s", esc(err.p, err.len));
	in.rk[1].origin = 3;
	in.rk[1].hasorigin = 1;
	s = rp_read(&in, NULL, &err);
	ok(s == 0 && in.rk[0].shift == -3 && in.rk[0].start == 7 &&
	    in.rk[0].end == 997 && in.rk[0].call[1].ts == 97 &&
	    in.rk[0].busy == 700 && in.rk[1].shift == -2 &&
	    in.rk[1].start == -7 && in.rk[2].shift == 0 &&
	    in.rk[2].call[2].ts == 900 && in.rk[0].origin == 1 &&
	    in.cover.origin == 1,
	    "rankpart: --align start shifts each rank's times to the earliest "
	    "origin, not its figures");
	mct_rpart_free(&in);

	/* options given must be the partials' */
	memset(&in, 0, sizeof(in));
	in.st = &st2;
	in.opt[MCT_RP_DEVICE] = mct_xstrdup("pid == 2");
	in.known[MCT_RP_DEVICE] = 1;
	s = rp_read(&in, a, &err);
	ok(s == MCT_EXIT_USAGE && in.nrk == 0 && strstr(err.p, "a.nd:0: a "
	    "partial of another --device (none, not 'pid == 2')"),
	    "rankpart: a partial of other options is exit 2 (%s)",
	    esc(err.p, err.len));
	mct_rpart_free(&in);

	/* cut inside its fourth line: exit 1, the place named, the rest read */
	p = strchr(strchr(strchr(t.p, '\n') + 1, '\n') + 1, '\n') + 1;
	off = (size_t)(p - t.p);
	memcpy(cut, t.p, off + 10);
	p = tfile_rp("cut.nd", cut, off + 10);
	snprintf(cut, sizeof(cut), "cut.nd:%zu: truncated partial: its last "
	    "line is cut", off);
	memset(&in, 0, sizeof(in));
	in.st = &st2;
	s = rp_read(&in, p, &err);
	ok(s == MCT_EXIT_DAMAGED && in.nrk == 1 && in.rk[0].ncall == 1 &&
	    strstr(err.p, cut),
	    "rankpart: a truncated partial is exit 1, its intact lines read (%s)",
	    esc(err.p, err.len));
	mct_rpart_free(&in);

	/* an end line that counts other lines; a damaged line */
	memset(&in, 0, sizeof(in));
	in.st = &st2;
	p = tfile_rp("end.nd", "{\"mct_ranks_partial\":1,\"key\":null,\"device\":"
	    "null,\"rules\":null,\"unit\":\"ns\",\"origin\":null,\"sources\":[]}\n"
	    "{\"rank\":0,\"start\":0,\"end\":1,\"busy\":1,\"compute\":1,\"comm\":0,"
	    "\"rounds\":0,\"round\":null}\n{\"rank\":0,\"call\":\"x\",\"n\":0,"
	    "\"ts\":0,\"dur\":1}\n{\"mct_ranks_partial_end\":3}\n", 0);
	s = rp_read(&in, p, &err);
	ok(s == MCT_EXIT_DAMAGED && in.nrk == 1 && in.rk[0].ncall == 0 &&
	    strstr(err.p, "end.nd:184: damaged partial line") &&
	    strstr(err.p, "end.nd:227: the partial has 2 lines, its end line "
	    "says 3"), "rankpart: a damaged line, an end line that miscounts: "
	    "exit 1, each named (%s)", esc(err.p, err.len));
	mct_rpart_free(&in);

	/* another kind, another version */
	memset(&in, 0, sizeof(in));
	in.st = &st2;
	p = tfile_rp("g.nd", "{\"mct_partial\":1,\"by\":[\"name\"]}\n", 0);
	s = rp_read(&in, p, &err);
	ok(s == MCT_EXIT_USAGE && strstr(err.p, "g.nd:0: a partial of mct-group "
	    "-o partial, not of mct-ranks -o partial"),
	    "rankpart: mct-group's partial is exit 2, said (%s)",
	    esc(err.p, err.len));
	p = tfile_rp("v.nd", "{\"mct_ranks_partial\":2}\n", 0);
	s = rp_read(&in, p, &err);
	ok(s == MCT_EXIT_USAGE && strstr(err.p, "v.nd:0: a partial of format "
	    "version 2; this mct-ranks reads version 1"),
	    "rankpart: another version is exit 2, said (%s)", esc(err.p, err.len));
	mct_rpart_free(&in);

	mct_rpart_free(&rp);
	mct_strtab_free(&st);
	mct_strtab_free(&st2);
	mct_buf_free(&err);
	mct_buf_free(&t);
	for (s = 0; s < 6; s++)
		unlink(rp_path(((const char *[]){ "a.nd", "b.nd", "cut.nd",
		    "end.nd", "g.nd", "v.nd" })[s]));
	rmdir(rpdir);
}

/* ------------------------------------------------------------------ */
/* runsum.c: a run's device figures; group.c: keys; expr.c: error places */

static void
runsum_add(struct mct_runsum *rs, const char *json, int dev)
{
	struct mct_event ev;

	mct_event_init(&ev, json, strlen(json), NULL);
	mct_runsum_event(rs, &ev, dev);
	mct_event_free(&ev);
}

static void
test_runsum(void)
{
	struct mct_method m = { .min_rounds = 3, .min_share = 1, .split = 5,
	    .overlap = 80, .join = -1 };
	struct mct_runsum rs;
	struct mct_field by[2];
	struct mct_buf k = { 0 };
	struct mct_event ev;
	struct mct_expr *e;
	int64_t v[] = { 5, 1, 4, 2 }, w[] = { -3, -2 }, x[] = { 7 };
	char err[256], json[128];
	size_t at = 0;
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

	/* keys: --by fields' JSON texts, \037 apart; none without a field */
	mct_field_parse("name", &by[0]);
	mct_field_parse("args.grid", &by[1]);
	snprintf(json, sizeof(json), "{\"name\":\"k\",\"args\":{\"grid\":"
	    "[1,2]}}");
	mct_event_init(&ev, json, strlen(json), NULL);
	ok(mct_group_key(&ev, by, 2, 0, NULL, &k) == 0 && k.len == 9 &&
	    memcmp(k.p, "\"k\"\037[1,2]", 9) == 0, "group: an event's key");
	mct_event_free(&ev);
	mct_event_init(&ev, "{\"name\":\"k\"}", 12, NULL);
	ok(mct_group_key(&ev, by, 2, 0, NULL, &k) == -1 &&
	    mct_group_key(&ev, by, 2, 1, NULL, &k) == 0 && k.len == 4,
	    "group: no key without a field, unless missing is set");
	mct_event_free(&ev);
	mct_field_free(&by[0]);
	mct_field_free(&by[1]);
	mct_buf_free(&k);

	e = mct_expr_parse_at("dur > 5 && ", 0, err, sizeof(err), &at);
	ok(e == NULL && at == 11, "expr: the place of a missing field (%zu)",
	    at);
	e = mct_expr_parse_at("a == 1 && b ?? 2", 0, err, sizeof(err), &at);
	ok(e == NULL && at == 10, "expr: the place of the condition that "
	    "does not parse (%zu: %s)", at, err);
}

/* ------------------------------------------------------------------ */
/* metrics.c: wall times, log lines, the step function (mct-metrics) */

static void
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
	    mct_wall_ns("2026/12-02 07:00:00", 19, &utc, &ns) != 0 &&
	    mct_wall_ns("2026-12-02 07:00:00.", 20, &utc, &ns) != 0 &&
	    mct_wall_ns("2026-12-02 07:00:00.0000000001", 30, &utc, &ns) != 0 &&
	    mct_wall_ns("2026-12-02 07:00:00 x", 21, &utc, &ns) != 0 &&
	    mct_wall_ns("2262-04-12 00:00:00", 19, &utc, &ns) != 0 &&
	    mct_wall_ns("1677-09-21 00:00:00", 19, &utc, &ns) != 0,
	    "metrics: no date alone, no minutes alone, no month 13, no "
	    "mixed separators, nothing below a ns, nothing after, nothing "
	    "beyond int64 ns");
}

static void
test_metrics_log(void)
{
	static const char hdr[] = "timestamp, index, clocks.sm [MHz], "
	    "util (%), name";
	struct mct_mlog l = { .tunit = MCT_UNIT_NS };
	const char *why = NULL;
	char b[64];
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
	    l.col[4].role == MCT_MC_TEXT,
	    "metrics: a line: time, device, a value with its unit; [N/A] is "
	    "no sample, a quoted comma stays in its field, text is no metric");
	ok(mct_mlog_line(&l, "2026/12/02 07:00:01.6, 3, 1410 GHz, 1, x", 40) ==
	    -1 && strstr(l.why, "clocks.sm") != NULL &&
	    mct_mlog_line(&l, "2026/12/02 07:00:01.6, 3, 1410", 30) == -1 &&
	    strcmp(l.why, "3 fields, the header has 5") == 0 &&
	    mct_mlog_line(&l, "2026/12/02 07:00:01.6, GPU[x], 1, 1, x", 38) ==
	    -1 && mct_mlog_line(&l, hdr, sizeof(hdr) - 1) == 0 &&
	    mct_mlog_line(&l, "# a comment", 11) == 0 &&
	    mct_mlog_line(&l, "\r", 1) == 0,
	    "metrics: bad lines say why; the header again, comments and "
	    "blank lines are skipped");
	ok(mct_value_e6("12.3456789", 10, &l.sample[0].v) == 0 &&
	    l.sample[0].v == 12345679 && mct_value_e6("1e15", 4,
	    &l.sample[0].v) != 0 && mct_fmt_e6(b, -1500000) == 4 &&
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

static void
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

/*
 * Issue 16: the ts/dur spans mct_scan() notes for the reader, the index
 * that stops at them, and the decimal fast paths (eight digits a word,
 * six-digit fractions in the scan).
 */
static void
test_times(void)
{
	static const struct { const char *in, *ts, *dur; int n; } sp[] = {
		{ "{\"ts\":1661203462601978,\"dur\":7}", "1661203462601978", "7", 2 },
		{ "{\"ts\": 1712195480123456.789, \"dur\" : 2.5}",
		    "1712195480123456.789", "2.5", 2 },
		{ "{\"dur\":\"12\",\"x\":[1],\"ts\":\"3.25\"}", "12", "3.25", 2 },
		{ "{\"ts\":1.2345678,\"dur\":-0.5}", "1.2345678", "-0.5", 2 },
		{ "{\"ts\":\"x\",\"dur\":[1],\"args\":{\"ts\":1}}", NULL, NULL, 0 },
		{ "{\"ts\":1,\"dur\":2,\"ts\":3}", "1", "2", 3 },
		{ "{\"ts\":12345678901234567890123,\"dur\":1e3}",
		    "12345678901234567890123", "1e3", 2 },
	};
	struct mct_kv *kv = NULL;
	struct mct_buf out = { 0 };
	struct mct_scan s = { 0 };
	const char *t;
	size_t i;
	int nkv, cap = 0, n;

	for (i = 0; i < sizeof(sp) / sizeof(sp[0]); i++) {
		out.len = 0;
		s.p = sp[i].in;
		s.end = sp[i].in + strlen(sp[i].in) + 1;	/* the NUL ends it */
		s.out = &out;
		s.event = 1;
		ok(mct_scan(&s) == MCT_SCAN_OK && s.ntimes == sp[i].n &&
		    (sp[i].n == 0 || (s.time_len[0] == strlen(sp[i].ts) &&
		    memcmp(out.p + s.time_off[0], sp[i].ts, s.time_len[0]) == 0 &&
		    s.time_len[1] == strlen(sp[i].dur) &&
		    memcmp(out.p + s.time_off[1], sp[i].dur, s.time_len[1]) == 0)),
		    "mct_scan .event: the ts/dur numbers of %s are where they are "
		    "in the copy (%d)", sp[i].in, s.ntimes);
	}
	/* the fraction in the scan's one pass: the same e6 as mct_dec_e6 */
	t = "{\"ts\":1712195480123456.789}";
	s.p = t;
	s.end = t + strlen(t) + 1;
	ok(mct_scan(&s) == MCT_SCAN_OK && s.ts_kind == MCT_TS_FRAC &&
	    s.ts_e6 == (mct_i128)1712195480123456789LL * 1000,
	    "mct_scan .event: a fraction of three digits, exactly at 1e-6");
	t = "{\"ts\":99.000001,\"dur\":1.1234567}";
	s.p = t;
	s.end = t + strlen(t) + 1;
	ok(mct_scan(&s) == MCT_SCAN_OK && s.ts_kind == MCT_TS_FRAC &&
	    s.ts_e6 == 99000001 && s.dur_kind == MCT_TS_FRAC,
	    "mct_scan .event: six digits after the point, and seven");
	free(s.kv);
	mct_buf_free(&out);

	/*
	 * mct_index_times: the ts and dur numbers, up to the first of each,
	 * the rest unlooked at; the same below 64 bytes (a byte at a time)
	 * and above (64 at a time), so each text also goes padded to 200
	 * bytes with a first key "p" first.
	 */
	{
		static const char *const tt[] = {
			"\"ph\":\"X\",\"ts\":5,\"dur\":6,\"args\":{broken",
			"\"ts\":\"x\",\"dur\":2,\"ts\":1,\"a\":0}",
			"\"ts\":1,\"a\":{\"dur\":2},\"b\":0}",
			"\"a\":\"\\\"ts\\\":1,{\\\"dur\\\"\",\"b\":[{\"ts\":3}],"
			    "\"ts\":-1.5e3,\"dur\":7}",
			"\"x\\\\\":{\"dur\":1},\"dur\":2,\"ts\":3}",
		};
		/* per text: n, then the (klen, first digit) of each */
		static const char *const want[] = {
			"2 2:5 3:6", "2 3:2 2:1", "1 2:1", "2 2:- 3:7",
			"2 3:2 2:3",
		};
		struct mct_buf tb = { 0 };
		char got[64];
		size_t ti, pad;
		int j, w;

		for (pad = 0; pad < 2; pad++)
			for (ti = 0; ti < sizeof(tt) / sizeof(tt[0]); ti++) {
				tb.len = 0;
				mct_buf_add(&tb, "{", 1);
				if (pad) {
					mct_buf_add(&tb, "\"p\":\"", 5);
					while (tb.len < 190)
						mct_buf_add(&tb, "y", 1);
					mct_buf_add(&tb, "\",", 2);
				}
				mct_buf_add(&tb, tt[ti], strlen(tt[ti]));
				n = mct_index_times(tb.p, tb.len, &kv, &nkv,
				    &cap);
				w = snprintf(got, sizeof(got), "%d", n);
				for (j = 0; j < n && w < 50; j++)
					w += snprintf(got + w, sizeof(got) -
					    (size_t)w, " %u:%c", kv[j].klen,
					    tb.p[kv[j].voff]);
				ok(strcmp(got, want[ti]) == 0 && (n < 1 ||
				    memcmp(tb.p + kv[0].koff, kv[0].klen == 2 ?
				    "ts\"" : "dur\"", kv[0].klen + 1) == 0),
				    "mct_index_times %s (%s bytes): %s",
				    tt[ti], pad ? "200" : "few", got);
			}
		mct_buf_free(&tb);
	}
	{
		/* every place of the keys in and across the 64-byte blocks */
		struct mct_buf tb = { 0 };
		int pad, bad = -1;

		for (pad = 0; pad < 200 && bad < 0; pad++) {
			tb.len = 0;
			mct_buf_add(&tb, "{\"p\":\"", 6);
			while (tb.len < (size_t)pad + 6)
				mct_buf_add(&tb, tb.len % 7 ? "y" : "\\\\",
				    tb.len % 7 ? 1 : 2);
			t = "\",\"q\":{\"ts\":1},\"ts\":12,\"dur\":3.5,\"r\":0}";
			mct_buf_add(&tb, t, strlen(t));
			n = mct_index_times(tb.p, tb.len, &kv, &nkv, &cap);
			if (n != 2 || kv[0].klen != 2 || kv[0].vlen != 2 ||
			    memcmp(tb.p + kv[0].voff, "12,", 3) != 0 ||
			    kv[1].klen != 3 || kv[1].vlen != 3 ||
			    memcmp(tb.p + kv[1].voff, "3.5,", 4) != 0)
				bad = pad;
		}
		ok(bad < 0, "mct_index_times: the keys at every place of a "
		    "block (first wrong at %d)", bad);
		mct_buf_free(&tb);
	}
	t = "{\"ph\":\"X\",\"ts\":5,\"dur\":6,\"args\":{broken";
	ok(mct_index(t, strlen(t), &kv, &nkv, &cap) == -1,
	    "mct_index: the object above is broken after dur");
	n = mct_index_times(t, strlen(t), &kv, &nkv, &cap);
	ok(n == 2 && kv[0].vlen == 1 && kv[1].vlen == 1,
	    "mct_index_times: each number's length");
	free(kv);

	/* dec_scaled's eight digits a word, at the edges of its fast path */
	t_dec_ns("12345678.87654321", MCT_UNIT_S, 0, 12345678876543210LL);
	t_dec_ns("1234567890123456789", MCT_UNIT_NS, 0, 1234567890123456789LL);
	t_dec_ns("123456789012345678.9", MCT_UNIT_NS, 0, 123456789012345679LL);
	t_dec_ns("1234567890123456.7890", MCT_UNIT_US, 0, 1234567890123456789LL);
	t_dec_ns("-1234567890123456.7895", MCT_UNIT_US, 0, -1234567890123456790LL);
	t_dec_ns("9223372036854775.807", MCT_UNIT_US, 0, INT64_MAX);
	t_dec_ns("9223372036854775.808", MCT_UNIT_US, -1, 0);
	t_dec_ns("00000000000000000001", MCT_UNIT_US, 0, 1000);
	t_dec_ns("1.", MCT_UNIT_US, 0, 1000);
	t_dec_ns(".5", MCT_UNIT_US, 0, 500);
	t_dec_ns("1234567a", MCT_UNIT_US, -1, 0);
	t_dec_ns("12345678.9x", MCT_UNIT_US, -1, 0);
}

static int
cmp_i64_test(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return x < y ? -1 : x > y;
}

/* mct_sort_i64 against qsort, on sizes and spreads of every kind. */
/*
 * mct_tmpfile(): an unlinked file in $TMPDIR, buffered by the 1 MiB it
 * hands back: what is written stays there until 1 MiB or a flush (glibc
 * gives a file 4 KiB when setvbuf() is asked for more without a buffer).
 */
static void
test_tmpfile(void)
{
	char *buf = NULL, *name = NULL, chunk[4096];
	struct stat st;
	FILE *f;
	int i, fd;

	memset(chunk, 'x', sizeof(chunk));
	f = mct_tmpfile(&name, &buf);
	ok(f != NULL && buf != NULL && name != NULL &&
	    stat(name, &st) == -1 && errno == ENOENT,
	    "mct_tmpfile: made, named and unlinked");
	if (f == NULL)
		return;
	fd = fileno(f);
	for (i = 0; i < 200; i++)
		fwrite(chunk, 1, sizeof(chunk), f);
	if (fstat(fd, &st) != 0)
		st.st_size = -1;
	ok(st.st_size == 0,
	    "mct_tmpfile: 800 KiB written stay in its buffer (file size %lld)",
	    (long long)st.st_size);
	for (i = 0; i < 100; i++)
		fwrite(chunk, 1, sizeof(chunk), f);
	if (fstat(fd, &st) != 0)
		st.st_size = -1;
	ok(st.st_size == 1 << 20,
	    "mct_tmpfile: at 1 MiB the buffer goes out whole (file size %lld)",
	    (long long)st.st_size);
	if (fflush(f) != 0 || fstat(fd, &st) != 0)
		st.st_size = -1;
	ok(st.st_size == 300 * 4096,
	    "mct_tmpfile: all of it after a flush (file size %lld)",
	    (long long)st.st_size);
	fclose(f);
	free(buf);
	free(name);
}

/* The kernel's transparent huge page mode: "[madvise]" gives them on request. */
static int
thp_mode(char *mode, size_t n)
{
	FILE *f = fopen("/sys/kernel/mm/transparent_hugepage/enabled", "r");
	char line[256], *a, *b;

	if (f == NULL)
		return -1;
	a = fgets(line, sizeof(line), f);
	fclose(f);
	if (a == NULL || (a = strchr(line, '[')) == NULL ||
	    (b = strchr(a, ']')) == NULL || (size_t)(b - a) >= n)
		return -1;
	memcpy(mode, a + 1, (size_t)(b - a - 1));
	mode[b - a - 1] = '\0';
	return 0;
}

/* kB of anonymous huge pages this process has, or -1. */
static long
anon_huge_kb(void)
{
	FILE *f = fopen("/proc/self/smaps_rollup", "r");
	char line[256];
	long kb = -1;

	if (f == NULL)
		return -1;
	while (fgets(line, sizeof(line), f) != NULL)
		if (sscanf(line, "AnonHugePages: %ld kB", &kb) == 1)
			break;
	fclose(f);
	return kb;
}

/*
 * mct_heap_keep(): where huge pages are given on request, a buffer the
 * reader makes soon after lies in 2 MiB pages, written by any thread.
 * (A sanitizer's allocator has no such heap; "always" gives them anyway.)
 */
static void *
heap_touch(void *arg)
{
	size_t n = 6 << 20;
	char *p = mct_xmalloc(n);

	memset(p, 'x', n);
	*(char **)arg = p;
	return NULL;
}

static void
test_heap(void)
{
	char mode[32], *p = NULL;
	const char *env = getenv("MCT_HUGEPAGES");
	pthread_t t;
	long before, after;

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
	printf("# heap: skipped under a sanitizer (its own allocator)\n");
	return;
#endif
	if (thp_mode(mode, sizeof(mode)) == -1 || strcmp(mode, "madvise") != 0 ||
	    (env != NULL && strcmp(env, "0") == 0) ||
	    (before = anon_huge_kb()) < 0) {
		printf("# heap: skipped (huge pages not given on request here)\n");
		return;
	}
	mct_heap_keep();
	if (pthread_create(&t, NULL, heap_touch, &p) != 0) {
		ok(0, "mct_heap_keep: a thread to allocate");
		return;
	}
	pthread_join(t, NULL);
	after = anon_huge_kb();
	ok(after - before >= 4096,
	    "mct_heap_keep: 6 MiB a thread allocates and writes lie in huge "
	    "pages (%ld kB of them before, %ld after)", before, after);
	free(p);
}

static void
test_sort(void)
{
	static const size_t sizes[] = { 0, 1, 2, 63, 64, 65, 1000, 100003 };
	int64_t *v, *w;
	size_t si, i, nbad = 0, ntried = 0;
	int kind;

	for (si = 0; si < sizeof(sizes) / sizeof(sizes[0]); si++) {
		size_t n = sizes[si];

		v = mct_xmalloc((n + 1) * sizeof(*v));
		w = mct_xmalloc((n + 1) * sizeof(*w));
		for (kind = 0; kind < 6; kind++) {
			for (i = 0; i < n; i++) {
				uint64_t r = rnd();

				switch (kind) {
				case 0:		/* any int64 */
					v[i] = (int64_t)r;
					break;
				case 1:		/* durations: small, positive */
					v[i] = (int64_t)(r % 100000);
					break;
				case 2:		/* both signs, near zero */
					v[i] = (int64_t)(r % 2001) - 1000;
					break;
				case 3:		/* few values, many times */
					v[i] = (int64_t)(r % 3) * INT64_C(1000000007);
					break;
				case 4:		/* the ends of int64 */
					v[i] = r % 3 == 0 ? INT64_MIN : r % 3 == 1 ?
					    INT64_MAX : (int64_t)(r % 5) - 2;
					break;
				default:	/* ns timestamps, in order less a few */
					v[i] = INT64_C(1712195482373956660) +
					    (int64_t)(i * 1000) - (int64_t)(r % 5000);
					break;
				}
			}
			memcpy(w, v, n * sizeof(*v));
			mct_sort_i64(v, n);
			if (n > 0)
				qsort(w, n, sizeof(*w), cmp_i64_test);
			ntried++;
			if (n > 0 && memcmp(v, w, n * sizeof(*v)) != 0) {
				if (nbad++ < 3)
					printf("# mct_sort_i64: %zu values of kind "
					    "%d differ from qsort\n", n, kind);
			}
		}
		free(v);
		free(w);
	}
	ok(nbad == 0, "mct_sort_i64 sorts as qsort does (%zu arrays, 0 to "
	    "100,003 values, six spreads)", ntried);
}

/* A helper of mct_thread(): what the thread saw of itself. */
struct seen_thread {
	int	 arg;
	int	 ncpu;		/* CPUs it may run on, once running */
	char	 name[16];
};

static void *
thread_body(void *a)
{
	struct seen_thread *st = a;

	st->arg *= 2;
#ifdef HAVE_PTHREAD_ATTR_SETAFFINITY_NP
	{
		cpu_set_t set;

		if (pthread_getaffinity_np(pthread_self(), sizeof(set),
		    &set) == 0)
			st->ncpu = CPU_COUNT(&set);
	}
#endif
#ifdef HAVE_PTHREAD_SETNAME_NP
	(void)pthread_getname_np(pthread_self(), st->name, sizeof(st->name));
#endif
	return st;
}

static void
test_threads(void)
{
	struct seen_thread st[5];
	pthread_t tid[5];
	void *ret;
	int i, all = 1, nstarted = 0, good = 0;
	char *p;
	size_t n;

#ifdef HAVE_PTHREAD_ATTR_SETAFFINITY_NP
	{
		cpu_set_t set;

		if (pthread_getaffinity_np(pthread_self(), sizeof(set),
		    &set) == 0)
			all = CPU_COUNT(&set);
	}
#endif
	for (i = 0; i < 5; i++) {
		memset(&st[i], 0, sizeof(st[i]));
		st[i].arg = i + 1;
		if (mct_thread(&tid[i], "mct-test", thread_body, &st[i], i) == 0)
			nstarted++;
	}
	for (i = 0; i < nstarted; i++)
		if (pthread_join(tid[i], &ret) == 0 && ret == &st[i] &&
		    st[i].arg == 2 * (i + 1))
			good++;
	ok(nstarted == 5 && good == 5, "mct_thread: 5 threads run their "
	    "function with their argument, and join with its value");
#ifdef HAVE_PTHREAD_ATTR_SETAFFINITY_NP
	for (i = 0, good = 0; i < nstarted; i++)
		good += st[i].ncpu == all;
	ok(good == 5, "mct_thread: once running, each thread may use the %d "
	    "CPUs its creator may (%d of 5)", all, good);
#endif
#ifdef HAVE_PTHREAD_SETNAME_NP
	for (i = 0, good = 0; i < nstarted; i++)
		good += strcmp(st[i].name, "mct-test") == 0;
	ok(good == 5, "mct_thread: each thread has its name (%d of 5)", good);
#endif
	/* mct_prefault: any range, the bytes kept */
	for (n = 1, good = 1; n <= 3 * PREFAULT; n = n * 3 + 1) {
		p = mct_xmalloc(n + 7);
		memset(p, 'x', n + 7);
		mct_prefault(p + 3, n);
		mct_prefault(p, 0);
		for (i = 0; i < (int)(n + 7); i++)
			if (p[i] != 'x')
				good = 0;
		free(p);
	}
	ok(good, "mct_prefault keeps the bytes of ranges of 1 to %d bytes at "
	    "odd addresses", 3 * PREFAULT);
}

int
main(void)
{
	void *shared = mmap(NULL, sizeof(*C), PROT_READ | PROT_WRITE,
	    MAP_SHARED | MAP_ANONYMOUS, -1, 0);

	if (shared != MAP_FAILED)
		C = shared;
	setvbuf(stdout, NULL, _IOLBF, 0);
	test_time();
	test_tmpfile();
	test_heap();
	test_sort();
	test_threads();
	test_scan();
	test_event();
	test_unspace();
	test_compact();
	test_field();
	test_vfields();
	test_short();
	test_stack();
	test_flow();
	test_map();
	test_intern();
	test_group();
	test_sketch();
	test_phases();
	test_device();
	test_seen();
	test_rankpart();
	test_runsum();
	test_metrics_wall();
	test_metrics_log();
	test_metrics_series();
	test_times();
	test_differential();
	run_reader_tests();
	printf("1..%d\n", C->ntests);
	if (C->nfailed)
		diag("%d of %d tests failed", C->nfailed, C->ntests);
	return C->nfailed ? 1 : 0;
}
