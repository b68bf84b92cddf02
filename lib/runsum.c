/*
 * runsum.c - a run's device time in a few figures: its span (first
 * start to last end of its device calls), busy time (their union, so
 * that overlapping streams count once), and its steady rounds and their
 * median time as mct-phases finds them (lib/phases.c).  mct-ranks
 * measures each rank so, mct-diff each run.
 *
 * A run keeps each device call as a small struct (no event): its place,
 * its signature and name interned, and its input order, so that calls
 * that start together keep the order they came in.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "mct.h"

/*
 * The median of n > 0 values (sorts them): the middle one, or of an even
 * number the mean of the two middle ones, rounded down.
 */
int64_t
mct_median_i64(int64_t *v, size_t n)
{
	mct_i128 s;

	mct_sort_i64(v, n);
	if (n % 2)
		return v[n / 2];
	s = (mct_i128)v[n / 2 - 1] + v[n / 2];
	return (int64_t)(s >= 0 ? s / 2 : (s - 1) / 2);
}

/*
 * The times of the rounds of steady phase ph made of profiler steps (those
 * that start in it, one a round), into v; 0 when its rounds are no steps.
 */
static int
step_times(const struct mct_steps *steps, const struct mct_phase *ph,
    int64_t *v)
{
	size_t i;
	long k = 0;

	for (i = 0; i < steps->n; i++)
		if (steps->v[i].ts >= ph->start && steps->v[i].ts < ph->end &&
		    k++ < ph->rounds)
			v[k - 1] = steps->v[i].end - steps->v[i].ts;
	return k == ph->rounds;
}

/*
 * The signature of the heaviest anchor of steady phase ph (the first of
 * the heaviest), whose calls are its rounds; -1 if it has no anchor.
 */
static int32_t
heaviest(const struct mct_phase *ph)
{
	int a, q;

	if (ph->nanc == 0)
		return -1;
	for (a = 0, q = 1; q < ph->nanc; q++)
		if (ph->anc[q].total > ph->anc[a].total)
			a = q;
	return ph->anc[a].sig;
}

/* Count r more rounds of kind sig (-1: profiler steps) into *of. */
static void
add_of(struct mct_roundof **of, size_t *nof, int32_t sig, long r)
{
	size_t i;

	for (i = 0; i < *nof; i++)
		if ((*of)[i].sig == sig) {
			(*of)[i].rounds += r;
			return;
		}
	*of = mct_xrealloc(*of, (*nof + 1) * sizeof(**of));
	(*of)[*nof].sig = sig;
	(*of)[(*nof)++].rounds = r;
}

/*
 * The steady rounds of device calls (in time order; signatures and names
 * below nsig) from start to end, as mct-phases finds them, profiler steps
 * as rounds where there are enough: how many, and in *round the median
 * time of one.  A profiler step's time is its own; a round found by its
 * signature has only its phase's: the phase's span over its rounds.
 * What the rounds are goes to *of, *nof (unless of is NULL), in the
 * order found.  Returns 0 when there is no steady round.
 */
int
mct_rounds(const struct mct_call *dev, size_t n, size_t nsig,
    const struct mct_method *m, int64_t start, int64_t end,
    const struct mct_steps *steps, long *rounds, int64_t *round,
    struct mct_roundof **of, size_t *nof)
{
	struct mct_phaser f = { .dev = dev, .ndev = n, .nsig = nsig, .m = m,
	    .origin = start, .tend = end, .hasend = 1 };
	int64_t *v = NULL, t;
	size_t nv = 0;
	long k;
	int p, has, bysteps;

	*rounds = 0;
	mct_phases_find(&f);
	if ((bysteps = steps->n >= (size_t)m->min_rounds))
		mct_phases_steps(&f, steps->v, steps->n);
	mct_phases_merge_switches(&f, -1);
	for (p = 0; p < f.nph; p++) {
		if (f.ph[p].kind != MCT_PH_STEADY || f.ph[p].rounds <= 0)
			continue;
		*rounds += f.ph[p].rounds;
		v = mct_xrealloc(v, (nv + (size_t)f.ph[p].rounds) * sizeof(*v));
		if (bysteps && step_times(steps, &f.ph[p], v + nv)) {
			nv += (size_t)f.ph[p].rounds;
			if (of != NULL)
				add_of(of, nof, -1, f.ph[p].rounds);
			continue;
		}
		t = mct_sat_sub(f.ph[p].end, f.ph[p].start) / f.ph[p].rounds;
		for (k = 0; k < f.ph[p].rounds; k++)
			v[nv++] = t;
		if (of != NULL)
			add_of(of, nof, heaviest(&f.ph[p]), f.ph[p].rounds);
	}
	if ((has = nv > 0))
		*round = mct_median_i64(v, nv);
	free(v);
	mct_phases_free(&f);
	return has;
}

