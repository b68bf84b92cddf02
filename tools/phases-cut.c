/*
 * phases-cut.c - mct-phases' steps 1 to 6 (mct-phases.c says them): the
 * events read, the device calls cut into phases, the idle gaps of the
 * device and what the host did in each.
 */
#include "config.h"

#include <sys/mman.h>

#include <err.h>
#include <stdlib.h>
#include <string.h>

#include "mct.h"
#include "mct-phases.h"

struct hostrec {
	int64_t		 ts, dur;
	int32_t		 name;
	int32_t		 lane;		/* pid and tid, interned */
	int32_t		 rank;		/* the index of its rank (struct ranks) */
};

/*
 * Host events are kept HOSTBATCH at a time, and each batch written to
 * the spool in one call: a fwrite() a record cost more than making it.
 * A trace with fewer never touches the spool.
 */
#define HOSTBATCH	4096

/*
 * A signature, interned: the --key fields' texts, space apart
 * ("kernel_kernel [2056,32,1] [128,1,1]").
 */
static int32_t
signature(struct opts *o, struct mct_event *ev)
{
	struct mct_buf *b = &o->tmp;
	struct mct_val v;
	int i;

	b->len = 0;
	for (i = 0; i < o->nkey; i++) {
		if (mct_get(ev, &o->key[i], &v) != 0)
			continue;
		if (b->len)
			mct_buf_addc(b, ' ');
		mct_jstr(&v, b);
	}
	return mct_intern(&o->st, b->p ? b->p : "", b->len);
}

/* The event's name, interned ("" if it has none). */
static int32_t
name_of(struct opts *o, struct mct_event *ev)
{
	struct mct_buf *b = &o->tmp;
	struct mct_val v;

	b->len = 0;
	if (mct_get_key(ev, "name", &v) == 0)
		mct_jstr(&v, b);
	return mct_intern(&o->st, b->p ? b->p : "", b->len);
}

/*
 * Room for one more device call.  The array doubles: in the heap while it
 * is small, past DEV_MAPPED bytes in pages of its own, which grow where
 * they are (mremap) rather than by a copy.  A block of tens of megabytes
 * copied in the heap leaves its old pages with the process (the heap is
 * trimmed only past 64 MiB free, mct_heap_keep()): on a trace of a million
 * device calls, 24 MiB of its peak.
 */
#if defined(MREMAP_MAYMOVE)
#define DEV_MAPPED	(1 << 20)
#endif

static void
grow_dev(struct opts *o)
{
	size_t old = o->devcap * sizeof(*o->dev), now;

	o->devcap = o->devcap ? o->devcap * 2 : 4096;
	now = o->devcap * sizeof(*o->dev);
#ifdef DEV_MAPPED
	if (now > DEV_MAPPED) {
		void *p;

		if (o->devmap > 0)
			p = mremap(o->dev, old, now, MREMAP_MAYMOVE);
		else if ((p = mmap(NULL, now, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0)) != MAP_FAILED) {
			memcpy(p, o->dev, old);
			free(o->dev);
		}
		if (p == MAP_FAILED)
			mct_nomem("mmap");
		o->dev = p;
		o->devmap = now;
		return;
	}
#endif
	(void)old;
	o->dev = mct_xrealloc(o->dev, now);
}

/* The device calls' memory back, as grow_dev() took it. */
void
free_dev(struct opts *o)
{
#ifdef DEV_MAPPED
	if (o->devmap > 0) {
		(void)munmap(o->dev, o->devmap);
		o->devmap = 0;
	} else
#endif
		free(o->dev);
	o->dev = NULL;
	o->ndev = o->devcap = 0;
}

/* A device call, kept in memory. */
static void
add_call(struct opts *o, struct mct_event *ev, int64_t ts, int64_t dur)
{
	struct mct_call *d;

	if (o->ndev == o->devcap)
		grow_dev(o);
	d = &o->dev[o->ndev++];
	d->ts = ts;
	d->dur = dur;
	d->sig = signature(o, ev);
	d->name = name_of(o, ev);
}

