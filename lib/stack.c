/*
 * stack.c - what the host was doing at each launch (mct-flow --stack).
 *
 * The host intervals of every thread (X events, and B/E pairs) are kept
 * as small structs by pid/tid (a lane).  A pair (the device event with
 * its launch, as mct-flow writes it) waits in a queue until its stack is
 * known, then comes back with stack, op, annotation and module added.
 *
 * On a time-sorted input a pair's stack is known as soon as an event
 * starts after its launch ended: every interval that starts before the
 * launch, and every E before its end, has been read.  Intervals that
 * ended --window before the latest start are forgotten, as mct-flow
 * forgets host calls, so memory stays bounded.  On any other input
 * everything is kept (a few words an interval, the pairs' lines in a
 * temporary file) and the stacks are found at the end, lane by lane, in
 * one sweep over intervals and launches sorted by start.
 *
 * Two members come from elsewhere than the launch's lane: step, the N of
 * the innermost step NAME#N around the launch (ProfilerStep by default;
 * an X event of any cat but the GPU's, as mct_is_step_n() says; on the
 * launch's thread, else on its process, as annotation),
 * and gpu_annotation, the innermost gpu_user_annotation of the device
 * event's own lane (its stream) that holds the device event.
 *
 * A backward op (a cpu_op whose args."Fwd thread id" is not 0) was caused
 * by the forward op of its process with the same args."Sequence number"
 * (and no Fwd thread id, or 0), the latest one that started by its start.
 * A launch whose own stack has no step, inside a backward op whose forward
 * op is known, has the forward op's stack before its own, then BWDSEP:
 * the forward side's step and module stand where its own have none (its
 * annotation stays the one of its own time: "## backward ##", not the
 * forward's).  Only a small struct per forward sequence number is kept:
 * the forward stack as a node of a tree of frames, its step and module.
 */
#include "config.h"

#include <err.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mct.h"

#define MAXDEPTH	1000	/* frames written; deeper stacks are cut */
#define PRUNE_EVERY	65536	/* events between forgetting (sorted input) */
#define BWDSEP		"\"(backward)\""	/* between forward and backward frames */

enum { K_OTHER, K_OP, K_ANNOT, K_MODULE, K_GPUANN, K_BWD };

/* A host interval; an open B ends at INT64_MAX until its E. */
struct iv {
	int64_t		 ts, end;
	int32_t		 name;		/* interned JSON text */
	int32_t		 pid;		/* interned: annotations of the process */
	uint32_t	 seq;		/* input order, to break ties */
	uint8_t		 kind, open;
	uint8_t		 step;		/* a step NAME#N (mct_is_step_n) */
};

struct lane {
	struct iv	*v;
	size_t		 n, cap, prune_at;
	int32_t		 pid;
};

/* A pair waiting for its stack. */
struct pend {
	int32_t		 lane, pid, lname;
	int64_t		 ts, end, ext;
	int		 has_ext;
	int		 under;		/* --under: a frame matches */
	int		 own;		/* the line has a key of stack_keys */
	int32_t		 dlane;		/* the device event's lane */
	int64_t		 dts, dend;	/* the device event's interval */
	long long	 off, roff;	/* its line; its stack (unsorted) */
	size_t		 len, rlen, flen;	/* the line, members, folded */
};

/* The op an External id names. */
struct extop {
	int64_t		 end;
	int32_t		 name;
};

/* A forward op's stack, as a backward op's launches continue it. */
struct fwd {
	int64_t		 ts, end, step;	/* in bwmap end is the backward op's */
	uint32_t	 seq;
	int32_t		 node;		/* its frames: a node of s->nodes */
	int32_t		 mod;		/* or -1 */
	int		 hasstep;
};

/* A frame of the tree of forward stacks: its name under its parent. */
struct node {
	int32_t		 parent, name;
};

/* A forward or a backward op whose link is not made yet. */
struct fop {
	int64_t		 ts, end, sn;
	int32_t		 lane, pid;
	uint32_t	 seq;
	int		 bwd;
};

struct mct_stack {
	int		 sorted, ended, swept;
	int64_t		 window, last;
	uint32_t	 seq;
	long long	 nev;
	struct mct_strtab st;		/* names, pids, lanes' keys */
	struct mct_map	 lanemap;	/* pid \037 tid -> lane index */
	struct lane	*lanes;
	size_t		 nlanes;
	struct iv	*ann;		/* annotations of every lane */
	size_t		 nann, anncap;
	struct mct_map	 ext;		/* pid \037 External id -> struct extop */
	struct pend	*q;		/* the queue, FIFO */
	size_t		 qhead, qn, qcap;
	struct mct_buf	 held;		/* sorted: the waiting lines */
	FILE		*spool, *rspool;	/* unsorted: lines, stacks */
	char		*spoolvb, *rspoolvb;	/* their buffers */
	long long	 spoolend, rspoolend;	/* bytes written to them */
	long long	 spoolout, rspoolout;	/* of which out of the buffer */
	struct mct_buf	 key, tmp, res, fold;
	struct iv	*fr;		/* scratch: one stack's frames */
	size_t		 frcap;
	struct mct_stack_counts c;
	const char	*stepname;	/* NAME of NAME#N */
	const char	*under;		/* a frame's name must match, or NULL */
	int		 isunder;	/* frames(): one does */
	struct mct_stack_step *steps;		/* the steps seen, by first sight */
	size_t		 nsteps, stepcap;
	struct fop	*fops;		/* sorted: waiting; else all of them */
	size_t		 nfops, fopcap;
	struct mct_map	 fwmap;		/* pid \037 Sequence number -> struct fwd */
	struct mct_map	 bwmap;		/* a backward op's seq -> struct fwd */
	struct mct_map	 nodemap;	/* parent, name -> index in nodes */
	struct node	*nodes;
	size_t		 nnodes, nodecap;
	int32_t		*path;		/* scratch: a forward stack's names */
	size_t		 pathcap;
};

