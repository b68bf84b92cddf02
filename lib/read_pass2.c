/*
 * read_pass2.c - pass 2 of an operand by threads (pass2_start(),
 * pass2_next()).  Of a big plain file: pass 1 noted an event start every
 * chunk bytes or so (struct ckpt); worker threads frame the chunks
 * between them again, each from its start with the framer's state there,
 * compact and convert their events into a buffer of lines of their own,
 * and mct_next() hands the lines out in the file's order.  A ring of two
 * buffers per thread bounds the memory.  Only a file pass 1 found intact
 * is read so: pass 2 then has nothing to say but values beyond int64 ns
 * (a worker notes them, mct_next() says them in order) and a file that
 * changed meanwhile.  Pass 2 is most of the work on a trace: framing,
 * compacting and converting the events again, which threads share.  Of
 * an operand read once, the workers convert the spool's lines of each
 * chunk, or take them as pass 1's block threads converted them.
 *
 * A tool that writes the events as they come may take a chunk's lines
 * whole (pass2_lines()), or have them sent from the spool as they are
 * (pass2_send()).
 *
 * Calls read_frame.c, read_edit.c and read_spool.c.
 */
#include "config.h"

#include <err.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mct.h"
#include "read_private.h"

#define MAKE_ALONE (512 * 1024)	/* spool bytes pass 2's reader converts
				   alone rather than start threads */

/*
 * The spans mct_unspace() noted of object obj, whose line starts at ls
 * of what it wrote (its notes are in order: *ti is the first not taken
 * yet) to t; returns how many.
 */
static int
noted_spans(const struct mct_times *tm, int *ti, unsigned long long obj,
    size_t ls, struct spans *t)
{
	int nt;

	for (nt = 0; *ti < tm->n && tm->kv[*ti].koff == obj; (*ti)++, nt++) {
		edit_span_room(t, nt);
		t->sp[nt].off = tm->kv[*ti].voff - ls;
		t->sp[nt].len = tm->kv[*ti].vlen;
	}
	return nt;
}

struct chunk {
	struct mct_buf	 out;		/* its events, a line each */
	unsigned long long nlines;	/* how many */
	int		 k;		/* the chunk it holds, -1: the slot is free */
	int		 ready;
	int		 ntoobig;	/* values beyond int64 ns */
	int		 nsay;		/* the first ones (SAY_MAX at most): */
	unsigned long long toobig_at[SAY_MAX];	/* event in the chunk */
	size_t		 toobig_end[SAY_MAX];	/* where its text ends */
	struct mct_buf	 toobig;	/* their texts, one after another */
	long long	 shrank;	/* where the file ended early, or -1 */
	int		 changed;	/* damage pass 1 did not see */
	int		 unread;	/* p->mine: its lines are still in the
					   spool */
};

struct pass2 {
	struct input	*in;
	int		 spool;		/* the spool's lines are read, or -1 */
	long long	 spool_from, spool_to;
	pthread_mutex_t	 mu;
	pthread_cond_t	 ready;		/* a chunk is ready */
	pthread_cond_t	 room;		/* a slot was freed, or stop */
	pthread_t	 tid[MAX_PARTS];
	int		 nthr;
	struct chunk	*slot;
	int		 nslot;
	int		 nchunk;	/* the ckpts and one */
	int		 next;		/* the next chunk a worker makes */
	int		 take;		/* the chunk mct_next() hands out */
	int		 taking;	/* it has begun */
	size_t		 pos;		/* how far into it */
	int		 said;		/* a change of the file was said */
	int		 stop;
	int		 send;		/* lines as they are in the spool are
					   left there, for pass2_send() */
	struct chunk	 mine;		/* such a chunk, taken by the reader's
					   thread (chunk_cur()) */
	/* no thread could start: mct_next() makes the spool's chunks */
	struct mct_buf	 rd;
	struct spans	 t;
};