/* The host events kept, to the spool. */
static void
host_flush(struct opts *o)
{
	if (o->nhrec > 0 && fwrite(o->hrec, sizeof(*o->hrec), o->nhrec,
	    o->host) != o->nhrec)
		err(MCT_EXIT_USAGE, "host spool");
	o->nhrec = 0;
	o->hspilled = 1;
}

/*
 * The next host event, from where they are: all kept (none spooled), or
 * the spool's, read a batch at a time; *i and *n (0 at first) where it is
 * in the batch.  Returns 0 after the last.
 */
static int
host_next(struct opts *o, size_t *i, size_t *n, struct hostrec *r)
{
	if (*i == *n) {
		if (!o->hspilled || (*n = fread(o->hrec, sizeof(*o->hrec),
		    HOSTBATCH, o->host)) == 0)
			return 0;
		*i = 0;
	}
	*r = o->hrec[(*i)++];
	return 1;
}

/* A host event, to the spool: only step 6 reads them, once. */
static void
spool_host(struct opts *o, struct mct_event *ev, int64_t ts, int64_t dur)
{
	struct hostrec h;
	struct mct_buf *b = &o->tmp;
	struct mct_val v;

	memset(&h, 0, sizeof(h));	/* its padding goes to the spool too */
	h.ts = ts;
	h.dur = dur;
	h.rank = o->rk.cur;

	b->len = 0;
	if (mct_get_key(ev, "pid", &v) == 0)
		mct_buf_add(b, v.p, v.len);
	mct_buf_addc(b, '\037');
	if (mct_get_key(ev, "tid", &v) == 0)
		mct_buf_add(b, v.p, v.len);
	h.lane = mct_intern(&o->st, b->p, b->len);
	h.name = name_of(o, ev);
	if (o->hrec == NULL)
		o->hrec = mct_xmalloc(HOSTBATCH * sizeof(*o->hrec));
	else if (o->nhrec == HOSTBATCH)
		host_flush(o);
	o->hrec[o->nhrec++] = h;
}

/* The event's rank: its index in o->rk (made if new) is o->rk.cur. */
static void
rank_of(struct opts *o, struct mct_event *ev, int64_t end)
{
	struct ranks *rk = &o->rk;
	int64_t rank = -1;
	int i;

	if (mct_event_rank(ev, NULL, &rank, NULL) == 0 && rank >= 0)
		rk->any = 1;
	else
		rank = -1;
	if (rk->n == 0 || rk->rank[rk->cur] != rank) {
		for (i = 0; i < rk->n && rk->rank[i] != rank; i++)
			;
		if (i == rk->n) {
			rk->rank = mct_xrealloc(rk->rank, (size_t)(i + 1) *
			    sizeof(*rk->rank));
			rk->tend = mct_xrealloc(rk->tend, (size_t)(i + 1) *
			    sizeof(*rk->tend));
			rk->rank[i] = rank;
			rk->tend[i] = end;
			rk->n++;
		}
		rk->cur = i;
	}
	if (end > rk->tend[rk->cur])
		rk->tend[rk->cur] = end;
}

/*
 * The rank of the call just added, kept once a second rank is seen: till
 * then every call's is the first (of is NULL), and a trace of one rank
 * spends no memory on it.
 */
static void
rank_call(struct opts *o)
{
	struct ranks *rk = &o->rk;

	if (rk->n < 2)
		return;
	if (o->ndev > rk->ofcap) {
		rk->of = mct_xrealloc(rk->of, o->devcap * sizeof(*rk->of));
		if (rk->ofcap == 0)	/* the calls before: the first rank's */
			memset(rk->of, 0, (o->ndev - 1) * sizeof(*rk->of));
		rk->ofcap = o->devcap;
	}
	rk->of[o->ndev - 1] = rk->cur;
}

