/*
 * merge.c - the events of every operand in one ts order (mct_next() of a
 * reader opened with --merge), in bounded memory: a k-way merge of sorted
 * runs.  The reader feeds it (struct mct_feed): it calls nothing of the
 * reader's.
 *
 * An operand that pass 1 saw in ts order, and that the reader can read in
 * turns with others (a plain trace file, framed again in pass 2), is a run
 * by itself: it is read in place, one event at a time, its head copied to
 * a buffer of its own.  Every other operand is read once, at open, into
 * sorted runs in one unlinked spool file in $TMPDIR: a stream (its header
 * may say sorted wrongly) is copied as it comes, a new run begun wherever
 * its order breaks; an unsorted operand is cut into chunks of CHUNK bytes,
 * each sorted in memory and written as a run.  mct_merge_next() then
 * merges all runs with a heap, each spooled run read through a small
 * buffer, so memory is one chunk, plus a buffer a run and the longest
 * event of each operand read in place, whatever the size of the input.
 *
 * The order: ts; events with the same ts by rank, then in input order
 * (operand, then place in it).  An event without an integer ts, or an M
 * event, takes the key of the event before it in its operand (the
 * smallest time if it comes first), so metadata stays where it was.
 *
 * A record in the spool: key, rank, sequence number in its operand (int64
 * each), the length of the line (uint32), the line and a newline.
 */
#include "config.h"

#include <err.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mct_private.h"

#define CHUNK		(4u << 20)	/* bytes of events sorted in memory */
#define RUNBUF		(64u << 10)	/* read buffer of a run */
#define RUNBUFS		(16u << 20)	/* all run buffers together, at most */
#define RUNBUF_MIN	(4u << 10)
#define RECHEAD		28		/* key, rank, seq, length */

struct item {
	int64_t		 key, rank;
	uint64_t	 seq;
	size_t		 off;		/* the line in the chunk */
	uint32_t	 len;
};

struct run {
	long long	 pos, to;	/* what is left of it in the spool */
	int		 src;		/* its operand */
	int		 live;		/* the operand itself, read in place */
	char		*buf;		/* a live run's: a copy of its head */
	size_t		 cap, at, end;
	/* its head record */
	int64_t		 key, rank;
	uint64_t	 seq;
	const char	*line;
	uint32_t	 len;
};

struct mct_merge {
	struct mct_feed	 feed;		/* the reader's events */
	const struct mct_header *hdr;
	FILE		*spool;		/* made when an operand needs it */
	char		*spoolvb;	/* its buffer */
	int		 fd;
	int		 bad;		/* the spool failed (said) */
	struct run	*run;
	size_t		 nrun, caprun;
	size_t		*heap, nheap;
	/* the chunk being filled */
	struct mct_buf	 chunk;
	struct item	*item;
	size_t		 nitem, capitem;
	int		 chunk_src;
	size_t		 chunkmax;	/* CHUNK, or $MCT_MERGE_CHUNK for tests */
	int64_t		*last_rank, *last_key;	/* a stream of ranks: by rank */
	size_t		 nlast;
	struct mct_event ev;
	struct run	*last;		/* whose head ev is: advanced next call */
};

static void
spool_bad(struct mct_merge *m)
{
	if (!m->bad)
		warn("merge: spool file in $TMPDIR");
	m->bad = 1;
	mct_cutoff_arm();
}

static void
put(struct mct_merge *m, const void *p, size_t n)
{
	if (!m->bad && fwrite(p, 1, n, m->spool) != n)
		spool_bad(m);
}

/* Where the spool ends: a run begins or ends there. */
static long long
spool_end(struct mct_merge *m)
{
	if (m->bad)
		return 0;
	if (fflush(m->spool) != 0) {
		spool_bad(m);
		return 0;
	}
	return ftello(m->spool);
}

static void
put_record(struct mct_merge *m, int64_t key, int64_t rank, uint64_t seq,
    const char *line, uint32_t len)
{
	char h[RECHEAD];

	memcpy(h, &key, 8);
	memcpy(h + 8, &rank, 8);
	memcpy(h + 16, &seq, 8);
	memcpy(h + 24, &len, 4);
	put(m, h, RECHEAD);
	put(m, line, len);
	put(m, "\n", 1);
}

