/*
 * mct-phases - where the time went, in order: the timeline in phases, and
 * what the host did in every idle gap of the device.
 *
 * The method, in plain words (mct-phases(1) says it for users):
 *
 * 1. Every device event (--device; by default the X events on device
 *    lanes) is kept as a small struct (start, length, signature); X
 *    events on host lanes go to a spool file as (start, length, name).
 * 2. For each signature, its calls in time order are split into runs
 *    wherever the pause between two calls is more than --split times the
 *    signature's median pause.  A run of at least --min-rounds calls that
 *    holds at least --min-share of all device time is a candidate for a
 *    steady phase: a stretch of repeated rounds.
 * 3. Candidates are taken heaviest first.  One that covers (both ways, by
 *    --overlap) an accepted phase joins it as another anchor; one that
 *    overlaps it only in part is dropped; one that overlaps none becomes a
 *    phase.  A phase runs from the first start to the last end of its
 *    anchors' runs; its rounds are its heaviest anchor's calls.
 * 4. Calls of the anchors' names outside every steady phase are one-off
 *    cases (warmup, functional checks): calls less than --join apart (by
 *    default 1% of the device span) form one warmup phase.
 * 5. What lies before the first phase is init, between two phases a
 *    switch, after the last one the tail.  Where the profiler annotated
 *    the training steps (ProfilerStep#N), they are the rounds instead
 *    (mct_phases_steps()); a switch shorter than --min-switch joins the phase
 *    before it (mct_phases_merge_switches()).
 * 6. Gaps are the stretches longer than --gap T in which no device event
 *    runs (busy time is the union of the device intervals); for each, the
 *    host names with the most time in it, each moment going to the
 *    innermost host event of its lane (leaf ops, not enclosing frames).
 *
 * In the code: step 1 is add(); mct_phases_find() (lib/phases.c) does
 * steps 2 to 5 by find_runs(), take_steady(), find_warmups() and
 * fill_between(); step 6 is find_gaps(); report() writes it all out.
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

#define DEFAULT_KEY	"name,args.grid,args.block"
#define TRACK_PID	1000000		/* the phases' own track */
#define NTOP		3

struct hostrec {
	int64_t		 ts, dur;
	int32_t		 name;
	int32_t		 lane;		/* pid and tid, interned */
	int32_t		 rank;		/* the index of its rank (struct ranks) */
};

struct gap {
	int64_t		 start, end;
	int32_t		 top[NTOP];
	int64_t		 over[NTOP];
};

/*
 * The ranks of a job: each is cut into phases of its own.  The
 * device calls are read with the index of their rank beside them, then
 * grouped by rank; cur is the rank being cut and reported.
 */
struct ranks {
	int64_t		*rank;		/* by index, as they came; -1: none */
	int64_t		*tend;		/* each one's last end */
	int		 n, cur, any;	/* any: some event had a rank */
	int		 reported;	/* ranks reported yet */
	int32_t		*of;		/* the rank of each device call */
	size_t		 ofcap;
};

struct opts {
	struct mct_field *key;
	int		 nkey;
	struct mct_expr	*device;
	int		 gaps, only_gaps;
	int64_t		 gapmin;	/* --gap; 0: automatic */
	int64_t		 minswitch;	/* --min-switch; -1: 1% of the median round */
	struct mct_steps steps;		/* Kineto's ProfilerStep#N */
	int32_t		*steprk;	/* the rank of each (struct ranks) */
	size_t		 steprkcap;
	struct mct_method	 m;
	struct mct_out	 out;
	int		 track;		/* -o trace: a stream of track events */
	const struct mct_header *hdr;
	/* what was read */
	struct mct_call	*dev;
	size_t		 ndev, devcap;
	FILE		*host;		/* the host spool, with --gaps */
	char		*hostvb;	/* its buffer */
	int64_t		 tend;		/* the last end of any event */
	int		 hasend;
	/* interned strings: signatures and host names */
	struct mct_strtab st;
	/* results */
	struct mct_phase	*ph;
	int		 nph;
	struct gap	*gap;
	size_t		 ngap;
	struct mct_buf	 tmp;		/* one event's texts, to intern */
	struct ranks	 rk;
};

