/*
 * read_parts.c - pass 1 of a big plain file by several threads
 * (parts_frame()).  The file is cut into parts at places where an event
 * seems to start (frame_resync()'s rule); the threads frame the parts
 * quietly, noting their facts, each taking the next part no one has taken
 * when it is done with one (so that a thread slowed down, or a part
 * slower to frame, does not leave a CPU idle at the end: up to PARTS_CPU
 * parts a CPU).  The cut is right if the part before stopped exactly
 * there, between events, with the same framing state.  Then the facts are
 * merged and are those of one pass; otherwise (a wrong cut, or any
 * damage) the caller frames the file again, alone and aloud.
 *
 * Calls read_frame.c and read_bytes.c.
 */
#include "config.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mct.h"
#include "read_private.h"

#define PARTS_CPU	4
#define SPLIT_MIN	(4LL << 20)	/* bytes a part has at least */

struct part {
	struct framer	 f;		/* its own source, a clone */
	struct facts	 fx;
	long long	 start;		/* its first byte's offset */
};

struct parts {
	struct part	*p;
	int		 n;
	int		 next;		/* the next part no one has taken */
	long long	 done;		/* bytes of the parts framed */
	long long	 size;
	pthread_mutex_t	 mu;
	pthread_t	 tid[MAX_PARTS];
	int		 nthr;
};

/*
 * Frame the parts no one has taken yet, one at a time; the reader's
 * thread (say: its framer, which framed the first) shows the progress.
 */
static void
parts_take(struct parts *ps, struct framer *say)
{
	struct part *p;
	long long end;

	for (;;) {
		pthread_mutex_lock(&ps->mu);
		p = ps->next < ps->n ? &ps->p[ps->next++] : NULL;
		pthread_mutex_unlock(&ps->mu);
		if (p == NULL)
			return;
		while (frame_next(&p->f))
			frame_emit(&p->f);
		end = p->f.stop >= 0 ? p->f.stop : ps->size;
		__atomic_add_fetch(&ps->done, end - p->start, __ATOMIC_RELAXED);
		frame_reset(&p->f);	/* its buffers; its facts stay */
		if (say != NULL)
			frame_progress(say, 0);
	}
}

static void *
part_run(void *arg)
{
	parts_take(arg, NULL);
	return NULL;
}

/* Where an event seems to start at or after off, or -1. */
#define CUT_LOOK	(64 * 1024)
static long long
cut_at(struct mct_src *src, long long off, long long limit, int *inarray)
{
	long long from = off > 4096 ? off - 4096 : 0;	/* context for resync */
	/* (an event starts within 64 KiB, or there is no cut there) */
	struct mct_src *c = mct_src_clone(src, from, limit < off + CUT_LOOK ?
	    limit : off + CUT_LOOK);
	struct rbuf b = { 0 };
	long long at = -1;
	size_t i;

	if (c == NULL)
		return -1;
	b.base = (unsigned long long)from;
	while (bytes_refill(&b, bytes_src_rd, c) > 0 && b.end < RBUF)
		;
	if (b.end > (size_t)(off - from) &&
	    (i = frame_resync(&b, (size_t)(off - from), inarray)) != (size_t)-1)
		at = (long long)(b.base + i);
	free(b.p);
	mct_src_close(c);
	return at;
}

/* Did framer f stop right where the next part starts, between events? */
static int
stopped_at_cut(const struct framer *f, long long cut, int state)
{
	return !f->fx->damaged && f->stopped_at == cut &&
	    f->stop_state == state && (state != S_ARRAY || f->stop_sep);
}

