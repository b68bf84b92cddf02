/*
 * path-read.c - mct-path's events: each X event kept as a struct pev
 * (names, lanes and correlation ids interned, with its rank's index),
 * and --steps median's second reading of them (the window of each rank
 * that --step, --steps, --from and --to make: path-pick.c).
 */
#include "config.h"

#include <sys/stat.h>

#include <err.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mct.h"
#include "mct-path.h"

/*
 * Reading: each X event with a time becomes a struct pev.
 */

static const char *notops[] = { "user_annotation", "gpu_user_annotation",
    "python_function", "Trace", NULL };

/* Does name (a runtime call's) match (cuda|hip|mc)WHAT exactly? */
static int
call_is(const char *name, const char *what)
{
	static const char *pre[] = { "cuda", "hip", "mc", NULL };
	size_t k;
	int i;

	for (i = 0; pre[i]; i++) {
		k = strlen(pre[i]);
		if (strncmp(name, pre[i], k) == 0 && strcmp(name + k, what) == 0)
			return 1;
	}
	return 0;
}

static int
call_any(const char *name, const char *const *what)
{
	int i;

	for (i = 0; what[i]; i++)
		if (call_is(name, what[i]))
			return 1;
	return 0;
}

/* The text of a value: a string's own, else its JSON. */
/* A value's text in st; with rk >= 0, after the rank's index and \036. */
static int32_t
intern_in(struct opts *o, struct mct_strtab *st, int32_t rk,
    const struct mct_val *v)
{
	o->tmp.len = 0;
	if (rk >= 0) {
		mct_buf_addi(&o->tmp, rk);
		mct_buf_addc(&o->tmp, '\036');
	}
	if (v->type == MCT_J_STRING)
		mct_jstr(v, &o->tmp);
	else
		mct_buf_add(&o->tmp, v->p, v->len);
	mct_buf_addc(&o->tmp, '\0');
	return mct_intern(st, o->tmp.p, o->tmp.len - 1);
}

/*
 * The slot of (v, rk) in o->ci: its own, or the empty one it would take.
 * Ids that come in order (most producers count them) take slots in
 * order, so a lookup finds its line in the cache rather than missing in
 * a table of megabytes; the high bits and the rank are folded in, mixed.
 * Ids in a pattern that crowds those slots (a long probe) make the table
 * mix every bit from then on (o->cimix), rehashed.
 */
static size_t
corr_slot(const struct opts *o, int64_t v, int32_t rk, size_t *probes)
{
	uint64_t u = (uint64_t)v, h;
	size_t i, n = 0;

	h = u ^ ((u >> 20) * UINT64_C(0x9e3779b97f4a7c15)) ^
	    ((uint64_t)(uint32_t)rk * UINT64_C(0xc2b2ae3d27d4eb4f));
	if (o->cimix)
		h = (h * UINT64_C(0x9e3779b97f4a7c15)) >> 32;
	for (i = (size_t)h & (o->cicap - 1);
	    o->ci[i].id1 > 0 && (o->ci[i].v != v || o->ci[i].rk != rk);
	    i = (i + 1) & (o->cicap - 1))
		n++;
	*probes = n;
	return i;
}

/* o->ci in a table of cap slots (its entries placed again). */
static void
corr_rehash(struct opts *o, size_t cap)
{
	struct corrint *old = o->ci;
	size_t n = o->cicap, i, h, probes;

	o->cicap = cap;
	o->ci = mct_xmalloc(o->cicap * sizeof(*o->ci));
	memset(o->ci, 0, o->cicap * sizeof(*o->ci));
	o->nci = 0;
	for (i = 0; i < n; i++)
		if (old[i].id1 > 0) {
			h = corr_slot(o, old[i].v, old[i].rk, &probes);
			o->ci[h] = old[i];
			o->nci++;
		}
	free(old);
}