/* Kineto's span of the whole profiling (cat Trace): not host work. */
static int
profiler_span(struct mct_event *ev)
{
	struct mct_val cat;

	return mct_get_key(ev, "cat", &cat) == 0 &&
	    mct_jstr_eq(&cat, "Trace", 5);
}

/* Step 1: an event of the stream.  Only X events count; all set tend. */
void
add(struct opts *o, struct mct_event *ev)
{
	struct mct_val ph;
	int64_t ts, dur;
	int lane;

	if (mct_get_key(ev, "ph", &ph) != 0 || !mct_jstr_eq(&ph, "X", 1) ||
	    mct_get_ns(ev, "ts", &ts) != 0 || !MCT_SANE_NS(ts))
		return;
	dur = mct_phase_dur(ev, ts);
	if (!o->hasend || ts + dur > o->tend)
		o->tend = ts + dur;
	o->hasend = 1;
	rank_of(o, ev, ts + dur);
	lane = mct_device(ev);
	if (!lane && mct_is_step(ev)) {
		mct_steps_add(&o->steps, ts, dur);
		if (o->steps.cap > o->steprkcap) {
			o->steprkcap = o->steps.cap;
			o->steprk = mct_xrealloc(o->steprk, o->steprkcap *
			    sizeof(*o->steprk));
		}
		o->steprk[o->steps.n - 1] = o->rk.cur;
	}
	if (o->device ? mct_expr_eval(o->device, ev, o->hdr) : lane) {
		add_call(o, ev, ts, dur);
		rank_call(o);
	} else if (o->host && !lane && !profiler_span(ev))
		spool_host(o, ev, ts, dur);	/* not device lanes --device left out */
}

static int
cmp_dev(const void *a, const void *b)
{
	const struct mct_call *x = a, *y = b;

	return x->ts < y->ts ? -1 : x->ts > y->ts;
}

/*
 * Takes n calls; puts them in time order.  Calls in order already (a
 * stream, a sorted trace) are left as they are: glibc's qsort() sorts
 * through a copy of the array, as large again, whose pages then stay.
 */
void
sort_calls(struct mct_call *dev, size_t n)
{
	size_t i;

	for (i = 1; i < n && dev[i].ts >= dev[i - 1].ts; i++)
		;
	if (i < n)
		mct_sort(dev, n, sizeof(*dev), cmp_dev);
}

/* The phases of what was read, with the options' knobs. */
void
phases(struct opts *o)
{
	struct mct_phaser f = { .dev = o->dev, .ndev = o->ndev,
	    .nsig = (size_t)o->st.n, .m = &o->m, .tend = o->tend,
	    .hasend = o->hasend };
	struct mct_step *st;
	size_t i, nst;

	f.origin = o->hdr->facts.has_origin ? o->hdr->facts.origin :
	    (o->ndev ? o->dev[0].ts : 0);
	mct_phases_find(&f);
	/* the profiler's steps of the rank being cut (of all, with one) */
	st = o->steps.v;
	nst = o->steps.n;
	if (o->rk.n > 1) {
		st = mct_xmalloc((o->steps.n + 1) * sizeof(*st));
		for (i = nst = 0; i < o->steps.n; i++)
			if (o->steprk[i] == o->rk.cur)
				st[nst++] = o->steps.v[i];
	}
	if (nst >= (size_t)o->m.min_rounds)
		mct_phases_steps(&f, st, nst);
	if (st != o->steps.v)
		free(st);
	mct_phases_merge_switches(&f, o->minswitch);
	o->ph = f.ph;
	o->nph = f.nph;
}

/*
 * Takes the device calls; gives the gaps: the stretches longer than --gap
 * (by default 1% of the device span, at least 1 ms) in which none runs.
 */