/*
 * The bytes of chunk k: [from, to), and the framer's state at from; of
 * the file, or of the spool.
 */
static void
chunk_bounds(const struct pass2 *p, int k, long long *from, long long *to,
    int *state)
{
	const struct input *in = p->in;
	const struct facts *fx = &in->fx;

	*from = k == 0 ? 0 : fx->cp[k - 1].off;
	*to = k < fx->ncp ? fx->cp[k].off : in->rp.length;
	*state = k == 0 ? S_TOP : fx->cp[k - 1].state;
	if (p->spool >= 0) {
		*from += p->spool_from;
		*to = k < fx->ncp ? p->spool_from + fx->cp[k].off : p->spool_to;
	}
}

/*
 * mct_edit(): the line json[0..len) edited into c from byte at on, with
 * its line end (json may be c's own bytes from at on: t is the scratch).
 */
static void
chunk_edit(struct chunk *c, size_t at, const struct mct_reader *r,
    struct spans *t, const char *json, size_t len)
{
	t->line.len = 0;
	edit_line(r, t, json, len, NULL, &t->line);
	c->out.len = at;
	mct_buf_add(&c->out, t->line.p, t->line.len);
	mct_buf_addc(&c->out, '\n');
}

/* A value beyond int64 ns in event n of chunk c: kept to be said. */
static void
chunk_too_big(struct chunk *c, unsigned long long n, const char *v,
    size_t len)
{
	if (c->nsay == SAY_MAX)
		return;
	if (c->nsay == 0)
		c->toobig.len = 0;
	mct_buf_add(&c->toobig, v, len);
	c->toobig_at[c->nsay] = n;
	c->toobig_end[c->nsay++] = c->toobig.len;
}

/*
 * Append the event json[0..len) with a line end to c, converted (the nt
 * spans of its times are in t->sp), noting the first value beyond int64
 * ns: it is event n of the chunk.
 */
static void
chunk_put_spans(struct chunk *c, const struct input *in, struct spans *t,
    const char *json, size_t len, unsigned long long n, int nt, int back)
{
	struct mct_reader *r = in->fr.r;
	struct span bad;
	size_t at = c->out.len;
	int nbad;

	nbad = edit_put_times(&c->out, json, len, t->sp, nt, in->s->facts.unit,
	    back, &bad);
	if (r->edit != NULL)	/* the line converted (and ended), edited */
		chunk_edit(c, at, r, t, c->out.p + at, c->out.len - at - 1);
	if (nbad > 0) {
		int idx[4], k, i;

		k = edit_bad_spans(json, t->sp, nt, in->s->facts.unit, idx, 4);
		for (i = 0; i < k; i++)
			chunk_too_big(c, n, json + t->sp[idx[i]].off,
			    t->sp[idx[i]].len);
	}
	c->ntoobig += nbad;
}

/*
 * The lines l[0..len) that mct_unspace() compacted, with the times it
 * noted (tm) converted, to c: edit_put_times() over the whole chunk at
 * once, as if it were one line, with no line looked at otherwise.
 */
static void
chunk_put_noted(struct chunk *c, const struct input *in,
    const struct mct_times *tm, struct spans *t, const char *l, size_t len)
{
	struct span bad;
	int i, nbad;

	if (len == 0)
		return;
	for (i = 0; i < tm->n; i++) {
		edit_span_room(t, i);
		t->sp[i].off = tm->kv[i].voff;
		t->sp[i].len = tm->kv[i].vlen;
	}
	/* (the last line end is edit_put_times()'s) */
	nbad = edit_put_times(&c->out, l, len - 1, t->sp, tm->n, in->s->facts.unit,
	    0, &bad);
	if (nbad > 0) {
		int idx[SAY_MAX], k;

		k = edit_bad_spans(l, t->sp, tm->n, in->s->facts.unit, idx, SAY_MAX);
		for (i = 0; i < k; i++)
			chunk_too_big(c, tm->kv[idx[i]].koff + 1ULL,
			    l + t->sp[idx[i]].off, t->sp[idx[i]].len);
	}
	c->ntoobig += nbad;
}

