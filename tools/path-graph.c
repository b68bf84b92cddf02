/*
 * path-graph.c - mct-path's engine: the graph of the window (host call
 * stacks, launches, kernel-kernel waits, syncs, collectives: the rules of
 * mct-path(1)) and its longest path.
 */
#include "config.h"

#include <err.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "mct.h"
#include "mct-path.h"

/*
 * A kernel waits for the stream's last kernel only when that one ended at
 * most this long (ns) before it started (as HolisticTraceAnalysis has it
 * since mid-2025): a longer gap is not queueing, and the kernel waits for
 * its launch instead.
 */
#define KK_MAX	1500000

/*
 * The graph.
 */

static int64_t
node_ts(const struct opts *o, int32_t n)
{
	const struct pev *p = &o->ev[n / 2];

	return p->ts + (n % 2 ? p->dur : 0);
}

void
path_edge(struct opts *o, int32_t u, int32_t v, int64_t w, int kind,
    int32_t att)
{
	struct edge *e;

	if (w < 0) {
		o->negative++;
		w = 0;
	}
	if (o->ne == o->ecap && o->eborrowed) {	/* its own array now */
		struct edge *a = mct_xmalloc(2 * o->ecap * sizeof(*a));

		o->e = memcpy(a, o->e, o->ne * sizeof(*a));
		o->ecap *= 2;
		o->eborrowed = 0;
	} else if (o->ne == o->ecap) {
		o->ecap = o->ecap ? o->ecap * 2 : 4096;
		o->e = mct_xrealloc(o->e, o->ecap * sizeof(*o->e));
	}
	e = &o->e[o->ne++];
	e->u = u;
	e->v = v;
	e->w = w;
	e->kind = (uint8_t)kind;
	e->att = att;
}

static _Thread_local struct opts *sorting;	/* for the comparisons below */

