/*
 * pairbe.c - Chrome's B/E duration events as X events (--pair-be).
 *
 * A B event opens a slice on its thread (pid, tid, of its operand) and
 * the next E on that thread closes the innermost open one, as Chrome's
 * viewer nests them: each matched pair becomes one X event with the B's
 * keys, "ph":"X", and "dur" (E's ts - B's ts) after "ts"; E's args are
 * merged into B's, E's value winning where both have a key (Chrome's
 * rule).  Every other event passes through unchanged.
 *
 * Memory is one stack per thread of the open B events' text, never the
 * events between them: an X is handed out when its E arrives, so the
 * output is in E order (the header says "sorted":false).  What cannot be
 * paired passes through unchanged and is counted: an E with nothing open
 * on its thread (or a ts before its B's), and the B events still open at
 * the end, handed out then; mct_pairbe_next() says how many at the end.
 *
 * mct_next() of a reader opened with --pair-be hands out what
 * mct_pairbe_next() makes of the events the reader feeds it (struct
 * mct_feed): it calls nothing of the reader's.
 */
#include "config.h"

#include <err.h>
#include <stdlib.h>
#include <string.h>

#include "mct_private.h"

/* An open B: its text and where it came from, for messages. */
struct open_b {
	struct mct_buf	 text;		/* kept for reuse when popped */
	int64_t		 ts;
	const char	*file;
	int		 source;
	unsigned long long where;
	int		 byline;
};

/* The open B events of one thread. */
struct stack {
	struct open_b	*b;
	int		 n, cap;
};

struct mct_pairbe {
	struct mct_feed	 feed;		/* the reader's events */
	struct mct_header hdr;		/* the reader's, "sorted":false */
	char		*line;
	struct mct_map	 threads;	/* source pid tid -> struct stack */
	struct mct_buf	 key;
	struct mct_buf	 out;		/* the event handed out, its text */
	struct mct_event ev;
	struct mct_event a, b;		/* args objects being merged */
	struct mct_event xb;		/* the B being made an X */
	struct stack	*cur;		/* the end: the thread being emptied */
	struct mct_event *pending;	/* the reader's E, handed out next */
	long long	 pairs, lone_e, lone_b, early_e;
	size_t		 flush;		/* the end: the next thread to empty */
	int		 flushing, flushed, at;	/* at: in cur */
};

/* The reader's header, saying the events are not in ts order. */
static void
unsorted_header(struct mct_pairbe *p, const struct mct_header *h)
{
	mct_header_unsorted(&p->hdr, &p->line, h);
}

/* Pairs of the events f feeds, whose header is h. */
struct mct_pairbe *
mct_pairbe_new(const struct mct_header *h, const struct mct_feed *f)
{
	struct mct_pairbe *p = mct_xmalloc(sizeof(*p));

	memset(p, 0, sizeof(*p));
	p->feed = *f;
	unsorted_header(p, h);
	mct_event_init(&p->ev, "", 0, &p->hdr);
	mct_event_init(&p->a, "", 0, &p->hdr);
	mct_event_init(&p->b, "", 0, &p->hdr);
	mct_event_init(&p->xb, "", 0, &p->hdr);
	return p;
}

const struct mct_header *
mct_pairbe_header(const struct mct_pairbe *p)
{
	return &p->hdr;
}

/* The thread of an event: its stack, made if new. */
static struct stack *
thread(struct mct_pairbe *p, struct mct_event *ev)
{
	struct mct_val v;
	struct mct_mapent *e;
	int isnew;

	p->key.len = 0;
	mct_buf_add(&p->key, &ev->source, sizeof(ev->source));
	if (mct_get_key(ev, "pid", &v) == 0)
		mct_buf_add(&p->key, v.p, v.len);
	mct_buf_addc(&p->key, '\0');
	if (mct_get_key(ev, "tid", &v) == 0)
		mct_buf_add(&p->key, v.p, v.len);
	e = mct_map_add(&p->threads, p->key.p, p->key.len, &isnew);
	if (isnew) {
		e->val.p = mct_xmalloc(sizeof(struct stack));
		memset(e->val.p, 0, sizeof(struct stack));
	}
	return e->val.p;
}

