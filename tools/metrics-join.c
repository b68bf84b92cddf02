/*
 * metrics-join.c - mct-metrics --join (mct-metrics.c says how): every
 * event with a dur written with the metrics of its interval.
 */
#include "config.h"

#include <err.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mct.h"
#include "mct-metrics.h"

#define FORGET_EVERY	4096	/* samples between two forget passes */

/*
 * The join.
 */

static void
join_parse(struct opts *o)
{
	const char *p = o->join, *q;
	int i;

	for (; *p; p = *q ? q + 1 : q) {
		struct jmetric *j;

		q = strchr(p, ',');
		if (q == NULL)
			q = p + strlen(p);
		o->jm = mct_xgrow(o->jm, (size_t)o->njm, sizeof(*o->jm));
		j = &o->jm[o->njm++];
		memset(j, 0, sizeof(*j));
		j->name = mct_xmalloc((size_t)(q - p) + 1);
		memcpy(j->name, p, (size_t)(q - p));
		j->name[q - p] = '\0';
		mct_buf_addjstr(&j->key, j->name, (size_t)(q - p));
		mct_buf_addc(&j->key, ':');
		if (o->has_device) {
			j->has_dev = 1;
			j->dev = o->device;
		}
	}
	o->jroom = sizeof(",\"metrics\":{}}\n");
	for (i = 0; i < o->njm; i++)
		o->jroom += o->jm[i].key.len + 1 + MCT_OVER_MAX;
	if (mct_field_parse("args.value", &o->valuef) != 0)
		errx(MCT_EXIT_USAGE, "args.value: no field");
}

static struct jmetric *
jmetric(struct opts *o, const struct mct_val *name)
{
	int i;

	for (i = 0; i < o->njm; i++)
		if (mct_jstr_eq(name, o->jm[i].name, strlen(o->jm[i].name)))
			return &o->jm[i];
	return NULL;
}

/* A sample of a counter --join names, if of its device. */
static void
sample(struct opts *o, struct jmetric *j, int64_t dev, int64_t ts, int64_t v)
{
	if (!j->has_dev) {
		j->has_dev = 1;
		j->dev = dev;
	}
	if (dev != j->dev) {
		j->other++;
		return;
	}
	if (o->has_now && ts < o->now - o->window)
		o->latesamples++;
	if (j->nsamples == 0 || ts < j->first)
		j->first = ts;
	if (j->nsamples == 0 || ts > j->last)
		j->last = ts;
	j->nsamples++;
	mct_series_add(&j->s, ts, v);
	o->sincefgt++;
}

/* A counter event: a sample of its metric, if --join names it. */
static void
counter(struct opts *o, struct mct_event *ev, int64_t ts)
{
	struct mct_val name, v;
	struct jmetric *j;
	int64_t dev = 0, x;

	if (mct_get_key(ev, "name", &name) != 0 || name.type != MCT_J_STRING)
		return;
	mct_intern(&o->seen, name.p, name.len);
	if ((j = jmetric(o, &name)) == NULL)
		return;
	if (mct_get(ev, &o->valuef, &v) != 0 || v.type != MCT_J_NUMBER ||
	    mct_value_e6(v.p, v.len, &x) != 0) {
		mct_damage(ev, "counter %s: args.value is no number", j->name);
		o->status = mct_status(o->status, MCT_EXIT_DAMAGED);
		return;
	}
	if (mct_get_ns(ev, "tid", &dev) != 0)
		dev = 0;
	sample(o, j, dev, ts, x);
}

/*
 * A line of a CSV log given as an operand: its samples to the counters.
 * Which counter a column is, is found once a log (o->colmap).
 */
void
join_samples(struct opts *o, const struct mct_mlog *l)
{
	size_t i;
	int k, c;

	if (o->maplog != l || o->ncolmap != l->ncol) {
		o->colmap = mct_xrealloc(o->colmap, (size_t)l->ncol *
		    sizeof(*o->colmap));
		for (c = 0; c < l->ncol; c++)
			o->colmap[c] = -2;	/* not known yet */
		o->maplog = l;
		o->ncolmap = l->ncol;
	}
	for (i = 0; i < l->nsample; i++) {
		const struct mct_msample *m = &l->sample[i];

		if ((k = o->colmap[m->col]) == -2) {
			const char *name = l->col[m->col].name;

			mct_intern(&o->seen, name, strlen(name));
			for (k = o->njm - 1; k >= 0 &&
			    strcmp(o->jm[k].name, name) != 0; k--)
				;
			o->colmap[m->col] = k;
		}
		if (k >= 0)
			sample(o, &o->jm[k], m->dev, m->ts, m->v);
	}
}

