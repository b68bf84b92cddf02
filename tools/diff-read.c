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
	    "stack", NULL };
	int i, j;

	for (i = 0; i < o->nby; i++)
		for (j = 0; stackf[j]; j++)
			if (strcmp(o->by[i].text, stackf[j]) == 0)
				return 1;
	return 0;
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
	if (o->device && !dev)
		return;
	mct_seen_event(seen, ev);
	mct_gtab_event(&r->t, ev, o->by, o->nby, missing, &o->kbuf);
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
stack_open(struct run *r, struct mct_flow *fl)
{
	mct_flow_init(fl, r->t.hdr);
	fl->window = FLOW_WINDOW;
	if ((fl->stk = mct_stack_open(r->t.hdr->facts.sorted, fl->window)) == NULL)
		exit(mct_finish(MCT_EXIT_USAGE));
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
		stack_open(r, &fl);
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
