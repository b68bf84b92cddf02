/*
 * mct-ranks - one job on many GPUs: a row per rank, beside the median
 * rank, and the straggler; with --collectives, how long every rank waited
 * for the others in each collective.
 *
 * Every device event (as mct-phases counts them, or --device) is kept as
 * a small struct under its rank (the field rank; mct-cat writes it when it
 * reads several traces), with a bit that says whether the rules call it
 * communication.  At the end, each rank's calls are sorted and measured:
 * busy time is the union of all of them, compute the union of those that
 * are not communication, comm the union of those that are; exposed
 * communication is what of comm no compute covers, busy - compute.  The
 * steady rounds are those mct-phases finds (lib/phases.c) in the rank's
 * calls.  Collectives pair by name and order: the n-th call of a
 * communication kernel on every rank is one collective.
 *
 * -o partial writes, instead of the tables, each rank's figures and its
 * collective calls (lib/rankpart.c); --merge reads such partials in place
 * of events and fills the ranks from them, measured already.
 */
#include "config.h"

#include <err.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mct.h"

#define DEFAULT_KEY	"name,args.grid,args.block"
#define COMM_LABEL	"\"communication\""	/* as mct_category() gives it */

/* A device call, and whether the rules call it communication. */
/* What is known of one rank. */
struct rank {
	int64_t		 id;
	struct mct_rcall	*call;		/* its device calls */
	size_t		 n, cap;
	struct mct_steps steps;		/* Kineto's ProfilerStep#N */
	/* measured at the end */
	int64_t		 start, end;	/* first start, last end */
	int64_t		 busy, compute, commt;
	long		 rounds;
	int64_t		 round;		/* median time of a steady round */
	int		 hasround;
};

/* The figures of a row, by index: what the median and deviation are of. */
enum { M_SPAN, M_BUSY, M_BUSYPCT, M_COMPUTE, M_COMM, M_EXPOSED, M_IDLE,
    M_ROUNDS, M_ROUND, NMETRIC };

static const struct {
	const char	*name;
	int		 time;		/* a time in ns (else a count, or %) */
} metric[NMETRIC] = {
	{ "span", 1 }, { "busy", 1 }, { "busy_pct", 0 }, { "compute", 1 },
	{ "comm", 1 }, { "exposed", 1 }, { "idle", 1 }, { "rounds", 0 },
	{ "round", 1 }
};

struct opts {
	struct mct_field *key;
	int		 nkey;
	struct mct_field namef;		/* the field name */
	struct mct_expr	*device;
	double		 threshold;	/* % */
	int		 collectives;
	struct mct_method m;
	struct mct_out	 out;
	const struct mct_header *hdr;
	struct rank	*rk;		/* by id, once sorted */
	size_t		 nrk;
	size_t		 last;		/* the last event's rank: a guess */
	struct mct_strtab st;		/* signatures and names */
	struct mct_buf	 tmp;
	int		 status;
	int		 partial;	/* -o partial */
	int		 merge;		/* --merge */
	int		 partial_in;	/* a partial was read as a trace */
	int		 align;		/* --align start (with --merge) */
	const char	*opt[MCT_RP_NOPT];	/* --key, --device, --rules */
};

enum { OPT_COLLECTIVES = MCT_OPT_TOOL, OPT_DEVICE, OPT_THRESHOLD, OPT_MERGE,
    OPT_ALIGN };

static const struct option longopts[] = {
	{ "align",	required_argument,	NULL, OPT_ALIGN },
	{ "collectives", no_argument,		NULL, OPT_COLLECTIVES },
	{ "device",	required_argument,	NULL, OPT_DEVICE },
	MCT_LONGOPT_HELP,
	{ "key",	required_argument,	NULL, 'k' },
	{ "merge",	no_argument,		NULL, OPT_MERGE },
	MCT_LONGOPT_NO_HEADER,
	MCT_LONGOPT_OUTPUT,
	MCT_LONGOPT_RULES,
	{ "threshold",	required_argument,	NULL, OPT_THRESHOLD },
	MCT_LONGOPT_TIME_UNIT,
	MCT_LONGOPT_UNIT,
	MCT_LONGOPT_VERSION,
	{ NULL,		0,			NULL, 0 }
};

