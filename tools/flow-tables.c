/*
 * flow-tables.c - mct-flow's tables made of the pairs: --idle, the idle
 * time of each device stream by cause, and --queue, the length of each
 * stream's queue of launched work (mct-flow(1) says both for users).
 *
 * A stream is the device event's rank, pid and tid; device work only (a
 * Kineto cuda_sync pairs with its launch, but is a wait).  Each pair is kept as
 * its stream, device start and end and launch start (ftab_add()); at the
 * end they are sorted by stream, start, launch start, end (the order that
 * makes equal starts come out the same every run).
 *
 * --idle: the gap before each event of a stream but its first is its
 * start less the end of the one before it.  It is host wait when the
 * event was launched after that end (the device waited for the host),
 * else kernel wait when shorter than --kernel-wait, else other wait.
 *
 * --queue: a launch adds one to its stream's queue, the start of its work
 * takes one away (of one time, the launches first); the length after each
 * change is one value of the summary, and at_limit sums the time from a
 * change that left it at --queue-limit or more to the next change.
 * With -o trace the lengths are counter events, one per time.
 */
#include "config.h"

#include <err.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mct.h"
#include "mct-flow.h"

#define IDLE_FIELDS	"pid,tid,events,idle,host_wait,kernel_wait,other_wait"
#define QUEUE_FIELDS	"pid,tid,count,mean,stddev,max,p50,p95,at_limit"

/* An option of the tables (FT_OPT_*): 1 if it was one, else 0. */
int
ftab_option(struct ftab *t, int ch, const char *arg)
{
	int mode = ch == FT_OPT_IDLE ? FT_IDLE : FT_QUEUE;

	switch (ch) {
	case FT_OPT_IDLE:
	case FT_OPT_QUEUE:
		if (t->mode != FT_PAIRS && t->mode != mode) {
			warnx("--idle and --queue: one table at a time");
			mct_usage_hint();
		}
		t->mode = mode;
		return 1;
	case FT_OPT_KWAIT:
		t->kwait = mct_opt_dur("--kernel-wait", arg, 0, "30us, 0");
		return 1;
	case FT_OPT_LIMIT:
		t->limit = mct_opt_count("--queue-limit", arg, 1);
		return 1;
	}
	return 0;
}

/*
 * After the options: a table goes with no other (an option of the pairs,
 * other, or NULL), and --idle not with -o trace.  Exit 2 if it does.
 */
void
ftab_check(const struct ftab *t, const char *other, enum mct_ofmt fmt)
{
	const char *name = t->mode == FT_IDLE ? "--idle" : "--queue";

	if (t->mode == FT_PAIRS)
		return;
	if (other != NULL) {
		warnx("%s and %s: the table has no place for them", name,
		    other);
		mct_usage_hint();
	}
	if (t->mode == FT_IDLE && fmt == MCT_O_TRACE) {
		warnx("--idle and -o trace: the table is not a trace "
		    "(--queue -o trace has counters)");
		mct_usage_hint();
	}
}

/* A pair (mct_flow_pair()'s record): its stream, times and launch. */
void
ftab_add(struct ftab *t, struct mct_event *ev, const struct mct_header *h)
{
	struct mct_val pid, tid, rv;
	struct ftpair *p;
	int64_t ts, dur, lat, rank;
	int32_t id;
	int hasrank;

	/* device work only: a cuda_sync is paired, but is a wait (mct(7)) */
	if (!mct_device(ev) || mct_get_ns(ev, "ts", &ts) != 0 ||
	    mct_get_ns(ev, "latency", &lat) != 0)
		return;
	if (mct_get_ns(ev, "dur", &dur) != 0 || dur < 0 || !MCT_SANE_NS(dur))
		dur = 0;
	if (mct_get_key(ev, "pid", &pid) != 0)
		pid.p = "null", pid.len = 4;
	if (mct_get_key(ev, "tid", &tid) != 0)
		tid.p = "null", tid.len = 4;
	hasrank = mct_event_rank(ev, h, &rank, &rv) == 0;
	t->key.len = 0;
	if (hasrank) {
		mct_buf_addi(&t->key, rank);
		mct_buf_addc(&t->key, '\036');
	}
	mct_buf_add(&t->key, pid.p, pid.len);
	mct_buf_addc(&t->key, '\037');
	mct_buf_add(&t->key, tid.p, tid.len);
	id = mct_intern(&t->st, t->key.p, t->key.len);
	if (id == t->ns) {		/* a stream not seen before */
		t->s = mct_xgrow(t->s, (size_t)t->ns, sizeof(*t->s));
		t->s[t->ns].hasrank = hasrank;
		t->s[t->ns].rank = hasrank ? rank : 0;
		t->s[t->ns].pid = mct_intern(&t->txt, pid.p, pid.len);
		t->s[t->ns].tid = mct_intern(&t->txt, tid.p, tid.len);
		t->ns++;
	}
	t->p = mct_xgrow(t->p, t->np, sizeof(*t->p));
	p = &t->p[t->np++];
	p->stream = id;
	p->ts = ts;
	p->end = ts + dur;
	p->lts = ts - lat;
}