/*
 * The order of kind x of run a and kind y of run b: profiler steps first,
 * then signatures by their bytes; 0 for the same kind (the same
 * signature's text, whichever run interned it).
 */
int
mct_roundof_cmp(const struct mct_runsum *a, const struct mct_roundof *x,
    const struct mct_runsum *b, const struct mct_roundof *y)
{
	size_t nx, ny;
	int c;

	if (x->sig < 0 || y->sig < 0)
		return (y->sig < 0) - (x->sig < 0);
	nx = mct_strtab_len(&a->st, x->sig);
	ny = mct_strtab_len(&b->st, y->sig);
	c = memcmp(a->st.str[x->sig], b->st.str[y->sig], nx < ny ? nx : ny);
	return c != 0 ? c : (nx > ny) - (nx < ny);
}

/*
 * Are the steady rounds of runs a and b alike, so that their number and
 * median time compare: of the same kinds, profiler steps or the calls of
 * the same signatures (whatever the number of rounds of each)?  Runs
 * without rounds have none to compare.
 */
int
mct_runsum_alike(const struct mct_runsum *a, const struct mct_runsum *b)
{
	size_t i;

	if (a->nof != b->nof)
		return 0;
	for (i = 0; i < a->nof; i++)	/* (each run's kinds in order) */
		if (mct_roundof_cmp(a, &a->of[i], b, &b->of[i]) != 0)
			return 0;
	return 1;
}

/* sig: the signature's fields (mct-phases' --key); NULL for its default. */
void
mct_runsum_init(struct mct_runsum *rs, const char *sig)
{
	memset(rs, 0, sizeof(*rs));
	if (mct_fields_parse(sig ? sig : MCT_SIG_DEFAULT, &rs->sig,
	    &rs->nsig) != 0 || mct_field_parse("name", &rs->name) != 0)
		mct_nomem("runsum");	/* the default parses: no memory */
}

/*
 * One event of the run: a device call if dev is set (the caller's
 * choice of lanes), else maybe a profiler step.
 */
void
mct_runsum_event(struct mct_runsum *rs, struct mct_event *ev, int dev)
{
	struct mct_rcall *c;
	struct mct_val ph;
	int64_t ts, dur;

	if (mct_get_key(ev, "ph", &ph) != 0 || !mct_jstr_eq(&ph, "X", 1) ||
	    mct_get_ns(ev, "ts", &ts) != 0 || !MCT_SANE_NS(ts))
		return;
	dur = mct_phase_dur(ev, ts);	/* as mct-phases takes it */
	if (!dev) {
		if (mct_is_step(ev))
			mct_steps_add(&rs->steps, ts, dur);
		return;
	}
	if (rs->n == rs->cap) {
		rs->cap = rs->cap ? rs->cap * 2 : 1024;
		rs->call = mct_xrealloc(rs->call, rs->cap * sizeof(*rs->call));
	}
	c = &rs->call[rs->n];
	c->seq = rs->n++;
	c->comm = c->mem = 0;
	c->c.ts = ts;
	c->c.dur = dur;
	c->c.sig = mct_fields_intern(&rs->st, ev, rs->sig, rs->nsig, &rs->tmp);
	c->c.name = mct_fields_intern(&rs->st, ev, &rs->name, 1, &rs->tmp);
}