/* Push a B event. */
static void
push(struct stack *s, struct mct_event *ev, int64_t ts)
{
	struct open_b *b;

	if (s->n == s->cap) {
		s->cap = s->cap ? s->cap * 2 : 8;
		s->b = mct_xrealloc(s->b, (size_t)s->cap * sizeof(*s->b));
		memset(s->b + s->n, 0, (size_t)(s->cap - s->n) * sizeof(*s->b));
	}
	b = &s->b[s->n++];
	b->text.len = 0;
	mct_buf_add(&b->text, ev->json, ev->len);
	mct_buf_addc(&b->text, '\0');
	b->ts = ts;
	b->file = ev->file;
	b->source = ev->source;
	b->where = ev->where;
	b->byline = ev->byline;
}

/* Hand out the text in p->out (a line end after it) as an event. */
static struct mct_event *
hand_out(struct mct_pairbe *p, const char *file, int source,
    unsigned long long where, int byline)
{
	mct_buf_addc(&p->out, '\n');
	mct_event_set(&p->ev, p->out.p, p->out.len - 1);
	p->ev.file = file;
	p->ev.source = source;
	p->ev.where = where;
	p->ev.byline = byline;
	return &p->ev;
}

/* An open B as it came. */
static struct mct_event *
hand_out_b(struct mct_pairbe *p, const struct open_b *b)
{
	p->out.len = 0;
	mct_buf_add(&p->out, b->text.p, b->text.len - 1);
	return hand_out(p, b->file, b->source, b->where, b->byline);
}

/* Has the indexed object ev a key k (raw, n bytes)? */
static int
has_key(const struct mct_event *ev, const char *k, uint32_t n)
{
	int i;

	for (i = 0; i < ev->nkv; i++)
		if (ev->kv[i].klen == n && memcmp(ev->json + ev->kv[i].koff, k,
		    n) == 0)
			return 1;
	return 0;
}

/* Append member i of the indexed object ev, "key":value. */
static void
member(struct mct_buf *b, const struct mct_event *ev, int i)
{
	const struct mct_kv *kv = &ev->kv[i];

	mct_buf_add(b, ev->json + kv->koff - 1, kv->voff + kv->vlen -
	    kv->koff + 1);
}

/* Append the members of object x whose keys y has not, then y's. */
static void
merge_args(struct mct_pairbe *p, const struct mct_val *x,
    const struct mct_val *y)
{
	int i, n = 0;

	mct_event_set(&p->a, x->p, x->len);
	mct_event_set(&p->b, y->p, y->len);
	mct_event_index(&p->a);
	mct_event_index(&p->b);
	mct_buf_addc(&p->out, '{');
	for (i = 0; i < p->a.nkv; i++) {
		if (has_key(&p->b, p->a.json + p->a.kv[i].koff,
		    p->a.kv[i].klen))
			continue;
		if (n++)
			mct_buf_addc(&p->out, ',');
		member(&p->out, &p->a, i);
	}
	for (i = 0; i < p->b.nkv; i++) {
		if (n++)
			mct_buf_addc(&p->out, ',');
		member(&p->out, &p->b, i);
	}
	mct_buf_addc(&p->out, '}');
}

/* The X event of B b closed by E e, dur ns later. */
static struct mct_event *
make_x(struct mct_pairbe *p, const struct open_b *b, struct mct_event *e,
    int64_t dur)
{
	struct mct_event *x = &p->xb;
	struct mct_val ea, ba;
	int i, n = 0, eargs;

	/* E's args count if they are a non-empty object */
	eargs = mct_get_key(e, "args", &ea) == 0 && ea.type == MCT_J_OBJECT &&
	    ea.len > 2;
	mct_event_set(x, b->text.p, b->text.len - 1);
	mct_event_index(x);
	p->out.len = 0;
	mct_buf_addc(&p->out, '{');
	for (i = 0; i < x->nkv; i++) {
		const struct mct_kv *kv = &x->kv[i];
		const char *k = x->json + kv->koff;

		if (kv->klen == 3 && memcmp(k, "dur", 3) == 0)
			continue;	/* ours follows ts */
		if (n++)
			mct_buf_addc(&p->out, ',');
		if (kv->klen == 2 && memcmp(k, "ph", 2) == 0)
			mct_buf_adds(&p->out, "\"ph\":\"X\"");
		else if (eargs && kv->klen == 4 && memcmp(k, "args", 4) == 0 &&
		    mct_get_key(x, "args", &ba) == 0 && ba.type == MCT_J_OBJECT) {
			mct_buf_adds(&p->out, "\"args\":");
			merge_args(p, &ba, &ea);
			eargs = 0;
		} else
			member(&p->out, x, i);
		if (kv->klen == 2 && memcmp(k, "ts", 2) == 0) {
			mct_buf_adds(&p->out, ",\"dur\":");
			mct_buf_addi(&p->out, dur);
		}
	}
	if (eargs && mct_get_key(x, "args", &ba) != 0) {
		/* B had no args: E's are the slice's */
		mct_buf_adds(&p->out, n ? ",\"args\":" : "\"args\":");
		mct_buf_add(&p->out, ea.p, ea.len);
	}
	mct_buf_addc(&p->out, '}');
	return hand_out(p, b->file, b->source, b->where, b->byline);
}

