/*
 * util.c - memory, growable buffers, exit statuses, threads, the end of main().
 */
#include "config.h"

#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#ifdef HAVE_MALLOC_H
#include <malloc.h>
#endif
#ifdef HAVE_SYS_SENDFILE_H
#include <sys/sendfile.h>
#endif
#include <sys/stat.h>
#include <unistd.h>

#include "mct_private.h"

/*
 * Memory ran out, or a table outgrew what its indexes can count: the one
 * way a library function ends the process (there is nothing sensible to
 * return to).  Everything else comes back to the tool as a status.
 */
void
mct_nomem(const char *what)
{
	err(MCT_EXIT_USAGE, "%s", what);
}

/*
 * What is written stops short of its end: something failed after the
 * output began (a spool), and mct_out_end() ends it with a line saying so.
 */
static int output_cut;

void
mct_cutoff_arm(void)
{
	output_cut = 1;
}

int
mct_cutoff_armed(void)
{
	return output_cut;
}

void *
mct_xmalloc(size_t n)
{
	void *p;

	if ((p = malloc(n ? n : 1)) == NULL)
		mct_nomem("malloc");
	return p;
}

void *
mct_xrealloc(void *p, size_t n)
{
	if ((p = realloc(p, n ? n : 1)) == NULL)
		mct_nomem("realloc");
	return p;
}

/*
 * Room for element n of an array that grows one element at a time: its
 * room doubles each time n reaches a power of two (8 to start with), so
 * that n additions copy O(n) bytes in all, not O(n^2).  The room follows
 * from n alone: callers keep no capacity.
 */
void *
mct_xgrow(void *p, size_t n, size_t size)
{
	size_t cap = 8;

	if (p != NULL && n != 0 && (n < 8 || (n & (n - 1)) != 0))
		return p;
	while (cap <= n)
		cap *= 2;
	if (cap > SIZE_MAX / size)
		mct_nomem("array");
	return mct_xrealloc(p, cap * size);
}

char *
mct_xstrdup(const char *s)
{
	size_t n = strlen(s) + 1;

	return memcpy(mct_xmalloc(n), s, n);
}

/*
 * The pages of a big buffer, p[0..n), mapped at once: one call instead of
 * a fault at the first touch of each page.  On a virtual machine whose
 * host backs the guest's memory lazily, such a fault costs some ten
 * microseconds, and the reader's buffers are touched whole anyway.
 */
void
mct_prefault(void *p, size_t n)
{
#ifdef MADV_POPULATE_WRITE
	long pg = sysconf(_SC_PAGESIZE);
	uintptr_t a = (uintptr_t)p, e = a + n;

	if (n < PREFAULT || pg <= 0)
		return;
	a = (a + (uintptr_t)pg - 1) & ~((uintptr_t)pg - 1);
	e &= ~((uintptr_t)pg - 1);
	if (e > a)
		(void)madvise((void *)a, e - a, MADV_POPULATE_WRITE);
#else
	(void)p;
	(void)n;
#endif
}

/*
 * Buffers of hundreds of KiB, which the reader's threads take and give
 * back at every operand and pass, kept in the heap: glibc would map each
 * by mmap(2), and unmapping it in a process of several threads interrupts
 * every CPU the process ran on to flush its TLB (milliseconds a run on a
 * virtual machine).  The peak is the same; what is freed goes back to the
 * system at exit, not at once.
 *
 * And the heap is offered to transparent huge pages (where they are given
 * on request, madvise(2)): all threads allocate from it (one arena), and
 * it is grown at once by HEAP_PAD, of which the 2 MiB pages are marked
 * MADV_HUGEPAGE.  The reader's buffers are written whole and soon, so a
 * page of 2 MiB costs no more memory than its 512 small ones, and one
 * fault instead of 512: on a virtual machine that shadows page tables,
 * the first touch of a small page costs some 6 us from the program and as
 * much again from the kernel (read(2), write(2)): milliseconds a run for
 * the buffers of a gzip trace.  MCT_HUGEPAGES=0 leaves the heap as it
 * is, and so does a sanitizer's build: its allocator is not glibc's, and
 * the pad only cost it the writing of the pad's shadow, twice (taken and
 * freed), some 1,500 page faults: half of a small run's time.  Once a
 * process, from mct_open().
 */
