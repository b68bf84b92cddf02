/*
 * group.c - the group table: events grouped under a key, and the
 * aggregates of each group.
 *
 * Each group keeps a small struct: its count, its span, running sums of
 * the extra fields, and every value (8 bytes each) for exact medians and
 * percentiles, where one is asked (novals: none).  No event is kept.  The groups sit in one array in the
 * order their keys came, found by key through the map of table.c.  What
 * a group's row looks like to a writer is cell.c's.
 */
#include "config.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "mct.h"

/*
 * One aggregate's name, as in -a or --sort; a field of sum:F and its
 * kin becomes an extra field of the table (before the first event).
 * Returns 0, or -1 if unknown.
 */
int
mct_agg_parse(struct mct_gtab *t, const char *text, struct mct_agg *a)
{
	static const struct { const char *s; enum mct_akind k; } names[] = {
		{ "count", MCT_A_COUNT }, { "total", MCT_A_TOTAL },
		{ "share", MCT_A_SHARE }, { "mean", MCT_A_MEAN },
		{ "median", MCT_A_MEDIAN }, { "min", MCT_A_MIN },
		{ "max", MCT_A_MAX }, { "stddev", MCT_A_STDDEV },
		{ "first", MCT_A_FIRST }, { "last", MCT_A_LAST },
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
			if (a->kind == MCT_A_MEDIAN || a->kind == MCT_A_STDDEV)
				t->needvals = 1;
			return 0;
		}
	if (text[0] == 'p' && text[1] >= '0' && text[1] <= '9') {
		/* pN: the quantile N/100 as the fraction qn/qd, exactly */
		a->kind = MCT_A_PCT;
		t->needvals = 1;
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
		a->kind = MCT_A_SUMF;
	else if (strncmp(text, "min:", 4) == 0)
		a->kind = MCT_A_MINF;
	else if (strncmp(text, "max:", 4) == 0)
		a->kind = MCT_A_MAXF;
	else if (strncmp(text, "mean:", 5) == 0)
		a->kind = MCT_A_MEANF;
	else
		return -1;
	if (mct_field_parse(c + 1, &f) != 0)
		return -1;
	for (j = 0; j < t->nx; j++)
		if (strcmp(t->xf[j].text, f.text) == 0)
			break;
	if (j == t->nx) {
		t->xf = mct_xrealloc(t->xf, (size_t)(t->nx + 1) * sizeof(*t->xf));
		t->xf[t->nx++] = f;
	} else
		mct_field_free(&f);
	a->x = j;
	return 0;
}

/* A JSON number, or a string's text, as a number.  0, or -1: not one. */
static int
number(const struct mct_val *v, struct mct_number *x)
{
	char buf[64], *end;
	const char *p = v->p;
	size_t n = v->len;
	mct_i128 e6;

	if (v->type == MCT_J_STRING) {
		p++;
		n -= 2;
	} else if (v->type != MCT_J_NUMBER)
		return -1;
	x->isfloat = 0;
	if (mct_int(p, n, &x->v.i) == 0)
		return 0;
	if (n == 0 || n >= sizeof(buf) || mct_dec_e6(p, n, &e6) != 0)
		return -1;
	memcpy(buf, p, n);
	buf[n] = '\0';
	x->v.d = strtod(buf, &end);
	x->isfloat = 1;
	return *end == '\0' ? 0 : -1;
}

/* The event's value, if it has one that is a number: 0, else -1. */
int
mct_gtab_value(const struct mct_gtab *t, struct mct_event *ev,
    struct mct_number *x)
{
	struct mct_val v;

	if (mct_field_time(t->value)) {
		x->isfloat = 0;
		return mct_field_ns(ev, t->value, t->hdr, &x->v.i) == 0 ? 0 : -1;
	}
	if (mct_get(ev, t->value, &v) != 0)
		return -1;
	return number(&v, x);
}

static void
run_add(struct mct_run *r, const struct mct_val *v)
{
	struct mct_number x;
	double d;

	if (number(v, &x) != 0)
		return;		/* not a number: no value */
	d = x.isfloat ? x.v.d : (double)x.v.i;
	r->isfloat |= x.isfloat;
	if (r->n == 0 || d < r->min)
		r->min = d;
	if (r->n == 0 || d > r->max)
		r->max = d;
	if (!r->isfloat)
		r->isum += x.v.i;
	r->dsum += d;
	r->n++;
}

static struct mct_run *
runs(const struct mct_gtab *t)
{
	struct mct_run *x;

	if (t->nx == 0)
		return NULL;
	x = mct_xmalloc((size_t)t->nx * sizeof(*x));
	memset(x, 0, (size_t)t->nx * sizeof(*x));
	return x;
}

/* The group of a key, made if new.  It lives until the next one is made. */
static inline struct mct_group *
group(struct mct_gtab *t, const char *key, size_t n)
{
	struct mct_mapent *e;
	struct mct_group *g;
	int isnew;

	e = mct_map_add(&t->map, key, n, &isnew);
	if (!isnew)
		return &t->g[e->val.i];
	if (t->n == t->cap) {
		t->cap = t->cap ? t->cap * 2 : 64;
		t->g = mct_xrealloc(t->g, t->cap * sizeof(*t->g));
	}
	e->val.i = (int64_t)t->n;
	g = &t->g[t->n++];
	memset(g, 0, sizeof(*g));
	g->key = e->key;
	g->klen = n;
	g->x = runs(t);
	g->val.nokeep = t->novals;
	g->val.compact = t->countvals;
	return g;
}

/* The group of a key, made if new (a partial's group read back). */
struct mct_group *
mct_gtab_group(struct mct_gtab *t, const char *key, size_t n)
{
	return group(t, key, n);
}

struct mct_group *
mct_gtab_find(const struct mct_gtab *t, const char *key, size_t n)
{
	struct mct_mapent *e = mct_map_find(&t->map, key, n);

	return e ? &t->g[e->val.i] : NULL;
}

/*
 * One event into the group of a key; x is its value (mct_gtab_value), or
 * NULL.  A value counts in the total of share whether the event is in a
 * group or not (key NULL).  The group returned lives until the next add.
 */
struct mct_group *
mct_gtab_add(struct mct_gtab *t, struct mct_event *ev, const char *key,
    size_t n, const struct mct_number *x)
{
	struct mct_group *g;
	struct mct_val v;
	int64_t ts, dur;
	int i;

	if (x != NULL) {
		if (x->isfloat || t->allfloat) {
			t->allfloat = 1;
			t->alltotalf += x->isfloat ? x->v.d : (double)x->v.i;
		} else {
			t->alltotal += x->v.i;
			t->alltotalf += (double)x->v.i;
		}
	}
	if (key == NULL)
		return NULL;
	g = group(t, key, n);
	g->count++;
	if (x != NULL) {
		if (x->isfloat)
			mct_stats_addf(&g->val, x->v.d);
		else
			mct_stats_add(&g->val, x->v.i);
	}
	for (i = 0; i < t->nx; i++)
		if (mct_get(ev, &t->xf[i], &v) == 0)
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
	return g;
}

/* Add the events of g to into (the others, the total, a partial table). */
void
mct_group_merge(const struct mct_gtab *t, struct mct_group *into,
    const struct mct_group *g)
{
	int i;

	/*
	 * A partial's count may be near 2^63 (each is checked below it):
	 * the (others) and (total) rows of such groups stay at the limit.
	 */
	if (__builtin_add_overflow(into->count, g->count, &into->count))
		into->count = LLONG_MAX;
	mct_stats_merge(&into->val, &g->val);
	for (i = 0; i < t->nx; i++) {
		struct mct_run *a = &into->x[i], *b = &g->x[i];

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

/*
 * Add every group of another table, made with the same value and extra
 * fields, to t: as if t had read the other's events too.
 */
void
mct_gtab_merge(struct mct_gtab *t, const struct mct_gtab *from)
{
	size_t i;

	for (i = 0; i < from->n; i++)
		mct_group_merge(t, group(t, from->g[i].key, from->g[i].klen),
		    &from->g[i]);
	t->allfloat |= from->allfloat;
	t->alltotal += from->alltotal;
	t->alltotalf += from->alltotalf;
}

static void
group_free(struct mct_group *g)
{
	mct_stats_free(&g->val);
	free(g->x);
}

void
mct_gtab_free(struct mct_gtab *t)
{
	size_t i;
	int j;

	for (i = 0; i < t->n; i++)
		group_free(&t->g[i]);
	free(t->g);
	mct_map_free(&t->map);
	for (j = 0; j < t->nx; j++)
		mct_field_free(&t->xf[j]);
	free(t->xf);
	t->g = NULL;
	t->xf = NULL;
	t->n = t->cap = 0;
	t->nx = 0;
	t->alltotal = 0;
	t->alltotalf = 0;
	t->allfloat = 0;
}

/* The i-th part of a group's key (raw JSON text), or NULL if missing. */
const char *
mct_group_part(const struct mct_group *g, int i, size_t *n)
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

/*
 * A group's aggregate as a number; *isnan_ when it has none, *isint (and
 * *iv) when it is an exact integer.
 */
double
mct_agg_value(const struct mct_gtab *t, struct mct_group *g,
    const struct mct_agg *a, int *isnan_, int64_t *iv, int *isint)
{
	struct mct_run *r;
	double total;

	*isnan_ = 0;
	*isint = 0;
	switch (a->kind) {
	case MCT_A_COUNT:
		*isint = 1;
		*iv = g->count;
		return (double)g->count;
	case MCT_A_TOTAL:
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
	case MCT_A_SHARE:
		total = t->allfloat ? t->alltotalf : (double)t->alltotal;
		if (total == 0 || g->val.n == 0) {
			*isnan_ = 1;
			return 0;
		}
		return 100.0 * mct_stats_sum(&g->val) / total;
	case MCT_A_FIRST:
	case MCT_A_LAST:
		if (!g->span) {
			*isnan_ = 1;
			return 0;
		}
		/* (an origin of a partial may be far: none past int64) */
		if (__builtin_sub_overflow(a->kind == MCT_A_FIRST ? g->first :
		    g->last, t->hdr && t->hdr->facts.has_origin ?
		    t->hdr->facts.origin : 0,
		    iv)) {
			*isnan_ = 1;
			return 0;
		}
		*isint = 1;
		return (double)*iv;
	case MCT_A_SUMF: case MCT_A_MINF: case MCT_A_MAXF: case MCT_A_MEANF:
		r = &g->x[a->x];
		if (r->n == 0) {
			*isnan_ = 1;
			return 0;
		}
		if (a->kind == MCT_A_SUMF && !r->isfloat && r->isum <= INT64_MAX) {
			*isint = 1;
			*iv = (int64_t)r->isum;
		}
		if ((a->kind == MCT_A_MINF || a->kind == MCT_A_MAXF) &&
		    !r->isfloat) {
			*isint = 1;
			*iv = (int64_t)(a->kind == MCT_A_MINF ? r->min : r->max);
		}
		return a->kind == MCT_A_SUMF ? (r->isfloat ? r->dsum :
		    (double)r->isum) : a->kind == MCT_A_MINF ? r->min :
		    a->kind == MCT_A_MAXF ? r->max : (r->isfloat ? r->dsum :
		    (double)r->isum) / (double)r->n;
	default:
		break;
	}
	if (g->val.n == 0) {
		*isnan_ = 1;
		return 0;
	}
	switch (a->kind) {
	case MCT_A_MEAN:
		return mct_stats_mean(&g->val);
	case MCT_A_MEDIAN:
		return mct_stats_quantile(&g->val, 1, 2);
	case MCT_A_MIN:
		if (!g->val.isfloat)
			*isint = 1, *iv = g->val.imin;
		return mct_stats_min(&g->val);
	case MCT_A_MAX:
		if (!g->val.isfloat)
			*isint = 1, *iv = g->val.imax;
		return mct_stats_max(&g->val);
	case MCT_A_STDDEV:
		return mct_stats_stddev(&g->val);
	default:
		return mct_stats_quantile(&g->val, a->qn, a->qd);
	}
}

/* Keys as bytes: the same order as strcmp(3) on keys without NUL. */
static int
keycmp(const char *a, size_t na, const char *b, size_t nb)
{
	int r = memcmp(a, b, na < nb ? na : nb);

	return r ? r : (na > nb) - (na < nb);
}

struct sorting {
	const struct mct_gtab	*t;
	const struct mct_order	*o;
};

static int
cmp_groups(const struct sorting *s, struct mct_group *a, struct mct_group *b)
{
	const struct mct_order *o = s->o;
	int na, nb, ia, ib, r;
	int64_t x, y;
	double da, db;

	if (o->by >= 0) {
		size_t la, lb;
		const char *pa = mct_group_part(a, o->by, &la);
		const char *pb = mct_group_part(b, o->by, &lb);

		r = keycmp(pa, la, pb, lb);
		return r ? r : keycmp(a->key, a->klen, b->key, b->klen);
	}
	da = mct_agg_value(s->t, a, &o->agg, &na, &x, &ia);
	db = mct_agg_value(s->t, b, &o->agg, &nb, &y, &ib);
	if (na != nb)
		return na - nb;		/* groups without a value last */
	if (!na) {
		if (ia && ib && x != y)
			return x > y ? -1 : 1;
		if (da != db)
			return da > db ? -1 : 1;
	}
	return keycmp(a->key, a->klen, b->key, b->klen);
}

static int
qcmp(const void *a, const void *b, void *arg)
{
	const struct sorting *s = arg;
	int r = cmp_groups(s, *(struct mct_group *const *)a,
	    *(struct mct_group *const *)b);

	return s->o->reverse ? -r : r;
}

void
mct_gtab_sort(const struct mct_gtab *t, struct mct_group **v, size_t n,
    const struct mct_order *o)
{
	struct sorting s = { t, o };

	mct_sort_r(v, n, sizeof(*v), qcmp, &s);
}

/*
 * The rows of a report, given one at a time to row(arg, group, label):
 * the groups in order, the first `top` of them if top > 0, then the
 * others merged ("(others)"), then, if total, all of them ("(total)").
 * A group goes into the others and the total after its row is written.
 */
void
mct_gtab_report(struct mct_gtab *t, const struct mct_order *o, long top,
    int total, void (*row)(void *, struct mct_group *, const char *),
    void *arg)
{
	struct mct_group **v, others = { 0 }, all = { 0 };
	size_t i, shown;

	v = mct_xmalloc((t->n + 1) * sizeof(*v));
	for (i = 0; i < t->n; i++)
		v[i] = &t->g[i];
	mct_gtab_sort(t, v, t->n, o);
	others.x = runs(t);
	all.x = runs(t);
	shown = top > 0 && (size_t)top < t->n ? (size_t)top : t->n;
	for (i = 0; i < t->n; i++) {
		if (i < shown)
			row(arg, v[i], NULL);
		else
			mct_group_merge(t, &others, v[i]);
		mct_group_merge(t, &all, v[i]);
	}
	if (shown < t->n)
		row(arg, &others, "(others)");
	if (total)
		row(arg, &all, "(total)");
	group_free(&others);
	group_free(&all);
	free(v);
}

/*
 * The key of an event (mct-group's and mct-diff's): its by fields'
 * values, \037 apart.  An event without one of them has no key (-1),
 * unless missing is set, or the field has a stand-in for it
 * (mct_field_other(): category's (other); mct_stack_noop(): op's
 * (no op) on a pair; so that shares add up).
 */
int
mct_group_key(struct mct_event *ev, const struct mct_field *by, int nby,
    int missing, const struct mct_header *hdr, struct mct_buf *k)
{
	int i;

	k->len = 0;
	for (i = 0; i < nby; i++) {
		if (i)
			mct_buf_addc(k, '\037');
		if (mct_field_key(ev, &by[i], hdr, k) == 0 ||
		    mct_field_other(ev, &by[i], hdr, k) == 0 ||
		    mct_stack_noop(ev, &by[i], k) == 0)
			continue;
		if (!missing)
			return -1;
	}
	return 0;
}

/*
 * One event into the table under its key (mct_group_key), k the caller's
 * scratch; its value counts in share even when it has no key.
 */
void
mct_gtab_event(struct mct_gtab *t, struct mct_event *ev,
    const struct mct_field *by, int nby, int missing, struct mct_buf *k)
{
	struct mct_number x;
	int has = mct_gtab_value(t, ev, &x) == 0;

	if (mct_group_key(ev, by, nby, missing, t->hdr, k) == 0)
		mct_gtab_add(t, ev, k->p ? k->p : "", k->len, has ? &x : NULL);
	else
		mct_gtab_add(t, ev, NULL, 0, has ? &x : NULL);
}