/* chunk_put_spans(), the spans found by sc (or by indexing the event). */
static void
chunk_put(struct chunk *c, const struct input *in, const struct mct_scan *sc,
    struct spans *t, const char *json, size_t len, unsigned long long n,
    int back)
{
	/* (a guess taken back: every time, as pass 1 found them) */
	chunk_put_spans(c, in, t, json, len, n,
	    edit_spans(sc, json, len, t, !in->fx.manytimes && !back), back);
}

/* How many events pass 1 framed in chunk k. */
static unsigned long long
chunk_nev(const struct input *in, int k)
{
	return (k < in->fx.ncp ? in->fx.cp[k].nev : in->fx.nevents) -
	    (k > 0 ? in->fx.cp[k - 1].nev : 0);
}

/*
 * The spool's lines of chunk k need no conversion: pass 1 converted them
 * from the unit the source has, or that unit is ns.
 */
static int
chunk_asis(const struct input *in, int k)
{
	int conv = k > 0 && in->fx.cp[k - 1].conv;

	return conv ? in->s->facts.unit == read_guess_unit(in->fr.r) :
	    !in->convert;
}

/* ... and no edit is asked for either: they are final as they are. */
static int
chunk_final(const struct input *in, int k)
{
	return in->fr.r->edit == NULL && chunk_asis(in, k);
}

/*
 * Chunk k is left in the spool, for pass2_send(): no worker makes it,
 * the reader's thread takes it (p->mine).
 */
static int
chunk_sent(const struct pass2 *p, int k)
{
	return p->send && chunk_final(p->in, k);
}

/*
 * The spool's lines of chunk k into c, converted, or as they are (pass 1
 * converted them, or the source's unit is ns), or with pass 1's guess
 * taken back; rd is scratch.
 */
static void
chunk_lines(struct pass2 *p, struct mct_buf *rd, struct spans *t,
    struct chunk *c, int k)
{
	const struct input *in = p->in;
	const struct mct_reader *r = in->fr.r;
	int conv = k > 0 && in->fx.cp[k - 1].conv;
	int back = conv && in->s->facts.unit != read_guess_unit(r);
	int asis = chunk_asis(in, k);
	struct mct_buf *b = asis && r->edit == NULL ? &c->out : rd;
	long long from, to;
	unsigned long long n = 0;
	size_t done;
	char *line, *nl, *end;
	int state;

	chunk_bounds(p, k, &from, &to, &state);
	b->len = 0;
	mct_buf_grow(b, (size_t)(to - from) + 1);
	done = spool_read(p->spool, b->p, from, (size_t)(to - from));
	c->changed = done < (size_t)(to - from);
	if (b == &c->out) {
		/* as they are: as many as pass 1 framed there */
		c->out.len = done;
		c->out.p[done] = '\0';
		c->nlines = chunk_nev(in, k);
		return;
	}
	end = b->p + done;
	for (line = b->p; line < end; line = nl + 1) {
		if ((nl = memchr(line, '\n', (size_t)(end - line))) == NULL)
			break;		/* (the spool's lines all end) */
		n++;
		if (asis)
			chunk_edit(c, c->out.len, r, t, line,
			    (size_t)(nl - line));
		else
			chunk_put(c, in, NULL, t, line, (size_t)(nl - line), n,
			    back);
	}
	c->nlines = n;
}

/*
 * Pass 1 saw chunk k plain, or flat (struct ckpt): take its events with
 * no framing.  A flat chunk's events are its lines, once the separators
 * around them are cut off; a plain chunk is compacted by mct_unspace()
 * first.  The bytes are read into c's buffer, or into rd when the lines
 * are compacted, converted or edited into c (lines is scratch).  Returns
 * 0 if the file was written since it was opened: then the chunk must be
 * framed again (chunk_make()), which says what changed.
 */