static void
usage(int status)
{
	if (status != 0) {
		fprintf(stderr, "usage: mct-ranks [-hV] [-k key] [-o format] "
		    "[-u unit] [--align how] [--collectives] [--merge]\n"
		    "                 [--threshold P] [file ...]\n");
		mct_usage_hint();
	}
	printf("usage: mct-ranks [-hV] [-k key] [-o format] [-u unit] "
	    "[--align how] [--collectives] [--merge]\n"
	    "                 [--threshold P] [file ...]\n"
	    "One row per rank of a job: span, device busy, compute, "
	    "communication,\nexposed communication, idle, steady rounds, each "
	    "beside the median rank,\nand the straggler.\n\n"
	    "      --collectives     one record per collective (the n-th call "
	    "of a\n"
	    "                        communication kernel on every rank): "
	    "skew, spread,\n"
	    "                        the rank that came last; then the wait "
	    "each rank caused\n"
	    "      --threshold P     a straggler's compute time is over P%% "
	    "above the\n"
	    "                        median rank's (default 5)\n"
	    "  -k, --key FIELDS      a call's signature, for the steady rounds "
	    "(default\n"
	    "                        " DEFAULT_KEY ")\n"
	    "      --device EXPR     which events are device work (default: as "
	    "mct-phases)\n"
	    "      --rules FILE      the rules file that labels communication\n"
	    "  -o, --output FORMAT   table (default on a terminal), ndjson "
	    "(default\n"
	    "                        otherwise), tsv, csv, md (Markdown), "
	    "partial (each\n"
	    "                        rank's figures and collective calls, "
	    "for --merge)\n"
	    "      --merge           read partials (-o partial) of whole "
	    "ranks, not traces\n"
	    "      --align HOW       with --merge: none (default), or start "
	    "(each rank's\n"
	    "                        times shifted as mct-cat --align start "
	    "shifts them)\n"
	    "      --no-header       no header line in tsv and csv output\n"
	    "      --time-unit UNIT  times in tsv/csv/ndjson: ns (default), us, "
	    "ms, s\n"
	    "  -u, --unit UNIT       unit of a trace read directly: auto "
	    "(default), ns, us,\n"
	    "                        ms, s\n"
	    "  -h, --help            show this help and exit\n"
	    "  -V, --version         show the version and exit\n\n"
	    "Exit status: 0 success, 1 damaged input, 2 usage or unreadable "
	    "file.\nSee mct-ranks(1) and mct(7).\n");
	exit(mct_finish(MCT_EXIT_OK));
}

/*
 * Reading: add() keeps each device call under its rank.
 */

/*
 * The rank of an event (mct_event_rank()), else 0: a trace that does not
 * say its rank is a job of one rank.
 */
static int
rank_of(struct opts *o, struct mct_event *ev, int64_t *id)
{
	struct mct_val v;

	switch (mct_event_rank(ev, NULL, id, &v)) {
	case 1:
		mct_damage(ev, "rank is not an integer: %.*s",
		    (int)(v.len > 40 ? 40 : v.len), v.p);
		o->status = MCT_EXIT_DAMAGED;
		return -1;
	case -1:
		*id = 0;
	}
	return 0;
}

/* A rank not had yet (each of the partials' is in one partial only). */
static struct rank *
rank_add(struct opts *o, int64_t id)
{
	struct rank *r;

	o->rk = mct_xgrow(o->rk, (size_t)o->nrk, sizeof(*o->rk));
	r = &o->rk[o->last = o->nrk++];
	memset(r, 0, sizeof(*r));
	r->id = id;
	return r;
}

static struct rank *
rank_get(struct opts *o, int64_t id)
{
	size_t i;

	if (o->last < o->nrk && o->rk[o->last].id == id)
		return &o->rk[o->last];
	for (i = 0; i < o->nrk; i++)
		if (o->rk[i].id == id)
			return &o->rk[o->last = i];
	return rank_add(o, id);
}

/* The texts of fields of the event, a space apart, interned. */
static int32_t
intern_of(struct opts *o, struct mct_event *ev, const struct mct_field *f,
    int nf)
{
	return mct_intern_fields(&o->st, ev, f, nf, &o->tmp);
}

/*
 * A partial among the traces (a line with no ph is the only place to
 * look): its ranks would be missing from the table without a word.
 */
static void
partial_in(struct opts *o, struct mct_event *ev)
{
	int kind = mct_src_kind(ev->json, ev->len, 1);

	if (kind != MCT_KIND_RANKS_PARTIAL && kind != MCT_KIND_PARTIAL)
		return;
	warnx("%s:%llu: a partial, not a trace: read partials with --merge "
	    "(and only partials)", ev->file, ev->where);
	o->partial_in = 1;
}

static void
add(struct opts *o, struct mct_event *ev)
{
	struct mct_val ph;
	struct rank *r;
	struct mct_rcall *c;
	const char *cat;
	int64_t ts, dur, id;
	int lane;

	if (mct_get_key(ev, "ph", &ph) != 0) {
		partial_in(o, ev);
		return;
	}
	if (!mct_jstr_eq(&ph, "X", 1))
		return;
	/* most events are host calls, of no use here: no times read for them */
	lane = mct_device(ev);
	if (!lane && o->device == NULL && !mct_is_step(ev))
		return;
	if (mct_get_ns(ev, "ts", &ts) != 0 || !MCT_SANE_NS(ts))
		return;
	if (mct_get_ns(ev, "dur", &dur) != 0 || dur < 0 || !MCT_SANE_NS(dur))
		dur = 0;
	/* the rounds, as mct-phases takes them */
	if (!lane && mct_is_step(ev) && rank_of(o, ev, &id) == 0)
		mct_steps_add(&rank_get(o, id)->steps, ts, dur);
	if (o->device ? !mct_expr_eval(o->device, ev, o->hdr) : !lane)
		return;
	if (rank_of(o, ev, &id) != 0)
		return;
	r = rank_get(o, id);
	if (r->n == r->cap) {
		r->cap = r->cap ? r->cap * 2 : 1024;
		r->call = mct_xrealloc(r->call, r->cap * sizeof(*r->call));
	}
	c = &r->call[r->n];
	c->seq = r->n++;
	c->c.ts = ts;
	c->c.dur = dur;
	c->c.sig = intern_of(o, ev, o->key, o->nkey);
	c->c.name = intern_of(o, ev, &o->namef, 1);
	cat = mct_category(ev, o->hdr);
	c->comm = cat != NULL && strcmp(cat, COMM_LABEL) == 0;
}