/* Is t[0..n) an integer as it is written plainly (no "-0", "01", "+1")? */
static int
plain_int(const char *t, size_t n, int64_t *v)
{
	size_t neg = n > 0 && t[0] == '-';

	if (n == neg || t[neg] < '0' || t[neg] > '9' ||
	    (t[neg] == '0' && n > neg + 1) || (neg && t[1] == '0'))
		return 0;
	return mct_int(t, n, v) == 0;
}

/*
 * A correlation id: the same id for the same rank and text.  With
 * --steps all, whose steps read the texts again, it is the index in
 * o->corrs.  Otherwise only the ids matter: a plain integer (as most
 * producers write them) goes by its value in o->ci, a hash cheaper than
 * the text's, any other text by o->corrs; a text is an integer's or it
 * is not, so no id has two; each new one is the next, o->ncorr.
 */
static int32_t
corr_id(struct opts *o, int32_t rk, const struct mct_val *v)
{
	struct corrint *c;
	int64_t x;
	size_t h, probes;
	int32_t sid;

	if (path_stepwise(o))	/* (path-steps.c reads the texts) */
		return intern_in(o, &o->corrs, rk, v);
	if (v->type == MCT_J_STRING) {
		o->tmp.len = 0;
		mct_jstr(v, &o->tmp);
	}
	if (!(v->type == MCT_J_STRING ? plain_int(o->tmp.p ? o->tmp.p : "",
	    o->tmp.len, &x) : plain_int(v->p, v->len, &x))) {
		sid = intern_in(o, &o->corrs, rk, v);
		if ((size_t)sid == o->ncgid) {
			o->cgid = mct_xgrow(o->cgid, o->ncgid,
			    sizeof(*o->cgid));
			o->cgid[o->ncgid++] = o->ncorr++;
		}
		return o->cgid[sid];
	}
	if (4 * (o->nci + 1) > 3 * o->cicap)	/* at most 3/4 full */
		corr_rehash(o, o->cicap ? 2 * o->cicap : 1024);
	h = corr_slot(o, x, rk, &probes);
	if (probes > 64 && !o->cimix) {
		o->cimix = 1;
		corr_rehash(o, o->cicap);
		h = corr_slot(o, x, rk, &probes);
	}
	c = &o->ci[h];
	if (c->id1 == 0) {
		c->v = x;
		c->rk = rk;
		c->id1 = ++o->ncorr;
		o->nci++;
	}
	return c->id1 - 1;
}

/* A name, the names met last kept by their JSON text. */
static int32_t
intern_name(struct opts *o, const struct mct_val *v)
{
	struct namecache *c;
	int32_t id;
	int i;

	for (i = 0; i < NNAMECACHE; i++) {
		c = &o->nc[i];
		if (c->id1 > 0 && c->len == v->len &&
		    memcmp(c->text, v->p, v->len) == 0)
			return c->id1 - 1;
	}
	id = intern_in(o, &o->names, -1, v);
	if (v->len <= sizeof(c->text)) {
		c = &o->nc[o->nextnc++ % NNAMECACHE];
		c->len = v->len;
		memcpy(c->text, v->p, v->len);
		c->id1 = id + 1;
	}
	return id;
}

/* A lane: the rank's index, pid and tid (JSON texts), \036 \037 between. */
static int32_t	lane_key(struct opts *, int32_t, const struct mct_val *,
		    const struct mct_val *);

static int32_t
intern_lane(struct opts *o, int32_t rk, const struct mct_val *pid,
    const struct mct_val *tid)
{
	struct lanecache *c;
	size_t pl = pid->p ? pid->len : 0, tl = tid->p ? tid->len : 0;
	int32_t id;
	int i;

	/* the lanes met last, most events being on one of a few */
	for (i = 0; i < NLANECACHE; i++) {
		c = &o->lc[i];
		if (c->id1 > 0 && c->rk == rk && c->pl == pl && c->tl == tl &&
		    memcmp(c->pid, pid->p ? pid->p : "", pl) == 0 &&
		    memcmp(c->tid, tid->p ? tid->p : "", tl) == 0)
			return c->id1 - 1;
	}
	id = lane_key(o, rk, pid, tid);
	if (pl <= sizeof(c->pid) && tl <= sizeof(c->tid)) {
		c = &o->lc[o->nextlc++ % NLANECACHE];
		c->rk = rk;
		c->pl = pl;
		c->tl = tl;
		memcpy(c->pid, pid->p ? pid->p : "", pl);
		memcpy(c->tid, tid->p ? tid->p : "", tl);
		c->id1 = id + 1;
	}
	return id;
}