enum { OPT_DEVICE = MCT_OPT_TOOL, OPT_GAP, OPT_GAPS, OPT_JOIN,
    OPT_MIN_ROUNDS, OPT_MIN_SHARE, OPT_MIN_SWITCH, OPT_ONLY_GAPS, OPT_OVERLAP,
    OPT_SPLIT };

static const struct option longopts[] = {
	{ "device",	required_argument,	NULL, OPT_DEVICE },
	{ "gap",	required_argument,	NULL, OPT_GAP },
	{ "gaps",	no_argument,		NULL, OPT_GAPS },
	MCT_LONGOPT_HELP,
	{ "join",	required_argument,	NULL, OPT_JOIN },
	{ "key",	required_argument,	NULL, 'k' },
	{ "min-rounds",	required_argument,	NULL, OPT_MIN_ROUNDS },
	{ "min-share",	required_argument,	NULL, OPT_MIN_SHARE },
	{ "min-switch",	required_argument,	NULL, OPT_MIN_SWITCH },
	MCT_LONGOPT_NO_HEADER,
	{ "only-gaps",	no_argument,		NULL, OPT_ONLY_GAPS },
	MCT_LONGOPT_OUTPUT,
	{ "overlap",	required_argument,	NULL, OPT_OVERLAP },
	MCT_LONGOPT_PAIR_BE,
	MCT_LONGOPT_RULES,
	{ "split",	required_argument,	NULL, OPT_SPLIT },
	MCT_LONGOPT_TIME_UNIT,
	MCT_LONGOPT_UNIT,
	MCT_LONGOPT_VERSION,
	MCT_LONGOPT_WIDTH,
	{ NULL,		0,			NULL, 0 }
};

static void
usage(int status)
{
	if (status != 0) {
		fprintf(stderr, "usage: mct-phases [-hV] [-k key] [-o format] "
		    "[-u unit] [--gaps] [--gap T] [file ...]\n");
		mct_usage_hint();
	}
	printf("usage: mct-phases [-hV] [-k key] [-o format] [-u unit] "
	    "[--gaps] [--gap T] [file ...]\n"
	    "Cut the device timeline into phases (init, warmup, steady rounds, "
	    "switch,\ntail) and find the idle gaps, with what the host did "
	    "in each.\n\n"
	    "  -k, --key FIELDS      a call's signature (default " DEFAULT_KEY
	    ")\n"
	    "      --device EXPR     which events are device work (default: "
	    "the device\n"
	    "                        lanes of mct(7): kernels, copies and "
	    "memsets of every\n"
	    "                        producer)\n"
	    "      --gaps            also list the idle gaps of the device\n"
	    "      --only-gaps       list the gaps only\n"
	    "      --gap T           a gap is longer than T (default: 1%% of the "
	    "device\n"
	    "                        span, at least 1ms)\n"
	    "      --min-rounds N    a steady phase repeats at least N times "
	    "(default 3)\n"
	    "      --min-share P     its calls hold P%% of device time (default "
	    "1)\n"
	    "      --min-switch T    a shorter switch joins the phase before it\n"
	    "                        (default: 1%% of the median round)\n"
	    "      --split X         a pause over X times the median ends a run "
	    "(default 5)\n"
	    "      --overlap P       runs covering each other by P%% share a "
	    "phase\n"
	    "                        (default 80)\n"
	    "      --join T          one-off calls closer than T form one warmup\n"
	    "                        (default: 1%% of the device span)\n"
	    "      --rules FILE      the rules file, for category in --key or "
	    "--device\n"
	    "      --pair-be         each matched B/E pair of a thread as one X "
	    "event\n"
	    "  -o, --output FORMAT   table (default on a terminal), ndjson "
	    "(default\n"
	    "                        otherwise), tsv, csv, md (Markdown), trace\n"
	    "                        (events for a track)\n"
	    "      --no-header       no header line in tsv and csv output\n"
	    "      --width N         cut table and md cells wider than N "
	    "characters\n"
	    "                        (default 60; 0: never)\n"
	    "      --time-unit UNIT  times in tsv/csv/ndjson: ns (default), us, "
	    "ms, s\n"
	    "  -u, --unit UNIT       unit of a trace read directly: auto "
	    "(default), ns, us,\n"
	    "                        ms, s\n"
	    "  -h, --help            show this help and exit\n"
	    "  -V, --version         show the version and exit\n\n"
	    "Exit status: 0 success, 1 damaged input, 2 usage or unreadable "
	    "file.\nSee mct-phases(1) and mct(7).\n");
	exit(mct_finish(MCT_EXIT_OK));
}


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

