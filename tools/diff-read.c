/*
 * diff-read.c - mct-diff's reading (mct-diff.c says how): a run, trace
 * or partial, into a group table of its own, and its summary.
 */
#include "config.h"

#include <err.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "mct.h"
#include "mct-diff.h"

#define FLOW_WINDOW	10000000000LL	/* mct-flow's default --window */

/*
 * Reading a run.
 */

/*
 * Is the operand a partial of mct-group?  Only a file can be looked at
 * first and read again; a pipe is read as events (and a partial there
 * refused when its first line comes).
 */
int
is_partial(const char *path)
{
	char buf[MCT_KIND_BYTES];
	ssize_t n;

	return (n = mct_src_head(path, buf, sizeof(buf))) > 0 &&
	    mct_src_kind(buf, (size_t)n, 1) == MCT_KIND_PARTIAL;
}

/* The spec every partial must have: this run's --by and --value. */
static void
spec(struct opts *o, struct mct_pspec *ps)
{
	int i;

	ps->nby = o->nby;
	ps->by = mct_xmalloc((size_t)(o->nby + 1) * sizeof(*ps->by));
	for (i = 0; i < o->nby; i++)
		ps->by[i] = mct_xstrdup(o->by[i].text);
	ps->value = mct_xstrdup(o->value.text);
	ps->set = 1;
}

int
read_partial(struct opts *o, struct run *r)
{
	int status;

	if (o->step) {
		warnx("%s: --step reads a trace, not a partial of mct-group",
		    r->name);
		exit(mct_finish(MCT_EXIT_USAGE));
	}
	r->partial = 1;
	spec(o, &r->ps);
	status = mct_partial_read(&r->t, &r->ps, r->path, o->limit);
	if (status == MCT_EXIT_USAGE)
		exit(mct_finish(MCT_EXIT_USAGE));
	r->has_origin = r->ps.has_origin;
	r->origin = r->ps.origin;
	return status;
}

/* Does --by name a field that mct-flow --stack adds? */
int
stack_by(const struct opts *o)
{
	static const char *const stackf[] = { "op", "module", "annotation",
	    "stack", "gpu_annotation", "step", NULL };
	int i, j;

	if (o->step)
		return 1;
	for (i = 0; i < o->nby; i++)
		for (j = 0; stackf[j]; j++)
			if (strcmp(o->by[i].text, stackf[j]) == 0)
				return 1;
	return 0;
}

/*
 * --step in a trace without step annotations: a pair of no step, held
 * (its line, and what its round is found by) until the rounds are cut.
 */
struct rheld {
	size_t		 off, len;	/* its line in heldlines */
	struct mct_stepkey k;
};

static void
hold(struct run *r, struct mct_event *ev)
{
	struct rheld *h;

	r->held = mct_xgrow(r->held, r->nheld, sizeof(*r->held));
	h = &r->held[r->nheld++];
	h->off = r->heldlines.len;
	h->len = ev->len;
	mct_buf_add(&r->heldlines, ev->json, ev->len);
	mct_stepof_key(r->so, ev, &h->k);
}

/* --step: the table of step n, made if new. */
static struct mct_gtab *
step_tab(struct run *r, int64_t n)
{
	size_t i;

	for (i = 0; i < r->nst; i++)
		if (r->st[i].n == n)
			return &r->st[i].t;
	r->st = mct_xrealloc(r->st, (r->nst + 1) * sizeof(*r->st));
	memset(&r->st[r->nst], 0, sizeof(*r->st));
	r->st[r->nst].n = n;
	r->st[r->nst].t.value = r->t.value;
	r->st[r->nst].t.hdr = r->t.hdr;
	return &r->st[r->nst++].t;
}

/* --step: the table of the pair's step, or NULL (a pair of no step). */
static struct mct_gtab *
step_table(struct opts *o, struct run *r, struct mct_event *ev)
{
	struct mct_val v;
	int64_t n;

	if (mct_get_key(ev, "step", &v) != 0 || v.type != MCT_J_NUMBER ||
	    mct_int(v.p, v.len, &n) != 0 || (o->step == STEP_N && n != o->stepn))
		return NULL;
	return step_tab(r, n);
}

/*
 * --step: where the trace has no step annotation, the held pairs into
 * the tables of the rounds (mct-phases') that hold their times.
 */
