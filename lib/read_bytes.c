/*
 * read_bytes.c - a buffer of a byte source's input (struct rbuf): read
 * more into it, keeping the context the framer looks back into, cut it
 * into lines, and say what went wrong in a source when the reader comes
 * to it.  Its lines are also the library's one line reader for what is
 * read beside the reader (mct_lines_*(): partials, metric logs).
 *
 * Calls nothing else of the reader's (it is at the bottom).
 */
#include "config.h"

#include <err.h>
#include <stdlib.h>
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

/*
 * The next line of b, without its line end, read on with rd(arg) as
 * needed: MCT_LINE, MCT_LINE_CUT for a last line with no line end, or 0
 * at the end (a failed read ends it: the source keeps what went wrong).
 */
static int
bytes_line(struct rbuf *b, ssize_t (*rd)(void *, char *, size_t), void *arg,
    char **line, size_t *n)
{
	char *nl;
	int rc = MCT_LINE;

	while ((nl = read_find_nl(b)) == NULL) {
		if (b->eof) {
			if (b->pos == b->end)
				return 0;
			nl = b->p + b->end;
			rc = MCT_LINE_CUT;
			break;
		}
		bytes_refill(b, rd, arg);
	}
	*line = b->p + b->pos;
	*n = (size_t)(nl - *line);
	b->pos = (size_t)(nl - b->p) + (rc == MCT_LINE);
	return rc;
}

/* A source read line by line. */
struct mct_lines {
	struct mct_src	*src;
	struct rbuf	 b;
};

struct mct_lines *
mct_lines_open(struct mct_src *src)
{
	struct mct_lines *li = mct_xmalloc(sizeof(*li));

	memset(li, 0, sizeof(*li));
	li->src = src;
	li->b.eof = mct_src_failed(src);
	return li;
}

/*
 * The next line, without its line end, and the byte offset it begins at.
 * Returns MCT_LINE, MCT_LINE_CUT for a last line with no line end (the
 * source ended there), or 0 at the end of the source.
 */
int
mct_lines_next(struct mct_lines *li, const char **line, size_t *n,
    unsigned long long *off)
{
	char *p;
	int rc;

	if ((rc = bytes_line(&li->b, bytes_src_rd, li->src, &p, n)) == 0)
		return 0;
	*line = p;
	*off = li->b.base + (unsigned long long)(p - li->b.p);
	return rc;
}

/*
 * The bytes ahead, at least want of them unless the source ends first
 * (*n: how many); the next line still begins at the first.
 */
const char *
mct_lines_peek(struct mct_lines *li, size_t want, size_t *n)
{
	struct rbuf *b = &li->b;

	while (b->end - b->pos < want && !b->eof)
		bytes_refill(b, bytes_src_rd, li->src);
	*n = b->end - b->pos;
	return b->p ? b->p + b->pos : "";
}

/* Free it; the source stays open. */
void
mct_lines_free(struct mct_lines *li)
{
	if (li == NULL)
		return;
	free(li->b.p);
	free(li);
}
