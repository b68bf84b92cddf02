/*
 * flow.c - device events joined to the host calls that launched them,
 * by correlation id (mct-flow's key mode; mct-diff --by op).
 *
 * A host call is remembered as a small struct in a map beside its id; a
 * device event whose host call has been seen is written at once (through
 * the caller's write function, or into the stack queue of lib/stack.c),
 * one that comes first waits (its line is kept) until the host call
 * arrives.  On a time-sorted input a host call is forgotten --window
 * after it ended, so memory stays bounded.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "mct.h"

#define FORGET_EVERY	65536	/* X events between forgetting */

/* What a struct mct_flow holds for itself (f->fs). */
struct mct_flowstate {
	struct mct_buf	 rtext;		/* a source's rank as text */
	int64_t		 last_ts;
	long long	 nadd;
	struct mct_flow_last {
		int32_t	 id;
		uint32_t len;		/* UINT32_MAX: none kept */
		char	 text[48];
	}		 last[4];
	struct mct_buf	 line;
};

void
mct_flow_init(struct mct_flow *f, const struct mct_header *hdr)
{
	int i;

	f->hdr = hdr;
	f->corrs.extra = sizeof(struct mct_corr);
	f->fs = mct_xmalloc(sizeof(*f->fs));
	memset(f->fs, 0, sizeof(*f->fs));
	for (i = 0; i < 4; i++)
		f->fs->last[i].len = UINT32_MAX;
}

/*
 * The text of the event's rank (mct_event_rank()), "null" if it has none;
 * a source's rank is written in f->fs->rtext.
 */
static void
rank_text(struct mct_flow *f, struct mct_event *ev, struct mct_val *v)
{
	int64_t rank;

	if (mct_event_rank(ev, f->hdr, &rank, v) < 0) {
		v->p = "null";
		v->len = 4;
	} else if (v->p == NULL) {
		f->fs->rtext.len = 0;
		mct_buf_addi(&f->fs->rtext, rank);
		v->p = f->fs->rtext.p;
		v->len = f->fs->rtext.len;
	}
}

/*
 * The host call's name, pid, tid or rank (MCT_FLOW_NAME, ...), interned
 * (a string in its one spelling, mct_jcanon()).
 * One launch after another comes from the same thread, mostly with the
 * same name: the text of the last one of each is kept, and a hit costs a
 * compare instead of a hash and a probe.
 */
int32_t
mct_flow_intern(struct mct_flow *f, struct mct_event *ev, int which)
{
	static const char *const keys[] = { "name", "pid", "tid", "rank" };
	struct mct_flow_last *l = &f->fs->last[which];
	struct mct_val v;

	if (which == MCT_FLOW_RANK)
		rank_text(f, ev, &v);
	else if (mct_get_key(ev, keys[which], &v) != 0) {
		v.p = "null";
		v.len = 4;
	}
	if (l->len == v.len && memcmp(l->text, v.p, v.len) == 0)
		return l->id;
	l->id = mct_intern_one(&f->st, v.p, v.len);	/* however spelt */
	l->len = v.len < sizeof(l->text) ? (uint32_t)v.len : UINT32_MAX;
	if (l->len != UINT32_MAX)
		memcpy(l->text, v.p, v.len);
	return l->id;
}

/*
 * Correlation ids, flow ids and pids repeat across the ranks of a job: a
 * key is the event's rank and \036, if it has one, then the rest.
 */
void
mct_flow_rank(struct mct_flow *f, struct mct_event *ev, struct mct_buf *k)
{
	struct mct_val v;

	rank_text(f, ev, &v);
	if (v.type == MCT_J_NUMBER) {
		mct_buf_add(k, v.p, v.len);
		mct_buf_addc(k, '\036');
	}
}

/* The event's correlation id as text in k (strings unquoted), or -1. */
int
mct_flow_key(struct mct_flow *f, struct mct_event *ev, struct mct_buf *k)
{
	struct mct_val a, v;

	k->len = 0;
	if (f->haskey) {
		if (mct_get(ev, &f->key, &v) != 0 || v.type == MCT_J_NULL)
			return -1;
	} else {
		static const char *const ids[] = { "co_id", "correlation",
		    NULL };
		struct mct_val id[2];
		uint32_t m;

		/* args.co_id, else args.correlation: one walk of args */
		if (mct_get_key(ev, "args", &a) != 0 || a.type != MCT_J_OBJECT ||
		    (m = mct_obj_keys(&a, ids, 0, id)) == 0)
			return -1;
		v = id[(m & 1) ? 0 : 1];
		if (v.type == MCT_J_NULL)
			return -1;
	}
	mct_flow_rank(f, ev, k);
	mct_jstr(&v, k);
	if (k->p == NULL)
		mct_buf_addc(k, '\0'), k->len = 0;
	/* ids over 255 bytes are not ids */
	return k->len > 255 ? -1 : 0;
}

