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
 *
 * gzip is inflated in a thread of its own, a ring of buffers ahead of the
 * reader, so that inflating and framing share two cores instead of taking
 * turns on one; with ISA-L's inflater when configure found it (several
 * times faster than zlib's on JSON), else zlib's.  The thread keeps what
 * goes wrong to itself until the reader has taken every byte before it.
 */
#include "config.h"

#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#ifdef HAVE_ISAL
#include <isa-l/igzip_lib.h>
#else
#include <zlib.h>
#endif

#include "mct_private.h"

#define ZBUF	(256 * 1024)	/* compressed bytes read at once */
#define RING	4		/* buffers of inflated bytes ahead of the reader */
#define SLOT	(256 * 1024)
#define ZHEAD	4096		/* a member's first inflate gets this much */

#ifdef HAVE_ISAL
typedef struct inflate_state	zstate;
#else
typedef z_stream		zstate;
#endif

/* A buffer of inflated bytes: the reader's from when it is published. */
struct slot {
	char		*p;
	size_t		 len;
	long long	 inpos;		/* compressed bytes read when it was */
};

/*
 * The inflating thread and the ring it fills.  Slots [rp, rp + nfull) are
 * the reader's; the rest the thread's.  The lock guards nfull, done and
 * stop; what the thread alone writes before it sets done (the error) is
 * the reader's after it sees done.
 */
struct ring {
	pthread_t	 tid;
	pthread_mutex_t	 mu;
	pthread_cond_t	 more;		/* a slot was published, or done */
	pthread_cond_t	 room;		/* a slot was freed, or stop */
	struct slot	 slot[RING];
	int		 rp;		/* the reader's slot */
	size_t		 roff;		/* and how far into it */
	int		 nfull;
	int		 done;		/* the thread published its last slot */
	int		 stop;		/* the reader closes early */
	int		 started;
	size_t		 slotsz;	/* SLOT, or less for a test */
	/* the thread's own */
	zstate		 z;
	int		 zend;		/* inflate saw the end of a member */
	int		 pending;	/* the inflater may hold output */
	int		 fresh;		/* at a member's start */
	int		 zeof;		/* no compressed bytes left to read */
	long long	 zin;		/* compressed bytes read */
	long long	 zout;		/* inflated bytes published */
	/* how it ended: set before done */
	const char	*err;		/* NULL: at the end of the data */
	long long	 erroff;
	int		 errdata;	/* said with the last bytes, not after */
	int		 bad;		/* damaged gzip data, not a read error */
	char		 errbuf[200];
};

struct mct_src {
	char		*name;
	int		 fd;
	long long	 size;		/* of a regular file, else -1 */
	struct timespec	 mtime;		/* and when it was last written */
	long long	 pos;		/* bytes delivered */
	long long	 start;		/* offset of the first byte, if seekable */
	long long	 limit;		/* deliver at most this many, or -1 */
	int		 pread;		/* read at start + pos (rewound or a clone) */
	int		 gz;
	int		 eof;
	int		 bad;		/* the gzip stream was damaged */
	int		 failed;	/* it could not be opened */
	const char	*err;		/* an error not yet taken, or NULL */
	long long	 erroff;	/* its offset, or -1 */
	char		 errbuf[256];
	struct ring	*ring;		/* of a gzip source */
	long long	 zpos;		/* compressed bytes behind what was taken */
	unsigned char	*zbuf;
	size_t		 zlen;		/* plain bytes read ahead of the caller */
	size_t		 zmax;		/* compressed bytes read at once */
};

static int	ring_new(struct mct_src *);
static void	ring_free(struct mct_src *);
static ssize_t	src_read(struct mct_src *, char **, size_t, int);

/*
 * MCT_GZSLOT=N makes the ring's buffers and the compressed reads N bytes
 * (at most their usual sizes, at least 2), so that a test or the fuzzer
 * turns the ring over many times on a small input, and reads compressed
 * bytes in pieces as a slow pipe gives them.  0: the usual sizes.
 */