/* A pid or tid: numbers (by value) before text (by bytes). */
static int
cmp_id(const char *a, const char *b)
{
	int na = *a == '-' || (*a >= '0' && *a <= '9'),
	    nb = *b == '-' || (*b >= '0' && *b <= '9');
	double x, y;

	if (na != nb)
		return na ? -1 : 1;
	if (na) {
		x = strtod(a, NULL);
		y = strtod(b, NULL);
		if (x != y)
			return x < y ? -1 : 1;
	}
	return strcmp(a, b);
}

/* Streams by rank (none first), pid, tid. */
static int
cmp_stream(const void *a, const void *b, void *arg)
{
	const struct ftab *t = arg;
	const struct ftstream *x = &t->s[*(const int32_t *)a],
	    *y = &t->s[*(const int32_t *)b];
	int r;

	if (x->hasrank != y->hasrank)
		return x->hasrank ? 1 : -1;
	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	if ((r = cmp_id(t->txt.str[x->pid], t->txt.str[y->pid])) != 0)
		return r;
	return cmp_id(t->txt.str[x->tid], t->txt.str[y->tid]);
}

/* Pairs by stream (its place in the output, in stream), start, launch, end. */
static int
cmp_pair(const void *a, const void *b)
{
	const struct ftpair *x = a, *y = b;

	if (x->stream != y->stream)
		return x->stream < y->stream ? -1 : 1;
	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	if (x->lts != y->lts)
		return x->lts < y->lts ? -1 : 1;
	return x->end < y->end ? -1 : x->end > y->end;
}

/* The first keys of a record: the stream's rank, pid and tid. */
static void
head(const struct ftab *t, const struct ftstream *s, struct mct_buf *b)
{
	mct_buf_addc(b, '{');
	if (s->hasrank) {
		mct_buf_adds(b, "\"rank\":");
		mct_buf_addi(b, s->rank);
		mct_buf_addc(b, ',');
	}
	mct_buf_adds(b, "\"pid\":");
	mct_buf_adds(b, t->txt.str[s->pid]);
	mct_buf_adds(b, ",\"tid\":");
	mct_buf_adds(b, t->txt.str[s->tid]);
}

static void
key_i(struct mct_buf *b, const char *key, int64_t v)
{
	mct_buf_adds(b, ",\"");
	mct_buf_adds(b, key);
	mct_buf_adds(b, "\":");
	mct_buf_addi(b, v);
}

/* A double: exact (the shortest text that reads back), for people 4 digits. */
static void
key_d(struct mct_buf *b, const char *key, double v, int human)
{
	char num[64];

	mct_buf_adds(b, ",\"");
	mct_buf_adds(b, key);
	mct_buf_adds(b, "\":");
	if (human)
		snprintf(num, sizeof(num), "%.4g", v);
	else
		mct_fmt_double(num, v);
	mct_buf_adds(b, num);
}

/* --idle: the record of the stream s, pairs p[0 .. n). */
static void
idle_row(struct ftab *t, const struct ftstream *s, const struct ftpair *p,
    size_t n, struct mct_out *out, struct mct_buf *b)
{
	int64_t w[3] = { 0, 0, 0 }, gap;	/* host, kernel, other */
	size_t i;

	for (i = 1; i < n; i++) {
		gap = p[i].ts - p[i - 1].end;
		if (p[i].lts > p[i - 1].end)
			w[0] = mct_sat_add(w[0], gap);
		else if (gap < t->kwait)
			w[1] = mct_sat_add(w[1], gap);
		else
			w[2] = mct_sat_add(w[2], gap);
	}
	b->len = 0;
	head(t, s, b);
	key_i(b, "events", (int64_t)n);
	key_i(b, "idle", mct_sat_add(mct_sat_add(w[0], w[1]), w[2]));
	key_i(b, "host_wait", w[0]);
	key_i(b, "kernel_wait", w[1]);
	key_i(b, "other_wait", w[2]);
	mct_buf_addc(b, '}');
	mct_out_json(out, b->p, b->len);
}

/* A change of a queue: +1 at a launch, -1 at the start of its work. */
struct change {
	int64_t		 t;
	int		 start;		/* 0 launch, 1 start: launches first */
};

static int
cmp_change(const void *a, const void *b)
{
	const struct change *x = a, *y = b;

	if (x->t != y->t)
		return x->t < y->t ? -1 : 1;
	return x->start - y->start;
}

