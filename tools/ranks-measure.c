/*
 * ranks-measure.c - mct-ranks' reading and measuring (mct-ranks.c says
 * how): each device call kept under its rank, then each rank's calls
 * sorted, their unions and its steady rounds.
 */
#include "config.h"

#include <err.h>
#include <stdlib.h>
#include <string.h>

#include "mct.h"
#include "mct-ranks.h"

#define COMM_LABEL	"\"communication\""	/* as mct_category() gives it */

/*
 * Reading: add() keeps each device call under its rank.
 */

/*
 * The rank of an event (mct_event_rank()), else 0: a trace that does not
 * say its rank is a job of one rank.
 */
static int
rank_of(struct opts *o, struct mct_event *ev, int64_t *id)
{
	struct mct_val v;

	switch (mct_event_rank(ev, NULL, id, &v)) {
	case 1:
		mct_damage(ev, "rank is not an integer: %.*s",
		    (int)(v.len > 40 ? 40 : v.len), v.p);
		o->status = MCT_EXIT_DAMAGED;
		return -1;
	case -1:
		*id = 0;
	}
	return 0;
}

/* A rank not had yet (each of the partials' is in one partial only). */
struct rank *
rank_add(struct opts *o, int64_t id)
{
	struct rank *r;

	o->rk = mct_xgrow(o->rk, (size_t)o->nrk, sizeof(*o->rk));
	r = &o->rk[o->last = o->nrk++];
	memset(r, 0, sizeof(*r));
	r->id = id;
	return r;
}

static struct rank *
rank_get(struct opts *o, int64_t id)
{
	size_t i;

	if (o->last < o->nrk && o->rk[o->last].id == id)
		return &o->rk[o->last];
	for (i = 0; i < o->nrk; i++)
		if (o->rk[i].id == id)
			return &o->rk[o->last = i];
	return rank_add(o, id);
}

/* The texts of fields of the event, a space apart, interned. */
static int32_t
intern_of(struct opts *o, struct mct_event *ev, const struct mct_field *f,
    int nf)
{
	return mct_fields_intern(&o->st, ev, f, nf, &o->tmp);
}

/*
 * A partial among the traces (a line with no ph is the only place to
 * look): its ranks would be missing from the table without a word.
 */
static void
partial_in(struct opts *o, struct mct_event *ev)
{
	int kind = mct_src_kind(ev->json, ev->len, 1);

	if (kind != MCT_KIND_RANKS_PARTIAL && kind != MCT_KIND_PARTIAL)
		return;
	warnx("%s:%llu: a partial, not a trace: read partials with --merge "
	    "(and only partials)", ev->file, ev->where);
	o->partial_in = 1;
}

void
add(struct opts *o, struct mct_event *ev)
{
	struct mct_val ph;
	struct rank *r;
	struct mct_rcall *c;
	const char *cat;
	int64_t ts, dur, id;
	int lane;

	if (mct_get_key(ev, "ph", &ph) != 0) {
		partial_in(o, ev);
		return;
	}
	if (!mct_jstr_eq(&ph, "X", 1))
		return;
	/* most events are host calls, of no use here: no times read for them */
	lane = mct_device(ev);
	if (!lane && o->device == NULL && !mct_is_step(ev))
		return;
	if (mct_get_ns(ev, "ts", &ts) != 0 || !MCT_SANE_NS(ts))
		return;
	dur = mct_phase_dur(ev, ts);	/* as mct-phases takes it */
	/* the rounds, as mct-phases takes them */
	if (!lane && mct_is_step(ev) && rank_of(o, ev, &id) == 0)
		mct_steps_add(&rank_get(o, id)->steps, ts, dur);
	if (o->device ? !mct_expr_eval(o->device, ev, o->hdr) : !lane)
		return;
	if (rank_of(o, ev, &id) != 0)
		return;
	r = rank_get(o, id);
	if (r->n == r->cap) {
		r->cap = r->cap ? r->cap * 2 : 1024;
		r->call = mct_xrealloc(r->call, r->cap * sizeof(*r->call));
	}
	c = &r->call[r->n];
	c->seq = r->n++;
	c->c.ts = ts;
	c->c.dur = dur;
	c->c.sig = intern_of(o, ev, o->key, o->nkey);
	c->c.name = intern_of(o, ev, &o->namef, 1);
	cat = mct_category(ev, o->hdr);
	c->comm = cat != NULL && strcmp(cat, COMM_LABEL) == 0;
	c->mem = !c->comm && mct_device_memory(ev);
}

/*
 * Measuring: each rank's calls sorted, their unions (of all, of all but
 * communication, of communication, of copies and memsets, of the other
 * kernels: each class on its own, so time where two overlap is in both),
 * its steady rounds.
 */

/*
 * The rank's steady rounds, as mct-phases finds them in its calls, and
 * the median of their times (mct_rounds: a profiler step's own, else its
 * phase's span over its rounds).
 */
static void
rounds_of(struct opts *o, struct rank *r)
{
	struct mct_call *dev;
	size_t i;

	dev = mct_xmalloc((r->n + 1) * sizeof(*dev));
	for (i = 0; i < r->n; i++)
		dev[i] = r->call[i].c;
	r->hasround = mct_rounds(dev, r->n, (size_t)o->st.n, &o->m, r->start,
	    r->end, &r->steps, &r->rounds, &r->round, NULL, NULL);
	free(dev);
}

int
cmp_rank(const void *a, const void *b)
{
	const struct rank *x = a, *y = b;

	return x->id < y->id ? -1 : x->id > y->id;
}

/* Every rank's calls sorted and measured; the ranks in order. */
void
measure(struct opts *o)
{
	struct rank *r;
	size_t i, k;

	mct_sort(o->rk, o->nrk, sizeof(*o->rk), cmp_rank);
	for (i = 0; i < o->nrk; i++) {
		r = &o->rk[i];
		if (r->n == 0)		/* profiler steps, no device work */
			continue;	/* its figures stay 0 */
		mct_rcall_sort(r->call, r->n);
		r->start = r->call[0].c.ts;
		r->end = r->start;
		for (k = 0; k < r->n; k++)
			if (r->call[k].c.ts + r->call[k].c.dur > r->end)
				r->end = r->call[k].c.ts + r->call[k].c.dur;
		r->busy = mct_rcall_union(r->call, r->n, -1);
		r->compute = mct_rcall_union(r->call, r->n, 0);
		r->commt = mct_rcall_union(r->call, r->n, 1);
		r->memory = mct_rcall_union(r->call, r->n, 2);
		r->kernel = mct_rcall_union(r->call, r->n, 3);
		if (!o->collectives || o->partial)
			rounds_of(o, r);
	}
}
