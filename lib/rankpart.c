/*
 * rankpart.c - mct-ranks' mergeable state, written as NDJSON and read
 * back (mct-ranks -o partial and --merge; mct(7), Many machines).
 *
 * A rank's busy, compute and communication times are unions of
 * intervals: two pieces of one rank cannot be merged without their
 * intervals, which is the whole trace.  So a partial holds whole ranks,
 * whose figures are final, and a merge refuses two partials of one rank.
 * Four kinds of line, in this order:
 *
 *   {"mct_ranks_partial":1,"key":"name,args.grid,args.block",
 *    "device":null,"rules":null,"unit":"ns","origin":N,"sources":[..]}
 *   {"rank":R,"start":T,"end":T,"busy":N,"compute":N,"comm":N,
 *    "kernel":N,"memory":N,
 *    "rounds":N,"round":N,"origin":T}      one per rank ("round":null
 *                                           when it has no steady round,
 *                                           "origin":null when the rank's
 *                                           own origin is not known;
 *                                           kernel and memory absent in
 *                                           an older mct's partial)
 *   {"rank":R,"call":"name","n":K,"ts":T,"dur":N}
 *                                          after its rank's line, one per
 *                                          collective call, in time order
 *   {"mct_ranks_partial_end":L}            L: the lines between
 *
 * The header's key, device and rules are the options that change the
 * figures (--key, --device, --rules, as written; null where not given):
 * partials of other ones are refused.  A rank's origin (the smallest ts
 * of its trace) lets a merge align the ranks' clocks as mct-cat --align
 * start does.  Lines are read by partial.c's
 * mct_pline_read(), as mct-group's partials are.
 */
#include "config.h"

#include <err.h>
#include <stdlib.h>
#include <string.h>

#include "mct.h"

/* The header's names of the options, and how messages call them. */
static const char *const optkey[MCT_RP_NOPT] = { "key", "device", "rules" };

/* What one file's reading needs besides the state. */
struct rread {
	struct mct_rpart *rp;
	int		 file;		/* its index in rp->file */
	struct mct_rprank *cur;		/* the rank whose calls come next */
	struct mct_buf	 s;		/* scratch for strings */
};

/* Rank id's state, new (all zero) if rp has none. */
struct mct_rprank *
mct_rpart_rank(struct mct_rpart *rp, int64_t id)
{
	struct mct_rprank *r;
	int isnew;

	mct_map_add(&rp->ids, &id, sizeof(id), &isnew)->val.i =
	    (int64_t)rp->nrk;
	rp->rk = mct_xgrow(rp->rk, (size_t)rp->nrk, sizeof(*rp->rk));
	r = &rp->rk[rp->nrk++];
	memset(r, 0, sizeof(*r));
	r->rank = id;
	return r;
}

/* A collective call of rank r: the n-th of its calls of name. */
void
mct_rpart_call(struct mct_rprank *r, int32_t name, long n, int64_t ts,
    int64_t dur)
{
	struct mct_rpcall *c;

	if (r->ncall == r->cap) {
		r->cap = r->cap ? r->cap * 2 : 64;
		r->call = mct_xrealloc(r->call, r->cap * sizeof(*r->call));
	}
	c = &r->call[r->ncall++];
	c->name = name;
	c->n = n;
	c->ts = ts;
	c->dur = dur;
}

/*
 * Writing.
 */

static void
key(struct mct_buf *b, const char *k)
{
	mct_buf_addc(b, ',');
	mct_buf_addjstr(b, k, strlen(k));
	mct_buf_addc(b, ':');
}

static void
keyi(struct mct_buf *b, const char *k, int64_t v)
{
	key(b, k);
	mct_buf_addi(b, v);
}

static void
header(struct mct_buf *b, const struct mct_rpart *rp)
{
	int i;

	mct_buf_adds(b, "{\"mct_ranks_partial\":");
	mct_buf_addi(b, MCT_RPART_VERSION);
	for (i = 0; i < MCT_RP_NOPT; i++) {
		key(b, optkey[i]);
		if (rp->opt[i] != NULL)
			mct_buf_addjstr(b, rp->opt[i], strlen(rp->opt[i]));
		else
			mct_buf_adds(b, "null");
	}
	mct_partial_cover_write(b, &rp->cover);
	mct_buf_adds(b, "}\n");
}

