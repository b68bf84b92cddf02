/*
 * mct-metrics - device metric logs beside the timeline.
 *
 * Without --join: each LOG (nvidia-smi --format=csv, rocm-smi --csv, any
 * CSV or TSV with a time column) becomes counter events, one a metric a
 * line, in time order behind a stream header.  Logs are small (a sample
 * a millisecond is 80,000 lines for the seed's 80 s): every sample is
 * kept as a small struct and sorted.
 *
 * With --join: a stream of events and counter events in; every event
 * with a dur out with metrics.NAME = {mean,min,max,samples} of each named
 * counter's step function over its interval.  On input in ts order (one
 * sorted operand, else merged by the reader, else within --window)
 * an event is written once the input has passed its end, so only events
 * still open and the samples they need are held: events come out in the
 * order they end.
 */
#include "config.h"

#include <err.h>
#include <getopt.h>
#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "mct.h"

#define DEFAULT_FIELDS	"ts,ph,pid,tid,name,args.value"
#define MAX_SAY		20	/* bad lines told per file */
#define FORGET_EVERY	4096	/* samples between two forget passes */

/* A sample of a log, for the sort. */
struct row {
	int64_t		 ts, dev, v;
	int32_t		 metric;	/* in o->names */
	uint64_t	 seq;
};

/* A counter --join names. */
struct jmetric {
	char		*name;
	struct mct_buf	 key;		/* "name": as written after each event */
	struct mct_series s;
	int		 has_dev;
	int64_t		 dev;		/* the device whose samples count */
	long long	 other;		/* samples of other devices, left out */
	long long	 joined;	/* events that got values */
	long long	 nsamples;
	int64_t		 first, last;	/* the samples' span */
};

/* An event held until the input has passed its end. */
struct pend {
	int64_t		 a, b;		/* its interval */
	uint64_t	 seq;
	char		*text;
	size_t		 len;
};

struct opts {
	struct mct_mlog	 proto;		/* the log options */
	const char	*sync;		/* --sync WALL=@TS */
	const char	*join;
	int		 has_device, has_window;
	int64_t		 device, window;
	struct mct_opts	 mo;
	struct mct_out	 out;
	int		 status;
	/* the logs */
	struct row	*row;
	size_t		 nrow, rowcap;
	struct mct_strtab names;	/* the metrics */
	char		**unit;		/* by metric */
	int32_t		 nunit;
	/* the join */
	struct jmetric	*jm;
	int		 njm;
	size_t		 jroom;		/* bytes the metrics object may take */
	struct pend	*heap;
	size_t		 npend, pendcap;
	uint64_t	 seq;
	int64_t		 now, forgot;
	int		 has_now, has_forgot;
	long long	 late, latesamples, withdur, sincefgt;
	int		 preloaded;	/* the samples came from log operands */
	int		 edited;	/* the reader's threads join (join_edit()) */
	long long	 unjoined;	/* counters of other operands then */
	int		*colmap;	/* a CSV log's column -> counter */
	int		 ncolmap;
	const struct mct_mlog *maplog;	/* the log colmap is of */
	int64_t		 evfirst, evlast;
	/* CSV logs read by a thread while the trace's pass 1 runs */
	pthread_t	 logtid;
	int		 logthread;	/* it runs */
	char		**csv;
	int		 ncsv;
	FILE		*sayto;		/* its messages, said when it ends */
	char		*saybuf;
	size_t		 saylen;
	struct mct_strtab seen;		/* counter names in the input */
	struct mct_field valuef;	/* args.value */
	struct mct_event ev;
	struct mct_buf	 line;
	struct mct_header hdr;
	char		*hline;
};

enum { OPT_DEVICE = MCT_OPT_TOOL, OPT_INDEX, OPT_JOIN, OPT_SYNC, OPT_TIME,
    OPT_TIME_UNIT, OPT_TZ, OPT_WINDOW };

