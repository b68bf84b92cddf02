/*
 * unit-util.c - util.c: the temporary file, the heap, sorting, threads,
 * an output cut by an error.
 */
#include "config.h"

#include <sys/stat.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mct.h"
#include "unit.h"

/*
 * mct_tmpfile(): an unlinked file in $TMPDIR, buffered by the 1 MiB it
 * hands back: what is written stays there until 1 MiB or a flush (glibc
 * gives a file 4 KiB when setvbuf() is asked for more without a buffer).
 */
void
test_tmpfile(void)
{
	char *buf = NULL, *name = NULL, chunk[4096];
	struct stat st;
	FILE *f;
	int i, fd;

	memset(chunk, 'x', sizeof(chunk));
	f = mct_tmpfile(&name, &buf);
	ok(f != NULL && buf != NULL && name != NULL &&
	    stat(name, &st) == -1 && errno == ENOENT,
	    "mct_tmpfile: made, named and unlinked");
	if (f == NULL)
		return;
	fd = fileno(f);
	for (i = 0; i < 200; i++)
		fwrite(chunk, 1, sizeof(chunk), f);
	if (fstat(fd, &st) != 0)
		st.st_size = -1;
	ok(st.st_size == 0,
	    "mct_tmpfile: 800 KiB written stay in its buffer (file size %lld)",
	    (long long)st.st_size);
	for (i = 0; i < 100; i++)
		fwrite(chunk, 1, sizeof(chunk), f);
	if (fstat(fd, &st) != 0)
		st.st_size = -1;
	ok(st.st_size == 1 << 20,
	    "mct_tmpfile: at 1 MiB the buffer goes out whole (file size %lld)",
	    (long long)st.st_size);
	if (fflush(f) != 0 || fstat(fd, &st) != 0)
		st.st_size = -1;
	ok(st.st_size == 300 * 4096,
	    "mct_tmpfile: all of it after a flush (file size %lld)",
	    (long long)st.st_size);
	fclose(f);
	free(buf);
	free(name);
}

/* The kernel's transparent huge page mode: "[madvise]" gives them on request. */
static int
thp_mode(char *mode, size_t n)
{
	FILE *f = fopen("/sys/kernel/mm/transparent_hugepage/enabled", "r");
	char line[256], *a, *b;

	if (f == NULL)
		return -1;
	a = fgets(line, sizeof(line), f);
	fclose(f);
	if (a == NULL || (a = strchr(line, '[')) == NULL ||
	    (b = strchr(a, ']')) == NULL || (size_t)(b - a) >= n)
		return -1;
	memcpy(mode, a + 1, (size_t)(b - a - 1));
	mode[b - a - 1] = '\0';
	return 0;
}

/* kB of anonymous huge pages this process has, or -1. */
static long
anon_huge_kb(void)
{
	FILE *f = fopen("/proc/self/smaps_rollup", "r");
	char line[256];
	long kb = -1;

	if (f == NULL)
		return -1;
	while (fgets(line, sizeof(line), f) != NULL)
		if (sscanf(line, "AnonHugePages: %ld kB", &kb) == 1)
			break;
	fclose(f);
	return kb;
}

/*
 * mct_heap_keep(): where huge pages are given on request, a buffer the
 * reader makes soon after lies in 2 MiB pages, written by any thread.
 * (A sanitizer's allocator has no such heap; "always" gives them anyway.)
 */
static void *
heap_touch(void *arg)
{
	size_t n = 6 << 20;
	char *p = mct_xmalloc(n);

	memset(p, 'x', n);
	*(char **)arg = p;
	return NULL;
}

