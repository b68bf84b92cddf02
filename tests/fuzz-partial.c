/*
 * fuzz-partial.c - libFuzzer targets for the readers of partials, input
 * from other machines: mct-group's (target partial: mct-group --merge,
 * mct-diff) and, built with -DFUZZ_RANKPART, mct-ranks' (target rankpart:
 * mct-ranks --merge).  tests/fuzz.sh builds and runs them (FUZZ_TARGETS).
 *
 * The input is written to a file and read as the tool reads one file.
 * Unless it is refused (exit 2), what was read must hold together, and
 * written again as a partial it must read back with exit 0, the same.
 *
 * partial: mct_partial_read() into an empty table.  Every group's key has
 * one part per --by field of the header, each one JSON value, and its
 * ndjson members (mct_cell_json(), what mct-group and mct-diff write)
 * are one valid JSON object: no key forges a record; count >= n >= 0,
 * first a time of a trace and last an end ts + dur of one (below 2^63 - 1,
 * less than 2^62 ns before first: a negative dur is kept, so last may come
 * before first); every aggregate of mct-group computes (the sanitizers
 * watch its arithmetic); written by mct_partial_write(), the same groups,
 * counts, values and spans come back.
 *
 * rankpart: mct_rpart_read().  Every rank: start <= end, times of a trace
 * (within 2^62 ns of 0), no negative figure, busy within end - start,
 * compute and comm within busy, its calls' ts and ts + dur times of a
 * trace, n >= 1; written by mct_rpart_write(), the same ranks and calls
 * come back; --align start (mct_rpart_align()), which may refuse, leaves
 * every time a time of a trace.
 *
 * A failed invariant prints what failed and abort()s, so that libFuzzer
 * keeps the input.
 */
#include "config.h"

#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mct_private.h"

#define FUZZ_NAME "fuzz-partial.c"
#include "fuzz.h"

static char inpath[4096], outpath[4096];

static void
rm_tmp(void)
{
	unlink(inpath);
	unlink(outpath);
}

static void
tmp_files(void)
{
	const char *dir = getenv("TMPDIR");
	int fd;

	if (inpath[0])
		return;
	snprintf(inpath, sizeof(inpath), "%s/mct-fuzz-partial.XXXXXX",
	    dir && *dir ? dir : "/tmp");
	snprintf(outpath, sizeof(outpath), "%s/mct-fuzz-partial-out.XXXXXX",
	    dir && *dir ? dir : "/tmp");
	if ((fd = mkstemp(inpath)) == -1 || close(fd) == -1 ||
	    (fd = mkstemp(outpath)) == -1 || close(fd) == -1) {
		perror("mkstemp");
		abort();
	}
	atexit(rm_tmp);
}

static void
put(const char *path, const uint8_t *p, size_t n)
{
	FILE *f = fopen(path, "wb");

	if (f == NULL || (n && fwrite(p, 1, n, f) != n) || fclose(f) != 0) {
		perror(path);
		abort();
	}
}

/*
 * Is text[0..n) one JSON value, strictly?  In brackets, as a number ends
 * there; and mct_skip() takes it whole, as "a","b" would be two.
 */
static int __attribute__((unused))
json_ok(const char *p, size_t n)
{
	struct mct_scan sc = { 0 };
	struct mct_buf b = { 0 };
	const char *next;
	int ok;

	mct_buf_addc(&b, '[');
	mct_buf_add(&b, p, n);
	mct_buf_addc(&b, ']');
	sc.p = b.p;
	sc.end = b.p + b.len;
	ok = n > 0 && mct_scan(&sc) == MCT_SCAN_OK && sc.fixes == 0 &&
	    sc.p == sc.end;
	mct_buf_free(&b);
	return ok && (mct_skip(p, p + n, &next), next == p + n);
}

/* Standard output to outpath, for a partial's writer: the saved fd. */
static int
out_to_file(void)
{
	int fd, saved;

	fflush(stdout);
	if ((fd = open(outpath, O_WRONLY | O_TRUNC)) == -1 ||
	    (saved = dup(1)) == -1 || dup2(fd, 1) == -1) {
		perror(outpath);
		abort();
	}
	close(fd);
	return saved;
}

static void
out_back(int saved)
{
	fflush(stdout);
	dup2(saved, 1);
	close(saved);
}

#ifndef FUZZ_RANKPART
/* Every aggregate of the group, as mct-group computes it. */
static void
aggregates(struct mct_gtab *t, struct mct_group *g)
{
	static const char *const names[] = { "count", "total", "share",
	    "mean", "median", "min", "max", "stddev", "p90", "p0", "p100",
	    "first", "last" };
	struct mct_agg a;
	int64_t iv;
	int isnan_, isint;
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		if (mct_agg_parse(t, names[i], &a) != 0)
			fail(__LINE__, "an aggregate parses");
		(void)mct_agg_value(t, g, &a, &isnan_, &iv, &isint);
		free(a.text);
	}
}

