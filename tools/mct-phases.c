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
 *    switch, after the last one the tail.
 * 6. Gaps are the stretches longer than --gap T in which no device event
 *    runs (busy time is the union of the device intervals); for each, the
 *    host events that overlap it most, by overlapped time.
 *
 * In the code: step 1 is add(); find_phases() does steps 2 to 5 by
 * find_runs(), take_steady(), find_warmups() and fill_between(); step 6
 * is find_gaps(); report() writes it all out.
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

struct dev {
	int64_t		 ts, dur;
	int32_t		 sig;
	int32_t		 name;		/* the event's own name, interned */
};

struct hostrec {
	int64_t		 ts, dur;
	int32_t		 name;
	int32_t		 pad;
};

struct anchor {
	int32_t		 sig;
	long		 calls;
	int64_t		 total;
};

enum pkind { P_INIT, P_WARMUP, P_STEADY, P_SWITCH, P_TAIL };

struct phase {
	enum pkind	 kind;
	int64_t		 start, end;	/* absolute ns */
	struct anchor	*anc;
	int		 nanc;
	long		 rounds;
};

struct gap {
	int64_t		 start, end;
	int32_t		 top[NTOP];
	int64_t		 over[NTOP];
};

/* The knobs of steps 2 to 4, as the options of the same names give them. */
struct method {
	int		 min_rounds;
	double		 min_share;	/* % */
	double		 split;
	double		 overlap;	/* % */
	int64_t		 join;		/* -1: 1% of the device span */
};

struct opts {
	struct mct_field *key;
	int		 nkey;
	struct mct_expr	*device;
	int		 gaps, only_gaps;
	int64_t		 gapmin;	/* --gap; 0: automatic */
	struct method	 m;
	struct mct_out	 out;
	int		 track;		/* -o trace: a stream of track events */
	const struct mct_header *hdr;
	/* what was read */
	struct dev	*dev;
	size_t		 ndev, devcap;
	FILE		*host;		/* the host spool, with --gaps */
	int64_t		 tend;		/* the last end of any event */
	int		 hasend;
	/* interned strings: signatures and host names */
	struct mct_strtab st;
	/* results */
	struct phase	*ph;
	int		 nph;
	struct gap	*gap;
	size_t		 ngap;
	struct mct_buf	 tmp;		/* one event's texts, to intern */
};

enum { OPT_DEVICE = CHAR_MAX + 1, OPT_GAP, OPT_GAPS, OPT_JOIN,
    OPT_MIN_ROUNDS, OPT_MIN_SHARE, OPT_NO_HEADER, OPT_ONLY_GAPS, OPT_OVERLAP,
    OPT_RULES, OPT_SPLIT, OPT_TIME_UNIT, OPT_PAIR_BE };