/* A counter event: the stream's queue length from ts on. */
static void
counter(const struct ftab *t, const struct ftstream *s, int64_t ts,
    int64_t q, struct mct_out *out, struct mct_buf *b)
{
	const char *tid = t->txt.str[s->tid];

	b->len = 0;
	mct_buf_adds(b, "{\"name\":\"queue length\",\"ph\":\"C\",\"ts\":");
	mct_buf_addi(b, ts);
	mct_buf_adds(b, ",\"pid\":");
	mct_buf_adds(b, t->txt.str[s->pid]);
	if (s->hasrank)
		key_i(b, "rank", s->rank);
	/* the track's name: "stream 7" for a number, a string as it is
	 * (Kineto's "stream 7" too) */
	mct_buf_adds(b, ",\"args\":{");
	if (*tid == '"')
		mct_buf_adds(b, tid);
	else {
		mct_buf_adds(b, "\"stream ");
		mct_buf_adds(b, tid);
		mct_buf_addc(b, '"');
	}
	mct_buf_addc(b, ':');
	mct_buf_addi(b, q);
	mct_buf_adds(b, "}}");
	mct_out_json(out, b->p, b->len);
}

/* --queue: the summary of the stream s (or its counters), pairs p[0 .. n). */
static void
queue_row(struct ftab *t, const struct ftstream *s, const struct ftpair *p,
    size_t n, struct mct_out *out, struct mct_buf *b)
{
	struct mct_stats st = { 0 };
	struct change *c;
	int64_t q = 0, at = 0;
	size_t i;
	int h = mct_out_human(out);

	c = mct_xmalloc(2 * n * sizeof(*c));
	for (i = 0; i < n; i++) {
		c[2 * i].t = p[i].lts;
		c[2 * i].start = 0;
		c[2 * i + 1].t = p[i].ts;
		c[2 * i + 1].start = 1;
	}
	mct_sort(c, 2 * n, sizeof(*c), cmp_change);
	for (i = 0; i < 2 * n; i++) {
		q += c[i].start ? -1 : 1;
		mct_stats_add(&st, q);
		if (i + 1 < 2 * n && q >= t->limit)
			at += c[i + 1].t - c[i].t;
		if (out->fmt == MCT_O_TRACE && (i + 1 == 2 * n ||
		    c[i + 1].t != c[i].t))
			counter(t, s, c[i].t, q, out, b);
	}
	free(c);
	if (out->fmt != MCT_O_TRACE) {
		b->len = 0;
		head(t, s, b);
		key_i(b, "count", (int64_t)st.n);
		key_d(b, "mean", mct_stats_mean(&st), h);
		key_d(b, "stddev", mct_stats_stddev(&st), h);
		key_d(b, "max", mct_stats_max(&st), 0);
		key_d(b, "p50", mct_stats_quantile(&st, 50, 100), h);
		key_d(b, "p95", mct_stats_quantile(&st, 95, 100), h);
		key_i(b, "at_limit", at);
		mct_buf_addc(b, '}');
		mct_out_json(out, b->p, b->len);
	}
	mct_stats_free(&st);
}

/*
 * The table (or with --queue -o trace the counters) of every stream, in
 * order.  deffields: -F was not given, so the columns are the table's,
 * with rank first when some stream has one.
 */
void
ftab_report(struct ftab *t, struct mct_out *out, const struct mct_header *h,
    int deffields)
{
	struct mct_buf b = { 0 };
	int32_t *ord, *pos, i;
	size_t k, from;
	int ranked = 0;

	ord = mct_xmalloc(((size_t)t->ns + 1) * sizeof(*ord));
	pos = mct_xmalloc(((size_t)t->ns + 1) * sizeof(*pos));
	for (i = 0; i < t->ns; i++) {
		ord[i] = i;
		ranked |= t->s[i].hasrank;
	}
	mct_sort_r(ord, (size_t)t->ns, sizeof(*ord), cmp_stream, t);
	for (i = 0; i < t->ns; i++)
		pos[ord[i]] = i;
	for (k = 0; k < t->np; k++)
		t->p[k].stream = pos[t->p[k].stream];
	mct_sort(t->p, t->np, sizeof(*t->p), cmp_pair);
	if (out->fmt != MCT_O_TRACE) {
		if (deffields) {
			mct_buf_adds(&b, ranked ? "rank," : "");
			mct_buf_adds(&b, t->mode == FT_IDLE ? IDLE_FIELDS :
			    QUEUE_FIELDS);
			while (out->nfields > 0)
				mct_field_free(&out->fields[--out->nfields]);
			free(out->fields);
			mct_opt_fields("-F", b.p, &out->fields, &out->nfields);
		}
		mct_out_begin(out, h);
	}
	for (k = 0; k < t->np; k = from) {
		for (from = k; from < t->np && t->p[from].stream ==
		    t->p[k].stream; from++)
			;
		if (t->mode == FT_IDLE)
			idle_row(t, &t->s[ord[t->p[k].stream]], &t->p[k],
			    from - k, out, &b);
		else
			queue_row(t, &t->s[ord[t->p[k].stream]], &t->p[k],
			    from - k, out, &b);
	}
	mct_buf_free(&b);
	free(ord);
	free(pos);
}

void
ftab_free(struct ftab *t)
{
	mct_strtab_free(&t->st);
	mct_strtab_free(&t->txt);
	mct_buf_free(&t->key);
	free(t->s);
	free(t->p);
}
