/*
 * read_blocks.c - pass 1 of a trace that comes as a stream of bytes (gzip,
 * a pipe) by threads (blocks_frame()).  Its events go to the spool
 * compacted, so pass 1 is most of the work; one thread framed it while
 * the others waited.  Now the bytes are cut into blocks, each with a copy
 * of the next block's first bytes (OVERLAP), and a thread frames each
 * block quietly into lines of its own: from where an event seems to start
 * in it (frame_resync()'s rule) to the first event at or after the next
 * block's start.  One CPU less than there are
 * threads: the reader's thread frames blocks too while it waits for the
 * next to take, rather than wake another to do it (every hand-over costs
 * a wake-up, slow on a virtual machine).  The operand's framer takes
 * the blocks' lines in order, when the block before stopped exactly where
 * this one began (as parts_frame() checks its parts) and nothing in it was
 * damaged.  At the first block that fails so, and for the last block, the
 * operand's framer goes on itself, aloud, from where the last good block
 * stopped: through the blocks it still holds, then the source.  So the
 * spool, the facts and the messages are those of one framer alone.
 *
 * On the way, each block's times are converted to ns from a guess of the
 * unit (below, guess_event()), so that pass 2 only copies them.
 *
 * Calls read_frame.c, read_edit.c and read_spool.c.
 */
#include "config.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mct.h"
#include "read_private.h"

#define BLOCK	(256 * 1024)
#define SPLIT_MAX	(64LL << 20)	/* MCT_SPLIT above: blocks are off */
#define OVERLAP	(64 * 1024)
#if CONTEXT > MCT_SRC_BEFORE || OVERLAP + 1 > MCT_SRC_AFTER
#error "a block's buffer has no room for its context and overlap"
#endif

struct block {
	char		*p;		/* its own bytes, then some of the next's */
	size_t		 own, len;
	size_t		 ctx;		/* bytes of the block before, before p */
	unsigned long long base;	/* the source offset of p[0] */
	int		 k;		/* the block it holds; -1: the slot is free */
	int		 ready;		/* the next block's bytes are there */
	int		 done;		/* framed */
	long long	 start;		/* where its framing began; -1: nowhere */
	int		 state;		/* the framer's state there */
	long long	 stopped_at;	/* and where it stopped, -1: at the end */
	int		 stop_state, stop_sep;
	struct facts	 fx;
	struct mct_buf	 lines;		/* its events, compact, a line each */
	int		 guess;		/* lines has ns times (guess_event()) */
	int		 nbig;		/* times it left as written: too big */
	int		 nbigsay;	/* the first ones (SAY_MAX at most): */
	unsigned long long bigat[SAY_MAX];	/* event, from 1 */
	size_t		 bigend[SAY_MAX];	/* where its text ends */
	struct mct_buf	 big;		/* their texts */
	struct mct_buf	 conv;		/* scratch */
	struct spans	 t;
};

struct blocks {
	struct input	*in;
	pthread_mutex_t	 mu;
	pthread_cond_t	 work;		/* a block is ready, or stop */
	pthread_cond_t	 done;		/* a block was framed */
	pthread_t	 tid[MAX_PARTS];
	int		 nthr;
	struct framer	 mine;		/* the reader's thread's, for blocks */
	struct block	*slot;
	int		 nslot;
	size_t		 blocksz;
	int		 next;		/* the block a thread frames next */
	int		 stop;
	int		 srcerr;	/* the source's last read failed */
	enum mct_unit	 unit;		/* read_guess_unit(); NS: no guess */
	struct rbuf	 lead;		/* what the framer had read ahead */
	int		 form;		/* the facts' form */
	/* block 0 starts where the operand's framer stands after one event */
	int		 state0, sep0, begun0;
	int		 state;		/* a later block's framer's state */
	/* the operand's framer reads blocks hk..hn-1, then src */
	int		 hk, hn;
};

/* Up to n of the bytes the framer had read ahead, to buf. */
static size_t
lead_take(struct blocks *bl, char *buf, size_t n)
{
	struct rbuf *rb = &bl->lead;
	size_t m = rb->end - rb->pos < n ? rb->end - rb->pos : n;

	if (m > 0) {
		memcpy(buf, rb->p + rb->pos, m);
		rb->pos += m;
	}
	return m;
}