/* A device call, kept in memory. */
static void
add_call(struct opts *o, struct mct_event *ev, int64_t ts, int64_t dur)
{
	struct mct_call *d;

	if (o->ndev == o->devcap) {
		o->devcap = o->devcap ? o->devcap * 2 : 4096;
		o->dev = mct_xrealloc(o->dev, o->devcap * sizeof(*o->dev));
	}
	d = &o->dev[o->ndev++];
	d->ts = ts;
	d->dur = dur;
	d->sig = signature(o, ev);
	d->name = name_of(o, ev);
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
	if (fwrite(&h, sizeof(h), 1, o->host) != 1)
		err(MCT_EXIT_USAGE, "host spool");
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

/* Kineto's span of the whole profiling (cat Trace): not host work. */
static int
profiler_span(struct mct_event *ev)
{
	struct mct_val cat;

	return mct_get_key(ev, "cat", &cat) == 0 &&
	    mct_jstr_eq(&cat, "Trace", 5);
}

/* Step 1: an event of the stream.  Only X events count; all set tend. */
static void
add(struct opts *o, struct mct_event *ev)
{
	struct mct_val ph;
	int64_t ts, dur;
	int lane;

	if (mct_get_key(ev, "ph", &ph) != 0 || !mct_jstr_eq(&ph, "X", 1) ||
	    mct_get_ns(ev, "ts", &ts) != 0 || !MCT_SANE_NS(ts))
		return;
	if (mct_get_ns(ev, "dur", &dur) != 0 || dur < 0 || !MCT_SANE_NS(dur))
		dur = 0;
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
		if (o->ndev > o->rk.ofcap) {
			o->rk.ofcap = o->devcap;
			o->rk.of = mct_xrealloc(o->rk.of, o->rk.ofcap *
			    sizeof(*o->rk.of));
		}
		o->rk.of[o->ndev - 1] = o->rk.cur;
	} else if (o->host && !lane && !profiler_span(ev))
		spool_host(o, ev, ts, dur);	/* not device lanes --device left out */
}

static int
cmp_dev(const void *a, const void *b)
{
	const struct mct_call *x = a, *y = b;

	return x->ts < y->ts ? -1 : x->ts > y->ts;
}

