/*
 * mct-group - the tables: events grouped by fields, with aggregates.
 *
 * The group table itself (lib/group.c) keeps each group's count, span,
 * running sums of the extra fields, and every value of --value for exact
 * medians and percentiles; this file makes an event's key from --by and
 * writes the rows.  No event is kept.
 *
 * -o partial writes the table's mergeable state instead of rows, and
 * --merge reads such partials (lib/partial.c) in place of events: the
 * rows of a merge are those of one run over all the events.
 *
 * --by step of events without a step of their own (a trace's host
 * events and device work) reads the files twice: first their step
 * annotations and launches (lib/stepof.c), then the events.
 */
#include "config.h"

#include <err.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <fcntl.h>
#include <unistd.h>

#include "mct.h"

#define DEFAULT_AGGS	"count,total,share,mean,median,min,max"
/* of a time between two events (latency): a sum of them means nothing */
#define BETWEEN_AGGS	"count,median,p90,max"

struct opts {
	struct mct_field *by;
	int		 nby;
	struct mct_field value;
	int		 vtime;		/* the value is a time */
	struct mct_agg	*agg;
	int		 nagg;
	const char	*sort;
	struct mct_order order;		/* --sort, --reverse */
	long		 top;
	int		 total_row;
	int		 missing, meta;
	struct mct_out	 out;
	struct mct_gtab	 t;		/* the groups */
	struct mct_buf	 kbuf;		/* an event's key */
	const struct mct_header *hdr;
	const char	*by_text, *value_text, *aggs_text;
	int		 by_given, value_given;
	int		 partial;	/* -o partial */
	int		 merge;		/* --merge */
	size_t		 limit;		/* --exact-limit */
	struct mct_pspec ps;		/* what the partials group */
	struct mct_seen	 seen;		/* --by and --value fields found */
	const char	**tables;	/* --table: the specs */
	int		 ntables;
	const char	*name;		/* the spec of this table, its mark */
	struct mct_expr	*where;		/* the table's where=, or NULL */
	struct mct_seen	 wseen, wown;	/* where='s fields: other, own keys */
	const char	*step_name;	/* --step-name */
	struct mct_stepof *steps;	/* the first read's, for --by step */
	struct mct_event sev;		/* an event with its step added */
	struct mct_buf	 sbuf;
};

enum { OPT_MISSING = MCT_OPT_TOOL, OPT_META, OPT_TOTAL, OPT_VALUE, OPT_MERGE,
    OPT_EXACT_LIMIT, OPT_ALLOW_REPEAT, OPT_TABLE, OPT_STEP_NAME };

static const struct option longopts[] = {
	{ "aggregates",	required_argument,	NULL, 'a' },
	{ "allow-repeat", no_argument,		NULL, OPT_ALLOW_REPEAT },
	{ "by",		required_argument,	NULL, 'k' },
	{ "exact-limit", required_argument,	NULL, OPT_EXACT_LIMIT },
	MCT_LONGOPT_HELP,
	{ "merge",	no_argument,		NULL, OPT_MERGE },
	{ "meta",	no_argument,		NULL, OPT_META },
	{ "missing",	no_argument,		NULL, OPT_MISSING },
	MCT_LONGOPT_NO_HEADER,
	MCT_LONGOPT_OUTPUT,
	MCT_LONGOPT_PAIR_BE,
	{ "reverse",	no_argument,		NULL, 'r' },
	MCT_LONGOPT_RULES,
	{ "sort",	required_argument,	NULL, 's' },
	{ "step-name",	required_argument,	NULL, OPT_STEP_NAME },
	{ "table",	required_argument,	NULL, OPT_TABLE },
	MCT_LONGOPT_TIME_UNIT,
	{ "top",	required_argument,	NULL, 'n' },
	{ "total",	no_argument,		NULL, OPT_TOTAL },
	MCT_LONGOPT_UNIT,
	{ "value",	required_argument,	NULL, OPT_VALUE },
	MCT_LONGOPT_VERSION,
	MCT_LONGOPT_WIDTH,
	{ NULL,		0,			NULL, 0 }
};