/* Host ops by lane, start, longest first, input order. */
static int
cmp_op(const void *a, const void *b)
{
	const struct pev *x = &sorting->ev[*(const size_t *)a],
	    *y = &sorting->ev[*(const size_t *)b];

	if (x->lane != y->lane)
		return x->lane < y->lane ? -1 : 1;
	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	if (x->dur != y->dur)
		return x->dur > y->dur ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static int32_t
op_lane(const struct opts *o, const void *x)
{
	return o->ev[*(const size_t *)x].lane;
}

/*
 * Sort ops (in input order) as cmp_op() does: when they already come by
 * start and longest first, as a trace in ts order mostly does, a stable
 * count by lane is enough; else mct_sort().
 */
static void
sort_ops(struct opts *o, size_t *ops, size_t nops)
{
	size_t i;

	for (i = 1; i < nops; i++) {
		const struct pev *x = &o->ev[ops[i - 1]], *y = &o->ev[ops[i]];

		if (x->ts > y->ts || (x->ts == y->ts && x->dur < y->dur) ||
		    x->seq > y->seq)
			break;
	}
	if (i < nops) {
		sorting = o;
		mct_sort(ops, nops, sizeof(*ops), cmp_op);
		return;
	}
	free(path_by_lane(o, ops, nops, sizeof(*ops), op_lane));
}

/* Each host lane's ops along their call stacks. */
static void
host_edges(struct opts *o, size_t *ops, size_t nops)
{
	size_t *stack, i, j, k, depth;
	int32_t last, lasttop;

	sort_ops(o, ops, nops);
	stack = mct_xmalloc((nops + 1) * sizeof(*stack));
	for (i = 0; i < nops; i = j) {
		depth = 0;
		last = lasttop = -1;
		for (j = i; j <= nops; j++) {
			struct pev *x = j < nops ? &o->ev[ops[j]] : NULL;

			if (x != NULL && x->lane != o->ev[ops[i]].lane)
				x = NULL;
			/* leave the ops that ended before x starts */
			while (depth > 0) {
				struct pev *t = &o->ev[stack[depth - 1]];

				if (x != NULL && t->ts + t->dur > x->ts)
					break;
				k = stack[--depth];
				path_edge(o, last, E(k), t->fl & F_BLOCK ? 0 :
				    t->ts + t->dur - node_ts(o, last), E_OP,
				    (int32_t)k);
				if (depth == 0) {
					last = -1;
					lasttop = E(k);
				} else
					last = E(k);
			}
			if (x == NULL)
				break;
			if (depth == 0 && lasttop >= 0)
				path_edge(o, lasttop, S(ops[j]), 0, E_DEP, -1);
			if (last >= 0)
				path_edge(o, last, S(ops[j]), x->ts - node_ts(o, last),
				    E_OP, depth ? (int32_t)stack[depth - 1] : -1);
			stack[depth++] = ops[j];
			last = S(ops[j]);
		}
	}
	free(stack);
}

/* A launch and its device event. */
struct pair {
	size_t		 r, d;
};

static int
cmp_pair_stream(const void *a, const void *b)
{
	const struct pair *p = a, *q = b;
	const struct pev *x = &sorting->ev[p->d], *y = &sorting->ev[q->d],
	    *rx = &sorting->ev[p->r], *ry = &sorting->ev[q->r];

	if (x->lane != y->lane)
		return x->lane < y->lane ? -1 : 1;
	if (rx->ts != ry->ts)
		return rx->ts < ry->ts ? -1 : 1;
	return rx->seq < ry->seq ? -1 : rx->seq > ry->seq;
}

static int
cmp_pair_thread(const void *a, const void *b)
{
	const struct pair *p = a, *q = b;
	const struct pev *rx = &sorting->ev[p->r], *ry = &sorting->ev[q->r];

	if (rx->lane != ry->lane)
		return rx->lane < ry->lane ? -1 : 1;
	if (rx->ts != ry->ts)
		return rx->ts < ry->ts ? -1 : 1;
	return rx->seq < ry->seq ? -1 : rx->seq > ry->seq;
}

static int32_t
pair_stream(const struct opts *o, const void *x)
{
	return o->ev[((const struct pair *)x)->d].lane;
}

/*
 * Sort the pairs as cmp_pair_stream() does: by stream with a count, then
 * each stream by launch, which mostly it is already.
 */
static void
by_stream(struct opts *o, struct pair *ps, size_t np)
{
	size_t *end = path_by_lane(o, ps, np, sizeof(*ps), pair_stream);
	size_t i, from;

	sorting = o;
	for (i = from = 0; i < (size_t)o->lanes.n; from = end[i++])
		path_sort_near(ps + from, end[i] - from, sizeof(*ps),
		    cmp_pair_stream);
	free(end);
}

/* The queue of a stream: launches (+1) and kernel starts (-1) by time. */
struct qitem {
	int32_t		 lane;
	int		 kernel;
	int64_t		 ts;
	long long	 seq;
	size_t		 pair;
};

static int
cmp_qitem(const void *a, const void *b)
{
	const struct qitem *x = a, *y = b;

	if (x->lane != y->lane)
		return x->lane < y->lane ? -1 : 1;
	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	if (x->kernel != y->kernel)
		return x->kernel - y->kernel;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* The queue item of ps[i]: its launch, or (kernel) its device event. */
static struct qitem
qitem_of(const struct opts *o, const struct pair *ps, size_t i, int kernel)
{
	const struct pev *x = &o->ev[kernel ? ps[i].d : ps[i].r];

	return (struct qitem){ o->ev[ps[i].d].lane, kernel, x->ts, x->seq, i };
}

/*
 * The queue items of the pairs ps (by stream, then launch), in
 * cmp_qitem()'s order: a stream's launches and its device events' starts
 * each come in order, mostly, and are merged; where the merge is out of
 * order, the stream's items are sorted (the same order).
 */
static void
queue_items(const struct opts *o, const struct pair *ps, size_t np,
    struct qitem *q)
{
	struct qitem x, y;
	size_t i, j, a, b, k;

	for (i = 0; i < np; i = j) {
		for (j = i + 1; j < np && pair_stream(o, &ps[j]) ==
		    pair_stream(o, &ps[i]); j++)
			;
		for (a = b = i, k = 2 * i; k < 2 * j; k++) {
			x = qitem_of(o, ps, a < j ? a : i, 0);
			y = qitem_of(o, ps, b < j ? b : i, 1);
			q[k] = b == j || (a < j && cmp_qitem(&x, &y) < 0) ?
			    (a++, x) : (b++, y);
		}
		for (k = 2 * i + 1; k < 2 * j && cmp_qitem(&q[k - 1], &q[k]) <=
		    0; k++)
			;
		if (k == 2 * j)
			continue;
		for (k = i; k < j; k++) {
			q[2 * k] = qitem_of(o, ps, k, 0);
			q[2 * k + 1] = qitem_of(o, ps, k, 1);
		}
		path_sort_near(q + 2 * i, 2 * (j - i), sizeof(*q), cmp_qitem);
	}
}

/* Device events and syncs, by ts (syncs by their end). */
struct ditem {
	int64_t		 key;
	long long	 seq;
	size_t		 i;		/* the event */
	int		 what;		/* 'k', 'c' context, 's' stream, 'e'
					   event sync, 'w' stream wait */
	size_t		 call;		/* the host call a sync ends */
};

static int
cmp_ditem(const void *a, const void *b)
{
	const struct ditem *x = a, *y = b;

	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/*
 * The last pair of a sorted run [lo, hi) whose launch is before ts, or
 * hi if none (the run is by launch time).
 */
static size_t
last_before(struct opts *o, const struct pair *v, size_t lo, size_t hi,
    int64_t ts)
{
	size_t a = lo, b = hi;

	while (a < b) {
		size_t m = (a + b) / 2;

		if (o->ev[v[m].r].ts < ts)
			a = m + 1;
		else
			b = m;
	}
	return a == lo ? hi : a - 1;
}

/* The run of pairs of lane (by key) in a sorted array. */
static void
run_of(const struct pair *v, size_t n, int32_t lane, int by_dev,
    const struct opts *o, size_t *lo, size_t *hi)
{
	size_t a, b, m;
	int k;

	for (k = 0; k < 2; k++) {	/* the first of lane, the first after */
		a = 0;
		b = n;
		while (a < b) {
			int32_t l;

			m = (a + b) / 2;
			l = o->ev[by_dev ? v[m].d : v[m].r].lane;
			if (l < lane || (k && l == lane))
				a = m + 1;
			else
				b = m;
		}
		*(k ? hi : lo) = a;
	}
}

/* Do two lanes share a device: the rank and the pid? */
static int
same_device(const struct opts *o, int32_t a, int32_t b)
{
	const char *x = o->lanes.str[a], *y = o->lanes.str[b];
	size_t n = strcspn(x, "\037");

	return n == strcspn(y, "\037") && memcmp(x, y, n) == 0;
}

/*
 * A kernel launched more than KK_MAX before it started, when no device
 * lane of its rank had anything running at its start and the device work
 * that ended last did so on another lane, after the launch and at most
 * KK_MAX before: the kernel waited for the device (a copy behind another
 * stream's kernels; mcTracer's copies have a lane of their own), not for
 * its launch.  That kernel, else -1.
 */
static int32_t
device_busy(const struct opts *o, const struct pev *x, const struct pev *r,
    int32_t d, int64_t dend)
{
	if (r == NULL || x->ts - r->ts <= KK_MAX || d < 0 || dend > x->ts ||
	    x->ts - dend > KK_MAX || dend <= r->ts ||
	    o->ev[d].lane == x->lane)
		return -1;
	return d;
}

/*
 * A collective without launch follows the device's work: the kernel of
 * the graph on its device (any stream) that ended last at or before its
 * start (then the later in the input), or -1.
 */
static int32_t
device_before(const struct opts *o, size_t k)
{
	const struct pev *x = &o->ev[k];
	int32_t best = -1;
	size_t i;

	for (i = 0; i < o->n; i++) {
		const struct pev *p = &o->ev[i];

		if (i == k || p->kind != K_DEV || !(p->fl & F_GRAPH) ||
		    p->ts + p->dur > x->ts || !same_device(o, p->lane, x->lane))
			continue;
		if (best < 0 || p->ts + p->dur > node_ts(o, E(best)) ||
		    (p->ts + p->dur == node_ts(o, E(best)) &&
		    p->seq > o->ev[best].seq))
			best = (int32_t)i;
	}
	return best;
}

static int
cmp_rec(const void *a, const void *b)
{
	const struct pev *x = &sorting->ev[*(const size_t *)a],
	    *y = &sorting->ev[*(const size_t *)b];

	if (x->lane != y->lane)
		return x->lane < y->lane ? -1 : 1;
	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/*
 * An EventSynchronize by name (a rank without cuda_sync events): the
 * latest ...EventRecord of the call's thread that starts before it
 * (recs: the records of the graph by lane, ts, seq), and the kernel of
 * the thread's last launch before that record; -1 if none.
 */
static int32_t
record_kernel(struct opts *o, const size_t *recs, size_t nrec,
    const struct pair *pt, size_t np, const struct pev *call)
{
	size_t a = 0, b = nrec, m, lo, hi, k;
	const struct pev *rec;

	while (a < b) {		/* the first record past the call */
		m = (a + b) / 2;
		rec = &o->ev[recs[m]];
		if (rec->lane < call->lane || (rec->lane == call->lane &&
		    rec->ts < call->ts))
			a = m + 1;
		else
			b = m;
	}
	if (a == 0 || o->ev[recs[a - 1]].lane != call->lane)
		return -1;
	rec = &o->ev[recs[a - 1]];
	run_of(pt, np, call->lane, 0, o, &lo, &hi);
	k = last_before(o, pt, lo, hi, rec->ts);
	return k < hi ? (int32_t)pt[k].d : -1;
}

static void
device_edges(struct opts *o, int32_t *launch, int32_t *record, char *synced)
{
	struct pair *ps, *pt;
	struct qitem *q;
	struct ditem *it;
	int *qrt, *qk;
	int32_t *last;		/* per stream lane: its last kernel, -1 */
	int32_t *ksync;		/* per event: the kernel it waits for, -1 */
	int32_t *dk, dv, busy;	/* per rank: the device work */
	int64_t *dend;		/* that ends last so far, and its end */
	size_t np = 0, nit = 0, nrec = 0, *recs, i, j, lo, hi;

	ps = mct_xmalloc((o->n + 1) * sizeof(*ps));
	it = mct_xmalloc((o->n + 1) * sizeof(*it));
	for (i = 0; i < o->n; i++) {
		struct pev *p = &o->ev[i];

		if (p->kind == K_DEV && p->corr >= 0 && launch[p->corr] >= 0) {
			p->fl |= F_GRAPH;
			ps[np].r = (size_t)launch[p->corr];
			ps[np++].d = i;
			it[nit].what = 'k';
		} else if (p->kind == K_DEV && (p->fl & F_GRAPH))
			it[nit].what = 'k';	/* a collective, no launch */
		else if (p->kind == K_SYNC && p->corr >= 0 &&
		    launch[p->corr] >= 0) {
			struct mct_val dummy;
			const char *nm = o->names.str[p->name];

			(void)dummy;
			it[nit].call = (size_t)launch[p->corr];
			if (strlen(nm) != mct_strtab_len(&o->names, p->name))
				continue;	/* a NUL in it: none below */
			if (strcmp(nm, "Context Sync") == 0)
				it[nit].what = 'c';
			else if (strcmp(nm, "Stream Sync") == 0)
				it[nit].what = 's';
			else if (strcmp(nm, "Event Sync") == 0)
				it[nit].what = 'e';
			else if (strcmp(nm, "Stream Wait Event") == 0)
				it[nit].what = 'w';
			else
				continue;
		} else if ((p->fl & F_GRAPH) && p->kind == K_OP &&
		    (p->fl & F_HOSTCALL) && (p->corr < 0 || !synced[p->corr]) &&
		    (p->fl & (F_DEVSYNC | F_STRSYNC))) {
			it[nit].call = i;
			it[nit].what = p->fl & F_DEVSYNC ? 'c' : 't';
		} else if ((p->fl & F_GRAPH) && p->kind == K_OP &&
		    (p->fl & F_HOSTCALL) && (p->corr < 0 || !synced[p->corr]) &&
		    !(p->rk < o->nrksync && o->rksync[p->rk]) &&
		    (p->fl & F_EVSYNC)) {
			it[nit].call = i;
			it[nit].what = 'v';
		} else
			continue;
		it[nit].i = i;
		it[nit].seq = p->seq;
		it[nit].key = it[nit].what == 'k' ? p->ts : p->ts + p->dur;
		nit++;
	}
	/* launches by name whose work is not in the trace */
	{
		char *used = mct_xmalloc(o->n + 1);

		memset(used, 0, o->n + 1);
		for (i = 0; i < np; i++)
			used[ps[i].r] = 1;
		for (i = 0; i < o->n; i++)
			if ((o->ev[i].fl & (F_GRAPH | F_LAUNCH | F_HOSTCALL)) ==
			    (F_GRAPH | F_LAUNCH | F_HOSTCALL) && !used[i])
				o->nokernel++;
		free(used);
	}
	/*
	 * Launches by stream and by thread, in launch order (the queues,
	 * made from ps in this order, come nearly in theirs).
	 */
	sorting = o;
	pt = mct_xmalloc((np + 1) * sizeof(*pt));
	memcpy(pt, ps, np * sizeof(*ps));
	by_stream(o, ps, np);
	path_sort_near(pt, np, sizeof(*pt), cmp_pair_thread);
	/* queues */
	q = mct_xmalloc((2 * np + 1) * sizeof(*q));
	qrt = mct_xmalloc((np + 1) * sizeof(*qrt));
	qk = mct_xmalloc((np + 1) * sizeof(*qk));
	queue_items(o, ps, np, q);
	for (i = 0; i < 2 * np; i = j) {
		int len = 0;

		for (j = i; j < 2 * np && q[j].lane == q[i].lane; j++) {
			len += q[j].kernel ? -1 : 1;
			(q[j].kernel ? qk : qrt)[q[j].pair] = len;
		}
	}
	/* the queues by device event */
	{
		int *a = mct_xmalloc((o->n + 1) * sizeof(*a)),
		    *b = mct_xmalloc((o->n + 1) * sizeof(*b));

		for (i = 0; i < np; i++) {
			a[ps[i].d] = qrt[i];
			b[ps[i].d] = qk[i];
		}
		free(qrt);
		free(qk);
		qrt = a;
		qk = b;
	}
	free(q);
	path_sort_near(it, nit, sizeof(*it), cmp_ditem);
	recs = mct_xmalloc((o->n + 1) * sizeof(*recs));
	for (i = 0; i < nit; i++)	/* the records, if a 'v' needs them */
		if (it[i].what == 'v')
			break;
	for (j = 0; i < nit && j < o->n; j++)
		if ((o->ev[j].fl & (F_GRAPH | F_RECORD)) ==
		    (F_GRAPH | F_RECORD) && o->ev[j].kind == K_OP)
			recs[nrec++] = j;
	path_sort_near(recs, nrec, sizeof(*recs), cmp_rec);
	last = mct_xmalloc(((size_t)o->lanes.n + 1) * sizeof(*last));
	for (i = 0; i < (size_t)o->lanes.n; i++)
		last[i] = -1;
	ksync = mct_xmalloc((o->n + 1) * sizeof(*ksync));
	for (i = 0; i < o->n; i++)
		ksync[i] = -1;
	dk = mct_xmalloc(((size_t)o->nrank + 1) * sizeof(*dk));
	dend = mct_xmalloc(((size_t)o->nrank + 1) * sizeof(*dend));
	for (i = 0; i < (size_t)o->nrank; i++)
		dk[i] = -1, dend[i] = 0;
	for (i = 0; i < nit; i++) {
		struct ditem *t = &it[i];
		struct pev *x = &o->ev[t->i];
		int32_t src = -1, ls, srcs[1];
		size_t k, nsrc = 0;

		if (t->what == 'k') {
			struct pev *r = x->corr >= 0 && launch[x->corr] >= 0 ?
			    &o->ev[launch[x->corr]] : NULL;
			int added = 0;

			path_edge(o, S(t->i), E(t->i), x->dur, E_DEV, (int32_t)t->i);
			dv = x->rk;
			busy = device_busy(o, x, r, dk[dv], dend[dv]);
			if ((src = ksync[t->i]) >= 0) {
				ksync[t->i] = -1;
				path_edge(o, E(src), S(t->i), 0, E_SYNC,
				    (int32_t)t->i);
				added = 1;
			}
			ls = r != NULL ? last[x->lane] : device_before(o, t->i);
			if (r != NULL && qrt[t->i] == 1 && qk[t->i] == 0 &&
			    (ls < 0 ||
			    node_ts(o, E(ls)) < r->ts) && (src < 0 ||
			    node_ts(o, E(src)) < r->ts)) {
				if (busy >= 0)	/* it waited for the device */
					path_edge(o, E(busy), S(t->i), x->ts -
					    dend[dv], E_WAIT, busy);
				else
					path_edge(o, S(launch[x->corr]), S(t->i),
					    x->ts - r->ts, E_LAUNCH,
					    launch[x->corr]);
				added = 1;
			} else if (ls >= 0 && (src < 0 ||
			    node_ts(o, E(src)) < node_ts(o, E(ls)))) {
				if (r == NULL || x->ts - node_ts(o, E(ls)) <=
				    KK_MAX)
					path_edge(o, E(ls), S(t->i), x->ts -
					    node_ts(o, E(ls)), E_WAIT, ls);
				else if (busy >= 0)
					path_edge(o, E(busy), S(t->i), x->ts -
					    dend[dv], E_WAIT, busy);
				else	/* not queueing: it waits for its launch */
					path_edge(o, S(launch[x->corr]), S(t->i),
					    x->ts - r->ts, E_LAUNCH,
					    launch[x->corr]);
				added = 1;
			}
			if (!added)
				o->noedge++;
			last[x->lane] = (int32_t)t->i;
			if (dk[dv] < 0 || x->ts + x->dur > dend[dv]) {
				dk[dv] = (int32_t)t->i;
				dend[dv] = x->ts + x->dur;
			}
			continue;
		}
		if (!(o->ev[t->call].fl & F_GRAPH))
			continue;
		switch (t->what) {
		case 'c':	/* every stream of the call's rank */
			for (k = nsrc = 0; k < (size_t)o->lanes.n; k++)
				if (last[k] >= 0 && o->ev[last[k]].rk ==
				    o->ev[t->call].rk) {
					path_edge(o, E(last[k]), E(t->call), 0,
					    E_SYNC, (int32_t)t->call);
					nsrc++;
				}
			if (nsrc == 0)
				o->nosrc++;
			continue;
		case 's':
			srcs[nsrc++] = last[x->lane];
			break;
		case 'v':	/* the kernel before the thread's record */
			srcs[nsrc++] = record_kernel(o, recs, nrec, pt, np, x);
			break;
		case 't':	/* the stream of the thread's last launch */
			run_of(pt, np, x->lane, 0, o, &lo, &hi);
			k = last_before(o, pt, lo, hi, x->ts);
			if (k < hi)
				srcs[nsrc++] = last[o->ev[pt[k].d].lane];
			break;
		case 'e':
		case 'w':
			if (x->wstream < 0 || x->rcorr < 0 ||
			    record[x->rcorr] < 0) {
				o->nosrc++;
				continue;
			}
			run_of(ps, np, x->wstream, 1, o, &lo, &hi);
			k = last_before(o, ps, lo, hi,
			    o->ev[record[x->rcorr]].ts);
			if (k == hi) {
				o->nosrc++;
				continue;
			}
			src = (int32_t)ps[k].d;
			if (t->what == 'e') {
				srcs[nsrc++] = src;
				break;
			}
			/* the next launch of the call's thread on x's stream */
			run_of(ps, np, x->lane, 1, o, &lo, &hi);
			for (k = lo; k < hi; k++) {
				struct pev *r = &o->ev[ps[k].r];

				if (r->lane == o->ev[t->call].lane &&
				    r->ts > o->ev[t->call].ts)
					break;
			}
			if (k < hi)
				ksync[ps[k].d] = src;
			continue;
		}
		if (nsrc == 0 || srcs[0] < 0)
			o->nosrc++;
		for (k = 0; k < nsrc; k++)
			if (srcs[k] >= 0)
				path_edge(o, E(srcs[k]), E(t->call), 0, E_SYNC,
				    (int32_t)t->call);
	}
	free(ps);
	free(pt);
	free(it);
	free(recs);
	free(qrt);
	free(qk);
	free(last);
	free(ksync);
	free(dk);
	free(dend);
}

static int
in_window(const struct pev *p, const int64_t *lo, const int64_t *hi, int haslo,
    int hashi)
{
	return !(haslo && p->ts < lo[p->rk]) && !(hashi && p->ts > hi[p->rk]);
}

/*
 * host_edges() in a thread of its own, into its own copy of the opts: it
 * reads the events and writes only the copy's edges (e, ne, negative),
 * never a buffer the copy shares with o (tmp, the tables).
 */
struct hostjob {
	struct opts	 h;
	size_t		*ops, nops;
};

static void *
host_run(void *arg)
{
	struct hostjob *j = arg;

	host_edges(&j->h, j->ops, j->nops);
	return NULL;
}

/*
 * The host's edges and the device's, the first in a thread of their own
 * while this one makes the second: the host's go at the start of o->e,
 * in room for as many as they can be (an op adds one edge as it starts
 * and one as it ends), the device's after that room, and are moved down
 * after them at the end: the edges in the order one thread would make
 * them (host, then device), which the longest path's ties follow.
 */
static void
both_edges(struct opts *o, size_t *ops, size_t nops, int32_t *launch,
    int32_t *record, char *synced)
{
	struct hostjob j;
	struct edge *all = o->e;
	size_t room = 2 * nops + 1, cap = o->ecap;
	pthread_t tid;
	int th;

	j.h = *o;
	j.h.ecap = room;
	j.h.eborrowed = 1;
	j.ops = ops;
	j.nops = nops;
	o->e = all + room;
	o->ecap = cap - room;
	o->eborrowed = 1;
	th = nops >= PAR_MIN &&
	    mct_thread(&tid, "mct-path host", host_run, &j, 1) == 0;
	if (!th)
		host_run(&j);
	device_edges(o, launch, record, synced);
	if (th)
		pthread_join(tid, NULL);
	if (j.h.e != all)	/* (it cannot outgrow its room) */
		errx(MCT_EXIT_USAGE, "host edges out of room");
	if (o->eborrowed) {
		memmove(all + j.h.ne, o->e, o->ne * sizeof(*all));
		o->e = all;
		o->ecap = cap;
	} else {		/* the device's outgrew the rest */
		struct edge *dev = o->e;

		if (j.h.ne + o->ne > cap) {
			cap = j.h.ne + o->ne;
			all = mct_xrealloc(all, cap * sizeof(*all));
		}
		memcpy(all + j.h.ne, dev, o->ne * sizeof(*all));
		free(dev);
		o->e = all;
		o->ecap = cap;
	}
	o->eborrowed = 0;
	o->ne += j.h.ne;
	o->negative += j.h.negative;
}

/* The graph of the window, and its path. */
int
path_analyse(struct opts *o, struct path *pa)
{
	int32_t *launch, *record;
	char *synced;
	size_t *ops, nops = 0, i, nc;
	int64_t *lo, *hi;
	double f;
	int haslo, hashi;

	lo = mct_xmalloc(((size_t)o->nrank + 1) * sizeof(*lo));
	hi = mct_xmalloc(((size_t)o->nrank + 1) * sizeof(*hi));
	if (path_window(o, lo, hi, &haslo, &hashi) != 0) {
		free(lo);
		free(hi);
		return -1;
	}
	nc = path_stepwise(o) && !o->sub ? (size_t)o->corrs.n :
	    (size_t)o->ncorr;
	launch = mct_xmalloc((nc + 1) * sizeof(*launch));
	record = mct_xmalloc((nc + 1) * sizeof(*record));
	synced = mct_xmalloc(nc + 1);
	memset(synced, 0, nc + 1);
	for (i = 0; i < nc; i++)
		launch[i] = record[i] = -1;
	ops = mct_xmalloc((o->n + 1) * sizeof(*ops));
	for (i = 0; i < o->n; i++) {
		struct pev *p = &o->ev[i];

		p->fl &= ~F_GRAPH;
		if (!in_window(p, lo, hi, haslo, hashi))
			continue;
		if (p->kind == K_DEV && p->corr < 0 && (p->fl & F_COMM))
			p->fl |= F_GRAPH;	/* a collective without launch */
		if (p->kind != K_OP)
			continue;
		p->fl |= F_GRAPH;
		ops[nops++] = i;
		if (p->corr >= 0 && (p->fl & F_HOSTCALL) &&
		    launch[p->corr] < 0)
			launch[p->corr] = (int32_t)i;
		if (p->corr >= 0 && (p->fl & F_RECORD) && record[p->corr] < 0)
			record[p->corr] = (int32_t)i;
	}
	for (i = 0; i < o->n; i++)
		if (o->ev[i].kind == K_SYNC && o->ev[i].corr >= 0 &&
		    launch[o->ev[i].corr] >= 0)
			synced[o->ev[i].corr] = 1;
	o->ne = 0;
	o->negative = o->noedge = o->nokernel = o->nosrc = 0;
	if (o->ecap < 6 * o->n + 2) {	/* room at once: no copies */
		free(o->e);
		o->ecap = 6 * o->n + 2;
		o->e = mct_xmalloc(o->ecap * sizeof(*o->e));
	}
	both_edges(o, ops, nops, launch, record, synced);
	/*
	 * --scale: an event's own spans (at most int64 ns), the rest of the
	 * graph as it was
	 */
	for (i = 0; o->nsc > 0 && !o->unscaled && i < o->ne; i++) {
		struct edge *e = &o->e[i];

		if ((e->kind == E_OP || e->kind == E_DEV) && e->att >= 0 &&
		    o->ev[e->att].scm != 0 &&
		    (f = path_factor(o, &o->ev[e->att])) != 1)
			e->w = (double)e->w * f < 0x1p63 ?
			    (int64_t)((double)e->w * f) : INT64_MAX;
	}
	if (o->nrank > 1)
		path_collectives(o);
	path_longest(o, pa);
	free(lo);
	free(hi);
	free(ops);
	free(launch);
	free(record);
	free(synced);
	return 0;
}

void
path_free(struct path *pa)
{
	free(pa->s);
	free(pa->on);
	free(pa->edge);
}
