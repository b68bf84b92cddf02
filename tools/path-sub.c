/*
 * path-sub.c - mct-path --steps all: a step analysed of its own events.
 *
 * A step's graph was made of every event kept, its window picked out
 * of them: with the whole input kept (its order broken: a trace written
 * backwards, Kineto's; or --from, --to) a trace of many steps took time
 * as their square.  An index of the events kept, made once while they
 * stay where they are (path-job.c's steps_groups(), which drops it when
 * it moves them), finds what a step's graph can hold:
 *   - the events in each rank's window (path_window()'s): by rank and
 *     start, a binary search;
 *   - the device events and syncs of the launches among them: by
 *     correlation id;
 *   - the events that set the windows: the step's, or with several
 *     ranks each rank's first of the name (by name, rank, start, input
 *     order, as nth_of() has them).
 * Those, in the order they are kept, their ids numbered anew, are the
 * graph path_analyse() makes: of the others it makes nothing (no node
 * outside the window and the launches' work, no id of theirs counts),
 * and it orders nodes and breaks ties by the events' order, which is
 * the same.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "mct.h"
#include "mct-path.h"

/* An event by rank and start (its index: n < 2^30, S() and E() say). */
struct tkey {
	int64_t		 ts;
	int32_t		 rk, i;
};

struct evindex {
	struct tkey	*byts;		/* every event kept, by rank, ts, index */
	size_t		*cstart, *cl;	/* per id: its device events and syncs,
					   cl[cstart[c] .. cstart[c + 1]) */
	size_t		*named, nnamed;	/* the events with a step event's
					   name, by cmp_coll() */
	char		*mark;		/* per event: in the step's set */
	int32_t		*local;		/* per id: its number in the step + 1 */
	size_t		*set, nset, setcap;	/* the step's events */
	struct pev	*sub;
	size_t		 subcap;
};

/*
 * The keys k[0..n), in index order, by rank, ts, index: stable counts of
 * ts's bytes, the least significant first (a byte the same in every key
 * skipped), then of the ranks (nrank of them).
 */
static void
sort_tkeys(struct tkey *k, size_t n, int32_t nrank)
{
	struct tkey *t = mct_xmalloc((n + 1) * sizeof(*t)), *a = k, *b = t, *c;
	size_t *count = mct_xmalloc(((size_t)nrank + 257) * sizeof(*count));
	size_t i, sum, m;
	int byte;

	for (byte = 0; byte <= 8; byte++) {
		m = byte < 8 ? 256 : (size_t)nrank;
		memset(count, 0, (m + 1) * sizeof(*count));
		for (i = 0; i < n; i++)
			count[byte < 8 ? ((uint64_t)a[i].ts ^ UINT64_C(1) << 63) >>
			    (8 * byte) & 0xff : (uint64_t)a[i].rk]++;
		if (byte < 8 && count[((uint64_t)a[0].ts ^ UINT64_C(1) << 63) >>
		    (8 * byte) & 0xff] == n)
			continue;	/* one value of this byte: order kept */
		for (sum = 0, i = 0; i < m; i++) {
			size_t x = count[i];

			count[i] = sum;
			sum += x;
		}
		for (i = 0; i < n; i++)
			b[count[byte < 8 ? ((uint64_t)a[i].ts ^ UINT64_C(1) <<
			    63) >> (8 * byte) & 0xff : (uint64_t)a[i].rk]++] = a[i];
		c = a;
		a = b;
		b = c;
	}
	if (a != k)
		memcpy(k, a, n * sizeof(*k));
	free(t);
	free(count);
}

/* Indices in order: their values' radix sort (all below 2^31). */
static void
sort_indices(size_t *v, size_t n)
{
	_Static_assert(sizeof(size_t) == sizeof(int64_t), "64-bit size_t");
	mct_sort_i64((int64_t *)(void *)v, n);
}