/* A new run of operand src. */
static struct run *
run_add(struct mct_merge *m, int src)
{
	struct run *u;

	if (m->nrun == m->caprun) {
		m->caprun = m->caprun ? m->caprun * 2 : 16;
		m->run = mct_xrealloc(m->run, m->caprun * sizeof(*m->run));
	}
	u = &m->run[m->nrun++];
	memset(u, 0, sizeof(*u));
	u->src = src;
	return u;
}

/* A new run of operand src, from here in the spool (made if need be). */
static void
run_begin(struct mct_merge *m, int src)
{
	struct run *u;

	if (m->spool == NULL && !m->bad) {
		if ((m->spool = mct_tmpfile(NULL, &m->spoolvb)) == NULL)
			m->bad = 1;	/* said */
		else
			m->fd = fileno(m->spool);
	}
	u = run_add(m, src);
	u->pos = spool_end(m);
	u->to = -1;		/* open */
}

static void
run_end(struct mct_merge *m)
{
	if (m->nrun > 0 && m->run[m->nrun - 1].to == -1)
		m->run[m->nrun - 1].to = spool_end(m);
}

static int
item_cmp(const void *a, const void *b)
{
	const struct item *x = a, *y = b;

	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* Sort the chunk and write it as a run. */
static void
chunk_flush(struct mct_merge *m)
{
	size_t i;

	if (m->nitem == 0)
		return;
	mct_sort(m->item, m->nitem, sizeof(*m->item), item_cmp);
	run_end(m);
	run_begin(m, m->chunk_src);
	for (i = 0; i < m->nitem; i++) {
		const struct item *it = &m->item[i];

		put_record(m, it->key, it->rank, it->seq, m->chunk.p + it->off,
		    it->len);
	}
	run_end(m);
	m->nitem = 0;
	m->chunk.len = 0;
}

static void
chunk_add(struct mct_merge *m, int64_t key, int64_t rank, uint64_t seq,
    const struct mct_event *ev)
{
	struct item *it;

	if (m->nitem == m->capitem) {
		m->capitem = m->capitem ? m->capitem * 2 : 4096;
		m->item = mct_xrealloc(m->item, m->capitem * sizeof(*m->item));
	}
	it = &m->item[m->nitem++];
	it->key = key;
	it->rank = rank;
	it->seq = seq;
	it->off = m->chunk.len;
	it->len = (uint32_t)ev->len;
	if (m->chunk.cap == 0)	/* room for a full chunk and the event that fills it */
		mct_buf_grow(&m->chunk, m->chunkmax + (64u << 10));
	mct_buf_add(&m->chunk, ev->json, ev->len);
	if (m->chunk.len >= m->chunkmax)
		chunk_flush(m);
}

/* The event's merge key, or the last one of its operand. */
static int64_t
key_of(struct mct_event *ev, int64_t last)
{
	int64_t ts;

	if (mct_get_ns(ev, "ts", &ts) != 0 || mct_is_meta(ev))
		return last;
	return ts;
}

/* The event's rank (mct_event_rank()), or -1 if it has no integer one. */
static int64_t
rank_of(struct mct_event *ev)
{
	int64_t rank;

	return mct_event_rank(ev, NULL, &rank, NULL) == 0 ? rank :
	    MCT_RANK_NONE;
}

/*
 * The last key of a rank in a stream of several: an M event of a rank
 * keeps its place after that rank's event before it, as it would in the
 * rank's own file.  Returns the rank's slot (made if new).
 */
static int64_t *
last_key(struct mct_merge *m, int64_t rank)
{
	size_t i;

	for (i = 0; i < m->nlast; i++)
		if (m->last_rank[i] == rank)
			return &m->last_key[i];
	m->last_rank = mct_xrealloc(m->last_rank, (i + 1) * sizeof(int64_t));
	m->last_key = mct_xrealloc(m->last_key, (i + 1) * sizeof(int64_t));
	m->last_rank[i] = rank;
	m->last_key[i] = INT64_MIN;
	m->nlast++;
	return &m->last_key[i];
}

/* Read every event of operand i into sorted runs in the spool. */
static void
spill(struct mct_merge *m, int i)
{
	const struct mct_source *s = &m->hdr->src[i];
	struct mct_event *ev;
	int64_t key = INT64_MIN, prev = INT64_MIN, *kp, rank;
	uint64_t seq = 0;

	m->nlast = 0;
	m->chunk_src = i;
	while (m->feed.next(m->feed.arg, i, &ev)) {
		if (ev->len > UINT32_MAX - 1)
			continue;	/* cannot be: the reader holds lines in memory */
		rank = rank_of(ev);
		kp = s->ranks_inside ? last_key(m, rank) : &key;
		key = *kp = key_of(ev, *kp);
		if (!s->facts.sorted) {
			chunk_add(m, key, rank, seq++, ev);
			continue;
		}
		if (seq == 0 || key < prev) {	/* not in order after all: a new run */
			run_end(m);
			run_begin(m, i);
		}
		prev = key;
		put_record(m, key, rank, seq++, ev->json, (uint32_t)ev->len);
	}
	chunk_flush(m);
	run_end(m);
}

/*
 * The next event of a live run into its head.  Returns 0 at its end.
 * Its key never goes back: pass 1 saw the operand in order (were the
 * file changed since, the reader says so).
 */
static int
live_next(struct mct_merge *m, struct run *u)
{
	struct mct_event *ev;
	int64_t key;

	do
		if (!m->feed.next(m->feed.arg, u->src, &ev))
			return 0;
	while (ev->len > UINT32_MAX - 1);
	if ((key = key_of(ev, u->key)) > u->key)
		u->key = key;
	u->rank = rank_of(ev);
	u->seq = ev->where - 1;
	if (ev->len + 1 > u->cap) {
		u->cap = ev->len + 1 + 256;
		free(u->buf);
		u->buf = mct_xmalloc(u->cap);
	}
	memcpy(u->buf, ev->json, ev->len);
	u->buf[ev->len] = '\n';	/* as a spool line has: written at once */
	u->line = u->buf;
	u->len = (uint32_t)ev->len;
	return 1;
}

/* The next record of a run into its head.  Returns 0 at its end. */
static int
run_next(struct mct_merge *m, struct run *u)
{
	uint32_t len;
	size_t need;
	ssize_t n;

	if (u->live)
		return live_next(m, u);
	for (;;) {
		if (u->end - u->at >= RECHEAD) {
			memcpy(&len, u->buf + u->at + 24, 4);
			need = RECHEAD + (size_t)len + 1;
			if (u->end - u->at >= need)
				break;
		} else
			need = RECHEAD;
		if (u->pos >= u->to || m->bad)
			return 0;
		if (u->at > 0) {
			memmove(u->buf, u->buf + u->at, u->end - u->at);
			u->end -= u->at;
			u->at = 0;
		}
		if (need > u->cap) {
			u->cap = need;
			u->buf = mct_xrealloc(u->buf, u->cap);
		}
		do
			n = pread(m->fd, u->buf + u->end, (size_t)(u->to - u->pos) <
			    u->cap - u->end ? (size_t)(u->to - u->pos) :
			    u->cap - u->end, u->pos);
		while (n == -1 && errno == EINTR);
		if (n <= 0) {
			spool_bad(m);
			return 0;
		}
		u->pos += n;
		u->end += (size_t)n;
	}
	memcpy(&u->key, u->buf + u->at, 8);
	memcpy(&u->rank, u->buf + u->at + 8, 8);
	memcpy(&u->seq, u->buf + u->at + 16, 8);
	u->len = len;
	u->line = u->buf + u->at + RECHEAD;
	u->at += need;
	return 1;
}

/* Does run a come before run b? */
static int
before(const struct mct_merge *m, size_t a, size_t b)
{
	const struct run *x = &m->run[a], *y = &m->run[b];

	if (x->key != y->key)
		return x->key < y->key;
	if (x->rank != y->rank)
		return x->rank < y->rank;
	if (x->src != y->src)
		return x->src < y->src;
	return x->seq < y->seq;
}

static void
sift_down(struct mct_merge *m, size_t i)
{
	size_t c, t;

	for (;;) {
		c = 2 * i + 1;
		if (c >= m->nheap)
			return;
		if (c + 1 < m->nheap && before(m, m->heap[c + 1], m->heap[c]))
			c++;
		if (!before(m, m->heap[c], m->heap[i]))
			return;
		t = m->heap[c];
		m->heap[c] = m->heap[i];
		m->heap[i] = t;
		i = c;
	}
}

/* Is operand i read in place: sorted (pass 1 saw it) and readable in turns? */
static int
in_place(const struct mct_merge *m, int i)
{
	const struct mct_source *s = &m->hdr->src[i];

	return s->ok && !s->stream && s->facts.sorted && m->feed.turns[i];
}

/*
 * Read every operand of header h that is not read in place into sorted
 * runs, its events taken from f; then mct_merge_next() hands out the
 * events of all in ts order.  Returns NULL (said) if the spool cannot be
 * made.
 */
struct mct_merge *
mct_merge_open(const struct mct_header *h, const struct mct_feed *f)
{
	struct mct_merge *m = mct_xmalloc(sizeof(*m));
	const char *env = getenv("MCT_MERGE_CHUNK");
	size_t i, bufsz;
	int k;

	memset(m, 0, sizeof(*m));
	m->feed = *f;
	m->hdr = h;
	m->chunkmax = env && atol(env) > 0 ? (size_t)atol(env) : CHUNK;
	for (k = 0; k < m->hdr->nsrc && !m->bad; k++)
		if (!in_place(m, k))
			spill(m, k);
	mct_buf_free(&m->chunk);
	free(m->last_rank);
	free(m->last_key);
	free(m->item);
	if (m->bad) {
		mct_merge_close(m);
		return NULL;
	}
	bufsz = m->nrun > 0 && RUNBUFS / m->nrun < RUNBUF ?
	    RUNBUFS / m->nrun : RUNBUF;
	if (bufsz < RUNBUF_MIN)
		bufsz = RUNBUF_MIN;
	for (i = 0; i < m->nrun; i++) {
		m->run[i].cap = bufsz;
		m->run[i].buf = mct_xmalloc(bufsz);
	}
	for (k = 0; k < m->hdr->nsrc; k++)
		if (in_place(m, k)) {
			struct run *u = run_add(m, k);

			u->live = 1;
			u->key = INT64_MIN;
		}
	m->heap = mct_xmalloc((m->nrun + 1) * sizeof(*m->heap));
	for (i = 0; i < m->nrun; i++)
		if ((m->run[i].live || m->run[i].to > m->run[i].pos) &&
		    run_next(m, &m->run[i]))
			m->heap[m->nheap++] = i;
	for (i = m->nheap; i-- > 0;)
		sift_down(m, i);
	mct_event_init(&m->ev, "", 0, m->hdr);
	return m;
}

/* The next event in ts order, or 0 at the end.  It is the merge's. */
int
mct_merge_next(struct mct_merge *m, struct mct_event **evp)
{
	struct run *u;

	if (m->last != NULL) {
		/* the run of the event handed out last moves on */
		if (!run_next(m, m->last))
			m->heap[0] = m->heap[--m->nheap];
		sift_down(m, 0);
		m->last = NULL;
	}
	if (m->nheap == 0)
		return 0;
	u = &m->run[m->heap[0]];
	mct_event_set(&m->ev, u->line, u->len);
	m->ev.source = u->src;
	m->ev.file = m->hdr->src[u->src].name;
	m->ev.where = u->seq + 1;
	m->last = u;
	*evp = &m->ev;
	return 1;
}

/* Free it all.  Returns MCT_EXIT_USAGE if the spool failed, else 0. */
int
mct_merge_close(struct mct_merge *m)
{
	size_t i;
	int status;

	if (m == NULL)
		return MCT_EXIT_USAGE;
	status = m->bad ? MCT_EXIT_USAGE : MCT_EXIT_OK;
	for (i = 0; i < m->nrun; i++)
		free(m->run[i].buf);
	free(m->run);
	free(m->heap);
	mct_event_free(&m->ev);
	if (m->spool)
		fclose(m->spool);
	free(m->spoolvb);
	free(m);
	return status;
}
