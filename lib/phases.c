/*
 * phases.c - steps 2 to 5 of mct-phases' method (mct-phases(1), and the
 * top of tools/mct-phases.c): a set of device calls cut into phases,
 * steady rounds among them.  Any set of calls can be cut the same way:
 * mct-phases cuts what it read, mct-ranks each rank's calls.  Also which
 * events are on a device lane, the one test both tools use.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "mct.h"

/* Is this X event on a device lane (whatever --device says)? */
int
mct_on_device(struct mct_event *ev)
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
 * Steps 2 to 5 of the method, one function each, in the order
 * mct_phases_find() calls them.  What they share is a struct
 * mct_phaser: the calls and knobs they are given, what one step hands
 * the next, and the phases found.  They know nothing of a tool's options
 * or the reader, so any set of calls can be cut the same way (one
 * rank's, say).
 */

/* A candidate steady phase: one run of one signature. */
struct mct_cand {
	int32_t		 sig;
	int64_t		 start, end, total;
	long		 calls;
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
	const struct mct_cand *x = a, *y = b;

	return x->total > y->total ? -1 : x->total < y->total;
}

static int
cmp_phase(const void *a, const void *b)
{
	const struct mct_phase *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

/* The length of the overlap of [a0, a1) and [b0, b1), or 0. */
int64_t
mct_overlap(int64_t a0, int64_t a1, int64_t b0, int64_t b1)
{
	int64_t lo = a0 > b0 ? a0 : b0, hi = a1 < b1 ? a1 : b1;

	return hi > lo ? hi - lo : 0;
}

static struct mct_phase *
new_phase(struct mct_phaser *f, enum mct_pkind k, int64_t start, int64_t end)
{
	struct mct_phase *p;

	f->ph = mct_xrealloc(f->ph, (size_t)(f->nph + 1) * sizeof(*f->ph));
	p = &f->ph[f->nph++];
	memset(p, 0, sizeof(*p));
	p->kind = k;
	p->start = start;
	p->end = end;
	return p;
}

static void
add_anchor(struct mct_phase *p, int32_t sig, long calls, int64_t total)
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
index_calls(struct mct_phaser *f)
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
run_limit(struct mct_phaser *f, size_t s, int64_t *pause)
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
cut_runs(struct mct_phaser *f, size_t s, int64_t limit, int64_t alltotal)
{
	size_t i, j, hi = f->first[s + 1];

	for (i = f->first[s]; i < hi; i = j) {
		struct mct_cand c = { (int32_t)s, f->dev[f->order[i]].ts, 0, 0,
		    0 };

		for (j = i; j < hi; j++) {
			const struct mct_call *d = &f->dev[f->order[j]];

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
find_runs(struct mct_phaser *f)
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
take_cand(struct mct_phaser *f, const struct mct_cand *c)
{
	double share = f->m->overlap / 100;
	struct mct_phase *ph;
	int64_t ov;
	int p;

	for (p = 0; p < f->nph; p++) {
		ph = &f->ph[p];
		ov = mct_overlap(c->start, c->end, ph->start, ph->end);
		if (ov == 0)
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
	ph = new_phase(f, MCT_PH_STEADY, c->start, c->end);
	add_anchor(ph, c->sig, c->calls, c->total);
	ph->rounds = c->calls;
}

/* Step 3.  Takes cand, heaviest first; gives the steady phases. */
static void
take_steady(struct mct_phaser *f)
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
in_steady(struct mct_phaser *f, int64_t ts)
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
mark_anchors(struct mct_phaser *f)
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
find_warmups(struct mct_phaser *f)
{
	unsigned char *mark = mark_anchors(f);
	struct mct_phase *w = NULL;
	int64_t join = f->m->join;
	size_t i;
	int p, q;

	if (join < 0 && f->ndev > 0)
		join = (f->dev[f->ndev - 1].ts - f->dev[0].ts) / 100;
	for (i = 0; i < f->ndev; i++) {
		const struct mct_call *d = &f->dev[i];

		if (!(mark[d->name] & ANCHOR_NAME) || in_steady(f, d->ts))
			continue;
		if (w == NULL || d->ts - w->end > join)
			w = new_phase(f, MCT_PH_WARMUP, d->ts, d->ts + d->dur);
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
fill_between(struct mct_phaser *f)
{
	int64_t at = f->origin;
	int p, nold;

	mct_sort(f->ph, (size_t)f->nph, sizeof(*f->ph), cmp_phase);
	nold = f->nph;
	for (p = 0; p < nold; p++) {
		if (f->ph[p].start > at)
			new_phase(f, p == 0 ? MCT_PH_INIT : MCT_PH_SWITCH, at,
			    f->ph[p].start);
		if (f->ph[p].end > at)
			at = f->ph[p].end;
	}
	if (nold == 0 && f->hasend && f->tend > at)
		new_phase(f, MCT_PH_INIT, at, f->tend);
	else if (f->hasend && f->tend > at)
		new_phase(f, MCT_PH_TAIL, at, f->tend);
	mct_sort(f->ph, (size_t)f->nph, sizeof(*f->ph), cmp_phase);
}

/* Steps 2 to 5: takes a phaser with its calls and knobs; gives ph, nph. */
void
mct_phases_find(struct mct_phaser *f)
{
	find_runs(f);
	take_steady(f);
	find_warmups(f);
	fill_between(f);
}

/* The phases found, and their anchors. */
void
mct_phases_free(struct mct_phaser *f)
{
	int p;

	for (p = 0; p < f->nph; p++)
		free(f->ph[p].anc);
	free(f->ph);
	f->ph = NULL;
	f->nph = f->nsteady = 0;
}