static const struct option longopts[] = {
	{ "device",	required_argument,	NULL, OPT_DEVICE },
	MCT_LONGOPT_FIELDS,
	MCT_LONGOPT_HELP,
	{ "index",	required_argument,	NULL, OPT_INDEX },
	{ "join",	required_argument,	NULL, OPT_JOIN },
	{ "metric",	required_argument,	NULL, 'm' },
	MCT_LONGOPT_NO_HEADER,
	MCT_LONGOPT_OUTPUT,
	{ "sync",	required_argument,	NULL, OPT_SYNC },
	{ "time",	required_argument,	NULL, OPT_TIME },
	{ "time-unit",	required_argument,	NULL, OPT_TIME_UNIT },
	{ "tz",		required_argument,	NULL, OPT_TZ },
	MCT_LONGOPT_UNIT,
	MCT_LONGOPT_VERSION,
	{ "window",	required_argument,	NULL, OPT_WINDOW },
	{ NULL,		0,			NULL, 0 }
};

static void
usage(int status)
{
	if (status != 0) {
		fprintf(stderr, "usage: mct-metrics [-hV] [-m names] [-o format] "
		    "[--time col] [--time-unit unit] [--tz zone] [--sync "
		    "wall=@ts] [log ...]\n"
		    "       mct-metrics --join names [--device n] [--window t] "
		    "[-o format] [file ...]\n");
		mct_usage_hint();
	}
	printf("usage: mct-metrics [-hV] [-m names] [-o format] [--time col] "
	    "[--time-unit unit]\n"
	    "                   [--tz zone] [--sync wall=@ts] [log ...]\n"
	    "       mct-metrics --join names [--device n] [--window t] "
	    "[-o format] [file ...]\n"
	    "Turn device metric logs (the CSV of nvidia-smi or rocm-smi, any "
	    "CSV or TSV\nwith a time column) into counter events; with "
	    "--join, give every event\nwith a dur the mean, min and max of "
	    "counters over its interval.\n\n"
	    "  -m, --metric NAMES    only these columns (names as in the "
	    "header, unit off)\n"
	    "      --time COL        the time column: a name or a number "
	    "(default the\n"
	    "                        column timestamp, time or date)\n"
	    "      --index COL       the device column (default index, "
	    "device, gpu, card)\n"
	    "      --time-unit UNIT  numbers in the time column: ns (default), "
	    "us, ms, s\n"
	    "      --tz ZONE         wall times without an offset: UTC "
	    "(default), +08:00,\n"
	    "                        or a zone name (Asia/Shanghai)\n"
	    "      --sync WALL=@TS   the log's time WALL is the trace's "
	    "timestamp TS (ns)\n"
	    "      --join NAMES      join these counters (comma-separated) "
	    "to every event\n"
	    "                        with a dur: metrics.NAME = {mean, min, "
	    "max, samples}\n"
	    "      --device N        join the counters of device N (default: "
	    "the first\n"
	    "                        device each counter has)\n"
	    "      --window T        input out of order by up to T: join as "
	    "it comes\n"
	    "                        (default: sort unsorted input first)\n"
	    "  -u, --unit UNIT       unit of a trace read directly: auto "
	    "(default), ns, us,\n"
	    "                        ms, s\n"
	    "  -F, --fields LIST     columns for tsv, csv, table (default "
	    DEFAULT_FIELDS ")\n"
	    "  -o, --output FORMAT   ndjson (default), tsv, csv, table, md, "
	    "trace\n"
	    "      --no-header       no header line in tsv and csv output\n"
	    "  -h, --help            show this help and exit\n"
	    "  -V, --version         show the version and exit\n\n"
	    "With no file, or when file is -, read standard input.\n"
	    "Exit status: 0 success, 1 damaged input (bad lines skipped, a "
	    "time going back),\n2 usage or unreadable file.  See "
	    "mct-metrics(1) and mct(7).\n");
	exit(mct_finish(MCT_EXIT_OK));
}

