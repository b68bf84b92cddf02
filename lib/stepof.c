/*
 * stepof.c - the profiler step of an event (mct-filter --step, the field
 * step of mct-group).
 *
 * A host event is in step N when the innermost step annotation (an X
 * event NAME#N of the host, ProfilerStep#N by default, as
 * mct_is_step_n() says: lib/phases.c) of its thread that holds it is
 * NAME#N; device work is in the step of its launch (the host call of
 * the same correlation id), as mct-flow --stack gives a launch its step:
 * on the launch's thread, else on its process.
 *
 * An mcTracer trace (device work without cat, with a co_id) with no
 * ProfilerStep#N at all, when no other NAME is asked for, has the rounds
 * mct-phases finds for steps: the steady rounds of each rank's device
 * calls (lib/runsum.c, lib/phases.c), numbered from 1 in time order; an
 * event (host or device) is in the round whose [start, end) holds its
 * ts, else in none.
 *
 * The annotations may come after the events they hold: every event is
 * seen first (mct_stepof_see keeps the annotations and the first launch
 * of each correlation id, a few words each, and each device call, for
 * the rounds), then asked (mct_stepof_at, of what mct_stepof_key took
 * from it, or mct_stepof of the event).
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "mct.h"

/* An annotation NAME#N. */
struct sstep {
	int64_t		 ts, end, n;
	int32_t		 lane, pid;
};

/* A launch: a host call with a correlation id. */
struct slaunch {
	int64_t		 ts, end;
	int32_t		 lane, pid;
};

/* A rank's device calls, then its rounds: round[r0] to round[r0 + nr - 1]. */
struct srank {
	int64_t		 rank;
	struct mct_runsum rs;
	size_t		 r0, nr;
};

struct mct_stepof {
	const char	*name;		/* NAME of NAME#N */
	struct srank	*rk;		/* by first sight */
	int		 nrk, currk;
	struct mct_stack_step *round;	/* by rank, then start (when asked) */
	size_t		 nround;
	int		 byround;	/* rounds, if no step (ProfilerStep only) */
	int		 mctracer;	/* and mcTracer's device work was seen */
	int		 asked;
	struct mct_strtab st;		/* lanes, processes, correlation keys */
	struct sstep	*step;		/* by lane, then start (when asked) */
	struct sstep	*pstep;		/* the same by process, then start */
	size_t		 nstep;
	struct slaunch	*launch;	/* by correlation key */
	size_t		 nlaunch;
	struct mct_buf	 key;
};

/* The steps NAME#N (NULL: ProfilerStep#N); the name is the caller's. */
struct mct_stepof *
mct_stepof_new(const char *name)
{
	struct mct_stepof *f;

	f = mct_xmalloc(sizeof(*f));
	memset(f, 0, sizeof(*f));
	f->name = name ? name : "ProfilerStep";
	f->byround = strcmp(f->name, "ProfilerStep") == 0;
	return f;
}

/* The event's rank (its rank key) and \037 into the key. */
static void
key_rank(struct mct_stepof *f, struct mct_event *ev)
{
	struct mct_val v;
	int64_t id;

	f->key.len = 0;
	switch (mct_event_rank(ev, NULL, &id, &v)) {
	case 0:
		mct_buf_addi(&f->key, id);
		break;
	case 1:
		mct_buf_add(&f->key, v.p, v.len);
	}
	mct_buf_addc(&f->key, '\037');
}

/* The interned text of the event's rank and keys, \037 apart. */
static int32_t
key_of(struct mct_stepof *f, struct mct_event *ev, const char *const *keys)
{
	struct mct_val v;
	int i;

	key_rank(f, ev);
	for (i = 0; keys[i] != NULL; i++) {
		if (mct_get_key(ev, keys[i], &v) == 0)
			mct_buf_add(&f->key, v.p, v.len);
		mct_buf_addc(&f->key, '\037');
	}
	return mct_intern(&f->st, f->key.p, f->key.len);
}

static const char *const lanekeys[] = { "pid", "tid", NULL };
static const char *const pidkeys[] = { "pid", NULL };

/* The event's correlation key (rank and id), or -1 without an id. */
static int32_t
corr_of(struct mct_stepof *f, struct mct_event *ev)
{
	static struct mct_field corr[2];
	struct mct_val v;

	if (corr[0].text == NULL) {
		mct_field_parse("args.correlation", &corr[0]);
		mct_field_parse("args.co_id", &corr[1]);
	}
	if (mct_get(ev, &corr[0], &v) != 0 && mct_get(ev, &corr[1], &v) != 0)
		return -1;
	key_rank(f, ev);
	mct_buf_add(&f->key, v.p, v.len);
	return mct_intern(&f->st, f->key.p, f->key.len);
}