/*
 * Measuring: each rank's calls sorted, their unions, its steady rounds.
 */

/*
 * The rank's steady rounds, as mct-phases finds them in its calls, and
 * the median of their times (mct_rounds: a profiler step's own, else its
 * phase's span over its rounds).
 */
static void
rounds_of(struct opts *o, struct rank *r)
{
	struct mct_call *dev;
	size_t i;

	dev = mct_xmalloc((r->n + 1) * sizeof(*dev));
	for (i = 0; i < r->n; i++)
		dev[i] = r->call[i].c;
	r->hasround = mct_rounds(dev, r->n, (size_t)o->st.n, &o->m, r->start,
	    r->end, &r->steps, &r->rounds, &r->round);
	free(dev);
}

static int
cmp_rank(const void *a, const void *b)
{
	const struct rank *x = a, *y = b;

	return x->id < y->id ? -1 : x->id > y->id;
}

/* Every rank's calls sorted and measured; the ranks in order. */
static void
measure(struct opts *o)
{
	struct rank *r;
	size_t i, k;

	mct_sort(o->rk, o->nrk, sizeof(*o->rk), cmp_rank);
	for (i = 0; i < o->nrk; i++) {
		r = &o->rk[i];
		if (r->n == 0)		/* profiler steps, no device work */
			continue;	/* its figures stay 0 */
		mct_rcall_sort(r->call, r->n);
		r->start = r->call[0].c.ts;
		r->end = r->start;
		for (k = 0; k < r->n; k++)
			if (r->call[k].c.ts + r->call[k].c.dur > r->end)
				r->end = r->call[k].c.ts + r->call[k].c.dur;
		r->busy = mct_rcall_union(r->call, r->n, -1);
		r->compute = mct_rcall_union(r->call, r->n, 0);
		r->commt = mct_rcall_union(r->call, r->n, 1);
		if (!o->collectives || o->partial)
			rounds_of(o, r);
	}
}

/*
 * The rank table: a row per rank, each figure beside the median over
 * ranks and the rank's deviation from it in %.
 */

/* A rank's figures, by metric; has[m] is 0 where it has none. */
struct figures {
	int64_t		 v[NMETRIC];
	double		 pct;		/* M_BUSYPCT's value */
	int		 has[NMETRIC];
};

static void
figures_of(const struct rank *r, struct figures *f)
{
	int m;

	for (m = 0; m < NMETRIC; m++)
		f->has[m] = 1;
	f->v[M_SPAN] = r->end - r->start;
	f->v[M_BUSY] = r->busy;
	f->pct = f->v[M_SPAN] > 0 ? 100.0 * (double)r->busy /
	    (double)f->v[M_SPAN] : 0;
	f->v[M_BUSYPCT] = 0;
	f->v[M_COMPUTE] = r->compute;
	f->v[M_COMM] = r->commt;
	f->v[M_EXPOSED] = r->busy - r->compute;
	f->v[M_IDLE] = f->v[M_SPAN] - r->busy;
	f->v[M_ROUNDS] = r->rounds;
	f->v[M_ROUND] = r->round;
	f->has[M_ROUND] = r->hasround;
}

static int
cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* The median of every figure over the ranks that have it. */
static void
medians(struct opts *o, const struct figures *f, struct figures *med)
{
	int64_t *v = mct_xmalloc((o->nrk + 1) * sizeof(*v));
	double *d = mct_xmalloc((o->nrk + 1) * sizeof(*d));
	size_t i, n;
	int m;

	memset(med, 0, sizeof(*med));
	for (m = 0; m < NMETRIC; m++) {
		for (i = n = 0; i < o->nrk; i++)
			if (f[i].has[m]) {
				v[n] = f[i].v[m];
				d[n++] = f[i].pct;
			}
		if ((med->has[m] = n > 0))
			med->v[m] = mct_median_i64(v, n);
		if (m == M_BUSYPCT && n > 0) {
			mct_sort(d, n, sizeof(*d), cmp_double);
			med->pct = n % 2 ? d[n / 2] :
			    (d[n / 2 - 1] + d[n / 2]) / 2;
		}
	}
	free(v);
	free(d);
}

/* The deviation of figure m from the median, in %; -1 if there is none. */
static int
deviation(const struct figures *f, const struct figures *med, int m,
    double *dev)
{
	double v = m == M_BUSYPCT ? f->pct : (double)f->v[m];
	double mv = m == M_BUSYPCT ? med->pct : (double)med->v[m];

	if (!f->has[m] || !med->has[m] || mv == 0)
		return -1;
	*dev = 100.0 * (v - mv) / mv;
	return 0;
}