/* --tz: a fixed offset, or a zone name the C library's rules know. */
static void
opt_tz(struct opts *o, const char *arg)
{
	char path[PATH_MAX];

	if (mct_tz_parse(arg, &o->proto.tz) != 0) {
		warnx("--tz: invalid zone '%s' (want UTC, +HH:MM or a name "
		    "like Asia/Shanghai)", arg);
		mct_usage_hint();
	}
	if (!o->proto.tz.local)
		return;
	snprintf(path, sizeof(path), "/usr/share/zoneinfo/%s", arg);
	if (strcmp(arg, "local") != 0 && (strstr(arg, "..") != NULL ||
	    access(path, R_OK) != 0)) {
		warnx("--tz: unknown zone '%s' (want UTC, +HH:MM or a name in "
		    "/usr/share/zoneinfo)", arg);
		mct_usage_hint();
	}
	if (strcmp(arg, "local") != 0 && setenv("TZ", arg, 1) != 0)
		err(MCT_EXIT_USAGE, "setenv");
	tzset();
}

/* --sync WALL=@TS, once the time unit and zone are known. */
static void
opt_sync(struct opts *o)
{
	const char *eq = strrchr(o->sync, '=');
	int abs = 0;

	if (eq == NULL || mct_mlog_time(&o->proto, o->sync,
	    (size_t)(eq - o->sync), &o->proto.sync_t) != 0 ||
	    mct_parse_time(eq + 1, &o->proto.sync_ts, &abs) != 0 || !abs) {
		warnx("--sync: invalid value '%s' (want WALL=@TS: a time as "
		    "the log writes it, '=', '@' and the trace timestamp in "
		    "ns)", o->sync);
		mct_usage_hint();
	}
	o->proto.has_sync = 1;
}

static int
options(int argc, char *argv[], struct opts *o)
{
	struct mct_cli c = { .usage = usage, .out = &o->out, .mo = &o->mo,
	    .fields = DEFAULT_FIELDS };
	int64_t n;
	int ch, abs;

	while ((ch = mct_cli_getopt(&c, argc, argv, "F:hm:o:u:V",
	    longopts)) != -1) {
		switch (ch) {
		case 'm':
			o->proto.metrics = optarg;
			break;
		case OPT_DEVICE:
			if (mct_int(optarg, strlen(optarg), &n) != 0 || n < 0) {
				warnx("--device: invalid value '%s' (want a "
				    "device index)", optarg);
				mct_usage_hint();
			}
			o->has_device = 1;
			o->device = n;
			break;
		case OPT_INDEX:
			o->proto.devcol = optarg;
			break;
		case OPT_JOIN:
			if (*optarg == '\0' || strstr(optarg, ",,") != NULL) {
				warnx("--join: invalid list '%s' (want names, "
				    "comma-separated)", optarg);
				mct_usage_hint();
			}
			o->join = o->proto.join = optarg;
			break;
		case OPT_SYNC:
			o->sync = optarg;
			break;
		case OPT_TIME:
			o->proto.timecol = optarg;
			break;
		case OPT_TIME_UNIT:
			/* the unit of the log's time column, not the output's */
			if (mct_parse_unit(optarg, &o->proto.tunit) != 0 ||
			    o->proto.tunit == MCT_UNIT_AUTO) {
				warnx("--time-unit: invalid unit '%s' (want ns, "
				    "us, ms or s)", optarg);
				mct_usage_hint();
			}
			break;
		case OPT_TZ:
			opt_tz(o, optarg);
			break;
		case OPT_WINDOW:
			mct_opt_time("--window", optarg, &o->window, &abs);
			if (abs || o->window < 0 || !MCT_SANE_NS(o->window)) {
				warnx("--window: invalid length '%s'", optarg);
				mct_usage_hint();
			}
			o->has_window = 1;
			break;
		default:
			usage(2);
		}
	}
	if (o->sync)
		opt_sync(o);
	if (o->join == NULL && (o->has_device || o->has_window)) {
		warnx("--device and --window go with --join");
		mct_usage_hint();
	}
	return optind;
}

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

