/*
 * unit-time.c - time.c: exact decimals, the time syntax, numbers for
 * people.
 */
#include "config.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "mct.h"
#include "unit.h"

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

/* Bytes: exact, d is a whole number (given as one too). */
static void
t_fmt_bytes(double d, int exact, const char *want)
{
	char buf[64];
	int64_t v = (int64_t)d;
	size_t n = mct_fmt_bytes(buf, sizeof(buf), d, exact ? &v : NULL);

	ok(n == strlen(want) && strcmp(buf, want) == 0,
	    "mct_fmt_bytes(%.17g%s) = \"%s\" (got \"%s\")", d,
	    exact ? ", exact" : "", want, buf);
}

static void
t_fmt_double(double d, const char *want)
{
	char buf[64];
	size_t n = mct_fmt_double(buf, d);

	ok(n == strlen(want) && strcmp(buf, want) == 0,
	    "mct_fmt_double(%.17g) = \"%s\" (got \"%s\")", d, want, buf);
}

void
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
	/* minutes past int64 ns, some past an int128 at 1e-9 ns times 60 */
	t_dur("153722867m", 0, INT64_C(9223372020000000000));
	t_dur("153722868m", -1, 0);
	t_dur("9223372036854775807m", -1, 0);
	t_dur("-9223372036854775807m", -1, 0);
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
	/* bytes as the seed prints them (mct-group(1)) */
	t_fmt_bytes(12544, 1, "12,544 B");
	t_fmt_bytes(99999, 1, "99,999 B");
	t_fmt_bytes(100000, 1, "100.00 KB");
	t_fmt_bytes(1879000000, 1, "1.879 GB");
	t_fmt_bytes(426010000000.0, 1, "426.01 GB");
	t_fmt_bytes(101305344, 1, "101.31 MB");
	t_fmt_bytes(-20480, 1, "-20,480 B");
	t_fmt_bytes(2.5, 0, "2.500 B");
	t_fmt_bytes(12.5, 0, "12.50 B");
	t_fmt_bytes(9223372036854775807.0, 0, "9223372.04 TB");
	t_fmt_double(0.1, "0.1");
	t_fmt_double(0.3, "0.3");
	t_fmt_double(2.5, "2.5");
	t_fmt_double(1.0 / 3, "0.3333333333333333");
	t_fmt_double(100, "100");
	t_fmt_double(-42, "-42");
	t_fmt_double(1e15, "1000000000000000");
	t_fmt_double(1.7e18, "1700000000000000000");
	t_fmt_double(-1775078550123456768.0, "-1775078550123456768");
	t_fmt_double(9.999999999999999e20, "999999999999999868928");
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

/* The decimal fast path of mct_dec_ns(): eight digits a word, at its edges. */
void
test_dec_fast(void)
{
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