static int
chunk_taken(struct pass2 *p, struct mct_buf *rd, struct mct_buf *lines,
    struct mct_times *tm, struct spans *t, struct chunk *c, int k)
{
	struct input *in = p->in;
	const struct mct_reader *r = in->fr.r;
	int flat = in->fx.cp[k - 1].kind == CK_FLAT;
	int direct = !in->convert && r->edit == NULL;
	struct mct_buf *b = flat && direct ? &c->out : rd;
	struct mct_src *src;
	unsigned long long n = 0;
	long long from, to;
	size_t want, done = 0;
	ssize_t got;
	char *line, *nl, *end, *w, *e;
	int state, ti = 0, nobj;

	chunk_bounds(p, k, &from, &to, &state);
	tm->known = 0;
	if ((src = mct_src_clone(in->src, from, to)) == NULL)
		return 0;
	want = (size_t)(to - from);
	b->len = 0;
	mct_buf_grow(b, want + 1);
	while (done < want &&
	    (got = mct_src_read(src, b->p + done, want - done)) > 0)
		done += (size_t)got;
	if (done < want || mct_src_changed(src)) {
		mct_src_close(src);
		return 0;
	}
	mct_src_close(src);
	if (!flat) {
		struct mct_buf *lb = direct ? &c->out : lines;

		lb->len = 0;
		if ((nobj = mct_unspace(b->p, done, lb, in->convert ? tm :
		    NULL)) < 0)
			return 0;
		if (direct) {
			c->nlines = (unsigned long long)nobj;
			return 1;
		}
		if (in->convert && tm->known && r->edit == NULL) {
			chunk_put_noted(c, in, tm, t, lb->p, lb->len);
			c->nlines = (unsigned long long)nobj;
			return 1;
		}
		b = lb;
		done = b->len;
	}
	end = b->p + done;
	for (w = line = b->p; (nl = memchr(line, '\n', (size_t)(end -
	    line))) != NULL; line = nl + 1) {
		for (e = nl; e > line && (e[-1] == ',' || e[-1] == ' ' ||
		    e[-1] == '\t' || e[-1] == '\r'); e--)
			;
		while (line < e && (*line == ',' || *line == ' ' ||
		    *line == '\t' || *line == '\r'))
			line++;
		if (line == e)
			continue;
		n++;
		if (!direct) {
			if (in->convert && tm->known)
				chunk_put_spans(c, in, t, line, (size_t)(e -
				    line), n, noted_spans(tm, &ti, n - 1,
				    (size_t)(line - b->p), t), 0);
			else if (in->convert)
				chunk_put(c, in, NULL, t, line, (size_t)(e - line),
				    n, 0);
			else
				chunk_edit(c, c->out.len, r, t, line,
				    (size_t)(e - line));
			continue;
		}
		memmove(w, line, (size_t)(e - line));
		w += e - line;
		*w++ = '\n';
	}
	if (direct)
		c->out.len = (size_t)(w - c->out.p);
	c->nlines = n;
	return 1;
}

/* Frame chunk k of the file into c with framer f (a worker's own). */
static void
chunk_make(struct pass2 *p, struct framer *f, struct spans *t,
    struct chunk *c, int k)
{
	struct input *in = p->in;
	unsigned long long n = 0;
	long long from, to, now;
	int state;