static size_t
gzslot(size_t max)
{
	const char *env = getenv("MCT_GZSLOT");
	long long n = env && *env ? atoll(env) : 0;

	/* (two bytes at least, to see the magic) */
	return n < 1 || (size_t)n > max ? max : n < 2 ? 2 : (size_t)n;
}

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
	s->mtime = st.st_mtim;
	s->start = S_ISREG(st.st_mode) ? (long long)lseek(s->fd, 0, SEEK_CUR) : -1;
	s->limit = -1;
	mct_pipe_size(s->fd);	/* fewer reads */
	/* Read the first bytes to see whether it is gzip. */
	s->zbuf = mct_xmalloc(ZBUF);
	mct_prefault(s->zbuf, ZBUF);
	s->zmax = gzslot(ZBUF);
	while (s->zlen < 2) {
		n = read(s->fd, s->zbuf + s->zlen, s->zmax - s->zlen);
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
		if (ring_new(s) == -1) {
			fail(s, -1, "cannot start inflating");
			goto bad;
		}
		s->gz = 1;
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

/*
 * The size of a plain regular file now, from the source's start: it may
 * have changed since it was opened.  -1 if it is not such a file.
 */
long long
mct_src_size_now(const struct mct_src *s)
{
	struct stat st;

	if (s->gz || s->start < 0 || fstat(s->fd, &st) == -1 ||
	    !S_ISREG(st.st_mode))
		return -1;
	return (long long)st.st_size - s->start;
}

/*
 * Has the plain regular file been written since it was opened (its size
 * or its modification time is not the same)?  Pass 2 takes a chunk's
 * bytes as pass 1 checked them only if not.
 */
int
mct_src_changed(const struct mct_src *s)
{
	struct stat st;

	if (s->gz || s->start < 0 || fstat(s->fd, &st) == -1)
		return 1;
	return (long long)st.st_size != s->size ||
	    st.st_mtim.tv_sec != s->mtime.tv_sec ||
	    st.st_mtim.tv_nsec != s->mtime.tv_nsec;
}

/* How far into the file we are: compressed bytes for gzip (for progress). */
long long
mct_src_pos(const struct mct_src *s)
{
	return s->gz ? s->zpos : s->pos;
}

static ssize_t
raw_read(struct mct_src *s, void *buf, size_t n)
{
	ssize_t r;

	do
		r = s->pread ? pread(s->fd, buf, n, (off_t)(s->start + s->pos)) :
		    read(s->fd, buf, n);
	while (r == -1 && errno == EINTR);
	return r;
}

/*
 * The inflater, ISA-L's or zlib's, behind four calls.  inf_run says
 * INF_OK (more to come), INF_END (a member ended) or INF_ERR with a
 * message in zlib's words, which the tests and users already know.
 */
enum { INF_OK, INF_END, INF_ERR };

#ifdef HAVE_ISAL
static int
inf_init(zstate *z)
{
	isal_inflate_init(z);
	z->crc_flag = ISAL_GZIP;
	return 0;
}

static void
inf_reset(zstate *z)
{
	zstate keep = *z;	/* the buffers: the reset may forget them */

	isal_inflate_reset(z);
	z->crc_flag = ISAL_GZIP;
	z->next_in = keep.next_in;
	z->avail_in = keep.avail_in;
	z->next_out = keep.next_out;
	z->avail_out = keep.avail_out;
}

static int
inf_run(zstate *z, const char **msg)
{
	int rc;

	switch ((rc = isal_inflate(z))) {
	case ISAL_INVALID_BLOCK:
		*msg = "invalid block type";
		break;
	case ISAL_INVALID_SYMBOL:
		*msg = "invalid literal/length code";
		break;
	case ISAL_INVALID_LOOKBACK:
		*msg = "invalid distance too far back";
		break;
	case ISAL_INVALID_WRAPPER:
		*msg = "incorrect header check";
		break;
	case ISAL_UNSUPPORTED_METHOD:
		*msg = "unknown compression method";
		break;
	case ISAL_INCORRECT_CHECKSUM:
		*msg = "incorrect data check";
		break;
	default:
		if (rc < 0 || rc == ISAL_NEED_DICT) {
			*msg = "inflate failed";
			break;
		}
		return z->block_state == ISAL_BLOCK_FINISH ? INF_END : INF_OK;
	}
	return INF_ERR;
}

static void
inf_end(zstate *z)
{
	(void)z;
}
#else
static int
inf_init(zstate *z)
{
	return inflateInit2(z, 15 + 32) == Z_OK ? 0 : -1;
}

static void
inf_reset(zstate *z)
{
	inflateReset(z);
}

static int
inf_run(zstate *z, const char **msg)
{
	int zr;

	zr = inflate(z, Z_NO_FLUSH);
	if (zr == Z_STREAM_END)
		return INF_END;
	if (zr == Z_OK || zr == Z_BUF_ERROR)
		return INF_OK;
	*msg = z->msg ? z->msg : "inflate failed";
	return INF_ERR;
}

static void
inf_end(zstate *z)
{
	inflateEnd(z);
}
#endif

/* How the thread's stream ended: at off, with or after the last bytes. */
static int
zfail(struct ring *g, long long off, const char *what, const char *msg,
    int bad, int withdata)
{
	snprintf(g->errbuf, sizeof(g->errbuf), "%s%s", what, msg);
	g->err = g->errbuf;
	g->erroff = off;
	g->bad = bad;
	g->errdata = withdata;
	return -1;
}

/*
 * Compressed bytes, read in the thread after the off bytes kept at the
 * buffer's start.  Only here may the reader cancel it: a pipe that never
 * ends must not keep mct_src_close() waiting.
 */
static ssize_t
zread(struct mct_src *s, size_t off)
{
	ssize_t r;
	int e, old;

	pthread_setcancelstate(PTHREAD_CANCEL_ENABLE, &old);
	r = raw_read(s, s->zbuf + off, ZBUF - off < s->zmax ? ZBUF - off :
	    s->zmax);
	e = errno;
	pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &old);
	errno = e;
	return r;
}