/*
 * The up to CONTEXT bytes before source offset at, from the bytes held
 * (the lead, the blocks still in their slots), to ctx: the framer that
 * goes on alone from there needs them to start again after damage as
 * one that read the bytes itself would.  Returns how many.
 */
static size_t
held_context(const struct blocks *bl, unsigned long long at, char *ctx)
{
	unsigned long long want = at < CONTEXT ? at : CONTEXT;
	unsigned long long x = at, lo, hi, from;
	const struct block *b;
	const char *p;
	int i;

	while (at - x < want) {
		p = NULL;
		for (i = bl->hk - 1; i < bl->hn && p == NULL; i++) {
			if (i < 0 || i < bl->hn - bl->nslot)
				continue;
			b = &bl->slot[i % bl->nslot];
			if (b->k != i)
				continue;
			lo = b->base - b->ctx;
			hi = b->base + b->own;
			if (lo < x && x <= hi)
				p = b->p - b->ctx, from = lo;
		}
		lo = bl->lead.base;
		hi = bl->lead.base + bl->lead.end;
		if (p == NULL && bl->lead.p != NULL && lo < x && x <= hi)
			p = bl->lead.p, from = lo;
		if (p == NULL)
			break;
		lo = from > at - want ? from : at - want;
		memcpy(ctx + (lo - (at - want)), p + (lo - from), x - lo);
		x = lo;
	}
	memmove(ctx, ctx + (x - (at - want)), at - x);
	return (size_t)(at - x);
}


/*
 * The bytes held from source offset cont on, for the operand's framer to
 * read before the source's (struct held): blocks hk..hn-1 still in their
 * slots, then what is left of the lead, then the source's read error, if
 * the last one failed.
 */
static void
held_pieces(const struct blocks *bl, long long cont, struct held *h)
{
	const struct block *b;
	size_t from;
	int k;

	memset(h, 0, sizeof(*h));
	h->iov = mct_xmalloc((size_t)(bl->hn - bl->hk + 1) * sizeof(*h->iov));
	for (k = bl->hk; k < bl->hn; k++) {
		b = &bl->slot[k % bl->nslot];
		from = k == bl->hk ? (size_t)(cont - (long long)b->base) : 0;
		h->iov[h->n].iov_base = b->p + from;
		h->iov[h->n++].iov_len = b->own - from;
	}
	if (bl->lead.pos < bl->lead.end) {
		h->iov[h->n].iov_base = bl->lead.p + bl->lead.pos;
		h->iov[h->n++].iov_len = bl->lead.end - bl->lead.pos;
	}
	h->srcerr = bl->srcerr;
}
/*
 * Lines framed in place: f's out becomes lines (emptied), and back.  The
 * lines end after the last event framed.
 */
static void
swap_out(struct framer *f, struct mct_buf *lines)
{
	struct mct_buf t = *lines;

	if (f->inlines) {
		f->out.len = f->keep;
		if (f->out.p != NULL)
			f->out.p[f->out.len] = '\0';
	} else
		t.len = 0;
	*lines = f->out;
	f->out = t;
	f->inlines = !f->inlines;
	f->keep = 0;
}

/*
 * Pass 2 of an operand read once converts the spool's lines to ns, and
 * cannot start before pass 1 ends and header_decide_unit() knows the
 * unit.  But the unit is as good as known: --unit's, else us unless the
 * trace turns out to be mcTracer's (co_id, no fraction): read_guess_unit().
 * So the block threads of pass 1 convert each event from that guess as it
 * is framed, in place, and the spool has the block's lines so (struct
 * ckpt.conv): pass 2 only copies them.  Until the block has a fraction
 * (then the unit is us for sure), a guess must be one to take back
 * exactly, should a later block show it wrong (n000 ns were n us,
 * edit_put_times() takes it back): the block gives it up at an event with
 * a co_id, more than two times, a time that is not a plain integer or one
 * beyond int64 ns, and takes back what it converted.
 */

/* A plain integer: -?(0|[1-9][0-9]*), not -0. */
static int
plain_int(const char *v, size_t n)
{
	size_t i = n > 0 && v[0] == '-';

	if (i == n || (v[i] == '0' && (n > i + 1 || i == 1)))
		return 0;
#ifdef MCT_DIGITS8
	if (n - i >= 8 && n - i <= 16)	/* a Kineto ts: two words */
		return mct_digits16(v + i, n - i);
#endif
	for (; i < n; i++)
		if (v[i] < '0' || v[i] > '9')
			return 0;
	return 1;
}

