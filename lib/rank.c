/*
 * rank.c - many ranks of one job (mct(7), Ranks).
 *
 * The rank of each source: given (--rank=N), its position (--rank=order),
 * or by the rules: the source's distributedInfo.rank (Kineto), else the
 * number after "rank" in its file name (rank-3, rank_3, rank3), else its
 * position.  Two sources of one rank are an error: their correlation ids
 * and pids would mix.  The reader calls mct_rank_decide() once pass 1
 * has learnt every source's top-level keys, then mct_rank_align() for the
 * ts shift of --align, and mct_rank_line() on each event line.
 *
 * The second half makes a multi-rank stream one trace for the viewers
 * (mct-cat --wrap): the pids of rank R become R * 10^7 + pid, flow ids
 * R * 10^12 + id, so no process or flow of one rank joins another's;
 * process names become "rank R · name", and every process gets a
 * process_sort_index that orders the ranks.
 */
#include "config.h"

#include <err.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "mct.h"

#define PID_STRIDE	INT64_C(10000000)	/* pid of rank R: R * this + pid */
#define ID_STRIDE	INT64_C(1000000000000)	/* flow id of rank R */

/* The number after "rank" in the last part of a path.  Returns 0 if any. */
int
mct_rank_in_name(const char *path, int64_t *rank)
{
	const char *base = strrchr(path, '/'), *p, *d;

	base = base ? base + 1 : path;
	for (p = base; (p = strcasestr(p, "rank")) != NULL; p += 4) {
		d = p + 4;
		if (*d == '-' || *d == '_')
			d++;
		if (*d >= '0' && *d <= '9') {
			size_t n = strspn(d, "0123456789");

			if (n <= 9 && mct_int(d, n, rank) == 0)
				return 0;
		}
	}
	return -1;
}

/* distributedInfo.rank in a source's top-level keys.  Returns 0 if set. */
int
mct_rank_in_top(const char *top, int64_t *rank)
{
	struct mct_buf obj = { 0 };
	struct mct_event ev;
	struct mct_field f;
	struct mct_val v;
	int rc = -1;

	if (top == NULL || mct_field_parse("distributedInfo.rank", &f) != 0)
		return -1;
	mct_buf_addc(&obj, '{');
	mct_buf_adds(&obj, top);
	mct_buf_addc(&obj, '}');
	mct_event_init(&ev, obj.p, obj.len, NULL);
	if (mct_get(&ev, &f, &v) == 0 && v.type == MCT_J_NUMBER &&
	    mct_int(v.p, v.len, rank) == 0 && *rank >= 0)
		rc = 0;
	mct_event_free(&ev);
	mct_field_free(&f);
	mct_buf_free(&obj);
	return rc;
}

/* The rank of source i by the rules. */
static void
by_rules(struct mct_source *s, int i)
{
	if (mct_rank_in_top(s->top, &s->rank) == 0)
		s->rank_from = "distributedInfo";
	else if (strcmp(s->path, "-") != 0 &&
	    mct_rank_in_name(s->path, &s->rank) == 0)
		s->rank_from = "file name";
	else {
		s->rank = i;
		s->rank_from = "order";
	}
}

/*
 * Give every source its rank, if the run has ranks: with --rank every
 * operand, else every trace operand when more than one is read (streams
 * are not ranks by themselves: `mct-cat --wrap t.nd phases.nd` is one
 * trace and its track).  A stream that already carries ranks keeps them.
 * One trace read alone has the rank it says (distributedInfo.rank: one
 * rank of a job), its lines left as they are: the header says it.
 * Returns 1 if the event lines get rank keys, 0 if not, -1 (said) if two
 * sources have one rank.
 */
int
mct_rank_decide(struct mct_source *src, int n, const struct mct_opts *o)
{
	int i, j, ranked = 0, ntrace = 0, alone, said = 0;
	int64_t rank;

	for (i = 0; i < n; i++) {
		if (src[i].ranks_inside)
			ranked = 1;
		if (src[i].ok && !src[i].stream && !src[i].notrace)
			ntrace++;
	}
	alone = o->rank == MCT_RANK_AUTO && ntrace < 2;
	for (i = 0; i < n; i++) {
		struct mct_source *s = &src[i];

		if (!s->ok || s->ranks_inside || s->notrace ||
		    (s->stream && o->rank == MCT_RANK_AUTO))
			continue;
		if (alone) {
			if (mct_rank_in_top(s->top, &rank) == 0) {
				s->rank = rank;
				s->rank_from = "distributedInfo";
				said = 1;
			}
		} else if (o->rank == MCT_RANK_GIVEN) {
			s->rank = o->rank_n;
			s->rank_from = "option";
		} else if (o->rank == MCT_RANK_ORDER) {
			s->rank = i;
			s->rank_from = "order";
		} else
			by_rules(s, i);
	}
	if (alone && !said)
		return ranked;
	for (i = 0; i < n; i++)
		for (j = i + 1; j < n; j++)
			if (src[i].ok && src[j].ok && src[i].rank >= 0 &&
			    src[i].rank == src[j].rank) {
				warnx("%s and %s both have rank %lld (by %s and "
				    "by %s); --rank=order numbers the operands "
				    "0, 1, ...", src[i].name, src[j].name,
				    (long long)src[i].rank, src[i].rank_from,
				    src[j].rank_from);
				return -1;
			}
	return alone ? ranked : 1;
}