	chunk_bounds(p, k, &from, &to, &state);
	if ((f->src = mct_src_clone(in->src, from, to)) == NULL) {
		c->changed = 1;
		return;
	}
	f->rb.pos = f->rb.end = 0;
	f->rb.base = (unsigned long long)from;
	f->rb.eof = 0;
	f->state = state;
	f->begun = k > 0;	/* the first chunk starts the file */
	f->nosep = 0;
	f->fx->damaged = 0;
	f->fx->form = in->fx.form;
	while (frame_next(f)) {
		n++;
		if (!in->convert && in->fr.r->edit != NULL) {
			chunk_edit(c, c->out.len, in->fr.r, t, f->out.p,
			    f->out.len);
			continue;
		}
		if (!in->convert) {
			f->out.p[f->out.len] = '\n';
			mct_buf_add(&c->out, f->out.p, f->out.len + 1);
			continue;
		}
		chunk_put(c, in, &f->sc, t, f->out.p, f->out.len, n, 0);
	}
	if (mct_src_pos(f->src) < to) {
		/* a chunk after the new end reads nothing: say the end */
		now = mct_src_size_now(f->src);
		c->shrank = now >= 0 && now < mct_src_pos(f->src) ? now :
		    mct_src_pos(f->src);
	}
	c->changed = f->fx->damaged;
	c->nlines = n;
	mct_src_close(f->src);
	f->src = NULL;
}

static void
chunk_clear(struct chunk *c)
{
	c->out.len = 0;
	c->ntoobig = c->nsay = 0;
	c->shrank = -1;
	c->changed = 0;
	c->unread = 0;
}

static void *
pass2_run(void *arg)
{
	struct pass2 *p = arg;
	struct framer f;
	struct facts fx;
	struct spans t = { 0 };
	struct mct_buf rd = { 0 }, lines = { 0 };
	struct mct_times tm = { 0 };
	struct chunk *c;
	int k;

	memset(&f, 0, sizeof(f));
	memset(&fx, 0, sizeof(fx));
	f.name = p->in->s->name;
	f.fx = &fx;
	f.stop = -1;
	f.again = f.quiet = 1;		/* pass 1 said what was damaged */
	f.topmax = -1;
	pthread_mutex_lock(&p->mu);
	for (;;) {
		for (;;) {
			while (p->next < p->nchunk && chunk_sent(p, p->next))
				p->next++;	/* the reader's thread's */
			if (p->stop || p->next >= p->nchunk ||
			    p->slot[p->next % p->nslot].k == -1)
				break;
			pthread_cond_wait(&p->room, &p->mu);
		}
		if (p->stop || p->next >= p->nchunk)
			break;
		k = p->next++;
		c = &p->slot[k % p->nslot];
		c->k = k;
		c->ready = 0;
		pthread_mutex_unlock(&p->mu);
		chunk_clear(c);
		if (p->spool >= 0)
			chunk_lines(p, &rd, &t, c, k);
		else if (!(k > 0 && p->in->fx.cp[k - 1].kind != CK_FRAME &&
		    chunk_taken(p, &rd, &lines, &tm, &t, c, k))) {
			c->out.len = 0;
			c->ntoobig = c->nsay = 0;
			chunk_make(p, &f, &t, c, k);
		}
		pthread_mutex_lock(&p->mu);
		c->ready = 1;
		pthread_cond_broadcast(&p->ready);
	}
	pthread_mutex_unlock(&p->mu);
	edit_end(p->in->fr.r, &t);	/* this thread's context */
	frame_reset(&f);
	edit_spans_free(&t);
	mct_buf_free(&rd);
	mct_buf_free(&lines);
	free(tm.kv);
	return NULL;
}

/* Stop the workers of pass 2 and free it. */
void
pass2_free(struct input *in)
{
	struct pass2 *p = in->p2;
	int i;

	if (p == NULL)
		return;
	pthread_mutex_lock(&p->mu);
	p->stop = 1;
	pthread_cond_broadcast(&p->room);
	pthread_mutex_unlock(&p->mu);
	for (i = 0; i < p->nthr; i++)
		pthread_join(p->tid[i], NULL);
	for (i = 0; i < p->nslot; i++) {
		mct_buf_free(&p->slot[i].out);
		mct_buf_free(&p->slot[i].toobig);
	}
	mct_buf_free(&p->mine.out);
	free(p->slot);
	mct_buf_free(&p->rd);
	edit_end(in->fr.r, &p->t);
	edit_spans_free(&p->t);
	pthread_mutex_destroy(&p->mu);
	pthread_cond_destroy(&p->ready);
	pthread_cond_destroy(&p->room);
	free(p);
	in->p2 = NULL;
}