/*
 * Inflate into one slot until it is full or the data ends (*len bytes).
 * Returns 0 if there is more, 1 at the end, -1 at an error (in the ring).
 * The same rules as gzip -d: members one after the other, nothing else
 * after them.
 */
static int
zfill(struct mct_src *s, struct ring *g, char *out, size_t *len)
{
	zstate *z = &g->z;
	const char *msg = NULL;
	long long at;
	unsigned int in, avail;
	ssize_t r;
	int rc;

	z->next_out = (unsigned char *)out;
	z->avail_out = (unsigned int)g->slotsz;
	rc = 0;
	while (z->avail_out > 0 && rc == 0) {
		at = g->zout + (long long)(g->slotsz - z->avail_out);
		/*
		 * More input when it is all taken, and at a member's start
		 * up to ZHEAD bytes: ISA-L misreads a gzip header with a
		 * file name that comes in pieces (a slow pipe).
		 */
		if ((z->avail_in == 0 && (g->zend || !g->pending)) ||
		    (g->fresh && z->avail_in < ZHEAD && !g->zeof)) {
			if (z->avail_in > 0)
				memmove(s->zbuf, z->next_in, z->avail_in);
			if ((r = zread(s, z->avail_in)) == -1)
				rc = zfail(g, -1, "", strerror(errno), 0, 0);
			else if (r == 0 && z->avail_in > 0)
				g->zeof = 1;	/* on with what there is */
			else if (r == 0 && g->zend)
				rc = 1;
			else if (r == 0)
				rc = zfail(g, at, "gzip stream cut off", "",
				    1, 0);
			if (rc != 0)
				break;
			g->zin += r;
			z->next_in = s->zbuf;
			z->avail_in += (unsigned int)r;
			continue;
		}
		if (g->zend) {
			/* Another member follows the one that ended. */
			if (z->next_in[0] != 0x1f) {
				rc = zfail(g, at, "garbage after the gzip data",
				    "", 1, 0);
				break;
			}
			inf_reset(z);
			g->zend = 0;
			g->fresh = 1;
			continue;
		}
		g->fresh = 0;
		in = z->avail_in;
		avail = z->avail_out;
		switch (inf_run(z, &msg)) {
		case INF_END:
			g->zend = 1;
			break;
		case INF_ERR:
			rc = zfail(g, g->zout + (long long)(g->slotsz -
			    z->avail_out), "damaged gzip data: ", msg, 1, 1);
			break;
		default:
			if (in > 0 && in == z->avail_in &&
			    avail == z->avail_out)	/* stuck */
				rc = zfail(g, at, "damaged gzip data: ",
				    "inflate failed", 1, 1);
			break;
		}
		/* with its output full, the inflater may hold more */
		g->pending = z->avail_out == 0;
	}
	*len = g->slotsz - z->avail_out;
	return rc;
}