/* Figure m of f as a cell or a JSON value; null (or empty) if none. */
static void
put_figure(struct opts *o, struct mct_buf *b, const struct figures *f, int m)
{
	char num[64];

	if (!f->has[m]) {
		if (o->out.fmt == MCT_O_NDJSON)
			mct_buf_adds(b, "null");
		return;
	}
	if (m == M_BUSYPCT) {
		if (mct_out_human(&o->out))
			snprintf(num, sizeof(num), "%.1f%%", f->pct);
		else
			mct_fmt_double(num, f->pct);
		mct_buf_adds(b, num);
	} else if (metric[m].time)
		mct_out_time(&o->out, b, f->v[m]);
	else if (mct_out_human(&o->out)) {
		mct_fmt_count(num, f->v[m]);
		mct_buf_adds(b, num);
	} else
		mct_buf_addi(b, f->v[m]);
}

static void
put_dev(struct opts *o, struct mct_buf *b, const struct figures *f,
    const struct figures *med, int m)
{
	char num[64];
	double d;

	if (deviation(f, med, m, &d) != 0) {
		if (o->out.fmt == MCT_O_NDJSON)
			mct_buf_adds(b, "null");
		return;
	}
	if (mct_out_human(&o->out))
		snprintf(num, sizeof(num), "%+.1f%%", d);
	else
		mct_fmt_double(num, d);
	mct_buf_adds(b, num);
}

/* Figures as JSON pairs: "span":..,... (values, or with med deviations). */
static void
put_pairs(struct opts *o, struct mct_buf *b, const struct figures *f,
    const struct figures *med)
{
	int m;

	for (m = 0; m < NMETRIC; m++) {
		if (m)
			mct_buf_addc(b, ',');
		mct_buf_addc(b, '"');
		mct_buf_adds(b, metric[m].name);
		mct_buf_adds(b, "\":");
		if (med)
			put_dev(o, b, f, med, m);
		else
			put_figure(o, b, f, m);
	}
}

/* A rank's record (-o ndjson). */
static void
rank_event(struct opts *o, const struct rank *r, const struct figures *f,
    const struct figures *med, int straggler)
{
	struct mct_buf line = { 0 };

	mct_buf_adds(&line, "{\"rank\":");
	mct_buf_addi(&line, r->id);
	mct_buf_addc(&line, ',');
	put_pairs(o, &line, f, NULL);
	mct_buf_adds(&line, ",\"median\":{");
	put_pairs(o, &line, med, NULL);
	mct_buf_adds(&line, "},\"dev\":{");
	put_pairs(o, &line, f, med);
	mct_buf_adds(&line, straggler ? "},\"straggler\":true}" :
	    "},\"straggler\":false}");
	mct_out_json(&o->out, line.p, line.len);
	mct_buf_free(&line);
}

/*
 * A rank's row (-o tsv, csv: the figures, the medians, the deviations;
 * -o table, md: each figure with its deviation).  f NULL: the median row
 * of a table.
 */
static void
rank_row(struct opts *o, const struct rank *r, const struct figures *f,
    const struct figures *med, int straggler)
{
	struct mct_buf line = { 0 };
	int human = mct_out_human(&o->out), m;
	size_t at;

	if (f == NULL)
		mct_buf_adds(&line, "median");
	else
		mct_buf_addi(&line, r->id);
	for (m = 0; m < NMETRIC; m++) {
		mct_buf_addc(&line, '\037');
		put_figure(o, &line, f ? f : med, m);
		if (human && f != NULL && m != M_BUSYPCT) {
			at = line.len;
			mct_buf_adds(&line, " (");
			put_dev(o, &line, f, med, m);
			if (line.len == at + 2)
				line.len = at;
			else
				mct_buf_addc(&line, ')');
		}
	}
	if (!human)
		for (m = 0; m < NMETRIC * 2; m++) {
			mct_buf_addc(&line, '\037');
			if (m < NMETRIC)
				put_figure(o, &line, med, m);
			else
				put_dev(o, &line, f, med, m - NMETRIC);
		}
	mct_buf_addc(&line, '\037');
	if (f != NULL)
		mct_buf_adds(&line, straggler ? "true" : "false");
	mct_out_row(&o->out, line.p, line.len);
	mct_buf_free(&line);
}

/* The column names of the rank table. */
static void
rank_head(struct opts *o)
{
	struct mct_buf line = { 0 };
	int human = mct_out_human(&o->out), m, k;

	mct_buf_adds(&line, "rank");
	for (k = 0; k < (human ? 1 : 3); k++)
		for (m = 0; m < NMETRIC; m++) {
			mct_buf_addc(&line, '\037');
			mct_buf_adds(&line, k == 0 ? "" : k == 1 ? "median." :
			    "dev.");
			mct_buf_adds(&line, metric[m].name);
		}
	mct_buf_adds(&line, "\037straggler");
	mct_out_row(&o->out, line.p, line.len);
	mct_buf_free(&line);
}

