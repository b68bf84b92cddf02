/*
 * metrics.c - device metric logs (mct-metrics(1)): wall times as epoch ns, the
 * lines of a CSV/TSV log (nvidia-smi, rocm-smi, any with a time column)
 * as samples, and a metric's step function over an event's interval.
 *
 * Values are kept as integers in millionths (value x 10^6, from the
 * decimal text, rounded once past six decimals), so the time-weighted
 * mean of a step function is a ratio of two exact integers: sum of
 * value x time over the time covered.  Nothing goes through a double.
 */
#include "config.h"

#include <sys/mman.h>

#include <ctype.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "mct.h"

#define E6		1000000
#define NS_S		INT64_C(1000000000)
#define VALUE_MAX	(INT64_C(1000000000000) * E6)	/* |value| < 10^12 */
#define SEC_MAX		(INT64_C(1) << 62) / NS_S	/* wall times: seconds */

/*
 * Time zones: UTC, a fixed offset, or the process's local rules (the
 * tool sets TZ for a named zone).
 */
int
mct_tz_parse(const char *s, struct mct_tz *tz)
{
	int64_t h, m = 0;
	const char *p = s + 1;
	size_t n;

	memset(tz, 0, sizeof(*tz));
	if (strcasecmp(s, "UTC") == 0 || strcasecmp(s, "GMT") == 0 ||
	    strcmp(s, "Z") == 0)
		return 0;
	if (*s != '+' && *s != '-') {
		tz->local = 1;	/* a zone name: the caller sets TZ */
		return *s == '\0' ? -1 : 0;
	}
	n = strspn(p, "0123456789");
	if (n == 4 && p[n] == '\0') {
		h = (p[0] - '0') * 10 + (p[1] - '0');
		m = (p[2] - '0') * 10 + (p[3] - '0');
	} else if ((n == 1 || n == 2) && (p[n] == '\0' || (p[n] == ':' &&
	    strlen(p + n + 1) == 2 && strspn(p + n + 1, "0123456789") == 2))) {
		h = p[0] - '0';
		if (n == 2)
			h = h * 10 + (p[1] - '0');
		if (p[n] == ':')
			m = (p[n + 1] - '0') * 10 + (p[n + 2] - '0');
	} else
		return -1;
	if (h > 14 || m > 59)
		return -1;
	tz->off = (h * 3600 + m * 60) * (*s == '-' ? -1 : 1);
	return 0;
}

/* Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant). */
static int64_t
days_from_civil(int64_t y, int64_t m, int64_t d)
{
	int64_t era, yoe, doy, doe;

	y -= m <= 2;
	era = (y >= 0 ? y : y - 399) / 400;
	yoe = y - era * 400;
	doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
	doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + doe - 719468;
}

/* The days of month m of year y (Gregorian): 2026/02/31 is no date. */
static int
month_days(int64_t y, int64_t m)
{
	static const int days[] = { 31, 28, 31, 30, 31, 30, 31, 31, 30, 31,
	    30, 31 };

	if (m == 2 && y % 4 == 0 && (y % 100 != 0 || y % 400 == 0))
		return 29;
	return days[m - 1];
}

/* n digits at *p as a number, or -1; *p moves past them. */
static int64_t
digits(const char **p, const char *end, int n)
{
	int64_t v = 0;

	for (; n > 0; n--, (*p)++) {
		if (*p >= end || !isdigit((unsigned char)**p))
			return -1;
		v = v * 10 + (**p - '0');
	}
	return v;
}

/* The seconds east of UTC written after a wall time: Z, +HH:MM, +HHMM, +HH. */
static int
wall_offset(const char *p, const char *end, int64_t *off)
{
	int64_t h, m = 0;
	int sign;

	if (p < end && *p == 'Z' && p + 1 == end) {
		*off = 0;
		return 0;
	}
	if (p >= end || (*p != '+' && *p != '-'))
		return -1;
	sign = *p++ == '-' ? -1 : 1;
	if ((h = digits(&p, end, 2)) < 0)
		return -1;
	if (p < end && *p == ':')
		p++;
	if (p < end && (m = digits(&p, end, 2)) < 0)
		return -1;
	if (p != end || h > 14 || m > 59)
		return -1;
	*off = sign * (h * 3600 + m * 60);
	return 0;
}

/* Local rules: the offset mktime() finds for that wall clock reading. */
static int
local_offset(int64_t y, int64_t mo, int64_t d, int64_t h, int64_t mi,
    int64_t s, int64_t *off)
{
	struct tm tm;
	time_t t;

	memset(&tm, 0, sizeof(tm));
	tm.tm_year = (int)(y - 1900);
	tm.tm_mon = (int)(mo - 1);
	tm.tm_mday = (int)d;
	tm.tm_hour = (int)h;
	tm.tm_min = (int)mi;
	tm.tm_sec = (int)s;
	tm.tm_isdst = -1;
	if ((t = mktime(&tm)) == (time_t)-1)
		return -1;
	*off = (days_from_civil(y, mo, d) * 86400 + h * 3600 + mi * 60 + s) -
	    (int64_t)t;
	return 0;
}