#define HEAP_PAD	(24 << 20)	/* (below the mmap threshold) */
#define HUGE_PAGE	(2 << 20)

static void
heap_huge(void)
{
#if defined(HAVE_MALLOPT) && defined(M_ARENA_MAX) && defined(MADV_HUGEPAGE) && \
    !defined(__SANITIZE_ADDRESS__) && !defined(__SANITIZE_THREAD__)
	const char *env = getenv("MCT_HUGEPAGES");
	uintptr_t a, e;
	char *p;

	if (env != NULL && strcmp(env, "0") == 0)
		return;
	(void)mallopt(M_ARENA_MAX, 1);
	if ((p = malloc(HEAP_PAD)) == NULL)
		return;
	a = ((uintptr_t)p + HUGE_PAGE - 1) & ~(uintptr_t)(HUGE_PAGE - 1);
	e = ((uintptr_t)p + HEAP_PAD) & ~(uintptr_t)(HUGE_PAGE - 1);
	if (e > a)
		(void)madvise((void *)a, e - a, MADV_HUGEPAGE);
	free(p);	/* to the top of the heap, where the rest comes from */
#endif
}

void
mct_heap_keep(void)
{
#if defined(HAVE_MALLOPT) && defined(M_MMAP_THRESHOLD) && \
    defined(M_TRIM_THRESHOLD)
	static int done;

	if (done++)
		return;
	/* (32 MiB: glibc's greatest mmap threshold on 64-bit systems) */
	(void)mallopt(M_MMAP_THRESHOLD, 32 << 20);
	(void)mallopt(M_TRIM_THRESHOLD, 64 << 20);
	heap_huge();
#endif
}

/* Make room for n more bytes (and a NUL). */
void
mct_buf_grow(struct mct_buf *b, size_t n)
{
	size_t cap;

	if (b->len + n + 1 <= b->cap)
		return;
	cap = b->cap ? b->cap : 256;
	while (cap < b->len + n + 1)
		cap *= 2;
	b->p = mct_xrealloc(b->p, cap);
	mct_prefault(b->p + b->cap, cap - b->cap);
	b->cap = cap;
}

void
mct_buf_add(struct mct_buf *b, const void *s, size_t n)
{
	mct_buf_grow(b, n);
	memcpy(b->p + b->len, s, n);
	b->len += n;
	b->p[b->len] = '\0';
}

void
mct_buf_adds(struct mct_buf *b, const char *s)
{
	mct_buf_add(b, s, strlen(s));
}

void
mct_buf_addc(struct mct_buf *b, int c)
{
	mct_buf_grow(b, 1);
	b->p[b->len++] = (char)c;
	b->p[b->len] = '\0';
}

/*
 * The decimal text of v at o (21 bytes at most, no NUL); its length.  By
 * hand, two digits a step: snprintf cost a tenth of mct-cat's time.
 */
size_t
mct_i64(char *o, int64_t v)
{
	static const char d2[] =
	    "00010203040506070809101112131415161718192021222324"
	    "25262728293031323334353637383940414243444546474849"
	    "50515253545556575859606162636465666768697071727374"
	    "75767778798081828384858687888990919293949596979899";
	char tmp[24], *e = tmp + sizeof(tmp), *q = e;
	uint64_t u = v < 0 ? -(uint64_t)v : (uint64_t)v;

	for (; u >= 100; u /= 100) {
		q -= 2;
		memcpy(q, d2 + 2 * (u % 100), 2);
	}
	if (u >= 10) {
		q -= 2;
		memcpy(q, d2 + 2 * u, 2);
	} else
		*--q = (char)('0' + u);
	if (v < 0)
		*--q = '-';
	memcpy(o, q, (size_t)(e - q));
	return (size_t)(e - q);
}

void
mct_buf_addi(struct mct_buf *b, int64_t v)
{
	mct_buf_grow(b, 24);
	b->len += mct_i64(b->p + b->len, v);
	b->p[b->len] = '\0';
}