void
test_heap(void)
{
	char mode[32], *p = NULL;
	const char *env = getenv("MCT_HUGEPAGES");
	pthread_t t;
	long before, after;

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
	printf("# heap: skipped under a sanitizer (its own allocator)\n");
	return;
#endif
	if (thp_mode(mode, sizeof(mode)) == -1 || strcmp(mode, "madvise") != 0 ||
	    (env != NULL && strcmp(env, "0") == 0) ||
	    (before = anon_huge_kb()) < 0) {
		printf("# heap: skipped (huge pages not given on request here)\n");
		return;
	}
	mct_heap_keep();
	if (pthread_create(&t, NULL, heap_touch, &p) != 0) {
		ok(0, "mct_heap_keep: a thread to allocate");
		return;
	}
	pthread_join(t, NULL);
	after = anon_huge_kb();
	ok(after - before >= 4096,
	    "mct_heap_keep: 6 MiB a thread allocates and writes lie in huge "
	    "pages (%ld kB of them before, %ld after)", before, after);
	free(p);
}

static int
cmp_i64_test(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return x < y ? -1 : x > y;
}

/* mct_sort_i64 against qsort, on sizes and spreads of every kind. */
void
test_sort(void)
{
	static const size_t sizes[] = { 0, 1, 2, 63, 64, 65, 1000, 100003 };
	int64_t *v, *w;
	size_t si, i, nbad = 0, ntried = 0;
	int kind;

	for (si = 0; si < sizeof(sizes) / sizeof(sizes[0]); si++) {
		size_t n = sizes[si];

		v = mct_xmalloc((n + 1) * sizeof(*v));
		w = mct_xmalloc((n + 1) * sizeof(*w));
		for (kind = 0; kind < 6; kind++) {
			for (i = 0; i < n; i++) {
				uint64_t r = rnd();

				switch (kind) {
				case 0:		/* any int64 */
					v[i] = (int64_t)r;
					break;
				case 1:		/* durations: small, positive */
					v[i] = (int64_t)(r % 100000);
					break;
				case 2:		/* both signs, near zero */
					v[i] = (int64_t)(r % 2001) - 1000;
					break;
				case 3:		/* few values, many times */
					v[i] = (int64_t)(r % 3) * INT64_C(1000000007);
					break;
				case 4:		/* the ends of int64 */
					v[i] = r % 3 == 0 ? INT64_MIN : r % 3 == 1 ?
					    INT64_MAX : (int64_t)(r % 5) - 2;
					break;
				default:	/* ns timestamps, in order less a few */
					v[i] = INT64_C(1712195482373956660) +
					    (int64_t)(i * 1000) - (int64_t)(r % 5000);
					break;
				}
			}
			memcpy(w, v, n * sizeof(*v));
			mct_sort_i64(v, n);
			if (n > 0)
				qsort(w, n, sizeof(*w), cmp_i64_test);
			ntried++;
			if (n > 0 && memcmp(v, w, n * sizeof(*v)) != 0) {
				if (nbad++ < 3)
					printf("# mct_sort_i64: %zu values of kind "
					    "%d differ from qsort\n", n, kind);
			}
		}
		free(v);
		free(w);
	}
	ok(nbad == 0, "mct_sort_i64 sorts as qsort does (%zu arrays, 0 to "
	    "100,003 values, six spreads)", ntried);
}

/* A helper of mct_thread(): what the thread saw of itself. */
struct seen_thread {
	int	 arg;
	int	 ncpu;		/* CPUs it may run on, once running */
	char	 name[16];
};

static void *
thread_body(void *a)
{
	struct seen_thread *st = a;

	st->arg *= 2;
#ifdef HAVE_PTHREAD_ATTR_SETAFFINITY_NP
	{
		cpu_set_t set;

		if (pthread_getaffinity_np(pthread_self(), sizeof(set),
		    &set) == 0)
			st->ncpu = CPU_COUNT(&set);
	}
#endif
#ifdef HAVE_PTHREAD_SETNAME_NP
	(void)pthread_getname_np(pthread_self(), st->name, sizeof(st->name));
#endif
	return st;
}