/* The phases of what was read, with the options' knobs. */
static void
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
static void
cut_gaps(struct opts *o)
{
	int64_t cur1 = 0, span, min;
	size_t i;
	int t;

	if (o->ndev == 0)
		return;
	span = o->dev[o->ndev - 1].ts - o->dev[0].ts;
	min = o->gapmin > 0 ? o->gapmin : (span / 100 > 1000000 ? span / 100 :
	    1000000);
	for (i = 0; i < o->ndev; i++) {
		struct mct_call *d = &o->dev[i];
		struct gap *g;

		if (i > 0 && d->ts - cur1 > min) {
			o->gap = mct_xrealloc(o->gap, (o->ngap + 1) *
			    sizeof(*o->gap));
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
	size_t i, j, n = 0, cap = 0;

	rewind(o->host);
	while (fread(&r, sizeof(r), 1, o->host) == 1) {
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
static void
find_gaps(struct opts *o)
{
	cut_gaps(o);
	if (o->ngap > 0 && o->host != NULL)
		host_in_gaps(o);
}

/*
 * The output: report() writes a record per phase and per gap, as an event
 * (-o ndjson; -o trace, on a track of its own) or as a table row.
 */

static const char *
kind_name(enum mct_pkind k)
{
	static const char *n[] = { "init", "warmup", "steady", "switch", "tail" };

	return n[k];
}

/*
 * A moment for a cell: from the origin, in seconds for people, else in ns
 * scaled by --time-unit.
 */
static void
put_at(struct opts *o, struct mct_buf *b, int64_t ns)
{
	char num[64];

	ns -= o->hdr->facts.has_origin ? o->hdr->facts.origin : 0;
	if (!mct_out_human(&o->out)) {
		mct_out_time(&o->out, b, ns);
		return;
	}
	snprintf(num, sizeof(num), "%.3f s", (double)ns / 1e9);
	mct_buf_adds(b, num);
}

static int
cmp_anc(const void *a, const void *b)
{
	const struct mct_anchor *x = a, *y = b;

	return x->total > y->total ? -1 : x->total < y->total;
}

/* Busy time (the union of device intervals) and events within [a, b). */
static void
busy_in(struct opts *o, int64_t a, int64_t b, int64_t *busy, long *events)
{
	int64_t cur0 = 0, cur1 = 0;
	size_t i;
	int open = 0;

	*busy = 0;
	*events = 0;
	for (i = 0; i < o->ndev; i++) {
		struct mct_call *d = &o->dev[i];
		int64_t s = d->ts, e = d->ts + d->dur;

		if (d->ts >= a && d->ts < b)
			(*events)++;
		if (e <= a || s >= b)
			continue;
		if (s < a)
			s = a;
		if (e > b)
			e = b;
		if (open && s <= cur1) {
			if (e > cur1)
				cur1 = e;
			continue;
		}
		if (open)
			*busy += cur1 - cur0;
		cur0 = s;
		cur1 = e;
		open = 1;
	}
	if (open)
		*busy += cur1 - cur0;
}

/* The signatures that dominate [a, b), by device time in it. */
static void
dominant(struct opts *o, int64_t a, int64_t b, struct mct_anchor *top,
    int *ntop)
{
	struct mct_anchor *all;
	size_t i;
	int n = 0, k;

	all = mct_xmalloc(((size_t)o->st.n + 1) * sizeof(*all));
	memset(all, 0, ((size_t)o->st.n + 1) * sizeof(*all));
	for (i = 0; i < o->ndev; i++) {
		struct mct_call *d = &o->dev[i];

		if (d->ts < a || d->ts >= b)
			continue;
		all[d->sig].sig = d->sig;
		all[d->sig].calls++;
		all[d->sig].total += d->dur;
	}
	mct_sort(all, (size_t)o->st.n, sizeof(*all), cmp_anc);
	for (k = 0; k < NTOP && k < o->st.n && all[k].calls > 0; k++)
		top[n++] = all[k];
	*ntop = n;
	free(all);
}

/*
 * What every record begins with: the kind, start, end and span, as the
 * fields of an event (json) or as the first cells of a table row.
 */
static void
put_place(struct opts *o, struct mct_buf *line, const char *kind,
    int64_t start, int64_t end, int json)
{
	static const char *const before[2][4] = {
		{ "", "\037", "\037", "\037" },
		{ "\"phase\":\"", "\",\"start\":", ",\"end\":", ",\"span\":" }
	};

	if (!json && o->rk.any) {	/* a table's first column */
		mct_buf_addi(line, o->rk.rank[o->rk.cur]);
		mct_buf_addc(line, '\037');
	}
	mct_buf_adds(line, before[json][0]);
	mct_buf_adds(line, kind);
	mct_buf_adds(line, before[json][1]);
	put_at(o, line, start);
	mct_buf_adds(line, before[json][2]);
	put_at(o, line, end);
	mct_buf_adds(line, before[json][3]);
	mct_out_time(&o->out, line, end - start);
}

/*
 * The start of a record as an event on the phases' own track, lane tid:
 * the event's name and place, then the fields every record has (in args
 * with -o trace).  The caller adds its own and ends it with end_event().
 */
static void
begin_event(struct opts *o, struct mct_buf *line, const char *name,
    size_t len, const char *kind, int64_t start, int64_t end, int tid)
{
	mct_buf_adds(line, "{\"name\":");
	mct_buf_addjstr(line, name, len);
	mct_buf_adds(line, ",\"ph\":\"X\",\"ts\":");
	mct_buf_addi(line, start);
	mct_buf_adds(line, ",\"dur\":");
	mct_buf_addi(line, end - start);
	mct_buf_adds(line, ",\"pid\":");
	mct_buf_addi(line, TRACK_PID);
	mct_buf_adds(line, ",\"tid\":");
	mct_buf_addi(line, tid);
	mct_buf_addc(line, ',');
	if (o->rk.any) {
		mct_buf_adds(line, "\"rank\":");
		mct_buf_addi(line, o->rk.rank[o->rk.cur]);
		mct_buf_addc(line, ',');
	}
	if (o->track)
		mct_buf_adds(line, "\"args\":{");
	put_place(o, line, kind, start, end, 1);
}

/* The end of a record begun by begin_event(), after a list; out it goes. */
static void
end_event(struct opts *o, struct mct_buf *line)
{
	mct_buf_adds(line, o->track ? "]}}" : "]}");
	mct_out_json(&o->out, line->p, line->len);
}

/* A list of signatures, each with its calls and their total or mean time. */
static void
put_sigs(struct opts *o, struct mct_buf *line, const struct mct_anchor *a,
    int n, int mean)
{
	int k;

	for (k = 0; k < n; k++) {
		if (k)
			mct_buf_addc(line, ',');
		mct_buf_adds(line, "{\"key\":");
		mct_buf_addjstr(line, o->st.str[a[k].sig],
		    strlen(o->st.str[a[k].sig]));
		mct_buf_adds(line, ",\"calls\":");
		mct_buf_addi(line, a[k].calls);
		mct_buf_adds(line, mean ? ",\"mean\":" : ",\"total\":");
		mct_out_time(&o->out, line, mean ? a[k].total / a[k].calls :
		    a[k].total);
		mct_buf_addc(line, '}');
	}
}

/* What a phase's record says besides its place. */
struct phase_facts {
	int64_t		 busy;		/* device busy time in it */
	long		 events;	/* device events that start in it */
	double		 busy_pct;
	struct mct_anchor	 top[NTOP];	/* its dominant signatures */
	int		 ntop;
};

/* Phase p as an event (-o ndjson, -o trace). */
static void
phase_event(struct opts *o, struct mct_phase *p, struct phase_facts *f)
{
	struct mct_buf line = { 0 }, lbl = { 0 };
	char num[64];

	/* "steady: <heaviest anchor>", " +" if there are more */
	mct_buf_adds(&lbl, kind_name(p->kind));
	if ((p->kind == MCT_PH_STEADY || p->kind == MCT_PH_WARMUP) && p->nanc > 0) {
		mct_buf_adds(&lbl, ": ");
		mct_buf_adds(&lbl, o->st.str[p->anc[0].sig]);
		if (p->nanc > 1)
			mct_buf_adds(&lbl, " +");
	}
	begin_event(o, &line, lbl.p, lbl.len, kind_name(p->kind), p->start,
	    p->end, 1);
	mct_buf_adds(&line, ",\"events\":");
	mct_buf_addi(&line, f->events);
	mct_buf_adds(&line, ",\"busy\":");
	mct_out_time(&o->out, &line, f->busy);
	mct_buf_adds(&line, ",\"busy_pct\":");
	mct_fmt_double(num, f->busy_pct);
	mct_buf_adds(&line, num);
	mct_buf_adds(&line, ",\"rounds\":");
	mct_buf_addi(&line, p->rounds);
	mct_buf_adds(&line, ",\"round\":");
	if (p->rounds > 0)
		mct_out_time(&o->out, &line, (p->end - p->start) / p->rounds);
	else
		mct_buf_adds(&line, "null");
	mct_buf_adds(&line, ",\"anchors\":[");
	put_sigs(o, &line, p->anc, p->nanc, 1);
	mct_buf_adds(&line, "],\"top\":[");
	put_sigs(o, &line, f->top, f->ntop, 0);
	end_event(o, &line);
	mct_buf_free(&line);
	mct_buf_free(&lbl);
}

/* Phase p as a table row (-o table, md, tsv, csv). */
static void
phase_row(struct opts *o, struct mct_phase *p, struct phase_facts *f)
{
	struct mct_buf line = { 0 };
	const char *sig;
	char num[64];
	int human = mct_out_human(&o->out), k;

	put_place(o, &line, kind_name(p->kind), p->start, p->end, 0);
	mct_buf_addc(&line, '\037');
	if (human)
		mct_fmt_count(num, f->events);
	else
		snprintf(num, sizeof(num), "%ld", f->events);
	mct_buf_adds(&line, num);
	mct_buf_addc(&line, '\037');
	snprintf(num, sizeof(num), human ? "%.1f%%" : "%.2f", f->busy_pct);
	mct_buf_adds(&line, num);
	mct_buf_addc(&line, '\037');
	if (p->rounds > 0) {
		mct_buf_addi(&line, p->rounds);
		mct_buf_addc(&line, '\037');
		mct_out_time(&o->out, &line, (p->end - p->start) / p->rounds);
	} else
		mct_buf_addc(&line, '\037');
	mct_buf_addc(&line, '\037');
	for (k = 0; k < f->ntop; k++) {
		sig = o->st.str[f->top[k].sig];
		if (k)
			mct_buf_adds(&line, "; ");
		if (human && strlen(sig) > 48) {
			/* keep the table readable: cut long names */
			mct_buf_add(&line, sig, 45);
			mct_buf_adds(&line, "...");
		} else
			mct_buf_adds(&line, sig);
		snprintf(num, sizeof(num), " x%ld", f->top[k].calls);
		mct_buf_adds(&line, num);
	}
	mct_out_row(&o->out, line.p, line.len);
	mct_buf_free(&line);
}

static void
phase_record(struct opts *o, int i)
{
	struct mct_phase *p = &o->ph[i];
	struct phase_facts f;

	busy_in(o, p->start, p->end, &f.busy, &f.events);
	f.busy_pct = p->end > p->start ? 100.0 * (double)f.busy /
	    (double)(p->end - p->start) : 0;
	dominant(o, p->start, p->end, f.top, &f.ntop);
	/* anchors heaviest first: the label names the first */
	mct_sort(p->anc, (size_t)p->nanc, sizeof(*p->anc), cmp_anc);
	if (o->out.fmt == MCT_O_NDJSON || o->track)
		phase_event(o, p, &f);
	else
		phase_row(o, p, &f);
}

static void
gap_record(struct opts *o, size_t i)
{
	struct gap *g = &o->gap[i];
	struct mct_buf line = { 0 };
	int k;

	if (o->out.fmt == MCT_O_NDJSON || o->track) {
		begin_event(o, &line, "gap", 3, "gap", g->start, g->end, 2);
		mct_buf_adds(&line, ",\"host\":[");
		for (k = 0; k < NTOP && g->top[k] >= 0; k++) {
			if (k)
				mct_buf_addc(&line, ',');
			mct_buf_adds(&line, "{\"name\":");
			mct_buf_addjstr(&line, o->st.str[g->top[k]],
			    strlen(o->st.str[g->top[k]]));
			mct_buf_adds(&line, ",\"overlap\":");
			mct_out_time(&o->out, &line, g->over[k]);
			mct_buf_addc(&line, '}');
		}
		end_event(o, &line);
	} else {
		put_place(o, &line, "gap", g->start, g->end, 0);
		mct_buf_adds(&line, "\037\037\037\037\037");
		if (g->top[0] < 0)
			mct_buf_adds(&line, "host: nothing");
		for (k = 0; k < NTOP && g->top[k] >= 0; k++) {
			mct_buf_adds(&line, k ? "; " : "host: ");
			mct_buf_adds(&line, o->st.str[g->top[k]]);
			mct_buf_addc(&line, ' ');
			mct_out_time(&o->out, &line, g->over[k]);
		}
		mct_out_row(&o->out, line.p, line.len);
	}
	mct_buf_free(&line);
}

/* A metadata event that names the phases' track (tid 0) or a lane of it. */
static void
track_name(struct opts *o, const char *what, int tid, const char *name)
{
	struct mct_buf m = { 0 };

	mct_buf_adds(&m, "{\"name\":\"");
	mct_buf_adds(&m, what);
	mct_buf_adds(&m, "\",\"ph\":\"M\",\"pid\":");
	mct_buf_addi(&m, TRACK_PID);
	mct_buf_adds(&m, ",\"tid\":");
	mct_buf_addi(&m, tid);
	mct_buf_adds(&m, ",\"args\":{\"name\":\"");
	mct_buf_adds(&m, name);
	mct_buf_adds(&m, "\"}");
	if (o->rk.any) {
		mct_buf_adds(&m, ",\"rank\":");
		mct_buf_addi(&m, o->rk.rank[o->rk.cur]);
	}
	mct_buf_addc(&m, '}');
	mct_out_json(&o->out, m.p, m.len);
	mct_buf_free(&m);
}

static void
report(struct opts *o)
{
	static const char h[] = "rank\037phase\037start\037end\037span\037events"
	    "\037busy_pct\037rounds\037round\037top";
	size_t i;
	int p;

	if (o->track) {
		track_name(o, "process_name", 0, "mct phases");
		track_name(o, "thread_name", 1, "phases");
		track_name(o, "thread_name", 2, "idle gaps");
	} else if (o->out.fmt != MCT_O_NDJSON && o->rk.reported++ == 0 &&
	    (o->out.header || mct_out_human(&o->out)))
		mct_out_row(&o->out, o->rk.any ? h : h + 5, o->rk.any ?
		    sizeof(h) - 1 : sizeof(h) - 6);
	if (!o->only_gaps)
		for (p = 0; p < o->nph; p++)
			phase_record(o, p);
	if (o->gaps)
		for (i = 0; i < o->ngap; i++)
			gap_record(o, i);
}

static int
options(int argc, char *argv[], struct opts *o, struct mct_opts *mo)
{
	struct mct_cli c = { .usage = usage, .out = &o->out, .mo = mo,
	    .tty_table = 1 };
	const char *key = DEFAULT_KEY;
	int ch;

	while ((ch = mct_cli_getopt(&c, argc, argv, "hk:o:u:V",
	    longopts)) != -1) {
		switch (ch) {
		case 'k':
			key = optarg;
			break;
		case OPT_DEVICE:
			o->device = mct_opt_expr("--device", optarg);
			break;
		case OPT_GAP:
			o->gapmin = mct_opt_dur("--gap", optarg, 1, "100ms, 1s");
			o->gaps = 1;
			break;
		case OPT_GAPS:
			o->gaps = 1;
			break;
		case OPT_MIN_SWITCH:
			o->minswitch = mct_opt_dur("--min-switch", optarg, 0,
			    "10us, 1ms");
			break;
		case OPT_JOIN:
			o->m.join = mct_opt_dur("--join", optarg, 0, "1s, 500ms");
			break;
		case OPT_MIN_ROUNDS:
			o->m.min_rounds = (int)mct_opt_num("--min-rounds",
			    optarg, 2, 1e9);
			if (strspn(optarg, "0123456789") != strlen(optarg)) {
				warnx("--min-rounds: invalid number '%s' (want a "
				    "whole number from 2)", optarg);
				mct_usage_hint();
			}
			break;
		case OPT_MIN_SHARE:
			o->m.min_share = mct_opt_num("--min-share", optarg, 0,
			    100);
			break;
		case OPT_ONLY_GAPS:
			o->gaps = o->only_gaps = 1;
			break;
		case OPT_OVERLAP:
			o->m.overlap = mct_opt_num("--overlap", optarg, 1, 100);
			break;
		case OPT_SPLIT:
			o->m.split = mct_opt_num("--split", optarg, 1.01, 1e9);
			break;
		default:
			usage(2);
		}
	}
	mct_opt_fields("--key", key, &o->key, &o->nkey);
	if (o->out.fmt == MCT_O_TRACE) {
		/* events for a track of their own, to wrap beside the trace */
		o->track = 1;
		o->out.fmt = MCT_O_NDJSON;
	}
	return optind;
}

static int
cmp_rankix(const void *a, const void *b, void *arg)
{
	const int64_t *rank = arg;
	int x = *(const int *)a, y = *(const int *)b;

	return rank[x] < rank[y] ? -1 : rank[x] > rank[y];
}

/*
 * Several ranks: the calls grouped by rank (a counting sort, stable),
 * then each rank cut into phases and reported on its own, by rank.
 */
static void
by_rank(struct opts *o)
{
	struct ranks *rk = &o->rk;
	struct mct_call *all = mct_xmalloc((o->ndev + 1) * sizeof(*all));
	size_t *at = mct_xmalloc(((size_t)rk->n + 1) * sizeof(*at)), i;
	int *order = mct_xmalloc((size_t)rk->n * sizeof(*order)), k, p;

	memset(at, 0, ((size_t)rk->n + 1) * sizeof(*at));
	for (i = 0; i < o->ndev; i++)
		at[rk->of[i] + 1]++;
	for (k = 0; k < rk->n; k++) {
		at[k + 1] += at[k];
		order[k] = k;
	}
	for (i = 0; i < o->ndev; i++)
		all[at[rk->of[i]]++] = o->dev[i];
	free(o->dev);
	mct_sort_r(order, (size_t)rk->n, sizeof(*order), cmp_rankix, rk->rank);
	for (k = 0; k < rk->n; k++) {
		int j = order[k];
		size_t end = at[j], n = end - (j > 0 ? at[j - 1] : 0);

		/* at[j] is the end of rank j's calls now */
		o->dev = all + end - n;
		o->ndev = n;
		o->tend = rk->tend[j];
		rk->cur = j;
		mct_sort(o->dev, o->ndev, sizeof(*o->dev), cmp_dev);
		phases(o);
		if (o->gaps)
			find_gaps(o);
		report(o);
		for (p = 0; p < o->nph; p++)
			free(o->ph[p].anc);
		free(o->ph);
		free(o->gap);
		o->ph = NULL;
		o->gap = NULL;
		o->nph = 0;
		o->ngap = 0;
	}
	o->dev = all;
	o->ndev = 0;
	free(at);
	free(order);
}

int
main(int argc, char *argv[])
{
	struct opts o = { .m = { .min_rounds = 3, .min_share = 1, .split = 5,
	    .overlap = 80, .join = -1 }, .out = { .header = 1 },
	    .minswitch = -1 };
	struct mct_opts mo = { .unit = MCT_UNIT_AUTO };
	struct mct_reader *r;
	struct mct_event *ev;
	int n;

	mct_records_register();	/* the times of the tools' records */
	n = options(argc, argv, &o, &mo);
	argc -= n;
	argv += n;
	if ((mct_rules_fields(o.key, o.nkey) || mct_rules_expr(o.device)) &&
	    mct_rules_need() != 0)
		exit(MCT_EXIT_USAGE);
	if (o.gaps && (o.host = mct_tmpfile(NULL, &o.hostvb)) == NULL)
		exit(MCT_EXIT_USAGE);

	r = mct_open(argc, argv, &mo);
	o.hdr = mct_header(r);
	while (mct_next(r, &ev))
		add(&o, ev);
	mct_out_begin(&o.out, o.hdr);
	if (o.rk.any)
		by_rank(&o);
	else {
		mct_sort(o.dev, o.ndev, sizeof(*o.dev), cmp_dev);
		o.rk.cur = 0;
		phases(&o);
		if (o.gaps)
			find_gaps(&o);
		report(&o);
	}
	mct_out_end(&o.out);
	return mct_finish(mct_close(r));
}