/* Append s as a JSON string, quotes included. */
void
mct_buf_addjstr(struct mct_buf *b, const char *s, size_t n)
{
	static const char hex[] = "0123456789abcdef";
	size_t i;

	mct_buf_grow(b, n + 2);
	b->p[b->len++] = '"';
	for (i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c == '"' || c == '\\') {
			mct_buf_addc(b, '\\');
			mct_buf_addc(b, c);
		} else if (c < 0x20) {
			char e[6] = { '\\', 'u', '0', '0', hex[c >> 4], hex[c & 15] };

			mct_buf_add(b, e, 6);
		} else
			mct_buf_addc(b, c);
	}
	mct_buf_addc(b, '"');
}

void
mct_buf_free(struct mct_buf *b)
{
	free(b->p);
	b->p = NULL;
	b->len = b->cap = 0;
}

/*
 * A temporary file in $TMPDIR (default /tmp), unlinked at once, open for
 * reading and writing; its name (gone) in *name if asked, for messages.
 * NULL after a message if it cannot be made.  Its stdio buffer is 1 MiB
 * at *buf, for the caller to free after fclose() (setvbuf() with no
 * buffer of its own gets glibc's 4 KiB whatever size it asks: a write(2)
 * every 4 KiB).
 */
FILE *
mct_tmpfile(char **name, char **buf)
{
	const char *dir = getenv("TMPDIR");
	struct mct_buf b = { 0 };
	sigset_t stop, was;
	FILE *f;
	int fd;

	if (dir == NULL || *dir == '\0')
		dir = "/tmp";
	mct_buf_adds(&b, dir);
	mct_buf_adds(&b, "/mct.XXXXXX");
	/* no name left behind by a signal between its making and unlinking
	   (mct-report ends its tools with one): it waits for the unlink */
	sigemptyset(&stop);
	sigaddset(&stop, SIGINT);
	sigaddset(&stop, SIGTERM);
	sigaddset(&stop, SIGHUP);
	pthread_sigmask(SIG_BLOCK, &stop, &was);
	if ((fd = mkstemp(b.p)) == -1) {
		pthread_sigmask(SIG_SETMASK, &was, NULL);
		warn("cannot make a temporary file in %s (set TMPDIR)", dir);
		mct_buf_free(&b);
		return NULL;
	}
	unlink(b.p);
	pthread_sigmask(SIG_SETMASK, &was, NULL);
	if ((f = fdopen(fd, "w+")) == NULL)
		err(MCT_EXIT_USAGE, "fdopen");
	*buf = mct_xmalloc(1 << 20);
	setvbuf(f, *buf, _IOFBF, 1 << 20);
	if (name)
		*name = b.p;
	else
		mct_buf_free(&b);
	return f;
}

/* qsort(3), also for no elements (where qsort may not get a NULL base). */
void
mct_sort(void *base, size_t n, size_t size,
    int (*cmp)(const void *, const void *))
{
	if (n > 1)
		qsort(base, n, size, cmp);
}

/*
 * Sort n int64 values, ascending: by their bytes, least significant first
 * (a radix sort, 8 bits a pass), where qsort()'s comparison calls were a
 * third of mct-group's time when it keeps every value for a median.  A
 * pass whose byte is the same in every value is skipped (durations seldom
 * need more than 4 of the 8).  Few values go by insertion.
 */
