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
 * are not communication, comm the union of those that are, memory the
 * union of the copies and memsets, kernel that of the rest (a second bit
 * says memory); exposed communication is what of comm no compute
 * covers, busy - compute.  The
 * steady rounds are those mct-phases finds (lib/phases.c) in the rank's
 * calls.  Collectives pair by name and order: the n-th call of a
 * communication kernel on every rank is one collective.
 *
 * -o partial writes, instead of the tables, each rank's figures and its
 * collective calls (lib/rankpart.c); --merge reads such partials in place
 * of events and fills the ranks from them, measured already.
 *
 * The files (a tool past ~1,000 lines keeps its engine in files of its
 * own: tools/mct-TOOL.c the command line, tools/TOOL-JOB.c the engine, a
 * file a job, tools/mct-TOOL.h what they share):
 *
 *   mct-ranks.c      the command line: usage(), options(), main()
 *   ranks-measure.c  the events read, each rank's calls measured
 *   ranks-report.c   the output: the rank table, the collectives
 *   ranks-partial.c  -o partial and --merge
 *   mct-ranks.h      the state (struct opts) and the functions they share
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
#include "mct-ranks.h"

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
	MCT_LONGOPT_WIDTH,
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
	    "communication,\nexposed communication, idle, steady rounds, "
	    "kernels and memory (copies,\nmemsets) apart, each beside the "
	    "median rank, and the straggler.\n\n"
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
	    "      --width N         cut table and md cells wider than N "
	    "characters\n"
	    "                        (default 60; 0: never)\n"
	    "  -u, --unit UNIT       unit of a trace read directly: auto "
	    "(default), ns, us,\n"
	    "                        ms, s\n"
	    "  -h, --help            show this help and exit\n"
	    "  -V, --version         show the version and exit\n\n"
	    "Exit status: 0 success, 1 damaged input, 2 usage or unreadable "
	    "file.\nSee mct-ranks(1) and mct(7).\n");
	exit(mct_finish(MCT_EXIT_OK));
}

static int
options(int argc, char *argv[], struct opts *o, struct mct_opts *mo)
{
	const struct mct_flag flags[] = { { OPT_COLLECTIVES, &o->collectives },
	    { OPT_MERGE, &o->merge }, { 0, NULL } };
	struct mct_cli c = { .usage = usage, .flags = flags, .out = &o->out,
	    .mo = mo, .own = "partial", .no_trace = 1, .tty_table = 1 };
	const char *key = DEFAULT_KEY;
	int ch;

	while ((ch = mct_cli_getopt(&c, argc, argv, "hk:o:u:V",
	    longopts)) != -1) {
		switch (ch) {
		case 'k':
			key = o->opt[MCT_RP_KEY] = optarg;
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