/*
 * A wall time as epoch ns: YYYY/MM/DD HH:MM:SS[.frac] (nvidia-smi) or
 * YYYY-MM-DD[T ]HH:MM:SS[.frac][Z|+HH:MM], up to 9 digits of fraction.
 * An offset in the text wins over tz.  Returns 0, or -1 if it is none.
 */
int
mct_wall_ns(const char *s, size_t n, const struct mct_tz *tz, int64_t *ns)
{
	const char *p = s, *end = s + n;
	int64_t y, mo, d, h, mi, sec, frac = 0, off = tz->off;
	int nd = 0;
	char sep;

	if ((y = digits(&p, end, 4)) < 0 || p >= end)
		return -1;
	sep = *p++;
	if ((sep != '/' && sep != '-') || (mo = digits(&p, end, 2)) < 0 ||
	    p >= end || *p++ != sep || (d = digits(&p, end, 2)) < 0 ||
	    p >= end || (*p != ' ' && *p != 'T'))
		return -1;
	p++;
	if ((h = digits(&p, end, 2)) < 0 || p >= end || *p++ != ':' ||
	    (mi = digits(&p, end, 2)) < 0 || p >= end || *p++ != ':' ||
	    (sec = digits(&p, end, 2)) < 0)
		return -1;
	if (p < end && (*p == '.' || *p == ',')) {
		for (p++; p < end && isdigit((unsigned char)*p); p++, nd++)
			if (nd < 9)
				frac = frac * 10 + (*p - '0');
			else if (*p != '0')
				return -1;	/* below a ns */
		if (nd == 0)
			return -1;
		for (; nd < 9; nd++)
			frac *= 10;
	}
	if (mo < 1 || mo > 12 || d < 1 || d > month_days(y, mo) || h > 23 ||
	    mi > 59 || sec > 60)
		return -1;
	if (p < end) {
		if (wall_offset(p, end, &off) != 0)
			return -1;
	} else if (tz->local && local_offset(y, mo, d, h, mi, sec, &off) != 0)
		return -1;
	sec += days_from_civil(y, mo, d) * 86400 + h * 3600 + mi * 60 - off;
	if (sec <= -SEC_MAX || sec >= SEC_MAX)
		return -1;	/* beyond int64 ns (1824 to 2116) */
	*ns = sec * NS_S + frac;
	return 0;
}

/*
 * A value in millionths, exactly from its decimal text.  Returns 0, or
 * -1 if it is no number or too large.
 */
int
mct_value_e6(const char *s, size_t n, int64_t *v)
{
	mct_i128 x;

	if (n == 0 || mct_dec_e6(s, n, &x) != 0 || x >= VALUE_MAX ||
	    x <= -VALUE_MAX)
		return -1;
	*v = (int64_t)x;
	return 0;
}

/*
 * Reading a log: the header names the columns; each line is a time, a
 * device and the metrics' values.
 */
static const char *const timenames[] = { "timestamp", "time", "date",
    "datetime", NULL };
static const char *const devnames[] = { "index", "device", "gpu", "card",
    "gpu index", NULL };

/* Values that say "no sample" (nvidia-smi's [N/A], rocm-smi's N/A). */
static const char *const nothing[] = { "", "N/A", "[N/A]", "NA", "-",
    "[Not Supported]", "Not Supported", "[Unknown Error]", NULL };

static int
in_list(const char *const *l, const char *s, size_t n)
{
	for (; *l != NULL; l++)
		if (strlen(*l) == n && strncasecmp(*l, s, n) == 0)
			return 1;
	return 0;
}

/* What a struct mct_mlog keeps for itself (l->ls). */
struct mct_mlogstate {
	char		*hline;		/* the header line, to skip repeats */
	size_t		 hlen;
	struct mct_buf	 fbuf;		/* a line's fields, unquoted */
	struct { size_t off, len; } *field;
	int		 nfield, fcap;
	struct mct_mlast { int64_t dev, ts; long long line; } *last;
	size_t		 nlast, lastcap;	/* each device's last line */
};

/* The log's own state, made zero when first needed. */
static struct mct_mlogstate *
lstate(struct mct_mlog *l)
{
	if (l->ls == NULL) {
		l->ls = mct_xmalloc(sizeof(*l->ls));
		memset(l->ls, 0, sizeof(*l->ls));
	}
	return l->ls;
}

/*
 * Split a line into fields: by the delimiter, quotes ("a,b", "" inside)
 * removed, blanks around each field trimmed.  Returns the field count.
 */