/*
 * The thread: fill the free slots until the data ends or the reader goes;
 * it makes their buffers as it first fills them.
 */
static void *
inflater(void *arg)
{
	struct mct_src *s = arg;
	struct ring *g = s->ring;
	struct slot *sl;
	size_t len;
	int old, rc, w;

	pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &old);
	for (w = 0;; w = (w + 1) % RING) {
		pthread_mutex_lock(&g->mu);
		while (g->nfull == RING && !g->stop)
			pthread_cond_wait(&g->room, &g->mu);
		if (g->stop) {
			pthread_mutex_unlock(&g->mu);
			break;
		}
		pthread_mutex_unlock(&g->mu);
		sl = &g->slot[w];
		if (sl->p == NULL)
			sl->p = mct_src_buf(g->slotsz);
		rc = zfill(s, g, sl->p, &len);
		pthread_mutex_lock(&g->mu);
		sl->len = len;
		g->zout += (long long)len;
		sl->inpos = g->zin - (long long)g->z.avail_in;
		g->nfull++;
		g->done = rc != 0;
		pthread_cond_signal(&g->more);
		pthread_mutex_unlock(&g->mu);
		if (rc != 0)
			break;
	}
	return NULL;
}

/* The ring of a gzip source and its thread. */
static int
ring_new(struct mct_src *s)
{
	struct ring *g;

	g = mct_xmalloc(sizeof(*g));
	memset(g, 0, sizeof(*g));
	if (inf_init(&g->z) == -1) {
		free(g);
		return -1;
	}
	g->z.next_in = s->zbuf;
	g->z.avail_in = (unsigned int)s->zlen;
	g->fresh = 1;
	g->zin = (long long)s->zlen;
	s->zlen = 0;
	g->slotsz = gzslot(SLOT);
	pthread_mutex_init(&g->mu, NULL);
	pthread_cond_init(&g->more, NULL);
	pthread_cond_init(&g->room, NULL);
	s->ring = g;
	/*
	 * The thread starts now, not at the first read: a thread takes
	 * milliseconds to first run on a virtual machine, and meanwhile
	 * the reader goes on.  (If it cannot, the first read says so.)
	 */
	g->started = mct_thread(&g->tid, "mct-inflate", inflater, s, 0) == 0;
	return 0;
}

/* A buffer of size bytes with room around it (mct_src_swap()). */
char *
mct_src_buf(size_t size)
{
	char *p;

	p = mct_xmalloc(MCT_SRC_BEFORE + size + MCT_SRC_AFTER);
	mct_prefault(p, MCT_SRC_BEFORE + size + MCT_SRC_AFTER);
	return p + MCT_SRC_BEFORE;
}

void
mct_src_buf_free(char *p)
{
	if (p != NULL)
		free(p - MCT_SRC_BEFORE);
}

/*
 * Take up to n inflated bytes from the ring to *bufp, waiting only while
 * it has none.  With swap, and n no more than a slot: only to the end of
 * the slot (an empty one, the end of a member, is passed over), and a
 * whole slot of n bytes is traded for *bufp (a buffer of as many).  The
 * end, or what went wrong, is the reader's once it has every byte before
 * it: a damaged member's error with its last bytes, as zlib gave them,
 * the others at the next read.
 */