#define NPLACE	4	/* times place_times() rewrites at most */

/*
 * The n times at sp[] (offsets from base in o->p, in order) of the text
 * o->p[..len) rewritten in place to num[i], w[i] bytes each (0: left as written),
 * if none is shorter than it was, or none longer: each time and the text
 * after it move by what the times before it grew, the last first (right)
 * or the first first (left).  Returns the new length, or 0 if some grow
 * and some shrink (or n is too big): nothing is changed then.
 */
static size_t
place_times(struct mct_buf *o, size_t len, size_t base,
    const struct span *sp, char (*num)[24], const size_t *w, int n)
{
	long d[NPLACE + 1] = { 0 };
	size_t off, end, next;
	int i, more = 0, less = 0;

	if (n > NPLACE)
		return 0;
	for (i = 0; i < n; i++) {
		d[i + 1] = d[i] + (w[i] ? (long)w[i] - (long)sp[i].len : 0);
		more |= d[i + 1] > d[i];
		less |= d[i + 1] < d[i];
	}
	if (more && less)
		return 0;
	if (more)
		mct_buf_grow(o, len + (size_t)d[n] - o->len);
	for (i = 0; i < n; i++) {
		/* (right: the last first) */
		int j = more ? n - 1 - i : i;

		off = base + sp[j].off;
		end = off + sp[j].len;
		next = j + 1 < n ? base + sp[j + 1].off : len;
		if (w[j] == 0) {	/* it moves with what follows it */
			memmove(o->p + off + d[j], o->p + off, next - off);
			continue;
		}
		if (less)		/* (over what it was) */
			memcpy(o->p + off + d[j], num[j], w[j]);
		memmove(o->p + end + d[j + 1], o->p + end, next - end);
		if (!less)		/* (where that was) */
			memcpy(o->p + off + d[j], num[j], w[j]);
	}
	return (size_t)((long)len + d[n]);
}

/* The lines out[..from) now end at to: where the next event starts. */
static void
lines_end(struct framer *f, size_t from, size_t to)
{
	f->keep = f->keep - from + to;
	f->spooled = f->spooled - (long long)from + (long long)to;
}

/*
 * Block b gives the guess up: its events before out[at] (the event just
 * framed) are taken back as they came, in place.
 */
static void
guess_off(struct framer *f, struct block *b, size_t at)
{
	struct mct_buf *o = &f->out, *c = &b->conv;
	struct facts *fx = &b->fx;
	struct span bad;
	size_t line, nl, was = o->len;
	int i = 0, nt;

	b->guess = 0;
	c->len = 0;
	for (line = 0; line < at; line = nl + 1) {
		nl = (size_t)((char *)memchr(o->p + line, '\n', at - line) -
		    o->p);
		for (; i < fx->ncp && fx->cp[i].off == (long long)line; i++)
			fx->cp[i].off = (long long)c->len;
		/* (the spans first: edit_spans() may move them) */
		nt = edit_spans(NULL, o->p + line, nl - line, &b->t, 0);
		(void)edit_put_times(c, o->p + line, nl - line, b->t.sp, nt,
		    MCT_UNIT_NS, 1, &bad);
	}
	for (; i < fx->ncp; i++)	/* the event's own */
		fx->cp[i].off -= (long long)(at - c->len);
	mct_buf_add(c, o->p + at, o->len - at);
	o->len = 0;
	mct_buf_add(o, c->p, c->len);
	lines_end(f, was, o->len);
}

/* The event just framed has a time too big, left as written: v. */
static void
guess_big(struct block *b, const char *v, size_t len)
{
	if (b->nbigsay == 0)
		b->big.len = 0;
	if (b->nbigsay < SAY_MAX) {
		mct_buf_add(&b->big, v, len);
		b->bigat[b->nbigsay] = b->fx.nevents;
		b->bigend[b->nbigsay++] = b->big.len;
	}
	b->nbig++;
}

/*
 * The event just framed by block b's thread, from out[from] (a time) to
 * its line end, converted to b->conv and copied back: the n spans of
 * times are from there.  The unit is sure.
 */