static int
pend_less(const struct pend *a, const struct pend *b)
{
	return a->b < b->b || (a->b == b->b && a->seq < b->seq);
}

static void
heap_push(struct opts *o, const struct pend *p)
{
	size_t i, up;

	if (o->npend == o->pendcap) {
		o->pendcap = o->pendcap ? o->pendcap * 2 : 256;
		o->heap = mct_xrealloc(o->heap, o->pendcap * sizeof(*o->heap));
	}
	for (i = o->npend++; i > 0; i = up) {
		up = (i - 1) / 2;
		if (!pend_less(p, &o->heap[up]))
			break;
		o->heap[i] = o->heap[up];
	}
	o->heap[i] = *p;
}

static void
heap_pop(struct opts *o)
{
	struct pend last = o->heap[--o->npend];
	size_t i = 0, c;

	for (; (c = 2 * i + 1) < o->npend; i = c) {
		if (c + 1 < o->npend && pend_less(&o->heap[c + 1], &o->heap[c]))
			c++;
		if (!pend_less(&o->heap[c], &last))
			break;
		o->heap[i] = o->heap[c];
	}
	if (o->npend)
		o->heap[i] = last;
}

/*
 * The event text[0..len) with metrics.NAME for every counter in effect
 * during [a, b), into l, made room for once: this is --join's every
 * event.  Returns how many counters it has.  With hint and joined (a
 * thread's, one each a counter) the series are only read, and the joins
 * counted there.
 */
static int
join_text(struct opts *o, const char *text, size_t len, int64_t a, int64_t b,
    struct mct_buf *l, size_t *hint, long long *joined)
{
	static const char open[] = ",\"metrics\":{";
	struct mct_over ov;
	char *q;
	int i, any = 0;

	l->len = 0;
	mct_buf_grow(l, len + o->jroom);
	q = l->p;
	memcpy(q, text, len - 1);	/* up to its last } */
	q += len - 1;
	for (i = 0; i < o->njm; i++) {
		struct jmetric *j = &o->jm[i];

		if ((hint != NULL ? mct_series_over_h(&j->s, &hint[i], a,
		    b - a, &ov) : mct_series_over(&j->s, a, b - a, &ov)) != 0)
			continue;
		if (any++ == 0) {
			memcpy(q, open, sizeof(open) - 1);
			q += sizeof(open) - 1;
		} else
			*q++ = ',';
		memcpy(q, j->key.p, j->key.len);
		q += j->key.len;
		q += mct_over_fmt(&ov, q);
		if (joined != NULL)
			joined[i]++;
		else
			j->joined++;
	}
	if (any) {
		memcpy(q, "}}\n", 4);	/* one write with its newline */
		l->len = (size_t)(q + 2 - l->p);
	}
	return any;
}

static void
join_write(struct opts *o, const char *text, size_t len, int64_t a, int64_t b)
{
	if (a < o->forgot && o->has_forgot)
		o->late++;
	if (join_text(o, text, len, a, b, &o->line, NULL, NULL))
		emit(o, o->line.p, o->line.len);
	else
		emit(o, text, len);
}

static void
finish(struct opts *o, const struct pend *p)
{
	join_write(o, p->text, p->len, p->a, p->b);
	free(p->text);
}

/* Samples before the oldest interval still to come are not needed. */
static void
forget(struct opts *o)
{
	int64_t low = o->now - o->window;
	size_t i;
	int k;

	for (i = 0; i < o->npend; i++)
		if (o->heap[i].a < low)
			low = o->heap[i].a;
	for (k = 0; k < o->njm; k++)
		mct_series_forget(&o->jm[k].s, low);
	if (!o->has_forgot || low > o->forgot)
		o->forgot = low;
	o->has_forgot = 1;
	o->sincefgt = 0;
}

/* Write every held event the input has passed the end of. */
static void
flush(struct opts *o)
{
	while (o->npend > 0 && o->heap[0].b < o->now - o->window) {
		struct pend p = o->heap[0];

		heap_pop(o);
		finish(o, &p);
	}
	if (o->sincefgt >= FORGET_EVERY)
		forget(o);
}

