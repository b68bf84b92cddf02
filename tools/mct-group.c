/*
 * mct-group - the tables: events grouped by fields, with aggregates.
 *
 * Each group keeps a small struct: its count, its span, running sums of
 * the extra fields, and every value of --value (8 bytes each) for exact
 * medians and percentiles.  No event is kept.
 */
#include "config.h"

#include <err.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mct.h"

#define DEFAULT_AGGS	"count,total,share,mean,median,min,max"

enum akind { A_COUNT, A_TOTAL, A_SHARE, A_MEAN, A_MEDIAN, A_MIN, A_MAX,
    A_STDDEV, A_PCT, A_FIRST, A_LAST, A_SUMF, A_MINF, A_MAXF, A_MEANF };

struct agg {
	enum akind	 kind;
	char		*text;		/* as written: the column's name */
	int64_t		 qn, qd;	/* A_PCT: the quantile qn/qd */
	int		 x;		/* index of the extra field */
};

/* Running figures of an extra numeric field (sum:F and friends). */
struct run {
	long long	 n;
	int		 isfloat;
	mct_i128	 isum;
	double		 dsum, min, max;
};

struct group {
	char		*key;		/* by-field values as JSON, \037 apart */
	size_t		 klen;
	long long	 count;
	struct mct_stats val;
	struct run	*x;
	int64_t		 first, last;	/* absolute ns: first start, last end */
	int		 span;
	struct group	*next;
};

struct opts {
	struct mct_field *by;
	int		 nby;
	struct mct_field value;
	int		 vtime;		/* the value is a time */
	struct agg	*agg;
	int		 nagg;
	struct mct_field *xf;		/* extra fields */
	int		 nx;
	const char	*sort;
	int		 sortby;	/* a --by field's index, or -1 */
	struct agg	 sortagg;	/* else this aggregate */
	int		 reverse;
	long		 top;
	int		 total_row;
	int		 missing, meta;
	struct mct_out	 out;
	/* the groups */
	struct group	**tab;
	size_t		 tabsize, ngroups;
	mct_i128	 alltotal;	/* the value summed over the input */
	double		 alltotalf;
	int		 allfloat;
	struct mct_buf	 kbuf;
	const struct mct_header *hdr;
};

enum { OPT_MISSING = CHAR_MAX + 1, OPT_META, OPT_NO_HEADER, OPT_RULES,
    OPT_TIME_UNIT, OPT_TOTAL, OPT_VALUE };

static const struct option longopts[] = {
	{ "aggregates",	required_argument,	NULL, 'a' },
	{ "by",		required_argument,	NULL, 'k' },
	{ "help",	no_argument,		NULL, 'h' },
	{ "meta",	no_argument,		NULL, OPT_META },
	{ "missing",	no_argument,		NULL, OPT_MISSING },
	{ "no-header",	no_argument,		NULL, OPT_NO_HEADER },
	{ "output",	required_argument,	NULL, 'o' },
	{ "reverse",	no_argument,		NULL, 'r' },
	{ "rules",	required_argument,	NULL, OPT_RULES },
	{ "sort",	required_argument,	NULL, 's' },
	{ "time-unit",	required_argument,	NULL, OPT_TIME_UNIT },
	{ "top",	required_argument,	NULL, 'n' },
	{ "total",	no_argument,		NULL, OPT_TOTAL },
	{ "unit",	required_argument,	NULL, 'u' },
	{ "value",	required_argument,	NULL, OPT_VALUE },
	{ "version",	no_argument,		NULL, 'V' },
	{ NULL,		0,			NULL, 0 }
};