static int32_t
lane_key(struct opts *o, int32_t rk, const struct mct_val *pid,
    const struct mct_val *tid)
{
	o->tmp.len = 0;
	mct_buf_addi(&o->tmp, rk);
	mct_buf_addc(&o->tmp, '\036');
	mct_buf_add(&o->tmp, pid->p ? pid->p : "", pid->p ? pid->len : 0);
	mct_buf_addc(&o->tmp, '\037');
	mct_buf_add(&o->tmp, tid->p ? tid->p : "", tid->p ? tid->len : 0);
	mct_buf_addc(&o->tmp, '\0');
	return mct_intern(&o->lanes, o->tmp.p, o->tmp.len - 1);
}

/*
 * Does the text p[0..n) hold the text s (a quoted key) somewhere?  (Not
 * each '"' tried in turn: Kineto's args have many.)
 */
static int
spells(const char *p, size_t n, const char *s, size_t k)
{
	return memmem(p, n, s, k) != NULL;
}

/* The fields read of an event, parsed once (in whichever thread). */
static struct mct_field corrf[2], wsf, rcf;
static pthread_once_t fields_once = PTHREAD_ONCE_INIT;

static void
fields_parse(void)
{
	mct_field_parse("args.correlation", &corrf[0]);
	mct_field_parse("args.co_id", &corrf[1]);
	mct_field_parse("args.wait_on_stream", &wsf);
	mct_field_parse("args.wait_on_cuda_event_record_corr_id", &rcf);
}

/*
 * args that are one of the two keys alone with a number, as mcTracer's
 * {"co_id":N} are: the number in v (what the lookups below would find,
 * without them).  0, or -1 for args of another shape.
 */
static int
corr_alone(const struct mct_val *args, struct mct_val *v)
{
	static const char *pre[2] = { "{\"correlation\":", "{\"co_id\":" };
	const char *p, *end = args->p + args->len - 1;	/* its '}' */
	size_t k;
	int i;

	for (i = 0; i < 2; i++) {
		k = strlen(pre[i]);
		if (args->len <= k + 1 || memcmp(args->p, pre[i], k) != 0)
			continue;
		p = args->p + k;
		if (*p != '-' && (*p < '0' || *p > '9'))
			return -1;
		while (p < end && *p != ',' && *p != '}' && *p != ']' &&
		    *p != ':')
			p++;
		if (p != end)
			return -1;
		v->type = MCT_J_NUMBER;
		v->p = args->p + k;
		v->len = (size_t)(end - v->p);
		return 0;
	}
	return -1;
}

/*
 * args.correlation, else args.co_id: a key is looked up only where args'
 * text spells it (or has an escape), as most events have one of the two.
 * 0 with its value in v, -1 for none.
 */
static int
corr_of(struct mct_event *ev, struct mct_val *v)
{
	static const char *key[2] = { "\"correlation\"", "\"co_id\"" };
	struct mct_val args;
	int i, esc;

	if (mct_get_key(ev, "args", &args) != 0 || args.type != MCT_J_OBJECT)
		return -1;
	esc = memchr(args.p, '\\', args.len) != NULL;
	if (!esc && corr_alone(&args, v) == 0)
		return 0;
	for (i = 0; i < 2; i++)
		if ((esc || spells(args.p, args.len, key[i],
		    strlen(key[i]))) &&
		    mct_get(ev, &corrf[i], v) == 0 && v->type != MCT_J_NULL &&
		    v->type != MCT_J_OBJECT && v->type != MCT_J_ARRAY)
			return 0;
	return -1;
}