static void
usage(int status)
{
	if (status != 0) {
		fprintf(stderr, "usage: mct-group [-hrV] [-a aggregates] "
		    "[-k fields] [-n top] [-o format] [-s sort] [-u unit] "
		    "[file ...]\n");
		mct_usage_hint();
	}
	printf("usage: mct-group [-hrV] [-a aggregates] [-k fields] [-n top] "
	    "[-o format] [-s sort] [-u unit] [file ...]\n"
	    "Group events by fields and aggregate a value: one row per group.\n\n"
	    "  -k, --by FIELDS       group by these fields (default name)\n"
	    "      --value FIELD     the value to aggregate (default dur)\n"
	    "  -a, --aggregates LIST (default " DEFAULT_AGGS ";\n"
	    "                        of latency, queue, skew " BETWEEN_AGGS ")\n"
	    "                        count total share mean median min max "
	    "stddev\n"
	    "                        p50 p90 p95 p99 (any pN) first last,\n"
	    "                        sum:F min:F max:F mean:F of a field F\n"
	    "  -s, --sort AGG        order groups by an aggregate (largest "
	    "first) or\n"
	    "                        a --by field (A to Z); default total\n"
	    "                        (median of latency, queue, skew)\n"
	    "  -r, --reverse         reverse the order\n"
	    "  -n, --top N           the first N groups, then an \"others\" row\n"
	    "      --total           a total row in tsv, csv and ndjson too\n"
	    "      --table TABLE     one table of several from one read: TABLE is\n"
	    "                        BY[:VALUE[:AGGS]], as --by, --value, -a,\n"
	    "                        then ;top=N, ;o=FORMAT and ;where=EXPR\n"
	    "                        (--where of mct-filter) of its own (repeat\n"
	    "                        it; each table marked in the output)\n"
	    "      --missing         keep events that lack a --by field\n"
	    "      --step-name NAME  the field step: of annotations NAME#N "
	    "(default\n"
	    "                        ProfilerStep)\n"
	    "      --meta            count metadata (ph M) events too\n"
	    "      --pair-be         each matched B/E pair of a thread as one X "
	    "event\n"
	    "      --rules FILE      the rules file for the field category\n"
	    "  -o, --output FORMAT   table (default on a terminal), ndjson "
	    "(default\n"
	    "                        otherwise), tsv, csv, md (Markdown), "
	    "partial\n"
	    "                        (the mergeable state, for --merge)\n"
	    "      --merge           read partials (-o partial) and merge "
	    "them\n"
	    "      --allow-repeat    with --merge: merge a partial (or a "
	    "source) given\n"
	    "                        twice, and say so\n"
	    "      --exact-limit N   values kept per group in a partial "
	    "(default\n"
	    "                        1000000); past it a sketch, quantiles "
	    "within 0.4%%\n"
	    "      --no-header       no header line in tsv and csv output\n"
	    "      --width N         cut table and md cells wider than N "
	    "characters\n"
	    "                        (default 60; 0: never)\n"
	    "      --time-unit UNIT  times in tsv/csv/ndjson: ns (default), "
	    "us, ms, s\n"
	    "  -u, --unit UNIT       unit of a trace read directly: auto "
	    "(default), ns,\n"
	    "                        us, ms, s\n"
	    "  -h, --help            show this help and exit\n"
	    "  -V, --version         show the version and exit\n\n"
	    "Exit status: 0 success, 1 damaged input, 2 usage or unreadable "
	    "file.\nSee mct-group(1) and mct(7).\n");
	exit(mct_finish(MCT_EXIT_OK));
}

static int
is_bytes_field(const char *text)
{
	return strstr(text, "bytes") != NULL || strstr(text, "size") != NULL;
}