static int
split(struct mct_mlog *l, const char *p, size_t n)
{
	const char *end = p + n, *q;
	struct mct_buf *b = &lstate(l)->fbuf;
	size_t start;
	char *o;
	int nf = 0;

	/*
	 * Room made once: the fields are no longer than the line, and each
	 * gets a '\0' for at most each byte of it and one more.
	 */
	b->len = 0;
	mct_buf_grow(b, 2 * n + 2);
	o = b->p;
	l->ls->nfield = 0;
	for (;;) {
		while (p < end && (*p == ' ' || (*p == '\t' && l->delim != '\t')))
			p++;
		start = (size_t)(o - b->p);
		if (p < end && *p == '"') {
			for (p++; p < end; p++) {
				if (*p == '"' && p + 1 < end && p[1] == '"')
					*o++ = *p++;
				else if (*p == '"')
					break;
				else
					*o++ = *p;
			}
			if (p < end)
				p++;
		}
		if ((q = memchr(p, l->delim, (size_t)(end - p))) == NULL)
			q = end;
		memcpy(o, p, (size_t)(q - p));
		o += q - p;
		p = q;
		while ((size_t)(o - b->p) > start && (o[-1] == ' ' ||
		    o[-1] == '\t' || o[-1] == '\r'))
			o--;
		if (nf == l->ls->fcap) {
			l->ls->fcap = l->ls->fcap ? l->ls->fcap * 2 : 16;
			l->ls->field = mct_xrealloc(l->ls->field,
			    (size_t)l->ls->fcap * sizeof(*l->ls->field));
		}
		l->ls->field[nf].off = start;
		l->ls->field[nf++].len = (size_t)(o - b->p) - start;
		*o++ = '\0';		/* FIELD() is a C string */
		if (p >= end)
			break;
		p++;
	}
	b->len = (size_t)(o - b->p);
	l->ls->nfield = nf;
	return nf;
}

#define FIELD(l, i)	((l)->ls->fbuf.p + (l)->ls->field[i].off)

/* A column's name and unit: "clocks.sm [MHz]", "GPU use (%)". */
static void
column(struct mct_mcol *c, const char *s, size_t n)
{
	const char *o;
	char close = n ? s[n - 1] : 0;
	size_t un = 0, nn = n;

	if (close == ']' || close == ')') {
		for (o = s + n - 1; o > s && *o != (close == ']' ? '[' : '(');
		    o--)
			;
		if (o > s) {
			un = (size_t)(s + n - 1 - o - 1);
			nn = (size_t)(o - s);
			while (nn && s[nn - 1] == ' ')
				nn--;
			c->unit = mct_xmalloc(un + 1);
			memcpy(c->unit, o + 1, un);
			c->unit[un] = '\0';
		}
	}
	c->name = mct_xmalloc(nn + 1);
	memcpy(c->name, s, nn);
	c->name[nn] = '\0';
}

/* The column a --time or --index argument names: its name or number. */
static int
named(struct mct_mlog *l, const char *what)
{
	int64_t k;
	int i;

	for (i = 0; i < l->ncol; i++)
		if (strcmp(l->col[i].name, what) == 0 ||
		    strcmp(FIELD(l, i), what) == 0)
			return i;
	if (mct_int(what, strlen(what), &k) == 0 && k >= 1 && k <= l->ncol)
		return (int)k - 1;
	return -1;
}

static int
first_named(struct mct_mlog *l, const char *const *names)
{
	int i;

	for (i = 0; i < l->ncol; i++)
		if (in_list(names, l->col[i].name, strlen(l->col[i].name)))
			return i;
	return -1;
}

/* Is the metric in the comma-separated list? */
static int
listed(const char *list, const char *name)
{
	size_t n = strlen(name);
	const char *p = list, *q;

	for (; *p; p = *q ? q + 1 : q) {
		q = strchr(p, ',');
		if (q == NULL)
			q = p + strlen(p);
		if ((size_t)(q - p) == n && strncmp(p, name, n) == 0)
			return 1;
	}
	return 0;
}

/*
 * The header line: the delimiter (a tab if it has one, else a comma),
 * the columns, which is the time, which the device, which are metrics.
 * Returns 0, or -1 with *why set.
 */
