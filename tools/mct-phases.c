/*
 * mct-phases - where the time went, in order: the timeline in phases, and
 * what the host did in every idle gap of the device.
 *
 * The method, in plain words (mct-phases(1) says it for users):
 *
 * 1. Every device event (--device; by default the X events on device
 *    lanes) is kept as a small struct (start, length, signature); X
 *    events on host lanes go to a spool file as (start, length, name).
 * 2. For each signature, its calls in time order are split into runs
 *    wherever the pause between two calls is more than --split times the
 *    signature's median pause.  A run of at least --min-rounds calls that
 *    holds at least --min-share of all device time is a candidate for a
 *    steady phase: a stretch of repeated rounds.
 * 3. Candidates are taken heaviest first.  One that covers (both ways, by
 *    --overlap) an accepted phase joins it as another anchor; one that
 *    overlaps it only in part is dropped; one that overlaps none becomes a
 *    phase.  A phase runs from the first start to the last end of its
 *    anchors' runs; its rounds are its heaviest anchor's calls.
 * 4. Calls of the anchors' names outside every steady phase are one-off
 *    cases (warmup, functional checks): calls less than --join apart (by
 *    default 1% of the device span) form one warmup phase.
 * 5. What lies before the first phase is init, between two phases a
 *    switch, after the last one the tail.  Where the profiler annotated
 *    the training steps (ProfilerStep#N), they are the rounds instead
 *    (mct_phases_steps()); a switch shorter than --min-switch joins the phase
 *    before it (mct_phases_merge_switches()).
 * 6. Gaps are the stretches longer than --gap T in which no device event
 *    runs (busy time is the union of the device intervals); for each, the
 *    host names with the most time in it, each moment going to the
 *    innermost host event of its lane (leaf ops, not enclosing frames).
 *
 * In the code: step 1 is add(); mct_phases_find() (lib/phases.c) does
 * steps 2 to 5 by find_runs(), take_steady(), find_warmups() and
 * fill_between(); step 6 is find_gaps(); report() writes it all out.
 *
 * The files (a tool past ~1,000 lines keeps its engine in files of its
 * own: tools/mct-TOOL.c the command line, tools/TOOL-JOB.c the engine, a
 * file a job, tools/mct-TOOL.h what they share):
 *
 *   mct-phases.c     the command line: usage(), options(), main(), and
 *                    by_rank(), each rank cut and reported on its own
 *   phases-cut.c     steps 1 to 6: the events read, the phases, the gaps
 *   phases-report.c  the output: report()
 *   mct-phases.h     the state (struct opts) and the functions they share
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
#include "mct-phases.h"

#define DEFAULT_KEY	"name,args.grid,args.block"

enum { OPT_DEVICE = MCT_OPT_TOOL, OPT_GAP, OPT_GAPS, OPT_JOIN,
    OPT_MIN_ROUNDS, OPT_MIN_SHARE, OPT_MIN_SWITCH, OPT_ONLY_GAPS, OPT_OVERLAP,
    OPT_SPLIT };

static const struct option longopts[] = {
	{ "device",	required_argument,	NULL, OPT_DEVICE },
	{ "gap",	required_argument,	NULL, OPT_GAP },
	{ "gaps",	no_argument,		NULL, OPT_GAPS },
	MCT_LONGOPT_HELP,
	{ "join",	required_argument,	NULL, OPT_JOIN },
	{ "key",	required_argument,	NULL, 'k' },
	{ "min-rounds",	required_argument,	NULL, OPT_MIN_ROUNDS },
	{ "min-share",	required_argument,	NULL, OPT_MIN_SHARE },
	{ "min-switch",	required_argument,	NULL, OPT_MIN_SWITCH },
	MCT_LONGOPT_NO_HEADER,
	{ "only-gaps",	no_argument,		NULL, OPT_ONLY_GAPS },
	MCT_LONGOPT_OUTPUT,
	{ "overlap",	required_argument,	NULL, OPT_OVERLAP },
	MCT_LONGOPT_PAIR_BE,
	MCT_LONGOPT_RULES,
	{ "split",	required_argument,	NULL, OPT_SPLIT },
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
		fprintf(stderr, "usage: mct-phases [-hV] [-k key] [-o format] "
		    "[-u unit] [--gaps] [--gap T] [file ...]\n");
		mct_usage_hint();
	}
	printf("usage: mct-phases [-hV] [-k key] [-o format] [-u unit] "
	    "[--gaps] [--gap T] [file ...]\n"
	    "Cut the device timeline into phases (init, warmup, steady rounds, "
	    "switch,\ntail) and find the idle gaps, with what the host did "
	    "in each.\n\n"
	    "  -k, --key FIELDS      a call's signature (default " DEFAULT_KEY
	    ")\n"
	    "      --device EXPR     which events are device work (default: "
	    "the device\n"
	    "                        lanes of mct(7): kernels, copies and "
	    "memsets of every\n"
	    "                        producer)\n"
	    "      --gaps            also list the idle gaps of the device\n"
	    "      --only-gaps       list the gaps only\n"
	    "      --gap T           a gap is longer than T (default: 1%% of the "
	    "device\n"
	    "                        span, at least 1ms)\n"
	    "      --min-rounds N    a steady phase repeats at least N times "
	    "(default 3)\n"
	    "      --min-share P     its calls hold P%% of device time (default "
	    "1)\n"
	    "      --min-switch T    a shorter switch joins the phase before it\n"
	    "                        (default: 1%% of the median round)\n"
	    "      --split X         a pause over X times the median ends a run "
	    "(default 5)\n"
	    "      --overlap P       runs covering each other by P%% share a "
	    "phase\n"
	    "                        (default 80)\n"
	    "      --join T          one-off calls closer than T form one warmup\n"
	    "                        (default: 1%% of the device span)\n"
	    "      --rules FILE      the rules file, for category in --key or "
	    "--device\n"
	    "      --pair-be         each matched B/E pair of a thread as one X "
	    "event\n"
	    "  -o, --output FORMAT   table (default on a terminal), ndjson "
	    "(default\n"
	    "                        otherwise), tsv, csv, md (Markdown), trace\n"
	    "                        (events for a track)\n"
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
	    "Exit status: 0 success, 1 damaged input, 2 usage or unreadable "
	    "file.\nSee mct-phases(1) and mct(7).\n");
	exit(mct_finish(MCT_EXIT_OK));
}

static int
options(int argc, char *argv[], struct opts *o, struct mct_opts *mo)
{
	const struct mct_flag flags[] = { { OPT_GAPS, &o->gaps }, { 0, NULL } };
	struct mct_cli c = { .usage = usage, .flags = flags, .out = &o->out,
	    .mo = mo, .tty_table = 1 };
	const char *key = DEFAULT_KEY;
	int ch;

	while ((ch = mct_cli_getopt(&c, argc, argv, "hk:o:u:V",
	    longopts)) != -1) {
		switch (ch) {
		case 'k':
			key = optarg;
			break;
		case OPT_DEVICE:
			o->device = mct_opt_expr("--device", optarg);
			break;
		case OPT_GAP:
			o->gapmin = mct_opt_dur("--gap", optarg, 1, "100ms, 1s");
			o->gaps = 1;
			break;
		case OPT_MIN_SWITCH:
			o->minswitch = mct_opt_dur("--min-switch", optarg, 0,
			    "10us, 1ms");
			break;
		case OPT_JOIN:
			o->m.join = mct_opt_dur("--join", optarg, 0, "1s, 500ms");
			break;
		case OPT_MIN_ROUNDS:
			o->m.min_rounds = (int)mct_opt_num("--min-rounds",
			    optarg, 2, 1e9);
			if (strspn(optarg, "0123456789") != strlen(optarg)) {
				warnx("--min-rounds: invalid number '%s' (want a "
				    "whole number from 2)", optarg);
				mct_usage_hint();
			}
			break;
		case OPT_MIN_SHARE:
			o->m.min_share = mct_opt_num("--min-share", optarg, 0,
			    100);
			break;
		case OPT_ONLY_GAPS:
			o->gaps = o->only_gaps = 1;
			break;
		case OPT_OVERLAP:
			o->m.overlap = mct_opt_num("--overlap", optarg, 1, 100);
			break;
		case OPT_SPLIT:
			o->m.split = mct_opt_num("--split", optarg, 1.01, 1e9);
			break;
		default:
			usage(2);
		}
	}
	mct_opt_fields("--key", key, &o->key, &o->nkey);
	if (o->out.fmt == MCT_O_TRACE) {
		/* events for a track of their own, to wrap beside the trace */
		o->track = 1;
		o->out.fmt = MCT_O_NDJSON;
	}
	return optind;
}