/* What a name says (F_BLOCK ... F_LAUNCH), worked out once a name. */
static uint16_t
name_flags(struct opts *o, int32_t name)
{
	static const char *blocking[] = { "DeviceSynchronize",
	    "StreamSynchronize", "EventQuery", "EventSynchronize", "Memcpy",
	    "MemcpyAsync", NULL };
	static const char *launching[] = { "LaunchKernel",
	    "LaunchCooperativeKernel", "ModuleLaunchKernel", "MemcpyAsync",
	    "MemsetAsync", NULL };
	const char *nm = o->names.str[name];
	uint16_t f = 0;

	while (o->nnamefl <= name) {
		o->namefl = mct_xgrow(o->namefl, (size_t)o->nnamefl,
		    sizeof(*o->namefl));
		o->namefl[o->nnamefl++] = 0xffff;	/* not known yet */
	}
	if (o->namefl[name] != 0xffff)
		return o->namefl[name];
	if (strlen(nm) != mct_strtab_len(&o->names, name))
		return o->namefl[name] = 0;	/* a NUL in it: none below */
	if (call_any(nm, blocking))
		f |= F_BLOCK;
	if (call_is(nm, "DeviceSynchronize"))
		f |= F_DEVSYNC;
	if (call_is(nm, "StreamSynchronize"))
		f |= F_STRSYNC;
	if (call_is(nm, "EventRecord"))
		f |= F_RECORD;
	if (call_is(nm, "EventSynchronize"))
		f |= F_EVSYNC;
	if (call_any(nm, launching))
		f |= F_LAUNCH;
	return o->namefl[name] = f;
}

/* The index of a rank among those seen (-1: none, a rank too). */
static int32_t
rank_index(struct opts *o, int64_t r)
{
	int32_t i;

	for (i = o->nrank; i-- > 0; )
		if (o->rank[i] == r)
			return i;
	o->rank = mct_xgrow(o->rank, (size_t)o->nrank, sizeof(*o->rank));
	o->rank[o->nrank] = r;
	return o->nrank++;
}

/*
 * What an X event is to mct-path, read of it in whichever thread reads it
 * (the values point into its line): all path_keep() needs.
 */
struct praw {
	int64_t		 ts, dur, rank;
	uint8_t		 kind;
	uint16_t	 fl;		/* F_COMM, F_STEP, F_HOSTCALL */
	struct mct_val	 name, pid, tid, corr, ws, rc;	/* MCT_J_NONE: none */
};

static void
none(struct mct_val *v)
{
	v->type = MCT_J_NONE;
	v->p = NULL;
	v->len = 0;
}

/* The event as a struct praw; 0 if it is not an X event with a time. */
static int
describe(struct mct_event *ev, const struct mct_header *hdr, struct praw *d)
{
	struct mct_val ph, cat;
	const char *c;
	int i, hascat;

	if (mct_get_key(ev, "ph", &ph) != 0 ||
	    !mct_jstr_eq(&ph, "X", 1) ||
	    mct_get_ns(ev, "ts", &d->ts) != 0 || !MCT_SANE_NS(d->ts))
		return 0;
	if (mct_get_ns(ev, "dur", &d->dur) != 0 || d->dur < 0 ||
	    !MCT_SANE_NS(d->dur))
		d->dur = 0;
	d->kind = K_NONE;
	d->fl = 0;
	none(&d->ws);
	none(&d->rc);
	if (mct_get_key(ev, "name", &d->name) != 0)
		d->name.p = "\"\"", d->name.len = 2, d->name.type = MCT_J_STRING;
	if (mct_get_key(ev, "pid", &d->pid) != 0)
		none(&d->pid);
	if (mct_get_key(ev, "tid", &d->tid) != 0)
		none(&d->tid);
	if (mct_event_rank(ev, hdr, &d->rank, NULL) != 0)
		d->rank = -1;
	pthread_once(&fields_once, fields_parse);
	if (corr_of(ev, &d->corr) != 0)
		none(&d->corr);
	hascat = mct_get_key(ev, "cat", &cat) == 0;
	if (mct_device(ev)) {
		d->kind = K_DEV;
		c = mct_category(ev, hdr);
		if (c != NULL && strcmp(c, "\"communication\"") == 0)
			d->fl |= F_COMM;
	} else if (hascat && mct_jstr_eq(&cat, "cuda_sync", 9)) {
		d->kind = K_SYNC;
		if (mct_get(ev, &wsf, &d->ws) != 0)
			none(&d->ws);
		if (mct_get(ev, &rcf, &d->rc) != 0)
			none(&d->rc);
	} else if (d->dur > 0) {
		d->kind = K_OP;
		for (i = 0; hascat && cat.type == MCT_J_STRING && notops[i]; i++)
			if (mct_jstr_eq(&cat, notops[i], strlen(notops[i])))
				d->kind = K_NONE;
	}
	/* a step is the window of its ops, not one (early Kineto's cat
	   Operator as user_annotation's) */
	if (d->kind != K_DEV && mct_is_step(ev)) {
		d->fl |= F_STEP;
		if (d->kind == K_OP)
			d->kind = K_NONE;
	}
	if (d->kind == K_OP && mct_host_call(ev))
		d->fl |= F_HOSTCALL;
	return 1;
}