static void
guess_copy(const struct blocks *bl, struct framer *f, struct block *b,
    size_t from, const struct span *sp, int n, int say)
{
	struct mct_buf *o = &f->out;
	struct span bad;
	size_t was = o->len;
	int nbad;

	b->conv.len = 0;
	if ((nbad = edit_put_times(&b->conv, o->p + from, was - 1 - from, sp, n,
	    bl->unit, 0, &bad)) > 0 && say) {
		int idx[4], k, i;

		k = edit_bad_spans(o->p + from, sp, n, bl->unit, idx, 4);
		for (i = 0; i < k; i++)
			guess_big(b, o->p + from + sp[idx[i]].off,
			    sp[idx[i]].len);
		b->nbig += nbad - k;	/* counted only */
	}
	o->len = from;
	mct_buf_add(o, b->conv.p, b->conv.len);
	lines_end(f, was, o->len);
}

/*
 * The event just framed by block b's thread, at out[at..] with its line
 * end, gets its times in ns from the guessed unit, or b gives the guess
 * up (above).
 */
static void
guess_event(const struct blocks *bl, struct framer *f, struct block *b,
    size_t at)
{
	const struct mct_scan *sc = &f->sc;
	struct mct_buf *o = &f->out;
	struct span sp[2];
	char num[2][24];	/* an int64 */
	size_t from, was = o->len, w[2];
	const char *v;
	int i, n, sure, nbig = 0;

	if (sc->ntimes == 0)
		return;
	sure = bl->in->fr.r->opts.unit != MCT_UNIT_AUTO || b->fx.anyfrac;
	if (!sure && (sc->ntimes > 2 || sc->has_co_id)) {
		guess_off(f, b, at);
		return;
	}
	if (sc->ntimes > 2) {	/* the scan noted two: index them all */
		n = edit_spans(NULL, o->p + at, was - 1 - at, &b->t, 0);
		guess_copy(bl, f, b, at, b->t.sp, n, 1);
		return;
	}
	/* the new texts */
	n = sc->ntimes;
	from = sc->time_off[0];
	for (i = 0; i < n; i++) {
		sp[i].off = sc->time_off[i] - from;
		sp[i].len = sc->time_len[i];
		v = o->p + sc->time_off[i];
		w[i] = 0;
		if (read_is_time(v, sp[i].len)) {
			if (!sure && !plain_int(v, sp[i].len)) {
				guess_off(f, b, at);
				return;
			}
			if ((w[i] = mct_ns_text(num[i], v, sp[i].len,
			    bl->unit)) == 0) {
				if (!sure) {
					guess_off(f, b, at);
					return;
				}
				/* left as written */
				guess_big(b, v, sp[i].len);
				nbig++;
			}
		}
	}
	if ((o->len = place_times(o, was, from, sp, num, w, n)) == 0) {
		/* one longer, one shorter (a fraction: sure) */
		o->len = was;
		guess_copy(bl, f, b, from, sp, n, nbig == 0);
		return;
	}
	o->p[o->len] = '\0';
	lines_end(f, was, o->len);
}

/* Frame block b (the k-th) with f, a thread's own framer. */
static void
block_frame(struct blocks *bl, struct framer *f, struct block *b, int k)
{
	struct facts *fx = &b->fx;
	int inarray;
	size_t i;

	mct_buf_free(&fx->top);
	free(fx->cp);
	memset(fx, 0, sizeof(*fx));
	fx->form = bl->form;
	b->start = b->stopped_at = -1;
	f->fx = fx;
	f->spooled = 0;
	f->rb.p = b->p - b->ctx;	/* borrowed: nothing more to read */
	f->rb.cap = f->rb.end = b->ctx + b->len;
	f->rb.base = b->base - b->ctx;
	f->rb.eof = 1;
	if (k == 0) {
		i = b->ctx;
		f->state = bl->state0;
		f->nosep = !bl->sep0;
		f->begun = bl->begun0;
	} else {
		i = frame_resync(&f->rb, b->ctx, &inarray);
		if (i == (size_t)-1 || i >= b->ctx + b->own ||
		    inarray != (bl->state == S_ARRAY))
			return;
		f->state = bl->state;
		f->nosep = 0;
		f->begun = 1;
	}
	f->rb.pos = i;
	b->start = (long long)(f->rb.base + i);
	b->state = f->state;
	f->stop = (long long)(b->base + b->own);
	f->stopped_at = -1;
	b->guess = bl->unit != MCT_UNIT_NS;
	b->nbig = b->nbigsay = 0;
	/* the block's lines are framed in place: its buffer is the out */
	swap_out(f, &b->lines);
	while (frame_next(f)) {
		size_t at = f->keep;

		frame_emit(f);
		if (b->guess)
			guess_event(bl, f, b, at);
	}
	b->stopped_at = f->stopped_at;
	b->stop_state = f->stop_state;
	b->stop_sep = f->stop_sep;
	swap_out(f, &b->lines);
}