static void
rank_line(struct mct_buf *b, const struct mct_rprank *r)
{
	mct_buf_adds(b, "{\"rank\":");
	mct_buf_addi(b, r->rank);
	keyi(b, "start", r->start);
	keyi(b, "end", r->end);
	keyi(b, "busy", r->busy);
	keyi(b, "compute", r->compute);
	keyi(b, "comm", r->comm);
	if (r->haskm) {
		keyi(b, "kernel", r->kernel);
		keyi(b, "memory", r->memory);
	}
	keyi(b, "rounds", r->rounds);
	key(b, "round");
	if (r->hasround)
		mct_buf_addi(b, r->round);
	else
		mct_buf_adds(b, "null");
	key(b, "origin");
	if (r->hasorigin)
		mct_buf_addi(b, r->origin);
	else
		mct_buf_adds(b, "null");
	mct_buf_adds(b, "}\n");
}

static void
call_line(struct mct_buf *b, const struct mct_rpart *rp, int64_t rank,
    const struct mct_rpcall *c)
{
	const char *name = rp->st->str[c->name];

	mct_buf_adds(b, "{\"rank\":");
	mct_buf_addi(b, rank);
	key(b, "call");
	mct_buf_addjstr(b, name, strlen(name));
	keyi(b, "n", c->n);
	keyi(b, "ts", c->ts);
	keyi(b, "dur", c->dur);
	mct_buf_adds(b, "}\n");
}

/* Write the partial rp on stdout: its ranks in the order it has them. */
void
mct_rpart_write(const struct mct_rpart *rp)
{
	struct mct_buf b = { 0 };
	long long lines = 0;
	uint64_t d = 0;
	size_t i, k;

	header(&b, rp);
	for (i = 0; i < rp->nrk; i++) {
		rank_line(&b, &rp->rk[i]);
		for (k = 0; k < rp->rk[i].ncall; k++) {
			call_line(&b, rp, rp->rk[i].rank, &rp->rk[i].call[k]);
			if (b.len > 65536) {
				d = mct_pline_digest(d, b.p, b.len);
				mct_write(b.p, b.len);
				b.len = 0;
			}
		}
		lines += 1 + (long long)rp->rk[i].ncall;
	}
	d = mct_pline_digest(d, b.p, b.len);
	mct_buf_adds(&b, "{\"mct_ranks_partial_end\":");
	mct_buf_addi(&b, lines);
	mct_partial_ident_write(&b, &rp->cover, d);
	mct_buf_adds(&b, "}\n");
	mct_write(b.p, b.len);
	mct_buf_free(&b);
}

/*
 * Reading.
 */

/* String value k of the line, unescaped, into rr->s; NULL if null. */
static int
getstr(struct rread *rr, struct mct_pline *pr, const char *k,
    const char **out)
{
	struct mct_val v;

	*out = NULL;
	if (mct_get_key(&pr->ev, k, &v) != 0)
		return -1;
	if (v.type == MCT_J_NULL)
		return 0;
	if (v.type != MCT_J_STRING)
		return -1;
	rr->s.len = 0;
	mct_jstr(&v, &rr->s);
	mct_buf_addc(&rr->s, '\0');
	*out = rr->s.p;
	return 0;
}

/* A header: its options checked against (or setting) those known. */
static int
read_header(struct mct_pline *pr, void *arg)
{
	struct rread *rr = arg;
	struct mct_rpart *rp = rr->rp;
	const char *v;
	int i;

	for (i = 0; i < MCT_RP_NOPT; i++) {
		if (getstr(rr, pr, optkey[i], &v) != 0) {
			warnx("%s:%llu: damaged partial header", pr->name,
			    pr->line);
			return -1;
		}
		if (!rp->known[i]) {
			rp->opt[i] = v ? mct_xstrdup(v) : NULL;
			rp->known[i] = 1;
		} else if ((v == NULL) != (rp->opt[i] == NULL) ||
		    (v != NULL && strcmp(v, rp->opt[i]) != 0)) {
			warnx("%s:%llu: a partial of another --%s (%s%s%s, not "
			    "%s%s%s)", pr->name, pr->line, optkey[i],
			    v ? "'" : "", v ? v : "none", v ? "'" : "",
			    rp->opt[i] ? "'" : "", rp->opt[i] ? rp->opt[i] :
			    "none", rp->opt[i] ? "'" : "");
			return -1;
		}
	}
	rr->cur = NULL;
	return mct_partial_cover(&rp->cover, pr);
}