void
mct_sort_i64(int64_t *v, size_t n)
{
	size_t count[8][256], i, j, sum;
	uint64_t *a = (uint64_t *)v, *b, *t;
	uint64_t x;
	int k, pass;

	if (n < 64) {
		for (i = 1; i < n; i++) {
			int64_t y = v[i];

			for (j = i; j > 0 && v[j - 1] > y; j--)
				v[j] = v[j - 1];
			v[j] = y;
		}
		return;
	}
	/* with the sign bit flipped, signed order is unsigned order */
	memset(count, 0, sizeof(count));
	for (i = 0; i < n; i++) {
		x = a[i] ^= UINT64_C(1) << 63;
		for (k = 0; k < 8; k++)
			count[k][(x >> (8 * k)) & 0xff]++;
	}
	b = mct_xmalloc(n * sizeof(*b));
	for (pass = 0, k = 0; k < 8; k++) {
		if (count[k][(a[0] >> (8 * k)) & 0xff] == n)
			continue;	/* one value of this byte: order kept */
		for (sum = 0, j = 0; j < 256; j++) {
			size_t c = count[k][j];

			count[k][j] = sum;
			sum += c;
		}
		for (i = 0; i < n; i++)
			b[count[k][(a[i] >> (8 * k)) & 0xff]++] = a[i];
		t = a, a = b, b = t;
		pass++;
	}
	if (pass % 2)		/* the values are in the scratch: back */
		memcpy(b, a, n * sizeof(*a));
	free(pass % 2 ? a : b);
	for (i = 0; i < n; i++)
		v[i] = (int64_t)((uint64_t)v[i] ^ UINT64_C(1) << 63);
}

/* The same with a context for the comparison: no static for it. */
void
mct_sort_r(void *base, size_t n, size_t size,
    int (*cmp)(const void *, const void *, void *), void *arg)
{
	if (n > 1)
		qsort_r(base, n, size, cmp, arg);
}

/* Combine two exit statuses: the worse one wins. */
int
mct_status(int a, int b)
{
	return a > b ? a : b;
}

/* A failed write to stdout: a closed pipe ends the program quietly. */
static void
write_failed(void)
{
	if (errno == EPIPE)
		exit(MCT_EXIT_OK);
	err(MCT_EXIT_USAGE, "write error");
}

/*
 * Write n bytes to f; -1 (errno set) if they cannot be.  64 KiB or more
 * (stdout's buffer, mct_out_begin()) go to write(2) after what f holds:
 * through stdio they would be copied into its buffer first, most of them.
 */
int
mct_write_all(FILE *f, const void *p, size_t n)
{
	const char *c = p;
	ssize_t got;

	if (n < 64 * 1024)
		return n && fwrite(p, 1, n, f) != n ? -1 : 0;
	if (fflush(f) != 0)
		return -1;
	while (n > 0) {
		if ((got = write(fileno(f), c, n)) == -1) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		c += got;
		n -= (size_t)got;
	}
	return 0;
}

/*
 * Write n bytes to stdout.  A closed pipe ends the program quietly at
 * once; any other failure is an error.
 */
void
mct_write(const void *p, size_t n)
{
	if (mct_write_all(stdout, p, n) == -1)
		write_failed();
}

/*
 * Write n bytes of file fd from offset off to stdout, after what stdio
 * holds.  sendfile(2) has the kernel move them with no copy through this
 * process (into a pipe it lends the file's pages, into /dev/null it moves
 * nothing); where it cannot (stdout an O_APPEND file, a system without
 * it, any failure) they are read and written, and that says what fails.
 * Returns how many were written: fewer than n if fd ended or could not be
 * read first.  A closed pipe and write errors are as for mct_write().
 */
long long
mct_send(int fd, long long off, size_t n)
{
	static int nosend;		/* stdout took no sendfile(2) */
	char buf[64 * 1024];
	size_t done = 0;
	ssize_t got;

#ifdef HAVE_SYS_SENDFILE_H
	off_t at = (off_t)off;

	if (fflush(stdout) != 0)
		write_failed();
	while (!nosend && done < n) {
		got = sendfile(STDOUT_FILENO, fd, &at, n - done);
		if (got == -1 && errno == EINTR)
			continue;
		if (got == -1 && errno == EPIPE)
			exit(MCT_EXIT_OK);
		if (got == -1)
			nosend = 1;	/* the rest as below */
		else if (got == 0)
			return (long long)done;
		else
			done += (size_t)got;
	}
#else
	nosend = 1;
#endif
	while (done < n) {
		got = pread(fd, buf, n - done < sizeof(buf) ? n - done :
		    sizeof(buf), (off_t)(off + (long long)done));
		if (got == -1 && errno == EINTR)
			continue;
		if (got <= 0)
			break;
		mct_write(buf, (size_t)got);
		done += (size_t)got;
	}
	return (long long)done;
}