/* Is ph the string of the one letter c? */
static int
ph_is(const struct mct_val *ph, char c)
{
	if (ph->type != MCT_J_STRING)
		return 0;
	if (ph->len == 3)
		return ph->p[1] == c;
	return mct_jstr_eq(ph, &c, 1);
}

/* Does an event of these times and len bytes get metrics? */
static int
joinable(const struct mct_tdp *t, size_t len)
{
	return t->hasts && MCT_SANE_NS(t->ts) && t->hasdur && t->dur >= 0 &&
	    MCT_SANE_NS(t->dur) && len >= 2 && !ph_is(&t->ph, 'C') &&
	    !t->meta;
}

static void
event(struct opts *o, struct mct_event *ev)
{
	struct mct_val name;
	struct mct_tdp t;
	struct pend p;
	int64_t ts, dur;
	int hasts;

	if (o->edited) {
		emit(o, ev->json, ev->len);	/* joined by join_edit() */
		return;
	}
	mct_get_times(ev, &t);
	ts = t.ts;
	dur = t.dur;
	hasts = t.hasts && MCT_SANE_NS(ts);
	if (hasts && ph_is(&t.ph, 'C')) {
		if (!o->preloaded)
			counter(o, ev, ts);
		else if (mct_get_key(ev, "name", &name) == 0 &&
		    jmetric(o, &name) != NULL)
			o->unjoined++;
	}
	if (hasts && (!o->has_now || ts > o->now) && !t.meta) {
		o->now = ts;
		o->has_now = 1;
	}
	if (!joinable(&t, ev->len)) {
		emit(o, ev->json, ev->len);
		flush(o);
		return;
	}
	if (o->withdur++ == 0 || ts < o->evfirst)
		o->evfirst = ts;
	if (o->withdur == 1 || ts + dur > o->evlast)
		o->evlast = ts + dur;
	if (o->preloaded) {
		join_write(o, ev->json, ev->len, ts, ts + dur);
		return;
	}
	p.a = ts;
	p.b = ts + dur;
	p.seq = o->seq++;
	p.len = ev->len;
	p.text = mct_xmalloc(ev->len + 1);
	memcpy(p.text, ev->json, ev->len);
	p.text[ev->len] = '\n';	/* as the reader's lines: one write */
	heap_push(o, &p);
	flush(o);
}

/*
 * What join_edit() counts in one of the reader's threads: the context
 * the reader keeps for that thread (mct_edit()), added to the opts'
 * counts when the thread is done with it: shared counters would be a
 * cache line bounced between the threads at every event.
 */
struct tally {
	long long	 withdur, unjoined;
	int64_t		 first, last;
	long long	*joined;	/* one a counter */
	size_t		*hint;		/* one a counter */
	struct mct_event ev;		/* the thread's, its index kept */
	int		 hasev;
};

static pthread_mutex_t tally_mu = PTHREAD_MUTEX_INITIALIZER;

/* A thread's tally, before its first event. */
static void *
tally_new(void *arg)
{
	struct opts *o = arg;
	struct tally *tl = mct_xmalloc(sizeof(*tl));

	memset(tl, 0, sizeof(*tl));
	tl->joined = mct_xmalloc((size_t)o->njm * sizeof(*tl->joined));
	memset(tl->joined, 0, (size_t)o->njm * sizeof(*tl->joined));
	tl->hint = mct_xmalloc((size_t)o->njm * sizeof(*tl->hint));
	memset(tl->hint, 0, (size_t)o->njm * sizeof(*tl->hint));
	return tl;
}

/* A thread's tally into the opts' counts, when it has no more events. */
static void
tally_add(void *arg, void *ctx)
{
	struct opts *o = arg;
	struct tally *t = ctx;
	int i;

	pthread_mutex_lock(&tally_mu);
	if (t->withdur > 0) {
		if (o->withdur == 0 || t->first < o->evfirst)
			o->evfirst = t->first;
		if (o->withdur == 0 || t->last > o->evlast)
			o->evlast = t->last;
	}
	o->withdur += t->withdur;
	o->unjoined += t->unjoined;
	for (i = 0; i < o->njm; i++)
		o->jm[i].joined += t->joined[i];
	pthread_mutex_unlock(&tally_mu);
	if (t->hasev)
		mct_event_free(&t->ev);
	free(t->joined);
	free(t->hint);
	free(t);
}