/* A framer for blocks: quiet, with the operand's settings. */
static void
block_framer(struct framer *f, const struct input *in)
{
	memset(f, 0, sizeof(*f));
	f->name = in->s->name;
	f->quiet = 1;
	f->topmax = in->fr.topmax;
	f->mark = in->fr.mark;
	f->chunk = in->fr.chunk;
}

/*
 * With bl->mu held: frame the next block with f if it is ready, and say
 * so; 0 if there is none to frame now.
 */
static int
block_next(struct blocks *bl, struct framer *f)
{
	struct block *b = &bl->slot[bl->next % bl->nslot];
	int k;

	if (bl->stop || b->k != bl->next || !b->ready)
		return 0;
	k = bl->next++;
	pthread_mutex_unlock(&bl->mu);
	block_frame(bl, f, b, k);
	f->rb.p = NULL;		/* the block's */
	f->rb.cap = 0;
	pthread_mutex_lock(&bl->mu);
	b->done = 1;
	pthread_cond_broadcast(&bl->done);
	return 1;
}

static void *
block_run(void *arg)
{
	struct blocks *bl = arg;
	struct framer f;

	block_framer(&f, bl->in);
	pthread_mutex_lock(&bl->mu);
	while (!bl->stop)
		if (!block_next(bl, &f))
			pthread_cond_wait(&bl->work, &bl->mu);
	pthread_mutex_unlock(&bl->mu);
	frame_reset(&f);
	return NULL;
}

/*
 * Up to bl->blocksz bytes of block b: first what the operand's framer
 * read ahead, then the source's.  Returns 0 at the end of the source.
 */
static int
block_read(struct blocks *bl, struct block *b)
{
	struct framer *f = &bl->in->fr;
	int gz = mct_src_gzip(f->src), more = 1;
	ssize_t n;
	char *q;

	b->own = lead_take(bl, b->p, bl->blocksz);
	while (b->own < bl->blocksz) {
		q = b->p + b->own;
		n = gz ? mct_src_swap(f->src, &q, bl->blocksz - b->own) :
		    mct_src_read(f->src, q, bl->blocksz - b->own);
		if (n <= 0) {
			bl->srcerr = n < 0;
			more = 0;
			break;
		}
		if (b->own == 0)
			b->p = q;	/* traded */
		b->own += (size_t)n;
		/*
		 * gzip: a block ends where the inflater's buffer does, so
		 * that the next is one whole, traded rather than copied.
		 */
		if (gz)
			break;
	}
	b->len = b->own;
	return more;
}

/*
 * The spool's lines from here on are converted (conv) or not: a chunk
 * starts here if the one before is not the same, or if new.
 */
static void
conv_from(struct input *in, int conv, int new)
{
	struct facts *fx = &in->fx;

	if (!new && (fx->ncp > 0 && fx->cp[fx->ncp - 1].conv) == conv)
		return;
	frame_ckpt(fx, in->fr.spooled, S_ARRAY, CK_FRAME);
	fx->cp[fx->ncp - 1].conv = conv;
}

