/*
 * time.c - int64 nanoseconds, exactly, from decimal text; times written
 * with a unit (26.5s, @123), as option values (cli.c) and the --where
 * language (expr.c, which cli.c calls) both take them; numbers for
 * people.
 *
 * Nothing here goes through a double on the way in: absolute timestamps
 * in ns exceed 2^53, and a µs text like 1712195495519689.047 must become
 * 1712195495519689047 exactly.
 */
#include "config.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "mct.h"
#include "mct_private.h"

typedef mct_i128 i128;

#define E6	1000000

/*
 * Up to max decimal digits at p, as a number in *u; returns how many.
 * Eight at a time while they last (Kineto's µs times have 16 before the
 * point).
 */
static inline int
digits(const char *p, const char *end, int max, uint64_t *u)
{
	const char *q = p;
	uint64_t v = 0;
#ifdef MCT_DIGITS8
	int64_t d;

	while (end - q >= 8 && (q - p) + 8 <= max &&
	    (d = mct_digits8(q)) >= 0) {
		v = v * 100000000 + (uint64_t)d;
		q += 8;
	}
#endif
	for (; q < end && q - p < max && (unsigned)(*q - '0') < 10; q++)
		v = v * 10 + (uint64_t)(*q - '0');
	*u = v;
	return (int)(q - p);
}

/*
 * The JSON number s[0..n) times 10^scale, exactly, rounded once, half
 * away from zero.  Returns 0, or -1 if s is not a number or too large.
 */
static int
dec_scaled(const char *s, size_t n, int scale, i128 *out)
{
	static const uint64_t p10[] = { 1, 10, 100, 1000, 10000, 100000,
	    1000000, 10000000, 100000000, 1000000000, 10000000000ULL,
	    100000000000ULL, 1000000000000ULL, 10000000000000ULL,
	    100000000000000ULL, 1000000000000000ULL, 10000000000000000ULL,
	    100000000000000000ULL, 1000000000000000000ULL,
	    10000000000000000000ULL };
	const char *p = s, *end = s + n, *q;
	i128 v = 0, lim = (i128)1 << 120;
	int neg = 0, nd, frac = -1, exp = 0, eneg = 0, roundup = 0;
	int shift, i;
	uint64_t u = 0, f;

	if (p < end && (*p == '-' || *p == '+'))
		neg = *p++ == '-';
	/*
	 * The common case first, in 64 bits: Kineto's 1661203462598738.047
	 * (at most 19 digits, no exponent, no digit to round away).
	 */
	nd = digits(p, end, 19, &u);
	q = p + nd;
	frac = 0;
	if (q < end && *q == '.') {
		frac = digits(q + 1, end, 19 - nd, &f);
		u = u * p10[frac] + f;
		q += 1 + frac;
		nd += frac;
	}
	if (q == end && nd > 0 && (shift = scale - frac) >= 0) {
		if (shift <= 9 && u <= UINT64_MAX / p10[shift])
			v = (i128)(u * p10[shift]);
		else
			for (v = (i128)u; shift > 0; shift--)
				v *= 10;
		*out = neg ? -v : v;
		return 0;
	}
	nd = 0;
	frac = -1;
	for (; p < end; p++) {
		if (*p >= '0' && *p <= '9') {
			if (frac >= 0)
				frac++;
			if (v > lim / 10) {
				if (frac < 0)
					return -1;
				frac--;	/* drop digits far beyond precision */
				continue;
			}
			v = v * 10 + (*p - '0');
			nd++;
		} else if (*p == '.' && frac < 0)
			frac = 0;
		else
			break;
	}
	if (nd == 0)
		return -1;
	if (p < end && (*p == 'e' || *p == 'E')) {
		p++;
		if (p < end && (*p == '-' || *p == '+'))
			eneg = *p++ == '-';
		if (p >= end)
			return -1;
		for (; p < end && *p >= '0' && *p <= '9'; p++)
			if (exp < 1000)
				exp = exp * 10 + (*p - '0');
		if (eneg)
			exp = -exp;
	}
	if (p != end)
		return -1;
	/* value = v * 10^(exp - frac) ; we want value * 10^scale */
	shift = scale + exp - (frac < 0 ? 0 : frac);
	if (shift > 0) {
		for (i = 0; i < shift; i++) {
			if (v > lim / 10)
				return -1;
			v *= 10;
		}
	} else {
		for (i = 0; i < -shift; i++) {
			if (v == 0) {
				roundup = 0;
				break;
			}
			roundup = (int)(v % 10) >= 5;
			v /= 10;
		}
		v += roundup;
	}
	*out = neg ? -v : v;
	return 0;
}