static const struct option longopts[] = {
	{ "device",	required_argument,	NULL, OPT_DEVICE },
	{ "gap",	required_argument,	NULL, OPT_GAP },
	{ "gaps",	no_argument,		NULL, OPT_GAPS },
	{ "help",	no_argument,		NULL, 'h' },
	{ "join",	required_argument,	NULL, OPT_JOIN },
	{ "key",	required_argument,	NULL, 'k' },
	{ "min-rounds",	required_argument,	NULL, OPT_MIN_ROUNDS },
	{ "min-share",	required_argument,	NULL, OPT_MIN_SHARE },
	{ "no-header",	no_argument,		NULL, OPT_NO_HEADER },
	{ "only-gaps",	no_argument,		NULL, OPT_ONLY_GAPS },
	{ "output",	required_argument,	NULL, 'o' },
	{ "overlap",	required_argument,	NULL, OPT_OVERLAP },
	{ "pair-be",	no_argument,		NULL, OPT_PAIR_BE },
	{ "rules",	required_argument,	NULL, OPT_RULES },
	{ "split",	required_argument,	NULL, OPT_SPLIT },
	{ "time-unit",	required_argument,	NULL, OPT_TIME_UNIT },
	{ "unit",	required_argument,	NULL, 'u' },
	{ "version",	no_argument,		NULL, 'V' },
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
	    "X events of\n"
	    "                        cat kernel, gpu_memcpy, gpu_memset, or "
	    "pid 2 and 3\n"
	    "                        without cat)\n"
	    "      --gaps            also list the idle gaps of the device\n"
	    "      --only-gaps       list the gaps only\n"
	    "      --gap T           a gap is longer than T (default: 1%% of the "
	    "device\n"
	    "                        span, at least 1ms)\n"
	    "      --min-rounds N    a steady phase repeats at least N times "
	    "(default 3)\n"
	    "      --min-share P     its calls hold P%% of device time (default "
	    "1)\n"
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


/* Is this X event on a device lane (whatever --device says)? */
static int
on_device_lane(struct mct_event *ev)
{
	static const char *cats[] = { "kernel", "Kernel", "gpu_memcpy",
	    "gpu_memset", "Memcpy", "Memset", NULL };
	struct mct_val cat, pid;
	int i;

	if (mct_get_key(ev, "cat", &cat) == 0) {
		for (i = 0; cats[i]; i++)
			if (mct_jstr_eq(&cat, cats[i], strlen(cats[i])))
				return 1;
		return 0;
	}
	if (mct_get_key(ev, "pid", &pid) != 0)
		return 0;
	return (pid.len == 1 && (pid.p[0] == '2' || pid.p[0] == '3')) ||
	    (pid.len == 3 && pid.p[0] == '"' && (pid.p[1] == '2' ||
	    pid.p[1] == '3') && pid.p[2] == '"');
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
	struct dev *d;

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
	struct hostrec h = { ts, dur, 0, 0 };

	h.name = name_of(o, ev);
	if (fwrite(&h, sizeof(h), 1, o->host) != 1)
		err(MCT_EXIT_USAGE, "host spool");
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
	lane = on_device_lane(ev);
	if (o->device ? mct_expr_eval(o->device, ev, o->hdr) : lane)
		add_call(o, ev, ts, dur);
	else if (o->host && !lane)	/* not device lanes --device left out */
		spool_host(o, ev, ts, dur);
}

static int
cmp_dev(const void *a, const void *b)
{
	const struct dev *x = a, *y = b;

	return x->ts < y->ts ? -1 : x->ts > y->ts;
}

/*
 * Steps 2 to 5 of the method, one function each, in the order
 * find_phases() calls them.  What they share is a struct phaser: the
 * calls and knobs they are given, what one step hands the next, and the
 * phases found.  They know nothing of struct opts or the reader, so any
 * set of calls can be cut the same way (one rank's, say).
 */

/* A candidate steady phase: one run of one signature. */
struct cand {
	int32_t		 sig;
	int64_t		 start, end, total;
	long		 calls;
};

struct phaser {
	/* given: the calls, in time order, and the knobs */
	const struct dev *dev;
	size_t		 ndev;
	size_t		 nsig;		/* every sig and name is below it */
	const struct method *m;
	int64_t		 origin;	/* init begins here */
	int64_t		 tend;		/* the tail ends here, if hasend */
	int		 hasend;
	/*
	 * Step 2's index: signature s's calls, in time order, are
	 * dev[order[first[s]]] to dev[order[first[s + 1] - 1]].
	 */
	size_t		*order, *first;
	/* step 2's candidates, for step 3 */
	struct cand	*cand;
	size_t		 ncand;
	/*
	 * The phases: the steady ones (step 3) first, then the warmups
	 * (step 4); step 5 adds init, switches and tail and sorts them all
	 * by time.
	 */
	struct phase	*ph;
	int		 nph, nsteady;
};

static int
cmp_int64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return x < y ? -1 : x > y;
}

static int
cmp_cand(const void *a, const void *b)
{
	const struct cand *x = a, *y = b;

	return x->total > y->total ? -1 : x->total < y->total;
}