/* The keys a pair gets: an event's own of these names are left out. */
static const char *const pair_keys[] = { "launch", "latency", "queue", NULL };

/*
 * A device event dev with its launch c, started at dts: written, or
 * queued for its stack.  -1 if the stack's queue failed (said).
 */
static int
pair(struct mct_flow *f, struct mct_event *dev, const struct mct_corr *c,
    int64_t dts)
{
	struct mct_buf *b = &f->fs->line;
	const char **s = f->st.str, *json = dev->json;
	size_t len = dev->len;
	struct mct_event ev;

	b->len = 0;
	mct_buf_add(b, json, len - 1);	/* without the closing brace */
	if (len > 2)
		mct_buf_addc(b, ',');
	mct_buf_adds(b, "\"launch\":{\"name\":");
	mct_buf_adds(b, s[c->name]);
	mct_buf_adds(b, ",\"ts\":");
	mct_buf_addi(b, c->ts);
	mct_buf_adds(b, ",\"dur\":");
	mct_buf_addi(b, c->dur);
	mct_buf_adds(b, ",\"pid\":");
	mct_buf_adds(b, s[c->pid]);
	mct_buf_adds(b, ",\"tid\":");
	mct_buf_adds(b, s[c->tid]);
	if (strcmp(s[c->rank], "null") != 0) {
		mct_buf_adds(b, ",\"rank\":");
		mct_buf_adds(b, s[c->rank]);
	}
	mct_buf_adds(b, "},\"latency\":");
	mct_buf_addi(b, dts - c->ts);
	mct_buf_adds(b, ",\"queue\":");
	mct_buf_addi(b, mct_sat_sub(dts - c->ts, c->dur));
	mct_buf_addc(b, '}');
	if (mct_event_has_key(dev, pair_keys))	/* (else none stands twice) */
		mct_keep_last(b, 0, pair_keys);	/* ours, not the event's own */
	f->pairs++;
	if (f->stk) {
		struct mct_launch l = { s[c->name], s[c->pid], s[c->tid],
		    c->ts, c->dur, c->ext, c->has_ext, dev };

		return mct_stack_pair(f->stk, b->p, b->len, &l);
	}
	mct_event_init(&ev, b->p, b->len, f->hdr);
	f->write(f->arg, &ev);
	mct_event_free(&ev);
	return 0;
}

/* pair() of a device event's line (json, len). */
int
mct_flow_pair(struct mct_flow *f, const char *json, size_t len,
    const struct mct_corr *c, int64_t dts)
{
	struct mct_event dev;
	int rc;

	mct_event_init(&dev, json, len, f->hdr);
	rc = pair(f, &dev, c, dts);
	mct_event_free(&dev);
	return rc;
}

/*
 * On a time-sorted input, forget the host calls that ended more than
 * --window before the latest start seen: memory stays bounded.  Those
 * that launched nothing go to nodev first.
 */
static void
forget(struct mct_flow *f)
{
	struct mct_mapent *e;
	struct mct_corr *c;
	size_t it = 0;

	while ((e = mct_map_next(&f->corrs, &it)) != NULL) {
		c = e->val.p;
		if (!c->has_host || c->nwait > 0 ||
		    c->ts + c->dur + f->window >= f->fs->last_ts)
			continue;
		if (c->ndev == 0 && f->nodev)
			f->nodev(f->arg, c, e);
		mct_map_del(&f->corrs, e);
	}
}

/* An X event starting at ts was read: forget now and then. */
static void
flow_time(struct mct_flow *f, int64_t ts)
{
	if (ts > f->fs->last_ts)
		f->fs->last_ts = ts;
	/* only on an input the header says is in time order */
	if (++f->fs->nadd % FORGET_EVERY == 0 && f->hdr->facts.sorted &&
	    f->window > 0)
		forget(f);
}

/* Is the event a host call (--host, else mct_host_call())? */
int
mct_flow_is_host(struct mct_flow *f, struct mct_event *ev)
{
	if (f->host)
		return mct_expr_eval(f->host, ev, f->hdr);
	return mct_host_call(ev);
}