/* The JSON number s[0..n) times 10^6, rounded half away from zero. */
int
mct_dec_e6(const char *s, size_t n, i128 *out)
{
	return dec_scaled(s, n, 6, out);
}

/* A value in the source's unit, times 10^6, to ns (rounded half away from zero). */
int
mct_e6_ns(i128 e6, enum mct_unit u, int64_t *ns)
{
	i128 v, q;
	int neg = e6 < 0;

	v = neg ? -e6 : e6;
	switch (u) {
	case MCT_UNIT_S:
		if (v > (i128)INT64_MAX * 1000)
			return -1;
		q = v * 1000;
		break;
	case MCT_UNIT_MS:
		q = v;
		break;
	case MCT_UNIT_US:
		q = (v + 500) / 1000;
		break;
	default:
		q = (v + E6 / 2) / E6;
		break;
	}
	if (q > INT64_MAX)
		return -1;
	*ns = neg ? -(int64_t)q : (int64_t)q;
	return 0;
}

/* The JSON number s[0..n), in unit u, as integer ns. */
int
mct_dec_ns(const char *s, size_t n, enum mct_unit u, int64_t *ns)
{
	i128 e6;

	if (n > 0 && u == MCT_UNIT_NS && n < 19) {
		/* The common case: a plain integer of ns. */
		const char *p = s, *end = s + n;
		int64_t v = 0;
		int neg = *p == '-';

		if (neg)
			p++;
		while (p < end && *p >= '0' && *p <= '9')
			v = v * 10 + (*p++ - '0');
		if (p == end && p > s + neg) {
			*ns = neg ? -v : v;
			return 0;
		}
	}
	if (dec_scaled(s, n, u == MCT_UNIT_S ? 9 : u == MCT_UNIT_MS ? 6 :
	    u == MCT_UNIT_US ? 3 : 0, &e6) != 0 || e6 > INT64_MAX ||
	    e6 < -INT64_MAX)
		return -1;
	*ns = (int64_t)e6;
	return 0;
}

/*
 * The JSON number s[0..n), in unit u, as the text of its integer ns at o
 * (21 bytes at most): mct_dec_ns() and mct_i64() in one.  Returns the
 * length, or 0 if it is beyond int64 ns.
 *
 * Most times in a trace are digits with a fraction of no more digits
 * than the unit has below it (a Kineto ts of us: "1661203462607008.123"):
 * their ns are those digits, the fraction padded with zeros, less the
 * leading zeros, exactly.  Those are written as text, without a number
 * in between; anything else (a sign, an exponent, a longer fraction to
 * round) and a text of ns past int64's 19 digits go through
 * mct_dec_ns().
 */
size_t
mct_ns_text(char *o, const char *s, size_t n, enum mct_unit u)
{
	size_t i, ni, nf = 0, k, w = 0;
	int64_t ns;

	k = u == MCT_UNIT_S ? 9 : u == MCT_UNIT_MS ? 6 : u == MCT_UNIT_US ?
	    3 : 0;
#ifdef MCT_DIGITS8
	/*
	 * 8 to 16 digits and no more: two words.  The ns have 19 digits at
	 * most, and only those from 9e18 on may pass int64.
	 */
	if (n >= 8 && n <= 16 && (n + k <= 18 || (n + k == 19 &&
	    s[0] < '9')) && s[0] != '0' &&
	    mct_digits16(s, n)) {
		memcpy(o, s, 8);
		memcpy(o + n - 8, s + n - 8, 8);
		for (i = 0; i < k; i++)
			o[n + i] = '0';
		return n + k;
	}
#endif
	for (i = 0; i < n && s[i] >= '0' && s[i] <= '9'; i++)
		;
	ni = i;
	if (i < n && s[i] == '.')
		for (i++; i < n && s[i] >= '0' && s[i] <= '9'; i++)
			nf++;
	if (ni == 0 || i < n || (ni < n && nf == 0) || nf > k ||
	    ni + k > 19 || (ni > 1 && s[0] == '0'))
		goto slow;
	if (ni > 1 || s[0] != '0') {
		memcpy(o, s, ni);
		w = ni;
	}
	for (i = ni + 1; i < ni + 1 + nf; i++)
		if (w > 0 || s[i] != '0')
			o[w++] = s[i];
	if (w == 0)
		o[w++] = '0';
	else
		for (i = nf; i < k; i++)
			o[w++] = '0';
	/* 19 digits (a Kineto ts of 16 digits of us) may pass int64 */
	if (w < 19 || o[0] < '9' || memcmp(o, "9223372036854775807", 19) <= 0)
		return w;
slow:
	if (mct_dec_ns(s, n, u, &ns) != 0)
		return 0;
	return mct_i64(o, ns);
}