static int64_t
cut_gaps(struct opts *o)
{
	int64_t cur1 = 0, span, min;
	size_t i;
	int t;

	if (o->ndev == 0)
		return 0;
	span = o->dev[o->ndev - 1].ts - o->dev[0].ts;
	min = o->gapmin > 0 ? o->gapmin : (span / 100 > 1000000 ? span / 100 :
	    1000000);
	for (i = 0; i < o->ndev; i++) {
		struct mct_call *d = &o->dev[i];
		struct gap *g;

		if (i > 0 && d->ts - cur1 > min) {
			o->gap = mct_xgrow(o->gap, o->ngap, sizeof(*o->gap));
			g = &o->gap[o->ngap++];
			memset(g, 0, sizeof(*g));
			g->start = cur1;
			g->end = d->ts;
			for (t = 0; t < NTOP; t++)
				g->top[t] = -1;
		}
		if (i == 0 || d->ts + d->dur > cur1)
			cur1 = d->ts + d->dur;
	}
	return min;
}

/* The host time by name inside one gap. */
struct hostsum {
	int32_t		*name;
	int64_t		*over;
	size_t		 n;
};

/*
 * Takes a host name and its time inside the gap of s (less than 0: a
 * child's time, taken from its parent); adds it to s.
 */
static void
sum_host(struct hostsum *s, int32_t name, int64_t over)
{
	size_t m;

	if (over == 0)
		return;
	for (m = 0; m < s->n && s->name[m] != name; m++)
		;
	if (m == s->n) {
		s->name = mct_xrealloc(s->name, (m + 1) * sizeof(*s->name));
		s->over = mct_xrealloc(s->over, (m + 1) * sizeof(*s->over));
		s->name[m] = name;
		s->over[m] = 0;
		s->n++;
	}
	s->over[m] += over;
}

/*
 * Takes the host time by name inside gap g; gives g's NTOP names with the
 * most of it, the most first, ties by name.  Spends s.
 */
static void
top_host(struct opts *o, struct gap *g, struct hostsum *s)
{
	size_t m, best;
	int t;

	for (t = 0; t < NTOP; t++) {
		best = (size_t)-1;
		for (m = 0; m < s->n; m++)
			if (s->over[m] > 0 && (best == (size_t)-1 ||
			    s->over[m] > s->over[best] ||
			    (s->over[m] == s->over[best] &&
			    strcmp(o->st.str[s->name[m]],
			    o->st.str[s->name[best]]) < 0)))
				best = m;
		if (best == (size_t)-1)
			break;
		g->top[t] = s->name[best];
		g->over[t] = s->over[best];
		s->over[best] = -1;
	}
}