/* The end of the input: the B events never closed, then the counts. */
static int
flush(struct mct_pairbe *p, struct mct_event **evp)
{
	struct mct_mapent *e;

	p->flushing = 1;
	for (;;) {
		if (p->cur == NULL) {
			if ((e = mct_map_next(&p->threads, &p->flush)) == NULL)
				break;
			p->cur = e->val.p;
			p->at = 0;
		}
		if (p->at < p->cur->n) {
			p->lone_b++;
			*evp = hand_out_b(p, &p->cur->b[p->at++]);
			return 1;
		}
		p->cur = NULL;
	}
	if (!p->flushed && (p->lone_e || p->lone_b || p->early_e))
		warnx("--pair-be: %lld B/E pairs made X events; passed on "
		    "unchanged: %lld E with no open B on its thread, %lld B "
		    "never closed, %lld E before its B", p->pairs, p->lone_e,
		    p->lone_b, p->early_e);
	p->flushed = 1;
	return 0;
}

/*
 * The next event fed, B/E pairs made X: 1 with it in *evp (valid until
 * the next call), 0 at the end.
 */
int
mct_pairbe_next(struct mct_pairbe *p, struct mct_event **evp)
{
	struct mct_event *ev;
	struct mct_val ph;
	struct open_b *b;
	struct stack *s;
	int64_t ts;

	if (p->pending != NULL) {
		*evp = p->pending;
		p->pending = NULL;
		return 1;
	}
	while (!p->flushing && p->feed.next(p->feed.arg, -1, &ev)) {
		if (mct_get_key(ev, "ph", &ph) != 0 || ph.type != MCT_J_STRING ||
		    ph.len != 3 || (ph.p[1] != 'B' && ph.p[1] != 'E') ||
		    mct_get_ns(ev, "ts", &ts) != 0) {
			*evp = ev;
			return 1;
		}
		s = thread(p, ev);
		if (ph.p[1] == 'B') {
			push(s, ev, ts);
			continue;
		}
		if (s->n == 0) {
			p->lone_e++;
			*evp = ev;
			return 1;
		}
		b = &s->b[--s->n];
		if (ts < b->ts) {
			/* no slice ends before it starts: both as they came */
			p->early_e++;
			p->pending = ev;	/* the reader's, until next() */
			*evp = hand_out_b(p, b);
			return 1;
		}
		p->pairs++;
		*evp = make_x(p, b, ev, mct_sat_sub(ts, b->ts));
		return 1;
	}
	return flush(p, evp);
}

void
mct_pairbe_free(struct mct_pairbe *p)
{
	struct mct_mapent *e;
	size_t it = 0;
	int i;

	if (p == NULL)
		return;
	while ((e = mct_map_next(&p->threads, &it)) != NULL) {
		struct stack *s = e->val.p;

		for (i = 0; i < s->cap; i++)
			mct_buf_free(&s->b[i].text);
		free(s->b);
		free(s);
	}
	mct_map_free(&p->threads);
	mct_buf_free(&p->key);
	mct_buf_free(&p->out);
	mct_event_free(&p->ev);
	mct_event_free(&p->a);
	mct_event_free(&p->b);
	mct_event_free(&p->xb);
	free(p->line);
	free(p);
}