int
mct_mlog_header(struct mct_mlog *l, const char *p, size_t n,
    const char **why)
{
	int i;

	if (n >= 3 && memcmp(p, "\xef\xbb\xbf", 3) == 0) {
		p += 3;		/* a byte order mark (Excel's UTF-8) */
		n -= 3;
	}
	l->delim = memchr(p, '\t', n) != NULL ? '\t' : ',';
	l->ncol = split(l, p, n);
	l->col = mct_xmalloc((size_t)l->ncol * sizeof(*l->col));
	memset(l->col, 0, (size_t)l->ncol * sizeof(*l->col));
	l->ls->hline = mct_xmalloc(n + 1);
	memcpy(l->ls->hline, p, n);
	l->ls->hline[n] = '\0';
	l->ls->hlen = n;
	for (i = 0; i < l->ncol; i++)
		column(&l->col[i], FIELD(l, i), l->ls->field[i].len);
	l->tcol = l->timecol ? named(l, l->timecol) :
	    first_named(l, timenames);
	for (i = 0; l->tcol < 0 && !l->timecol && i < l->ncol; i++)
		if (strncasecmp(l->col[i].name, "time", 4) == 0)
			l->tcol = i;	/* time_ns, timestamp_s */
	if (l->tcol < 0) {
		*why = l->timecol ? "no such column as --time names" :
		    "no time column (timestamp, time..., date): name one with "
		    "--time";
		return -1;
	}
	l->dcol = l->devcol ? named(l, l->devcol) : first_named(l, devnames);
	if (l->devcol && l->dcol < 0) {
		*why = "no such column as --index names";
		return -1;
	}
	for (i = 0; i < l->ncol; i++) {
		struct mct_mcol *c = &l->col[i];

		c->role = i == l->tcol ? MCT_MC_TIME : i == l->dcol ?
		    MCT_MC_DEVICE : MCT_MC_UNKNOWN;
		if (c->role == MCT_MC_UNKNOWN && l->metrics != NULL)
			c->role = listed(l->metrics, c->name) ? MCT_MC_METRIC :
			    MCT_MC_TEXT;
		/* a unit, or --join's name: a metric whatever its values */
		if (c->role == MCT_MC_UNKNOWN && (c->unit != NULL ||
		    (l->join != NULL && listed(l->join, c->name))))
			c->role = MCT_MC_METRIC;
	}
	if (l->metrics != NULL)
		for (i = 0; i < l->ncol && l->col[i].role != MCT_MC_METRIC; i++)
			;
	if (l->metrics != NULL && i == l->ncol) {
		*why = "no column of the names -m gives";
		return -1;
	}
	return 0;
}

/*
 * Units a value may carry, each with its quantity and its size in the
 * quantity's least unit: a value in another unit of the column's
 * quantity is converted to the column's (1.2 GHz in a MHz column is 1200).
 */
static const struct unit {
	const char	*name;
	int		 q;
	int64_t		 f;
} units[] = {
	{ "B", 1, 1 }, { "KiB", 1, INT64_C(1) << 10 },
	{ "MiB", 1, INT64_C(1) << 20 }, { "GiB", 1, INT64_C(1) << 30 },
	{ "TiB", 1, INT64_C(1) << 40 }, { "kB", 1, 1000 }, { "KB", 1, 1000 },
	{ "MB", 1, 1000000 }, { "GB", 1, 1000000000 },
	{ "TB", 1, INT64_C(1000000000000) },
	{ "Hz", 2, 1 }, { "kHz", 2, 1000 }, { "MHz", 2, 1000000 },
	{ "GHz", 2, 1000000000 },
	{ "mW", 3, 1 }, { "W", 3, 1000 }, { "kW", 3, 1000000 },
	{ "mJ", 4, 1 }, { "J", 4, 1000 }, { "kJ", 4, 1000000 },
	{ "mV", 5, 1 }, { "V", 5, 1000 },
	{ "mA", 6, 1 }, { "A", 6, 1000 },
	{ "ns", 7, 1 }, { "us", 7, 1000 }, { "\xc2\xb5s", 7, 1000 },
	{ "ms", 7, 1000000 }, { "s", 7, 1000000000 },
	{ "%", 8, 1 },
};

static const struct unit *
unit_of(const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (strlen(units[i].name) == n &&
		    memcmp(units[i].name, s, n) == 0)
			return &units[i];
	return NULL;
}

/* Text for a message: at most 40 bytes, control characters as '?'. */
static const char *
shown(char *buf, const char *s, size_t n)
{
	size_t i;

	if (n > 40)
		n = 40;
	for (i = 0; i < n; i++)
		buf[i] = (unsigned char)s[i] < 0x20 || s[i] == 0x7f ? '?' :
		    s[i];
	buf[n] = '\0';
	return buf;
}

/*
 * A value with its unit, if any, after it: "1410 MHz", "45 %", "12.5",
 * in the column's unit (a column with none takes the first a value has).
 * Returns 0, or -1 with why set.
 */