struct mct_stack *
mct_stack_open(int sorted, int64_t window)
{
	struct mct_stack *s = mct_xmalloc(sizeof(*s));

	memset(s, 0, sizeof(*s));
	s->sorted = sorted;
	s->window = window;
	s->last = INT64_MIN;
	s->ext.extra = sizeof(struct extop);
	s->fwmap.extra = s->bwmap.extra = sizeof(struct fwd);
	s->stepname = "ProfilerStep";
	if (!sorted && ((s->spool = mct_tmpfile(NULL, &s->spoolvb)) == NULL ||
	    (s->rspool = mct_tmpfile(NULL, &s->rspoolvb)) == NULL)) {
		mct_stack_close(s, NULL);
		return NULL;
	}
	return s;
}

/* The annotations NAME#N that are steps (ProfilerStep by default). */
void
mct_stack_step_name(struct mct_stack *s, const char *name)
{
	s->stepname = name;
}

/* Only the pairs with a frame whose name matches the glob (NULL: all). */
void
mct_stack_under(struct mct_stack *s, const char *glob)
{
	s->under = glob;
}

/* The steps seen so far (annotations NAME#N, X events), first sight first. */
size_t
mct_stack_steps(const struct mct_stack *s, const struct mct_stack_step **v)
{
	*v = s->steps;
	return s->nsteps;
}

/* Is the interned JSON text a step, "NAME#N" decoded?  Its N in *n. */
static int
step_of(const struct mct_stack *s, int32_t name, int64_t *n)
{
	struct mct_val v;

	v.p = s->st.str[name];
	if (v.p[0] != '"')
		return 0;
	v.type = MCT_J_STRING;
	v.len = mct_strtab_len(&s->st, name);
	return mct_is_step_of(&v, s->stepname, n);
}

/* A step annotation seen: the first of each N is kept. */
static void
step_add(struct mct_stack *s, const struct iv *iv)
{
	int64_t n;
	size_t i;

	if (!iv->step || !step_of(s, iv->name, &n))
		return;
	for (i = 0; i < s->nsteps; i++)
		if (s->steps[i].n == n)
			return;
	if (s->nsteps == s->stepcap) {
		s->stepcap = s->stepcap ? 2 * s->stepcap : 16;
		s->steps = mct_xrealloc(s->steps,
		    s->stepcap * sizeof(*s->steps));
	}
	s->steps[s->nsteps].n = n;
	s->steps[s->nsteps].ts = iv->ts;
	s->steps[s->nsteps++].end = iv->end;
}

static int32_t
intern_val(struct mct_stack *s, struct mct_event *ev, const char *key)
{
	struct mct_val v;

	if (mct_get_key(ev, key, &v) != 0)
		return mct_intern(&s->st, "null", 4);
	return mct_intern_one(&s->st, v.p, v.len);	/* however spelt */
}

/* The lane of a pid and tid (their JSON texts). */
static int32_t
lane_of(struct mct_stack *s, const char *pid, size_t np, const char *tid,
    size_t nt)
{
	struct mct_mapent *e;
	int isnew;

	s->key.len = 0;
	mct_buf_add(&s->key, pid, np);
	mct_buf_addc(&s->key, '\037');
	mct_buf_add(&s->key, tid, nt);
	e = mct_map_add(&s->lanemap, s->key.p, s->key.len, &isnew);
	if (isnew) {
		s->lanes = mct_xrealloc(s->lanes,
		    (s->nlanes + 1) * sizeof(*s->lanes));
		memset(&s->lanes[s->nlanes], 0, sizeof(*s->lanes));
		s->lanes[s->nlanes].pid = mct_intern(&s->st, pid, np);
		s->lanes[s->nlanes].prune_at = 64;
		e->val.i = (int64_t)s->nlanes++;
	}
	return (int32_t)e->val.i;
}

static int32_t
ev_lane(struct mct_stack *s, struct mct_event *ev)
{
	struct mct_val pid, tid;

	if (mct_get_key(ev, "pid", &pid) != 0)
		pid.p = "null", pid.len = 4;
	if (mct_get_key(ev, "tid", &tid) != 0)
		tid.p = "null", tid.len = 4;
	return lane_of(s, pid.p, pid.len, tid.p, tid.len);
}

/* An integer member (its field parsed into *f the first time): 0, or -1. */
static int
arg_int(struct mct_event *ev, struct mct_field *f, const char *text,
    int64_t *n)
{
	struct mct_val v;

	if (f->text == NULL && mct_field_parse(text, f) != 0)
		return -1;
	if (mct_get(ev, f, &v) != 0 || v.type != MCT_J_NUMBER)
		return -1;
	return mct_int(v.p, v.len, n);
}

/* args."External id" as an integer: Kineto's link of launch to op. */
int
mct_stack_ext(struct mct_event *ev, int64_t *ext)
{
	static struct mct_field f;

	return arg_int(ev, &f, "args.\"External id\"", ext);
}

/* The integer value i of mct_obj_keys() (found: bit i of m): 0, or -1. */
static int
val_int(uint32_t m, int i, const struct mct_val *v, int64_t *n)
{
	if (!(m >> i & 1) || v[i].type != MCT_J_NUMBER)
		return -1;
	return mct_int(v[i].p, v[i].len, n);
}

/* An op's args, as mct_stack_event() reads them (OP_*: op_keys[]). */
enum { OP_SEQ, OP_FWD, OP_EXT };
static const char *const op_keys[] = { "Sequence number", "Fwd thread id",
    "External id", NULL };

/*
 * An op's args."Sequence number" in *sn: 1 for a backward op (its "Fwd
 * thread id" is not 0), 0 for a forward one, -1 if it has none.  Its args
 * a, m the set found.
 */
