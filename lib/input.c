/*
 * input.c - byte sources: a file or standard input ("-"), gzip or plain,
 * told apart by the magic bytes, not the name.  Concatenated gzip members
 * are read one after the other, as gzip -d does.
 *
 * Nothing here prints or exits.  What goes wrong (a file that cannot be
 * opened, a read error, damaged gzip data) is kept in the source as data,
 * a message and the offset it is at, until the reader takes it with
 * mct_src_error() and says it in order with its own messages: a source
 * read ahead (by a thread, say) cannot then speak out of turn.
 */
#include "config.h"

#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "mct.h"

#define ZBUF	(256 * 1024)

struct mct_src {
	char		*name;
	int		 fd;
	long long	 size;		/* of a regular file, else -1 */
	long long	 pos;		/* bytes delivered */
	long long	 start;		/* offset of the first byte, if seekable */
	long long	 limit;		/* deliver at most this many, or -1 */
	int		 pread;		/* read at start + pos (rewound or a clone) */
	int		 gz;
	int		 zend;		/* inflate saw the end of a member */
	int		 eof;
	int		 bad;		/* the gzip stream was damaged */
	int		 failed;	/* it could not be opened */
	const char	*err;		/* an error not yet taken, or NULL */
	long long	 erroff;	/* its offset, or -1 */
	char		 errbuf[256];
	z_stream	 z;
	unsigned char	*zbuf;
	size_t		 zlen;		/* plain bytes read ahead of the caller */
};

/* Keep an error for the reader to take: at a byte offset, or -1. */
static void
fail(struct mct_src *s, long long off, const char *msg)
{
	if (s->err != NULL)
		return;		/* the first one says it */
	snprintf(s->errbuf, sizeof(s->errbuf), "%s", msg);
	s->err = s->errbuf;
	s->erroff = off;
}

/*
 * Open a source; "-" is standard input.  Never NULL: if it cannot be
 * opened, mct_src_error() says why and every read returns -1 (the
 * caller's status is then MCT_EXIT_USAGE).
 */
struct mct_src *
mct_src_open(const char *name)
{
	struct mct_src *s;
	struct stat st;
	ssize_t n;

	s = mct_xmalloc(sizeof(*s));
	memset(s, 0, sizeof(*s));
	s->name = mct_xstrdup(strcmp(name, "-") == 0 ? "(stdin)" : name);
	s->fd = -1;
	if (strcmp(name, "-") == 0)
		s->fd = STDIN_FILENO;
	else if ((s->fd = open(name, O_RDONLY)) == -1) {
		fail(s, -1, strerror(errno));
		goto bad;
	}
	if (fstat(s->fd, &st) == -1) {
		fail(s, -1, strerror(errno));
		goto bad;
	}
	if (S_ISDIR(st.st_mode)) {
		fail(s, -1, "is a directory");
		goto bad;
	}
	s->size = S_ISREG(st.st_mode) ? (long long)st.st_size : -1;
	s->start = S_ISREG(st.st_mode) ? (long long)lseek(s->fd, 0, SEEK_CUR) : -1;
	s->limit = -1;
#ifdef F_SETPIPE_SZ
	if (S_ISFIFO(st.st_mode))
		(void)fcntl(s->fd, F_SETPIPE_SZ, 1 << 20);	/* fewer reads */
#endif
	/* Read the first bytes to see whether it is gzip. */
	s->zbuf = mct_xmalloc(ZBUF);
	while (s->zlen < 2) {
		n = read(s->fd, s->zbuf + s->zlen, ZBUF - s->zlen);
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1) {
			fail(s, -1, strerror(errno));
			goto bad;
		}
		if (n == 0)
			break;
		s->zlen += (size_t)n;
	}
	if (s->zlen >= 2 && s->zbuf[0] == 0x1f && s->zbuf[1] == 0x8b) {
		s->gz = 1;
		if (inflateInit2(&s->z, 15 + 32) != Z_OK) {
			s->gz = 0;
			fail(s, -1, "inflateInit failed");
			goto bad;
		}
		s->z.next_in = s->zbuf;
		s->z.avail_in = (uInt)s->zlen;
	}
	return s;
bad:
	/* a source that says why it failed and gives no bytes */
	if (s->fd > STDIN_FILENO)
		close(s->fd);
	s->fd = -1;
	free(s->zbuf);
	s->zbuf = NULL;
	s->zlen = 0;
	s->size = s->start = -1;
	s->failed = s->eof = 1;
	return s;
}

/* Could it not be opened?  mct_src_error() then says why. */
int
mct_src_failed(const struct mct_src *s)
{
	return s->failed;
}

/*
 * Take the error the source keeps, if any: its message (valid while the
 * source is open) and in *off the byte offset it is at, or -1 if it is
 * not of a place (the message is then of the file, as strerror says).
 */
const char *
mct_src_error(struct mct_src *s, long long *off)
{
	const char *e = s->err;

	s->err = NULL;
	*off = s->erroff;
	return e;
}

const char *
mct_src_name(const struct mct_src *s)
{
	return s->name;
}

long long
mct_src_size(const struct mct_src *s)
{
	return s->gz ? -1 : s->size;
}