static int
value(struct mct_mcol *c, const char *s, size_t n, int64_t *v, char *why,
    size_t wn)
{
	size_t k = strspn(s, "+-0123456789.eE"), r;
	const struct unit *a, *b;
	char t[48];
	mct_i128 x;

	if (k > n)
		k = n;
	for (r = k; r < n && s[r] == ' '; r++)
		;
	a = r < n ? unit_of(s + r, n - r) : NULL;
	if (k == 0 || mct_value_e6(s, k, v) != 0 || (r < n &&
	    a == NULL && (c->unit == NULL || strlen(c->unit) != n - r ||
	    memcmp(c->unit, s + r, n - r) != 0))) {
		if (why == NULL)
			return -1;
		if (k > 0 && mct_value_e6(s, k, v) == 0 && c->unit != NULL)
			snprintf(why, wn, "%s: '%s' is not in %s; the value is "
			    "skipped", c->name, shown(t, s, n), c->unit);
		else
			snprintf(why, wn, "%s: '%s' is no number; the value "
			    "is skipped", c->name, shown(t, s, n));
		return -1;
	}
	if (r == n || (c->unit != NULL && strlen(c->unit) == n - r &&
	    memcmp(c->unit, s + r, n - r) == 0))
		return 0;
	if (c->unit == NULL) {
		c->unit = mct_xmalloc(n - r + 1);
		memcpy(c->unit, s + r, n - r);
		c->unit[n - r] = '\0';
		return 0;
	}
	if ((b = unit_of(c->unit, strlen(c->unit))) == NULL || b->q != a->q) {
		if (why != NULL)
			snprintf(why, wn, "%s: '%s' is not in %s; the value "
			    "is skipped", c->name, shown(t, s, n), c->unit);
		return -1;
	}
	/* half away from zero, as the text's own digits past six were */
	x = (mct_i128)*v * a->f;
	x = (x < 0 ? x - b->f / 2 : x + b->f / 2) / b->f;
	if (x >= VALUE_MAX || x <= -VALUE_MAX) {
		if (why != NULL)
			snprintf(why, wn, "%s: '%s' is too large in %s; the "
			    "value is skipped", c->name, shown(t, s, n),
			    c->unit);
		return -1;
	}
	*v = (int64_t)x;
	return 0;
}

/* A device: a number, or the digits at the end of "card0", "GPU[1]". */
static int
device(const char *s, size_t n, int64_t *dev)
{
	size_t e = n, b;

	if (e && s[e - 1] == ']')
		e--;
	for (b = e; b > 0 && isdigit((unsigned char)s[b - 1]); b--)
		;
	if (b == e || e - b > 9)
		return -1;
	return mct_int(s + b, e - b, dev);
}

/* The time of a line: a number in the time unit, or a wall time. */
int
mct_mlog_time(const struct mct_mlog *l, const char *s, size_t n,
    int64_t *ns)
{
	size_t k = strspn(s, "+-0123456789.");

	if (k >= n && n > 0)
		return mct_dec_ns(s, n, l->tunit, ns);
	return mct_wall_ns(s, n, &l->tz, ns);
}

static void
sample(struct mct_mlog *l, int64_t ts, int64_t dev, int col, int64_t v)
{
	struct mct_msample *m;

	if (l->nsample == l->scap) {
		l->scap = l->scap ? l->scap * 2 : 16;
		l->sample = mct_xrealloc(l->sample,
		    l->scap * sizeof(*l->sample));
	}
	m = &l->sample[l->nsample++];
	m->ts = ts;
	m->dev = dev;
	m->col = col;
	m->v = v;
}

/* A bad value to say after this line. */
static void
bad_value(struct mct_mlog *l, long long line, const char *why)
{
	if (l->nbad == l->badcap) {
		l->badcap = l->badcap ? l->badcap * 2 : 16;
		l->bad = mct_xrealloc(l->bad, l->badcap * sizeof(*l->bad));
	}
	l->bad[l->nbad].line = line;
	snprintf(l->bad[l->nbad++].why, sizeof(l->bad->why), "%s", why);
}

/*
 * A value that is no number in a column of no kind yet: kept (the first
 * MCT_MLOG_KEEP, the others counted) to be said if a later value makes
 * the column a metric; a column none of whose values is a number is text
 * (a name, a bus id), and nothing is said.
 */
static void
pend(struct mct_mcol *c, long long line, const char *why)
{
	if (c->npend == MCT_MLOG_KEEP) {
		c->nlost++;
		return;
	}
	if (c->pend == NULL)
		c->pend = mct_xmalloc(MCT_MLOG_KEEP * sizeof(*c->pend));
	c->pend[c->npend].line = line;
	snprintf(c->pend[c->npend++].why, sizeof(c->pend->why), "%s", why);
}

/* The column is a metric after all: what it kept is bad values now. */
static void
unpend(struct mct_mlog *l, struct mct_mcol *c)
{
	int i;

	c->role = MCT_MC_METRIC;
	for (i = 0; i < c->npend; i++)
		bad_value(l, c->pend[i].line, c->pend[i].why);
	l->nlost += c->nlost;
	free(c->pend);
	c->pend = NULL;
	c->npend = 0;
	c->nlost = 0;
}

/*
 * The earlier line of this device at this time, or 0; the last line of
 * each device is kept.
 */
