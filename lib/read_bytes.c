/*
 * read_bytes.c - a buffer of a byte source's input (struct rbuf): read
 * more into it, keeping the context the framer looks back into, and say
 * what went wrong in a source when the reader comes to it.
 *
 * Calls nothing else of the reader's (it is at the bottom).
 */
#include "config.h"

#include <err.h>
#include <string.h>

#include "mct.h"
#include "read_private.h"

/*
 * Say what went wrong in a byte source, if anything did, now: in order
 * with the framer's messages.  It is damage; a thread's part (no reader)
 * only notes it, and the file is then framed again, aloud.
 */
void
bytes_src_error(struct mct_reader *r, const char *name, struct mct_src *s,
    struct facts *fx)
{
	const char *msg;
	long long off;

	if ((msg = mct_src_error(s, &off)) == NULL)
		return;
	fx->damaged = 1;
	if (r == NULL)
		return;
	r->status = mct_status(r->status, MCT_EXIT_DAMAGED);
	if (off >= 0)
		warnx("%s:%lld: %s", name, off, msg);
	else
		warnx("%s: %s", name, msg);
}

/*
 * Make room and read more.  Keeps p[pos..end) and up to CONTEXT bytes before
 * pos, the context frame_resync() looks back into (the '}' of "}, {"), so that
 * where a read ends does not change where framing starts again; returns
 * the number of new bytes, 0 at the end, -1 on a read error.
 */
ssize_t
bytes_refill(struct rbuf *b, ssize_t (*rd)(void *, char *, size_t), void *arg)
{
	size_t drop;
	ssize_t n;

	if (b->eof)
		return 0;
	if (b->pos > CONTEXT) {
		drop = b->pos - CONTEXT;
		memmove(b->p, b->p + drop, b->end - drop);
		b->base += drop;
		b->end -= drop;
		b->pos = CONTEXT;
	}
	if (b->end == b->cap || b->cap - b->end < RBUF / 4) {
		size_t had = b->cap;

		b->cap = b->cap ? b->cap * 2 : RBUF;
		b->p = mct_xrealloc(b->p, b->cap + 1);
		mct_prefault(b->p + had, b->cap + 1 - had);
	}
	n = rd(arg, b->p + b->end, b->cap - b->end);
	if (n <= 0) {
		b->eof = 1;
		return n;
	}
	b->end += (size_t)n;
	return n;
}

ssize_t
bytes_src_rd(void *arg, char *buf, size_t n)
{
	return mct_src_read(arg, buf, n);
}