static int
cmp_phase(const void *a, const void *b)
{
	const struct phase *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

static int64_t
overlap(int64_t a0, int64_t a1, int64_t b0, int64_t b1)
{
	int64_t lo = a0 > b0 ? a0 : b0, hi = a1 < b1 ? a1 : b1;

	return hi > lo ? hi - lo : 0;
}

static struct phase *
new_phase(struct phaser *f, enum pkind k, int64_t start, int64_t end)
{
	struct phase *p;

	f->ph = mct_xrealloc(f->ph, (size_t)(f->nph + 1) * sizeof(*f->ph));
	p = &f->ph[f->nph++];
	memset(p, 0, sizeof(*p));
	p->kind = k;
	p->start = start;
	p->end = end;
	return p;
}

static void
add_anchor(struct phase *p, int32_t sig, long calls, int64_t total)
{
	int i;

	for (i = 0; i < p->nanc; i++)
		if (p->anc[i].sig == sig) {
			p->anc[i].calls += calls;
			p->anc[i].total += total;
			return;
		}
	p->anc = mct_xrealloc(p->anc, (size_t)(p->nanc + 1) * sizeof(*p->anc));
	p->anc[p->nanc].sig = sig;
	p->anc[p->nanc].calls = calls;
	p->anc[p->nanc].total = total;
	p->nanc++;
}

/*
 * Takes the calls; gives order and first, the calls of each signature in
 * time order.  A counting sort by signature: as dev is in time order, so
 * is each signature's share of it.
 */
static void
index_calls(struct phaser *f)
{
	size_t *fill, i;

	f->order = mct_xmalloc((f->ndev + 1) * sizeof(*f->order));
	f->first = mct_xmalloc((f->nsig + 1) * sizeof(*f->first));
	memset(f->first, 0, (f->nsig + 1) * sizeof(*f->first));
	for (i = 0; i < f->ndev; i++)
		f->first[f->dev[i].sig + 1]++;
	for (i = 1; i <= f->nsig; i++)
		f->first[i] += f->first[i - 1];
	fill = mct_xmalloc((f->nsig + 1) * sizeof(*fill));
	memcpy(fill, f->first, (f->nsig + 1) * sizeof(*fill));
	for (i = 0; i < f->ndev; i++)
		f->order[fill[f->dev[i].sig]++] = i;
	free(fill);
}

/*
 * Takes signature s (two calls or more) and room for its pauses; gives the
 * pause that ends one of its runs: --split times its median pause.
 */
static int64_t
run_limit(struct phaser *f, size_t s, int64_t *pause)
{
	size_t i, n = 0;

	for (i = f->first[s] + 1; i < f->first[s + 1]; i++)
		pause[n++] = f->dev[f->order[i]].ts -
		    f->dev[f->order[i - 1]].ts;
	mct_sort(pause, n, sizeof(*pause), cmp_int64);
	return (int64_t)((double)pause[n / 2] * f->m->split);
}

/*
 * Takes signature s, cuts its calls into runs at pauses over limit, and
 * adds to cand the runs of --min-rounds calls or more that hold
 * --min-share of alltotal, the time of all calls.
 */
static void
cut_runs(struct phaser *f, size_t s, int64_t limit, int64_t alltotal)
{
	size_t i, j, hi = f->first[s + 1];

	for (i = f->first[s]; i < hi; i = j) {
		struct cand c = { (int32_t)s, f->dev[f->order[i]].ts, 0, 0, 0 };

		for (j = i; j < hi; j++) {
			const struct dev *d = &f->dev[f->order[j]];

			if (j > i && d->ts - f->dev[f->order[j - 1]].ts > limit)
				break;
			c.total += d->dur;
			if (d->ts + d->dur > c.end)
				c.end = d->ts + d->dur;
			c.calls++;
		}
		if (c.calls >= f->m->min_rounds && (double)c.total >=
		    f->m->min_share / 100 * (double)alltotal) {
			f->cand = mct_xrealloc(f->cand, (f->ncand + 1) *
			    sizeof(*f->cand));
			f->cand[f->ncand++] = c;
		}
	}
}

/* Step 2.  Takes the calls; gives cand, the candidate steady phases. */
static void
find_runs(struct phaser *f)
{
	int64_t alltotal = 0, *pause;
	size_t i, s;

	for (i = 0; i < f->ndev; i++)
		alltotal += f->dev[i].dur;
	index_calls(f);
	pause = mct_xmalloc((f->ndev + 1) * sizeof(*pause));
	for (s = 0; s < f->nsig; s++)
		if (f->first[s + 1] - f->first[s] >= (size_t)f->m->min_rounds)
			cut_runs(f, s, run_limit(f, s, pause), alltotal);
	free(pause);
	free(f->order);
	free(f->first);
	f->order = f->first = NULL;
}

/*
 * Takes one candidate: it becomes a steady phase if it overlaps none so
 * far, another anchor of the first one it overlaps if the two cover each
 * other by --overlap, and nothing if they overlap only in part.
 */
static void
take_cand(struct phaser *f, const struct cand *c)
{
	double share = f->m->overlap / 100;
	struct phase *ph;
	int64_t ov;
	int p;

	for (p = 0; p < f->nph; p++) {
		ph = &f->ph[p];
		if ((ov = overlap(c->start, c->end, ph->start, ph->end)) == 0)
			continue;
		if ((double)ov >= share * (double)(c->end - c->start) &&
		    (double)ov >= share * (double)(ph->end - ph->start)) {
			add_anchor(ph, c->sig, c->calls, c->total);
			if (c->start < ph->start)
				ph->start = c->start;
			if (c->end > ph->end)
				ph->end = c->end;
		}
		return;
	}
	ph = new_phase(f, P_STEADY, c->start, c->end);
	add_anchor(ph, c->sig, c->calls, c->total);
	ph->rounds = c->calls;
}

/* Step 3.  Takes cand, heaviest first; gives the steady phases. */
static void
take_steady(struct phaser *f)
{
	size_t i;

	mct_sort(f->cand, f->ncand, sizeof(*f->cand), cmp_cand);
	for (i = 0; i < f->ncand; i++)
		take_cand(f, &f->cand[i]);
	f->nsteady = f->nph;
	free(f->cand);
	f->cand = NULL;
	f->ncand = 0;
}

/* Does ts fall in a steady phase? */
static int
in_steady(struct phaser *f, int64_t ts)
{
	int p;

	for (p = 0; p < f->nsteady; p++)
		if (ts >= f->ph[p].start && ts < f->ph[p].end)
			return 1;
	return 0;
}

enum { ANCHOR_SIG = 1, ANCHOR_NAME = 2 };

/*
 * Takes the steady phases; gives a mark by string: ANCHOR_SIG for the
 * anchors' signatures, ANCHOR_NAME for the names of their calls.  (One
 * string can be both, as with -k name.)
 */
static unsigned char *
mark_anchors(struct phaser *f)
{
	unsigned char *mark;
	size_t i;
	int p, q;

	mark = mct_xmalloc(f->nsig + 1);
	memset(mark, 0, f->nsig + 1);
	for (p = 0; p < f->nsteady; p++)
		for (q = 0; q < f->ph[p].nanc; q++)
			mark[f->ph[p].anc[q].sig] |= ANCHOR_SIG;
	for (i = 0; i < f->ndev; i++)
		if (mark[f->dev[i].sig] & ANCHOR_SIG)
			mark[f->dev[i].name] |= ANCHOR_NAME;
	return mark;
}

/*
 * Step 4.  Takes the steady phases; gives the warmups: the calls of the
 * anchors' names outside them, one phase per stretch with pauses of at
 * most --join, whose rounds are its most frequent signature's calls.
 */
static void
find_warmups(struct phaser *f)
{
	unsigned char *mark = mark_anchors(f);
	struct phase *w = NULL;
	int64_t join = f->m->join;
	size_t i;
	int p, q;

	if (join < 0 && f->ndev > 0)
		join = (f->dev[f->ndev - 1].ts - f->dev[0].ts) / 100;
	for (i = 0; i < f->ndev; i++) {
		const struct dev *d = &f->dev[i];

		if (!(mark[d->name] & ANCHOR_NAME) || in_steady(f, d->ts))
			continue;
		if (w == NULL || d->ts - w->end > join)
			w = new_phase(f, P_WARMUP, d->ts, d->ts + d->dur);
		if (d->ts + d->dur > w->end)
			w->end = d->ts + d->dur;
		add_anchor(w, d->sig, 1, d->dur);
	}
	free(mark);
	for (p = f->nsteady; p < f->nph; p++)
		for (q = 0; q < f->ph[p].nanc; q++)
			if (f->ph[p].anc[q].calls > f->ph[p].rounds)
				f->ph[p].rounds = f->ph[p].anc[q].calls;
}

/*
 * Step 5.  Takes the steady phases and warmups; adds init before the
 * first (from the origin), a switch between any two, the tail after the
 * last (to tend), or one init for all if there are none; sorts all by time.
 */
static void
fill_between(struct phaser *f)
{
	int64_t at = f->origin;
	int p, nold;

	mct_sort(f->ph, (size_t)f->nph, sizeof(*f->ph), cmp_phase);
	nold = f->nph;
	for (p = 0; p < nold; p++) {
		if (f->ph[p].start > at)
			new_phase(f, p == 0 ? P_INIT : P_SWITCH, at,
			    f->ph[p].start);
		if (f->ph[p].end > at)
			at = f->ph[p].end;
	}
	if (nold == 0 && f->hasend && f->tend > at)
		new_phase(f, P_INIT, at, f->tend);
	else if (f->hasend && f->tend > at)
		new_phase(f, P_TAIL, at, f->tend);
	mct_sort(f->ph, (size_t)f->nph, sizeof(*f->ph), cmp_phase);
}

/* Steps 2 to 5: takes a phaser with its calls and knobs; gives ph, nph. */
static void
find_phases(struct phaser *f)
{
	find_runs(f);
	take_steady(f);
	find_warmups(f);
	fill_between(f);
}

/* The phases of what was read, with the options' knobs. */
static void
phases(struct opts *o)
{
	struct phaser f = { .dev = o->dev, .ndev = o->ndev,
	    .nsig = (size_t)o->st.n, .m = &o->m, .tend = o->tend,
	    .hasend = o->hasend };

	f.origin = o->hdr->has_origin ? o->hdr->origin :
	    (o->ndev ? o->dev[0].ts : 0);
	find_phases(&f);
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
		struct dev *d = &o->dev[i];
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

/* Takes a host name and its time inside the gap of s; adds it to s. */
static void
sum_host(struct hostsum *s, int32_t name, int64_t over)
{
	size_t m;

	if (over <= 0)
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

/* Takes the gaps and the host spool; gives each gap its top host names. */
static void
host_in_gaps(struct opts *o)
{
	struct hostsum *sum;
	struct hostrec h;
	struct gap *g;
	size_t i;

	sum = mct_xmalloc(o->ngap * sizeof(*sum));
	memset(sum, 0, o->ngap * sizeof(*sum));
	rewind(o->host);
	while (fread(&h, sizeof(h), 1, o->host) == 1)
		for (i = gap_after(o, h.ts); i < o->ngap &&
		    o->gap[i].start < h.ts + h.dur; i++) {
			g = &o->gap[i];
			sum_host(&sum[i], h.name, overlap(h.ts, h.ts + h.dur,
			    g->start, g->end));
		}
	for (i = 0; i < o->ngap; i++) {
		top_host(o, &o->gap[i], &sum[i]);
		free(sum[i].name);
		free(sum[i].over);
	}
	free(sum);
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
kind_name(enum pkind k)
{
	static const char *n[] = { "init", "warmup", "steady", "switch", "tail" };

	return n[k];
}

/* A time for a cell: ns, or scaled by --time-unit. */
static void
put_time(struct opts *o, struct mct_buf *b, int64_t ns, int rel)
{
	char num[64];

	if (rel)
		ns -= o->hdr->has_origin ? o->hdr->origin : 0;
	if (mct_out_human(&o->out)) {
		if (rel)
			snprintf(num, sizeof(num), "%.3f s", (double)ns / 1e9);
		else
			mct_fmt_human(num, (double)ns);
	} else
		mct_fmt_dec(num, ns, mct_unit_ns(o->out.tunit));
	mct_buf_adds(b, num);
}

static int
cmp_anc(const void *a, const void *b)
{
	const struct anchor *x = a, *y = b;

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
		struct dev *d = &o->dev[i];
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
dominant(struct opts *o, int64_t a, int64_t b, struct anchor *top, int *ntop)
{
	struct anchor *all;
	size_t i;
	int n = 0, k;

	all = mct_xmalloc(((size_t)o->st.n + 1) * sizeof(*all));
	memset(all, 0, ((size_t)o->st.n + 1) * sizeof(*all));
	for (i = 0; i < o->ndev; i++) {
		struct dev *d = &o->dev[i];

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

/* An event of ours (-o ndjson or trace) through the output. */
static void
emit(struct opts *o, struct mct_buf *line)
{
	struct mct_event ev;

	mct_event_init(&ev, line->p, line->len, o->hdr);
	mct_out_event(&o->out, &ev);
	mct_event_free(&ev);
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

	mct_buf_adds(line, before[json][0]);
	mct_buf_adds(line, kind);
	mct_buf_adds(line, before[json][1]);
	put_time(o, line, start, 1);
	mct_buf_adds(line, before[json][2]);
	put_time(o, line, end, 1);
	mct_buf_adds(line, before[json][3]);
	put_time(o, line, end - start, 0);
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
	if (o->track)
		mct_buf_adds(line, "\"args\":{");
	put_place(o, line, kind, start, end, 1);
}

/* The end of a record begun by begin_event(), after a list; out it goes. */
static void
end_event(struct opts *o, struct mct_buf *line)
{
	mct_buf_adds(line, o->track ? "]}}" : "]}");
	emit(o, line);
}

/* A list of signatures, each with its calls and their total or mean time. */
static void
put_sigs(struct opts *o, struct mct_buf *line, const struct anchor *a,
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
		put_time(o, line, mean ? a[k].total / a[k].calls : a[k].total,
		    0);
		mct_buf_addc(line, '}');
	}
}

/* What a phase's record says besides its place. */
struct phase_facts {
	int64_t		 busy;		/* device busy time in it */
	long		 events;	/* device events that start in it */
	double		 busy_pct;
	struct anchor	 top[NTOP];	/* its dominant signatures */
	int		 ntop;
};

/* Phase p as an event (-o ndjson, -o trace). */
static void
phase_event(struct opts *o, struct phase *p, struct phase_facts *f)
{
	struct mct_buf line = { 0 }, lbl = { 0 };
	char num[64];

	/* "steady: <heaviest anchor>", " +" if there are more */
	mct_buf_adds(&lbl, kind_name(p->kind));
	if ((p->kind == P_STEADY || p->kind == P_WARMUP) && p->nanc > 0) {
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
	put_time(o, &line, f->busy, 0);
	mct_buf_adds(&line, ",\"busy_pct\":");
	mct_fmt_double(num, f->busy_pct);
	mct_buf_adds(&line, num);
	mct_buf_adds(&line, ",\"rounds\":");
	mct_buf_addi(&line, p->rounds);
	mct_buf_adds(&line, ",\"round\":");
	if (p->rounds > 0)
		put_time(o, &line, (p->end - p->start) / p->rounds, 0);
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
phase_row(struct opts *o, struct phase *p, struct phase_facts *f)
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
		put_time(o, &line, (p->end - p->start) / p->rounds, 0);
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
	struct phase *p = &o->ph[i];
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
			put_time(o, &line, g->over[k], 0);
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
			put_time(o, &line, g->over[k], 0);
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
	mct_buf_adds(&m, "\"}}");
	emit(o, &m);
	mct_buf_free(&m);
}

static void
report(struct opts *o)
{
	static const char h[] = "phase\037start\037end\037span\037events"
	    "\037busy_pct\037rounds\037round\037top";
	size_t i;
	int p;

	if (o->track) {
		track_name(o, "process_name", 0, "mct phases");
		track_name(o, "thread_name", 1, "phases");
		track_name(o, "thread_name", 2, "idle gaps");
	} else if (o->out.fmt != MCT_O_NDJSON &&
	    (o->out.header || mct_out_human(&o->out)))
		mct_out_row(&o->out, h, sizeof(h) - 1);
	if (!o->only_gaps)
		for (p = 0; p < o->nph; p++)
			phase_record(o, p);
	if (o->gaps)
		for (i = 0; i < o->ngap; i++)
			gap_record(o, i);
}

static double
opt_num(const char *opt, const char *arg, double lo, double hi)
{
	char *end;
	double d = strtod(arg, &end);

	if (*arg == '\0' || *end != '\0' || !(d >= lo && d <= hi)) {
		warnx("%s: invalid number '%s' (want %g to %g)", opt, arg, lo, hi);
		mct_usage_hint();
	}
	return d;
}

static int
options(int argc, char *argv[], struct opts *o, struct mct_opts *mo)
{
	const char *key = DEFAULT_KEY;
	char err[512];
	int ch, fmt = 0;

	while ((ch = getopt_long(argc, argv, "hk:o:u:V", longopts, NULL)) != -1) {
		switch (ch) {
		case 'h':
			usage(0);
			break;
		case 'k':
			key = optarg;
			break;
		case 'o':
			if (mct_parse_ofmt(optarg, &o->out.fmt) != 0) {
				warnx("-o: unknown format '%s' (want table, "
				    "md, ndjson, tsv, csv or trace)", optarg);
				mct_usage_hint();
			}
			fmt = 1;
			break;
		case 'u':
			mct_opt_unit(optarg, &mo->unit);
			break;
		case 'V':
			mct_version();
			break;
		case OPT_DEVICE:
			if ((o->device = mct_expr_parse(optarg, 0, err,
			    sizeof(err))) == NULL) {
				warnx("--device: %s in '%s'", err, optarg);
				mct_usage_hint();
			}
			break;
		case OPT_GAP:
			if (mct_parse_dur(optarg, &o->gapmin) != 0 ||
			    o->gapmin <= 0) {
				warnx("--gap: invalid duration '%s' (want e.g. "
				    "100ms, 1s)", optarg);
				mct_usage_hint();
			}
			o->gaps = 1;
			break;
		case OPT_GAPS:
			o->gaps = 1;
			break;
		case OPT_JOIN:
			if (mct_parse_dur(optarg, &o->m.join) != 0 ||
			    o->m.join < 0) {
				warnx("--join: invalid duration '%s' (want e.g. "
				    "1s, 500ms)", optarg);
				mct_usage_hint();
			}
			break;
		case OPT_MIN_ROUNDS:
			o->m.min_rounds = (int)opt_num("--min-rounds", optarg,
			    2, 1e9);
			if (strspn(optarg, "0123456789") != strlen(optarg)) {
				warnx("--min-rounds: invalid number '%s' (want a "
				    "whole number from 2)", optarg);
				mct_usage_hint();
			}
			break;
		case OPT_MIN_SHARE:
			o->m.min_share = opt_num("--min-share", optarg, 0, 100);
			break;
		case OPT_NO_HEADER:
			o->out.header = 0;
			break;
		case OPT_ONLY_GAPS:
			o->gaps = o->only_gaps = 1;
			break;
		case OPT_OVERLAP:
			o->m.overlap = opt_num("--overlap", optarg, 1, 100);
			break;
		case OPT_PAIR_BE:
			mo->pair_be = 1;
			break;
		case OPT_RULES:
			mct_rules_path(optarg);
			break;
		case OPT_SPLIT:
			o->m.split = opt_num("--split", optarg, 1.01, 1e9);
			break;
		case OPT_TIME_UNIT:
			mct_opt_time_unit(optarg, &o->out.tunit);
			break;
		default:
			usage(2);
		}
	}
	if (mct_fields_parse(key, &o->key, &o->nkey) != 0) {
		warnx("--key: invalid field list '%s'", key);
		mct_usage_hint();
	}
	if (!fmt)
		o->out.fmt = isatty(STDOUT_FILENO) ? MCT_O_TABLE : MCT_O_NDJSON;
	if (o->out.fmt == MCT_O_TRACE) {
		/* events for a track of their own, to wrap beside the trace */
		o->track = 1;
		o->out.fmt = MCT_O_NDJSON;
	}
	return optind;
}

int
main(int argc, char *argv[])
{
	struct opts o = { .m = { .min_rounds = 3, .min_share = 1, .split = 5,
	    .overlap = 80, .join = -1 }, .out = { .header = 1 } };
	struct mct_opts mo = { .unit = MCT_UNIT_AUTO };
	struct mct_reader *r;
	struct mct_event *ev;
	struct mct_pairbe *pb = NULL;
	int n;

	n = options(argc, argv, &o, &mo);
	argc -= n;
	argv += n;
	if ((mct_rules_fields(o.key, o.nkey) || mct_rules_expr(o.device)) &&
	    mct_rules_need() != 0)
		exit(MCT_EXIT_USAGE);
	if (o.gaps && (o.host = mct_tmpfile(NULL)) == NULL)
		exit(MCT_EXIT_USAGE);

	r = mct_open(argc, argv, &mo);
	o.hdr = mct_header(r);
	if (mo.pair_be)
		o.hdr = mct_pairbe_header(pb = mct_pairbe_new(o.hdr));
	while (mct_pairbe_next(pb, r, &ev))
		add(&o, ev);
	mct_sort(o.dev, o.ndev, sizeof(*o.dev), cmp_dev);
	phases(&o);
	if (o.gaps)
		find_gaps(&o);
	mct_out_begin(&o.out, o.hdr);
	report(&o);
	mct_out_end(&o.out);
	mct_pairbe_free(pb);
	return mct_finish(mct_close(r));
}