static int
cmp_rankix(const void *a, const void *b, void *arg)
{
	const int64_t *rank = arg;
	int x = *(const int *)a, y = *(const int *)b;

	return rank[x] < rank[y] ? -1 : rank[x] > rank[y];
}

/*
 * Several ranks: the calls grouped by rank (a counting sort, stable),
 * then each rank cut into phases and reported on its own, by rank.  With
 * rk->of NULL they are all the first rank's, grouped already.
 */
static void
by_rank(struct opts *o)
{
	struct ranks *rk = &o->rk;
	struct mct_call *all = o->dev;
	size_t *at = mct_xmalloc(((size_t)rk->n + 1) * sizeof(*at)), i;
	int *order = mct_xmalloc((size_t)rk->n * sizeof(*order)), k, p;

	memset(at, 0, ((size_t)rk->n + 1) * sizeof(*at));
	for (k = 0; k < rk->n; k++)
		order[k] = k;
	if (rk->of != NULL) {
		all = mct_xmalloc((o->ndev + 1) * sizeof(*all));
		for (i = 0; i < o->ndev; i++)
			at[rk->of[i] + 1]++;
		for (k = 0; k < rk->n; k++)
			at[k + 1] += at[k];
		for (i = 0; i < o->ndev; i++)
			all[at[rk->of[i]]++] = o->dev[i];
		free_dev(o);
	} else
		for (k = 0; k < rk->n; k++)
			at[k] = o->ndev;	/* all the first's */
	mct_sort_r(order, (size_t)rk->n, sizeof(*order), cmp_rankix, rk->rank);
	for (k = 0; k < rk->n; k++) {
		int j = order[k];
		size_t end = at[j], n = end - (j > 0 ? at[j - 1] : 0);

		/* at[j] is the end of rank j's calls now */
		o->dev = all + end - n;
		o->ndev = n;
		o->tend = rk->tend[j];
		rk->cur = j;
		sort_calls(o->dev, o->ndev);
		phases(o);
		if (o->gaps)
			find_gaps(o);
		report(o);
		for (p = 0; p < o->nph; p++)
			free(o->ph[p].anc);
		free(o->ph);
		free(o->gap);
		o->ph = NULL;
		o->gap = NULL;
		o->nph = 0;
		o->ngap = 0;
	}
	o->dev = all;
	o->ndev = 0;
	free(at);
	free(order);
}