/*
 * Start pass 2 of an operand by threads, if it is worth it and two CPUs
 * (or MCT_SPLIT) can share it: a plain file pass 1 found intact and cut
 * into chunks, or the spool's lines of an operand whose times must be
 * converted, or that a tool edits (spool: the spool's descriptor, else
 * -1).  Spool lines pass 1
 * converted (read_guess_unit()), or lines the tool copies to stdout
 * (MCT_WANT_COPY), are taken by chunks in any case: by the reader's
 * thread if no other starts or none is needed.
 */
void
pass2_start(struct mct_reader *r, struct input *in, int spool)
{
	const char *env = getenv("MCT_SPLIT");
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	struct pass2 *p;
	/* (pass2_send() takes them where pass2_lines() would) */
	int send = spool >= 0 && r->opts.want == MCT_WANT_COPY &&
	    !in->addrank && in->s->shift == 0;
	int must = spool >= 0 && (in->fx.guessed || send) && !r->spoolbad;
	long long from, to, make;
	int n, i, k, nmake, state;

	n = env && *env ? 2 : ncpu > MAX_PARTS ? MAX_PARTS : (int)ncpu;
	if (!must && (in->fx.ncp == 0 || n < 2 ||
	    (spool < 0 && in->fx.damaged) ||
	    (spool >= 0 && ((!in->convert && r->edit == NULL) ||
	    r->spoolbad))))
		return;
	p = mct_xmalloc(sizeof(*p));
	memset(p, 0, sizeof(*p));
	p->in = in;
	p->spool = spool;
	p->send = send;
	p->spool_from = in->rp.spool_from;
	p->spool_to = in->rp.spool_to;
	/*
	 * The chunks a worker makes.  None is needed for one, nor where
	 * the rest is sent and what is left is less than a thread's start
	 * is worth (the first event, the end pass 1 framed alone).
	 */
	for (k = nmake = 0, make = 0; k <= in->fx.ncp; k++)
		if (!chunk_sent(p, k)) {
			nmake++;
			chunk_bounds(p, k, &from, &to, &state);
			make += to - from;
		}
	if (n > nmake)
		n = nmake > 1 ? nmake : 0;
	if (send && make < MAKE_ALONE)
		n = 0;
	if (n < 1 && !must)
		n = 1;
	p->nchunk = in->fx.ncp + 1;
	p->nslot = n > 0 ? 2 * n : 1;
	p->slot = mct_xmalloc((size_t)p->nslot * sizeof(*p->slot));
	memset(p->slot, 0, (size_t)p->nslot * sizeof(*p->slot));
	for (i = 0; i < p->nslot; i++)
		p->slot[i].k = -1;
	pthread_mutex_init(&p->mu, NULL);
	pthread_cond_init(&p->ready, NULL);
	pthread_cond_init(&p->room, NULL);
	in->p2 = p;
	for (i = 0; i < n; i++) {
		if (mct_thread(&p->tid[i], "mct-chunk", pass2_run, p, i) != 0)
			break;
		p->nthr++;
	}
	if (p->nthr == 0 && !must)
		pass2_free(in);		/* then alone, as for a small file */
}