static int
cmp_rcall(const void *a, const void *b)
{
	const struct mct_rcall *x = a, *y = b;

	if (x->c.ts != y->c.ts)
		return x->c.ts < y->c.ts ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* Calls in time order, ties in input order. */
void
mct_rcall_sort(struct mct_rcall *c, size_t n)
{
	mct_sort(c, n, sizeof(*c), cmp_rcall);
}

/*
 * The union of calls in time order: of the communication calls (which
 * 1), of the others (0), of all (-1); of the copies and memsets (2), of
 * the kernels that are neither (3).  A device's busy time is all.
 */
int64_t
mct_rcall_union(const struct mct_rcall *c, size_t n, int which)
{
	int64_t sum = 0, cur0 = 0, cur1 = 0, s, e;
	size_t i;
	int open = 0;

	for (i = 0; i < n; i++) {
		if (which == 2 ? c[i].comm || !c[i].mem :
		    which == 3 ? c[i].comm || c[i].mem :
		    which >= 0 && c[i].comm != which)
			continue;
		s = c[i].c.ts;
		e = s + c[i].c.dur;
		if (open && s <= cur1) {
			if (e > cur1)
				cur1 = e;
			continue;
		}
		if (open)
			sum = mct_sat_add(sum, mct_sat_sub(cur1, cur0));
		cur0 = s;
		cur1 = e;
		open = 1;
	}
	if (open)
		sum = mct_sat_add(sum, mct_sat_sub(cur1, cur0));
	return sum;
}

/* The run's calls (rs->n > 0) put in time order, a copy as mct_call, and
 * their span. */
static struct mct_call *
sorted_calls(struct mct_runsum *rs, int64_t *start, int64_t *end)
{
	struct mct_call *dev;
	size_t i;

	mct_rcall_sort(rs->call, rs->n);
	dev = mct_xmalloc(rs->n * sizeof(*dev));
	*start = *end = rs->call[0].c.ts;
	for (i = 0; i < rs->n; i++) {
		dev[i] = rs->call[i].c;
		if (dev[i].ts + dev[i].dur > *end)
			*end = dev[i].ts + dev[i].dur;
	}
	return dev;
}

/* The figures, with the method's knobs m: after the last event. */
void
mct_runsum_end(struct mct_runsum *rs, const struct mct_method *m)
{
	struct mct_call *dev;
	struct mct_roundof t;
	size_t i, j;

	if (rs->n == 0)
		return;
	dev = sorted_calls(rs, &rs->start, &rs->end);
	rs->busy = mct_rcall_union(rs->call, rs->n, -1);
	rs->hasround = mct_rounds(dev, rs->n, (size_t)rs->st.n, m, rs->start,
	    rs->end, &rs->steps, &rs->rounds, &rs->round, &rs->of, &rs->nof);
	free(dev);
	for (i = 1; i < rs->nof; i++)	/* in order: a few, by insertion */
		for (j = i; j > 0 && mct_roundof_cmp(rs, &rs->of[j], rs,
		    &rs->of[j - 1]) < 0; j--) {
			t = rs->of[j];
			rs->of[j] = rs->of[j - 1];
			rs->of[j - 1] = t;
		}
}

/*
 * The spans of the run's steady rounds found by their signatures (never
 * profiler steps), as mct-phases cuts them with the method's knobs m, in
 * time order into *v: how many.  After the last event.
 */
size_t
mct_runsum_rounds(struct mct_runsum *rs, const struct mct_method *m,
    struct mct_step **v)
{
	struct mct_phaser f = { .ndev = rs->n, .nsig = (size_t)rs->st.n,
	    .m = m, .hasend = 1 };
	struct mct_call *dev;
	size_t n;

	*v = NULL;
	if (rs->n == 0)
		return 0;
	f.dev = dev = sorted_calls(rs, &f.origin, &f.tend);
	mct_phases_find(&f);
	mct_phases_merge_switches(&f, -1);
	n = mct_phases_rounds(&f, v);
	mct_phases_free(&f);
	free(dev);
	return n;
}

void
mct_runsum_free(struct mct_runsum *rs)
{
	int i;

	for (i = 0; i < rs->nsig; i++)
		mct_field_free(&rs->sig[i]);
	free(rs->sig);
	mct_field_free(&rs->name);
	free(rs->call);
	free(rs->steps.v);
	free(rs->of);
	mct_strtab_free(&rs->st);
	mct_buf_free(&rs->tmp);
	memset(rs, 0, sizeof(*rs));
}