static void
held_rounds(struct opts *o, struct run *r, struct mct_seen *seen,
    const struct mct_stack *stk)
{
	const struct mct_stack_step *v;
	struct mct_event ev;
	size_t i;
	int64_t n;

	if (mct_stack_steps(stk, &v) == 0 && mct_stepof_rounds(r->so, &v) > 0)
		for (i = 0; i < r->nheld; i++) {
			n = mct_stepof_at(r->so, &r->held[i].k);
			if (n < 0 || (o->step == STEP_N && n != o->stepn))
				continue;
			mct_event_init(&ev, r->heldlines.p + r->held[i].off,
			    r->held[i].len, r->t.hdr);
			mct_seen_event(seen, &ev);
			mct_gtab_event(step_tab(r, n), &ev, o->by, o->nby, 1,
			    &o->kbuf);
			mct_event_free(&ev);
		}
	free(r->held);
	mct_buf_free(&r->heldlines);
	r->held = NULL;
	r->nheld = 0;
}

static int
cmp_steplen(const void *a, const void *b)
{
	const struct mct_stack_step *x = a, *y = b;

	if (x->end - x->ts != y->end - y->ts)
		return x->end - x->ts < y->end - y->ts ? -1 : 1;
	return x->n < y->n ? -1 : x->n > y->n;
}

/*
 * --step: the chosen step's table becomes the run's.  median is the
 * step at n/2 (from 0) of the n step annotations by length, as
 * mct-phases takes a median.  A step that is not there is a usage error.
 */
static void
step_pick(struct opts *o, struct run *r, const struct mct_stack *stk)
{
	const struct mct_stack_step *sv;
	struct mct_stack_step *by;
	int64_t n = o->stepn;
	size_t i, ns = mct_stack_steps(stk, &sv);
	int found = 0;

	if (ns == 0)		/* no annotation: the rounds, if any */
		ns = mct_stepof_rounds(r->so, &sv);

	if (o->step == STEP_MEDIAN) {
		if (ns == 0) {
			warnx("%s: no step annotation (%s#N): no median step",
			    r->name, o->stepname ? o->stepname :
			    "ProfilerStep");
			exit(mct_finish(MCT_EXIT_USAGE));
		}
		by = mct_xmalloc(ns * sizeof(*by));
		memcpy(by, sv, ns * sizeof(*by));
		mct_sort(by, ns, sizeof(*by), cmp_steplen);
		n = by[ns / 2].n;
		free(by);
		warnx("%s: the median step of %zu is %lld", r->name, ns,
		    (long long)n);
	}
	for (i = 0; i < ns; i++)
		found |= sv[i].n == n;
	for (i = 0; i < r->nst; i++) {
		if (r->st[i].n == n) {
			mct_gtab_merge(&r->t, &r->st[i].t);
			found = 1;
		}
		mct_gtab_free(&r->st[i].t);
	}
	free(r->st);
	r->st = NULL;
	r->nst = 0;
	if (!found) {
		warnx("%s: no step %lld", r->name, (long long)n);
		exit(mct_finish(MCT_EXIT_USAGE));
	}
}

/*
 * An event of the run into its table.  A pair (a device event with its
 * launch, from here or from mct-flow upstream) is kept without the
 * fields it lacks: a kernel whose launch is in no op is the null op's.
 */
static void
group(struct opts *o, struct run *r, struct mct_seen *seen,
    struct mct_event *ev, int dev, int missing)
{
	struct mct_gtab *t = &r->t;
	struct mct_val v;

	if (o->device && !dev)
		return;
	if (o->step && (t = step_table(o, r, ev)) == NULL) {
		if (mct_get_key(ev, "step", &v) != 0)
			hold(r, ev);	/* maybe in a round */
		return;
	}
	mct_seen_event(seen, ev);
	mct_gtab_event(t, ev, o->by, o->nby, missing, &o->kbuf);
}

/* The pairs whose stacks are known, into the table. */
static void
stack_drain(struct opts *o, struct run *r, struct mct_seen *seen,
    struct mct_stack *stk)
{
	struct mct_event ev;
	int rc;

	while ((rc = mct_stack_next(stk, &o->line, &o->fold)) == 1) {
		mct_event_init(&ev, o->line.p, o->line.len, r->t.hdr);
		group(o, r, seen, &ev, mct_device(&ev), 1);
		mct_event_free(&ev);
	}
	if (rc < 0)
		exit(mct_finish(MCT_EXIT_USAGE));
}

/*
 * --by op (module, annotation, stack) on a trace: its device events
 * paired with their launches and the launches' stacks, as mct-flow
 * --stack would (lib/flow.c, lib/stack.c), and the pairs grouped.
 */