/* Is compute time over --threshold above the median rank's? */
static int
straggles(struct opts *o, const struct figures *f, const struct figures *med)
{
	return (double)f->v[M_COMPUTE] > (double)med->v[M_COMPUTE] *
	    (1 + o->threshold / 100);
}

static void
rank_report(struct opts *o)
{
	struct figures *f, med;
	size_t i;
	int s;

	f = mct_xmalloc((o->nrk + 1) * sizeof(*f));
	for (i = 0; i < o->nrk; i++)
		figures_of(&o->rk[i], &f[i]);
	medians(o, f, &med);
	if (o->out.fmt != MCT_O_NDJSON &&
	    (o->out.header || mct_out_human(&o->out)))
		rank_head(o);
	for (i = 0; i < o->nrk; i++) {
		s = straggles(o, &f[i], &med);
		if (o->out.fmt == MCT_O_NDJSON)
			rank_event(o, &o->rk[i], &f[i], &med, s);
		else
			rank_row(o, &o->rk[i], &f[i], &med, s);
	}
	if (mct_out_human(&o->out) && o->nrk > 0)
		rank_row(o, NULL, NULL, &med, 0);
	free(f);
}

/*
 * --collectives: the n-th call of a communication kernel of one name on
 * every rank is one collective.
 */
struct coll {
	int32_t		 name;
	long		 n;		/* from 1 */
	int64_t		 ts, end;	/* first start, last end */
	int64_t		 skew;		/* last start - first start */
	int64_t		 spread;	/* longest - shortest */
	size_t		 first, last;	/* ranks, by index */
};

struct colls {
	struct coll	*c;
	size_t		 n;
	long		*times_last;	/* by rank index */
	int64_t		*wait;
};

/* The communication calls of name on rank r, in time order. */
static const struct mct_call **
calls_named(const struct rank *r, int32_t name, size_t *n)
{
	const struct mct_call **v;
	size_t i;

	v = mct_xmalloc((r->n + 1) * sizeof(*v));
	for (i = *n = 0; i < r->n; i++)
		if (r->call[i].comm && r->call[i].c.name == name)
			v[(*n)++] = &r->call[i].c;
	return v;
}

/* Collective k of a name: its calls on every rank, v[rank][k]. */
static void
add_coll(struct opts *o, struct colls *cs, int32_t name, long k,
    const struct mct_call ***v)
{
	struct coll *c;
	const struct mct_call *x;
	int64_t lo = 0, hi = 0;
	size_t i;

	cs->c = mct_xgrow(cs->c, cs->n, sizeof(*cs->c));
	c = &cs->c[cs->n++];
	memset(c, 0, sizeof(*c));
	c->name = name;
	c->n = k + 1;
	for (i = 0; i < o->nrk; i++) {
		x = v[i][k];
		if (i == 0 || x->ts < c->ts) {
			c->ts = x->ts;
			c->first = i;
		}
		if (i == 0 || x->ts > v[c->last][k]->ts)
			c->last = i;
		if (i == 0 || x->ts + x->dur > c->end)
			c->end = x->ts + x->dur;
		if (i == 0 || x->dur < lo)
			lo = x->dur;
		if (i == 0 || x->dur > hi)
			hi = x->dur;
	}
	c->skew = v[c->last][k]->ts - c->ts;
	c->spread = hi - lo;
}

/* Says on stderr how many collectives of name are not on every rank. */
static void
say_missing(struct opts *o, int32_t name, const size_t *cnt, size_t lo,
    size_t hi)
{
	struct mct_buf b = { 0 };
	size_t i;

	for (i = 0; i < o->nrk; i++) {
		if (i)
			mct_buf_adds(&b, ", ");
		mct_buf_adds(&b, "rank ");
		mct_buf_addi(&b, o->rk[i].id);
		mct_buf_adds(&b, ": ");
		mct_buf_addi(&b, (int64_t)cnt[i]);
	}
	mct_buf_addc(&b, '\0');
	warnx("%s: %zu collective%s not on every rank (%s), left out",
	    o->st.str[name], hi - lo, hi - lo == 1 ? "" : "s", b.p);
	mct_buf_free(&b);
}

/* The collectives of one communication kernel name. */
static void
name_colls(struct opts *o, struct colls *cs, int32_t name)
{
	const struct mct_call ***v;
	size_t *cnt, i, lo = 0, hi = 0;
	long k;

	v = mct_xmalloc(o->nrk * sizeof(*v));
	cnt = mct_xmalloc(o->nrk * sizeof(*cnt));
	for (i = 0; i < o->nrk; i++) {
		v[i] = calls_named(&o->rk[i], name, &cnt[i]);
		if (i == 0 || cnt[i] < lo)
			lo = cnt[i];
		if (i == 0 || cnt[i] > hi)
			hi = cnt[i];
	}
	for (k = 0; (size_t)k < lo; k++)
		add_coll(o, cs, name, k, v);
	if (hi > lo)
		say_missing(o, name, cnt, lo, hi);
	for (i = 0; i < o->nrk; i++)
		free(v[i]);
	free(v);
	free(cnt);
}