/*
 * The ts shift of every source (--align): to the earliest source's first
 * event (start), or so that each source's first event named NAME starts
 * with the earliest of them.  Returns 0, or -1 (said) if a source has no
 * such event.
 */
int
mct_rank_align(struct mct_source *src, int n, const struct mct_opts *o)
{
	int64_t target = 0;
	int i, have = 0;

	if (o->align == MCT_ALIGN_NONE)
		return 0;
	for (i = 0; i < n; i++) {
		struct mct_source *s = &src[i];
		int64_t t = o->align == MCT_ALIGN_START ? s->origin : s->mark;
		int set = o->align == MCT_ALIGN_START ? s->has_origin :
		    s->has_mark;

		if (!s->ok)
			continue;
		if (!set && o->align == MCT_ALIGN_NAME) {
			warnx("%s: --align: no event named '%s'%s", s->name,
			    o->align_name, s->stream ? " (a stream is aligned "
			    "by name only when read as a trace file)" : "");
			return -1;
		}
		if (set && !MCT_SANE_NS(t)) {
			warnx("%s: --align: the time to align, %lld ns, is out "
			    "of range", s->name, (long long)t);
			return -1;
		}
		if (set && (!have || t < target))
			target = t;
		have |= set;
	}
	for (i = 0; i < n; i++) {
		struct mct_source *s = &src[i];

		if (s->ok && (o->align == MCT_ALIGN_START ? s->has_origin :
		    s->has_mark))
			s->shift = target - (o->align == MCT_ALIGN_START ?
			    s->origin : s->mark);
	}
	return 0;
}

/* The index of a first-level key of an indexed event, or -1. */
static int
key_at(const struct mct_event *ev, const char *key)
{
	size_t n = strlen(key);
	int i;

	for (i = ev->nkv - 1; i >= 0; i--)
		if (ev->kv[i].klen == n &&
		    memcmp(ev->json + ev->kv[i].koff, key, n) == 0)
			return i;
	return -1;
}

/*
 * Has the object (len bytes, '}' last) a key?  Without an index, which
 * costs more than the rest of the line's work: the reader's lines are
 * whole objects, so anything but space between the braces is a key.
 */
static int
has_keys(const struct mct_event *ev, size_t len)
{
	size_t i;

	if (ev->indexed)
		return ev->nkv > 0;
	for (i = 1; i + 1 < len; i++)
		if (!(ev->json[i] == ' ' || ev->json[i] == '\t' ||
		    ev->json[i] == '\n' || ev->json[i] == '\r'))
			return 1;
	return 0;
}

/*
 * An event line with its ts shifted and, if rank >= 0, a rank key
 * appended, into out (a newline after it, not counted).  Returns 0, or
 * -1 if the line is not an object (nothing written).
 */
int
mct_rank_line(struct mct_event *ev, int64_t rank, int64_t shift,
    struct mct_buf *out)
{
	const char *j = ev->json;
	char tail[40], digits[20];
	size_t len = ev->len, from = 0, n, d;
	int64_t ts;
	int k;

	while (len > 0 && (j[len - 1] == ' ' || j[len - 1] == '\r'))
		len--;
	if (len < 2 || j[len - 1] != '}')
		return -1;
	out->len = 0;
	if (shift != 0)
		mct_event_index(ev);
	if (shift != 0 && (k = key_at(ev, "ts")) >= 0 &&
	    mct_int(j + ev->kv[k].voff, ev->kv[k].vlen, &ts) == 0 &&
	    MCT_SANE_NS(ts)) {
		mct_buf_add(out, j, ev->kv[k].voff);
		mct_buf_addi(out, ts + shift);
		from = ev->kv[k].voff + ev->kv[k].vlen;
	}
	mct_buf_add(out, j + from, len - 1 - from);
	/* the tail made on the stack, added at once: this runs per event */
	n = 0;
	if (rank >= 0) {
		if (has_keys(ev, len))
			tail[n++] = ',';
		memcpy(tail + n, "\"rank\":", 7);
		n += 7;
		d = sizeof(digits);
		do
			digits[--d] = (char)('0' + rank % 10);
		while ((rank /= 10) > 0);
		memcpy(tail + n, digits + d, sizeof(digits) - d);
		n += sizeof(digits) - d;
	}
	tail[n++] = '}';
	tail[n++] = '\n';
	mct_buf_add(out, tail, n);
	out->len--;
	return 0;
}

/* ---------------------------------------------------------------- */
/* One trace of many ranks. */

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
	    (i = key_at(&a, "name")) >= 0 &&
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
		bit = (i = key_at(&a, "sort_index")) >= 0 &&
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
	kp = key_at(ev, "pid");
	ki = meta ? -1 : key_at(ev, "id");
	kb = meta ? -1 : key_at(ev, "bind_id");
	ka = meta ? key_at(ev, "args") : -1;
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