static ssize_t
ring_read(struct mct_src *s, char **bufp, size_t n, int swap)
{
	struct ring *g = s->ring;
	struct slot *sl;
	char *buf = *bufp, *t;
	size_t got = 0, k;
	int end;

	if (!g->started) {
		if (mct_thread(&g->tid, "mct-inflate", inflater, s, 0) != 0) {
			fail(s, -1, "cannot start inflating");
			s->eof = 1;
			return -1;
		}
		g->started = 1;
	}
	pthread_mutex_lock(&g->mu);
	while (got < n) {
		while (g->nfull == 0 && !g->done && got == 0)
			pthread_cond_wait(&g->more, &g->mu);
		if (g->nfull == 0)
			break;
		pthread_mutex_unlock(&g->mu);
		sl = &g->slot[g->rp];
		k = sl->len - g->roff < n - got ? sl->len - g->roff : n - got;
		if (swap && g->roff == 0 && n == g->slotsz && sl->len > 0) {
			/*
			 * The slot is the reader's until nfull says not.  (Not
			 * an empty one, the end of a member: the reader keeps
			 * its buffer when it gets no bytes.)
			 */
			t = sl->p;
			sl->p = buf;
			*bufp = buf = t;
		} else
			memcpy(buf + got, sl->p + g->roff, k);
		got += k;
		if (swap && n <= g->slotsz && got > 0)
			n = got;	/* the slot's end */
		g->roff += k;
		pthread_mutex_lock(&g->mu);
		if (g->roff == sl->len) {
			s->zpos = sl->inpos;
			g->rp = (g->rp + 1) % RING;
			g->roff = 0;
			g->nfull--;
			pthread_cond_signal(&g->room);
		}
	}
	end = g->done && g->nfull == 0;
	pthread_mutex_unlock(&g->mu);
	s->pos += (long long)got;
	if (!end || (got > 0 && (g->err == NULL || !g->errdata)))
		return (ssize_t)got;
	s->eof = 1;
	if (g->err == NULL)
		return (ssize_t)got;
	s->bad = g->bad;
	fail(s, g->erroff, g->err);
	return got > 0 ? (ssize_t)got : -1;
}

/* Stop the thread (cancelled if it waits for input) and free the ring. */
static void
ring_free(struct mct_src *s)
{
	struct ring *g = s->ring;
	int i;

	if (g->started) {
		pthread_mutex_lock(&g->mu);
		g->stop = 1;
		if (!g->done)
			pthread_cancel(g->tid);
		pthread_cond_signal(&g->room);
		pthread_mutex_unlock(&g->mu);
		pthread_join(g->tid, NULL);
	}
	inf_end(&g->z);
	for (i = 0; i < RING; i++)
		mct_src_buf_free(g->slot[i].p);
	pthread_mutex_destroy(&g->mu);
	pthread_cond_destroy(&g->more);
	pthread_cond_destroy(&g->room);
	free(g);
}

/*
 * Read up to n bytes.  Returns the count, 0 at the end, -1 on a read
 * error or a damaged gzip stream (kept for mct_src_error()).
 */
ssize_t
mct_src_read(struct mct_src *s, char *buf, size_t n)
{
	return src_read(s, &buf, n, 0);
}

/* A gzip source: mct_src_swap() reads to the ends of buffers. */
int
mct_src_gzip(const struct mct_src *s)
{
	return s->gz;
}

ssize_t
mct_src_swap(struct mct_src *s, char **bufp, size_t n)
{
	return src_read(s, bufp, n, 1);
}