/* The host call of the id k: its waiting device events are paired. */
static int
host(struct mct_flow *f, struct mct_event *ev, struct mct_corr *c,
    int64_t ts, int64_t dur)
{
	int i, rc = 0;

	if (c->has_host)
		return 0;	/* a second host call with the same id */
	c->has_host = 1;
	c->name = mct_flow_intern(f, ev, MCT_FLOW_NAME);
	c->pid = mct_flow_intern(f, ev, MCT_FLOW_PID);
	c->tid = mct_flow_intern(f, ev, MCT_FLOW_TID);
	c->rank = mct_flow_intern(f, ev, MCT_FLOW_RANK);
	c->ts = ts;
	c->dur = dur;
	if (f->stk)
		c->has_ext = mct_stack_ext(ev, &c->ext) == 0;
	for (i = 0; i < c->nwait; i++) {
		struct mct_event w;
		int64_t wts;

		mct_event_init(&w, c->wait[i], strlen(c->wait[i]), f->hdr);
		if (mct_get_ns(&w, "ts", &wts) == 0 &&
		    pair(f, &w, c, wts) != 0)
			rc = -1;
		c->ndev++;
		mct_event_free(&w);
		free(c->wait[i]);
	}
	free(c->wait);
	c->wait = NULL;
	c->nwait = 0;
	return rc;
}

/*
 * An X event at ts, dur whose id mct_flow_key() put in k: a host call
 * or a device event.  -1 if the stack's queue failed (said).
 */
static int
flow_event(struct mct_flow *f, struct mct_event *ev,
    const struct mct_buf *k, int64_t ts, int64_t dur)
{
	struct mct_corr *c;

	if (f->stk)
		mct_stack_time(f->stk, ts);
	/* the state lives in the map beside its key: no malloc per id */
	c = mct_map_add(&f->corrs, k->p, k->len, NULL)->val.p;
	if (mct_flow_is_host(f, ev))
		return host(f, ev, c, ts, dur);
	if (c->has_host) {
		c->ndev++;
		return pair(f, ev, c, ts);
	}
	if (c->nwait == UINT16_MAX) {
		mct_damage(ev, "more than %d device events wait for id %s; "
		    "this one is dropped", UINT16_MAX, k->p);
		return 0;
	}
	c->wait = mct_xrealloc(c->wait, (size_t)(c->nwait + 1) *
	    sizeof(*c->wait));
	c->wait[c->nwait] = mct_xmalloc(ev->len + 1);
	memcpy(c->wait[c->nwait], ev->json, ev->len);
	c->wait[c->nwait][ev->len] = '\0';
	c->nwait++;
	return 0;
}

/*
 * Any event: B/E go to the stack, an X with a correlation id is paired
 * or waits, one without is a host interval for the stack.  Returns
 * MCT_FLOW_KEYED, MCT_FLOW_NOKEY (an X without id, in the flow mode
 * of mct-flow a slice), 0 for anything else, -1 if the stack's queue
 * failed (said).
 */
int
mct_flow_add(struct mct_flow *f, struct mct_event *ev, struct mct_buf *k)
{
	struct mct_val ph;
	int64_t ts, dur;

	if (mct_get_key(ev, "ph", &ph) != 0 || ph.type != MCT_J_STRING)
		return 0;
	if (f->stk && (mct_jstr_eq(&ph, "B", 1) || mct_jstr_eq(&ph, "E", 1)))
		mct_stack_event(f->stk, ev);
	if (!mct_jstr_eq(&ph, "X", 1) || mct_get_ns(ev, "ts", &ts) != 0 ||
	    !MCT_SANE_NS(ts))
		return 0;
	if (mct_get_ns(ev, "dur", &dur) != 0 || !MCT_SANE_NS(dur))
		dur = 0;
	flow_time(f, ts);
	if (mct_flow_key(f, ev, k) != 0) {
		if (f->stk)	/* a host interval, maybe around a launch */
			mct_stack_event(f->stk, ev);
		return MCT_FLOW_NOKEY;
	}
	return flow_event(f, ev, k, ts, dur) != 0 ? -1 : MCT_FLOW_KEYED;
}

void
mct_flow_free(struct mct_flow *f)
{
	struct mct_mapent *e;
	struct mct_corr *c;
	size_t it = 0;
	int i;

	while ((e = mct_map_next(&f->corrs, &it)) != NULL) {
		c = e->val.p;
		for (i = 0; i < c->nwait; i++)
			free(c->wait[i]);
		free(c->wait);
	}
	mct_map_free(&f->corrs);
	mct_strtab_free(&f->st);
	mct_buf_free(&f->fs->line);
	mct_buf_free(&f->fs->rtext);
	free(f->fs);
	f->fs = NULL;
}