/*
 * event() of the samples preloaded, for mct_edit(): the reader's threads
 * join each event as they convert it, so that the joins share the CPUs.
 * The series are only read, with each thread's own hints (its tally).
 */
static void
join_edit(void *arg, void *ctx, const char *text, size_t len,
    struct mct_buf *out)
{
	struct opts *o = arg;
	struct tally *tl = ctx;
	struct mct_event *ev = &tl->ev;
	struct mct_val name;
	struct mct_tdp t;
	int64_t ts, dur;
	int hasts, joined = 0;

	if (!tl->hasev) {
		mct_event_init(ev, text, len, &o->hdr);
		tl->hasev = 1;
	} else
		mct_event_set(ev, text, len);
	mct_get_times(ev, &t);
	ts = t.ts;
	dur = t.dur;
	hasts = t.hasts && MCT_SANE_NS(ts);
	if (hasts && ph_is(&t.ph, 'C') && mct_get_key(ev, "name", &name) ==
	    0 && jmetric(o, &name) != NULL)
		tl->unjoined++;
	if (joinable(&t, len)) {
		if (tl->withdur++ == 0 || ts < tl->first)
			tl->first = ts;
		if (tl->withdur == 1 || ts + dur > tl->last)
			tl->last = ts + dur;
		joined = join_text(o, text, len, ts, ts + dur, out, tl->hint,
		    tl->joined);
	}
	if (!joined) {
		out->len = 0;
		mct_buf_add(out, text, len);
	}
}

static const struct mct_editor joiner = { tally_new, join_edit, tally_add,
    NULL };

/* What the user should know of the join: counters missing, no overlap. */
static void
join_end(struct opts *o)
{
	char a[48], b[48], c[48], d[48];
	long long joined = 0;
	int i;

	for (i = 0; i < o->njm; i++) {
		struct jmetric *j = &o->jm[i];

		joined += j->joined;
		if (j->nsamples == 0 && j->other == 0)
			warnx("--join %s: no counter events of that name in the "
			    "input%s", j->name, o->seen.n ? "" :
			    " (it has no counter events at all)");
		else if (j->other)
			warnx("--join %s: %lld samples of other devices than "
			    "%lld left out (--device N chooses)", j->name,
			    j->other, (long long)j->dev);
		if (j->nsamples && o->withdur && j->joined == 0) {
			mct_fmt_dec(a, j->first, 1);
			mct_fmt_dec(b, j->last, 1);
			mct_fmt_dec(c, o->evfirst, 1);
			mct_fmt_dec(d, o->evlast, 1);
			warnx("--join %s: the samples (%s to %s) do not overlap "
			    "the events (%s to %s): no values joined", j->name,
			    a, b, c, d);
		}
	}
	for (i = 0; i < o->seen.n && joined == 0 && o->withdur; i++)
		if (i == 0)
			warnx("counters in the input: %s%s", o->seen.str[0],
			    o->seen.n > 1 ? ", ..." : "");
	if (o->unjoined)
		warnx("%lld counter events of the trace operands not joined: "
		    "the samples are those of the log operands", o->unjoined);
	if (o->latesamples)
		warnx("%lld samples came more than --window after later "
		    "events: events written before them lack them",
		    o->latesamples);
	if (o->late)
		warnx("%lld events began more than --window before the latest "
		    "ts: joined with the samples left", o->late);
}

/*
 * What an operand is: 'l' a stream mct-metrics wrote (its header says
 * so), 'c' a CSV or TSV log (no JSON), else 't' (a trace or a stream).
 */
static int
kind(const char *path)
{
	char buf[1024], *nl;
	ssize_t n;

	if ((n = mct_src_head(path, buf, sizeof(buf) - 1)) < 0)
		return 't';
	buf[n] = '\0';
	switch (mct_src_kind(buf, (size_t)n, 1)) {
	case MCT_KIND_LOG:
		return 'c';
	case MCT_KIND_STREAM:
		if ((nl = strchr(buf, '\n')) != NULL)
			*nl = '\0';
		if (strstr(buf, "\"unit_from\":\"mct-metrics\"") != NULL)
			return 'l';
	}
	return 't';
}

static void *
csv_run(void *arg)
{
	struct opts *o = arg;
	int i;

	for (i = 0; i < o->ncsv; i++)
		read_log(o, o->csv[i]);
	return NULL;
}

