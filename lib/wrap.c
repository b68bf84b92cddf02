/*
 * wrap.c - a multi-rank stream made one trace for the viewers (mct-cat
 * --wrap): the pids of rank R become R * 10^7 + pid, flow ids
 * R * 10^12 + id, so no process or flow of one rank joins another's;
 * process names become "rank R · name", and every process gets a
 * process_sort_index that orders the ranks.  output.c calls it when it
 * writes a trace of several ranks.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "mct_private.h"

#define PID_STRIDE	INT64_C(10000000)	/* pid of rank R: R * this + pid */
#define ID_STRIDE	INT64_C(1000000000000)	/* flow id of rank R */

/* A process of a rank, as the trace will have it. */
struct wproc {
	int64_t		 rank;
	int64_t		 sort;		/* its own sort index, if has_sort */
	int		 has_sort, named;
	const char	*pid;		/* its new pid's text: the map's key */
	size_t		 npid;
};

struct mct_wrap {
	struct mct_map	 procs;		/* "R pid'" -> index in proc */
	struct wproc	*proc;
	size_t		 nproc;
	struct mct_buf	 tmp;
};

struct mct_wrap *
mct_wrap_new(void)
{
	struct mct_wrap *w = mct_xmalloc(sizeof(*w));

	memset(w, 0, sizeof(*w));
	return w;
}

/* A key's integer, or -1 if it has none. */
static int
key_int(const struct mct_event *ev, int k, int64_t *n)
{
	return k < 0 ? -1 : mct_int(ev->json + ev->kv[k].voff,
	    ev->kv[k].vlen, n);
}

/* Replace the value of key k: what is before it goes out first. */
static void
put_until(struct mct_buf *out, const struct mct_event *ev, size_t *from,
    int k)
{
	mct_buf_add(out, ev->json + *from, ev->kv[k].voff - *from);
	*from = ev->kv[k].voff + ev->kv[k].vlen;
}

/*
 * A rank's own copy of a pid or an id, text v: R * stride + v for an
 * integer below stride, else the string "PRE R SEP v".
 */
static void
put_own(struct mct_buf *out, const char *v, size_t n, int64_t rank,
    int64_t stride, const char *pre, int sep)
{
	int64_t x;

	if (mct_int(v, n, &x) == 0 && x >= 0 && x < stride) {
		mct_buf_addi(out, rank * stride + x);
		return;
	}
	mct_buf_addc(out, '"');
	mct_buf_adds(out, pre);
	mct_buf_addi(out, rank);
	mct_buf_addc(out, sep);
	if (n >= 2 && *v == '"')
		mct_buf_add(out, v + 1, n - 2);
	else
		mct_buf_add(out, v, n);
	mct_buf_addc(out, '"');
}

/* A rank's flow id: R * 10^12 + id, or "R:id". */
static void
put_id(struct mct_buf *out, const struct mct_event *ev, int k, int64_t rank)
{
	put_own(out, ev->json + ev->kv[k].voff, ev->kv[k].vlen, rank,
	    ID_STRIDE, "", ':');
}

/* A rank's pid: R * 10^7 + pid, or "rank R pid". */
static void
put_pid(struct mct_buf *out, const char *v, size_t n, int64_t rank)
{
	put_own(out, v, n, rank, PID_STRIDE, "rank ", ' ');
}

/*
 * The args of a metadata event: a process_name's name gets its rank
 * (returns 1); a process_sort_index's sort index goes to *si (returns 2:
 * the event is dropped, and its index given at the end).
 */
static int
put_margs(struct mct_buf *out, struct mct_event *ev, int k, int64_t rank,
    struct mct_buf *tmp, int64_t *si)
{
	struct mct_event a;
	struct mct_val name;
	int bit = 0, i;

	if (mct_get_key(ev, "name", &name) != 0) {
		mct_buf_add(out, ev->json + ev->kv[k].voff, ev->kv[k].vlen);
		return 0;
	}
	mct_event_init(&a, ev->json + ev->kv[k].voff, ev->kv[k].vlen, NULL);
	mct_event_index(&a);
	if (mct_jstr_eq(&name, "process_name", 12) &&
	    (i = mct_key_at(&a, "name")) >= 0 &&
	    a.json[a.kv[i].voff] == '"') {
		mct_buf_add(out, a.json, a.kv[i].voff);
		tmp->len = 0;
		mct_buf_adds(tmp, "rank ");
		mct_buf_addi(tmp, rank);
		mct_buf_adds(tmp, " \xc2\xb7 ");
		mct_buf_addc(out, '"');
		mct_buf_add(out, tmp->p, tmp->len);
		mct_buf_add(out, a.json + a.kv[i].voff + 1,
		    a.kv[i].vlen - 1);
		mct_buf_add(out, a.json + a.kv[i].voff + a.kv[i].vlen,
		    a.len - a.kv[i].voff - a.kv[i].vlen);
		bit = 1;
	} else if (mct_jstr_eq(&name, "process_sort_index", 18)) {
		bit = (i = mct_key_at(&a, "sort_index")) >= 0 &&
		    key_int(&a, i, si) == 0 ? 2 : 3;
	} else
		mct_buf_add(out, a.json, a.len);
	mct_event_free(&a);
	return bit;
}

/* The process of an event (made if new), by its key "R pid'". */
static struct wproc *
note_proc(struct mct_wrap *w, int64_t rank, const char *pid, size_t n)
{
	struct mct_mapent *e;
	struct wproc *p;
	int isnew;

	w->tmp.len = 0;
	mct_buf_addi(&w->tmp, rank);
	mct_buf_addc(&w->tmp, ' ');
	put_pid(&w->tmp, pid, n, rank);
	e = mct_map_add(&w->procs, w->tmp.p, w->tmp.len, &isnew);
	if (!isnew)
		return &w->proc[e->val.i];
	w->proc = mct_xgrow(w->proc, (size_t)w->nproc, sizeof(*w->proc));
	p = &w->proc[w->nproc];
	memset(p, 0, sizeof(*p));
	p->rank = rank;
	e->val.i = (int64_t)w->nproc++;
	return p;
}