/* How far into the file we are: compressed bytes for gzip (for progress). */
long long
mct_src_pos(const struct mct_src *s)
{
	return s->gz ? (long long)s->z.total_in : s->pos;
}

static ssize_t
raw_read(struct mct_src *s, void *buf, size_t n)
{
	ssize_t r;

	do
		r = s->pread ? pread(s->fd, buf, n, (off_t)(s->start + s->pos)) :
		    read(s->fd, buf, n);
	while (r == -1 && errno == EINTR);
	if (r == -1)
		fail(s, -1, strerror(errno));
	return r;
}

/*
 * Read up to n bytes.  Returns the count, 0 at the end, -1 on a read
 * error or a damaged gzip stream (kept for mct_src_error()).
 */
ssize_t
mct_src_read(struct mct_src *s, char *buf, size_t n)
{
	char msg[200];
	ssize_t r;
	int zr;

	if (s->failed)
		return -1;
	if (s->eof)
		return 0;
	if (s->limit >= 0 && (long long)n > s->limit - s->pos)
		n = (size_t)(s->limit - s->pos);
	if (n == 0) {
		s->eof = 1;
		return 0;
	}
	if (!s->gz) {
		if (s->zlen > 0) {
			/* Hand out what we read to look for the magic. */
			r = (ssize_t)(s->zlen < n ? s->zlen : n);
			memcpy(buf, s->zbuf, (size_t)r);
			memmove(s->zbuf, s->zbuf + r, s->zlen - (size_t)r);
			s->zlen -= (size_t)r;
		} else if ((r = raw_read(s, buf, n)) <= 0) {
			s->eof = 1;
			return r;
		}
		s->pos += r;
		return r;
	}
	s->z.next_out = (unsigned char *)buf;
	s->z.avail_out = (uInt)n;
	while (s->z.avail_out == n) {
		if (s->z.avail_in == 0) {
			r = raw_read(s, s->zbuf, ZBUF);
			if (r < 0) {
				s->eof = 1;
				return -1;
			}
			if (r == 0) {
				s->eof = 1;
				if (!s->zend) {
					s->bad = 1;
					fail(s, s->pos, "gzip stream cut off");
					return -1;
				}
				return 0;
			}
			s->z.next_in = s->zbuf;
			s->z.avail_in = (uInt)r;
		}
		if (s->zend) {
			/* Another member follows the one that ended. */
			if (s->z.next_in[0] != 0x1f) {
				s->eof = 1;
				s->bad = 1;
				fail(s, s->pos, "garbage after the gzip data");
				return -1;
			}
			inflateReset(&s->z);
			s->zend = 0;
		}
		zr = inflate(&s->z, Z_NO_FLUSH);
		if (zr == Z_STREAM_END)
			s->zend = 1;
		else if (zr != Z_OK && zr != Z_BUF_ERROR) {
			s->eof = 1;
			s->bad = 1;
			snprintf(msg, sizeof(msg), "damaged gzip data: %s",
			    s->z.msg ? s->z.msg : "inflate failed");
			fail(s, s->pos + (long long)(n - s->z.avail_out), msg);
			r = (ssize_t)(n - s->z.avail_out);
			s->pos += r;
			return r > 0 ? r : -1;
		}
	}
	r = (ssize_t)(n - s->z.avail_out);
	s->pos += r;
	return r;
}

/*
 * Can the source be read again from its start?  A plain regular file can
 * (gzip could, but inflating twice costs more than keeping a copy).
 */
int
mct_src_rewindable(const struct mct_src *s)
{
	return !s->gz && s->start >= 0;
}

/*
 * Read a rewindable source again from its start, at most the n bytes
 * delivered before (a file that grows meanwhile is read as it was).
 */
void
mct_src_rewind(struct mct_src *s, long long n)
{
	s->pread = 1;		/* the descriptor's offset is left alone */
	s->pos = 0;
	s->zlen = 0;
	s->eof = 0;
	s->limit = n;
}

/*
 * A second reader of a rewindable source, from byte off up to byte
 * limit (-1: the end): one thread each reads a part of a big file.
 */
struct mct_src *
mct_src_clone(const struct mct_src *s, long long off, long long limit)
{
	struct mct_src *c;

	c = mct_xmalloc(sizeof(*c));
	memset(c, 0, sizeof(*c));
	if ((c->fd = dup(s->fd)) == -1) {
		free(c);
		return NULL;
	}
	c->name = mct_xstrdup(s->name);
	c->size = s->size;
	c->start = s->start;
	c->pos = off;
	c->limit = limit;
	c->pread = 1;
	return c;
}

/* Close; returns MCT_EXIT_DAMAGED if the gzip data was damaged. */
int
mct_src_close(struct mct_src *s)
{
	int rv;

	if (s == NULL)
		return 0;
	rv = s->bad ? MCT_EXIT_DAMAGED : MCT_EXIT_OK;
	if (s->gz)
		inflateEnd(&s->z);
	if (s->fd > STDIN_FILENO)
		close(s->fd);
	free(s->zbuf);
	free(s->name);
	free(s);
	return rv;
}