/*
 * Logs given as operands (CSV, or streams mct-metrics wrote) are read
 * first, their samples kept; the others then as they come, each event
 * written at once, in order.  CSV logs alone are read by a thread while
 * mct_open() reads the trace (preload_wait() waits for it): the log of a
 * long run is megabytes, and its time was a fifth of --join's.  Returns
 * the number of other operands, now first in argv.
 */
static int
preload(struct opts *o, int argc, char *argv[])
{
	struct mct_reader *r;
	struct mct_event *ev;
	char **logs = mct_xmalloc((size_t)(argc + 1) * sizeof(*logs));
	int i, nlog = 0, nrest = 0;
	int64_t ts;

	o->csv = mct_xmalloc((size_t)(argc + 1) * sizeof(*o->csv));
	for (i = 0; i < argc; i++)
		switch (kind(argv[i])) {
		case 'l':
			logs[nlog++] = argv[i];
			break;
		case 'c':
			o->csv[o->ncsv++] = argv[i];
			break;
		default:
			argv[nrest++] = argv[i];
		}
	if (nlog > 0 || o->ncsv == 0 ||
	    (o->sayto = open_memstream(&o->saybuf, &o->saylen)) == NULL)
		csv_run(o);
	else if (mct_thread(&o->logtid, "mct-csv", csv_run, o, 0) == 0)
		o->logthread = 1;
	else {
		fclose(o->sayto);
		o->sayto = NULL;
		free(o->saybuf);
		o->saybuf = NULL;
		csv_run(o);
	}
	if (nlog > 0) {
		r = mct_open(nlog, logs, &o->mo);
		while (mct_next(r, &ev))
			if (mct_get_ns(ev, "ts", &ts) == 0 && MCT_SANE_NS(ts))
				counter(o, ev, ts);
		o->status = mct_status(o->status, mct_close(r));
	}
	free(logs);
	if (nlog + o->ncsv == 0)
		return argc;
	o->preloaded = 1;
	return nrest;
}

/* The CSV logs' thread is done; what it had to say is said. */
static void
preload_wait(struct opts *o)
{
	if (o->logthread) {
		pthread_join(o->logtid, NULL);
		o->logthread = 0;
	}
	o->sincefgt = 0;
	if (o->sayto != NULL) {
		fclose(o->sayto);
		o->sayto = NULL;
		if (o->saylen > 0)
			fwrite(o->saybuf, 1, o->saylen, stderr);
		free(o->saybuf);
		o->saybuf = NULL;
	}
	free(o->csv);
	o->csv = NULL;
}

void
join(struct opts *o, int argc, char *argv[])
{
	struct mct_opts mo;
	struct mct_reader *r;
	struct mct_event *ev;
	int i;

	join_parse(o);
	argc = preload(o, argc, argv);
	mo = o->mo;
	if (!o->preloaded && !o->has_window)
		mo.order = MCT_ORDER_TS_UNSORTED;	/* the join goes in ts order */
	if (o->preloaded && o->out.fmt == MCT_O_NDJSON)
		mo.want = MCT_WANT_LINE;	/* joined by joiner: all to write */
	r = mct_open(argc, argv, &mo);
	preload_wait(o);
	if (o->preloaded) {
		o->hdr = *mct_header(r);	/* written in order */
		o->edited = mct_edit(r, &joiner, o) == 0;
	} else
		mct_header_unsorted(&o->hdr, &o->hline, mct_header(r));
	mct_event_init(&o->ev, "", 0, &o->hdr);
	mct_out_begin(&o->out, &o->hdr);
	while (mct_next(r, &ev))
		event(o, ev);
	o->window = 0;
	o->now = INT64_MAX;
	while (o->npend > 0) {
		struct pend p = o->heap[0];

		heap_pop(o);
		finish(o, &p);
	}
	mct_out_end(&o->out);
	join_end(o);
	o->status = mct_status(o->status, mct_close(r));
	for (i = 0; i < o->njm; i++) {
		free(o->jm[i].name);
		mct_buf_free(&o->jm[i].key);
		mct_series_free(&o->jm[i].s);
	}
	free(o->jm);
	free(o->colmap);
	free(o->heap);
	free(o->hline);
	mct_event_free(&o->ev);
	mct_field_free(&o->valuef);
	mct_strtab_free(&o->seen);
}