int
main(int argc, char *argv[])
{
	struct opts o = { .m = { .min_rounds = 3, .min_share = 1, .split = 5,
	    .overlap = 80, .join = -1 }, .out = { .header = 1 },
	    .minswitch = -1 };
	struct mct_opts mo = { .unit = MCT_UNIT_AUTO };
	struct mct_reader *r;
	struct mct_event *ev;
	int n;

	mct_records_register();	/* the times of the tools' records */
	n = options(argc, argv, &o, &mo);
	argc -= n;
	argv += n;
	if ((mct_rules_fields(o.key, o.nkey) || mct_rules_expr(o.device)) &&
	    mct_rules_need() != 0)
		exit(MCT_EXIT_USAGE);
	if (o.gaps && (o.host = mct_tmpfile(NULL, &o.hostvb)) == NULL)
		exit(MCT_EXIT_USAGE);

	r = mct_open(argc, argv, &mo);
	o.hdr = mct_header(r);
	while (mct_next(r, &ev))
		add(&o, ev);
	o.out.endcut = 1;	/* a phase is its row, not its cells */
	mct_out_begin(&o.out, o.hdr);
	if (o.rk.any)
		by_rank(&o);
	else {
		sort_calls(o.dev, o.ndev);
		o.rk.cur = 0;
		phases(&o);
		if (o.gaps)
			find_gaps(&o);
		report(&o);
	}
	mct_out_end(&o.out);
	return mct_finish(mct_close(r));
}
