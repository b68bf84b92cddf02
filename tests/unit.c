/*
 * unit.c - unit tests for libmct, in TAP (run by automake as tests/unit).
 *
 * The tests are in one file per area of lib/, tests/unit-AREA.c, which
 * says what it tests; unit.h holds what they share (the checks ok() and
 * diag(), and helpers).  This file has those helpers and main(), which
 * runs every test in the order of tests[] below, or those of the areas
 * named:
 *
 *	tests/unit		every area: time, util, json, field, ...
 *	tests/unit json rules	the tests of json.c and of rules.c only
 *	tests/unit -h		the usage line and the names of the areas
 *
 * The tests of the reader, input, rank and rules areas run last, in a
 * child process, with a temporary directory for their files (tfile()).
 *
 * No test is skipped under the sanitizers but that of huge pages (their
 * allocator has its own heap): lib/ has no known undefined behaviour left
 * (the float-to-int64 cast of mct_fmt_double() and the \u escapes of
 * mct_jstr() once had some).
 *
 * MCT_UNIT_SEED=N runs the differential test with another seed;
 * MCT_UNIT_VERBOSE=1 prints every disagreement, not the first 20;
 * MCT_UNIT_STDERR=1 leaves the reader's stderr alone (its messages are
 * then not checked, but a sanitizer's report is seen).
 */
#include "config.h"

#include <sys/mman.h>
#include <sys/wait.h>

#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <zlib.h>

#include "mct.h"
#include "unit.h"

/* In shared memory: some tests run in a child process (see run_child). */
static struct counts {
	int	ntests, nfailed;
} counts0, *C = &counts0;

static void tap(int, const char *, va_list)
    __attribute__((format(printf, 2, 0)));

static void
tap(int pass, const char *fmt, va_list ap)
{
	char name[512];
	char *p;

	vsnprintf(name, sizeof(name), fmt, ap);
	for (p = name; *p; p++)
		if (*p == '#' || *p == '\n')
			*p = '_';	/* '#' starts a TAP directive */
	C->ntests++;
	printf("%sok %d - %s\n", pass ? "" : "not ", C->ntests, name);
	if (!pass)
		C->nfailed++;
}

int
ok(int pass, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	tap(pass, fmt, ap);
	va_end(ap);
	return pass;
}

void
diag(const char *fmt, ...)
{
	char msg[8192];
	va_list ap;
	char *p, *nl;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	for (p = msg; p; p = nl) {
		if ((nl = strchr(p, '\n')) != NULL)
			*nl++ = '\0';
		printf("# %s\n", p);
	}
	fflush(stdout);
}

/* Text as a C string literal's inside, for messages (a ring of 8). */
const char *
esc(const char *s, size_t n)
{
	static char *ring[8];
	static int next;
	struct mct_buf b = { 0 };
	size_t i;

	if (s == NULL)
		return "(null)";
	mct_buf_grow(&b, n * 2 + 8);
	for (i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		char tmp[8];

		if (c == '\\' || c == '"') {
			mct_buf_addc(&b, '\\');
			mct_buf_addc(&b, c);
		} else if (c == '\n')
			mct_buf_adds(&b, "\\n");
		else if (c == '\t')
			mct_buf_adds(&b, "\\t");
		else if (c < 0x20 || c >= 0x7f) {
			snprintf(tmp, sizeof(tmp), "\\x%02x", c);
			mct_buf_adds(&b, tmp);
		} else
			mct_buf_addc(&b, c);
	}
	mct_buf_addc(&b, '\0');
	free(ring[next]);
	ring[next] = b.p;
	next = (next + 1) % 8;
	return b.p;
}

const char *
i128s(i128 v)
{
	static char ring[4][48];
	static int next;
	char tmp[48], *b = ring[next++ % 4];
	unsigned __int128 u = v < 0 ? -(unsigned __int128)v : (unsigned __int128)v;
	int n = 0, i = 0;

	do {
		tmp[n++] = (char)('0' + (int)(u % 10));
		u /= 10;
	} while (u);
	if (v < 0)
		b[i++] = '-';
	while (n)
		b[i++] = tmp[--n];
	b[i] = '\0';
	return b;
}

uint64_t rng_state;