static struct mct_stack *
stack_open(struct opts *o, struct run *r, struct mct_flow *fl)
{
	mct_flow_init(fl, r->t.hdr);
	fl->window = FLOW_WINDOW;
	if ((fl->stk = mct_stack_open(r->t.hdr->facts.sorted, fl->window)) == NULL)
		exit(mct_finish(MCT_EXIT_USAGE));
	if (o->stepname)
		mct_stack_step_name(fl->stk, o->stepname);
	return fl->stk;
}

/* The last pairs, and what could not be paired: 1 for unbalanced B/E. */
static int
stack_close(struct opts *o, struct run *r, struct mct_seen *seen,
    struct mct_flow *fl)
{
	struct mct_stack_counts c;
	struct mct_mapent *e;
	long long nolaunch = 0;
	size_t it = 0;

	mct_stack_end(fl->stk);
	stack_drain(o, r, seen, fl->stk);
	if (o->step) {
		held_rounds(o, r, seen, fl->stk);
		step_pick(o, r, fl->stk);
	}
	mct_stack_close(fl->stk, &c);
	while ((e = mct_map_next(&fl->corrs, &it)) != NULL)
		nolaunch += ((struct mct_corr *)e->val.p)->nwait;
	mct_flow_free(fl);
	if (nolaunch)
		warnx("%s: %lld device events without launch, in no row",
		    r->name, nolaunch);
	if (c.unbalanced)
		warnx("%s: %lld unbalanced B/E events (an E without its B, "
		    "or a B never ended)", r->name, c.unbalanced);
	if (c.deep)
		warnx("%s: %lld stacks deeper than 1000 frames, cut to their "
		    "outermost 1000", r->name, c.deep);
	return c.unbalanced ? MCT_EXIT_DAMAGED : MCT_EXIT_OK;
}

/* An event of a run --by a stack field. */
static void
stack_event(struct opts *o, struct run *r, struct mct_seen *seen,
    struct mct_flow *fl, struct mct_event *ev, int dev)
{
	struct mct_val v;

	if (mct_get_key(ev, "launch", &v) == 0) {	/* mct-flow's pair */
		group(o, r, seen, ev, dev, 1);
		return;
	}
	if (mct_flow_add(fl, ev, &o->fkey) < 0)
		exit(mct_finish(MCT_EXIT_USAGE));
	stack_drain(o, r, seen, fl->stk);
}

int
read_events(struct opts *o, struct run *r, const struct mct_opts *mo)
{
	char *argv[2] = { (char *)r->path, NULL };
	struct mct_seen seen = { 0 };
	struct mct_flow fl = { 0 };
	struct mct_reader *rd;
	struct mct_event *ev;
	const struct mct_header *h;
	int i, dev, first = 1, status = MCT_EXIT_OK;

	snprintf(r->what, sizeof(r->what), "--by (run %c)",
	    r == &o->run[0] ? 'A' : 'B');
	for (i = 0; i < o->nby; i++)
		mct_seen_add(&seen, &o->by[i], r->what);
	rd = mct_open(1, argv, mo);
	h = r->t.hdr = mct_header(rd);
	if (o->stack)
		stack_open(o, r, &fl);
	if (o->step)
		r->so = mct_stepof_new(o->stepname);
	while (mct_next(rd, &ev)) {
		if (first && mct_src_kind(ev->json, ev->len, 1) ==
		    MCT_KIND_PARTIAL) {
			warnx("%s: a partial of mct-group is read from a file, "
			    "not from a pipe", r->name);
			exit(mct_finish(MCT_EXIT_USAGE));
		}
		first = 0;
		if (mct_is_meta(ev))
			continue;
		r->events++;
		dev = mct_device(ev);
		mct_runsum_event(&r->rs, ev, dev);
		if (r->so != NULL)
			mct_stepof_see(r->so, ev);
		if (o->stack)
			stack_event(o, r, &seen, &fl, ev, dev);
		else
			group(o, r, &seen, ev, dev, 0);
	}
	if (o->stack)
		status = stack_close(o, r, &seen, &fl);
	mct_seen_end(&seen);
	mct_runsum_end(&r->rs, &o->m);
	r->has_origin = h->facts.has_origin;
	r->origin = h->facts.origin;
	if (h->nread == 0) {		/* said by the reader */
		mct_close(rd);
		exit(mct_finish(MCT_EXIT_USAGE));
	}
	r->t.hdr = NULL;		/* the reader's, gone with it */
	return mct_status(mct_close(rd), status);
}