/* The last thing main() does: make sure everything reached stdout. */
int
mct_finish(int status)
{
	if (fflush(stdout) != 0 || ferror(stdout)) {
		if (errno == EPIPE)
			return status;
		warn("write error");
		return MCT_EXIT_USAGE;
	}
	return status;
}

/*
 * A pipe at fd holds 1 MiB at least, where the system lets it: a tool at
 * each end then wakes the other a sixteenth as often as with the 64 KiB
 * of Linux's default (each wake is a switch of threads, dear on a virtual
 * machine).  Nothing is said where it cannot: the pipe works as before.
 */
void
mct_pipe_size(int fd)
{
#if defined(F_SETPIPE_SZ) && defined(F_GETPIPE_SZ)
	struct stat st;

	if (fstat(fd, &st) == 0 && S_ISFIFO(st.st_mode) &&
	    fcntl(fd, F_GETPIPE_SZ) < 1 << 20)
		(void)fcntl(fd, F_SETPIPE_SZ, 1 << 20);
#else
	(void)fd;
#endif
}

/*
 * Start fn(arg) in a thread named name (up to 15 bytes: top -H, perf and
 * gdb show it), as pthread_create() (0 or an error number), the i-th (0
 * first) of the caller's helpers: it begins on the i-th CPU
 * after the caller's, of those the process may use, and may move freely
 * once it runs.  Left to itself, Linux often queues a new thread behind
 * its busy creator for the milliseconds until the next balancing of its
 * CPUs, as long as a whole pass of the reader on a virtual machine; the
 * reader's creators go on working, so the place is chosen for them.
 */
#if defined(HAVE_PTHREAD_ATTR_SETAFFINITY_NP) && defined(HAVE_SCHED_GETCPU)
#define PLACE	1
#endif

struct start {
	void		*(*fn)(void *);
	void		*arg;
	const char	*name;
#ifdef PLACE
	int		 placed;	/* on one CPU: then back to all */
	cpu_set_t	 all;
#endif
};

static void *
started(void *a)
{
	struct start st = *(struct start *)a;

	free(a);
#ifdef HAVE_PTHREAD_SETNAME_NP
	(void)pthread_setname_np(pthread_self(), st.name);
#endif
#ifdef PLACE
	if (st.placed)
		(void)pthread_setaffinity_np(pthread_self(), sizeof(st.all),
		    &st.all);
#endif
	return st.fn(st.arg);
}

int
mct_thread(pthread_t *tid, const char *name, void *(*fn)(void *), void *arg,
    int i)
{
	struct start *st = mct_xmalloc(sizeof(*st));
	pthread_attr_t attr, *ap = NULL;
	int rc;

	st->fn = fn;
	st->arg = arg;
	st->name = name;
#ifdef PLACE
	st->placed = 0;
	if (pthread_getaffinity_np(pthread_self(), sizeof(st->all),
	    &st->all) == 0 && CPU_COUNT(&st->all) > 1 &&
	    pthread_attr_init(&attr) == 0) {
		int me = sched_getcpu(), n = CPU_COUNT(&st->all), c, k;
		cpu_set_t one;

		/* the CPUs after me, round: mine comes last */
		k = (i % n) + 1;
		for (c = me < 0 ? 0 : me + 1; k > 0; c++) {
			if (c >= CPU_SETSIZE)
				c = 0;
			if (CPU_ISSET(c, &st->all) && --k == 0)
				break;
		}
		CPU_ZERO(&one);
		CPU_SET(c, &one);
		ap = &attr;
		if (pthread_attr_setaffinity_np(ap, sizeof(one), &one) != 0) {
			pthread_attr_destroy(ap);
			ap = NULL;
		} else
			st->placed = 1;
	}
#else
	(void)i;
#endif
	rc = pthread_create(tid, ap, started, st);
	if (ap != NULL) {
		pthread_attr_destroy(ap);
		if (rc == EINVAL) {	/* the CPU refused: anywhere, then */
#ifdef PLACE
			st->placed = 0;
#endif
			rc = pthread_create(tid, NULL, started, st);
		}
	}
	if (rc != 0)
		free(st);
	return rc;
}