/* Its start and end; -1 if it has no ts. */
static int
times_of(struct mct_event *ev, int64_t *ts, int64_t *end)
{
	int64_t dur;

	if (mct_get_ns(ev, "ts", ts) != 0 || !MCT_SANE_NS(*ts))
		return -1;
	if (mct_get_ns(ev, "dur", &dur) != 0 || dur < 0 || !MCT_SANE_NS(dur))
		dur = 0;
	*end = *ts + dur;
	return 0;
}

/* The event's rank, or -1: as mct-phases cuts each rank on its own. */
static int64_t
rank_of(struct mct_event *ev)
{
	int64_t rank;

	return mct_event_rank(ev, NULL, &rank, NULL) == 0 && rank >= 0 ?
	    rank : -1;
}

/*
 * Is the device work mcTracer's: no cat, a co_id?  Only a trace with
 * such work has rounds for steps (another producer's steps are its
 * annotations); all its device work is cut, as mct-phases cuts it.
 */
static int
mctracer_call(struct mct_event *ev)
{
	static struct mct_field coid;
	struct mct_val v;

	if (coid.text == NULL)
		mct_field_parse("args.co_id", &coid);
	return mct_get_key(ev, "cat", &v) != 0 && mct_get(ev, &coid, &v) == 0;
}

/* A device call, into its rank's calls. */
static void
see_call(struct mct_stepof *f, struct mct_event *ev)
{
	int64_t rank = rank_of(ev);
	int i;

	if (f->nrk == 0 || f->rk[f->currk].rank != rank) {
		for (i = 0; i < f->nrk && f->rk[i].rank != rank; i++)
			;
		if (i == f->nrk) {
			f->rk = mct_xrealloc(f->rk, (size_t)(i + 1) *
			    sizeof(*f->rk));
			f->rk[i].rank = rank;
			mct_runsum_init(&f->rk[i].rs, NULL);
			f->nrk++;
		}
		f->currk = i;
	}
	mct_runsum_event(&f->rk[f->currk].rs, ev, 1);
}

/*
 * Every event, before any is asked: the step annotations and launches,
 * and the device calls.
 */
void
mct_stepof_see(struct mct_stepof *f, struct mct_event *ev)
{
	struct sstep *s;
	int64_t ts, end, n;
	int32_t c;

	if (f->byround && mct_device(ev)) {
		see_call(f, ev);
		f->mctracer |= mctracer_call(ev);
	}
	if (mct_is_step_n(ev, f->name, &n) && times_of(ev, &ts, &end) == 0) {
		f->step = mct_xgrow(f->step, f->nstep, sizeof(*f->step));
		s = &f->step[f->nstep++];
		s->ts = ts;
		s->end = end;
		s->n = n;
		s->lane = key_of(f, ev, lanekeys);
		s->pid = key_of(f, ev, pidkeys);
		return;
	}
	if (!mct_host_call(ev) || (c = corr_of(f, ev)) < 0 ||
	    times_of(ev, &ts, &end) != 0)
		return;
	while (f->nlaunch <= (size_t)c) {	/* (room doubling) */
		f->launch = mct_xgrow(f->launch, f->nlaunch,
		    sizeof(*f->launch));
		f->launch[f->nlaunch++].lane = -1;
	}
	if (f->launch[c].lane >= 0)	/* the first launch of an id */
		return;
	f->launch[c].ts = ts;
	f->launch[c].end = end;
	f->launch[c].lane = key_of(f, ev, lanekeys);
	f->launch[c].pid = key_of(f, ev, pidkeys);
}

/* What says the event's step: its correlation key, lane, process, times. */
void
mct_stepof_key(struct mct_stepof *f, struct mct_event *ev,
    struct mct_stepkey *k)
{
	k->corr = mct_device(ev) ? corr_of(f, ev) : -1;
	k->rank = rank_of(ev);
	k->lane = key_of(f, ev, lanekeys);
	k->pid = key_of(f, ev, pidkeys);
	if (times_of(ev, &k->ts, &k->end) != 0)
		k->lane = k->corr = -1;		/* no time: in no step */
}

static int
cmp_lane(const void *a, const void *b)
{
	const struct sstep *x = a, *y = b;

	if (x->lane != y->lane)
		return x->lane < y->lane ? -1 : 1;
	return x->ts < y->ts ? -1 : x->ts > y->ts;
}

static int
cmp_pid(const void *a, const void *b)
{
	const struct sstep *x = a, *y = b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return x->ts < y->ts ? -1 : x->ts > y->ts;
}

/*
 * The innermost annotation of v (n, sorted by key, then start) with key
 * k that holds [ts, end]: the latest start, then the earliest end.  The
 * last one of the key to start by ts is found by bisection, and those
 * before it looked at back to the first that holds the interval (and
 * those of its start).
 */