static void join_samples(struct opts *, const struct mct_mlog *);

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
static void
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
	int hdr = 0, r, has_last = 0;

	while (mct_lines_next(li, &p, &n, &at)) {
		line++;
		if (!hdr) {
			if (blank(p, n))
				continue;
			if (mct_mlog_header(&l, p, n, &why) != 0) {
				lwarnx(o, "%s:%lld: %s", name, line, why);
				o->status = mct_status(o->status, MCT_EXIT_USAGE);
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
	o->status = mct_status(o->status, log_error(o, src, name));
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

/* The stream header of counter events: ns, their smallest ts, sorted. */
static void
log_header(struct opts *o, int argc, char *argv[])
{
	struct mct_buf b = { 0 };
	int i;

	o->hdr.unit = MCT_UNIT_NS;
	o->hdr.why = "mct-metrics";
	o->hdr.has_origin = o->nrow > 0;
	o->hdr.origin = o->nrow ? o->row[0].ts : 0;
	o->hdr.form = 'n';
	o->hdr.sorted = 1;
	o->hdr.nread = 1;
	mct_buf_adds(&b, "{\"name\":\"" MCT_HEADER_NAME "\",\"ph\":\"M\","
	    "\"args\":{\"version\":1,\"unit\":\"ns\",\"unit_from\":"
	    "\"mct-metrics\",\"origin\":");
	if (o->hdr.has_origin)
		mct_buf_addi(&b, o->hdr.origin);
	else
		mct_buf_adds(&b, "null");
	mct_buf_adds(&b, ",\"form\":\"ndjson\",\"sorted\":true,"
	    "\"top_before\":0,\"top\":{},\"sources\":[");
	for (i = 0; i < argc; i++) {
		if (i)
			mct_buf_addc(&b, ',');
		mct_buf_addjstr(&b, argv[i], strlen(argv[i]));
	}
	if (argc == 0)
		mct_buf_adds(&b, "\"-\"");
	mct_buf_adds(&b, "]}}");
	o->hdr.line = b.p;
	o->hdr.linelen = b.len;
	o->hline = b.p;
}

/* An event out; text[len] is its newline. */
static void
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

static void
logs(struct opts *o, int argc, char *argv[])
{
	size_t i;
	int k;

	if (argc == 0)
		read_log(o, "-");
	else
		for (k = 0; k < argc; k++)
			read_log(o, argv[k]);
	sort_rows(o);
	log_header(o, argc, argv);
	mct_event_init(&o->ev, "", 0, &o->hdr);
	mct_out_begin(&o->out, &o->hdr);
	for (i = 0; i < o->nrow; i++)
		write_row(o, &o->row[i]);
	mct_out_end(&o->out);
	for (k = 0; k < o->nunit; k++)
		free(o->unit[k]);
	mct_strtab_free(&o->names);
	free(o->unit);
	free(o->row);
	mct_event_free(&o->ev);
	free(o->hline);
}

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
static void
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
	struct mct_event ev;
	struct mct_val name;
	struct mct_tdp t;
	int64_t ts, dur;
	int hasts, joined = 0;

	mct_event_init(&ev, text, len, &o->hdr);
	mct_get_times(&ev, &t);
	ts = t.ts;
	dur = t.dur;
	hasts = t.hasts && MCT_SANE_NS(ts);
	if (hasts && ph_is(&t.ph, 'C') && mct_get_key(&ev, "name", &name) ==
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
	mct_event_free(&ev);
}

static const struct mct_editor joiner = { tally_new, join_edit, tally_add };

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

static void
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

int
main(int argc, char *argv[])
{
	struct opts o = { .out = { .fmt = MCT_O_NDJSON, .header = 1 },
	    .proto = { .tunit = MCT_UNIT_NS } };
	int n;

	mct_records_register();	/* the times of the tools' records */
	n = options(argc, argv, &o);
	argc -= n;
	argv += n;
	if (o.join)
		join(&o, argc, argv);
	else
		logs(&o, argc, argv);
	mct_buf_free(&o.line);
	for (n = 0; n < o.out.nfields; n++)
		mct_field_free(&o.out.fields[n]);
	free(o.out.fields);
	return mct_finish(o.status);
}