/*
 * A stream's events, at most, when it is a file: its lines of X events
 * are seldom shorter than STREAM_LINE bytes (the keys and values of name,
 * ph, ts, dur, pid and tid); more room than they take is address space
 * only, never touched.
 */
#define STREAM_LINE	96

static unsigned long long
stream_events(const struct mct_source *s)
{
	struct stat st;

	if ((strcmp(s->path, "-") == 0 ? fstat(STDIN_FILENO, &st) :
	    stat(s->path, &st)) != 0 || !S_ISREG(st.st_mode))
		return 0;
	return (unsigned long long)st.st_size / STREAM_LINE;
}

/* (the guess asked of a stream at most: more, and the array grows) */
#define STREAM_GUESS_MAX	(1ULL << 20)

/*
 * Room for the events pass 1 framed, asked at once: no copies of what is
 * kept, and no fresh pages for each size on the way (a stream's count is
 * not known: its file's size says about how many at most; a pipe's
 * grow; --steps median's second reading takes as many as the first,
 * o->nx).  Not with --steps or --step, whose events come and go, till
 * their order is broken (path-steps.c): then all are kept (all: 1).  The
 * room is a guess (a file of a few huge events): where it cannot be had
 * (ulimit -v, a file larger than memory), the array grows as events come.
 */
void
path_reserve(struct opts *o, int all)
{
	unsigned long long n = 0;
	struct pev *p;
	int i;

	for (i = 0; i < o->hdr->nsrc; i++)
		n += o->hdr->src[i].stream ? stream_events(&o->hdr->src[i]) :
		    o->hdr->src[i].nevents;
	if (n > STREAM_GUESS_MAX && n > (unsigned long long)o->nx)
		n = STREAM_GUESS_MAX;
	if (n < (unsigned long long)o->nx)
		n = (unsigned long long)o->nx;
	if ((path_stepwise(o) && !all) || n <= o->cap ||
	    n > SIZE_MAX / sizeof(*o->ev))
		return;
	/* (a guess: if the room cannot be had, the array grows as it did) */
	if ((p = realloc(o->ev, (size_t)n * sizeof(*o->ev))) == NULL)
		return;
	o->ev = p;
	o->cap = (size_t)n;
}