static long long
same_time(struct mct_mlog *l, int64_t dev, int64_t ts)
{
	struct mct_mlast *m;
	long long was = 0;
	size_t i;

	lstate(l);
	for (i = 0; i < l->ls->nlast && l->ls->last[i].dev != dev; i++)
		;
	if (i == l->ls->nlast) {
		if (l->ls->nlast == l->ls->lastcap) {
			l->ls->lastcap = l->ls->lastcap ? l->ls->lastcap * 2 : 8;
			l->ls->last = mct_xrealloc(l->ls->last,
			    l->ls->lastcap * sizeof(*l->ls->last));
		}
		l->ls->nlast++;
		l->ls->last[i].dev = dev;
	} else if (l->ls->last[i].ts == ts)
		was = l->ls->last[i].line;
	m = &l->ls->last[i];
	m->ts = ts;
	m->line = l->line;
	return was;
}

/*
 * A line after the header: its samples in l->sample (l->nsample of
 * them; a value that says "no sample" gives none), its bad values in
 * l->bad (each skipped alone), l->dup if its device had a line at its
 * time just before.  Returns 1 for a line of samples, 0 for a line to
 * skip quietly (blank, a comment, the header again), -1 for a bad line,
 * with *why in l->why.
 */
int
mct_mlog_line(struct mct_mlog *l, const char *p, size_t n)
{
	struct mct_mlogstate *ls = lstate(l);
	int64_t ts, dev = 0, v;
	int i, nf;
	char why[sizeof(l->bad->why)];

	l->nsample = l->nbad = 0;
	l->nlost = l->dup = 0;
	while (n && (p[n - 1] == '\r' || p[n - 1] == ' '))
		n--;
	if (n == 0 || *p == '#' || (n == ls->hlen &&
	    memcmp(p, ls->hline, n) == 0))
		return 0;
	if ((nf = split(l, p, n)) != l->ncol) {
		snprintf(l->why, sizeof(l->why), "%d fields, the header has %d",
		    nf, l->ncol);
		return -1;
	}
	if (mct_mlog_time(l, FIELD(l, l->tcol), l->ls->field[l->tcol].len,
	    &ts) != 0 || !MCT_SANE_NS(ts)) {
		snprintf(l->why, sizeof(l->why), "time '%.40s' is no number "
		    "and no wall time", FIELD(l, l->tcol));
		return -1;
	}
	if (l->has_sync && (__builtin_sub_overflow(ts, l->sync_t, &v) ||
	    __builtin_add_overflow(l->sync_ts, v, &ts) || !MCT_SANE_NS(ts))) {
		snprintf(l->why, sizeof(l->why), "time '%.40s' is out of range "
		    "once --sync moves it", FIELD(l, l->tcol));
		return -1;
	}
	if (l->dcol >= 0 && device(FIELD(l, l->dcol), l->ls->field[l->dcol].len,
	    &dev) != 0) {
		snprintf(l->why, sizeof(l->why), "device '%.40s' is no number",
		    FIELD(l, l->dcol));
		return -1;
	}
	for (i = 0; i < l->ncol; i++) {
		struct mct_mcol *c = &l->col[i];
		const char *f = FIELD(l, i);
		size_t fl = l->ls->field[i].len;

		if (c->role == MCT_MC_TIME || c->role == MCT_MC_DEVICE ||
		    c->role == MCT_MC_TEXT || ((fl == 0 ||
		    !isdigit((unsigned char)*f)) && in_list(nothing, f, fl)))
			continue;	/* (a digit first: a number, quickly) */
		if (value(c, f, fl, &v, c->role == MCT_MC_UNKNOWN &&
		    c->npend == MCT_MLOG_KEEP ? NULL : why, sizeof(why)) == 0) {
			if (c->role == MCT_MC_UNKNOWN)
				unpend(l, c);
			sample(l, ts, dev, i, v);
		} else if (c->role == MCT_MC_UNKNOWN)
			pend(c, l->line, why);
		else
			bad_value(l, l->line, why);
	}
	l->dup = same_time(l, dev, ts);
	return 1;
}

void
mct_mlog_free(struct mct_mlog *l)
{
	int i;

	for (i = 0; i < l->ncol; i++) {
		free(l->col[i].name);
		free(l->col[i].unit);
		free(l->col[i].pend);
	}
	free(l->bad);
	l->bad = NULL;
	l->nbad = l->badcap = 0;
	free(l->col);
	free(l->sample);
	if (l->ls != NULL) {
		free(l->ls->last);
		free(l->ls->field);
		free(l->ls->hline);
		mct_buf_free(&l->ls->fbuf);
		free(l->ls);
	}
	l->col = NULL;
	l->sample = NULL;
	l->ls = NULL;
	l->ncol = 0;
	l->nsample = l->scap = 0;
}

/*
 * The step function: each sample holds from its time until the next
 * one's, but at most twice the time since the sample before it (of an
 * earlier time), so that a log that stopped or paused does not hold its
 * last value for ever; the first sample holds until the next.  Samples
 * come in time order (one out of order is put in its place); the oldest
 * are forgotten once no interval can need them.
 */
#define NO_LIMIT	INT64_MAX