static int
cmp_coll(const void *a, const void *b, void *arg)
{
	const struct coll *x = a, *y = b;
	struct opts *o = arg;
	int c;

	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	if ((c = strcmp(o->st.str[x->name], o->st.str[y->name])) != 0)
		return c;
	return x->n < y->n ? -1 : x->n > y->n;
}

/* Every collective, in time order; who came last, and the wait caused. */
static void
find_colls(struct opts *o, struct colls *cs)
{
	unsigned char *seen;
	size_t i, k;

	seen = mct_xmalloc((size_t)o->st.n + 1);
	memset(seen, 0, (size_t)o->st.n + 1);
	for (i = 0; i < o->nrk; i++)
		for (k = 0; k < o->rk[i].n; k++) {
			const struct mct_rcall *c = &o->rk[i].call[k];

			if (c->comm && !seen[c->c.name]) {
				seen[c->c.name] = 1;
				name_colls(o, cs, c->c.name);
			}
		}
	free(seen);
	mct_sort_r(cs->c, cs->n, sizeof(*cs->c), cmp_coll, o);
	cs->times_last = mct_xmalloc((o->nrk + 1) * sizeof(long));
	cs->wait = mct_xmalloc((o->nrk + 1) * sizeof(int64_t));
	memset(cs->times_last, 0, (o->nrk + 1) * sizeof(long));
	memset(cs->wait, 0, (o->nrk + 1) * sizeof(int64_t));
	for (i = 0; i < cs->n; i++) {
		cs->times_last[cs->c[i].last]++;
		cs->wait[cs->c[i].last] += cs->c[i].skew;
	}
}

/*
 * A record's next field: in ndjson its key (the first opens the object),
 * in the other formats a cell separator (none before the first).
 */
static void
field(struct opts *o, struct mct_buf *line, const char *key)
{
	if (o->out.fmt != MCT_O_NDJSON) {
		if (line->len)
			mct_buf_addc(line, '\037');
		return;
	}
	mct_buf_adds(line, line->len ? ",\"" : "{\"");
	mct_buf_adds(line, key);
	mct_buf_adds(line, "\":");
}

/* The end of a record begun by field(); out it goes. */
static void
record_end(struct opts *o, struct mct_buf *line)
{
	if (o->out.fmt == MCT_O_NDJSON) {
		mct_buf_addc(line, '}');
		mct_out_json(&o->out, line->p, line->len);
	} else
		mct_out_row(&o->out, line->p, line->len);
	mct_buf_free(line);
}

/*
 * A collective: in ndjson its ts (absolute, as an event's); in the
 * tables its start from the origin.
 */
static void
coll_record(struct opts *o, const struct coll *c)
{
	struct mct_buf line = { 0 };
	const char *name = o->st.str[c->name];
	int64_t rel = c->ts - (o->hdr->has_origin ? o->hdr->origin : 0);
	char num[64];

	field(o, &line, "name");
	if (o->out.fmt == MCT_O_NDJSON)
		mct_buf_addjstr(&line, name, strlen(name));
	else
		mct_buf_adds(&line, name);
	field(o, &line, "n");
	mct_buf_addi(&line, c->n);
	if (o->out.fmt == MCT_O_NDJSON) {
		field(o, &line, "ts");
		mct_buf_addi(&line, c->ts);
	} else if (mct_out_human(&o->out)) {
		field(o, &line, "start");
		snprintf(num, sizeof(num), "%.3f s", (double)rel / 1e9);
		mct_buf_adds(&line, num);
	} else {
		field(o, &line, "start");
		mct_out_time(&o->out, &line, rel);
	}
	field(o, &line, "dur");
	mct_out_time(&o->out, &line, c->end - c->ts);
	field(o, &line, "ranks");
	mct_buf_addi(&line, (int64_t)o->nrk);
	field(o, &line, "skew");
	mct_out_time(&o->out, &line, c->skew);
	field(o, &line, "spread");
	mct_out_time(&o->out, &line, c->spread);
	field(o, &line, "first");
	mct_buf_addi(&line, o->rk[c->first].id);
	field(o, &line, "last");
	mct_buf_addi(&line, o->rk[c->last].id);
	record_end(o, &line);
}

/* Rank i's share of the waiting: how often it came last, the wait caused. */
static void
wait_record(struct opts *o, const struct colls *cs, size_t i)
{
	struct mct_buf line = { 0 };

	field(o, &line, "rank");
	mct_buf_addi(&line, o->rk[i].id);
	field(o, &line, "times_last");
	mct_buf_addi(&line, cs->times_last[i]);
	field(o, &line, "wait");
	mct_out_time(&o->out, &line, cs->wait[i]);
	record_end(o, &line);
}

/*
 * The collectives, then the ranks' waits: in ndjson one stream, in the
 * other formats two tables, a blank line apart.
 */