/* A strict decimal integer s[0..n). */
int
mct_int(const char *s, size_t n, int64_t *v)
{
	const char *p = s, *end = s + n;
	uint64_t u = 0;
	int neg = 0;

	if (p < end && *p == '-') {
		neg = 1;
		p++;
	}
	if (p >= end)
		return -1;
	if (end - p <= 19) {
		/* below 10^19 < 2^64: only int64's range to check, once (epoch
		   ns have 19 digits) */
#ifdef MCT_DIGITS8
		for (; end - p >= 8; p += 8) {
			int64_t d = mct_digits8(p);

			if (d < 0)
				return -1;
			u = u * 100000000 + (uint64_t)d;
		}
#endif
		for (; p < end; p++) {
			if (*p < '0' || *p > '9')
				return -1;
			u = u * 10 + (uint64_t)(*p - '0');
		}
		if (u > (uint64_t)INT64_MAX + (uint64_t)neg)
			return -1;
		*v = neg ? (int64_t)(0 - u) : (int64_t)u;
		return 0;
	}
	for (; p < end; p++) {
		if (*p < '0' || *p > '9')
			return -1;
		if (u > (UINT64_MAX - 9) / 10)
			return -1;
		u = u * 10 + (uint64_t)(*p - '0');
	}
	if (u > (uint64_t)INT64_MAX + (uint64_t)neg)
		return -1;
	*v = neg ? (int64_t)(0 - u) : (int64_t)u;
	return 0;
}

static const struct {
	const char	*name;
	enum mct_unit	 unit;
	int64_t		 ns;
} units[] = {
	{ "auto", MCT_UNIT_AUTO, 0 },
	{ "ns", MCT_UNIT_NS, 1 },
	{ "us", MCT_UNIT_US, 1000 },
	{ "ms", MCT_UNIT_MS, 1000000 },
	{ "s", MCT_UNIT_S, 1000000000 },
};

