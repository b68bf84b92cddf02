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
 *
 * The files (a tool past ~1,000 lines keeps its engine in files of its
 * own: tools/mct-TOOL.c the command line, tools/TOOL-JOB.c the engine, a
 * file a job, tools/mct-TOOL.h what they share):
 *
 *   mct-metrics.c    the command line: usage(), options(), main()
 *   metrics-log.c    logs read, and written as counter events
 *   metrics-join.c   --join
 *   mct-metrics.h    the state (struct opts) and the functions they share
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
#include "mct-metrics.h"

#define DEFAULT_FIELDS	"ts,ph,pid,tid,name,args.value,args.unit"
/* with --join: the events' (as mct-filter's), then each counter's mean */
#define JOIN_FIELDS	"ts,dur,ph,pid,tid,name"
static const char default_fields[] = DEFAULT_FIELDS;	/* -F's default */

enum { OPT_DEVICE = MCT_OPT_TOOL, OPT_INDEX, OPT_JOIN, OPT_LOG_UNIT, OPT_SYNC,
    OPT_TIME, OPT_TIME_UNIT, OPT_TZ, OPT_WINDOW };

static const struct option longopts[] = {
	{ "device",	required_argument,	NULL, OPT_DEVICE },
	MCT_LONGOPT_FIELDS,
	MCT_LONGOPT_HELP,
	{ "index",	required_argument,	NULL, OPT_INDEX },
	{ "join",	required_argument,	NULL, OPT_JOIN },
	{ "log-unit",	required_argument,	NULL, OPT_LOG_UNIT },
	{ "metric",	required_argument,	NULL, 'm' },
	MCT_LONGOPT_NO_HEADER,
	MCT_LONGOPT_OUTPUT,
	{ "sync",	required_argument,	NULL, OPT_SYNC },
	{ "time",	required_argument,	NULL, OPT_TIME },
	{ "time-unit",	required_argument,	NULL, OPT_TIME_UNIT },
	{ "tz",		required_argument,	NULL, OPT_TZ },
	MCT_LONGOPT_UNIT,
	MCT_LONGOPT_VERSION,
	MCT_LONGOPT_WIDTH,
	{ "window",	required_argument,	NULL, OPT_WINDOW },
	{ NULL,		0,			NULL, 0 }
};

static void
usage(int status)
{
	if (status != 0) {
		fprintf(stderr, "usage: mct-metrics [-hV] [-m names] [-o format] "
		    "[--time col] [--log-unit unit] [--tz zone] [--sync "
		    "wall=@ts] [log ...]\n"
		    "       mct-metrics --join names [--device n] [--window t] "
		    "[-o format] [file ...]\n");
		mct_usage_hint();
	}
	printf("usage: mct-metrics [-hV] [-m names] [-o format] [--time col] "
	    "[--log-unit unit]\n"
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
	    "      --log-unit UNIT   numbers in the time column: ns (default), "
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
	    "  -F, --fields LIST     columns for tsv, csv, table, md (default\n"
	    "                        " DEFAULT_FIELDS ";\n"
	    "                        with --join: " JOIN_FIELDS ",\n"
	    "                        metrics.NAME.mean of each NAME)\n"
	    "  -o, --output FORMAT   ndjson (default), tsv, csv, table, md, "
	    "trace\n"
	    "      --no-header       no header line in tsv and csv output\n"
	    "      --width N         cut table and md cells wider than N "
	    "characters\n"
	    "                        (default 60; 0: never)\n"
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

/* --log-unit: the unit of numbers in the log's time column. */
static void
log_unit(struct opts *o, const char *opt, const char *arg)
{
	if (mct_parse_unit(arg, &o->proto.tunit) != 0 ||
	    o->proto.tunit == MCT_UNIT_AUTO) {
		warnx("%s: invalid unit '%s' (want ns, us, ms or s)", opt, arg);
		mct_usage_hint();
	}
}

/* --join and its --device and --window; -1 for an option not one of them. */
static int
join_opt(struct opts *o, int ch, const char *arg)
{
	int64_t n;
	int abs;

	switch (ch) {
	case OPT_DEVICE:
		if (mct_int(arg, strlen(arg), &n) != 0 || n < 0) {
			warnx("--device: invalid value '%s' (want a "
			    "device index)", arg);
			mct_usage_hint();
		}
		o->has_device = 1;
		o->device = n;
		return 0;
	case OPT_JOIN:
		if (*arg == '\0' || strstr(arg, ",,") != NULL) {
			warnx("--join: invalid list '%s' (want names, "
			    "comma-separated)", arg);
			mct_usage_hint();
		}
		o->join = o->proto.join = arg;
		return 0;
	case OPT_WINDOW:
		mct_opt_time("--window", arg, &o->window, &abs);
		if (abs || o->window < 0 || !MCT_SANE_NS(o->window)) {
			warnx("--window: invalid length '%s'", arg);
			mct_usage_hint();
		}
		o->has_window = 1;
		return 0;
	}
	return -1;
}

/*
 * --join's default columns: the events', then metrics.NAME.mean of each
 * counter of the list, so that a table shows what was joined (the
 * samples' args.value is no event's).  A name of more than letters,
 * digits, '_' and '-' is quoted, as a field path wants it.
 */
static const char *
join_fields(struct mct_buf *b, const char *names)
{
	const char *p, *e;
	size_t i;

	b->len = 0;
	mct_buf_adds(b, JOIN_FIELDS);
	for (p = names; *p != '\0'; p = *e != '\0' ? e + 1 : e) {
		e = p + strcspn(p, ",");
		mct_buf_adds(b, ",metrics.");
		if (strspn(p, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
		    "0123456789_-") >= (size_t)(e - p))
			mct_buf_add(b, p, (size_t)(e - p));
		else {
			mct_buf_addc(b, '"');
			for (i = 0; p + i < e; i++) {
				if (p[i] == '"' || p[i] == '\\')
					mct_buf_addc(b, '\\');
				mct_buf_addc(b, p[i]);
			}
			mct_buf_addc(b, '"');
		}
		mct_buf_adds(b, ".mean");
	}
	return b->p;
}

static int
options(int argc, char *argv[], struct opts *o)
{
	struct mct_cli c = { .usage = usage, .out = &o->out, .mo = &o->mo,
	    .fields = default_fields };
	int ch;

	while ((ch = mct_cli_getopt(&c, argc, argv, "F:hm:o:u:V",
	    longopts)) != -1) {
		switch (ch) {
		case 'm':
			o->proto.metrics = optarg;
			break;
		case OPT_INDEX:
			o->proto.devcol = optarg;
			break;
		case OPT_SYNC:
			o->sync = optarg;
			break;
		case OPT_TIME:
			o->proto.timecol = optarg;
			break;
		case OPT_TIME_UNIT:	/* the old name (the output's elsewhere) */
			warnx("--time-unit is now --log-unit (the unit of the "
			    "log's time column)");
			log_unit(o, "--time-unit", optarg);
			break;
		case OPT_LOG_UNIT:
			log_unit(o, "--log-unit", optarg);
			break;
		case OPT_TZ:
			opt_tz(o, optarg);
			break;
		default:
			if (join_opt(o, ch, optarg) != 0)
				usage(2);
			/* -F's default, unless -F came first */
			if (ch == OPT_JOIN && (c.fields == default_fields ||
			    c.fields == o->jfields.p))
				c.fields = join_fields(&o->jfields, optarg);
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
	mct_buf_free(&o.jfields);
	for (n = 0; n < o.out.nfields; n++)
		mct_field_free(&o.out.fields[n]);
	free(o.out.fields);
	return mct_finish(o.status);
}