/* The event d describes kept (seq: its place in the input). */
static struct pev *
keep(struct opts *o, const struct praw *d, long long seq)
{
	struct pev *p;

	if (o->n == o->cap) {
		o->cap = o->cap ? o->cap * 2 : 4096;
		o->ev = mct_xrealloc(o->ev, o->cap * sizeof(*o->ev));
	}
	p = &o->ev[o->n++];
	o->nx++;
	memset(p, 0, sizeof(*p));
	p->seq = seq;
	p->ts = d->ts;
	p->dur = d->dur;
	p->wstream = p->rcorr = -1;
	p->name = intern_name(o, &d->name);
	p->rk = rank_index(o, d->rank);
	p->lane = intern_lane(o, p->rk, &d->pid, &d->tid);
	p->corr = d->corr.type != MCT_J_NONE ?
	    corr_id(o, p->rk, &d->corr) : -1;
	p->kind = d->kind;
	if (d->ws.type != MCT_J_NONE)
		p->wstream = intern_lane(o, p->rk, &d->pid, &d->ws);
	if (d->rc.type != MCT_J_NONE)
		p->rcorr = corr_id(o, p->rk, &d->rc);
	p->fl = d->fl | name_flags(o, p->name);
	return p;
}

/* An event the reader handed out, read in this thread. */
static void
path_add(struct opts *o, struct mct_event *ev)
{
	struct praw d;
	struct pev *p;
	int i;

	if (!describe(ev, o->hdr, &d)) {
		o->seq++;
		return;
	}
	p = keep(o, &d, o->seq++);
	for (i = 0; i < o->nsc; i++)
		if (mct_expr_eval(o->sc[i].e, ev, o->hdr))
			p->scm |= (uint32_t)1 << i;
}

/* The factor of --scale for p: those it matched, multiplied in order. */
double
path_factor(const struct opts *o, const struct pev *p)
{
	double f = 1;
	int i;

	for (i = 0; i < o->nsc && p->scm >> i != 0; i++)
		if (p->scm >> i & 1)
			f *= o->sc[i].f;
	return f;
}

/*
 * Reading in the reader's threads (mct_edit()): each event line becomes
 * a line of what describe() found, which path_lines() keeps: "-" for an
 * event not kept, else "X", the kind, then ts, dur, rank and flags, then
 * each value of struct praw: "_" for none, else its type (a digit), its
 * length and its JSON text (which has no newline).  Numbers are written
 * in digits of 4 bits, 'a' for 0 to 'p' for 15 (16 of them for ts, dur
 * and rank, 8 for the flags and the lengths): no newline in them either,
 * and quick both ways.
 */
struct rdctx {
	struct mct_event ev;
	int		 hasev;
};

static void *
rd_begin(void *arg)
{
	struct rdctx *c;

	(void)arg;
	if ((c = aligned_alloc(64, (sizeof(*c) + 63) / 64 * 64)) == NULL)
		mct_nomem("malloc");
	memset(c, 0, sizeof(*c));
	return c;
}

static void
rd_end(void *arg, void *ctx)
{
	struct rdctx *c = ctx;

	(void)arg;
	if (c->hasev)
		mct_event_free(&c->ev);
	free(c);
}

/*
 * x in 8 digits at q (the most significant first); returns the byte
 * after them.  The nibbles are spread into bytes in a register, and
 * get_word() gathers them back the same way: no loop, either way.
 */
static inline __attribute__((always_inline)) char *
put_word(char *q, uint32_t v)
{
	uint64_t x = v;

	x = (x >> 16) | (x & 0xffff) << 32;
	x = (x >> 8 & 0x000000ff000000ffULL) | (x & 0x000000ff000000ffULL) << 16;
	x = (x >> 4 & 0x000f000f000f000fULL) | (x & 0x000f000f000f000fULL) << 8;
	x += 0x6161616161616161ULL;	/* 'a' each */
	memcpy(q, &x, 8);
	return q + 8;
}

/* v in 16 digits: its two words. */
static inline __attribute__((always_inline)) char *
put_num(char *q, uint64_t v)
{
	return put_word(put_word(q, (uint32_t)(v >> 32)), (uint32_t)v);
}

static char *
put_val(char *q, const struct mct_val *v)
{
	if (v->type == MCT_J_NONE || v->p == NULL) {
		*q++ = '_';
		return q;
	}
	*q++ = (char)('0' + (int)v->type);
	q = put_word(q, (uint32_t)v->len);	/* (the index's offsets: 32 bits) */
	memcpy(q, v->p, v->len);
	return q + v->len;
}

