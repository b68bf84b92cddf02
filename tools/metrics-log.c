/*
 * metrics-log.c - mct-metrics' logs (mct-metrics.c says how): each log
 * read, its samples kept and sorted, written as counter events; or with
 * --join given to the counters (join_samples()).
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

#define MAX_SAY		20	/* bad lines told per file */

/*
 * Reading logs.
 */

/* The metric of a column: interned by name, its unit the first seen. */
static int32_t
metric_of(struct opts *o, const struct mct_mcol *c)
{
	int32_t id = mct_intern(&o->names, c->name, strlen(c->name));

	if (id == o->nunit) {
		o->unit = mct_xgrow(o->unit, (size_t)id, sizeof(*o->unit));
		o->unit[o->nunit++] = c->unit ? mct_xstrdup(c->unit) : NULL;
	}
	return id;
}

static void
keep(struct opts *o, const struct mct_mlog *l)
{
	size_t i;

	for (i = 0; i < l->nsample; i++) {
		const struct mct_msample *s = &l->sample[i];
		struct row *r;

		if (o->nrow == o->rowcap) {
			o->rowcap = o->rowcap ? o->rowcap * 2 : 4096;
			o->row = mct_xrealloc(o->row, o->rowcap * sizeof(*o->row));
		}
		r = &o->row[o->nrow];
		r->ts = s->ts;
		r->dev = s->dev;
		r->v = s->v;
		r->metric = metric_of(o, &l->col[s->col]);
		r->seq = o->nrow++;
	}
}


/*
 * What reading a log has to say: at once, or kept (o->sayto) while a
 * thread reads the logs, to be said in one piece when it is done.
 */
static void lwarnx(struct opts *, const char *, ...)
    __attribute__((format(printf, 2, 3)));

static void
lwarnx(struct opts *o, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	if (o->sayto != NULL) {
		fputs("mct-metrics: ", o->sayto);
		vfprintf(o->sayto, fmt, ap);
		fputc('\n', o->sayto);
	} else
		vwarnx(fmt, ap);
	va_end(ap);
}

/*
 * What went wrong reading a log, said; the status it gives: an error
 * before its first byte is a file that cannot be read.
 */
static int
log_error(struct opts *o, struct mct_src *src, const char *name)
{
	const char *e;
	long long off;
	int status;

	if ((e = mct_src_error(src, &off)) == NULL)
		return mct_src_close(src);
	if (off < 0)
		lwarnx(o, "%s: %s", name, e);
	else
		lwarnx(o, "%s:%lld: %s", name, off, e);
	status = mct_src_pos(src) == 0 ? MCT_EXIT_USAGE : MCT_EXIT_DAMAGED;
	mct_src_close(src);
	return status;
}

static int
blank(const char *p, size_t n)
{
	while (n > 0 && (*p == ' ' || *p == '\t' || *p == '\r'))
		p++, n--;
	return n == 0;
}

/* A sample earlier than the one before it: said once a file, counted. */
static void
backwards(struct opts *o, const char *name, long long line, int64_t from,
    int64_t to, long long *nback)
{
	char d[48];

	if ((*nback)++ == 0) {
		mct_fmt_dec(d, from - to, 1000000);
		lwarnx(o, "%s:%lld: the time goes back %s ms: samples are put in "
		    "time order", name, line, d);
	}
	o->status = mct_status(o->status, MCT_EXIT_DAMAGED);
}

/*
 * A line's bad values (each skipped, the others kept) and its time
 * again for its device (the later line's values hold): said, at most
 * MAX_SAY of each a file, counted in n.
 */
static void
bad_values(struct opts *o, const char *name, const struct mct_mlog *l,
    long long n[2])
{
	size_t i;

	for (i = 0; i < l->nbad; i++)
		if (n[0]++ < MAX_SAY)
			lwarnx(o, "%s:%lld: %s", name, l->bad[i].line,
			    l->bad[i].why);
	n[0] += l->nlost;
	if (l->dup && n[1]++ < MAX_SAY)
		lwarnx(o, "%s:%lld: the same time and device as line %lld: "
		    "the values of this later line hold", name, l->line,
		    l->dup);
	if (l->nbad || l->nlost || l->dup)
		o->status = mct_status(o->status, MCT_EXIT_DAMAGED);
}

/*
 * A log: its samples kept for the sort (o->row), or with --join given
 * to the counters at once.
 */