/* Block b's lines to the spool, its facts to the operand's. */
static void
block_take(struct mct_reader *r, struct input *in, struct block *b)
{
	struct framer *f = &in->fr;
	int i;

	/* (a block's lines by write(2), not copied into the buffer first) */
	if (!r->spoolbad && mct_write_all(r->spoolf, b->lines.p,
	    b->lines.len) == -1)
		spool_failed(r);
	for (i = 0; i < b->fx.ncp; i++) {
		b->fx.cp[i].off += f->spooled;
		b->fx.cp[i].conv = b->guess;
	}
	if (b->lines.len > 0)
		conv_from(in, b->guess, f->chunk > 0 && f->spooled >=
		    (in->fx.ncp ? in->fx.cp[in->fx.ncp - 1].off : 0) + f->chunk);
	in->fx.guessed |= b->guess && b->lines.len > 0;
	for (i = 0; b->guess && i < b->nbigsay && in->nbigsay < SAY_MAX; i++) {
		size_t from = i ? b->bigend[i - 1] : 0;

		mct_buf_add(&in->big, b->big.p + from, b->bigend[i] - from);
		in->bigat[in->nbigsay] = in->fx.nevents + b->bigat[i];
		in->bigend[in->nbigsay++] = in->big.len;
	}
	if (b->guess)	/* those not kept to be said: counted */
		in->nbigmore += b->nbig - i;
	f->spooled += (long long)b->lines.len;
	frame_merge(&in->fx, &b->fx);
}

static void
blocks_free(struct blocks *bl)
{
	int i;

	pthread_mutex_lock(&bl->mu);
	bl->stop = 1;
	pthread_cond_broadcast(&bl->work);
	pthread_mutex_unlock(&bl->mu);
	for (i = 0; i < bl->nthr; i++)
		pthread_join(bl->tid[i], NULL);
	frame_reset(&bl->mine);
	for (i = 0; i < bl->nslot; i++) {
		mct_src_buf_free(bl->slot[i].p);
		mct_buf_free(&bl->slot[i].lines);
		mct_buf_free(&bl->slot[i].conv);
		mct_buf_free(&bl->slot[i].big);
		edit_spans_free(&bl->slot[i].t);
		mct_buf_free(&bl->slot[i].fx.top);
		free(bl->slot[i].fx.cp);
	}
	free(bl->slot);
	free(bl->lead.p);
	pthread_mutex_destroy(&bl->mu);
	pthread_cond_destroy(&bl->work);
	pthread_cond_destroy(&bl->done);
	free(bl);
}

/*
 * Pass 1 of an operand read once (not a plain file) by threads, if two
 * CPUs (or MCT_SPLIT) can share it.  Returns 1 if done, 0 if not tried
 * (the caller frames it alone).
 */