int
mct_parse_unit(const char *s, enum mct_unit *u)
{
	size_t i;

	for (i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (strcmp(s, units[i].name) == 0) {
			*u = units[i].unit;
			return 0;
		}
	return -1;
}

const char *
mct_unit_name(enum mct_unit u)
{
	return units[u].name;
}

int64_t
mct_unit_ns(enum mct_unit u)
{
	return u == MCT_UNIT_AUTO ? 1 : units[u].ns;
}

/*
 * A duration on the command line: a decimal number with an optional unit
 * ns, us, ms, s or m; a bare number is ns.  Exact, rounded to the ns.
 */
int
mct_parse_dur(const char *s, int64_t *ns)
{
	static const struct { const char *u; int exp; } suf[] = {
		{ "ns", 0 }, { "us", 3 }, { "ms", 6 }, { "s", 9 }, { "m", 9 },
	};
	const char *p = s;
	i128 v;
	size_t n, i;
	int exp = 0, min = 0;

	if (*p == '-' || *p == '+')
		p++;
	while ((*p >= '0' && *p <= '9') || *p == '.')
		p++;
	n = (size_t)(p - s);
	if (*p != '\0') {
		for (i = 0; i < sizeof(suf) / sizeof(suf[0]); i++)
			if (strcmp(p, suf[i].u) == 0)
				break;
		if (i == sizeof(suf) / sizeof(suf[0]))
			return -1;
		exp = suf[i].exp;
		min = strcmp(p, "m") == 0;
	}
	if (n == 0 || dec_scaled(s, n, exp, &v) != 0)
		return -1;
	if (min) {
		/* minutes: scale at 1e-9 ns, times 60, round once */
		static const i128 e9 = 1000000000;

		if (dec_scaled(s, n, exp + 9, &v) != 0 ||
		    v > INT64_MAX * e9 || v < -INT64_MAX * e9)
			return -1;	/* past int64 ns: and v * 60 fits */
		v *= 60;
		v = (v + (v < 0 ? -e9 / 2 : e9 / 2)) / e9;
	}
	if (v > INT64_MAX || v < -INT64_MAX)
		return -1;
	*ns = (int64_t)v;
	return 0;
}

/* A time: a duration relative to the origin, or @N absolute. */
int
mct_parse_time(const char *s, int64_t *ns, int *absolute)
{
	*absolute = *s == '@';
	return mct_parse_dur(s + *absolute, ns);
}

/*
 * v/div as exact decimal text, trailing zeros dropped: 1234567/1000 is
 * "1234.567".  Returns the length written to buf (at least 48 bytes).
 */
size_t
mct_fmt_dec(char *buf, int64_t v, int64_t div)
{
	uint64_t u = v < 0 ? 0 - (uint64_t)v : (uint64_t)v;
	uint64_t ip = u / (uint64_t)div, fp = u % (uint64_t)div;
	int n, w = 0;
	int64_t d;

	for (d = div; d > 1; d /= 10)
		w++;
	n = sprintf(buf, "%s%" PRIu64, v < 0 ? "-" : "", ip);
	if (fp) {
		int i;

		buf[n++] = '.';
		for (i = w - 1; i >= 0; i--, fp /= 10)
			buf[n + i] = (char)('0' + fp % 10);
		n += w;
		while (buf[n - 1] == '0')
			n--;
		buf[n] = '\0';
	}
	return (size_t)n;
}

/* A duration for people, like the seed prints them: 2.59 us, 253.99 ms, 27.94 s. */
size_t
mct_fmt_human(char *buf, double ns)
{
	double a = fabs(ns);

	if (a < 1e6)
		return (size_t)sprintf(buf, "%.2f us", ns / 1e3);
	if (a < 1e9)
		return (size_t)sprintf(buf, "%.2f ms", ns / 1e6);
	return (size_t)sprintf(buf, "%.2f s", ns / 1e9);
}

/*
 * Bytes for people, as the seed prints them: a whole number below 100,000
 * exact (12,544 B), else in KB, MB, GB or TB of 1000, three decimals
 * below 10 and two from 10 (1.879 GB, 426.01 GB).  exact: the number when
 * d is a whole one, else NULL.  Writes at most size bytes, the NUL with
 * them (a longer number is cut); returns the length written.
 */
size_t
mct_fmt_bytes(char *buf, size_t size, double d, const int64_t *exact)
{
	static const char *u[] = { "B", "KB", "MB", "GB", "TB" };
	char small[32];
	int k = 0;

	int n;

	if (exact != NULL && *exact < 100000 && *exact > -100000) {
		mct_fmt_count(small, *exact);
		n = snprintf(buf, size, "%s B", small);
	} else {
		while (fabs(d) >= 1000 && k < 4)
			d /= 1000, k++;
		n = snprintf(buf, size, fabs(d) < 10 ? "%.3f %s" : "%.2f %s",
		    d, u[k]);
	}
	return n < 0 ? 0 : (size_t)n < size ? (size_t)n : size - 1;
}

/* A count with thousands separators: 225,852. */
size_t
mct_fmt_count(char *buf, int64_t v)
{
	char tmp[32];
	int n, i, j = 0, lead;

	n = sprintf(tmp, "%" PRIu64, v < 0 ? 0 - (uint64_t)v : (uint64_t)v);
	if (v < 0)
		buf[j++] = '-';
	lead = n % 3 ? n % 3 : 3;
	for (i = 0; i < n; i++) {
		if (i > 0 && (i - lead) % 3 == 0)
			buf[j++] = ',';
		buf[j++] = tmp[i];
	}
	buf[j] = '\0';
	return (size_t)j;
}

/*
 * The shortest text that reads back as the same double; a whole number
 * below 10^21 in plain digits, never with an exponent (awk and mawk read
 * 1.7e+18 as a number but print it back differently; JavaScript draws the
 * same line).  At most 25 bytes.
 */
size_t
mct_fmt_double(char *buf, double d)
{
	int prec, n = 0;

	if (isnan(d) || isinf(d))
		return (size_t)sprintf(buf, "null");
	if (fabs(d) < 1e15 && d == (double)(int64_t)d)
		return (size_t)sprintf(buf, "%" PRId64, (int64_t)d);
	if (fabs(d) < 1e21 && d == floor(d))
		return (size_t)sprintf(buf, "%.0f", d);
	for (prec = 1; prec <= 17; prec++) {
		n = sprintf(buf, "%.*g", prec, d);
		if (strtod(buf, NULL) == d)
			break;
	}
	return (size_t)n;
}

/* A value in millionths as decimal text, trailing zeros dropped. */
size_t
mct_fmt_e6(char *buf, int64_t v)
{
	return mct_fmt_dec(buf, v, E6);
}