/* The first gap that ends after ts. */
static size_t
gap_after(struct opts *o, int64_t ts)
{
	size_t lo = 0, hi = o->ngap, mid;

	while (lo < hi) {
		mid = (lo + hi) / 2;
		if (o->gap[mid].end <= ts)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* A host event in memory, for the nesting of its lane. */
struct hev {
	int64_t		 ts, end;
	int32_t		 name, lane;
	size_t		 seq;		/* its place in the spool: ties */
};

static int
cmp_hev(const void *a, const void *b)
{
	const struct hev *x = a, *y = b;

	if (x->lane != y->lane)
		return x->lane < y->lane ? -1 : 1;
	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	if (x->end != y->end)
		return x->end > y->end ? -1 : 1;	/* the enclosing first */
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/*
 * Takes event e's time in [a, b); adds it to e's name and takes it from
 * its parent's.
 */
static void
self_time(struct hostsum *s, const struct hev *e, const struct hev *parent,
    int64_t a, int64_t b)
{
	int64_t ov = mct_phases_overlap(e->ts, e->end, a, b);

	if (ov == 0)
		return;
	sum_host(s, e->name, ov);
	if (parent != NULL)
		sum_host(s, parent->name, -ov);
}

/*
 * Takes the host events of one lane, in cmp_hev order; adds to each gap
 * they reach the time of the innermost event at each moment (an event's
 * time less its children's): leaf ops, not the frames around them.  A
 * child is cut to its parent's end; stack is room for n.
 */
static void
lane_in_gaps(struct opts *o, struct hev *h, size_t n, struct hostsum *sum,
    struct hev **stack)
{
	struct hev *parent;
	size_t i, g, depth = 0;

	for (i = 0; i < n; i++) {
		while (depth > 0 && stack[depth - 1]->end <= h[i].ts)
			depth--;
		parent = depth > 0 ? stack[depth - 1] : NULL;
		if (parent != NULL && h[i].end > parent->end)
			h[i].end = parent->end;
		for (g = gap_after(o, h[i].ts); g < o->ngap &&
		    o->gap[g].start < h[i].end; g++)
			self_time(&sum[g], &h[i], parent, o->gap[g].start,
			    o->gap[g].end);
		stack[depth++] = &h[i];
	}
}

/* Takes the gaps and the host spool; gives each gap its top host names. */
static void
host_in_gaps(struct opts *o)
{
	struct hostsum *sum;
	struct hostrec r;
	struct hev *h = NULL, **stack;
	size_t i, j, n = 0, cap = 0, at = 0, in = o->nhrec;

	if (o->hspilled) {	/* the rest after them, then all from there */
		host_flush(o);
		rewind(o->host);
		in = 0;
	}
	while (host_next(o, &at, &in, &r)) {
		if (r.rank != o->rk.cur)
			continue;	/* not this rank's */
		/*
		 * Only what overlaps a gap is kept: the time it shares with
		 * no gap is nobody's, and an event around one in a gap
		 * overlaps that gap too.  Memory grows with the host work
		 * in the gaps, not with the trace.
		 */
		if ((i = gap_after(o, r.ts)) == o->ngap ||
		    o->gap[i].start >= r.ts + r.dur)
			continue;
		if (n == cap) {
			cap = cap ? cap * 2 : 4096;
			h = mct_xrealloc(h, cap * sizeof(*h));
		}
		h[n].ts = r.ts;
		h[n].end = r.ts + r.dur;
		h[n].name = r.name;
		h[n].lane = r.lane;
		h[n].seq = n;
		n++;
	}
	mct_sort(h, n, sizeof(*h), cmp_hev);
	sum = mct_xmalloc(o->ngap * sizeof(*sum));
	memset(sum, 0, o->ngap * sizeof(*sum));
	stack = mct_xmalloc((n + 1) * sizeof(*stack));
	for (i = 0; i < n; i = j) {
		for (j = i; j < n && h[j].lane == h[i].lane; j++)
			;
		lane_in_gaps(o, h + i, j - i, sum, stack);
	}
	for (i = 0; i < o->ngap; i++) {
		top_host(o, &o->gap[i], &sum[i]);
		free(sum[i].name);
		free(sum[i].over);
	}
	free(stack);
	free(sum);
	free(h);
}

/* Step 6: idle gaps of the device, and the host events in them. */
void
find_gaps(struct opts *o)
{
	char num[64];
	int64_t min;

	min = cut_gaps(o);
	if (o->ngap > 0 && o->host != NULL)
		host_in_gaps(o);
	else if (o->ngap == 0 && o->ndev > 0 && (o->out.fmt == MCT_O_TABLE ||
	    o->out.fmt == MCT_O_MD) && !o->track) {
		/* a table for people: no gap row would read as none looked
		   for (a machine format says nothing, as of intact input) */
		mct_fmt_human(num, (double)min);
		if (o->rk.any && o->rk.rank[o->rk.cur] >= 0)
			warnx("rank %lld: no idle gap longer than %s",
			    (long long)o->rk.rank[o->rk.cur], num);
		else
			warnx("no idle gap longer than %s", num);
	}
}
