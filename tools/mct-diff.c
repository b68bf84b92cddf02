/*
 * mct-diff - two runs compared: what got slower, by how much, and where.
 *
 * Each run (a trace, a stream, or a partial of mct-group -o partial) is
 * read into a group table of its own (lib/group.c) under the same --by
 * key, run A fully, then run B; no event is kept.  A row is a key of
 * either table: its count, total and median in A and in B, and the
 * changes of total and median.  Beside the tables, each run's device
 * calls (the device lanes of lib/device.c) give its summary
 * (lib/runsum.c): span, busy time, steady rounds and their median time.
 * A partial has no events, so its summary is not known.
 *
 * --fail-if is the --where language (lib/expr.c), evaluated on each row
 * as an NDJSON record in ns: a row that meets it makes the exit status 3,
 * for CI gates.  A name that is no column, or a run without events, is a
 * usage error: a gate must not pass because it looked at nothing.
 *
 * The files (a tool past ~1,000 lines keeps its engine in files of its
 * own: tools/mct-TOOL.c the command line, tools/TOOL-JOB.c the engine, a
 * file a job, tools/mct-TOOL.h what they share):
 *
 *   mct-diff.c       the command line: usage(), options(), main()
 *   diff-read.c      a run read into its table, and its summary
 *   diff-report.c    the rows, the tables, the summary, --fail-if
 *   mct-diff.h       the state (struct opts) and the functions they share
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
#include "mct-diff.h"

#define SYNOPSIS	"usage: mct-diff [-hV] [-k fields] [-n top] [-o format] " \
	"[-u unit] [--device]\n" \
	"                [--fail-if expr] [--min-delta time] [--step N | median]\n" \
	"                [--step-name name] [--value field] A B\n"

enum { OPT_DEVICE = MCT_OPT_TOOL, OPT_FAIL_IF, OPT_MIN_DELTA, OPT_VALUE,
    OPT_STEP, OPT_STEP_NAME };

static const struct option longopts[] = {
	{ "by",		required_argument,	NULL, 'k' },
	{ "device",	no_argument,		NULL, OPT_DEVICE },
	{ "fail-if",	required_argument,	NULL, OPT_FAIL_IF },
	MCT_LONGOPT_HELP,
	{ "min-delta",	required_argument,	NULL, OPT_MIN_DELTA },
	MCT_LONGOPT_NO_HEADER,
	MCT_LONGOPT_OUTPUT,
	MCT_LONGOPT_RULES,
	{ "step",	required_argument,	NULL, OPT_STEP },
	{ "step-name",	required_argument,	NULL, OPT_STEP_NAME },
	MCT_LONGOPT_TIME_UNIT,
	{ "top",	required_argument,	NULL, 'n' },
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
		fprintf(stderr, "%s", SYNOPSIS);
		mct_usage_hint();
	}
	printf("%s", SYNOPSIS);
	printf("Compare two runs (traces, streams or mct-group partials): one "
	    "row per key,\nsorted by the change of its total; a summary of "
	    "each run's device first.\n\n"
	    "  -k, --by FIELDS       the key of a row (default name); op, "
	    "module,\n"
	    "                        annotation, stack: device events paired "
	    "with their\n"
	    "                        launches' host stacks (see mct-flow(1))\n"
	    "      --step N          only the device work launched in step N of "
	    "each\n"
	    "                        run, or in its step of median length "
	    "(median)\n"
	    "      --step-name NAME  steps are the annotations NAME#N (default\n"
	    "                        ProfilerStep)\n"
	    "      --value FIELD     the value totalled (default dur)\n"
	    "      --device          only the device work (kernels, copies, "
	    "memsets)\n"
	    "      --fail-if EXPR    exit 3 when a row meets EXPR (the --where "
	    "language\n"
	    "                        over the row's columns), naming the rows "
	    "on stderr\n"
	    "  -n, --top N           only the first N rows\n"
	    "      --min-delta T     only rows whose total changed by T or more\n"
	    "      --rules FILE      the rules file for the field category\n"
	    "  -o, --output FORMAT   table (default on a terminal), ndjson "
	    "(default\n"
	    "                        otherwise), tsv, csv, md (Markdown)\n"
	    "      --no-header       no header line in tsv and csv output\n"
	    "      --width N         cut table and md cells wider than N "
	    "characters\n"
	    "                        (default 60; 0: never)\n"
	    "      --time-unit UNIT  times in tsv/csv/ndjson: ns (default), us, "
	    "ms, s\n"
	    "  -u, --unit UNIT       unit of a trace read directly: auto "
	    "(default), ns, us,\n"
	    "                        ms, s\n"
	    "  -h, --help            show this help and exit\n"
	    "  -V, --version         show the version and exit\n\n"
	    "Columns: the --by fields, count_a count_b total_a total_b "
	    "total_delta\ntotal_pct median_a median_b median_delta median_pct "
	    "only new gone.\n"
	    "Exit status: 0 success, 1 damaged input, 2 usage or unreadable "
	    "file,\n3 a row met --fail-if.  See mct-diff(1) and mct(7).\n");
	exit(mct_finish(MCT_EXIT_OK));
}

/* --fail-if's expression, or a usage error said at its place. */
static struct mct_expr *
fail_if(const char *arg)
{
	struct mct_expr *e;
	char err[512];
	size_t at;

	if ((e = mct_expr_parse_at(arg, 0, err, sizeof(err), &at)) != NULL)
		return e;
	if (arg[at] == '\0')
		warnx("--fail-if: %s at the end of '%s'", err, arg);
	else
		warnx("--fail-if: %s at character %zu of '%s'", err, at + 1,
		    arg);
	mct_usage_hint();
	return NULL;
}

