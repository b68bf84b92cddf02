/*
 * unit-partial.c - rankpart.c: mct-ranks' partials, and partial.c's line
 * reader under them.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mct.h"
#include "unit.h"

static char rpdir[256];

/* rpdir/name (a ring of 4). */
static const char *
rp_path(const char *name)
{
	static char path[4][512];
	static int next;
	char *p = path[next++ % 4];

	snprintf(p, 512, "%s/%s", rpdir, name);
	return p;
}

/* The file rpdir/name of n bytes of text (0: all of it). */
static const char *
tfile_rp(const char *name, const char *text, size_t n)
{
	const char *p = rp_path(name);
	FILE *f;

	if (n == 0)
		n = strlen(text);
	if ((f = fopen(p, "wb")) == NULL || fwrite(text, 1, n, f) != n ||
	    fclose(f) != 0) {
		diag("cannot write %s: %s", p, strerror(errno));
		exit(99);
	}
	return p;
}

/* The partial rp written (stdout) into the file rpdir/name. */
static const char *
rp_write(const struct mct_rpart *rp, const char *name)
{
	const char *p = rp_path(name);
	int saved, fd;

	fflush(stdout);
	saved = dup(1);
	if ((fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0644)) == -1) {
		diag("cannot write %s: %s", p, strerror(errno));
		exit(99);
	}
	dup2(fd, 1);
	mct_rpart_write(rp);
	fflush(stdout);
	dup2(saved, 1);
	close(saved);
	close(fd);
	return p;
}

/* mct_rpart_read() of path (NULL: mct_rpart_align()), its messages in err. */
static int
rp_read(struct mct_rpart *rp, const char *path, struct mct_buf *err)
{
	FILE *ef = tmpfile();
	char buf[1024];
	size_t n;
	int saved, st;

	fflush(stderr);
	saved = dup(2);
	dup2(fileno(ef), 2);
	st = path ? mct_rpart_read(rp, path) : mct_rpart_align(rp);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	err->len = 0;
	rewind(ef);
	while ((n = fread(buf, 1, sizeof(buf), ef)) > 0)
		mct_buf_add(err, buf, n);
	mct_buf_addc(err, '\0');
	fclose(ef);
	return st;
}

/* The text of file path, NUL-terminated, into b. */
static void
rp_text(const char *path, struct mct_buf *b)
{
	FILE *f = fopen(path, "rb");
	char buf[4096];
	size_t n;

	b->len = 0;
	while (f != NULL && (n = fread(buf, 1, sizeof(buf), f)) > 0)
		mct_buf_add(b, buf, n);
	mct_buf_addc(b, '\0');
	if (f != NULL)
		fclose(f);
}

/* Two ranks, 3 (a round, calls of two names) and 1 (none), from x.json. */
static void
rp_sample(struct mct_rpart *rp, struct mct_strtab *st)
{
	static char src[] = "x.json";
	struct mct_rprank *r;

	memset(rp, 0, sizeof(*rp));
	rp->st = st;
	rp->opt[MCT_RP_KEY] = mct_xstrdup("name");
	rp->opt[MCT_RP_RULES] = mct_xstrdup("r.rules");
	rp->cover.has_origin = 1;
	rp->cover.origin = 5;
	rp->cover.unit = MCT_UNIT_US;
	rp->cover.src = mct_xmalloc(sizeof(char *));
	rp->cover.src[0] = mct_xstrdup(src);
	rp->cover.nsrc = 1;
	r = mct_rpart_rank(rp, 3);
	r->start = 10;
	r->end = 1000;
	r->busy = 700;
	r->compute = 600;
	r->comm = 150;
	r->rounds = 4;
	r->round = 220;
	r->hasround = 1;
	r->origin = 4;
	r->hasorigin = 1;
	mct_rpart_call(r, mct_intern(st, "nccl\"all\\reduce\xc3\xa9", 18),
	    1, 100, 50);
	mct_rpart_call(r, mct_intern(st, "ncclBroadcast", 13), 1, 100, 7);
	mct_rpart_call(r, mct_intern(st, "nccl\"all\\reduce\xc3\xa9", 18),
	    2, 900, 100);
	r = mct_rpart_rank(rp, 1);
	r->start = -5;
	r->end = 20;
	r->busy = r->compute = 25;
}

static int
rp_same_rank(const struct mct_rpart *a, const struct mct_rprank *x,
    const struct mct_rpart *b, const struct mct_rprank *y)
{
	size_t k;

	if (x->rank != y->rank || x->start != y->start || x->end != y->end ||
	    x->busy != y->busy || x->compute != y->compute ||
	    x->comm != y->comm || x->rounds != y->rounds ||
	    x->hasround != y->hasround || (x->hasround && x->round != y->round) ||
	    x->hasorigin != y->hasorigin ||
	    (x->hasorigin && x->origin != y->origin) ||
	    x->ncall != y->ncall)
		return 0;
	for (k = 0; k < x->ncall; k++)
		if (strcmp(a->st->str[x->call[k].name],
		    b->st->str[y->call[k].name]) != 0 ||
		    x->call[k].n != y->call[k].n || x->call[k].ts != y->call[k].ts ||
		    x->call[k].dur != y->call[k].dur)
			return 0;
	return 1;
}