/* How an aggregate reads for people: a time, bytes, or a number. */
static void
agg_kind(const struct opts *o, struct mct_agg *a)
{
	switch (a->kind) {
	case MCT_A_COUNT:
	case MCT_A_SHARE:
		a->time = 0;
		break;
	case MCT_A_FIRST:
	case MCT_A_LAST:
		a->time = 1;
		break;
	case MCT_A_SUMF: case MCT_A_MINF: case MCT_A_MAXF: case MCT_A_MEANF:
		a->time = mct_field_time(&o->t.xf[a->x]);
		break;
	default:
		a->time = o->vtime;
	}
	a->bytes = a->kind >= MCT_A_SUMF ? is_bytes_field(o->t.xf[a->x].text) :
	    a->kind != MCT_A_COUNT && is_bytes_field(o->value.text);
}

/* Parse -a LIST. */
static void
parse_aggs(struct opts *o, const char *list)
{
	char *s = mct_xstrdup(list), *tok, *save = NULL;
	struct mct_agg a;

	for (tok = strtok_r(s, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (mct_agg_parse(&o->t, tok, &a) != 0) {
			warnx("-a: unknown aggregate '%s' (want count total share "
			    "mean median min max stddev pN first last, or sum: "
			    "min: max: mean: and a field)", tok);
			mct_usage_hint();
		}
		agg_kind(o, &a);
		o->agg = mct_xrealloc(o->agg, (size_t)(o->nagg + 1) *
		    sizeof(*o->agg));
		o->agg[o->nagg++] = a;
	}
	free(s);
	if (o->nagg == 0) {
		warnx("-a: no aggregates");
		mct_usage_hint();
	}
}

/* --sort: a --by field (A to Z), else any aggregate (largest first). */
static void
parse_sort(struct opts *o, const char *text)
{
	int i;

	for (i = 0; i < o->nby; i++)
		if (strcmp(text, o->by[i].text) == 0) {
			o->order.by = i;
			return;
		}
	o->order.by = -1;
	if (mct_agg_parse(&o->t, text, &o->order.agg) != 0) {
		warnx("--sort: '%s' is neither a --by field nor an aggregate",
		    text);
		mct_usage_hint();
	}
}

/* One event into its group (lib/group.c makes the key from --by). */
static void
add(struct opts *o, struct mct_event *ev)
{
	mct_gtab_event(&o->t, ev, o->by, o->nby, o->missing, &o->kbuf);
}

/* The group's key as JSON members: paths nested back, virtual fields flat. */
static void
key_json(struct opts *o, const struct mct_group *g, struct mct_buf *b)
{
	mct_cell_json(g, o->by, o->nby, b);
}

/* Write one row: a group, the others, or the total. */
static void
row(void *arg, struct mct_group *g, const char *label)
{
	struct opts *o = arg;
	struct mct_buf line = { 0 }, t = { 0 };
	struct mct_event ev;
	const char **added;
	int i, has_name = 0;

	if (o->out.fmt == MCT_O_NDJSON) {
		mct_buf_addc(&line, '{');
		if (o->name) {
			mct_buf_adds(&line, "\"table\":");
			mct_buf_addjstr(&line, o->name, strlen(o->name));
			mct_buf_addc(&line, ',');
		}
		if (label) {
			mct_buf_adds(&line, "\"name\":");
			mct_buf_addjstr(&line, label, strlen(label));
			has_name = 1;
		} else
			key_json(o, g, &line);
		for (i = 0; i < o->nby; i++)
			if (!mct_field_virtual(&o->by[i]) && o->by[i].nseg == 1 &&
			    strcmp(o->by[i].seg[0], "name") == 0)
				has_name = 1;
		for (i = 0; i < o->nagg; i++) {
			if (line.p[line.len - 1] != '{' &&
			    line.p[line.len - 1] != ',')
				mct_buf_addc(&line, ',');
			mct_buf_addjstr(&line, o->agg[i].text,
			    strlen(o->agg[i].text));
			mct_buf_addc(&line, ':');
			mct_cell_agg(&o->t, g, &o->agg[i], &o->out,
			    &line);
		}
		if (!has_name) {
			/* a name for the viewer: the key's text */
			mct_buf_adds(&line, ",\"name\":");
			for (i = 0; i < o->nby; i++) {
				if (i)
					mct_buf_addc(&t, ' ');
				mct_cell_text(g, i, &t);
			}
			mct_buf_addjstr(&line, t.p ? t.p : "", t.len);
		}
		if (g->span) {
			mct_buf_adds(&line, ",\"ph\":\"X\",\"ts\":");
			mct_buf_addi(&line, g->first);
			mct_buf_adds(&line, ",\"dur\":");
			mct_buf_addi(&line, mct_sat_sub(g->last, g->first));
		}
		mct_buf_addc(&line, '}');
		/*
		 * A --by field of the name of a key added after the fields
		 * (count, name, ph, ts, dur) stands once: the added one, the
		 * value every reader took when both were written.
		 */
		added = mct_xmalloc(((size_t)o->nagg + 5) * sizeof(*added));
		for (i = 0; i < o->nagg; i++)
			added[i] = o->agg[i].text;
		added[i++] = "name";
		added[i++] = "ph";
		added[i++] = "ts";
		added[i++] = "dur";
		added[i] = NULL;
		mct_keep_last(&line, 0, added);
		free(added);
		mct_event_init(&ev, line.p, line.len, NULL);
		mct_out_event(&o->out, &ev);
		mct_event_free(&ev);
		mct_buf_free(&line);
		mct_buf_free(&t);
		return;
	}
	/* tsv, csv, table: cells of text */
	for (i = 0; i < o->nby; i++) {
		size_t n;
		const char *p;

		if (i)
			mct_buf_addc(&line, '\037');
		if (label) {
			if (i == 0)
				mct_buf_adds(&line, label);
			continue;
		}
		/* missing and null: an empty cell */
		if ((p = mct_group_part(g, i, &n)) != NULL &&
		    (n != 4 || memcmp(p, "null", 4) != 0))
			mct_cell_text(g, i, &line);
	}
	for (i = 0; i < o->nagg; i++) {
		mct_buf_addc(&line, '\037');
		mct_cell_agg(&o->t, g, &o->agg[i], &o->out, &line);
	}
	mct_out_row(&o->out, line.p, line.len);
	mct_buf_free(&line);
}

static void
report(struct opts *o)
{
	int j;

	if (o->out.fmt != MCT_O_NDJSON) {
		struct mct_buf h = { 0 };

		for (j = 0; j < o->nby; j++) {
			if (j)
				mct_buf_addc(&h, '\037');
			mct_buf_adds(&h, o->by[j].text);
		}
		for (j = 0; j < o->nagg; j++) {
			mct_buf_addc(&h, '\037');
			mct_buf_adds(&h, o->agg[j].text);
		}
		if (o->out.header || mct_out_human(&o->out))
			mct_out_row(&o->out, h.p, h.len);
		mct_buf_free(&h);
	}
	mct_gtab_report(&o->t, &o->order, o->top,
	    o->total_row || mct_out_human(&o->out), row, o);
}

static int
options(int argc, char *argv[], struct opts *o, struct mct_opts *mo)
{
	const struct mct_flag flags[] = { { 'r', &o->order.reverse },
	    { OPT_META, &o->meta }, { OPT_MISSING, &o->missing },
	    { OPT_TOTAL, &o->total_row }, { OPT_MERGE, &o->merge },
	    { OPT_ALLOW_REPEAT, &o->ps.repeat_ok }, { 0, NULL } };
	struct mct_cli c = { .usage = usage, .flags = flags, .out = &o->out,
	    .mo = mo, .own = "partial", .no_trace = 1, .tty_table = 1 };
	int ch;

	while ((ch = mct_cli_getopt(&c, argc, argv, "a:hk:n:o:rs:u:V",
	    longopts)) != -1) {
		switch (ch) {
		case 'a':
			o->aggs_text = optarg;
			break;
		case 'k':
			o->by_text = optarg;
			o->by_given = 1;
			break;
		case 'n':
			o->top = mct_opt_count("--top", optarg, 1);
			break;
		case 's':
			o->sort = optarg;
			break;
		case OPT_VALUE:
			o->value_text = optarg;
			o->value_given = 1;
			break;
		case OPT_TABLE:
			o->tables = mct_xgrow(o->tables, o->ntables,
			    sizeof(*o->tables));
			o->tables[o->ntables++] = optarg;
			break;
		case OPT_STEP_NAME:
			o->step_name = optarg;
			break;
		case OPT_EXACT_LIMIT:
			o->limit = (size_t)mct_opt_count("--exact-limit", optarg, 0);
			break;
		default:
			usage(2);
		}
	}
	o->partial = c.own_fmt;
	return optind;
}

/* --by, --value, -a, --sort: after a merge has read what its partials group. */
static void
setup_fields(struct opts *o)
{
	mct_opt_fields("--by", o->by_text, &o->by, &o->nby);
	mct_opt_field("--value", o->value_text, &o->value);
}

static void
setup(struct opts *o)
{
	int between;

	setup_fields(o);
	o->vtime = mct_field_time(&o->value);
	/* no -a: the default of the value */
	between = o->aggs_text == NULL && mct_field_between(&o->value);
	parse_aggs(o, o->aggs_text ? o->aggs_text : between ? BETWEEN_AGGS :
	    DEFAULT_AGGS);
	parse_sort(o, o->sort ? o->sort : between ? "median" : "total");
}

static int
uses_category(const struct opts *o)
{
	return mct_rules_fields(o->by, o->nby) ||
	    mct_rules_fields(&o->value, 1) ||
	    mct_rules_fields(o->t.xf, o->t.nx);
}

/* The spec of the partial this run writes. */
static void
spec(struct opts *o)
{
	int i;

	o->ps.nby = o->nby;
	o->ps.by = mct_xmalloc((size_t)(o->nby + 1) * sizeof(*o->ps.by));
	for (i = 0; i < o->nby; i++)
		o->ps.by[i] = mct_xstrdup(o->by[i].text);
	o->ps.value = mct_xstrdup(o->value.text);
	o->ps.set = 1;
	o->ps.missing = o->missing;
	o->ps.meta = o->meta;
}

/* A table that reads events: its options set, its fields watched. */
static void
ready(struct opts *o)
{
	int i;

	setup(o);
	/* no median, percentile or deviation to give: no value kept */
	o->t.novals = !o->t.needvals && !o->partial;
	o->t.countvals = !o->partial;	/* (a partial lists its values) */
	if (uses_category(o) && mct_rules_need() != 0)
		exit(MCT_EXIT_USAGE);
	for (i = 0; i < o->nby; i++)
		mct_seen_add(&o->seen, &o->by[i], "--by");
	if (o->value_given)
		mct_seen_add(&o->seen, &o->value, "--value");
}

/* Does the table group by the field step? */
static int
by_step(const struct opts *o)
{
	int i;

	for (i = 0; i < o->nby; i++)
		if (o->by[i].nseg == 1 && strcmp(o->by[i].seg[0], "step") == 0)
			return 1;
	return 0;
}

/*
 * The first read, for the field step: every event of the files seen
 * (their step annotations and launches kept).  Quiet: the second read
 * says what is wrong.  Only of files that can be read again (regular
 * ones); else NULL, and the events have the step they carry.
 */
static struct mct_stepof *
first_read(const char *name, int argc, char *argv[], struct mct_opts *mo)
{
	struct mct_stepof *f;
	struct mct_reader *r;
	struct mct_event *ev;
	struct stat sb;
	int i, fd;

	if (argc == 0)
		return NULL;
	for (i = 0; i < argc; i++)
		if (strcmp(argv[i], "-") == 0 || stat(argv[i], &sb) != 0 ||
		    !S_ISREG(sb.st_mode))
			return NULL;
	f = mct_stepof_new(name);
	fflush(stderr);
	if ((fd = dup(STDERR_FILENO)) < 0)
		err(MCT_EXIT_USAGE, "dup");
	i = open("/dev/null", O_WRONLY);
	if (i >= 0 && i != STDERR_FILENO) {
		dup2(i, STDERR_FILENO);
		close(i);
	}
	r = mct_open(argc, argv, mo);
	while (mct_next(r, &ev))
		mct_stepof_see(f, ev);
	(void)mct_close(r);
	fflush(stderr);
	dup2(fd, STDERR_FILENO);
	close(fd);
	return f;
}

/* The event, with "step": N added if it has no step of its own. */
static struct mct_event *
stepped(struct opts *o, struct mct_event *ev)
{
	struct mct_val v;
	int64_t n;

	if (o->steps == NULL || mct_get_key(ev, "step", &v) == 0 ||
	    (n = mct_stepof(o->steps, ev)) < 0)
		return ev;
	o->sbuf.len = 0;
	mct_buf_add(&o->sbuf, ev->json, ev->len - 1);	/* up to the } */
	if (ev->len > 2)
		mct_buf_addc(&o->sbuf, ',');
	mct_buf_adds(&o->sbuf, "\"step\":");
	mct_buf_addi(&o->sbuf, n);
	mct_buf_addc(&o->sbuf, '}');
	o->sev.file = ev->file;
	o->sev.hdr = ev->hdr;
	o->sev.source = ev->source;
	o->sev.where = ev->where;
	o->sev.byline = ev->byline;
	mct_event_set(&o->sev, o->sbuf.p, o->sbuf.len);
	return &o->sev;
}

/* Events in: the table of one run (or the partial of it). */
static int
from_events(struct opts *o, int argc, char *argv[], struct mct_opts *mo)
{
	struct mct_reader *r;
	struct mct_event *ev;

	ready(o);
	if (by_step(o))
		o->steps = first_read(o->step_name, argc, argv, mo);
	r = mct_open(argc, argv, mo);
	o->hdr = o->t.hdr = mct_header(r);
	while (mct_next(r, &ev))
		if (o->meta || !mct_is_meta(ev)) {
			ev = stepped(o, ev);
			mct_seen_event(&o->seen, ev);
			add(o, ev);
		}
	mct_seen_end(&o->seen);
	if (o->partial) {
		spec(o);
		mct_partial_cover_of(&o->ps, o->hdr);
		if (o->hdr->nread > 0)
			mct_partial_write(&o->t, &o->ps, o->limit);
	} else {
		mct_out_begin(&o->out, o->hdr);
		report(o);
		mct_out_end(&o->out);
	}
	return mct_close(r);
}

/*
 * A table's own options, the parts of its spec after the first ';':
 * top=N, o=FORMAT (table, tsv, csv or md: a table in a format of its
 * own among the others, none of them ndjson), and where=EXPR, which
 * takes the rest of the spec.
 */
static void
table_opts(struct opts *o, const char *spec, char *p)
{
	char *next;

	for (;; p = next) {
		if (strncmp(p, "where=", 6) == 0) {
			o->where = mct_opt_expr("--table where=", p + 6);
			if (mct_rules_expr(o->where) && mct_rules_need() != 0)
				exit(MCT_EXIT_USAGE);
			return;
		}
		if ((next = strchr(p, ';')) != NULL)
			*next++ = '\0';
		if (strncmp(p, "top=", 4) == 0)
			o->top = mct_opt_count("--table top=", p + 4, 1);
		else if (strncmp(p, "o=", 2) == 0) {
			if (mct_out_parse(p + 2, &o->out.fmt) != 0 ||
			    o->out.fmt == MCT_O_NDJSON ||
			    o->out.fmt == MCT_O_TRACE) {
				warnx("--table o=: unknown format '%s' in '%s' "
				    "(want table, tsv, csv or md)", p + 2, spec);
				mct_usage_hint();
			}
		} else {
			warnx("--table: unknown part '%s' in '%s' (want top=N, "
			    "o=FORMAT or where=EXPR)", p, spec);
			mct_usage_hint();
		}
		if (next == NULL)
			return;
	}
}

/* One --table SPEC, BY[:VALUE[:AGGS]][;top=N][;where=EXPR], as a table. */
static void
table_spec(struct opts *o, const char *spec)
{
	char *by = mct_xstrdup(spec), *value, *aggs = NULL, *opts;

	o->name = spec;
	if ((opts = strchr(by, ';')) != NULL) {
		*opts++ = '\0';
		table_opts(o, spec, opts);
	}
	if ((value = strchr(by, ':')) != NULL) {
		*value++ = '\0';
		if ((aggs = strchr(value, ':')) != NULL)
			*aggs++ = '\0';
	}
	o->by_text = *by ? by : "name";
	o->value_given = value && *value;
	o->value_text = o->value_given ? value : "dur";
	o->aggs_text = aggs && *aggs ? aggs : NULL;
}

/*
 * --table: several tables of one read, each as a run of its own --by,
 * --value and -a; the other options are every table's.  In ndjson each
 * row names its table first ("table": SPEC); in the other formats each
 * table follows a heading of its SPEC ("### SPEC" in md, "# SPEC" in the
 * others: a table's own, where o= gives it one), a blank line between
 * two tables.
 */
static int
from_tables(struct opts *base, int argc, char *argv[], struct mct_opts *mo)
{
	struct opts *tab;
	struct mct_reader *r;
	struct mct_event *ev;
	const struct mct_header *hdr;
	struct mct_buf h = { 0 };
	int k, n = base->ntables, missing = 0;

	if (base->by_given || base->value_given || base->aggs_text ||
	    base->partial || base->merge) {
		warnx("--table: not with --by, --value, -a, -o partial or "
		    "--merge (a table's own are in its --table)");
		mct_usage_hint();
	}
	tab = mct_xmalloc((size_t)n * sizeof(*tab));
	for (k = 0; k < n; k++) {
		struct opts *o = &tab[k];

		*o = *base;	/* -n, --sort, -o and the rest: every table's */
		memset(&o->t, 0, sizeof(o->t));
		o->t.value = &o->value;
		memset(&o->kbuf, 0, sizeof(o->kbuf));
		memset(&o->seen, 0, sizeof(o->seen));
		table_spec(o, base->tables[k]);
		if (o->out.fmt != base->out.fmt &&
		    base->out.fmt == MCT_O_NDJSON) {
			warnx("--table '%s': a format of its own, but the "
			    "output is ndjson (want -o table, tsv, csv or md)",
			    o->name);
			mct_usage_hint();
		}
		ready(o);
		if (o->where != NULL) {	/* (what outlives the seen) */
			size_t m = strlen(o->name) + sizeof("--table ''");
			char *what = mct_xmalloc(m);

			snprintf(what, m, "--table '%s'", o->name);
			mct_seen_where(&o->wseen, &o->wown, o->where, what);
		}
		if (by_step(o) && base->steps == NULL)
			base->steps = first_read(base->step_name, argc, argv,
			    mo);
	}
	r = mct_open(argc, argv, mo);
	hdr = mct_header(r);
	for (k = 0; k < n; k++)
		tab[k].hdr = tab[k].t.hdr = hdr;
	while (mct_next(r, &ev)) {
		ev = stepped(base, ev);
		for (k = 0; k < n; k++) {
			struct opts *o = &tab[k];

			if (!o->meta && mct_is_meta(ev))
				continue;
			if (o->where != NULL) {
				mct_seen_event(&o->wseen, ev);
				mct_seen_event(&o->wown, ev);
				if (!mct_expr_eval(o->where, ev, hdr))
					continue;
			}
			mct_seen_event(&o->seen, ev);
			add(o, ev);
		}
	}
	for (k = 0; k < n; k++) {
		if (tab[k].where != NULL) {
			mct_seen_end(&tab[k].wown);
			missing += mct_seen_end(&tab[k].wseen);
		}
		mct_seen_end(&tab[k].seen);
	}
	if (base->out.fmt == MCT_O_NDJSON) {
		/* one stream: the header once, the tables' rows after it */
		mct_out_begin(&tab[0].out, hdr);
		for (k = 0; k < n; k++) {
			if (k)
				tab[k].out = tab[0].out;	/* its state too */
			report(&tab[k]);
		}
		mct_out_end(&tab[0].out);
	} else
		for (k = 0; k < n; k++) {
			if (hdr->nread > 0) {
				h.len = 0;
				mct_buf_adds(&h, k ? "\n" : "");
				mct_buf_adds(&h, tab[k].out.fmt == MCT_O_MD ?
				    "### " : "# ");
				mct_buf_adds(&h, tab[k].name);
				mct_buf_adds(&h, tab[k].out.fmt == MCT_O_MD ?
				    "\n\n" : "\n");
				mct_write(h.p, h.len);
			}
			mct_out_begin(&tab[k].out, hdr);
			report(&tab[k]);
			mct_out_end(&tab[k].out);
		}
	mct_buf_free(&h);
	return mct_status(mct_close(r), missing ? MCT_EXIT_USAGE :
	    MCT_EXIT_OK);
}

/* A list of field texts, as --by takes it. */
static char *
join(char **v, int n)
{
	struct mct_buf b = { 0 };
	int i;

	for (i = 0; i < n; i++) {
		if (i)
			mct_buf_addc(&b, ',');
		mct_buf_adds(&b, v[i]);
	}
	mct_buf_addc(&b, '\0');
	return b.p;
}

/*
 * Partials in: every file merged into the table, whose --by and --value
 * are the partials' (given ones must agree).  A partial that cannot be
 * read or does not match ends the run at once, with nothing written: a
 * merge without it would be a wrong table.
 */
static int
from_partials(struct opts *o, int argc, char *argv[])
{
	static struct mct_header hdr;
	static char dash[] = "-", *stdin_only[] = { dash, NULL };
	int i, nx, status = MCT_EXIT_OK;

	if (argc == 0) {
		argc = 1;
		argv = stdin_only;
	}
	o->ps.repeat_opt = 1;
	if (o->by_given || o->value_given) {
		/* what the user named must be what the partials group */
		setup_fields(o);
		spec(o);
		for (i = 0; i < o->nby; i++)
			mct_field_free(&o->by[i]);
		free(o->by);
		mct_field_free(&o->value);
		o->by = NULL;
		o->nby = 0;
	}
	for (i = 0; i < argc && status != MCT_EXIT_USAGE; i++)
		status = mct_status(status,
		    mct_partial_read(&o->t, &o->ps, argv[i], o->limit));
	if (status == MCT_EXIT_USAGE)
		exit(MCT_EXIT_USAGE);
	o->by_text = join(o->ps.by, o->ps.nby);
	o->value_text = o->ps.value;
	nx = o->t.nx;
	setup(o);
	if (o->t.nx != nx) {
		warnx("the partials have no field %s (write them with -a "
		    "sum:%s or its kin)", o->t.xf[nx].text, o->t.xf[nx].text);
		exit(MCT_EXIT_USAGE);
	}
	mct_partial_header(&o->ps, &hdr);
	o->hdr = o->t.hdr = &hdr;
	if (o->partial)
		mct_partial_write(&o->t, &o->ps, o->limit);
	else {
		mct_out_begin(&o->out, o->hdr);
		report(o);
		mct_out_end(&o->out);
	}
	return status;
}

int
main(int argc, char *argv[])
{
	struct opts o = { .out = { .header = 1 }, .t = { .value = &o.value },
	    .limit = MCT_EXACT_LIMIT, .by_text = "name", .value_text = "dur" };
	struct mct_opts mo = { .unit = MCT_UNIT_AUTO };
	int n;

	mct_records_register();	/* the times of the tools' records */
	n = options(argc, argv, &o, &mo);
	argc -= n;
	argv += n;
	return mct_finish(o.ntables ? from_tables(&o, argc, argv, &mo) :
	    o.merge ? from_partials(&o, argc, argv) :
	    from_events(&o, argc, argv, &mo));
}