static void
usage(int status)
{
	if (status != 0) {
		fprintf(stderr, "usage: mct-group [-hrV] [-a aggregates] "
		    "[-k fields] [-n top] [-o format] [-s sort] [-u unit] "
		    "[file ...]\n");
		mct_usage_hint();
	}
	printf("usage: mct-group [-hrV] [-a aggregates] [-k fields] [-n top] "
	    "[-o format] [-s sort] [-u unit] [file ...]\n"
	    "Group events by fields and aggregate a value (SPEC tables).\n\n"
	    "  -k, --by FIELDS       group by these fields (default name)\n"
	    "      --value FIELD     the value to aggregate (default dur)\n"
	    "  -a, --aggregates LIST (default " DEFAULT_AGGS ")\n"
	    "                        count total share mean median min max "
	    "stddev\n"
	    "                        p50 p90 p95 p99 (any pN) first last,\n"
	    "                        sum:F min:F max:F mean:F of a field F\n"
	    "  -s, --sort AGG        order groups by an aggregate (largest "
	    "first) or\n"
	    "                        a --by field (A to Z); default total\n"
	    "  -r, --reverse         reverse the order\n"
	    "  -n, --top N           the first N groups, then an \"others\" row\n"
	    "      --total           a total row in tsv, csv and ndjson too\n"
	    "      --missing         keep events that lack a --by field\n"
	    "      --meta            count metadata (ph M) events too\n"
	    "      --rules FILE      the rules file for the field category\n"
	    "  -o, --output FORMAT   table (default on a terminal), ndjson "
	    "(default\n"
	    "                        otherwise), tsv, csv, md (Markdown)\n"
	    "      --no-header       no header line in tsv and csv output\n"
	    "      --time-unit UNIT  times in tsv/csv/ndjson: ns (default), "
	    "us, ms, s\n"
	    "  -u, --unit UNIT       unit of a trace read directly: auto "
	    "(default), ns,\n"
	    "                        us, ms, s\n"
	    "  -h, --help            show this help and exit\n"
	    "  -V, --version         show the version and exit\n\n"
	    "Exit status: 0 success, 1 damaged input, 2 usage or unreadable "
	    "file.\nSee mct-group(1) and mct(7).\n");
	exit(mct_finish(MCT_EXIT_OK));
}

static int
is_bytes_field(const char *text)
{
	return strstr(text, "bytes") != NULL || strstr(text, "size") != NULL;
}

/* One aggregate's name, as in -a or --sort.  Returns 0, or -1 if unknown. */
static int
parse_agg(struct opts *o, const char *text, struct agg *a)
{
	static const struct { const char *s; enum akind k; } names[] = {
		{ "count", A_COUNT }, { "total", A_TOTAL }, { "share", A_SHARE },
		{ "mean", A_MEAN }, { "median", A_MEDIAN }, { "min", A_MIN },
		{ "max", A_MAX }, { "stddev", A_STDDEV }, { "first", A_FIRST },
		{ "last", A_LAST },
	};
	const char *c, *p;
	struct mct_field f;
	size_t i;
	int j;

	memset(a, 0, sizeof(*a));
	a->text = mct_xstrdup(text);
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (strcmp(text, names[i].s) == 0) {
			a->kind = names[i].k;
			return 0;
		}
	if (text[0] == 'p' && text[1] >= '0' && text[1] <= '9') {
		/* pN: the quantile N/100 as the fraction qn/qd, exactly */
		a->kind = A_PCT;
		a->qn = 0;
		a->qd = 100;
		for (p = text + 1; *p >= '0' && *p <= '9' && a->qn < 1000000; p++)
			a->qn = a->qn * 10 + (*p - '0');
		if (*p == '.')
			for (p++; *p >= '0' && *p <= '9' && a->qd < 100000000; p++) {
				a->qn = a->qn * 10 + (*p - '0');
				a->qd *= 10;
			}
		return *p == '\0' && a->qn <= a->qd ? 0 : -1;
	}
	if ((c = strchr(text, ':')) == NULL)
		return -1;
	if (strncmp(text, "sum:", 4) == 0)
		a->kind = A_SUMF;
	else if (strncmp(text, "min:", 4) == 0)
		a->kind = A_MINF;
	else if (strncmp(text, "max:", 4) == 0)
		a->kind = A_MAXF;
	else if (strncmp(text, "mean:", 5) == 0)
		a->kind = A_MEANF;
	else
		return -1;
	if (mct_field_parse(c + 1, &f) != 0)
		return -1;
	for (j = 0; j < o->nx; j++)
		if (strcmp(o->xf[j].text, f.text) == 0)
			break;
	if (j == o->nx) {
		o->xf = mct_xrealloc(o->xf, (size_t)(o->nx + 1) * sizeof(*o->xf));
		o->xf[o->nx++] = f;
	} else
		mct_field_free(&f);
	a->x = j;
	return 0;
}