void
test_rankpart(void)
{
	struct mct_strtab st = { 0 }, st2 = { 0 };
	struct mct_rpart rp, in = { 0 };
	struct mct_buf err = { 0 }, t = { 0 };
	const char *a, *b, *p, *want;
	char cut[600];
	size_t off;
	int s;

	snprintf(rpdir, sizeof(rpdir), "%s/mct-unit-rp.XXXXXX",
	    getenv("TMPDIR") && *getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	if (mkdtemp(rpdir) == NULL) {
		diag("mkdtemp %s: %s", rpdir, strerror(errno));
		exit(99);
	}
	rp_sample(&rp, &st);
	a = rp_write(&rp, "a.nd");
	rp_text(a, &t);
	want = "{\"mct_ranks_partial\":1,\"key\":\"name\",\"device\":"
	    "null,\"rules\":\"r.rules\",\"unit\":\"us\",\"origin\":5,\"sources\":"
	    "[\"x.json\"]}\n{\"rank\":3,\"start\":10,\"end\":1000,\"busy\":700,"
	    "\"compute\":600,\"comm\":150,\"rounds\":4,\"round\":220,"
	    "\"origin\":4}\n{\"rank\":3,"
	    "\"call\":\"nccl\\\"all\\\\reduce\xc3\xa9\",\"n\":1,\"ts\":100,"
	    "\"dur\":50}\n";
	ok(strncmp(t.p, want, strlen(want)) == 0 &&
	    strstr(t.p, "{\"rank\":1,\"start\":-5,\"end\":20,\"busy\":25,"
	    "\"compute\":25,\"comm\":0,\"rounds\":0,"
	    "\"round\":null,\"origin\":null}\n{\"mct_ranks_partial_end\":5,"
	    "\"parts\":[{\"host\":")
	    != NULL,
	    "rankpart: header, a rank's figures, its calls, the end line");

	in.st = &st2;
	s = rp_read(&in, a, &err);
	ok(s == MCT_EXIT_OK && *err.p == '\0' && in.nrk == 2 &&
	    rp_same_rank(&rp, &rp.rk[0], &in, &in.rk[0]) &&
	    rp_same_rank(&rp, &rp.rk[1], &in, &in.rk[1]),
	    "rankpart: read back, every figure and call is the same "
	    "(names with escapes and UTF-8 too)");
	ok(in.known[MCT_RP_KEY] && strcmp(in.opt[MCT_RP_KEY], "name") == 0 &&
	    in.known[MCT_RP_DEVICE] && in.opt[MCT_RP_DEVICE] == NULL &&
	    strcmp(in.opt[MCT_RP_RULES], "r.rules") == 0 &&
	    in.cover.unit == MCT_UNIT_US && in.cover.origin == 5 &&
	    in.cover.nsrc == 1 && strcmp(in.cover.src[0], "x.json") == 0,
	    "rankpart: the options and the traces covered come back");
	/* what was read is written again byte for byte (a merge's partial) */
	b = rp_write(&in, "b.nd");
	rp_text(b, &err);
	ok(strcmp(err.p, t.p) == 0, "rankpart: a partial of a partial is the same");

	/* the same rank twice: refused, both files named */
	s = rp_read(&in, b, &err);
	snprintf(cut, sizeof(cut), "b.nd:2: rank 3 is also in ");
	ok(s == MCT_EXIT_USAGE && strstr(err.p, cut) &&
	    strstr(err.p, "a.nd: a rank split across partials cannot be merged"),
	    "rankpart: a rank in two partials is exit 2, both named (%s)",
	    esc(err.p, err.len));
	mct_rpart_free(&in);

	/* another rank, origin and source: merged with the first */
	rp.rk[0].rank = 7;
	rp.nrk = 1;
	rp.cover.origin = 2;
	free(rp.cover.src[0]);
	rp.cover.src[0] = mct_xstrdup("y.json");
	b = rp_write(&rp, "b.nd");
	memset(&in, 0, sizeof(in));
	in.st = &st2;
	s = rp_read(&in, a, &err);
	s = mct_status(s, rp_read(&in, b, &err));
	ok(s == MCT_EXIT_OK && in.nrk == 3 && in.rk[2].rank == 7 &&
	    in.rk[2].ncall == 3 && in.cover.origin == 2 && in.cover.nsrc == 2 &&
	    strcmp(in.cover.src[1], "y.json") == 0,
	    "rankpart: two partials: every rank, the smaller origin, both sources");

	/* --align start: each rank to the earliest rank's origin */
	in.rk[2].origin = 1;
	s = rp_read(&in, NULL, &err);
	ok(s == -1 && in.rk[0].shift == 0 && in.rk[0].start == 10 &&
	    strstr(err.p, "--align start: rank 1 of ") &&
	    strstr(err.p, "a.nd has no origin of its own"),
	    "rankpart: --align start wants every rank's origin (rank 1 has "
	    "none): %s", esc(err.p, err.len));
	in.rk[1].origin = 3;
	in.rk[1].hasorigin = 1;
	s = rp_read(&in, NULL, &err);
	ok(s == 0 && in.rk[0].shift == -3 && in.rk[0].start == 7 &&
	    in.rk[0].end == 997 && in.rk[0].call[1].ts == 97 &&
	    in.rk[0].busy == 700 && in.rk[1].shift == -2 &&
	    in.rk[1].start == -7 && in.rk[2].shift == 0 &&
	    in.rk[2].call[2].ts == 900 && in.rk[0].origin == 1 &&
	    in.cover.origin == 1,
	    "rankpart: --align start shifts each rank's times to the earliest "
	    "origin, not its figures");
	mct_rpart_free(&in);

	/* options given must be the partials' */
	memset(&in, 0, sizeof(in));
	in.st = &st2;
	in.opt[MCT_RP_DEVICE] = mct_xstrdup("pid == 2");
	in.known[MCT_RP_DEVICE] = 1;
	s = rp_read(&in, a, &err);
	ok(s == MCT_EXIT_USAGE && in.nrk == 0 && strstr(err.p, "a.nd:1: a "
	    "partial of another --device (none, not 'pid == 2')"),
	    "rankpart: a partial of other options is exit 2 (%s)",
	    esc(err.p, err.len));
	mct_rpart_free(&in);

	/* cut inside its fourth line: exit 1, the place named, the rest read */
	p = strchr(strchr(strchr(t.p, '\n') + 1, '\n') + 1, '\n') + 1;
	off = (size_t)(p - t.p);
	memcpy(cut, t.p, off + 10);
	p = tfile_rp("cut.nd", cut, off + 10);
	snprintf(cut, sizeof(cut), "cut.nd:4: truncated partial: its last "
	    "line is cut");
	memset(&in, 0, sizeof(in));
	in.st = &st2;
	s = rp_read(&in, p, &err);
	ok(s == MCT_EXIT_DAMAGED && in.nrk == 1 && in.rk[0].ncall == 1 &&
	    strstr(err.p, cut),
	    "rankpart: a truncated partial is exit 1, its intact lines read (%s)",
	    esc(err.p, err.len));
	mct_rpart_free(&in);

	/* an end line that counts other lines; a damaged line */
	memset(&in, 0, sizeof(in));
	in.st = &st2;
	p = tfile_rp("end.nd", "{\"mct_ranks_partial\":1,\"key\":null,\"device\":"
	    "null,\"rules\":null,\"unit\":\"ns\",\"origin\":null,\"sources\":[]}\n"
	    "{\"rank\":0,\"start\":0,\"end\":1,\"busy\":1,\"compute\":1,\"comm\":0,"
	    "\"rounds\":0,\"round\":null}\n{\"rank\":0,\"call\":\"x\",\"n\":0,"
	    "\"ts\":0,\"dur\":1}\n{\"mct_ranks_partial_end\":3}\n", 0);
	s = rp_read(&in, p, &err);
	ok(s == MCT_EXIT_DAMAGED && in.nrk == 1 && in.rk[0].ncall == 0 &&
	    strstr(err.p, "end.nd:3: damaged partial line") &&
	    strstr(err.p, "end.nd:4: the partial has 2 lines, its end line "
	    "says 3"), "rankpart: a damaged line, an end line that miscounts: "
	    "exit 1, each named (%s)", esc(err.p, err.len));
	mct_rpart_free(&in);

	/* another kind, another version */
	memset(&in, 0, sizeof(in));
	in.st = &st2;
	p = tfile_rp("g.nd", "{\"mct_partial\":1,\"by\":[\"name\"]}\n", 0);
	s = rp_read(&in, p, &err);
	ok(s == MCT_EXIT_USAGE && strstr(err.p, "g.nd:1: a partial of mct-group "
	    "-o partial, not of mct-ranks -o partial"),
	    "rankpart: mct-group's partial is exit 2, said (%s)",
	    esc(err.p, err.len));
	p = tfile_rp("v.nd", "{\"mct_ranks_partial\":2}\n", 0);
	s = rp_read(&in, p, &err);
	ok(s == MCT_EXIT_USAGE && strstr(err.p, "v.nd:1: a partial of format "
	    "version 2; this mct-ranks reads version 1"),
	    "rankpart: another version is exit 2, said (%s)", esc(err.p, err.len));
	mct_rpart_free(&in);

	mct_rpart_free(&rp);
	mct_strtab_free(&st);
	mct_strtab_free(&st2);
	mct_buf_free(&err);
	mct_buf_free(&t);
	for (s = 0; s < 6; s++)
		unlink(rp_path(((const char *[]){ "a.nd", "b.nd", "cut.nd",
		    "end.nd", "g.nd", "v.nd" })[s]));
	rmdir(rpdir);
}