/* mct_src_read(), or mct_src_swap() (swap). */
static ssize_t
src_read(struct mct_src *s, char **bufp, size_t n, int swap)
{
	char *buf = *bufp;
	ssize_t r;

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
	if (s->gz)
		return ring_read(s, bufp, n, swap);
	if (s->zlen > 0) {
		/* Hand out what we read to look for the magic. */
		r = (ssize_t)(s->zlen < n ? s->zlen : n);
		memcpy(buf, s->zbuf, (size_t)r);
		memmove(s->zbuf, s->zbuf + r, s->zlen - (size_t)r);
		s->zlen -= (size_t)r;
	} else if ((r = raw_read(s, buf, n)) <= 0) {
		if (r == -1)
			fail(s, -1, strerror(errno));
		s->eof = 1;
		return r;
	}
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
	c->mtime = s->mtime;
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
		ring_free(s);
	if (s->fd > STDIN_FILENO)
		close(s->fd);
	free(s->zbuf);
	free(s->name);
	free(s);
	return rv;
}

/*
 * What kind of input begins with the n bytes at p.  The one test of it,
 * for the reader, the partials and the tools that take several kinds:
 * by the first bytes alone, which p holds as the input's first line
 * whole, or its first MCT_KIND_BYTES, or all of it (all set).  Tags
 * count only where mct writes them: a stream's header line first of all,
 * a partial's header after space.  With fewer bytes that could still be
 * either, MCT_KIND_MORE asks for more.
 */
int
mct_src_kind(const char *p, size_t n, int all)
{
	static const char stream[] = MCT_HEADER_TAG;
	static const struct {
		const char	*tag;
		size_t		 len;
		int		 kind;
	} partial[] = {
		{ "{\"mct_partial\":", 15, MCT_KIND_PARTIAL },
		{ "{\"mct_ranks_partial\":", 21, MCT_KIND_RANKS_PARTIAL },
	};
	size_t i, at, k, m;
	int more = 0;

	if (n == 0)
		return all ? MCT_KIND_EMPTY : MCT_KIND_MORE;
	if (mct_header_line(p, n))
		return MCT_KIND_STREAM;
	m = n < sizeof(stream) - 1 ? n : sizeof(stream) - 1;
	if (memcmp(p, stream, m) == 0)	/* its beginning, so far */
		more = !all;
	for (at = 0; at < n && (p[at] == ' ' || p[at] == '\t' ||
	    p[at] == '\r' || p[at] == '\n'); at++)
		;
	if (at == n)
		return all ? MCT_KIND_EMPTY : MCT_KIND_MORE;
	for (i = 0; i < sizeof(partial) / sizeof(partial[0]); i++) {
		k = n - at < partial[i].len ? n - at : partial[i].len;
		if (memcmp(p + at, partial[i].tag, k) != 0)
			continue;
		if (k == partial[i].len)
			return partial[i].kind;
		more |= !all;
	}
	if (more)
		return MCT_KIND_MORE;
	switch (p[at]) {
	case '{':
		return MCT_KIND_OBJECT;
	case '[':
		return MCT_KIND_ARRAY;
	case '\xef':	/* a byte order mark is JSON's (the framer skips it) */
		if (n - at < 3 && !all)
			return MCT_KIND_MORE;
		if (n - at >= 3 && memcmp(p + at, "\xef\xbb\xbf", 3) == 0)
			return MCT_KIND_OBJECT;
	}
	return MCT_KIND_LOG;
}

/*
 * The first bytes of a file, up to n, for mct_src_kind(): how many (all
 * there are if fewer), or -1 if it cannot be read.  The file is read
 * again from its start after: a pipe cannot be, and is not looked at.
 */
ssize_t
mct_src_head(const char *path, char *buf, size_t n)
{
	struct stat st;
	struct mct_src *s;
	ssize_t got = 0, k;

	if (strcmp(path, "-") == 0 || stat(path, &st) != 0 ||
	    !S_ISREG(st.st_mode))
		return -1;
	s = mct_src_open(path);
	while (!mct_src_failed(s) && (size_t)got < n &&
	    (k = mct_src_read(s, buf + got, n - (size_t)got)) > 0)
		got += k;
	if (mct_src_failed(s))
		got = -1;
	mct_src_close(s);
	return got;
}