/* The line of the event ev (its line's text) into out. */
static void
rd_put(const struct opts *o, struct mct_event *ev, struct mct_buf *out)
{
	struct praw d;
	char *q;

	out->len = 0;
	if (!describe(ev, o->hdr, &d)) {
		mct_buf_addc(out, '-');
		return;
	}
	mct_buf_grow(out, 2 + 3 * 16 + 8 + 6 * 9 + d.name.len + d.pid.len +
	    d.tid.len + d.corr.len + d.ws.len + d.rc.len);
	q = out->p;
	*q++ = 'X';
	*q++ = (char)('0' + d.kind);
	q = put_num(q, (uint64_t)d.ts);
	q = put_num(q, (uint64_t)d.dur);
	q = put_num(q, (uint64_t)d.rank);
	q = put_word(q, d.fl);
	q = put_val(q, &d.name);
	q = put_val(q, &d.pid);
	q = put_val(q, &d.tid);
	q = put_val(q, &d.corr);
	q = put_val(q, &d.ws);
	q = put_val(q, &d.rc);
	out->len = (size_t)(q - out->p);
}

static void
rd_line(void *arg, void *ctx, const char *text, size_t len,
    struct mct_buf *out)
{
	struct opts *o = arg;
	struct rdctx *c = ctx;

	if (!c->hasev) {
		mct_event_init(&c->ev, text, len, o->hdr);
		c->hasev = 1;
	} else
		mct_event_set(&c->ev, text, len);
	rd_put(o, &c->ev, out);
}

/*
 * A line the reader has indexed (a stream's): the reader's event, its
 * text and header those rd_line() would make its own of (one operand).
 */
static void
rd_event(void *arg, void *ctx, struct mct_event *ev, struct mct_buf *out)
{
	(void)ctx;
	rd_put(arg, ev, out);
}

static const struct mct_editor reading = { rd_begin, rd_line, rd_end,
    rd_event };

/*
 * Read in the reader's threads where it can: one operand (each line's
 * source is then the first), no --scale (its expressions are evaluated
 * here) and no -o trace (which wants the lines themselves).  --steps and
 * --step too: steps_add() takes a run of lines' events one by one, as
 * path_add() hands them.  The reader must have been opened with
 * MCT_WANT_LINE (want_lines says so).
 */
int
path_want_lines(const struct opts *o, int noperands)
{
	return noperands <= 1 && o->nsc == 0 && !o->trace;
}

int
path_edit(struct opts *o, struct mct_reader *r)
{
	return mct_edit(r, &reading, o) == 0;
}

/* The 8 digits of put_word() at *pp, and the bytes skipped. */
static inline __attribute__((always_inline)) uint32_t
get_word(const char **pp)
{
	uint64_t x;

	memcpy(&x, *pp, 8);
	x -= 0x6161616161616161ULL;
	x = (x & 0x000f000f000f000fULL) << 4 | (x >> 8 & 0x000f000f000f000fULL);
	x = (x & 0x000000ff000000ffULL) << 8 | (x >> 16 & 0x000000ff000000ffULL);
	*pp += 8;
	return (uint32_t)((x & 0xffff) << 16 | (x >> 32 & 0xffff));
}

static inline __attribute__((always_inline)) uint64_t
get_num(const char **pp)
{
	uint64_t hi = get_word(pp);

	return hi << 32 | get_word(pp);
}

static void
get_val(const char **pp, struct mct_val *v)
{
	const char *p = *pp;

	if (*p == '_') {
		none(v);
		*pp = p + 1;
		return;
	}
	v->type = (enum mct_jtype)(*p++ - '0');
	v->len = get_word(&p);
	v->p = p;
	*pp = p + v->len;
}

/*
 * The lines of rd_line() in ev (one, or a run of them): each kept.  Its
 * lines say their own lengths: each ends where its last value does.
 */
