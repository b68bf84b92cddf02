/*
 * path-long.c - mct-path's longest path of the graph (path-graph.c makes
 * it): the nodes in topological order, each node's best edge in, and
 * the path back from the end as segments of a kind each.
 */
#include "config.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "mct.h"
#include "mct-path.h"

/* Edge kinds' order when two paths are equal (enum E_*). */
static const int erank[] = { 0, 0, 1, 2, 3, 4, 1 };

static int
seg_kind(const struct opts *o, const struct edge *e)
{
	switch (e->kind) {
	case E_LAUNCH:
		return S_LAUNCH;
	case E_WAIT:
		return S_WAIT;
	case E_SYNC:
		return S_SYNC;
	}
	if (e->att < 0 || o->ev[e->att].kind != K_DEV)
		return S_HOST;
	return o->ev[e->att].fl & F_COMM ? S_COMM : S_KERNEL;
}

/*
 * Is the path to v through edge e (its length d) better than the one
 * through edge b (length bd): longer, else by the kind (erank), else from
 * the lower node.
 */
static int
better(const struct edge *e, int64_t d, const struct edge *b, int64_t bd)
{
	return b == NULL || d > bd || (d == bd &&
	    (erank[e->kind] < erank[b->kind] ||
	    (erank[e->kind] == erank[b->kind] && e->u < b->u)));
}

/* A node as the longest path reaches it (one cache line's share). */
struct lnode {
	int64_t		 dist;		/* the longest path to it */
	int32_t		 pred;		/* its last edge, -1 */
	int32_t		 indeg;		/* edges in, not yet taken */
};

/* Each node's edges out, in edge order: sl[sstart[u] .. sstart[u + 1]). */
struct csr {
	const struct opts *o;
	size_t		 nn;
	int32_t		*sstart, *sl;
};

static void *
csr_make(void *arg)
{
	struct csr *c = arg;
	const struct edge *e = c->o->e;
	size_t ne = c->o->ne, i, k;

	c->sstart = mct_xmalloc((c->nn + 2) * sizeof(*c->sstart));
	memset(c->sstart, 0, (c->nn + 2) * sizeof(*c->sstart));
	for (k = 0; k < ne; k++)
		c->sstart[e[k].u + 2]++;
	for (i = 0; i < c->nn; i++)
		c->sstart[i + 2] += c->sstart[i + 1];
	c->sl = mct_xmalloc((ne + 1) * sizeof(*c->sl));
	for (k = 0; k < ne; k++)	/* sstart[u + 1]: u's next free place */
		c->sl[c->sstart[e[k].u + 1]++] = (int32_t)k;
	return NULL;
}

/*
 * The longest path of the DAG: the nodes in topological order (Kahn's,
 * from the sources in node order, each node's successors in edge order),
 * each node's best edge in (better()) taken as the node is reached, so
 * one pass does both.  Index arrays are 32 bits: less memory to touch.
 * The successors' lists are made in a thread beside the nodes' counts.
 */
void
path_longest(struct opts *o, struct path *pa)
{
	size_t nn = 2 * o->n, i, k, head, tail;
	int32_t *sstart, *sl, *order, n, end = -1;
	struct lnode *nd;
	struct csr c = { o, nn, NULL, NULL };
	pthread_t tid;
	int th;

	memset(pa, 0, sizeof(*pa));
	th = o->ne >= PAR_MIN &&
	    mct_thread(&tid, "mct-path csr", csr_make, &c, 1) == 0;
	if (!th)
		csr_make(&c);
	pa->on = mct_xmalloc(o->n + 1);
	memset(pa->on, 0, o->n + 1);
	nd = mct_xmalloc((nn + 1) * sizeof(*nd));
	for (i = 0; i < nn; i++)
		nd[i] = (struct lnode){ 0, -1, 0 };
	for (k = 0; k < o->ne; k++)
		nd[o->e[k].v].indeg++;
	order = mct_xmalloc((nn + 1) * sizeof(*order));
	head = tail = 0;
	for (i = 0; i < nn; i++)	/* the sources: nodes of the graph */
		if (nd[i].indeg == 0 && (o->ev[i / 2].fl & F_GRAPH))
			order[tail++] = (int32_t)i;
	if (th)
		pthread_join(tid, NULL);
	sstart = c.sstart;
	sl = c.sl;
	while (head < tail) {
		int32_t v = order[head++];
		int64_t dv = nd[v].dist;

		if (end < 0 || dv > nd[end].dist ||
		    (dv == nd[end].dist && v < end))
			end = v;
		for (k = (size_t)sstart[v]; k < (size_t)sstart[v + 1]; k++) {
			const struct edge *e = &o->e[sl[k]];
			struct lnode *w = &nd[e->v];
			int64_t d = mct_sat_add(dv, e->w);

			if (better(e, d, w->pred >= 0 ? &o->e[w->pred] : NULL,
			    w->dist)) {
				w->pred = sl[k];
				w->dist = d;
			}
			if (--w->indeg == 0)
				order[tail++] = e->v;
		}
	}
	for (i = 0; i < o->n; i++)
		pa->cycle += 2 * ((o->ev[i].fl & F_GRAPH) != 0);
	pa->cycle -= (long long)tail;
	if (pa->cycle > 0)
		goto done;
	if (end < 0)
		goto done;
	pa->len = nd[end].dist;
	/* back from the end: the segments, reversed at the end */
	for (n = end; ; n = o->e[nd[n].pred].u) {
		const struct edge *e;
		int sk;

		pa->nodes++;
		pa->on[n / 2] = 1;
		if (nd[n].pred < 0)
			break;
		e = &o->e[nd[n].pred];
		pa->edge = mct_xgrow(pa->edge, pa->nedge, sizeof(*pa->edge));
		pa->edge[pa->nedge++] = nd[n].pred;
		if (e->kind == E_DEP)
			continue;
		sk = seg_kind(o, e);
		if (pa->n > 0 && pa->s[pa->n - 1].att == e->att &&
		    pa->s[pa->n - 1].kind == sk) {
			pa->s[pa->n - 1].ns = mct_sat_add(pa->s[pa->n - 1].ns,
			    e->w);
			continue;
		}
		pa->s = mct_xgrow(pa->s, pa->n, sizeof(*pa->s));
		pa->s[pa->n++] = (struct seg){ e->att, sk, e->w };
	}
	for (i = 0; i < pa->n / 2; i++) {
		struct seg t = pa->s[i];

		pa->s[i] = pa->s[pa->n - 1 - i];
		pa->s[pa->n - 1 - i] = t;
	}
	/* merging ran backwards: merge again forwards */
	for (i = k = 0; i < pa->n; i++) {
		if (k > 0 && pa->s[k - 1].att == pa->s[i].att &&
		    pa->s[k - 1].kind == pa->s[i].kind)
			pa->s[k - 1].ns = mct_sat_add(pa->s[k - 1].ns,
			    pa->s[i].ns);
		else
			pa->s[k++] = pa->s[i];
	}
	pa->n = k;
done:
	free(sstart);
	free(sl);
	free(nd);
	free(order);
}