static int
seq_of(uint32_t m, const struct mct_val *a, int64_t *sn)
{
	int64_t t;

	if (val_int(m, OP_SEQ, a, sn) != 0)
		return -1;
	return val_int(m, OP_FWD, a, &t) == 0 && t != 0;
}

static int
kind(struct mct_event *ev)
{
	struct mct_val cat, name;

	if (mct_get_key(ev, "cat", &cat) != 0 || cat.type != MCT_J_STRING)
		return K_OTHER;
	if (mct_jstr_eq(&cat, "cpu_op", 6) || mct_jstr_eq(&cat, "Operator", 8))
		return K_OP;
	if (mct_jstr_eq(&cat, "user_annotation", 15))
		return K_ANNOT;
	if (mct_jstr_eq(&cat, "gpu_user_annotation", 19))
		return K_GPUANN;
	if (mct_jstr_eq(&cat, "python_function", 15) &&
	    mct_get_key(ev, "name", &name) == 0 && name.len > 13 &&
	    mct_jstr_prefix(&name, "nn.Module: ", 11))
		return K_MODULE;
	return K_OTHER;
}

/* The horizon: intervals that ended before it can enclose no launch. */
static int64_t
horizon(const struct mct_stack *s)
{
	int64_t h;
	size_t i;

	if (s->window <= 0 || s->last == INT64_MIN ||
	    __builtin_sub_overflow(s->last, s->window, &h))
		return INT64_MIN;
	for (i = s->qhead; i < s->qn; i++)
		if (s->q[i].ts < h)
			h = s->q[i].ts;
	for (i = 0; i < s->nfops; i++)
		if (s->fops[i].ts < h)
			h = s->fops[i].ts;
	return h;
}

/* Forget a lane's closed intervals that ended before the horizon. */
static void
prune_lane(struct lane *l, int64_t h)
{
	size_t i, j;

	for (i = j = 0; i < l->n; i++)
		if (l->v[i].open || l->v[i].end >= h)
			l->v[j++] = l->v[i];
	l->n = j;
	l->prune_at = 2 * j + 64;
}

/* Sorted input: forget annotations and External ids behind the horizon. */
static void
prune(struct mct_stack *s)
{
	struct mct_mapent *e;
	int64_t h = horizon(s);
	size_t i, j, it = 0;

	if (h == INT64_MIN)
		return;
	for (i = j = 0; i < s->nann; i++)
		if (s->ann[i].end >= h)
			s->ann[j++] = s->ann[i];
	s->nann = j;
	while ((e = mct_map_next(&s->ext, &it)) != NULL)
		if (((struct extop *)e->val.p)->end < h)
			mct_map_del(&s->ext, e);
	it = 0;
	while ((e = mct_map_next(&s->bwmap, &it)) != NULL)
		if (((struct fwd *)e->val.p)->end < h)
			mct_map_del(&s->bwmap, e);
	for (i = 0; i < s->nlanes; i++)
		prune_lane(&s->lanes[i], h);
}

void
mct_stack_time(struct mct_stack *s, int64_t ts)
{
	if (ts > s->last)
		s->last = ts;
}

/* An op with a Sequence number waits to be linked (backward: made K_BWD). */
static void
fop_add(struct mct_stack *s, uint32_t m, const struct mct_val *a,
    struct iv *iv, int32_t ln)
{
	struct fop *f;
	int64_t sn;
	int b;

	if ((b = seq_of(m, a, &sn)) < 0)
		return;
	if (b)
		iv->kind = K_BWD;
	if (s->nfops == s->fopcap) {
		s->fopcap = s->fopcap ? 2 * s->fopcap : 64;
		s->fops = mct_xrealloc(s->fops, s->fopcap * sizeof(*s->fops));
	}
	f = &s->fops[s->nfops++];
	f->ts = iv->ts;
	f->end = iv->end;
	f->sn = sn;
	f->lane = ln;
	f->pid = iv->pid;
	f->seq = iv->seq;
	f->bwd = b;
}

static void fops_drain(struct mct_stack *, int);

/* An op's External id: the op a launch of that id names. */
static void
ext_add(struct mct_stack *s, struct mct_event *ev, const struct iv *iv,
    int64_t ext)
{
	struct extop *x;
	struct mct_val pid;

	if (mct_get_key(ev, "pid", &pid) != 0)
		pid.p = "null", pid.len = 4;
	s->key.len = 0;
	mct_buf_add(&s->key, pid.p, pid.len);
	mct_buf_addc(&s->key, '\037');
	mct_buf_addi(&s->key, ext);
	x = mct_map_add(&s->ext, s->key.p, s->key.len, NULL)->val.p;
	x->end = iv->end;
	x->name = iv->name;
}

/*
 * A host interval: an X event (the tool passes those that are not
 * launches or device work), or a B or an E.  An E closes the latest open
 * B of its lane; one with none is counted.
 */