/* Sample i's limit, from the last sample before it of an earlier time. */
static void
set_limit(struct mct_series *s, size_t i)
{
	struct mct_sample_pt *pt = s->pt;
	size_t j = i;
	mct_i128 lim;

	while (j > s->lo && pt[j - 1].t == pt[i].t)
		j--;
	lim = j > s->lo ? (mct_i128)pt[i].t + 2 * ((mct_i128)pt[i].t -
	    pt[j - 1].t) : NO_LIMIT;
	pt[i].lim = lim < NO_LIMIT ? (int64_t)lim : NO_LIMIT;
}

/*
 * Room for one more sample: the forgotten ones give theirs back first,
 * else the array doubles.  It is one block, so that a big one grows
 * where it is (mremap) rather than by a copy into new pages: a log held
 * whole grows to megabytes, and every new page is a fault.
 */
#if defined(MREMAP_MAYMOVE)
#define MAPPED	1
#endif

static void
grow(struct mct_series *s)
{
	size_t k = s->n - s->lo, old = s->cap * sizeof(*s->pt), now;
#ifdef MAPPED
	void *p;
#endif

	if (s->lo > 0 && s->lo >= s->n / 2) {
		memmove(s->pt, s->pt + s->lo, k * sizeof(*s->pt));
		s->n = k;
		s->lo = 0;
		return;
	}
	s->cap = s->cap ? s->cap * 2 : 4096;
	now = s->cap * sizeof(*s->pt);
#ifdef MAPPED
	/*
	 * Pages of their own, moved rather than copied as they double: on a
	 * virtual machine a page's first touch is dear, and a log held whole
	 * is thousands of pages.
	 */
	p = s->pt == NULL ? mmap(NULL, now, PROT_READ | PROT_WRITE,
	    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0) :
	    mremap(s->pt, old, now, MREMAP_MAYMOVE);
	if (p == MAP_FAILED)
		mct_nomem("mmap");
	s->pt = p;
#else
	(void)old;
	s->pt = mct_xrealloc(s->pt, now);
#endif
}

void
mct_series_add(struct mct_series *s, int64_t t, int64_t v)
{
	struct mct_sample_pt *pt;
	size_t i, k;

	if (s->n == s->cap)
		grow(s);
	pt = s->pt;
	for (i = s->n; i > s->lo && pt[i - 1].t > t; i--)
		pt[i] = pt[i - 1];
	pt[i].t = t;
	pt[i].v = v;
	s->n++;
	/* its limit, and those of the samples after it up to a later time */
	for (k = i; k < s->n && (k == i || pt[k - 1].t == t); k++)
		set_limit(s, k);
}

/*
 * The last sample at or before t, or lo if none is.  Events come mostly
 * in time order: the answer of the last call, or the one after it, is
 * tried first.
 */