/*
 * An event of a multi-rank stream, for the trace: into out, with its
 * pid, flow ids and process names its rank's own.  Returns 1 if it was
 * rewritten, 0 if it has no rank (out is not touched), -1 if it is a
 * process_sort_index, which mct_wrap_end() writes anew.
 */
int
mct_wrap_event(struct mct_wrap *w, struct mct_event *ev, struct mct_buf *out)
{
	struct mct_val v;
	struct wproc *p;
	int64_t rank, si = 0;
	size_t from = 0;
	int kp, ki, kb, ka, meta, bits = 0;

	if (mct_event_rank(ev, NULL, &rank, &v) != 0 || v.p == NULL ||
	    rank < 0)
		return 0;	/* (a source's rank alone: a trace of one rank) */
	meta = mct_is_meta(ev);
	kp = mct_key_at(ev, "pid");
	ki = meta ? -1 : mct_key_at(ev, "id");
	kb = meta ? -1 : mct_key_at(ev, "bind_id");
	ka = meta ? mct_key_at(ev, "args") : -1;
	out->len = 0;
	/* the keys in their order in the event */
	for (;;) {
		int k = -1, c[4] = { kp, ki, kb, ka }, i;

		for (i = 0; i < 4; i++)
			if (c[i] >= 0 && ev->kv[c[i]].voff >= from &&
			    (k < 0 || ev->kv[c[i]].voff < ev->kv[k].voff))
				k = c[i];
		if (k < 0)
			break;
		put_until(out, ev, &from, k);
		if (k == kp)
			put_pid(out, ev->json + ev->kv[k].voff, ev->kv[k].vlen,
			    rank);
		else if (k == ka)
			bits = put_margs(out, ev, k, rank, &w->tmp, &si);
		else
			put_id(out, ev, k, rank);
	}
	mct_buf_add(out, ev->json + from, ev->len - from);
	if (kp < 0)
		return bits >= 2 ? -1 : 1;
	p = note_proc(w, rank, ev->json + ev->kv[kp].voff, ev->kv[kp].vlen);
	if (bits == 1)
		p->named = 1;
	if (bits == 2 && !p->has_sort) {
		p->sort = si;
		p->has_sort = 1;
	}
	return bits >= 2 ? -1 : 1;
}

/* By rank; in a rank, those with a sort index by it, then the others. */
static int
cmp_proc(const void *a, const void *b)
{
	const struct wproc *x = *(const struct wproc *const *)a,
	    *y = *(const struct wproc *const *)b;

	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	if (x->has_sort != y->has_sort)
		return x->has_sort ? -1 : 1;
	if (x->has_sort && x->sort != y->sort)
		return x->sort < y->sort ? -1 : 1;
	return x < y ? -1 : x > y;	/* as they came */
}

/*
 * The metadata events the trace still needs, as ",\n"-led lines: a name
 * for every process that had none, and a sort index for every one: its
 * rank times 10^7 plus its place in its rank (by its own sort index,
 * then as it came), so the viewer shows the ranks in order.
 */
void
mct_wrap_end(struct mct_wrap *w, struct mct_buf *out)
{
	struct wproc **order;
	struct mct_mapent *e;
	size_t it = 0, i, place = 0;

	while ((e = mct_map_next(&w->procs, &it)) != NULL) {
		const char *sp = memchr(e->key, ' ', e->len);

		w->proc[e->val.i].pid = sp + 1;
		w->proc[e->val.i].npid = e->len - (size_t)(sp + 1 - e->key);
	}
	order = mct_xmalloc((w->nproc + 1) * sizeof(*order));
	for (i = 0; i < w->nproc; i++)
		order[i] = &w->proc[i];
	mct_sort(order, w->nproc, sizeof(*order), cmp_proc);
	for (i = 0; i < w->nproc; i++) {
		const struct wproc *p = order[i];

		place = i > 0 && order[i - 1]->rank == p->rank ? place + 1 : 0;
		if (!p->named) {
			mct_buf_adds(out, ",\n{\"name\":\"process_name\","
			    "\"ph\":\"M\",\"pid\":");
			mct_buf_add(out, p->pid, p->npid);
			mct_buf_adds(out, ",\"args\":{\"name\":\"rank ");
			mct_buf_addi(out, p->rank);
			mct_buf_adds(out, " \xc2\xb7 pid ");
			if (*p->pid == '"')	/* "rank R pid" */
				mct_buf_add(out, p->pid + 1, p->npid - 2);
			else
				mct_buf_addi(out, strtoll(p->pid, NULL, 10) -
				    p->rank * PID_STRIDE);
			mct_buf_adds(out, "\"}}");
		}
		mct_buf_adds(out, ",\n{\"name\":\"process_sort_index\","
		    "\"ph\":\"M\",\"pid\":");
		mct_buf_add(out, p->pid, p->npid);
		mct_buf_adds(out, ",\"args\":{\"sort_index\":");
		mct_buf_addi(out, p->rank * PID_STRIDE +
		    (int64_t)(place < PID_STRIDE ? place : PID_STRIDE - 1));
		mct_buf_adds(out, "}}");
	}
	free(order);
}

void
mct_wrap_free(struct mct_wrap *w)
{
	if (w == NULL)
		return;
	mct_map_free(&w->procs);
	free(w->proc);
	mct_buf_free(&w->tmp);
	free(w);
}