void
mct_stack_event(struct mct_stack *s, struct mct_event *ev)
{
	struct mct_val ph;
	struct lane *l;
	struct iv *iv;
	int64_t ts, dur, ext, sn;
	int32_t ln;
	size_t i;

	if (mct_get_key(ev, "ph", &ph) != 0 || ph.type != MCT_J_STRING ||
	    mct_get_ns(ev, "ts", &ts) != 0 || !MCT_SANE_NS(ts))
		return;
	mct_stack_time(s, ts);
	ln = ev_lane(s, ev);
	l = &s->lanes[ln];
	if (mct_jstr_eq(&ph, "E", 1)) {
		for (i = l->n; i > 0; i--)
			if (l->v[i - 1].open) {
				l->v[i - 1].open = 0;
				l->v[i - 1].end = ts;
				return;
			}
		s->c.unbalanced++;
		return;
	}
	if (l->n == l->cap) {
		l->cap = l->cap ? 2 * l->cap : 16;
		l->v = mct_xrealloc(l->v, l->cap * sizeof(*l->v));
	}
	iv = &l->v[l->n++];
	iv->ts = ts;
	iv->seq = s->seq++;
	iv->pid = l->pid;
	iv->name = intern_val(s, ev, "name");
	iv->kind = (uint8_t)kind(ev);
	iv->open = mct_jstr_eq(&ph, "B", 1);
	iv->step = (uint8_t)mct_is_step_n(ev, s->stepname, &sn);
	if (iv->open)
		iv->end = INT64_MAX;
	else if (mct_get_ns(ev, "dur", &dur) != 0 || !MCT_SANE_NS(dur) ||
	    dur < 0)
		iv->end = ts;
	else
		iv->end = ts + dur;
	/*
	 * The annotations, for a thread without any of its own (a backward
	 * thread); with them the steps of any other cat (early Kineto wrote
	 * ProfilerStep#N as an Operator), for the step alone.
	 */
	if ((iv->kind == K_ANNOT || iv->step) && !iv->open) {
		if (s->nann == s->anncap) {
			s->anncap = s->anncap ? 2 * s->anncap : 64;
			s->ann = mct_xrealloc(s->ann, s->anncap * sizeof(*s->ann));
		}
		s->ann[s->nann++] = *iv;
		step_add(s, iv);
	}
	if (iv->kind == K_OP) {
		/* its args of op_keys (an open one's External id): one walk */
		struct mct_val args, a[3];
		uint32_t m = 0;
		int from = iv->open ? OP_EXT : 0;

		if (mct_get_key(ev, "args", &args) == 0)
			m = mct_obj_keys(&args, op_keys + from, 0, a + from) <<
			    from;
		if (!iv->open)
			fop_add(s, m, a, iv, ln);	/* maybe made K_BWD */
		if (val_int(m, OP_EXT, a, &ext) == 0)
			ext_add(s, ev, iv, ext);
	}
	if (s->sorted)
		fops_drain(s, 0);
	if (s->sorted && ++s->nev % PRUNE_EVERY == 0)
		prune(s);
	else if (s->sorted && l->n >= l->prune_at)
		prune_lane(l, horizon(s));
}

/* The keys a pair may get here: an event's own of these are left out. */
static const char *const stack_keys[] = { "stack", "op", "annotation",
    "module", "gpu_annotation", "step", NULL };

/*
 * The device event's lane and interval, and whether it has a key of its
 * own that a pair gets here: from the pair's line, or the device event
 * it was made of (the same keys but launch, latency and queue).
 */
static void
dev_of(struct mct_stack *s, struct pend *p, struct mct_event *ev)
{
	struct mct_val pid, tid;
	int64_t dur;

	p->dlane = -1;
	if (mct_get_key(ev, "pid", &pid) == 0 &&
	    mct_get_key(ev, "tid", &tid) == 0 &&
	    mct_get_ns(ev, "ts", &p->dts) == 0 && MCT_SANE_NS(p->dts)) {
		if (mct_get_ns(ev, "dur", &dur) != 0 || !MCT_SANE_NS(dur) ||
		    dur < 0)
			dur = 0;
		p->dend = p->dts + dur;
		p->dlane = lane_of(s, pid.p, pid.len, tid.p, tid.len);
	}
	p->own = mct_event_has_key(ev, stack_keys);
}

/*
 * A pair, as mct-flow would write it, waits for its launch's stack.
 * Returns -1 if the temporary file cannot be written.
 */
int
mct_stack_pair(struct mct_stack *s, const char *json, size_t len,
    const struct mct_launch *L)
{
	struct pend *p;

	if (s->qhead == s->qn)
		s->qhead = s->qn = 0, s->held.len = 0;
	if (s->qn == s->qcap) {
		s->qcap = s->qcap ? 2 * s->qcap : 64;
		s->q = mct_xrealloc(s->q, s->qcap * sizeof(*s->q));
	}
	p = &s->q[s->qn++];
	memset(p, 0, sizeof(*p));
	p->lane = lane_of(s, L->pid, strlen(L->pid), L->tid, strlen(L->tid));
	p->pid = s->lanes[p->lane].pid;
	p->lname = mct_intern(&s->st, L->name, strlen(L->name));
	p->ts = L->ts;
	p->end = L->dur > 0 ? L->ts + L->dur : L->ts;
	p->ext = L->ext;
	p->has_ext = L->has_ext;
	p->len = len;
	if (L->dev != NULL)
		dev_of(s, p, L->dev);
	else {
		struct mct_event ev;

		mct_event_init(&ev, json, len, NULL);
		dev_of(s, p, &ev);
		mct_event_free(&ev);
	}
	if (s->sorted) {
		p->off = (long long)s->held.len;
		mct_buf_add(&s->held, json, len);
		return 0;
	}
	p->off = s->spoolend;
	if (fwrite(json, 1, len, s->spool) != len) {
		warn("stack spool");
		return -1;
	}
	s->spoolend += (long long)len;
	return 0;
}