void
test_threads(void)
{
	struct seen_thread st[5];
	pthread_t tid[5];
	void *ret;
	int i, all = 1, nstarted = 0, good = 0;
	char *p;
	size_t n;

#ifdef HAVE_PTHREAD_ATTR_SETAFFINITY_NP
	{
		cpu_set_t set;

		if (pthread_getaffinity_np(pthread_self(), sizeof(set),
		    &set) == 0)
			all = CPU_COUNT(&set);
	}
#endif
	for (i = 0; i < 5; i++) {
		memset(&st[i], 0, sizeof(st[i]));
		st[i].arg = i + 1;
		if (mct_thread(&tid[i], "mct-test", thread_body, &st[i], i) == 0)
			nstarted++;
	}
	for (i = 0; i < nstarted; i++)
		if (pthread_join(tid[i], &ret) == 0 && ret == &st[i] &&
		    st[i].arg == 2 * (i + 1))
			good++;
	ok(nstarted == 5 && good == 5, "mct_thread: 5 threads run their "
	    "function with their argument, and join with its value");
#ifdef HAVE_PTHREAD_ATTR_SETAFFINITY_NP
	for (i = 0, good = 0; i < nstarted; i++)
		good += st[i].ncpu == all;
	ok(good == 5, "mct_thread: once running, each thread may use the %d "
	    "CPUs its creator may (%d of 5)", all, good);
#endif
#ifdef HAVE_PTHREAD_SETNAME_NP
	for (i = 0, good = 0; i < nstarted; i++)
		good += strcmp(st[i].name, "mct-test") == 0;
	ok(good == 5, "mct_thread: each thread has its name (%d of 5)", good);
#endif
	/* mct_prefault: any range, the bytes kept */
	for (n = 1, good = 1; n <= 3 * PREFAULT; n = n * 3 + 1) {
		p = mct_xmalloc(n + 7);
		memset(p, 'x', n + 7);
		mct_prefault(p + 3, n);
		mct_prefault(p, 0);
		for (i = 0; i < (int)(n + 7); i++)
			if (p[i] != 'x')
				good = 0;
		free(p);
	}
	ok(good, "mct_prefault keeps the bytes of ranges of 1 to %d bytes at "
	    "odd addresses", 3 * PREFAULT);
}

/*
 * Output begun and cut by a fatal error (memory): what was written ends
 * with the line that says it is cut, a stream's or a table's, and the
 * status is 2.  In a child, whose stdout is a pipe.
 */
static void
cut_child(enum mct_ofmt fmt, char *got, size_t size, int *status)
{
	static char line[] = "{\"name\":\"mct_header\"}";
	struct mct_header h = { 0 };
	struct mct_out o = { 0 };
	int fd[2], null;
	size_t n = 0;
	ssize_t k;
	pid_t pid;

	*status = -1;
	got[0] = '\0';
	if (pipe(fd) != 0 || (pid = fork()) < 0)
		return;
	if (pid == 0) {
		null = open("/dev/null", O_WRONLY);
		dup2(fd[1], STDOUT_FILENO);
		dup2(null, STDERR_FILENO);
		close(fd[0]);
		h.nread = 1;
		h.line = line;
		h.linelen = strlen(h.line);
		o.fmt = fmt;
		mct_out_begin(&o, &h);
		mct_out_row(&o, "a\0371", 3);
		mct_nomem("test");
	}
	close(fd[1]);
	while (n + 1 < size && (k = read(fd[0], got + n, size - 1 - n)) > 0)
		n += (size_t)k;
	got[n] = '\0';
	close(fd[0]);
	waitpid(pid, status, 0);
}

void
test_cut(void)
{
	char got[512];
	int st;

	cut_child(MCT_O_TSV, got, sizeof(got), &st);
	ok(WIFEXITED(st) && WEXITSTATUS(st) == MCT_EXIT_USAGE &&
	    strcmp(got, "a\t1\n# cut: the output stops short of its end (an "
	    "error, said on standard error)\n") == 0,
	    "a TSV cut by an error ends with the cut line: %s", ESC(got));
	cut_child(MCT_O_NDJSON, got, sizeof(got), &st);
	ok(WIFEXITED(st) && WEXITSTATUS(st) == MCT_EXIT_USAGE &&
	    strncmp(got, "{\"name\":\"mct_header\"}\n", 22) == 0 &&
	    strstr(got, "\n" MCT_CUT_LINE "\n") != NULL &&
	    mct_cut_line(MCT_CUT_LINE, strlen(MCT_CUT_LINE)),
	    "a stream cut by an error ends with its cut line: %s", ESC(got));
}