/* The index of the events kept (made at the first need, kept in s). */
static struct evindex *
index_of(struct opts *o, struct stepstate *s)
{
	struct evindex *x = s->ix;
	size_t nc = (size_t)o->corrs.n, i, k;
	char *step;

	if (x != NULL)
		return x;
	x = s->ix = mct_xmalloc(sizeof(*x));
	memset(x, 0, sizeof(*x));
	x->byts = mct_xmalloc((o->n + 1) * sizeof(*x->byts));
	for (i = 0; i < o->n; i++)
		x->byts[i] = (struct tkey){ o->ev[i].ts, o->ev[i].rk,
		    (int32_t)i };
	for (i = 1; i < o->n && (x->byts[i - 1].rk < x->byts[i].rk ||
	    (x->byts[i - 1].rk == x->byts[i].rk &&
	    x->byts[i - 1].ts <= x->byts[i].ts)); i++)
		;
	if (i < o->n && o->n > 0)
		sort_tkeys(x->byts, o->n, o->nrank);
	/* the device events and syncs by id, in order */
	x->cstart = mct_xmalloc((nc + 2) * sizeof(*x->cstart));
	memset(x->cstart, 0, (nc + 2) * sizeof(*x->cstart));
	for (i = 0; i < o->n; i++)
		if (steps_route(&o->ev[i]) == R_CORR)
			x->cstart[o->ev[i].corr + 2]++;
	for (i = 0; i < nc; i++)
		x->cstart[i + 2] += x->cstart[i + 1];
	x->cl = mct_xmalloc((x->cstart[nc + 1] + 1) * sizeof(*x->cl));
	for (i = 0; i < o->n; i++)
		if (steps_route(&o->ev[i]) == R_CORR)
			x->cl[x->cstart[o->ev[i].corr + 1]++] = i;
	/* the events named as a step event is */
	step = mct_xmalloc((size_t)o->names.n + 1);
	memset(step, 0, (size_t)o->names.n + 1);
	for (i = 0; i < o->n; i++)
		if (o->ev[i].fl & F_STEP)
			step[o->ev[i].name] = 1;
	x->named = mct_xmalloc((o->n + 1) * sizeof(*x->named));
	for (i = k = 0; i < o->n; i++)
		if (step[o->ev[i].name])
			x->named[k++] = i;
	x->nnamed = k;
	free(step);
	mct_sort_r(x->named, x->nnamed, sizeof(*x->named), cmp_coll, o);
	x->mark = mct_xmalloc(o->n + 1);
	memset(x->mark, 0, o->n + 1);
	x->local = mct_xmalloc((nc + 1) * sizeof(*x->local));
	memset(x->local, 0, (nc + 1) * sizeof(*x->local));
	return x;
}

/* The index dropped: the events kept have moved. */
void
steps_unindex(struct stepstate *s)
{
	struct evindex *x = s->ix;

	if (x == NULL)
		return;
	free(x->byts);
	free(x->cstart);
	free(x->cl);
	free(x->named);
	free(x->mark);
	free(x->local);
	free(x->set);
	free(x->sub);
	free(x);
	s->ix = NULL;
}

/* The run [*a, *b) of x->byts of rank rk that starts in [lo, hi]. */
static void
range(const struct opts *o, const struct evindex *x, int32_t rk, int64_t lo,
    int64_t hi, size_t *a, size_t *b)
{
	size_t l, h, m;
	int k;

	for (k = 0; k < 2; k++) {	/* the first at lo, the first past hi */
		l = 0;
		h = o->n;
		while (l < h) {
			const struct tkey *t = &x->byts[(m = (l + h) / 2)];

			if (t->rk < rk || (t->rk == rk && (k ? t->ts <= hi :
			    t->ts < lo)))
				l = m + 1;
			else
				h = m;
		}
		*(k ? b : a) = l;
	}
	if (*b < *a)
		*b = *a;
}

/* The run [*a, *b) of x->named named nm. */
static void
named_run(const struct opts *o, const struct evindex *x, int32_t nm,
    size_t *a, size_t *b)
{
	size_t l, h, m;
	int k;

	for (k = 0; k < 2; k++) {
		l = 0;
		h = x->nnamed;
		while (l < h) {
			int32_t n = o->ev[x->named[(m = (l + h) / 2)]].name;

			if (n < nm || (k && n == nm))
				l = m + 1;
			else
				h = m;
		}
		*(k ? b : a) = l;
	}
}

/*
 * The events of rank rk that start in [a, b], in the order they are
 * kept: *n of them, in an array of the index's (till the next call).
 */
const size_t *
steps_in_window(struct opts *o, struct stepstate *s, int32_t rk, int64_t a,
    int64_t b, size_t *n)
{
	struct evindex *x = index_of(o, s);
	size_t lo, hi, i;

	range(o, x, rk, a, b, &lo, &hi);
	if (hi - lo > x->setcap) {
		x->setcap = hi - lo;
		x->set = mct_xrealloc(x->set, x->setcap * sizeof(*x->set));
	}
	for (i = lo; i < hi; i++)
		x->set[i - lo] = (size_t)x->byts[i].i;
	*n = hi - lo;
	sort_indices(x->set, *n);
	return x->set;
}

/*
 * The first event named nm of each rank, as job() wants it: a step event
 * not done (or read back), earliest by ts then input order; into g, in
 * rank order.  Returns how many.
 */
size_t
steps_firsts(struct opts *o, struct stepstate *s, int32_t nm, size_t *g)
{
	struct evindex *x = index_of(o, s);
	size_t a, b, i, k = 0;

	named_run(o, x, nm, &a, &b);
	for (i = a; i < b; i++) {
		const struct pev *p = &o->ev[x->named[i]];

		if (!(p->fl & F_STEP) || (p->fl & (F_DONE | F_BACK)) == F_DONE)
			continue;
		if (k == 0 || o->ev[g[k - 1]].rk != p->rk)
			g[k++] = x->named[i];
	}
	return k;
}