static void
path_lines(struct opts *o, struct mct_event *ev)
{
	const char *p = ev->json, *end = ev->json + ev->len;
	struct praw d;

	for (; p < end; p++) {		/* (past the line's end) */
		if (*p++ != 'X') {
			o->seq++;
			continue;
		}
		d.kind = (uint8_t)(*p++ - '0');
		d.ts = (int64_t)get_num(&p);
		d.dur = (int64_t)get_num(&p);
		d.rank = (int64_t)get_num(&p);
		d.fl = (uint16_t)get_word(&p);
		get_val(&p, &d.name);
		get_val(&p, &d.pid);
		get_val(&p, &d.tid);
		get_val(&p, &d.corr);
		get_val(&p, &d.ws);
		get_val(&p, &d.rc);
		keep(o, &d, o->seq++);
	}
}

/* A rank has Kineto's cuda_sync events: no syncs by name of events. */
static void
sync_seen(struct opts *o, int32_t rk)
{
	while (o->nrksync <= rk) {
		o->rksync = mct_xgrow(o->rksync, (size_t)o->nrksync, 1);
		o->rksync[o->nrksync++] = 0;
	}
	o->rksync[rk] = 1;
}

/* --steps median's runs of lines let go (the input is read again). */
void
path_again_drop(struct opts *o)
{
	if (o->again == NULL)
		return;
	fclose(o->again);
	free(o->againvb);
	o->again = NULL;
	o->againvb = NULL;
}

/*
 * A run of lines (path_lines()) or an event, kept: --steps median's
 * first reading keeps its runs in o->again (then a run's length and its
 * bytes), for the second to take them again; if that file cannot hold
 * them (AGAIN_MAX bytes, an error) it is let go: the input read again.
 */
#define AGAIN_MAX	((off_t)256 << 20)

void
path_take(struct opts *o, struct mct_event *ev, int lines)
{
	size_t had = o->n, had0 = o->n;

	if (o->trace && (fwrite(ev->json, 1, ev->len, o->spool) !=
	    ev->len || putc('\n', o->spool) == EOF))
		err(MCT_EXIT_USAGE, "spool");
	if (lines)
		path_lines(o, ev);
	else
		path_add(o, ev);
	if (o->again != NULL && ((o->againlen += (off_t)(sizeof(ev->len) +
	    ev->len)) > AGAIN_MAX || fwrite_unlocked(&ev->len,
	    sizeof(ev->len), 1, o->again) != 1 || fwrite_unlocked(ev->json, 1,
	    ev->len, o->again) != ev->len))
		path_again_drop(o);
	for (; had < o->n; had++)
		if (o->ev[had].kind == K_SYNC)
			sync_seen(o, o->ev[had].rk);
	if (o->ss != NULL && o->n > had0)
		steps_add(o, had0);
}

/*
 * --steps median's second reading from the runs of lines the first
 * kept (hdr: its header, the same file's), taken as mct-path.c's
 * read_input() takes the reader's; 0 if they cannot be read back (the
 * input is read again).
 */
int
path_take_again(struct opts *o, FILE *f, const struct mct_header *hdr)
{
	struct mct_event ev;
	struct mct_buf b = { 0 };
	size_t len;

	if (fflush(f) != 0 || ferror(f) || fseeko(f, 0, SEEK_SET) != 0)
		return 0;
	memset(&ev, 0, sizeof(ev));
	o->hdr = hdr;
	path_reserve(o, 0);
	if (path_stepwise(o))
		steps_begin(o);
	while (fread_unlocked(&len, sizeof(len), 1, f) == 1) {
		b.len = 0;
		mct_buf_grow(&b, len + 1);
		if (fread_unlocked(b.p, 1, len, f) != len)
			errx(MCT_EXIT_USAGE, "spool: short");
		ev.json = b.p;
		ev.len = len;
		path_take(o, &ev, 1);
	}
	if (ferror(f))
		err(MCT_EXIT_USAGE, "spool");
	if (o->ss != NULL && !o->steps)
		step_end(o);
	mct_buf_free(&b);
	return 1;
}