/* What chunk c noted, said when its events are handed out. */
static void
chunk_say(struct mct_reader *r, struct input *in, struct pass2 *p,
    const struct chunk *c)
{
	int i;

	for (i = 0; i < c->nsay; i++)
		edit_too_big(r, in, in->rp.line + c->toobig_at[i],
		    c->toobig.p + (i ? c->toobig_end[i - 1] : 0),
		    c->toobig_end[i] - (i ? c->toobig_end[i - 1] : 0), 1);
	if (c->ntoobig > c->nsay)
		edit_too_big(r, in, 0, NULL, 0, c->ntoobig - c->nsay);
	for (i = 0; i < in->nbigsay; i++)
		if (in->bigat[i] > in->rp.line && in->bigat[i] <= in->rp.line +
		    c->nlines)
			edit_too_big(r, in, in->bigat[i], in->big.p +
			    (i ? in->bigend[i - 1] : 0), in->bigend[i] -
			    (i ? in->bigend[i - 1] : 0), 1);
	if (in->nbigmore > 0) {
		edit_too_big(r, in, 0, NULL, 0, (int)in->nbigmore);
		in->nbigmore = 0;
	}
	if (c->changed && p->spool >= 0) {
		spool_failed(r);
		return;
	}
	if ((c->shrank >= 0 || c->changed) && !p->said) {
		if (c->shrank >= 0)
			warnx("%s: the file shrank while it was read (%lld "
			    "bytes, was %lld)", in->s->name, c->shrank,
			    in->rp.length);
		else
			warnx("%s: the file changed while it was read",
			    in->s->name);
		p->said = 1;
		r->status = mct_status(r->status, MCT_EXIT_DAMAGED);
	}
}

/* Wait for the chunk to take next, c, and say what it noted. */
static void
chunk_wait(struct mct_reader *r, struct input *in, struct pass2 *p,
    struct chunk *c)
{
	if (c == &p->mine) {
		/* left in the spool: sent, or read by chunk_fill() */
		chunk_clear(c);
		c->k = p->take;
		c->nlines = chunk_nev(in, c->k);
		c->unread = 1;
	} else if (p->nthr == 0) {
		/* no thread: the spool's lines, made here (pass2_start()) */
		c->k = p->take;
		chunk_clear(c);
		chunk_lines(p, &p->rd, &p->t, c, c->k);
	} else {
		pthread_mutex_lock(&p->mu);
		while (c->k != p->take || !c->ready)
			pthread_cond_wait(&p->ready, &p->mu);
		pthread_mutex_unlock(&p->mu);
	}
	chunk_say(r, in, p, c);
	p->taking = 1;
	p->pos = 0;
}

/*
 * The chunk taken, c, left in the spool, read after all: it is handed
 * out as events or text, not sent.
 */
static void
chunk_fill(struct mct_reader *r, struct pass2 *p, struct chunk *c)
{
	long long from, to;
	size_t n;
	int state;

	chunk_bounds(p, c->k, &from, &to, &state);
	n = (size_t)(to - from);
	mct_buf_grow(&c->out, n + 1);
	c->out.len = spool_read(p->spool, c->out.p, from, n);
	c->out.p[c->out.len] = '\0';
	c->unread = 0;
	if (c->out.len < n)
		spool_failed(r);
}

/*
 * The chunk mct_next() hands out next: a worker's, in the slot of its
 * number, or one left in the spool, taken by the reader's thread.
 */
static struct chunk *
chunk_cur(struct pass2 *p)
{
	return chunk_sent(p, p->take) ? &p->mine : &p->slot[p->take % p->nslot];
}

/* The chunk taken is handed out: its slot is free for the chunk nslot on. */
static void
chunk_done(struct pass2 *p, struct chunk *c)
{
	p->take++;
	p->taking = 0;
	if (c == &p->mine)
		return;		/* (the reader's thread's own) */
	pthread_mutex_lock(&p->mu);
	c->k = -1;
	c->ready = 0;
	pthread_cond_broadcast(&p->room);
	pthread_mutex_unlock(&p->mu);
}