/* An event into the step's set, once. */
static void
set_add(struct evindex *x, size_t i)
{
	if (x->mark[i])
		return;
	x->mark[i] = 1;
	if (x->nset == x->setcap) {
		x->setcap = x->setcap ? 2 * x->setcap : 4096;
		x->set = mct_xrealloc(x->set, x->setcap * sizeof(*x->set));
	}
	x->set[x->nset++] = i;
}

/* The events of rank r's window [lo, hi] and the work of their launches. */
static void
set_window(struct opts *o, struct evindex *x, int32_t r, int64_t lo,
    int64_t hi)
{
	size_t a, b, i, j;

	range(o, x, r, lo, hi, &a, &b);
	for (i = a; i < b; i++) {
		const struct pev *p = &o->ev[x->byts[i].i];

		set_add(x, (size_t)x->byts[i].i);
		if (p->kind != K_OP || p->corr < 0 || !(p->fl & F_HOSTCALL))
			continue;
		for (j = x->cstart[p->corr]; j < x->cstart[p->corr + 1]; j++)
			set_add(x, x->cl[j]);
	}
}

/* Its number in the step (ids numbered anew), for the id c. */
static int32_t
local_id(struct evindex *x, int32_t c, int32_t *nl)
{
	if (c < 0)
		return -1;
	if (x->local[c] == 0)
		x->local[c] = ++*nl;
	return x->local[c] - 1;
}

/*
 * The step's events: with step (the step event o->ev[o->stepev] alone),
 * its rank's window; else (--step NAME's) each rank's first event of
 * the name's; --from and --to over them as path_window() sets them.
 * Into x->set, in the order they are kept.
 */
static void
step_set(struct opts *o, struct evindex *x, int step)
{
	int64_t *lo, *hi, from, to;
	size_t a, b, i;
	int32_t r, nm;

	lo = mct_xmalloc(((size_t)o->nrank + 1) * sizeof(*lo));
	hi = mct_xmalloc(((size_t)o->nrank + 1) * sizeof(*hi));
	for (r = 0; r < o->nrank; r++) {
		lo[r] = 1;
		hi[r] = 0;
	}
	x->nset = 0;
	if (step) {
		const struct pev *p = &o->ev[o->stepev];

		lo[p->rk] = p->ts;
		hi[p->rk] = p->ts + p->dur;
		set_add(x, o->stepev);
	} else {
		nm = o->ev[o->stepev].name;
		named_run(o, x, nm, &a, &b);
		for (i = a; i < b; i++) {
			const struct pev *p = &o->ev[x->named[i]];

			if (i > a && o->ev[x->named[i - 1]].rk == p->rk)
				continue;
			lo[p->rk] = p->ts;
			hi[p->rk] = p->ts + p->dur;
			set_add(x, x->named[i]);
		}
	}
	path_window_ends(o, &from, &to);
	for (r = 0; r < o->nrank; r++)
		set_window(o, x, r, o->has_from ? from : lo[r],
		    o->has_to ? to : hi[r]);
	sort_indices(x->set, x->nset);
	free(lo);
	free(hi);
}

/*
 * path_analyse() of the step o->ev[o->stepev] (steps_row() has set o up
 * for it: --steps all's window, or --step NAME's), of its own events;
 * its counts into o.  The path's events are the step's own (pa->on,
 * pa->s[].att): only its length and segments are for o.
 */
int
steps_analyse(struct opts *o, struct stepstate *s, struct path *pa)
{
	struct evindex *x = index_of(o, s);
	struct opts sub;
	size_t i;
	int32_t nl = 0;
	int r;

	step_set(o, x, o->steps);
	if (x->nset > x->subcap) {	/* (grown by half at least) */
		x->subcap = x->nset + x->subcap / 2;
		free(x->sub);
		x->sub = mct_xmalloc(x->subcap * sizeof(*x->sub));
	}
	sub = *o;
	sub.ev = x->sub;
	sub.n = sub.cap = x->nset;
	for (i = 0; i < x->nset; i++) {
		struct pev *p = &x->sub[i];

		*p = o->ev[x->set[i]];
		p->corr = local_id(x, p->corr, &nl);
		p->rcorr = local_id(x, p->rcorr, &nl);
		if (x->set[i] == o->stepev)
			sub.stepev = i;
	}
	sub.sub = 1;
	sub.ncorr = nl;
	r = path_analyse(&sub, pa);
	for (i = 0; i < x->nset; i++) {	/* the marks and numbers undone */
		const struct pev *p = &o->ev[x->set[i]];

		x->mark[x->set[i]] = 0;
		if (p->corr >= 0)
			x->local[p->corr] = 0;
		if (p->rcorr >= 0)
			x->local[p->rcorr] = 0;
	}
	o->e = sub.e;
	o->ecap = sub.ecap;
	o->ne = sub.ne;
	o->negative = sub.negative;
	o->noedge = sub.noedge;
	o->nokernel = sub.nokernel;
	o->nosrc = sub.nosrc;
	return r;
}