void
read_log(struct opts *o, const char *path)
{
	const char *name = strcmp(path, "-") == 0 ? "(stdin)" : path;
	struct mct_mlog l = o->proto;
	struct mct_src *src = mct_src_open(path);
	struct mct_lines *li = mct_lines_open(src);
	const char *p, *why;
	unsigned long long at;
	size_t n;
	long long line = 0, nbad = 0, nback = 0, nbadv[2] = { 0, 0 };
	int64_t last = 0;
	int hdr = 0, r, has_last = 0, nohdr = 0;

	while (mct_lines_next(li, &p, &n, &at)) {
		line++;
		if (!hdr) {
			if (blank(p, n))
				continue;
			if (mct_mlog_header(&l, p, n, &why) != 0) {
				lwarnx(o, "%s:%lld: %s", name, line, why);
				o->status = mct_status(o->status, MCT_EXIT_USAGE);
				nohdr = 1;
				break;
			}
			hdr = 1;
			continue;
		}
		l.line = line;
		if ((r = mct_mlog_line(&l, p, n)) < 0) {
			if (nbad++ < MAX_SAY)
				lwarnx(o, "%s:%lld: %s", name, line, l.why);
			o->status = mct_status(o->status, MCT_EXIT_DAMAGED);
		} else
			bad_values(o, name, &l, nbadv);
		if (r <= 0 || l.nsample == 0)
			continue;
		if (has_last && l.sample[0].ts < last)
			backwards(o, name, line, last, l.sample[0].ts, &nback);
		last = l.sample[0].ts;
		has_last = 1;
		if (o->join)
			join_samples(o, &l);
		else
			keep(o, &l);
	}
	mct_lines_free(li);
	r = log_error(o, src, name);
	o->status = mct_status(o->status, r);
	if (!nohdr && r < MCT_EXIT_USAGE)
		o->nlogs++;
	if (nbad > MAX_SAY)
		lwarnx(o, "%s: %lld bad lines in all, skipped", name, nbad);
	if (nbadv[0] > MAX_SAY)
		lwarnx(o, "%s: %lld bad values in all, skipped", name, nbadv[0]);
	if (nbadv[1] > MAX_SAY)
		lwarnx(o, "%s: %lld lines at the time of the line before of "
		    "their device in all", name, nbadv[1]);
	if (nback > 1)
		lwarnx(o, "%s: the time went back %lld times", name, nback);
	if (!hdr && o->status < MCT_EXIT_USAGE)
		lwarnx(o, "%s: no header line: an empty log", name);
	mct_mlog_free(&l);
	o->maplog = NULL;	/* the next log has columns of its own */
}

static int
row_cmp(const void *x, const void *y)
{
	const struct row *a = x, *b = y;

	if (a->ts != b->ts)
		return a->ts < b->ts ? -1 : 1;
	return a->seq < b->seq ? -1 : a->seq > b->seq;
}

/* The samples in time order (most logs are already). */
static void
sort_rows(struct opts *o)
{
	size_t i;

	for (i = 1; i < o->nrow && o->row[i - 1].ts <= o->row[i].ts; i++)
		;
	if (i < o->nrow)
		mct_sort(o->row, o->nrow, sizeof(*o->row), row_cmp);
}

/*
 * The stream header of counter events: ns, their smallest ts, sorted.
 * For -o trace, us: a viewer reads a trace's ts in us whatever its
 * displayTimeUnit (the ns written as us with three decimals, exact).
 */
static void
log_header(struct opts *o, int argc, char *argv[])
{
	static const char *const stdin_only[] = { "-" };

	o->hdr.facts.unit = o->out.fmt == MCT_O_TRACE ? MCT_UNIT_US :
	    MCT_UNIT_NS;
	o->hdr.facts.why = "mct-metrics";
	o->hdr.facts.has_origin = o->nrow > 0;
	o->hdr.facts.origin = o->nrow ? o->row[0].ts : 0;
	o->hdr.facts.sorted = 1;
	o->hdr.nread = 1;
	if (argc == 0)
		mct_out_header(&o->hdr, stdin_only, 1);
	else
		mct_out_header(&o->hdr, (const char *const *)argv, argc);
	o->hline = o->hdr.line;
}

/* An event out; text[len] is its newline. */
void
emit(struct opts *o, const char *text, size_t len)
{
	mct_event_set(&o->ev, text, len);
	mct_out_event(&o->out, &o->ev);
}

/* {"name":M,"ph":"C","pid":"metrics","tid":DEV,"ts":TS,"args":{...}} */
static void
write_row(struct opts *o, const struct row *r)
{
	struct mct_buf *b = &o->line;
	const char *name = o->names.str[r->metric];
	char num[48];

	b->len = 0;
	mct_buf_adds(b, "{\"name\":");
	mct_buf_addjstr(b, name, strlen(name));
	mct_buf_adds(b, ",\"ph\":\"C\",\"pid\":\"metrics\",\"tid\":");
	mct_buf_addi(b, r->dev);
	mct_buf_adds(b, ",\"ts\":");
	mct_buf_addi(b, r->ts);
	mct_buf_adds(b, ",\"args\":{\"value\":");
	mct_buf_add(b, num, mct_fmt_e6(num, r->v));
	if (o->unit[r->metric] != NULL) {
		mct_buf_adds(b, ",\"unit\":");
		mct_buf_addjstr(b, o->unit[r->metric],
		    strlen(o->unit[r->metric]));
	}
	mct_buf_adds(b, "}}\n");
	emit(o, b->p, b->len - 1);
}

void
logs(struct opts *o, int argc, char *argv[])
{
	size_t i;
	int k;

	if (argc == 0)
		read_log(o, "-");
	else
		for (k = 0; k < argc; k++)
			read_log(o, argv[k]);
	/*
	 * No log could be read (each missing, or without a time column):
	 * nothing written, not even a header of no source, as every tool
	 * writes nothing when none of its operands can be read (mct(7)).
	 */
	if (o->nlogs > 0 || o->status < MCT_EXIT_USAGE) {
		sort_rows(o);
		log_header(o, argc, argv);
		mct_event_init(&o->ev, "", 0, &o->hdr);
		mct_out_begin(&o->out, &o->hdr);
		for (i = 0; i < o->nrow; i++)
			write_row(o, &o->row[i]);
		mct_out_end(&o->out);
		mct_event_free(&o->ev);
		free(o->hline);
	}
	for (k = 0; k < o->nunit; k++)
		free(o->unit[k]);
	mct_strtab_free(&o->names);
	free(o->unit);
	free(o->row);
}
