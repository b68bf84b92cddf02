/*
 * path-coll.c - mct-path's collectives: several ranks' graphs joined where
 * their communication kernels meet (path-graph.c builds the rest).
 */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>

#include "mct.h"
#include "mct-path.h"

/* Collectives (path-job.c: steps) by name, rank, start, input order. */
int
cmp_coll(const void *a, const void *b, void *arg)
{
	const struct opts *o = arg;
	const struct pev *x = &o->ev[*(const size_t *)a],
	    *y = &o->ev[*(const size_t *)b];

	if (x->name != y->name)
		return x->name < y->name ? -1 : 1;
	if (x->rk != y->rk)
		return x->rk < y->rk ? -1 : 1;
	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/*
 * Several ranks: the n-th communication kernel of a name on each rank is
 * one collective (as mct-ranks matches them).  It ends on no rank before
 * the last rank has come: an edge from the start of the rank that came
 * last (the latest start, then the lowest rank) to each other rank's end.
 * On a rank that came earlier the kernel's own time counts from that
 * start only: its wait for the others is on no path, as the time between
 * top-level ops is not, so the path crosses to the rank that came last
 * unless the earlier one's own work before it was longer.
 */

/* An early rank's collective: its kernel's own edge at most w. */
struct cap {
	size_t		 ev;
	int64_t		 w;
};

static int
cmp_cap(const void *a, const void *b)
{
	const struct cap *x = a, *y = b;

	return x->ev < y->ev ? -1 : x->ev > y->ev;
}

/* The own edges of the early ranks' collective kernels cut to their caps. */
static void
cut_waits(struct opts *o, struct cap *cp, size_t ncp)
{
	struct cap key, *f;
	size_t i;

	qsort(cp, ncp, sizeof(*cp), cmp_cap);
	for (i = 0; i < o->ne && ncp > 0; i++) {
		struct edge *e = &o->e[i];

		if (e->kind != E_DEV || e->att < 0 ||
		    e->u != S(e->att) || e->v != E(e->att))
			continue;
		key.ev = (size_t)e->att;
		if ((f = bsearch(&key, cp, ncp, sizeof(*cp), cmp_cap)) != NULL &&
		    f->w < e->w)
			e->w = f->w;
	}
}
void
path_collectives(struct opts *o)
{
	size_t *c, n = 0, i, j, k, *at, ncp = 0;
	struct cap *cp;
	int32_t r;

	c = mct_xmalloc((o->n + 1) * sizeof(*c));
	for (i = 0; i < o->n; i++)
		if ((o->ev[i].fl & (F_GRAPH | F_COMM)) == (F_GRAPH | F_COMM) &&
		    o->ev[i].kind == K_DEV)
			c[n++] = i;
	mct_sort_r(c, n, sizeof(*c), cmp_coll, o);
	cp = mct_xmalloc((n + 1) * sizeof(*cp));
	at = mct_xmalloc(((size_t)o->nrank + 1) * sizeof(*at));
	for (i = 0; i < n; i = j) {	/* a name: its calls, rank by rank */
		for (j = i; j < n && o->ev[c[j]].name == o->ev[c[i]].name; j++)
			;
		for (r = 0; r < o->nrank; r++)
			at[r] = SIZE_MAX;
		for (k = j; k-- > i; )
			at[o->ev[c[k]].rk] = k;	/* each rank's first */
		for (;;) {
			size_t last = SIZE_MAX;
			int m = 0;

			for (r = 0; r < o->nrank; r++) {
				size_t x = at[r];

				if (x == SIZE_MAX || x >= j ||
				    o->ev[c[x]].rk != r)
					continue;
				m++;
				if (last == SIZE_MAX ||
				    o->ev[c[x]].ts > o->ev[c[last]].ts)
					last = x;
			}
			if (m == 0)
				break;
			for (r = 0; r < o->nrank && m > 1; r++) {
				size_t x = at[r];
				struct pev *p;

				if (x == SIZE_MAX || x >= j || x == last ||
				    o->ev[c[x]].rk != r)
					continue;
				p = &o->ev[c[x]];
				path_edge(o, S(c[last]), E(c[x]), p->ts + p->dur -
				    o->ev[c[last]].ts, E_COLL, (int32_t)c[x]);
				cp[ncp].ev = c[x];
				cp[ncp].w = p->ts + p->dur - o->ev[c[last]].ts;
				if (cp[ncp].w < 0)
					cp[ncp].w = 0;
				ncp++;
			}
			for (r = 0; r < o->nrank; r++)
				if (at[r] != SIZE_MAX)
					at[r]++;
		}
	}
	cut_waits(o, cp, ncp);
	free(cp);
	free(at);
	free(c);
}