uint64_t
rnd(void)
{
	uint64_t z = (rng_state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

unsigned
rn(unsigned n)
{
	return n ? (unsigned)(rnd() % n) : 0;
}

char tmpdir[256];

const char *
tfile(const char *name, const void *data, size_t n)
{
	static char path[4][512];
	static int next;
	char *p = path[next++ % 4];
	FILE *f;

	snprintf(p, 512, "%s/%s", tmpdir, name);
	if ((f = fopen(p, "wb")) == NULL || fwrite(data, 1, n, f) != n ||
	    fclose(f) != 0) {
		diag("cannot write %s: %s", p, strerror(errno));
		exit(99);
	}
	return p;
}

void
write_gz(const char *path, const char *mode, const char *data)
{
	gzFile z = gzopen(path, mode);

	if (z == NULL || gzwrite(z, data, (unsigned)strlen(data)) <= 0 ||
	    gzclose(z) != Z_OK) {
		diag("cannot write %s", path);
		exit(99);
	}
}

/* Stderr to a file while f runs; what was said in msg. */
void
quietly(void (*f)(void *), void *arg, char *msg, size_t cap)
{
	FILE *ef = tmpfile();
	int saved;
	size_t n;

	fflush(stderr);
	saved = dup(2);
	if (getenv("MCT_UNIT_STDERR") == NULL)	/* to see them: set it */
		dup2(fileno(ef), 2);
	f(arg);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	rewind(ef);
	n = fread(msg, 1, cap - 1, ef);
	msg[n] = '\0';
	fclose(ef);
}

/* Remove the temporary directory and what is in it. */
static void
rm_tmpdir(void)
{
	char path[600];
	struct dirent *d;
	DIR *dp;

	if ((dp = opendir(tmpdir)) != NULL) {
		while ((d = readdir(dp)) != NULL) {
			if (strcmp(d->d_name, ".") == 0 || strcmp(d->d_name, "..") == 0)
				continue;
			snprintf(path, sizeof(path), "%s/%s", tmpdir, d->d_name);
			unlink(path);
		}
		closedir(dp);
	}
	if (rmdir(tmpdir) != 0)
		diag("could not remove %s: %s", tmpdir, strerror(errno));
}

/*
 * Every test, in the order they run, with its area.  Those marked child
 * run last, in a child process, with the temporary directory: a crash in
 * lib/ (or a sanitizer stopping it) is then one failed test, not the end
 * of the TAP stream.
 */
static const struct test {
	const char	*area;
	void		(*fn)(void);
	int		 child;
} tests[] = {
	{ "time", test_time, 0 },
	{ "util", test_tmpfile, 0 },
	{ "util", test_heap, 0 },
	{ "util", test_sort, 0 },
	{ "util", test_threads, 0 },
	{ "util", test_cut, 1 },
	{ "json", test_scan, 0 },
	{ "json", test_event, 0 },
	{ "json", test_unspace, 0 },
	{ "json", test_compact, 0 },
	{ "field", test_field, 0 },
	{ "field", test_vfields, 0 },
	{ "field", test_get_times, 0 },
	{ "field", test_has_key, 0 },
	{ "field", test_obj_keys, 0 },
	{ "short", test_short, 0 },
	{ "stack", test_stack, 0 },
	{ "flow", test_flow, 0 },
	{ "table", test_map, 0 },
	{ "table", test_intern, 0 },
	{ "group", test_group, 0 },
	{ "stats", test_sketch, 0 },
	{ "phases", test_phases, 0 },
	{ "device", test_device, 0 },
	{ "seen", test_seen, 0 },
	{ "partial", test_rankpart, 0 },
	{ "runsum", test_runsum, 0 },
	{ "group", test_group_key, 0 },
	{ "expr", test_expr, 0 },
	{ "metrics", test_metrics_wall, 0 },
	{ "metrics", test_metrics_log, 0 },
	{ "metrics", test_metrics_series, 0 },
	{ "json", test_times, 0 },
	{ "time", test_dec_fast, 0 },
	{ "differential", test_differential, 0 },
	{ "reader", test_pairbe, 1 },
	{ "reader", test_bigtop, 1 },
	{ "reader", test_reader, 1 },
	{ "input", test_input, 1 },
	{ "reader", test_sources, 1 },
	{ "rank", test_ranks, 1 },
	{ "input", test_src_errors, 1 },
	{ "input", test_src_kind, 1 },
	{ "input", test_lines, 1 },
	{ "reader", test_two_readers, 1 },
	{ "reader", test_next_lines, 1 },
	{ "reader", test_editor, 1 },
	{ "reader", test_editor_event, 1 },
	{ "rules", test_rules, 1 },
	{ "rules", test_rules_vfields, 1 },
};
#define NTESTS	(sizeof(tests) / sizeof(tests[0]))

/* The areas named on the command line (none: all). */
static char	**areas;
static int	  nareas;

static int
wanted(const struct test *t)
{
	int i;

	for (i = 0; i < nareas; i++)
		if (strcmp(areas[i], t->area) == 0)
			return 1;
	return nareas == 0;
}

/* Run the tests wanted that are (child) or are not (!child) a child's. */
static void
run(int child)
{
	size_t i;

	for (i = 0; i < NTESTS; i++)
		if (tests[i].child == child && wanted(&tests[i]))
			tests[i].fn();
}

/* The tests of a child process, with a temporary directory made for them. */
static void
run_child(void)
{
	const char *tmp = getenv("TMPDIR");
	int status;
	pid_t pid;

	snprintf(tmpdir, sizeof(tmpdir), "%s/mct-unit.XXXXXX",
	    tmp && *tmp ? tmp : "/tmp");
	if (mkdtemp(tmpdir) == NULL) {
		diag("mkdtemp %s: %s", tmpdir, strerror(errno));
		exit(99);
	}
	fflush(stdout);
	fflush(stderr);
	if ((pid = fork()) == -1) {
		run(1);
		rm_tmpdir();
		return;
	}
	if (pid == 0) {
		run(1);
		fflush(stdout);
		_exit(0);
	}
	while (waitpid(pid, &status, 0) == -1 && errno == EINTR)
		;
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
		ok(0, "reader: the tests ran to the end (%s %d; MCT_UNIT_STDERR=1 "
		    "shows the reader's stderr)", WIFSIGNALED(status) ? "signal" :
		    "exit status", WIFSIGNALED(status) ? WTERMSIG(status) :
		    WEXITSTATUS(status));
	rm_tmpdir();
}

/* The usage line and the areas, on stdout (status 0) or stderr. */
static void
usage(int status)
{
	FILE *f = status ? stderr : stdout;
	size_t i, j;

	fprintf(f, "usage: unit [area ...]\n"
	    "Runs the unit tests of libmct, in TAP: those of the areas named, "
	    "or all.\nareas:");
	for (i = 0; i < NTESTS; i++) {
		for (j = 0; j < i && strcmp(tests[j].area, tests[i].area); j++)
			;
		if (j == i)
			fprintf(f, " %s", tests[i].area);
	}
	fprintf(f, "\n");
	if (status == 0 && (fflush(f) != 0 || ferror(f)))
		status = 1;
	exit(status);
}

int
main(int argc, char *argv[])
{
	void *shared;
	size_t i;
	int a, child = 0;

	for (a = 1; a < argc; a++) {
		if (strcmp(argv[a], "-h") == 0 || strcmp(argv[a], "--help") == 0)
			usage(0);
		for (i = 0; i < NTESTS && strcmp(argv[a], tests[i].area); i++)
			;
		if (i == NTESTS) {
			fprintf(stderr, "unit: no area '%s'\n", argv[a]);
			usage(2);
		}
	}
	areas = argv + 1;
	nareas = argc - 1;
	for (i = 0; i < NTESTS; i++)
		child |= tests[i].child && wanted(&tests[i]);
	shared = mmap(NULL, sizeof(*C), PROT_READ | PROT_WRITE,
	    MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (shared != MAP_FAILED)
		C = shared;
	setvbuf(stdout, NULL, _IOLBF, 0);
	mct_records_register();	/* as every tool does at start-up */
	run(0);
	if (child)
		run_child();
	printf("1..%d\n", C->ntests);
	if (C->nfailed)
		diag("%d of %d tests failed", C->nfailed, C->ntests);
	return C->nfailed ? 1 : 0;
}
