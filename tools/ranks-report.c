/*
 * ranks-report.c - mct-ranks' output: the rank table, or with
 * --collectives the collectives and the wait each rank caused.
 */
#include "config.h"

#include <err.h>
#include <stdlib.h>
#include <string.h>

#include "mct.h"
#include "mct-ranks.h"

/* The figures of a row, by index: what the median and deviation are of. */
enum { M_SPAN, M_BUSY, M_BUSYPCT, M_COMPUTE, M_COMM, M_EXPOSED, M_IDLE,
    M_ROUNDS, M_ROUND, M_KERNEL, M_MEMORY, NMETRIC };

/* The columns of tsv and csv before kernel and memory, which came later. */
#define NFIRST	M_KERNEL

static const struct {
	const char	*name;
	int		 time;		/* a time in ns (else a count, or %) */
} metric[NMETRIC] = {
	{ "span", 1 }, { "busy", 1 }, { "busy_pct", 0 }, { "compute", 1 },
	{ "comm", 1 }, { "exposed", 1 }, { "idle", 1 }, { "rounds", 0 },
	{ "round", 1 }, { "kernel", 1 }, { "memory", 1 }
};

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
	f->v[M_SPAN] = mct_sat_sub(r->end, r->start);
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
	f->v[M_KERNEL] = r->kernel;
	f->v[M_MEMORY] = r->memory;
	f->has[M_KERNEL] = f->has[M_MEMORY] = !r->nokm;
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
 * The figures m from a to b of a row of tsv or csv: each, then the
 * medians, then the deviations.
 */
static void
put_cells(struct opts *o, struct mct_buf *b, const struct figures *f,
    const struct figures *med, int a, int z)
{
	int m;

	for (m = a; m < z; m++) {
		mct_buf_addc(b, '\037');
		put_figure(o, b, f, m);
	}
	for (m = a; m < z; m++) {
		mct_buf_addc(b, '\037');
		put_figure(o, b, med, m);
	}
	for (m = a; m < z; m++) {
		mct_buf_addc(b, '\037');
		put_dev(o, b, f, med, m);
	}
}

/*
 * A rank's row (-o tsv, csv: the figures, the medians, the deviations,
 * straggler, then the same of kernel and memory, so that the columns
 * before them keep their places; -o table, md: each figure with its
 * deviation).  f NULL: the median row of a table.
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
	if (!human) {
		put_cells(o, &line, f, med, 0, NFIRST);
		mct_buf_adds(&line, straggler ? "\037true" : "\037false");
		put_cells(o, &line, f, med, NFIRST, NMETRIC);
		mct_out_row(&o->out, line.p, line.len);
		mct_buf_free(&line);
		return;
	}
	for (m = 0; m < NMETRIC; m++) {
		mct_buf_addc(&line, '\037');
		put_figure(o, &line, f ? f : med, m);
		if (f != NULL && m != M_BUSYPCT) {
			at = line.len;
			mct_buf_adds(&line, " (");
			put_dev(o, &line, f, med, m);
			if (line.len == at + 2)
				line.len = at;
			else
				mct_buf_addc(&line, ')');
		}
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
	for (k = 0; k < (human ? 1 : 6); k++) {
		if (k == 3)		/* tsv, csv: kernel and memory after */
			mct_buf_adds(&line, "\037straggler");
		for (m = k < 3 ? 0 : NFIRST; m < (human ? NMETRIC : k < 3 ?
		    NFIRST : NMETRIC); m++) {
			mct_buf_addc(&line, '\037');
			mct_buf_adds(&line, k % 3 == 0 ? "" : k % 3 == 1 ?
			    "median." : "dev.");
			mct_buf_adds(&line, metric[m].name);
		}
	}
	if (human)
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
		cs->wait[cs->c[i].last] = mct_sat_add(cs->wait[cs->c[i].last],
		    cs->c[i].skew);
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
 * A collective: in ndjson its ts (absolute) and dur in ns, as an event's
 * (an interval of the stream, as mct-phases' phases: --time-unit scales
 * neither); in the tables its start from the origin and its dur, both in
 * the unit asked.
 */
static void
coll_record(struct opts *o, const struct coll *c)
{
	struct mct_buf line = { 0 };
	const char *name = o->st.str[c->name];

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
	} else {
		field(o, &line, "start");
		mct_out_at(&o->out, &line, c->ts);
	}
	field(o, &line, "dur");
	if (o->out.fmt == MCT_O_NDJSON)
		mct_buf_addi(&line, mct_sat_sub(c->end, c->ts));
	else
		mct_out_time(&o->out, &line, mct_sat_sub(c->end, c->ts));
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

/* The tables (or the partial) of the ranks read. */
void
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