/* The groups of t checked, against the header's --by (ps). */
static void
check_groups(struct mct_gtab *t, const struct mct_pspec *ps)
{
	struct mct_field *by;
	struct mct_buf b = { 0 };
	struct mct_group *g;
	const char *p;
	size_t i, n;
	int k;

	by = mct_xmalloc((size_t)(ps->nby + 1) * sizeof(*by));
	for (k = 0; k < ps->nby; k++)
		CHECK(mct_field_parse(ps->by[k], &by[k]) == 0,
		    "the header's --by fields parse");
	for (i = 0; i < t->n; i++) {
		g = &t->g[i];
		for (k = 0; k < ps->nby; k++) {
			p = mct_group_part(g, k, &n);
			CHECK(p != NULL, "a key part per --by field");
			CHECK((n == 0 && ps->missing) || json_ok(p, n),
			    "each key part is one JSON value");
		}
		CHECK(mct_group_part(g, ps->nby, &n) == NULL,
		    "no more key parts than --by fields");
		b.len = 0;
		mct_buf_addc(&b, '{');
		mct_cell_json(g, by, ps->nby, &b);
		mct_buf_addc(&b, '}');
		CHECK(json_ok(b.p, b.len), "a key's members are one object");
		CHECK(g->count >= 0 && (long long)g->val.n <= g->count,
		    "count >= n >= 0");
		CHECK(!g->span || (MCT_SANE_NS(g->first) &&
		    g->last < INT64_MAX &&
		    g->last > g->first - (INT64_C(1) << 62)),
		    "first a time, last an end of one");
		aggregates(t, g);
	}
	for (k = 0; k < ps->nby; k++)
		mct_field_free(&by[k]);
	free(by);
	mct_buf_free(&b);
}

static void
table_init(struct mct_gtab *t, struct mct_field *value)
{
	memset(t, 0, sizeof(*t));
	t->value = value;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct mct_field value;
	struct mct_gtab t, u;
	struct mct_pspec ps = { 0 }, ps2 = { 0 };
	struct mct_header hdr;
	struct mct_group *g, *h;
	size_t i;
	int status, saved;

	if (size > 1 << 20)
		return 0;
	tmp_files();
	put(inpath, data, size);
	if (mct_field_parse("dur", &value) != 0)
		fail(__LINE__, "dur parses");
	table_init(&t, &value);
	ps.repeat_opt = 1;
	status = mct_partial_read(&t, &ps, inpath, MCT_EXACT_LIMIT);
	CHECK(status == MCT_EXIT_OK || status == MCT_EXIT_DAMAGED ||
	    status == MCT_EXIT_USAGE, "a status");
	if (status != MCT_EXIT_USAGE && ps.set) {
		mct_partial_header(&ps, &hdr);
		t.hdr = &hdr;
		check_groups(&t, &ps);
		saved = out_to_file();
		mct_partial_write(&t, &ps, MCT_EXACT_LIMIT);
		out_back(saved);
		table_init(&u, &value);
		ps2.repeat_opt = 1;
		status = mct_partial_read(&u, &ps2, outpath, MCT_EXACT_LIMIT);
		CHECK(status == MCT_EXIT_OK, "a partial written reads back clean");
		CHECK(u.n == t.n, "the same groups");
		for (i = 0; i < t.n; i++) {
			g = &t.g[i];
			h = mct_gtab_find(&u, g->key, g->klen);
			CHECK(h != NULL && h->count == g->count &&
			    h->val.n == g->val.n && h->span == g->span &&
			    (!g->span || (h->first == g->first &&
			    h->last == g->last)),
			    "each group's count, n and span read back");
		}
		mct_gtab_free(&u);
		mct_pspec_free(&ps2);
		free((char *)hdr.line);
	}
	mct_gtab_free(&t);
	mct_pspec_free(&ps);
	mct_field_free(&value);
	return 0;
}
#else
/* Every rank of rp holds together. */
static void
check_ranks(const struct mct_rpart *rp)
{
	const struct mct_rprank *r;
	const struct mct_rpcall *c;
	size_t i, k;

	for (i = 0; i < rp->nrk; i++) {
		r = &rp->rk[i];
		CHECK(MCT_SANE_NS(r->start) && MCT_SANE_NS(r->end) &&
		    r->start <= r->end, "start and end: times, in order");
		CHECK(r->busy >= 0 && r->compute >= 0 && r->comm >= 0 &&
		    r->rounds >= 0 && (!r->hasround || r->round >= 0),
		    "no negative figure");
		CHECK(r->busy <= r->end - r->start && r->compute <= r->busy &&
		    r->comm <= r->busy, "busy within the span, compute and "
		    "comm within busy");
		CHECK(!r->hasorigin || MCT_SANE_NS(r->origin),
		    "the origin: a time");
		for (k = 0; k < r->ncall; k++) {
			c = &r->call[k];
			CHECK(c->n >= 1 && c->dur >= 0 && MCT_SANE_NS(c->ts) &&
			    MCT_SANE_NS(c->ts + c->dur),
			    "a call: n >= 1, ts and ts + dur times");
		}
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct mct_strtab st = { 0 }, st2 = { 0 };
	struct mct_rpart rp = { 0 }, rq = { 0 };
	size_t i;
	int status, saved;

	if (size > 1 << 20)
		return 0;
	tmp_files();
	put(inpath, data, size);
	rp.st = &st;
	status = mct_rpart_read(&rp, inpath);
	CHECK(status == MCT_EXIT_OK || status == MCT_EXIT_DAMAGED ||
	    status == MCT_EXIT_USAGE, "a status");
	if (status != MCT_EXIT_USAGE) {
		check_ranks(&rp);
		saved = out_to_file();
		mct_rpart_write(&rp);
		out_back(saved);
		rq.st = &st2;
		status = mct_rpart_read(&rq, outpath);
		CHECK(status == MCT_EXIT_OK, "a partial written reads back clean");
		CHECK(rq.nrk == rp.nrk, "the same ranks");
		for (i = 0; i < rp.nrk; i++)
			CHECK(rq.rk[i].rank == rp.rk[i].rank &&
			    rq.rk[i].busy == rp.rk[i].busy &&
			    rq.rk[i].ncall == rp.rk[i].ncall,
			    "each rank's figures and calls read back");
		mct_rpart_free(&rq);
		if (mct_rpart_align(&rp) == 0)
			check_ranks(&rp);
	}
	mct_rpart_free(&rp);
	mct_strtab_free(&st);
	mct_strtab_free(&st2);
	return 0;
}
#endif