/* Returns 1 if done, 0 if not tried, -1 if tried in vain (restart it). */
int
parts_frame(struct input *in)
{
	struct framer *f = &in->fr;
	struct part parts[MAX_PARTS];
	struct parts ps;
	long long size = mct_src_size(in->src), cut[MAX_PARTS], at;
	const char *env = getenv("MCT_SPLIT");
	long long min = env && *env ? atoll(env) : SPLIT_MIN;
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	int k, n, i, nthr, state, form, inarray, ok = 1;

	/*
	 * Up to PARTS_CPU parts a CPU, framed by one thread a CPU (the
	 * reader's one of them); as many parts as asked for by MCT_SPLIT,
	 * by two threads at least
	 */
	if (ncpu < 1)
		ncpu = 1;
	nthr = env && *env ? (ncpu < 2 ? 2 : (int)ncpu) : (int)ncpu;
	k = env && *env ? MAX_PARTS : ncpu < 2 ? 1 :
	    ncpu * PARTS_CPU > MAX_PARTS ? MAX_PARTS : (int)ncpu * PARTS_CPU;
	if (min < 1)
		min = 1;
	if (k < 2 || size < 2 * min)
		return 0;
	if (size / min < k)
		k = (int)(size / min);
	/* the first event tells the form: in an array, or NDJSON */
	f->quiet = 1;
	f->stop = -1;
	if (!frame_next(f) || in->fx.damaged) {
		f->quiet = 0;
		return -1;
	}
	frame_emit(f);
	state = f->state;
	form = in->fx.form;
	for (n = 0, i = 1; i < k; i++) {
		at = cut_at(in->src, size / k * i, size, &inarray);
		if (at > (n ? cut[n - 1] : (long long)(f->rb.base + f->rb.pos)) &&
		    at < size && inarray == (state == S_ARRAY))
			cut[n++] = at;
	}
	if (n == 0) {
		f->quiet = 0;
		return -1;
	}
	memset(parts, 0, sizeof(parts));
	for (i = 0; i < n; i++) {
		struct framer *pf = &parts[i].f;

		pf->name = f->name;
		pf->mark = f->mark;
		pf->fx = &parts[i].fx;
		pf->check = pf->quiet = 1;
		pf->topmax = f->topmax;
		pf->chunk = f->chunk;
		parts[i].fx.form = in->fx.form;
		pf->state = state;	/* after a ',' (or a line end), not first */
		pf->begun = 1;
		pf->stop = i + 1 < n ? cut[i + 1] : -1;
		pf->stopped_at = -1;
		pf->rb.base = (unsigned long long)cut[i];
		parts[i].start = cut[i];
		if ((pf->src = mct_src_clone(in->src, cut[i], size)) == NULL)
			ok = 0;
	}
	memset(&ps, 0, sizeof(ps));
	ps.p = parts;
	ps.n = ok ? n : 0;
	ps.size = size;
	pthread_mutex_init(&ps.mu, NULL);
	/* the reader's thread frames the first part, then takes others */
	for (i = 0; ok && i < nthr - 1 && i < n; i++) {
		if (mct_thread(&ps.tid[i], "mct-part", part_run, &ps, i) != 0)
			break;
		ps.nthr++;
	}
	ok = ok && ps.nthr > 0;
	if (ok) {
		f->stop = cut[0];
		f->stopped_at = -1;
		f->nparts = n + 1;
		f->pdone = &ps.done;
		while (frame_next(f))
			frame_emit(f);
		parts_take(&ps, f);
	}
	for (i = 0; i < ps.nthr; i++)
		pthread_join(ps.tid[i], NULL);
	pthread_mutex_destroy(&ps.mu);
	/*
	 * each part must have stopped where the next began, between events;
	 * none may have changed the form (the parts after it began with
	 * the one before)
	 */
	ok = ok && stopped_at_cut(f, cut[0], state) && in->fx.form == form;
	for (i = 0; ok && i < n; i++)
		ok = (i + 1 == n ? !parts[i].fx.damaged && !parts[i].fx.bigtop :
		    stopped_at_cut(&parts[i].f, cut[i + 1], state) &&
		    !parts[i].fx.bigtop) && parts[i].fx.form == form;
	for (i = 0; ok && i < n; i++)
		frame_merge(&in->fx, &parts[i].fx);
	if (ok)
		in->rp.length = mct_src_pos(parts[n - 1].f.src);
	for (i = 0; i < n; i++) {
		mct_src_close(parts[i].f.src);
		frame_reset(&parts[i].f);
		mct_buf_free(&parts[i].fx.top);
		free(parts[i].fx.cp);
	}
	f->quiet = 0;
	f->stop = -1;
	f->nparts = 0;
	f->pdone = NULL;
	return ok ? 1 : -1;
}