static size_t
at_or_before(const struct mct_series *s, int64_t t, size_t h)
{
	const struct mct_sample_pt *pt = s->pt;
	size_t lo = s->lo, hi = s->n;

	if (h >= lo && h < hi && pt[h].t <= t) {
		if (h + 1 == hi || pt[h + 1].t > t)
			return h;
		if (h + 2 == hi || pt[h + 2].t > t)
			return h + 1;
	}

	while (lo < hi) {	/* the first sample after t */
		size_t mid = lo + (hi - lo) / 2;

		if (pt[mid].t <= t)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo > s->lo ? lo - 1 : s->lo;
}

/* Forget samples no interval starting at t or later needs. */
void
mct_series_forget(struct mct_series *s, int64_t t)
{
	if (s->n > s->lo)
		s->lo = at_or_before(s, t, s->hint);
}

/* Where sample i stops holding. */
static int64_t
until(const struct mct_series *s, size_t i)
{
	int64_t e = i + 1 < s->n ? s->pt[i + 1].t : NO_LIMIT;

	return s->pt[i].lim < e ? s->pt[i].lim : e;
}

/*
 * The step function over [a, a + dur): the samples in effect for part of
 * it, their min and max, and the sum of value x time over the part the
 * log covers.  An interval of no length takes the sample in effect at a.
 * Returns 0, or -1 if no sample is in effect during it.
 */
int
mct_series_over(struct mct_series *s, int64_t a, int64_t dur,
    struct mct_over *o)
{
	return mct_series_over_h(s, &s->hint, a, dur, o);
}

/* The same, the series left as it is: hint is the caller's (a thread's). */
int
mct_series_over_h(const struct mct_series *s, size_t *hint, int64_t a,
    int64_t dur, struct mct_over *o)
{
	size_t i = at_or_before(s, a, *hint);
	int64_t b = a + dur, from, to;

	*hint = i;
	memset(o, 0, sizeof(*o));
	if (s->n == s->lo)
		return -1;
	if (dur == 0) {
		if (s->pt[i].t > a || until(s, i) <= a)
			return -1;
		o->samples = 1;
		o->min = o->max = s->pt[i].v;
		o->wsum = s->pt[i].v;	/* its value for 1 ns */
		o->covered = 1;
		return 0;
	}
	for (; i < s->n && s->pt[i].t < b; i++) {
		from = s->pt[i].t > a ? s->pt[i].t : a;
		to = until(s, i) < b ? until(s, i) : b;
		if (to <= from)
			continue;
		if (o->samples == 0 || s->pt[i].v < o->min)
			o->min = s->pt[i].v;
		if (o->samples == 0 || s->pt[i].v > o->max)
			o->max = s->pt[i].v;
		o->samples++;
		o->wsum += (mct_i128)s->pt[i].v * (to - from);
		o->covered += to - from;
	}
	return o->samples ? 0 : -1;
}

void
mct_series_free(struct mct_series *s)
{
#ifdef MAPPED
	if (s->pt != NULL)
		munmap(s->pt, s->cap * sizeof(*s->pt));
#else
	free(s->pt);
#endif
	memset(s, 0, sizeof(*s));
}

static const char d2[] =
    "00010203040506070809101112131415161718192021222324"
    "25262728293031323334353637383940414243444546474849"
    "50515253545556575859606162636465666768697071727374"
    "75767778798081828384858687888990919293949596979899";

/* u as decimal text at q, two digits a step; returns the end. */
static char *
put_u64(char *q, uint64_t u)
{
	uint64_t t;
	char *e = q + 1;

	for (t = u; t >= 10; t /= 10)
		e++;
	for (q = e; u >= 100; u /= 100) {
		q -= 2;
		memcpy(q, d2 + 2 * (u % 100), 2);
	}
	if (u >= 10)
		memcpy(q - 2, d2 + 2 * u, 2);
	else
		q[-1] = (char)('0' + u);
	return e;
}

/*
 * sign, whole part, and the fraction's digits (frac < 10^digits), its
 * trailing zeros dropped if trim: by hand into a buffer the caller sized,
 * for --join writes four numbers an event.  Returns the end.
 */
static char *
put_fixed(char *q, int neg, uint64_t whole, uint64_t frac, int digits,
    int trim)
{
	int i;

	if (neg && (whole || frac))
		*q++ = '-';
	q = put_u64(q, whole);
	if (digits == 0 || (trim && frac == 0))
		return q;
	*q++ = '.';
	for (i = digits; i >= 2; i -= 2, frac /= 100)
		memcpy(q + i - 2, d2 + 2 * (frac % 100), 2);
	if (i == 1)
		q[0] = (char)('0' + frac);
	q += digits;
	while (trim && q[-1] == '0')	/* a digit is not 0: frac != 0 */
		q--;
	return q;
}

static char *
put_e6(char *q, int64_t v)
{
	uint64_t u = v < 0 ? 0 - (uint64_t)v : (uint64_t)v;

	return put_fixed(q, v < 0, u / E6, u % E6, 6, 1);
}

/*
 * The mean to three decimals, rounded half away from zero: wsum is in
 * millionths x ns, so mean x 1000 = wsum / (covered x 1000).  In 64 bits
 * when it fits (most events): 128-bit division is a call.
 */
static char *
put_mean(char *q, const struct mct_over *o)
{
	mct_i128 d = (mct_i128)o->covered * 1000, w = o->wsum, r;
	int neg = w < 0;
	uint64_t u;

	if (neg)
		w = -w;
	if (w < ((mct_i128)1 << 61) && d < ((mct_i128)1 << 61)) {
		u = ((uint64_t)w * 2 + (uint64_t)d) / ((uint64_t)d * 2);
		return put_fixed(q, neg, u / 1000, u % 1000, 3, 0);
	}
	r = (w * 2 + d) / (d * 2);	/* half away from zero */
	return put_fixed(q, neg, (uint64_t)(r / 1000), (uint64_t)(r % 1000),
	    3, 0);
}

/*
 * {"mean":..,"min":..,"max":..,"samples":n} at q, which has room for
 * MCT_OVER_MAX bytes.  Returns its length.
 */
size_t
mct_over_fmt(const struct mct_over *o, char *q)
{
	char *s = q;

	memcpy(q, "{\"mean\":", 8);
	q = put_mean(q + 8, o);
	memcpy(q, ",\"min\":", 7);
	q = put_e6(q + 7, o->min);
	memcpy(q, ",\"max\":", 7);
	q = put_e6(q + 7, o->max);
	memcpy(q, ",\"samples\":", 11);
	q = put_u64(q + 11, (uint64_t)o->samples);
	*q++ = '}';
	return (size_t)(q - s);
}

void
mct_over_json(const struct mct_over *o, struct mct_buf *b)
{
	mct_buf_grow(b, MCT_OVER_MAX);
	b->len += mct_over_fmt(o, b->p + b->len);
	b->p[b->len] = '\0';
}