/* --step and --step-name; -1 if ch is neither. */
static int
step_opt(struct opts *o, int ch, const char *arg)
{
	if (ch == OPT_STEP_NAME) {
		o->stepname = arg;
		return 0;
	}
	if (ch != OPT_STEP)
		return -1;
	o->step = strcmp(arg, "median") == 0 ? STEP_MEDIAN : STEP_N;
	if (o->step == STEP_N && (mct_int(arg, strlen(arg), &o->stepn) != 0 ||
	    o->stepn < 0)) {
		warnx("--step: invalid step '%s' (want a step number N of "
		    "NAME#N, or median)", arg);
		mct_usage_hint();
	}
	return 0;
}

static int
options(int argc, char *argv[], struct opts *o, struct mct_opts *mo)
{
	const struct mct_flag flags[] = { { OPT_DEVICE, &o->device },
	    { 0, NULL } };
	struct mct_cli c = { .usage = usage, .flags = flags, .out = &o->out,
	    .mo = mo, .no_trace = 1, .tty_table = 1 };
	int ch;

	while ((ch = mct_cli_getopt(&c, argc, argv, "hk:n:o:u:V",
	    longopts)) != -1) {
		switch (ch) {
		case 'k':
			o->by_text = optarg;
			break;
		case 'n':
			o->top = mct_opt_count("--top", optarg, 1);
			break;
		case OPT_FAIL_IF:
			mct_expr_free(o->fail);
			o->fail = fail_if(optarg);
			break;
		case OPT_MIN_DELTA:
			if (mct_parse_dur(optarg, &o->min_delta) != 0 ||
			    o->min_delta < 0) {
				warnx("--min-delta: invalid time '%s' (want "
				    "e.g. 300us, 1.5ms, 2s)", optarg);
				mct_usage_hint();
			}
			break;
		case OPT_VALUE:
			o->value_text = optarg;
			break;
		default:
			if (step_opt(o, ch, optarg) != 0)
				usage(2);
		}
	}
	if (argc - optind != 2) {
		warnx("two runs to compare, A and B (got %d operand%s)",
		    argc - optind, argc - optind == 1 ? "" : "s");
		mct_usage_hint();
	}
	if (strcmp(argv[optind], "-") == 0 && strcmp(argv[optind + 1], "-") == 0) {
		warnx("A and B cannot both be standard input");
		mct_usage_hint();
	}
	mct_opt_fields("--by", o->by_text, &o->by, &o->nby);
	o->stack = stack_by(o);
	mct_opt_field("--value", o->value_text, &o->value);
	o->vtime = mct_field_time(&o->value);
	if (o->fail)
		mct_expr_fields(o->fail, known, o);
	return optind;
}

int
main(int argc, char *argv[])
{
	struct opts o = { .by_text = "name", .value_text = "dur",
	    .out = { .header = 1 }, .min_delta = -1, .limit = MCT_EXACT_LIMIT,
	    .m = { .min_rounds = 3, .min_share = 1, .split = 5, .overlap = 80,
	    .join = -1 } };
	struct mct_opts mo = { .unit = MCT_UNIT_AUTO };
	struct run *r;
	int n, k, rs, status = MCT_EXIT_OK;

	mct_records_register();	/* the times of the tools' records */
	n = options(argc, argv, &o, &mo);
	if ((mct_rules_fields(o.by, o.nby) || mct_rules_fields(&o.value, 1)) &&
	    mct_rules_need() != 0)
		exit(mct_finish(MCT_EXIT_USAGE));
	for (k = 0; k < 2; k++) {
		r = &o.run[k];
		r->path = argv[n + k];
		r->name = strcmp(r->path, "-") == 0 ? "(stdin)" : r->path;
		r->t.value = &o.value;
		mct_runsum_init(&r->rs, NULL);
		rs = is_partial(r->path) ? read_partial(&o, r) :
		    read_events(&o, r, &mo);
		status = mct_status(status, rs);
		if (r->partial ? r->t.n == 0 : r->events == 0) {
			if (rs != MCT_EXIT_USAGE)	/* else said */
				warnx("%s: run %c has no %s: nothing to "
				    "compare", r->name, 'A' + k, r->partial ?
				    "groups" : "events");
			exit(mct_finish(MCT_EXIT_USAGE));
		}
	}
	rows(&o);
	out_header(&o);
	if (mct_out_human(&o.out))
		summary_table(&o);
	mct_out_begin(&o.out, &o.hdr);
	if (o.out.fmt == MCT_O_NDJSON)
		summary_json(&o);
	table(&o);
	mct_out_end(&o.out);
	/* a regression found in the intact events outranks the damage */
	if (gate(&o) == EXIT_FAIL)
		status = EXIT_FAIL;
	return mct_finish(status);
}