static int
cmp_frame(const void *a, const void *b)
{
	const struct iv *x = a, *y = b;

	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	if (x->end != y->end)
		return x->end > y->end ? -1 : 1;	/* outer first */
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* Add a JSON string's text to the folded line, ; made : (the separator). */
static void
fold_add(struct mct_stack *s, int32_t name)
{
	struct mct_val v = { MCT_J_STRING, s->st.str[name],
	    strlen(s->st.str[name]) };
	size_t i, from = s->fold.len;

	if (v.p[0] != '"')
		mct_buf_add(&s->fold, v.p, v.len);
	else
		mct_jstr(&v, &s->fold);
	for (i = from; i < s->fold.len; i++)
		if (s->fold.p[i] == ';' || s->fold.p[i] == '\n')
			s->fold.p[i] = s->fold.p[i] == ';' ? ':' : ' ';
}

static void
member(struct mct_buf *b, const char *key, const char *json)
{
	mct_buf_adds(b, ",\"");
	mct_buf_adds(b, key);
	mct_buf_adds(b, "\":");
	mct_buf_adds(b, json);
}

/*
 * The innermost annotation of pid that holds [ts, end] (a step, its N in
 * *n, if steps): its name, or -1.
 */
static int32_t
proc_ann(const struct mct_stack *s, int32_t pid, int64_t ts, int64_t end,
    int steps, int64_t *n)
{
	const struct iv *best = NULL;
	size_t i;

	for (i = 0; i < s->nann; i++) {
		const struct iv *a = &s->ann[i];

		if (a->pid != pid || a->ts > ts || a->end < end ||
		    (steps && !a->step) ||
		    (!steps && a->kind != K_ANNOT))
			continue;
		if (best == NULL || cmp_frame(a, best) > 0)
			best = a;
	}
	if (best && steps)
		step_of(s, best->name, n);
	return best ? best->name : -1;
}

/* The innermost gpu_user_annotation of the device event's lane around it. */
static int32_t
gpu_ann(const struct mct_stack *s, const struct pend *p)
{
	const struct iv *best = NULL;
	const struct lane *l;
	size_t i;

	if (p->dlane < 0)
		return -1;
	l = &s->lanes[p->dlane];
	for (i = 0; i < l->n; i++) {
		const struct iv *a = &l->v[i];

		if (a->kind != K_GPUANN || a->ts > p->dts || a->end < p->dend)
			continue;
		if (best == NULL || cmp_frame(a, best) > 0)
			best = a;
	}
	return best ? best->name : -1;
}

/* --under: does an interned name match the glob? */
static int
name_under(struct mct_stack *s, int32_t name)
{
	struct mct_val v;

	v.p = s->st.str[name];
	v.len = strlen(v.p);
	v.type = v.p[0] == '"' ? MCT_J_STRING : MCT_J_NUMBER;
	s->key.len = 0;
	mct_jstr(&v, &s->key);
	mct_buf_addc(&s->key, '\0');
	return fnmatch(s->under, s->key.p, 0) == 0;
}

/* The intervals of v that hold [ts, end], outermost first, in s->fr. */
static size_t
collect(struct mct_stack *s, const struct iv *v, size_t n, int64_t ts,
    int64_t end)
{
	size_t i, nf = 0;

	for (i = 0; i < n; i++) {
		if (v[i].ts > ts || v[i].end < end)
			continue;
		if (nf == s->frcap) {
			s->frcap = s->frcap ? 2 * s->frcap : 64;
			s->fr = mct_xrealloc(s->fr, s->frcap * sizeof(*s->fr));
		}
		s->fr[nf++] = v[i];
	}
	mct_sort(s->fr, nf, sizeof(*s->fr), cmp_frame);
	return nf;
}

/* What the frames give: the innermost op, annotation, module and step. */
struct memb {
	int32_t		 op, ann, mod;
	int64_t		 step;
	int		 hasstep;
};

static void
inner(const struct mct_stack *s, const struct iv *fr, size_t nf,
    struct memb *m)
{
	size_t i;

	m->op = m->ann = m->mod = -1;
	m->step = 0;
	m->hasstep = 0;
	for (i = nf; i > 0; i--) {	/* innermost first */
		const struct iv *f = &fr[i - 1];

		if ((f->kind == K_OP || f->kind == K_BWD) && m->op < 0)
			m->op = f->name;
		else if (f->kind == K_ANNOT && m->ann < 0)
			m->ann = f->name;
		else if (f->kind == K_MODULE && m->mod < 0)
			m->mod = f->name;
		if (f->step && !m->hasstep)
			m->hasstep = step_of(s, f->name, &m->step);
	}
}

/* The node of the tree of forward stacks for fr, outermost first; -1: none. */
static int32_t
node_of(struct mct_stack *s, const struct iv *fr, size_t nf)
{
	struct mct_mapent *e;
	int32_t k[2], cur = -1;
	size_t i;
	int isnew;

	for (i = 0; i < nf && i < MAXDEPTH; i++) {
		k[0] = cur;
		k[1] = fr[i].name;
		e = mct_map_add(&s->nodemap, k, sizeof(k), &isnew);
		if (isnew) {
			if (s->nnodes == s->nodecap) {
				s->nodecap = s->nodecap ? 2 * s->nodecap : 256;
				s->nodes = mct_xrealloc(s->nodes,
				    s->nodecap * sizeof(*s->nodes));
			}
			s->nodes[s->nnodes].parent = cur;
			s->nodes[s->nnodes].name = fr[i].name;
			e->val.i = (int64_t)s->nnodes++;
		}
		cur = (int32_t)e->val.i;
	}
	return cur;
}

/* A forward op's stack from the intervals that may enclose it. */
static void
fwd_make(struct mct_stack *s, const struct fop *f, const struct iv *v,
    size_t n, struct fwd *w)
{
	size_t nf = collect(s, v, n, f->ts, f->end);
	struct memb m;

	inner(s, s->fr, nf, &m);
	w->ts = f->ts;
	w->end = f->end;
	w->seq = f->seq;
	w->node = node_of(s, s->fr, nf);
	w->mod = m.mod;
	w->step = m.step;
	w->hasstep = m.hasstep;
	if (!w->hasstep && s->nsteps > 0)
		w->hasstep = proc_ann(s, f->pid, f->ts, f->end, 1,
		    &w->step) >= 0;
}

/* The key of a pid and a Sequence number in s->key. */
static void
fop_key(struct mct_stack *s, const struct fop *f)
{
	s->key.len = 0;
	mct_buf_adds(&s->key, s->st.str[f->pid]);
	mct_buf_addc(&s->key, '\037');
	mct_buf_addi(&s->key, f->sn);
}

/* A forward op is known: the latest start of its number wins (inner on ties). */
static void
fwd_put(struct mct_stack *s, const struct fop *f, const struct fwd *w)
{
	struct fwd *o;
	int isnew;

	fop_key(s, f);
	o = mct_map_add(&s->fwmap, s->key.p, s->key.len, &isnew)->val.p;
	if (isnew || w->ts > o->ts || (w->ts == o->ts && (w->end < o->end ||
	    (w->end == o->end && w->seq > o->seq))))
		*o = *w;
}

/* A backward op: its forward op, if one started by its start; end: its own. */
static void
bwd_link(struct mct_stack *s, const struct fop *f)
{
	struct mct_mapent *e;
	struct fwd *w;

	fop_key(s, f);
	if ((e = mct_map_find(&s->fwmap, s->key.p, s->key.len)) == NULL ||
	    ((struct fwd *)e->val.p)->ts > f->ts)
		return;
	w = mct_map_add(&s->bwmap, &f->seq, sizeof(f->seq), NULL)->val.p;
	*w = *(struct fwd *)e->val.p;
	w->end = f->end;
}

static int
cmp_fop_time(const void *a, const void *b, void *arg)
{
	const struct fop *q = arg;
	const struct fop *x = &q[*(const size_t *)a], *y = &q[*(const size_t *)b];

	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	if (x->bwd != y->bwd)
		return x->bwd - y->bwd;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/*
 * The ops ord[0..n) by start, forward ones first on a tie: a forward op
 * is known (w: its stack made, else made now from its lane), a backward
 * one linked.
 */
static void
run_ops(struct mct_stack *s, size_t *ord, size_t n, const struct fwd *w)
{
	struct fwd tmp;
	size_t i;

	mct_sort_r(ord, n, sizeof(*ord), cmp_fop_time, s->fops);
	for (i = 0; i < n; i++) {
		const struct fop *f = &s->fops[ord[i]];
		const struct lane *l = &s->lanes[f->lane];

		if (f->bwd)
			bwd_link(s, f);
		else if (w != NULL)
			fwd_put(s, f, &w[ord[i]]);
		else {
			fwd_make(s, f, l->v, l->n, &tmp);
			fwd_put(s, f, &tmp);
		}
	}
}

/*
 * Sorted input: the waiting ops, in the order they came (by start), up to
 * the first that is not ready: a forward op is once it has ended before
 * the latest time (every interval around it read), a backward one once it
 * started before it (every forward op before it read); all at the end.
 */
static void
fops_drain(struct mct_stack *s, int all)
{
	size_t n, ord[64];

	for (;;) {
		for (n = 0; n < s->nfops && n < 64; n++) {
			const struct fop *f = &s->fops[n];

			if (!all && (f->bwd ? f->ts : f->end) >= s->last)
				break;
			ord[n] = n;
		}
		if (n == 0)
			return;
		run_ops(s, ord, n, NULL);
		memmove(s->fops, s->fops + n,
		    (s->nfops - n) * sizeof(*s->fops));
		s->nfops -= n;
	}
}

/* The outermost backward frame whose forward op is known, or NULL. */
static const struct fwd *
bwd_of(const struct mct_stack *s, const struct iv *fr, size_t nf)
{
	struct mct_mapent *e;
	size_t i;

	for (i = 0; i < nf; i++)
		if (fr[i].kind == K_BWD && (e = mct_map_find(&s->bwmap,
		    &fr[i].seq, sizeof(fr[i].seq))) != NULL)
			return e->val.p;
	return NULL;
}

/* A frame of the stack: in the members and in the folded line. */
static void
frame_add(struct mct_stack *s, int32_t name)
{
	mct_buf_adds(&s->res, s->st.str[name]);
	mct_buf_addc(&s->res, ',');
	fold_add(s, name);
	mct_buf_addc(&s->fold, ';');
}

/*
 * A forward op's frames, root first, then the separator; in s->path its
 * names.  Returns whether a name matches --under.
 */
static int
fwd_frames(struct mct_stack *s, const struct fwd *w)
{
	size_t i, n = 0;
	int32_t k;
	int u = 0;

	for (k = w->node; k >= 0; k = s->nodes[k].parent) {
		if (n == s->pathcap) {
			s->pathcap = s->pathcap ? 2 * s->pathcap : 64;
			s->path = mct_xrealloc(s->path,
			    s->pathcap * sizeof(*s->path));
		}
		s->path[n++] = s->nodes[k].name;
	}
	for (i = n; i > 0; i--) {
		frame_add(s, s->path[i - 1]);
		if (s->under && !u)
			u = name_under(s, s->path[i - 1]);
	}
	frame_add(s, mct_intern(&s->st, BWDSEP, sizeof(BWDSEP) - 1));
	return u;
}

/*
 * The stack of a launch from the intervals that may enclose it (a
 * lane's, or the sweep's active ones): its members in s->res, the
 * frames joined by ; in s->fold.
 */
static void
frames(struct mct_stack *s, const struct pend *p, const struct iv *v,
    size_t n)
{
	size_t i, nf;
	int32_t gann;
	const struct fwd *w;
	struct memb m;

	nf = collect(s, v, n, p->ts, p->end);
	inner(s, s->fr, nf, &m);
	w = m.hasstep ? NULL : bwd_of(s, s->fr, nf);
	s->res.len = s->fold.len = 0;
	mct_buf_adds(&s->res, ",\"stack\":[");
	s->isunder = w != NULL && fwd_frames(s, w);
	s->isunder = s->isunder || s->under == NULL;
	for (i = 0; i < nf && i < MAXDEPTH; i++)
		frame_add(s, s->fr[i].name);
	for (i = 0; i < nf && !s->isunder; i++)
		s->isunder = name_under(s, s->fr[i].name);
	if (nf > MAXDEPTH)
		s->c.deep++;
	mct_buf_adds(&s->res, s->st.str[p->lname]);
	mct_buf_addc(&s->res, ']');
	fold_add(s, p->lname);
	if (p->has_ext) {
		struct mct_mapent *e;

		s->key.len = 0;
		mct_buf_adds(&s->key, s->st.str[p->pid]);
		mct_buf_addc(&s->key, '\037');
		mct_buf_addi(&s->key, p->ext);
		if ((e = mct_map_find(&s->ext, s->key.p, s->key.len)) != NULL)
			m.op = ((struct extop *)e->val.p)->name;
		else
			s->c.nowhere++;
	}
	if (w != NULL) {		/* a backward op: its forward side's */
		if (m.mod < 0)
			m.mod = w->mod;
		m.hasstep = w->hasstep;
		m.step = w->step;
	}
	/* no annotation (step) on the thread: the process's (a backward
	 * thread runs inside the main thread's ProfilerStep) */
	if (m.ann < 0)
		m.ann = proc_ann(s, p->pid, p->ts, p->end, 0, NULL);
	if (!m.hasstep && s->nsteps > 0)
		m.hasstep = proc_ann(s, p->pid, p->ts, p->end, 1, &m.step) >= 0;
	gann = gpu_ann(s, p);
	if (m.op >= 0)
		member(&s->res, "op", s->st.str[m.op]);
	if (m.ann >= 0)
		member(&s->res, "annotation", s->st.str[m.ann]);
	if (m.mod >= 0)
		member(&s->res, "module", s->st.str[m.mod]);
	if (gann >= 0)
		member(&s->res, "gpu_annotation", s->st.str[gann]);
	if (m.hasstep) {
		mct_buf_adds(&s->res, ",\"step\":");
		mct_buf_addi(&s->res, m.step);
	}
}

/*
 * What a group key holds for op on one of our pairs (it has a stack)
 * whose launch is in no op: (no op), so that the shares of an op table
 * add up.  Returns 0 (appended to k), or -1 if that is not the case.
 */
int
mct_stack_noop(struct mct_event *ev, const struct mct_field *f,
    struct mct_buf *k)
{
	static const char noop[] = "\"" MCT_NOOP "\"";
	struct mct_val v;

	if (mct_field_virtual(f) || f->nseg != 1 || strcmp(f->seg[0], "op") != 0 ||
	    mct_get_key(ev, "stack", &v) != 0)
		return -1;
	mct_buf_add(k, noop, sizeof(noop) - 1);
	return 0;
}

static int
cmp_pend(const void *a, const void *b, void *arg)
{
	const struct pend *q = arg;
	const struct pend *x = &q[*(const size_t *)a], *y = &q[*(const size_t *)b];

	if (x->lane != y->lane)
		return x->lane < y->lane ? -1 : 1;
	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	return *(const size_t *)a < *(const size_t *)b ? -1 : 1;
}

/* A lane's intervals by start, and those still open at t (not decreasing). */
struct active {
	struct iv	*v;
	size_t		 n, cap, k;
};

static void
advance(struct active *a, const struct lane *l, int64_t t)
{
	size_t i, j;

	for (; a->k < l->n && l->v[a->k].ts <= t; a->k++) {
		if (a->n == a->cap) {
			a->cap = a->cap ? 2 * a->cap : 64;
			a->v = mct_xrealloc(a->v, a->cap * sizeof(*a->v));
		}
		a->v[a->n++] = l->v[a->k];
	}
	for (i = j = 0; i < a->n; i++)
		if (a->v[i].end >= t)
			a->v[j++] = a->v[i];
	a->n = j;
}

/* Forward ops by lane and start. */
static int
cmp_fop_lane(const void *a, const void *b, void *arg)
{
	const struct fop *q = arg;
	const struct fop *x = &q[*(const size_t *)a], *y = &q[*(const size_t *)b];

	if (x->lane != y->lane)
		return x->lane < y->lane ? -1 : 1;
	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/*
 * Unsorted input, before the pairs' sweep: each forward op's stack from
 * a sweep of its lane, then every op in order of start, as a sorted input
 * would have them.
 */
static void
link_ops(struct mct_stack *s, struct active *a)
{
	struct fwd *w;
	size_t *ord, i, n = 0;

	if (s->nfops == 0)
		return;
	ord = mct_xmalloc(s->nfops * sizeof(*ord));
	w = mct_xmalloc(s->nfops * sizeof(*w));
	for (i = 0; i < s->nfops; i++)
		if (!s->fops[i].bwd)
			ord[n++] = i;
	mct_sort_r(ord, n, sizeof(*ord), cmp_fop_lane, s->fops);
	for (i = 0; i < n; i++) {
		const struct fop *f = &s->fops[ord[i]];
		const struct lane *l = &s->lanes[f->lane];

		if (i == 0 || f->lane != s->fops[ord[i - 1]].lane)
			a->n = a->k = 0;
		advance(a, l, f->ts);
		fwd_make(s, f, a->v, a->n, &w[ord[i]]);
	}
	for (i = 0; i < s->nfops; i++)
		ord[i] = i;
	run_ops(s, ord, s->nfops, w);
	free(w);
	free(ord);
	s->nfops = 0;
}

/*
 * Unsorted input, at its end: each lane's intervals and launches by
 * start, and a sweep with the intervals that are still open; every
 * pair's stack goes to the second spool.
 */
static int
sweep(struct mct_stack *s)
{
	struct active a = { NULL, 0, 0, 0 };
	size_t *ord, i, j;
	int rc = 0;

	for (i = 0; i < s->nlanes; i++)
		mct_sort(s->lanes[i].v, s->lanes[i].n, sizeof(struct iv),
		    cmp_frame);
	link_ops(s, &a);
	ord = mct_xmalloc((s->qn + 1) * sizeof(*ord));
	for (i = 0; i < s->qn; i++)
		ord[i] = i;
	mct_sort_r(ord, s->qn, sizeof(*ord), cmp_pend, s->q);
	for (i = 0; i < s->qn; i = j) {
		struct lane *l = &s->lanes[s->q[ord[i]].lane];

		a.n = a.k = 0;
		for (j = i; j < s->qn && s->q[ord[j]].lane == s->q[ord[i]].lane;
		    j++) {
			struct pend *p = &s->q[ord[j]];

			advance(&a, l, p->ts);
			frames(s, p, a.v, a.n);
			p->under = s->isunder;
			p->rlen = s->res.len;
			p->flen = s->fold.len;
			p->roff = s->rspoolend;
			s->rspoolend += (long long)(s->res.len + s->fold.len);
			if (fwrite(s->res.p, 1, s->res.len, s->rspool) !=
			    s->res.len ||
			    fwrite(s->fold.p, 1, s->fold.len, s->rspool) !=
			    s->fold.len) {
				warn("stack spool");
				rc = -1;
				goto out;
			}
		}
	}
out:
	free(a.v);
	free(ord);
	s->swept = 1;
	return rc;
}

void
mct_stack_end(struct mct_stack *s)
{
	size_t i, j;

	s->ended = 1;
	if (s->sorted)
		fops_drain(s, 1);
	for (i = 0; i < s->nlanes; i++)
		for (j = 0; j < s->lanes[i].n; j++)
			if (s->lanes[i].v[j].open)
				s->c.unbalanced++;
}

/*
 * len bytes at off of a spool, which is only ever written at its end: the
 * bytes still in its buffer are written out first, if they are asked
 * for, and the read is a pread(2) of just them (a seek and a read of the
 * stream would write, then refill its whole buffer, for every pair).
 */
static int
readat(FILE *f, long long *out, long long end, long long off, size_t len,
    struct mct_buf *b)
{
	b->len = 0;
	mct_buf_grow(b, len + 1);
	if (off + (long long)len > *out) {
		if (fflush(f) != 0) {
			warn("stack spool");
			return -1;
		}
		*out = end;
	}
	if (pread(fileno(f), b->p, len, (off_t)off) != (ssize_t)len) {
		warn("stack spool");
		return -1;
	}
	b->len = len;
	return 0;
}

/*
 * Sorted input: drop the written pairs from the queue and their lines
 * from the buffer, so that a queue that never empties (a launch that
 * outlasts the pairs behind it) does not grow with the trace.
 */
static void
compact(struct mct_stack *s)
{
	size_t i, n = s->qn - s->qhead;
	long long off;

	if (n == 0) {
		s->qhead = s->qn = 0;
		s->held.len = 0;
		return;
	}
	if (s->qhead < 4096 || s->qhead < n)
		return;
	off = s->q[s->qhead].off;
	memmove(s->held.p, s->held.p + off, s->held.len - (size_t)off);
	s->held.len -= (size_t)off;
	memmove(s->q, s->q + s->qhead, n * sizeof(*s->q));
	for (i = 0; i < n; i++)
		s->q[i].off -= off;
	s->qhead = 0;
	s->qn = n;
}

/*
 * The next pair whose stack is known, in the order the pairs came: its
 * line with the members added in *line, and its frames joined by ; in
 * *folded (the launch call last).  Returns 0 when none is ready, -1
 * if the temporary file cannot be read back.
 */
int
mct_stack_next(struct mct_stack *s, struct mct_buf *line,
    struct mct_buf *folded)
{
	struct pend *p;
	const char *json;

again:
	if (s->qhead == s->qn)
		return 0;
	p = &s->q[s->qhead];
	if (s->sorted) {
		if (!s->ended && p->end >= s->last)
			return 0;
		fops_drain(s, s->ended);
		if (s->nfops > 0 && s->fops[0].ts <= p->ts)
			return 0;	/* its backward op may wait */
		frames(s, p, s->lanes[p->lane].v, s->lanes[p->lane].n);
		if (!s->isunder) {		/* --under: not this one */
			s->qhead++;
			compact(s);
			goto again;
		}
		json = s->held.p + p->off;
		folded->len = 0;
		mct_buf_add(folded, s->fold.p, s->fold.len);
	} else {
		if (!s->ended)
			return 0;
		if (!s->swept && sweep(s) != 0)
			return -1;
		if (!p->under) {
			s->qhead++;
			goto again;
		}
		if (readat(s->spool, &s->spoolout, s->spoolend, p->off,
		    p->len, &s->tmp) != 0 ||
		    readat(s->rspool, &s->rspoolout, s->rspoolend, p->roff,
		    p->rlen + p->flen, &s->res) != 0)
			return -1;
		json = s->tmp.p;
		folded->len = 0;
		mct_buf_add(folded, s->res.p + p->rlen, p->flen);
		s->res.len = p->rlen;
	}
	line->len = 0;
	mct_buf_add(line, json, p->len - 1);	/* without its closing brace */
	mct_buf_add(line, s->res.p, s->res.len);
	mct_buf_addc(line, '}');
	if (p->own)	/* ours, not the event's own */
		mct_keep_last(line, 0, stack_keys);
	s->qhead++;
	if (s->sorted)
		compact(s);
	return 1;
}

void
mct_stack_close(struct mct_stack *s, struct mct_stack_counts *c)
{
	size_t i;

	if (c)
		*c = s->c;
	for (i = 0; i < s->nlanes; i++)
		free(s->lanes[i].v);
	free(s->lanes);
	free(s->ann);
	free(s->steps);
	free(s->q);
	free(s->fr);
	free(s->fops);
	free(s->nodes);
	free(s->path);
	mct_map_free(&s->fwmap);
	mct_map_free(&s->bwmap);
	mct_map_free(&s->nodemap);
	mct_map_free(&s->lanemap);
	mct_map_free(&s->ext);
	mct_strtab_free(&s->st);
	mct_buf_free(&s->held);
	mct_buf_free(&s->key);
	mct_buf_free(&s->tmp);
	mct_buf_free(&s->res);
	mct_buf_free(&s->fold);
	if (s->spool)
		fclose(s->spool);
	if (s->rspool)
		fclose(s->rspool);
	free(s->spoolvb);
	free(s->rspoolvb);
	free(s);
}