static void
coll_report(struct opts *o)
{
	static const char h1[] = "name\037n\037start\037dur\037ranks\037skew"
	    "\037spread\037first\037last";
	static const char h2[] = "rank\037times_last\037wait";
	struct colls cs = { 0 };
	int heads = o->out.fmt != MCT_O_NDJSON &&
	    (o->out.header || mct_out_human(&o->out));
	size_t i;

	find_colls(o, &cs);
	if (heads)
		mct_out_row(&o->out, h1, sizeof(h1) - 1);
	for (i = 0; i < cs.n; i++)
		coll_record(o, &cs.c[i]);
	if (o->out.fmt != MCT_O_NDJSON) {
		mct_out_end(&o->out);
		mct_write("\n", 1);
		mct_out_begin(&o->out, o->hdr);
	}
	if (heads)
		mct_out_row(&o->out, h2, sizeof(h2) - 1);
	for (i = 0; i < o->nrk; i++)
		wait_record(o, &cs, i);
	free(cs.c);
	free(cs.times_last);
	free(cs.wait);
}

/*
 * The origin of rank id's trace, for --align at a merge: that of the
 * operand that is the rank, or of the run when it read a single rank.
 * 0, or -1 if not known (a stream of several ranks).
 */
static int
rank_origin(const struct opts *o, int64_t id, int64_t *origin)
{
	const struct mct_header *h = o->hdr;
	int i;

	for (i = 0; i < h->nsrc; i++)
		if (h->src[i].ok && h->src[i].rank != MCT_RANK_NONE &&
		    h->src[i].rank == id && h->src[i].has_origin) {
			*origin = h->src[i].origin;
			return 0;
		}
	if (o->nrk != 1 || !h->has_origin)
		return -1;
	*origin = h->origin;
	return 0;
}

/*
 * -o partial: every rank's figures and collective calls (lib/rankpart.c),
 * under the options that made them.
 */
static void
partial_of(struct opts *o, struct mct_rpart *rp)
{
	const char *env = getenv("MCT_RULES");
	struct mct_rprank *p;
	const struct rank *r;
	long *nth;
	size_t i, k;

	rp->st = &o->st;
	rp->opt[MCT_RP_KEY] = mct_xstrdup(o->opt[MCT_RP_KEY] ?
	    o->opt[MCT_RP_KEY] : DEFAULT_KEY);
	if (o->opt[MCT_RP_DEVICE] != NULL)
		rp->opt[MCT_RP_DEVICE] = mct_xstrdup(o->opt[MCT_RP_DEVICE]);
	if (o->opt[MCT_RP_RULES] != NULL || (env != NULL && *env != '\0'))
		rp->opt[MCT_RP_RULES] = mct_xstrdup(o->opt[MCT_RP_RULES] ?
		    o->opt[MCT_RP_RULES] : env);
	mct_partial_cover_of(&rp->cover, o->hdr);
	nth = mct_xmalloc(((size_t)o->st.n + 1) * sizeof(*nth));
	for (i = 0; i < o->nrk; i++) {
		r = &o->rk[i];
		p = mct_rpart_rank(rp, r->id);
		p->start = r->start;
		p->end = r->end;
		p->busy = r->busy;
		p->compute = r->compute;
		p->comm = r->commt;
		p->rounds = r->rounds;
		p->round = r->round;
		p->hasround = r->hasround;
		p->hasorigin = rank_origin(o, r->id, &p->origin) == 0;
		memset(nth, 0, ((size_t)o->st.n + 1) * sizeof(*nth));
		for (k = 0; k < r->n; k++)
			if (r->call[k].comm)
				mct_rpart_call(p, r->call[k].c.name,
				    ++nth[r->call[k].c.name], r->call[k].c.ts,
				    r->call[k].c.dur);
	}
	free(nth);
}

/*
 * --merge: the ranks of the partials, measured already; their calls are
 * the collective ones only, in the order they had on their rank.
 */
static void
ranks_of(struct opts *o, const struct mct_rpart *rp)
{
	const struct mct_rprank *p;
	struct rank *r;
	size_t i, k;

	for (i = 0; i < rp->nrk; i++) {
		p = &rp->rk[i];
		r = rank_add(o, p->rank);
		r->start = p->start;
		r->end = p->end;
		r->busy = p->busy;
		r->compute = p->compute;
		r->commt = p->comm;
		r->rounds = p->rounds;
		r->round = p->round;
		r->hasround = p->hasround;
		r->n = r->cap = p->ncall;
		r->call = mct_xmalloc((p->ncall + 1) * sizeof(*r->call));
		for (k = 0; k < p->ncall; k++) {
			r->call[k].c.ts = p->call[k].ts;
			r->call[k].c.dur = p->call[k].dur;
			r->call[k].c.name = r->call[k].c.sig = p->call[k].name;
			r->call[k].seq = k;
			r->call[k].comm = 1;
		}
	}
	mct_sort(o->rk, o->nrk, sizeof(*o->rk), cmp_rank);
}

/* The tables (or the partial) of the ranks read. */
static void
report(struct opts *o)
{
	struct mct_rpart rp = { 0 };

	if (o->partial) {
		partial_of(o, &rp);
		mct_rpart_write(&rp);
		mct_rpart_free(&rp);
		return;
	}
	mct_out_begin(&o->out, o->hdr);
	if (o->collectives)
		coll_report(o);
	else
		rank_report(o);
	mct_out_end(&o->out);
}