/* Parse -a LIST. */
static void
parse_aggs(struct opts *o, const char *list)
{
	char *s = mct_xstrdup(list), *tok, *save = NULL;
	struct agg a;

	for (tok = strtok_r(s, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (parse_agg(o, tok, &a) != 0) {
			warnx("-a: unknown aggregate '%s' (want count total share "
			    "mean median min max stddev pN first last, or sum: "
			    "min: max: mean: and a field)", tok);
			mct_usage_hint();
		}
		o->agg = mct_xrealloc(o->agg, (size_t)(o->nagg + 1) *
		    sizeof(*o->agg));
		o->agg[o->nagg++] = a;
	}
	free(s);
	if (o->nagg == 0) {
		warnx("-a: no aggregates");
		mct_usage_hint();
	}
}

/* --sort: a --by field (A to Z), else any aggregate (largest first). */
static void
parse_sort(struct opts *o, const char *text)
{
	int i;

	for (i = 0; i < o->nby; i++)
		if (strcmp(text, o->by[i].text) == 0) {
			o->sortby = i;
			return;
		}
	o->sortby = -1;
	if (parse_agg(o, text, &o->sortagg) != 0) {
		warnx("--sort: '%s' is neither a --by field nor an aggregate",
		    text);
		mct_usage_hint();
	}
}

static struct group *
lookup(struct opts *o, const char *key, size_t klen)
{
	struct group *g, **tab;
	size_t i, slot;

	if (o->tabsize == 0) {
		o->tabsize = 1024;
		o->tab = mct_xmalloc(o->tabsize * sizeof(*o->tab));
		memset(o->tab, 0, o->tabsize * sizeof(*o->tab));
	}
	slot = mct_hash(key, klen) & (o->tabsize - 1);
	for (g = o->tab[slot]; g; g = g->next)
		if (g->klen == klen && memcmp(g->key, key, klen) == 0)
			return g;
	g = mct_xmalloc(sizeof(*g));
	memset(g, 0, sizeof(*g));
	g->key = mct_xmalloc(klen + 1);
	memcpy(g->key, key, klen);
	g->key[klen] = '\0';
	g->klen = klen;
	if (o->nx) {
		g->x = mct_xmalloc((size_t)o->nx * sizeof(*g->x));
		memset(g->x, 0, (size_t)o->nx * sizeof(*g->x));
	}
	g->next = o->tab[slot];
	o->tab[slot] = g;
	if (++o->ngroups > o->tabsize) {
		/* grow the table */
		tab = mct_xmalloc(o->tabsize * 2 * sizeof(*tab));
		memset(tab, 0, o->tabsize * 2 * sizeof(*tab));
		for (i = 0; i < o->tabsize; i++)
			while (o->tab[i]) {
				struct group *n = o->tab[i];

				o->tab[i] = n->next;
				slot = mct_hash(n->key, n->klen) & (o->tabsize * 2 - 1);
				n->next = tab[slot];
				tab[slot] = n;
			}
		free(o->tab);
		o->tab = tab;
		o->tabsize *= 2;
	}
	return g;
}

static void
run_add(struct run *r, const struct mct_val *v)
{
	char buf[64];
	int64_t i;
	double d;
	size_t n = v->len;
	const char *p = v->p;

	if (v->type == MCT_J_STRING) {
		p++;
		n -= 2;
	}
	if (mct_int(p, n, &i) == 0)
		d = (double)i;
	else {
		mct_i128 e6;
		char *end;

		if (n == 0 || n >= sizeof(buf) || mct_dec_e6(p, n, &e6) != 0)
			return;		/* not a number: no value */
		memcpy(buf, p, n);
		buf[n] = '\0';
		d = strtod(buf, &end);
		if (*end != '\0')
			return;
		r->isfloat = 1;
	}
	if (r->n == 0 || d < r->min)
		r->min = d;
	if (r->n == 0 || d > r->max)
		r->max = d;
	if (!r->isfloat)
		r->isum += i;
	r->dsum += d;
	r->n++;
}

/* The event's value, if it has one that is a number. */
static int
value(struct opts *o, struct mct_event *ev, struct mct_stats *one)
{
	struct mct_val v;
	int64_t ns;

	one->n = 0;
	one->isfloat = 0;
	one->isum = 0;
	if (mct_field_time(&o->value)) {
		if (mct_field_ns(ev, &o->value, o->hdr, &ns) != 0)
			return -1;
		mct_stats_add(one, ns);
		return 0;
	}
	if (mct_get(ev, &o->value, &v) != 0)
		return -1;
	if (v.type == MCT_J_NUMBER)
		return mct_stats_add_text(one, v.p, v.len);
	if (v.type == MCT_J_STRING)
		return mct_stats_add_text(one, v.p + 1, v.len - 2);
	return -1;
}

/* One event into its group. */
static void
add(struct opts *o, struct mct_event *ev)
{
	static struct mct_stats one;
	struct mct_buf *k = &o->kbuf;
	struct mct_val v;
	struct group *g;
	int64_t ts, dur;
	int i, has;

	/* share is of every event that has the value, grouped or not */
	if ((has = value(o, ev, &one) == 0)) {
		if (one.isfloat || o->allfloat) {
			o->allfloat = 1;
			o->alltotalf += one.isfloat ? one.v[0].d :
			    (double)one.v[0].i;
		} else {
			o->alltotal += one.v[0].i;
			o->alltotalf += (double)one.v[0].i;
		}
	}
	k->len = 0;
	for (i = 0; i < o->nby; i++) {
		if (i)
			mct_buf_addc(k, '\037');
		if (mct_field_key(ev, &o->by[i], o->hdr, k) != 0 && !o->missing)
			return;
	}
	g = lookup(o, k->p ? k->p : "", k->len);
	g->count++;
	if (has) {
		if (one.isfloat)
			mct_stats_addf(&g->val, one.v[0].d);
		else
			mct_stats_add(&g->val, one.v[0].i);
	}
	for (i = 0; i < o->nx; i++)
		if (mct_get(ev, &o->xf[i], &v) == 0 &&
		    (v.type == MCT_J_NUMBER || v.type == MCT_J_STRING))
			run_add(&g->x[i], &v);
	if (mct_get_ns(ev, "ts", &ts) == 0 && MCT_SANE_NS(ts)) {
		if (mct_get_ns(ev, "dur", &dur) != 0 || !MCT_SANE_NS(dur))
			dur = 0;
		if (!g->span || ts < g->first)
			g->first = ts;
		if (!g->span || ts + dur > g->last)
			g->last = ts + dur;
		g->span = 1;
	}
}

/* A group's aggregate as a number; *isint when it is an exact integer. */
static double
value_of(struct opts *o, struct group *g, const struct agg *a, int *isnan_,
    int64_t *iv, int *isint)
{
	struct run *r;
	double total;

	*isnan_ = 0;
	*isint = 0;
	switch (a->kind) {
	case A_COUNT:
		*isint = 1;
		*iv = g->count;
		return (double)g->count;
	case A_TOTAL:
		if (g->val.n == 0) {
			*isnan_ = 1;
			return 0;
		}
		if (!g->val.isfloat && g->val.isum <= INT64_MAX &&
		    g->val.isum >= -INT64_MAX) {
			*isint = 1;
			*iv = (int64_t)g->val.isum;
		}
		return mct_stats_sum(&g->val);
	case A_SHARE:
		total = o->allfloat ? o->alltotalf : (double)o->alltotal;
		if (total == 0 || g->val.n == 0) {
			*isnan_ = 1;
			return 0;
		}
		return 100.0 * mct_stats_sum(&g->val) / total;
	case A_FIRST:
	case A_LAST:
		if (!g->span) {
			*isnan_ = 1;
			return 0;
		}
		*isint = 1;
		*iv = (a->kind == A_FIRST ? g->first : g->last) -
		    (o->hdr->has_origin ? o->hdr->origin : 0);
		return (double)*iv;
	case A_SUMF: case A_MINF: case A_MAXF: case A_MEANF:
		r = &g->x[a->x];
		if (r->n == 0) {
			*isnan_ = 1;
			return 0;
		}
		if (a->kind == A_SUMF && !r->isfloat && r->isum <= INT64_MAX) {
			*isint = 1;
			*iv = (int64_t)r->isum;
		}
		if ((a->kind == A_MINF || a->kind == A_MAXF) && !r->isfloat) {
			*isint = 1;
			*iv = (int64_t)(a->kind == A_MINF ? r->min : r->max);
		}
		return a->kind == A_SUMF ? (r->isfloat ? r->dsum :
		    (double)r->isum) : a->kind == A_MINF ? r->min :
		    a->kind == A_MAXF ? r->max : (r->isfloat ? r->dsum :
		    (double)r->isum) / (double)r->n;
	default:
		break;
	}
	if (g->val.n == 0) {
		*isnan_ = 1;
		return 0;
	}
	switch (a->kind) {
	case A_MEAN:
		return mct_stats_mean(&g->val);
	case A_MEDIAN:
		return mct_stats_quantile(&g->val, 1, 2);
	case A_MIN:
		if (!g->val.isfloat)
			*isint = 1, *iv = g->val.imin;
		return mct_stats_min(&g->val);
	case A_MAX:
		if (!g->val.isfloat)
			*isint = 1, *iv = g->val.imax;
		return mct_stats_max(&g->val);
	case A_STDDEV:
		return mct_stats_stddev(&g->val);
	default:
		return mct_stats_quantile(&g->val, a->qn, a->qd);
	}
}

static int
agg_is_time(const struct opts *o, const struct agg *a)
{
	switch (a->kind) {
	case A_COUNT:
	case A_SHARE:
		return 0;
	case A_FIRST:
	case A_LAST:
		return 1;
	case A_SUMF: case A_MINF: case A_MAXF: case A_MEANF:
		return mct_field_time(&o->xf[a->x]);
	default:
		return o->vtime;
	}
}

/* The text of one aggregate cell, for people or for programs. */
static void
cell(struct opts *o, struct group *g, const struct agg *a, struct mct_buf *b)
{
	char num[96];
	int64_t iv = 0;
	int nan_, isint;
	double d = value_of(o, g, a, &nan_, &iv, &isint);
	int human = mct_out_human(&o->out);
	int64_t unit = mct_unit_ns(o->out.tunit);

	if (nan_) {
		mct_buf_adds(b, human ? "-" : o->out.fmt == MCT_O_NDJSON ?
		    "null" : "");
		return;
	}
	if (human) {
		if (a->kind == A_COUNT)
			mct_fmt_count(num, iv);
		else if (a->kind == A_SHARE)
			snprintf(num, sizeof(num), "%.2f%%", d);
		else if (a->kind == A_FIRST || a->kind == A_LAST)
			snprintf(num, sizeof(num), "%.3f s", d / 1e9);
		else if (agg_is_time(o, a))
			mct_fmt_human(num, d);
		else if ((a->kind >= A_SUMF && is_bytes_field(o->xf[a->x].text)) ||
		    (a->kind != A_COUNT && a->kind < A_SUMF &&
		    is_bytes_field(o->value.text))) {
			static const char *u[] = { "B", "KB", "MB", "GB", "TB" };
			char small[48];
			int k = 0;

			/* as the seed prints bytes: 12,544 B, 1.879 GB, 426.01 GB */
			if (isint && iv < 100000 && iv > -100000) {
				mct_fmt_count(small, iv);
				snprintf(num, sizeof(num), "%s B", small);
			} else {
				while (fabs(d) >= 1000 && k < 4)
					d /= 1000, k++;
				snprintf(num, sizeof(num), fabs(d) < 10 ? "%.3f %s" :
				    "%.2f %s", d, u[k]);
			}
		} else if (isint)
			mct_fmt_count(num, iv);
		else
			snprintf(num, sizeof(num), "%.2f", d);
		mct_buf_adds(b, num);
		return;
	}
	if (agg_is_time(o, a) && unit > 1) {
		if (isint)
			mct_fmt_dec(num, iv, unit);
		else
			mct_fmt_double(num, d / (double)unit);
	} else if (isint)
		snprintf(num, sizeof(num), "%lld", (long long)iv);
	else
		mct_fmt_double(num, d);
	mct_buf_adds(b, num);
}

/* The i-th part of a group's key (raw JSON text), or NULL if missing. */
static const char *
key_part(const struct group *g, int i, size_t *n)
{
	const char *p = g->key, *end = g->key + g->klen, *q;

	for (; i > 0; i--) {
		if ((q = memchr(p, '\037', (size_t)(end - p))) == NULL)
			return NULL;
		p = q + 1;
	}
	q = memchr(p, '\037', (size_t)(end - p));
	*n = (size_t)((q ? q : end) - p);
	return p;
}

static int
cmp_groups(struct opts *o, struct group *a, struct group *b)
{
	int na, nb, ia, ib, r;
	int64_t x, y;
	double da, db;

	if (o->sortby >= 0) {
		size_t la, lb;
		const char *pa = key_part(a, o->sortby, &la);
		const char *pb = key_part(b, o->sortby, &lb);

		r = memcmp(pa, pb, la < lb ? la : lb);
		if (r == 0)
			r = (la > lb) - (la < lb);
		return r ? r : strcmp(a->key, b->key);
	}
	da = value_of(o, a, &o->sortagg, &na, &x, &ia);
	db = value_of(o, b, &o->sortagg, &nb, &y, &ib);
	if (na != nb)
		return na - nb;		/* groups without a value last */
	if (!na) {
		if (ia && ib && x != y)
			return x > y ? -1 : 1;
		if (da != db)
			return da > db ? -1 : 1;
	}
	return strcmp(a->key, b->key);
}

static struct opts *sorting;

static int
qcmp(const void *a, const void *b)
{
	int r = cmp_groups(sorting, *(struct group *const *)a,
	    *(struct group *const *)b);

	return sorting->reverse ? -r : r;
}

/*
 * The --by fields among idx[0..n) that share their first `depth`
 * segments, as JSON members at that depth: {"name":..,"args":{"grid":..}}.
 */
static void
key_members(struct opts *o, const struct group *g, const int *idx, int n,
    int depth, struct mct_buf *b)
{
	int i, j, m, first = 1, *sub;

	sub = mct_xmalloc((size_t)(n + 1) * sizeof(*sub));
	for (i = 0; i < n; i++) {
		const struct mct_field *f = &o->by[idx[i]];
		int seen = 0;

		for (j = 0; j < i && !seen; j++)	/* this name done? */
			seen = strcmp(o->by[idx[j]].seg[depth], f->seg[depth]) == 0;
		if (seen)
			continue;
		if (!first)
			mct_buf_addc(b, ',');
		first = 0;
		mct_buf_addjstr(b, f->seg[depth], f->seglen[depth]);
		mct_buf_addc(b, ':');
		if (f->nseg == depth + 1) {
			size_t len;
			const char *p = key_part(g, idx[i], &len);

			mct_buf_add(b, len ? p : "null", len ? len : 4);
			continue;
		}
		for (m = 0, j = i; j < n; j++)	/* the deeper ones here */
			if (o->by[idx[j]].nseg > depth + 1 &&
			    strcmp(o->by[idx[j]].seg[depth], f->seg[depth]) == 0)
				sub[m++] = idx[j];
		mct_buf_addc(b, '{');
		key_members(o, g, sub, m, depth + 1, b);
		mct_buf_addc(b, '}');
	}
	free(sub);
}

/* The group's key as JSON members: paths nested back, virtual fields flat. */
static void
key_json(struct opts *o, const struct group *g, struct mct_buf *b)
{
	int i, n = 0, *idx;

	idx = mct_xmalloc((size_t)(o->nby + 1) * sizeof(*idx));
	for (i = 0; i < o->nby; i++)
		if (!mct_field_virtual(&o->by[i]))
			idx[n++] = i;
	key_members(o, g, idx, n, 0, b);
	free(idx);
	for (i = 0; i < o->nby; i++)
		if (mct_field_virtual(&o->by[i])) {
			size_t len;
			const char *p = key_part(g, i, &len);

			if (b->len > 1)
				mct_buf_addc(b, ',');
			mct_buf_addjstr(b, o->by[i].text, strlen(o->by[i].text));
			mct_buf_addc(b, ':');
			mct_buf_add(b, len ? p : "null", len ? len : 4);
		}
}

/* Write one row: a group, the others, or the total. */
static void
row(struct opts *o, struct group *g, const char *label)
{
	struct mct_buf line = { 0 }, t = { 0 };
	struct mct_event ev;
	int i, has_name = 0;

	if (o->out.fmt == MCT_O_NDJSON) {
		mct_buf_addc(&line, '{');
		if (label) {
			mct_buf_adds(&line, "\"name\":");
			mct_buf_addjstr(&line, label, strlen(label));
			has_name = 1;
		} else
			key_json(o, g, &line);
		for (i = 0; i < o->nby; i++)
			if (!mct_field_virtual(&o->by[i]) && o->by[i].nseg == 1 &&
			    strcmp(o->by[i].seg[0], "name") == 0)
				has_name = 1;
		for (i = 0; i < o->nagg; i++) {
			if (line.len > 1)
				mct_buf_addc(&line, ',');
			mct_buf_addjstr(&line, o->agg[i].text,
			    strlen(o->agg[i].text));
			mct_buf_addc(&line, ':');
			cell(o, g, &o->agg[i], &line);
		}
		if (!has_name) {
			/* a name for the viewer: the key's text */
			mct_buf_adds(&line, ",\"name\":");
			for (i = 0; i < o->nby; i++) {
				size_t n;
				const char *p = key_part(g, i, &n);
				struct mct_val v = { MCT_J_STRING, p, n };

				if (i)
					mct_buf_addc(&t, ' ');
				v.type = n && *p == '"' ? MCT_J_STRING : MCT_J_NUMBER;
				if (n)
					mct_jstr(&v, &t);
			}
			mct_buf_addjstr(&line, t.p ? t.p : "", t.len);
		}
		if (g->span) {
			mct_buf_adds(&line, ",\"ph\":\"X\",\"ts\":");
			mct_buf_addi(&line, g->first);
			mct_buf_adds(&line, ",\"dur\":");
			mct_buf_addi(&line, g->last - g->first);
		}
		mct_buf_addc(&line, '}');
		mct_event_init(&ev, line.p, line.len, NULL);
		mct_out_event(&o->out, &ev);
		mct_event_free(&ev);
		mct_buf_free(&line);
		mct_buf_free(&t);
		return;
	}
	/* tsv, csv, table: cells of text */
	for (i = 0; i < o->nby; i++) {
		size_t n;
		const char *p;
		struct mct_val v;

		if (i)
			mct_buf_addc(&line, '\037');
		if (label) {
			if (i == 0)
				mct_buf_adds(&line, label);
			continue;
		}
		if ((p = key_part(g, i, &n)) == NULL || n == 0 ||
		    (n == 4 && memcmp(p, "null", 4) == 0))
			continue;	/* missing and null: an empty cell */
		v.type = *p == '"' ? MCT_J_STRING : MCT_J_NUMBER;
		v.p = p;
		v.len = n;
		t.len = 0;
		mct_jstr(&v, &t);
		mct_buf_add(&line, t.p, t.len);
	}
	for (i = 0; i < o->nagg; i++) {
		mct_buf_addc(&line, '\037');
		cell(o, g, &o->agg[i], &line);
	}
	mct_out_row(&o->out, line.p, line.len);
	mct_buf_free(&line);
	mct_buf_free(&t);
}

/* A group made of several: the others, or the total. */
static void
merge(struct opts *o, struct group *into, struct group *g)
{
	int i;

	into->count += g->count;
	mct_stats_merge(&into->val, &g->val);
	for (i = 0; i < o->nx; i++) {
		struct run *a = &into->x[i], *b = &g->x[i];

		if (b->n == 0)
			continue;
		if (a->n == 0 || b->min < a->min)
			a->min = b->min;
		if (a->n == 0 || b->max > a->max)
			a->max = b->max;
		a->n += b->n;
		a->isfloat |= b->isfloat;
		a->isum += b->isum;
		a->dsum += b->dsum;
	}
	if (g->span) {
		if (!into->span || g->first < into->first)
			into->first = g->first;
		if (!into->span || g->last > into->last)
			into->last = g->last;
		into->span = 1;
	}
}

static void
report(struct opts *o)
{
	struct group **v, others = { 0 }, total = { 0 };
	size_t i, n = 0, shown;
	int j;

	v = mct_xmalloc((o->ngroups + 1) * sizeof(*v));
	for (i = 0; i < o->tabsize; i++) {
		struct group *g;

		for (g = o->tab[i]; g; g = g->next)
			v[n++] = g;
	}
	sorting = o;
	mct_sort(v, n, sizeof(*v), qcmp);
	if (o->nx) {
		others.x = mct_xmalloc((size_t)o->nx * sizeof(*others.x));
		total.x = mct_xmalloc((size_t)o->nx * sizeof(*total.x));
		memset(others.x, 0, (size_t)o->nx * sizeof(*others.x));
		memset(total.x, 0, (size_t)o->nx * sizeof(*total.x));
	}
	if (o->out.fmt != MCT_O_NDJSON) {
		struct mct_buf h = { 0 };

		for (j = 0; j < o->nby; j++) {
			if (j)
				mct_buf_addc(&h, '\037');
			mct_buf_adds(&h, o->by[j].text);
		}
		for (j = 0; j < o->nagg; j++) {
			mct_buf_addc(&h, '\037');
			mct_buf_adds(&h, o->agg[j].text);
		}
		if (o->out.header || mct_out_human(&o->out))
			mct_out_row(&o->out, h.p, h.len);
		mct_buf_free(&h);
	}
	shown = o->top > 0 && (size_t)o->top < n ? (size_t)o->top : n;
	for (i = 0; i < n; i++) {
		if (i < shown)
			row(o, v[i], NULL);
		else
			merge(o, &others, v[i]);
		merge(o, &total, v[i]);
	}
	if (shown < n)
		row(o, &others, "(others)");
	if (o->total_row || mct_out_human(&o->out))
		row(o, &total, "(total)");
	mct_stats_free(&others.val);
	mct_stats_free(&total.val);
	free(others.x);
	free(total.x);
	free(v);
}

static int
is_meta(struct mct_event *ev)
{
	struct mct_val ph;

	return mct_get_key(ev, "ph", &ph) == 0 && mct_jstr_eq(&ph, "M", 1);
}

static int
options(int argc, char *argv[], struct opts *o, struct mct_opts *mo)
{
	const char *by = "name", *aggs = DEFAULT_AGGS, *value = "dur";
	int ch, fmt = 0;
	char *end;

	while ((ch = getopt_long(argc, argv, "a:hk:n:o:rs:u:V", longopts,
	    NULL)) != -1) {
		switch (ch) {
		case 'a':
			aggs = optarg;
			break;
		case 'h':
			usage(0);
			break;
		case 'k':
			by = optarg;
			break;
		case 'n':
			o->top = strtol(optarg, &end, 10);
			if (*optarg == '\0' || *end != '\0' || o->top < 1) {
				warnx("--top: invalid number '%s'", optarg);
				mct_usage_hint();
			}
			break;
		case 'o':
			if (mct_parse_ofmt(optarg, &o->out.fmt) != 0 ||
			    o->out.fmt == MCT_O_TRACE) {
				warnx("-o: unknown format '%s' (want table, "
				    "md, ndjson, tsv or csv)", optarg);
				mct_usage_hint();
			}
			fmt = 1;
			break;
		case 'r':
			o->reverse = 1;
			break;
		case 's':
			o->sort = optarg;
			break;
		case 'u':
			mct_opt_unit(optarg, &mo->unit);
			break;
		case 'V':
			mct_version();
			break;
		case OPT_META:
			o->meta = 1;
			break;
		case OPT_MISSING:
			o->missing = 1;
			break;
		case OPT_NO_HEADER:
			o->out.header = 0;
			break;
		case OPT_RULES:
			mct_rules_path(optarg);
			break;
		case OPT_TIME_UNIT:
			mct_opt_time_unit(optarg, &o->out.tunit);
			break;
		case OPT_TOTAL:
			o->total_row = 1;
			break;
		case OPT_VALUE:
			value = optarg;
			break;
		default:
			usage(2);
		}
	}
	if (mct_fields_parse(by, &o->by, &o->nby) != 0) {
		warnx("--by: invalid field list '%s'", by);
		mct_usage_hint();
	}
	if (mct_field_parse(value, &o->value) != 0) {
		warnx("--value: invalid field '%s'", value);
		mct_usage_hint();
	}
	o->vtime = mct_field_time(&o->value);
	parse_aggs(o, aggs);
	parse_sort(o, o->sort ? o->sort : "total");
	if (!fmt)
		o->out.fmt = isatty(STDOUT_FILENO) ? MCT_O_TABLE : MCT_O_NDJSON;
	return optind;
}

static int
uses_category(const struct opts *o)
{
	return mct_rules_fields(o->by, o->nby) ||
	    mct_rules_fields(&o->value, 1) || mct_rules_fields(o->xf, o->nx);
}

int
main(int argc, char *argv[])
{
	struct opts o = { .out = { .header = 1 } };
	struct mct_opts mo = { .unit = MCT_UNIT_AUTO };
	struct mct_reader *r;
	struct mct_event *ev;
	int n;

	n = options(argc, argv, &o, &mo);
	argc -= n;
	argv += n;
	if (uses_category(&o) && mct_rules_need() != 0)
		exit(MCT_EXIT_USAGE);

	r = mct_open(argc, argv, &mo);
	o.hdr = mct_header(r);
	while (mct_next(r, &ev))
		if (o.meta || !is_meta(ev))
			add(&o, ev);
	mct_out_begin(&o.out, o.hdr);
	report(&o);
	mct_out_end(&o.out);
	return mct_finish(mct_close(r));
}
