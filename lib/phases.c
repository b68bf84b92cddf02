/*
 * phases.c - steps 2 to 5 of mct-phases' method (mct-phases(1), and the
 * top of tools/mct-phases.c): a set of device calls cut into phases,
 * steady rounds among them.  Any set of calls can be cut the same way:
 * mct-phases cuts what it read, mct-ranks each rank's calls.  Then, where
 * the profiler annotated its training steps, they are the rounds; and
 * switches too short to matter join the phase before them.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "mct.h"

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
mct_phases_overlap(int64_t a0, int64_t a1, int64_t b0, int64_t b1)
{
	int64_t lo = a0 > b0 ? a0 : b0, hi = a1 < b1 ? a1 : b1;

	return hi > lo ? mct_sat_sub(hi, lo) : 0;
}

static struct mct_phase *
new_phase(struct mct_phaser *f, enum mct_pkind k, int64_t start, int64_t end)
{
	struct mct_phase *p;

	f->ph = mct_xgrow(f->ph, (size_t)f->nph, sizeof(*f->ph));
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
			p->anc[i].total = mct_sat_add(p->anc[i].total, total);
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
 * pause that ends one of its runs: --split times its median pause (at most
 * int64's most: a pause of times far apart, split, need not fit).
 */
static int64_t
run_limit(struct mct_phaser *f, size_t s, int64_t *pause)
{
	size_t i, n = 0;
	double limit;

	for (i = f->first[s] + 1; i < f->first[s + 1]; i++)
		pause[n++] = f->dev[f->order[i]].ts -
		    f->dev[f->order[i - 1]].ts;
	mct_sort_i64(pause, n);
	limit = (double)pause[n / 2] * f->m->split;
	return limit >= 0x1p63 ? INT64_MAX : (int64_t)limit;
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
			c.total = mct_sat_add(c.total, d->dur);
			if (d->ts + d->dur > c.end)
				c.end = d->ts + d->dur;
			c.calls++;
		}
		if (c.calls >= f->m->min_rounds && (double)c.total >=
		    f->m->min_share / 100 * (double)alltotal) {
			f->cand = mct_xgrow(f->cand, f->ncand, sizeof(*f->cand));
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
		alltotal = mct_sat_add(alltotal, f->dev[i].dur);
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
		ov = mct_phases_overlap(c->start, c->end, ph->start, ph->end);
		if (ov == 0)
			continue;
		if ((double)ov >= share *
		    (double)mct_sat_sub(c->end, c->start) &&
		    (double)ov >= share *
		    (double)mct_sat_sub(ph->end, ph->start)) {
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

/* How many bytes of t[0..n) are those of p[0..k), from the first on. */
static size_t
same_bytes(const char *t, size_t n, const char *p, size_t k)
{
	size_t i;

	for (i = 0; i < n && i < k && t[i] == p[i]; i++)
		;
	return i;
}

static int
is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/* Is s[0..n) ProfilerStep#, a digit and anything after? */
static int
step_text(const char *s, size_t n)
{
	static const char pre[] = "ProfilerStep#";
	const size_t k = sizeof(pre) - 1;

	return n > k && memcmp(s, pre, k) == 0 && is_digit(s[k]);
}

/* Is s[0..n) NAME#N: name's k bytes, '#' and 1 to 18 digits (N in *num)? */
static int
step_n_text(const char *s, size_t n, const char *name, size_t k,
    int64_t *num)
{
	size_t i;

	if (n < k + 2 || n - k - 1 >= 19 || memcmp(s, name, k) != 0 ||
	    s[k] != '#')
		return 0;
	for (i = k + 1; i < n; i++)
		if (!is_digit(s[i]))
			return 0;
	return mct_int(s + k + 1, n - k - 1, num) == 0;
}

/*
 * Is the name (a JSON value) ProfilerStep#N, a training step: its
 * decoded text (Profiler\u0053tep#1 is ProfilerStep#1) begins with
 * ProfilerStep# and a digit (a bare ProfilerStep#, or one with no digit
 * after the #, is no step)?  The raw bytes answer where they first leave
 * the rule, unless a backslash stands there: only then is the name
 * decoded, so a name without one costs its bytes compared, no more.
 */
int
mct_is_step_name(const struct mct_val *v)
{
	static const char pre[] = "ProfilerStep#";
	const size_t k = sizeof(pre) - 1;
	struct mct_buf b = { 0 };
	const char *t = v->p + 1;
	size_t n, i;
	int is;

	if (v->type != MCT_J_STRING || v->len < 2)
		return 0;
	n = v->len - 2;
	i = same_bytes(t, n, pre, k);
	if (i == k && i < n && is_digit(t[i]))
		return 1;
	if (i >= n || t[i] != '\\')
		return 0;	/* the raw bytes answer: no escape up to t[i] */
	mct_jstr(v, &b);
	is = step_text(b.p, b.len);
	mct_buf_free(&b);
	return is;
}

/*
 * Is the name (a JSON value) the step annotation NAME#N: its decoded
 * text NAME, '#' and a whole number N of 1 to 18 digits, in *num?  As
 * above, decoded only where a backslash stands in the raw bytes the
 * rule took or where they leave it.
 */
int
mct_is_step_of(const struct mct_val *v, const char *name, int64_t *num)
{
	struct mct_buf b = { 0 };
	const char *t = v->p + 1;
	size_t k = strlen(name), n, i;
	int is;

	if (v->type != MCT_J_STRING || v->len < 2)
		return 0;
	n = v->len - 2;
	i = same_bytes(t, n, name, k);
	if (i == k && i < n && t[i] == '#')
		for (i++; i < n && is_digit(t[i]); i++)
			;
	/* the raw bytes answer unless a backslash is in t[0..i] */
	if ((i >= n || t[i] != '\\') &&
	    memchr(name, '\\', i < k ? i : k) == NULL)
		return i == n && step_n_text(t, n, name, k, num);
	mct_jstr(v, &b);
	is = step_n_text(b.p, b.len, name, k, num);
	mct_buf_free(&b);
	return is;
}

/*
 * The dur of an X event at ts (a sane time) as the phase method takes it:
 * 0 when it has none, or it is negative or not a sane time, or its end is
 * not a sane time either (ends and starts are subtracted).  mct-phases,
 * mct-ranks and mct-diff (lib/runsum.c) take every call so, and agree.
 */
int64_t
mct_phase_dur(struct mct_event *ev, int64_t ts)
{
	int64_t dur;

	if (mct_get_ns(ev, "dur", &dur) != 0 || dur < 0 || !MCT_SANE_NS(dur) ||
	    !MCT_SANE_NS(ts + dur))
		return 0;
	return dur;
}

/*
 * Can the event be a step, whatever its name: an X event of the host,
 * not device work (lib/device.c) nor the GPU's copy of an annotation
 * (Kineto writes each step again on the GPU's lane, cat
 * gpu_user_annotation, with the GPU's span)?  Its cat is not looked at
 * otherwise: Kineto's user_annotation, early Kineto's cpu_op or
 * Operator, another or none are all steps.  The one rule of every tool
 * (mct(7), "Steps"); the name is asked first, the cheaper question.
 */
static int
step_event(struct mct_event *ev)
{
	struct mct_val ph, cat;

	return mct_get_key(ev, "ph", &ph) == 0 && mct_jstr_eq(&ph, "X", 1) &&
	    !(mct_get_key(ev, "cat", &cat) == 0 &&
	    mct_jstr_eq(&cat, "gpu_user_annotation", 19)) && !mct_device(ev);
}

/*
 * Is it a training step, ProfilerStep#N (mct_is_step_name), as
 * mct-phases, mct-ranks, mct-path, mct-mem and mct-report find them?
 * On a host lane that is one of Kineto's training steps: the rounds,
 * where there are enough of them.
 */
int
mct_is_step(struct mct_event *ev)
{
	struct mct_val v;

	return mct_get_key(ev, "name", &v) == 0 && mct_is_step_name(&v) &&
	    step_event(ev);
}

/*
 * Is it the step annotation NAME#N (mct_is_step_of), its N in *n, as
 * mct-flow --stack, mct-group --by step, mct-filter --step and mct-diff
 * --step number the steps?  The same events as mct_is_step: only the
 * rule of the name differs.
 */
int
mct_is_step_n(struct mct_event *ev, const char *name, int64_t *n)
{
	struct mct_val v;

	return mct_get_key(ev, "name", &v) == 0 &&
	    mct_is_step_of(&v, name, n) && step_event(ev);
}

void
mct_steps_add(struct mct_steps *s, int64_t ts, int64_t dur)
{
	if (s->n == s->cap) {
		s->cap = s->cap ? s->cap * 2 : 64;
		s->v = mct_xrealloc(s->v, s->cap * sizeof(*s->v));
	}
	s->v[s->n].ts = ts;
	s->v[s->n++].end = ts + dur;
}

static int
cmp_step(const void *a, const void *b)
{
	const struct mct_step *x = a, *y = b;

	return x->ts < y->ts ? -1 : x->ts > y->ts;
}

/* Drop phase p, keeping the rest in order. */
static void
drop_phase(struct mct_phaser *f, int p)
{
	free(f->ph[p].anc);
	memmove(&f->ph[p], &f->ph[p + 1], (size_t)(f->nph - p - 1) *
	    sizeof(*f->ph));
	f->nph--;
}

/*
 * Where the profiler annotated the training steps (Kineto's
 * ProfilerStep#N), they are the rounds: each run of steps (one starting
 * no later than a median step after the last ended) is one steady phase
 * from its first start to its last end, with a round per step, and the
 * anchors of the steady phases found inside it.  Phases that start inside
 * a run go, one that runs into it ends where it starts; init, switches
 * and tail are found again around the rest.
 */
void
mct_phases_steps(struct mct_phaser *f, struct mct_step *st, size_t n)
{
	int64_t *len, med;
	size_t i, j;
	struct mct_phase run, *ph;
	int p, q, nold;

	mct_sort(st, n, sizeof(*st), cmp_step);
	len = mct_xmalloc(n * sizeof(*len));
	for (i = 0; i < n; i++)
		len[i] = st[i].end - st[i].ts;
	mct_sort_i64(len, n);
	med = len[n / 2];
	free(len);
	for (p = 0; p < f->nph; p++)	/* init, switches, tail: found again */
		if (f->ph[p].kind != MCT_PH_STEADY && f->ph[p].kind != MCT_PH_WARMUP)
			drop_phase(f, p--);
	nold = f->nph;
	for (i = 0; i < n; i = j) {
		memset(&run, 0, sizeof(run));
		run.kind = MCT_PH_STEADY;
		run.start = st[i].ts;
		run.end = st[i].end;
		for (j = i + 1; j < n && st[j].ts - run.end <= med; j++)
			if (st[j].end > run.end)
				run.end = st[j].end;
		run.rounds = (long)(j - i);
		for (p = 0; p < nold; p++) {
			ph = &f->ph[p];
			if (ph->start < run.start && ph->end > run.start)
				ph->end = run.start;	/* up to the run */
			if (ph->start < run.start || ph->start >= run.end)
				continue;
			for (q = 0; ph->kind == MCT_PH_STEADY && q < ph->nanc; q++)
				add_anchor(&run, ph->anc[q].sig, ph->anc[q].calls,
				    ph->anc[q].total);
			ph->rounds = -1;	/* inside the run: goes */
		}
		*new_phase(f, MCT_PH_STEADY, run.start, run.end) = run;
	}
	for (p = 0; p < f->nph; p++)
		if (f->ph[p].rounds < 0)
			drop_phase(f, p--);
	fill_between(f);
}

/*
 * The rounds of the steady phases found, in time order, into *v (n of
 * them, returned): a steady phase's rounds start where the calls of its
 * heaviest anchor (the first of the heaviest) start in it, the first at
 * the phase's start (not at its first call), and each ends where the next starts, the last at
 * the phase's end.  So the rounds of a phase cover it, end to end.
 */
size_t
mct_phases_rounds(const struct mct_phaser *f, struct mct_step **v)
{
	const struct mct_phase *ph;
	size_t i, n = 0, lo, hi, mid;
	int p, q, a, first;

	*v = NULL;
	for (p = 0; p < f->nph; p++) {
		ph = &f->ph[p];
		if (ph->kind != MCT_PH_STEADY || ph->nanc == 0)
			continue;
		for (a = 0, q = 1; q < ph->nanc; q++)
			if (ph->anc[q].total > ph->anc[a].total)
				a = q;
		for (lo = 0, hi = f->ndev; lo < hi; ) {	/* the first in it */
			mid = lo + (hi - lo) / 2;
			if (f->dev[mid].ts < ph->start)
				lo = mid + 1;
			else
				hi = mid;
		}
		*v = mct_xgrow(*v, n, sizeof(**v));
		(*v)[n].ts = ph->start;
		for (i = lo, first = 1; i < f->ndev && f->dev[i].ts < ph->end;
		    i++) {
			if (f->dev[i].sig != ph->anc[a].sig)
				continue;
			if (first || f->dev[i].ts == (*v)[n].ts) {
				first = 0;	/* in the first round */
				continue;
			}
			(*v)[n++].end = f->dev[i].ts;
			*v = mct_xgrow(*v, n, sizeof(**v));
			(*v)[n].ts = f->dev[i].ts;
		}
		(*v)[n++].end = ph->end;
	}
	return n;
}

/*
 * A switch shorter than min (by default, -1: 1% of the median round of
 * the steady phases) is no phase of its own: it joins the phase before
 * it, so that one copy between two rounds does not make a row.
 */
void
mct_phases_merge_switches(struct mct_phaser *f, int64_t min)
{
	int64_t *round;
	int p, n = 0;

	if (min < 0) {
		round = mct_xmalloc((size_t)(f->nph + 1) * sizeof(*round));
		for (p = 0; p < f->nph; p++)
			if (f->ph[p].kind == MCT_PH_STEADY && f->ph[p].rounds > 0)
				round[n++] = mct_sat_sub(f->ph[p].end,
				    f->ph[p].start) / f->ph[p].rounds;
		mct_sort_i64(round, (size_t)n);
		min = n > 0 ? round[n / 2] / 100 : 0;
		free(round);
	}
	for (p = 1; p < f->nph; p++)
		if (f->ph[p].kind == MCT_PH_SWITCH &&
		    f->ph[p].end - f->ph[p].start < min) {
			if (f->ph[p].end > f->ph[p - 1].end)
				f->ph[p - 1].end = f->ph[p].end;
			drop_phase(f, p--);
		}
}

