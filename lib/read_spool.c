/*
 * read_spool.c - the reader's spools, unlinked files in $TMPDIR: the
 * spool of event lines that pass 1 writes for an operand read once (a
 * pipe, gzip) and pass 2 reads back, and the side spool of top-level
 * values too big for the header (struct mct_bigtop, for --wrap).  A spool
 * that cannot be written or read is said once and makes the status
 * MCT_EXIT_USAGE.
 *
 * Calls nothing else of the reader's (it is at the bottom).
 */
#include "config.h"

#include <err.h>
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "mct.h"
#include "read_private.h"

/* The spool failed: say so once; the status says it at the end. */
void
spool_failed(struct mct_reader *r)
{
	if (!r->spoolbad)
		warn("spool %s", r->spoolname);
	r->spoolbad = 1;
	mct_cutoff_arm();
	r->status = mct_status(r->status, MCT_EXIT_USAGE);
}

ssize_t
spool_rd(void *arg, char *buf, size_t n)
{
	struct mct_reader *r = arg;
	long long left = r->in[r->cur].rp.spool_to - r->spool_pos;
	ssize_t got;

	if ((long long)n > left)
		n = (size_t)left;
	if (n == 0)
		return 0;
	do
		got = pread(r->spool, buf, n, r->spool_pos);
	while (got == -1 && errno == EINTR);
	if (got == -1) {
		spool_failed(r);
		return -1;
	}
	r->spool_pos += got;
	return got;
}

/*
 * Keep a value over the limit in the reader's side spool: 0, or -1 if it
 * cannot be written (then it goes in the header after all).
 */
int
spool_top(struct mct_reader *r, struct facts *fx, const char *p, size_t n,
    size_t k, int before)
{
	struct mct_bigtop *t;
	long long off;

	if (r->topf == NULL && (r->topf = mct_tmpfile(NULL, &r->topvb)) == NULL)
		return -1;
	if (fseeko(r->topf, 0, SEEK_END) != 0 || (off = ftello(r->topf)) < 0 ||
	    fwrite(p + k + 1, 1, n - k - 1, r->topf) != n - k - 1 ||
	    fflush(r->topf) != 0) {
		warn("spool of big top-level values");
		return -1;
	}
	fx->big = mct_xrealloc(fx->big, (size_t)(fx->nbig + 1) * sizeof(*t));
	t = &fx->big[fx->nbig++];
	t->key = mct_xmalloc(k + 1);
	memcpy(t->key, p, k);
	t->key[k] = '\0';
	t->keylen = k;
	t->off = off;
	t->len = n - k - 1;
	t->before = before;
	t->pos = fx->ntop + fx->nbig - 1;
	return 0;
}

int
spool_make(struct mct_reader *r)
{
	if ((r->spoolf = mct_tmpfile(&r->spoolname, &r->spoolvb)) == NULL)
		return -1;
	r->spool = fileno(r->spoolf);
	return 0;
}

/* Where this trace operand's lines in the spool begin, or end. */
long long
spool_at(struct mct_reader *r)
{
	if (r->spoolbad)
		return 0;
	if (fflush(r->spoolf) != 0) {
		spool_failed(r);
		return 0;
	}
	return ftello(r->spoolf);
}

/* The spool's bytes [from, from + n) into p; how many it could read. */
size_t
spool_read(int spool, char *p, long long from, size_t n)
{
	size_t done = 0;
	ssize_t got;

	while (done < n) {
		got = pread(spool, p + done, n - done, (off_t)(from +
		    (long long)done));
		if (got == -1 && errno == EINTR)
			continue;
		if (got <= 0)
			break;
		done += (size_t)got;
	}
	return done;
}