static const struct sstep *
inner(const struct sstep *v, size_t n, int bylane, int32_t k, int64_t ts,
    int64_t end)
{
	const struct sstep *best = NULL;
	size_t lo = 0, hi = n, mid;
	int32_t mk;

	while (lo < hi) {		/* the first after (k, ts) */
		mid = lo + (hi - lo) / 2;
		mk = bylane ? v[mid].lane : v[mid].pid;
		if (mk < k || (mk == k && v[mid].ts <= ts))
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo > 0 && (bylane ? v[lo - 1].lane : v[lo - 1].pid) == k; lo--) {
		if (best != NULL && v[lo - 1].ts < best->ts)
			break;
		if (v[lo - 1].end >= end &&
		    (best == NULL || v[lo - 1].end < best->end))
			best = &v[lo - 1];
	}
	return best;
}

/*
 * Without step annotations: the rounds of each rank, numbered from 1,
 * the knobs mct-phases' defaults.  The calls are freed.
 */
static void
cut_rounds(struct mct_stepof *f)
{
	static const struct mct_method m = { .min_rounds = 3, .min_share = 1,
	    .split = 5, .overlap = 80, .join = -1 };
	struct mct_step *v;
	size_t i, n;
	int r;

	for (r = 0; r < f->nrk; r++) {
		v = NULL;
		n = f->nstep > 0 || !f->mctracer ? 0 :
		    mct_runsum_rounds(&f->rk[r].rs, &m, &v);
		f->round = mct_xrealloc(f->round, (f->nround + n + 1) *
		    sizeof(*f->round));
		f->rk[r].r0 = f->nround;
		f->rk[r].nr = n;
		for (i = 0; i < n; i++) {
			f->round[f->nround].ts = v[i].ts;
			f->round[f->nround].end = v[i].end;
			f->round[f->nround++].n = (int64_t)i + 1;
		}
		free(v);
		mct_runsum_free(&f->rk[r].rs);
	}
}

/* The round of rank that holds ts: its N, or -1 if none. */
static int64_t
round_at(const struct mct_stepof *f, int64_t rank, int64_t ts)
{
	const struct mct_stack_step *v;
	size_t lo = 0, hi, mid;
	int r;

	for (r = 0; r < f->nrk && f->rk[r].rank != rank; r++)
		;
	if (r == f->nrk)
		return -1;
	v = f->round + f->rk[r].r0;
	hi = f->rk[r].nr;
	while (lo < hi) {		/* the first after ts */
		mid = lo + (hi - lo) / 2;
		if (v[mid].ts <= ts)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo > 0 && ts < v[lo - 1].end ? v[lo - 1].n : -1;
}

/*
 * The step of an interval: the innermost annotation of its lane that
 * holds it; with byproc, else of its process.  -1 if none.
 */
static int64_t
step_at(const struct mct_stepof *f, int32_t lane, int32_t pid, int64_t ts,
    int64_t end, int byproc)
{
	const struct sstep *s;

	s = inner(f->step, f->nstep, 1, lane, ts, end);
	if (s == NULL && byproc)
		s = inner(f->pstep, f->nstep, 0, pid, ts, end);
	return s ? s->n : -1;
}

/* The first question: the annotations sorted, else the rounds cut. */
static void
asked(struct mct_stepof *f)
{
	if (f->asked)
		return;
	f->asked = 1;
	f->pstep = mct_xmalloc((f->nstep + 1) * sizeof(*f->pstep));
	if (f->nstep > 0)
		memcpy(f->pstep, f->step, f->nstep * sizeof(*f->step));
	mct_sort(f->step, f->nstep, sizeof(*f->step), cmp_lane);
	mct_sort(f->pstep, f->nstep, sizeof(*f->pstep), cmp_pid);
	cut_rounds(f);
}

/*
 * After every event was seen: the rounds that are the steps of a trace
 * without step annotations (every rank's, each in time order), or 0.
 */
size_t
mct_stepof_rounds(struct mct_stepof *f, const struct mct_stack_step **v)
{
	asked(f);
	*v = f->round;
	return f->nround;
}

/* After every event was seen: the step N of what k says, or -1 if none. */
int64_t
mct_stepof_at(struct mct_stepof *f, const struct mct_stepkey *k)
{
	const struct slaunch *l;

	asked(f);
	if (f->nround > 0)
		return k->lane >= 0 ? round_at(f, k->rank, k->ts) : -1;
	if (k->corr >= 0) {
		if ((size_t)k->corr >= f->nlaunch ||
		    (l = &f->launch[k->corr])->lane < 0)
			return -1;	/* no launch: in no step */
		return step_at(f, l->lane, l->pid, l->ts, l->end, 1);
	}
	return k->lane >= 0 ? step_at(f, k->lane, k->pid, k->ts, k->end, 0) :
	    -1;
}

/* After every event was seen: the event's step N, or -1 if in none. */
int64_t
mct_stepof(struct mct_stepof *f, struct mct_event *ev)
{
	struct mct_stepkey k;

	mct_stepof_key(f, ev, &k);
	return mct_stepof_at(f, &k);
}