int
blocks_frame(struct mct_reader *r, struct input *in)
{
	struct framer *f = &in->fr;
	const char *env = getenv("MCT_SPLIT");
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	struct blocks *bl;
	struct block *b, *prev = NULL;
	struct held held;
	char ctx[CONTEXT];
	long long cont;
	size_t m;
	int n, i, nread, take, more, cstate, csep, ok;

	n = env && *env ? 2 : ncpu > MAX_PARTS ? MAX_PARTS : (int)ncpu;
	if (n < 2 || r->spoolbad || r->opts.progress ||
	    (env && *env && atoll(env) > SPLIT_MAX))
		return 0;
	/* the first event aloud: the form, the keys before traceEvents */
	if (!frame_next(f))
		return 1;
	frame_emit(f);
	if (in->fx.damaged || f->rb.eof)
		return 0;	/* all of it read, or damaged: alone */
	bl = mct_xmalloc(sizeof(*bl));
	memset(bl, 0, sizeof(*bl));
	bl->in = in;
	bl->blocksz = env && *env ? (atoll(env) > 0 ? (size_t)atoll(env) : 1) :
	    BLOCK;
	bl->form = in->fx.form;
	bl->unit = f->chunk > 0 ? read_guess_unit(r) : MCT_UNIT_NS;
	bl->state0 = bl->state = f->state;
	bl->sep0 = !f->nosep;
	bl->begun0 = f->begun;
	bl->nslot = n + 2;
	bl->slot = mct_xmalloc((size_t)bl->nslot * sizeof(*bl->slot));
	memset(bl->slot, 0, (size_t)bl->nslot * sizeof(*bl->slot));
	for (i = 0; i < bl->nslot; i++) {
		bl->slot[i].k = -1;
		bl->slot[i].p = mct_src_buf(bl->blocksz);
	}
	pthread_mutex_init(&bl->mu, NULL);
	pthread_cond_init(&bl->work, NULL);
	pthread_cond_init(&bl->done, NULL);
	block_framer(&bl->mine, in);
	/* the reader's thread is one of the n that frame */
	for (i = 0; i < n - 1; i++) {
		if (mct_thread(&bl->tid[i], "mct-block", block_run, bl, i) != 0)
			break;
		bl->nthr++;
	}
	cont = (long long)(f->rb.base + f->rb.pos);
	bl->lead = f->rb;	/* its bytes go to the blocks first */
	memset(&f->rb, 0, sizeof(f->rb));
	cstate = f->state;
	csep = !f->nosep;
	nread = take = 0;
	more = 1;
	for (;;) {
		/* read ahead into the free slots */
		while (more && nread - take < bl->nslot) {
			b = &bl->slot[nread % bl->nslot];
			b->base = nread == 0 ? (unsigned long long)cont :
			    prev->base + prev->own;
			more = block_read(bl, b);
			if (b->own == 0)
				break;
			pthread_mutex_lock(&bl->mu);	/* a thread may look */
			b->ready = b->done = 0;
			b->k = nread;
			pthread_mutex_unlock(&bl->mu);
			/* the end of the block before, to see where events start */
			b->ctx = 0;
			if (nread > 0) {
				b->ctx = prev->own < CONTEXT ? prev->own : CONTEXT;
				memcpy(b->p - b->ctx, prev->p + prev->own - b->ctx,
				    b->ctx);
			}
			if (nread > take) {
				/* the block before gets its overlap: it may go */
				prev = &bl->slot[(nread - 1) % bl->nslot];
				m = b->own < OVERLAP ? b->own : OVERLAP;
				memcpy(prev->p + prev->own, b->p, m);
				prev->len = prev->own + m;
				pthread_mutex_lock(&bl->mu);
				prev->ready = 1;
				pthread_cond_broadcast(&bl->work);
				pthread_mutex_unlock(&bl->mu);
			}
			prev = b;
			nread++;
		}
		/* the last block is the operand's framer's */
		if (bl->nthr == 0 || take >= nread - 1)
			break;
		/* (while it waits, the reader's thread frames blocks too) */
		b = &bl->slot[take % bl->nslot];
		pthread_mutex_lock(&bl->mu);
		while (!b->done)
			if (!block_next(bl, &bl->mine))
				pthread_cond_wait(&bl->done, &bl->mu);
		pthread_mutex_unlock(&bl->mu);
		/* (a block that changed the form: the rest must know it) */
		ok = b->start == cont && b->state == cstate &&
		    (take == 0 || cstate != S_ARRAY || csep) &&
		    !b->fx.damaged && !b->fx.bigtop && b->stopped_at >= 0 &&
		    b->fx.form == bl->form;
		if (!ok)
			break;
		block_take(r, in, b);
		cont = b->stopped_at;
		cstate = b->stop_state;
		csep = b->stop_sep;
		pthread_mutex_lock(&bl->mu);
		b->k = -1;
		pthread_mutex_unlock(&bl->mu);
		take++;
		frame_progress(f, 0);
	}
	/* the rest alone: from cont, through the blocks held, then src */
	conv_from(in, 0, 0);
	pthread_mutex_lock(&bl->mu);
	bl->stop = 1;
	pthread_cond_broadcast(&bl->work);
	pthread_mutex_unlock(&bl->mu);
	bl->hk = take;
	bl->hn = nread;
	while (bl->hk < bl->hn && (long long)(bl->slot[bl->hk % bl->nslot].base +
	    bl->slot[bl->hk % bl->nslot].own) <= cont)
		bl->hk++;
	m = held_context(bl, (unsigned long long)cont, ctx);
	held_pieces(bl, cont, &held);
	if (bl->lead.pos == bl->lead.end) {
		f->rb = bl->lead;	/* its buffer, rather than a new one */
		memset(&bl->lead, 0, sizeof(bl->lead));
	}
	if (f->rb.cap < RBUF) {
		f->rb.cap = RBUF;
		f->rb.p = mct_xrealloc(f->rb.p, f->rb.cap + 1);
	}
	memcpy(f->rb.p, ctx, m);
	f->rb.pos = f->rb.end = m;
	f->rb.base = (unsigned long long)cont - m;
	f->rb.eof = 0;
	f->state = cstate;
	f->nosep = !csep;
	f->begun = 1;
	f->held = &held;
	while (frame_next(f))
		frame_emit(f);
	f->held = NULL;
	free(held.iov);
	blocks_free(bl);
	return 1;
}