/* A rank already read: a rank is never split (see the top). */
static int
split_rank(struct rread *rr, struct mct_pline *pr, int64_t id)
{
	struct mct_rpart *rp = rr->rp;
	struct mct_mapent *e;

	if ((e = mct_map_find(&rp->ids, &id, sizeof(id))) != NULL) {
		warnx("%s:%llu: rank %lld is also in %s: a rank split across "
		    "partials cannot be merged (its busy time is a union of "
		    "intervals a partial does not hold)", pr->name, pr->line,
		    (long long)id, rp->file[rp->rk[e->val.i].file]);
		return -1;
	}
	return 0;
}

static int
rank_figures(struct rread *rr, struct mct_pline *pr, int64_t id)
{
	struct mct_rprank r = { .rank = id, .file = rr->file };
	struct mct_val v;
	int64_t rounds;

	if (mct_pline_int(pr, "start", &r.start) != 0 ||
	    mct_pline_int(pr, "end", &r.end) != 0 ||
	    mct_pline_int(pr, "busy", &r.busy) != 0 ||
	    mct_pline_int(pr, "compute", &r.compute) != 0 ||
	    mct_pline_int(pr, "comm", &r.comm) != 0 ||
	    mct_pline_int(pr, "rounds", &rounds) != 0 || rounds < 0 ||
	    mct_get_key(&pr->ev, "round", &v) != 0)
		return -1;
	r.rounds = (long)rounds;
	if (v.type != MCT_J_NULL) {
		if (mct_pline_int(pr, "round", &r.round) != 0)
			return -1;
		r.hasround = 1;
	}
	if (mct_get_key(&pr->ev, "kernel", &v) == 0 ||
	    mct_get_key(&pr->ev, "memory", &v) == 0) {
		if (mct_pline_int(pr, "kernel", &r.kernel) != 0 ||
		    mct_pline_int(pr, "memory", &r.memory) != 0)
			return -1;
		r.haskm = 1;
	}
	if (mct_get_key(&pr->ev, "origin", &v) == 0 && v.type != MCT_J_NULL) {
		if (mct_pline_int(pr, "origin", &r.origin) != 0)
			return -1;
		r.hasorigin = 1;
	}
	if (!MCT_SANE_NS(r.start) || !MCT_SANE_NS(r.end) || r.start > r.end) {
		mct_pline_why(pr, "start and end are not times of a trace, "
		    "start before end");
		return -1;
	}
	if (r.hasorigin && !MCT_SANE_NS(r.origin)) {
		mct_pline_why(pr, "the origin is not a time of a trace");
		return -1;
	}
	if (r.busy < 0 || r.compute < 0 || r.comm < 0 ||
	    (r.hasround && r.round < 0)) {
		mct_pline_why(pr, "a negative time");
		return -1;
	}
	if (r.busy > r.end - r.start || r.compute > r.busy ||
	    r.comm > r.busy) {
		mct_pline_why(pr, "busy is more than end - start, or compute "
		    "or comm more than busy");
		return -1;
	}
	if (r.kernel < 0 || r.memory < 0 || r.kernel > r.compute ||
	    r.memory > r.compute) {
		mct_pline_why(pr, "kernel or memory negative, or more than "
		    "compute");
		return -1;
	}
	*(rr->cur = mct_rpart_rank(rr->rp, id)) = r;
	return 0;
}

/* A call of the rank read last in this partial. */
static int
rank_call(struct rread *rr, struct mct_pline *pr, int64_t id)
{
	const char *name;
	int64_t n, ts, dur;

	if (rr->cur == NULL || rr->cur->rank != id ||
	    getstr(rr, pr, "call", &name) != 0 || name == NULL ||
	    mct_pline_int(pr, "n", &n) != 0 || n < 1 ||
	    mct_pline_int(pr, "ts", &ts) != 0 ||
	    mct_pline_int(pr, "dur", &dur) != 0)
		return -1;
	if (!MCT_SANE_NS(ts) || dur < 0 || !MCT_SANE_NS(dur) ||
	    !MCT_SANE_NS(ts + dur)) {
		mct_pline_why(pr, "ts and dur are not a span of time");
		return -1;
	}
	mct_rpart_call(rr->cur, mct_intern(rr->rp->st, name,
	    rr->s.len - 1), (long)n, ts, dur);
	return 0;
}

/*
 * A rank's line or one of its calls.  0, -1 if damaged; -2 (said) for a
 * rank that is already known: there is no right table to print.
 */
