/*
 * path-read.c - mct-path's events: each X event kept as a struct pev
 * (names, lanes and correlation ids interned, with its rank's index),
 * and the window of each rank that --step, --steps, --from and --to make.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

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

/* Does the text p[0..n) hold the text s (a quoted key) somewhere? */
static int
spells(const char *p, size_t n, const char *s, size_t k)
{
	const char *end = p + n, *q;

	for (; (q = memchr(p, *s, (size_t)(end - p))) != NULL; p = q + 1)
		if ((size_t)(end - q) >= k && memcmp(q, s, k) == 0)
			return 1;
	return 0;
}

/*
 * args.correlation, else args.co_id: a key is looked up only where args'
 * text spells it (or has an escape), as most events have one of the two.
 */
static int32_t
corr_of(struct opts *o, int32_t rk, struct mct_event *ev)
{
	static const char *key[2] = { "\"correlation\"", "\"co_id\"" };
	static struct mct_field f[2];
	struct mct_val args, v;
	int i, esc;

	if (f[0].text == NULL) {
		mct_field_parse("args.correlation", &f[0]);
		mct_field_parse("args.co_id", &f[1]);
	}
	if (mct_get_key(ev, "args", &args) != 0 || args.type != MCT_J_OBJECT)
		return -1;
	esc = memchr(args.p, '\\', args.len) != NULL;
	for (i = 0; i < 2; i++)
		if ((esc || spells(args.p, args.len, key[i],
		    strlen(key[i]))) &&
		    mct_get(ev, &f[i], &v) == 0 && v.type != MCT_J_NULL &&
		    v.type != MCT_J_OBJECT && v.type != MCT_J_ARRAY)
			return intern_in(o, &o->corrs, rk, &v);
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

/* The index of the event's rank among those seen (-1: none, a rank too). */
static int32_t
rank_index(struct opts *o, struct mct_event *ev)
{
	int64_t r = -1;
	int32_t i;

	if (mct_event_rank(ev, o->hdr, &r, NULL) != 0)
		r = -1;
	for (i = o->nrank; i-- > 0; )
		if (o->rank[i] == r)
			return i;
	o->rank = mct_xgrow(o->rank, (size_t)o->nrank, sizeof(*o->rank));
	o->rank[o->nrank] = r;
	return o->nrank++;
}

void
path_add(struct opts *o, struct mct_event *ev)
{
	static struct mct_field ws, rc;
	struct mct_val ph, cat, name, pid, tid, v;
	const char *c;
	struct pev *p;
	int64_t ts, dur;
	int i, hascat;

	o->seq++;
	if (mct_get_key(ev, "ph", &ph) != 0 || !mct_jstr_eq(&ph, "X", 1) ||
	    mct_get_ns(ev, "ts", &ts) != 0 || !MCT_SANE_NS(ts))
		return;
	if (mct_get_ns(ev, "dur", &dur) != 0 || dur < 0 || !MCT_SANE_NS(dur))
		dur = 0;
	if (o->n == o->cap) {
		o->cap = o->cap ? o->cap * 2 : 4096;
		o->ev = mct_xrealloc(o->ev, o->cap * sizeof(*o->ev));
	}
	p = &o->ev[o->n++];
	memset(p, 0, sizeof(*p));
	p->seq = o->seq - 1;
	p->ts = ts;
	p->dur = dur;
	p->f = 1;
	for (i = 0; i < o->nsc; i++)
		if (mct_expr_eval(o->sc[i].e, ev, o->hdr))
			p->f *= o->sc[i].f;
	p->wstream = p->rcorr = -1;
	if (mct_get_key(ev, "name", &name) != 0)
		name.p = "\"\"", name.len = 2, name.type = MCT_J_STRING;
	p->name = intern_name(o, &name);
	pid.p = tid.p = NULL;
	mct_get_key(ev, "pid", &pid);
	mct_get_key(ev, "tid", &tid);
	p->rk = rank_index(o, ev);
	p->lane = intern_lane(o, p->rk, &pid, &tid);
	p->corr = corr_of(o, p->rk, ev);
	hascat = mct_get_key(ev, "cat", &cat) == 0;
	if (mct_device(ev)) {
		p->kind = K_DEV;
		c = mct_category(ev, o->hdr);
		if (c != NULL && strcmp(c, "\"communication\"") == 0)
			p->fl |= F_COMM;
	} else if (hascat && mct_jstr_eq(&cat, "cuda_sync", 9)) {
		p->kind = K_SYNC;
		if (ws.text == NULL) {
			mct_field_parse("args.wait_on_stream", &ws);
			mct_field_parse("args.wait_on_cuda_event_record_corr_id",
			    &rc);
		}
		if (mct_get(ev, &ws, &v) == 0)
			p->wstream = intern_lane(o, p->rk, &pid, &v);
		if (mct_get(ev, &rc, &v) == 0)
			p->rcorr = intern_in(o, &o->corrs, p->rk, &v);
	} else if (dur > 0) {
		p->kind = K_OP;
		for (i = 0; hascat && cat.type == MCT_J_STRING && notops[i]; i++)
			if (mct_jstr_eq(&cat, notops[i], strlen(notops[i])))
				p->kind = K_NONE;
	}
	if (p->kind != K_DEV && mct_is_step(ev) && !(hascat &&
	    mct_jstr_eq(&cat, "gpu_user_annotation", 19)))
		p->fl |= F_STEP;
	if (p->kind == K_OP && mct_host_call(ev))
		p->fl |= F_HOSTCALL;
	p->fl |= name_flags(o, p->name);
}

/*
 * The window of each rank: --steps, --step, --from, --to.  lo > hi: no
 * op of the rank.  Returns -1 for a step that no rank has.
 */
int
path_window(struct opts *o, int64_t *lo, int64_t *hi, int *haslo, int *hashi)
{
	const char *base = o->step;
	long want = 1, found = 0;
	char *hash, *end;
	int32_t id, r;
	size_t i;

	*haslo = *hashi = 0;
	if (o->steps) {
		for (r = 0; r < o->nrank; r++) {
			lo[r] = 1;
			hi[r] = 0;
		}
		r = o->ev[o->stepev].rk;
		lo[r] = o->ev[o->stepev].ts;
		hi[r] = lo[r] + o->ev[o->stepev].dur;
		*haslo = *hashi = 1;
	} else if (o->step != NULL) {
		o->tmp.len = 0;
		mct_buf_adds(&o->tmp, o->step);
		if (mct_map_find(&o->names.map, o->step, strlen(o->step)) == NULL &&
		    (hash = strrchr(o->step, '#')) != NULL) {
			errno = 0;
			want = strtol(hash + 1, &end, 10);
			if (hash[1] == '\0' || *end != '\0' || errno || want < 1)
				return -1;
			o->tmp.len = (size_t)(hash - o->step);
		}
		mct_buf_addc(&o->tmp, '\0');
		base = o->tmp.p;
		{
			struct mct_mapent *e = mct_map_find(&o->names.map, base,
			    strlen(base));

			if (e == NULL)
				return -1;
			id = (int32_t)e->val.i;
		}
		/* each rank's want-th in ts order, ties in input order */
		for (r = 0; r < o->nrank; r++) {
			struct pev *best = NULL;
			long seen = 0;

			for (;;) {
				struct pev *next = NULL;

				for (i = 0; i < o->n; i++) {
					struct pev *p = &o->ev[i];

					if (p->name != id || p->rk != r ||
					    (best != NULL && (p->ts < best->ts ||
					    (p->ts == best->ts &&
					    p->seq <= best->seq))))
						continue;
					if (next == NULL || p->ts < next->ts ||
					    (p->ts == next->ts &&
					    p->seq < next->seq))
						next = p;
				}
				if ((best = next) == NULL || ++seen == want)
					break;
			}
			lo[r] = best ? best->ts : 1;
			hi[r] = best ? best->ts + best->dur : 0;
			found += best != NULL;
		}
		if (found == 0)
			return -1;
		*haslo = *hashi = 1;
	}
	for (r = 0; r < o->nrank; r++) {
		if (o->has_from)
			lo[r] = o->from + (o->from_rel ? o->hdr->facts.origin : 0);
		if (o->has_to)
			hi[r] = o->to + (o->to_rel ? o->hdr->facts.origin : 0);
	}
	*haslo |= o->has_from;
	*hashi |= o->has_to;
	return 0;
}