/* --merge --align start: the ranks shifted, each shift said. */
static void
align(struct mct_rpart *rp)
{
	size_t i;

	if (mct_rpart_align(rp) != 0)
		exit(MCT_EXIT_USAGE);
	for (i = 0; i < rp->nrk; i++)
		warnx("--align start: rank %lld (%s) shifted by %lld ns",
		    (long long)rp->rk[i].rank, rp->file[rp->rk[i].file],
		    (long long)rp->rk[i].shift);
}

/*
 * Partials in: the ranks of every file.  A partial that cannot be read,
 * is of other options (those given must be the partials' own) or holds a
 * rank another one holds ends the run at once, with nothing written.
 */
static int
from_partials(struct opts *o, int argc, char *argv[])
{
	static struct mct_header hdr;
	static char dash[] = "-", *stdin_only[] = { dash, NULL };
	struct mct_rpart rp = { .st = &o->st };
	int i, status = MCT_EXIT_OK;

	if (argc == 0) {
		argc = 1;
		argv = stdin_only;
	}
	for (i = 0; i < MCT_RP_NOPT; i++)
		if (o->opt[i] != NULL) {
			rp.opt[i] = mct_xstrdup(o->opt[i]);
			rp.known[i] = 1;
		}
	for (i = 0; i < argc && status != MCT_EXIT_USAGE; i++)
		status = mct_status(status, mct_rpart_read(&rp, argv[i]));
	if (status == MCT_EXIT_USAGE)
		exit(MCT_EXIT_USAGE);
	if (o->align)
		align(&rp);
	mct_partial_header(&rp.cover, &hdr);
	o->hdr = &hdr;
	if (o->partial)
		mct_rpart_write(&rp);
	else {
		ranks_of(o, &rp);
		report(o);
	}
	mct_rpart_free(&rp);
	return status;
}

static int
options(int argc, char *argv[], struct opts *o, struct mct_opts *mo)
{
	struct mct_cli c = { .usage = usage, .out = &o->out, .mo = mo,
	    .own = "partial", .no_trace = 1, .tty_table = 1 };
	const char *key = DEFAULT_KEY;
	int ch;

	while ((ch = mct_cli_getopt(&c, argc, argv, "hk:o:u:V",
	    longopts)) != -1) {
		switch (ch) {
		case 'k':
			key = o->opt[MCT_RP_KEY] = optarg;
			break;
		case OPT_COLLECTIVES:
			o->collectives = 1;
			break;
		case OPT_DEVICE:
			o->opt[MCT_RP_DEVICE] = optarg;
			o->device = mct_opt_expr("--device", optarg);
			break;
		case OPT_ALIGN:
			if (strcmp(optarg, "none") != 0 &&
			    strcmp(optarg, "start") != 0) {
				warnx("--align: '%s': none or start (by a name, "
				    "align the traces with mct-cat --align)",
				    optarg);
				mct_usage_hint();
			}
			o->align = strcmp(optarg, "start") == 0;
			break;
		case OPT_MERGE:
			o->merge = 1;
			break;
		case OPT_THRESHOLD:
			o->threshold = mct_opt_num("--threshold", optarg, 0,
			    1e9);
			break;
		default:
			usage(2);
		}
	}
	mct_opt_fields("--key", key, &o->key, &o->nkey);
	if ((o->partial = c.own_fmt))
		o->out.fmt = MCT_O_NDJSON;
	o->opt[MCT_RP_RULES] = c.rules;
	if (o->align && !o->merge) {
		warnx("--align: with --merge only (traces: mct-cat --align "
		    "start ... | mct-ranks)");
		mct_usage_hint();
	}
	return optind;
}

int
main(int argc, char *argv[])
{
	struct opts o = { .threshold = 5, .m = { .min_rounds = 3,
	    .min_share = 1, .split = 5, .overlap = 80, .join = -1 },
	    .out = { .header = 1 } };
	struct mct_opts mo = { .unit = MCT_UNIT_AUTO };
	struct mct_reader *r;
	struct mct_event *ev;
	int n, status;

	mct_records_register();	/* the times of the tools' records */
	n = options(argc, argv, &o, &mo);
	argc -= n;
	argv += n;
	if (o.merge)
		return mct_finish(from_partials(&o, argc, argv));
	/* communication is a category: the rules are always needed */
	if (mct_rules_need() != 0)
		exit(MCT_EXIT_USAGE);
	/* a partial is of whole ranks: a single trace has its own rank too */
	if (o.partial && mo.rank == MCT_RANK_AUTO)
		mo.rank = MCT_RANK_RULES;
	if (mct_field_parse("name", &o.namef) != 0)
		errx(MCT_EXIT_USAGE, "cannot parse the field name");

	r = mct_open(argc, argv, &mo);
	o.hdr = mct_header(r);
	while (mct_next(r, &ev))
		add(&o, ev);
	if (o.partial_in)
		exit(MCT_EXIT_USAGE);
	measure(&o);
	if (!o.partial || o.hdr->nread > 0)
		report(&o);
	status = mct_close(r);
	return mct_finish(mct_status(status, o.status));
}