static int
read_line(struct mct_pline *pr, void *arg)
{
	struct rread *rr = arg;
	struct mct_val v;
	int64_t id;

	if (mct_pline_int(pr, "rank", &id) != 0)
		return -1;
	if (mct_get_key(&pr->ev, "call", &v) == 0)
		return rank_call(rr, pr, id);
	if (split_rank(rr, pr, id) != 0)
		return -2;
	return rank_figures(rr, pr, id);
}

/* The end line: what the partial summarises. */
static int
read_end(struct mct_pline *pr, void *arg)
{
	return mct_partial_ident(&((struct rread *)arg)->rp->cover, pr);
}

/*
 * Add the partials of one file (path; "-" is standard input) to rp.
 * MCT_EXIT_OK; MCT_EXIT_DAMAGED for a damaged or truncated partial, whose
 * intact lines are read; MCT_EXIT_USAGE (said) for a file that cannot be
 * read, a partial of another kind, version or options.
 */
int
mct_rpart_read(struct mct_rpart *rp, const char *path)
{
	static const struct mct_partkind ranks = {
		.key = "mct_ranks_partial", .version = MCT_RPART_VERSION,
		.tool = "mct-ranks", .what = "mct-ranks -o partial",
		.endkey = "mct_ranks_partial_end", .item = "line",
		.header = read_header, .line = read_line, .end = read_end
	};
	struct rread rr = { .rp = rp, .file = rp->nfile };
	int status;

	rp->file = mct_xgrow(rp->file, (size_t)rp->nfile, sizeof(*rp->file));
	rp->file[rp->nfile++] = mct_xstrdup(strcmp(path, "-") == 0 ?
	    "(stdin)" : path);
	status = mct_pline_read(path, &ranks, &rr);
	mct_buf_free(&rr.s);
	return status;
}

/* Time *t shifted by d: 0, or -1 if it is then no time of a trace. */
static int
shift(int64_t *t, int64_t d)
{
	return __builtin_add_overflow(*t, d, t) || !MCT_SANE_NS(*t) ? -1 : 0;
}

/*
 * --align start on the ranks of rp: each shifted so that its trace's
 * origin is the earliest rank's, as mct-cat --align start shifts a
 * rank's events; rp->rk[i].shift says by how much.  0, or -1 (said) if
 * a rank's origin is not known.
 */
int
mct_rpart_align(struct mct_rpart *rp)
{
	struct mct_rprank *r;
	int64_t target = 0;
	size_t i, k;

	for (i = 0; i < rp->nrk; i++) {
		r = &rp->rk[i];
		if (!r->hasorigin) {
			warnx("--align start: rank %lld of %s has no origin of "
			    "its own (a partial of a stream of several ranks): "
			    "align with mct-cat --align start before it",
			    (long long)r->rank, rp->file[r->file]);
			return -1;
		}
		if (i == 0 || r->origin < target)
			target = r->origin;
	}
	for (i = 0; i < rp->nrk; i++) {
		r = &rp->rk[i];
		if (__builtin_sub_overflow(target, r->origin, &r->shift) ||
		    shift(&r->start, r->shift) || shift(&r->end, r->shift))
			goto far;
		r->origin = target;
		for (k = 0; k < r->ncall; k++)
			if (shift(&r->call[k].ts, r->shift) ||
			    !MCT_SANE_NS(r->call[k].ts + r->call[k].dur))
				goto far;
	}
	if (rp->nrk > 0) {
		rp->cover.origin = target;
		rp->cover.has_origin = 1;
	}
	return 0;
far:
	warnx("--align start: rank %lld of %s, whose origin is %lld, would "
	    "have times past the range of a trace's", (long long)r->rank,
	    rp->file[r->file], (long long)r->origin);
	return -1;
}

void
mct_rpart_free(struct mct_rpart *rp)
{
	size_t i;
	int k;

	for (i = 0; i < rp->nrk; i++)
		free(rp->rk[i].call);
	free(rp->rk);
	for (k = 0; k < MCT_RP_NOPT; k++)
		free(rp->opt[k]);
	for (k = 0; k < rp->nfile; k++)
		free(rp->file[k]);
	free(rp->file);
	mct_pspec_free(&rp->cover);
	mct_map_free(&rp->ids);
	rp->rk = NULL;
	rp->nrk = 0;
	rp->file = NULL;
	rp->nfile = 0;
}