/* The next event of pass 2 by threads; 0 at the operand's end. */
int
pass2_next(struct mct_reader *r, struct input *in)
{
	struct pass2 *p = in->p2;
	struct chunk *c;
	char *line, *nl;

	while (p->take < p->nchunk) {
		c = chunk_cur(p);
		if (!p->taking)
			chunk_wait(r, in, p, c);
		if (c->unread)
			chunk_fill(r, p, c);
		if (p->pos < c->out.len) {
			line = c->out.p + p->pos;
			nl = memchr(line, '\n', c->out.len - p->pos);
			p->pos = (size_t)(nl - c->out.p) + 1;
			read_event_at(r, in, line, (size_t)(nl - line));
			r->ev.where = ++in->rp.line;
			edit_rank(r, in);
			return 1;
		}
		chunk_done(p, c);
	}
	pass2_free(in);
	if (in->direct) {
		r->status = mct_status(r->status, mct_src_close(in->src));
		in->src = in->fr.src = NULL;
	}
	return 0;
}

/*
 * The lines the reader holds ready, whole, each with its line end: the
 * rest of a chunk pass 2's threads made, when nothing is left to do to
 * its events (no rank to add, no ts to shift).  For a tool that writes
 * the events as they come; returns 0 where there are none so: then
 * mct_next() goes on, and gives the chunks that follow too.
 */
static struct chunk *
lines_chunk(struct mct_reader *r, struct pass2 **pp)
{
	struct input *in;
	struct pass2 *p;
	struct chunk *c;

	if (r->cur >= r->nin || r->fatal)
		return NULL;
	in = &r->in[r->cur];
	if ((p = in->p2) == NULL || in->addrank || in->s->shift != 0 ||
	    p->take >= p->nchunk)
		return NULL;
	c = chunk_cur(p);
	if (p->taking && p->pos >= c->out.len && !c->unread) {
		chunk_done(p, c);
		if (p->take >= p->nchunk)
			return NULL;	/* mct_next() ends the operand */
		c = chunk_cur(p);
	}
	if (!p->taking)
		chunk_wait(r, in, p, c);
	*pp = p;
	return c;
}

/*
 * The rest of the chunk the reader hands out, its lines whole (see
 * lines_chunk()), or 0.
 */
int
pass2_lines(struct mct_reader *r, const char **text, size_t *len)
{
	struct input *in;
	struct pass2 *p;
	struct chunk *c;
	const char *q, *end;

	if ((c = lines_chunk(r, &p)) == NULL)
		return 0;
	in = p->in;
	if (c->unread)
		chunk_fill(r, p, c);
	if (p->pos >= c->out.len)
		return 0;
	*text = c->out.p + p->pos;
	*len = c->out.len - p->pos;
	if (p->pos == 0)
		in->rp.line += c->nlines;
	else
		for (q = *text, end = q + *len; (q = memchr(q, '\n',
		    (size_t)(end - q))) != NULL; q++)
			in->rp.line++;
	p->pos = c->out.len;
	return 1;
}

/*
 * pass2_lines(), where the lines lie in the spool as they are: they
 * go to stdout by mct_send(), after what stdio holds, with no copy
 * through the tool, which opened the reader with MCT_WANT_COPY;
 * returns 0 where there are no such lines: then pass2_lines() and
 * mct_next() go on.
 */
int
pass2_send(struct mct_reader *r)
{
	struct pass2 *p;
	struct chunk *c;
	long long from, at, to;
	int state;

	if ((c = lines_chunk(r, &p)) == NULL || !c->unread)
		return 0;
	/* c and the chunks left in the spool after it: one run of bytes */
	chunk_bounds(p, c->k, &from, &to, &state);
	for (;;) {
		p->in->rp.line += c->nlines;
		c->unread = 0;
		if (p->take + 1 >= p->nchunk || !chunk_sent(p, p->take + 1))
			break;
		chunk_done(p, c);
		chunk_wait(r, p->in, p, c);
		chunk_bounds(p, c->k, &at, &to, &state);
	}
	if (mct_send(p->spool, from, (size_t)(to - from)) < to - from)
		spool_failed(r);
	p->pos = 0;
	return 1;
}
