/*
 * cli.c - the command line: the options the tools share, -h and -V, and
 * strict parsers of option values.
 *
 * A value that does not parse is one message that names the option and
 * quotes the text, then "Try 'mct-x --help' for more information." and
 * exit 2.  Ending the process from lib is the command line's (and
 * util.c's, at the end of main()): so a tool's option loop stays a list
 * of cases.
 *
 * The shared options write where the tool points them: the output's
 * (-o, -F, --meta, --no-header, --time-unit, --width) into its struct
 * mct_out, the reader's (-u, --align, --merge, --pair-be, --progress,
 * --rank) into its struct mct_opts.  Which of them a tool takes is its
 * longopts table and getopt string: what they do not list never comes.
 * mct_cli_getopt() hands the tool only its own options.
 */
#include "config.h"

#include <err.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mct.h"

void
mct_usage_hint(void)
{
	fprintf(stderr, "Try '%s --help' for more information.\n",
	    program_invocation_short_name);
	exit(MCT_EXIT_USAGE);
}

static void
version(void)
{
	printf("%s (%s) %s\n", program_invocation_short_name, PACKAGE_NAME,
	    PACKAGE_VERSION);
	exit(mct_finish(MCT_EXIT_OK));
}

/* --unit's argument (auto ns us ms s), or exit with a message. */
static void
opt_unit(const char *arg, enum mct_unit *u)
{
	if (mct_parse_unit(arg, u) != 0) {
		warnx("--unit: unknown unit '%s' (want auto, ns, us, ms or s)",
		    arg);
		mct_usage_hint();
	}
}

/* --time-unit's argument (ns us ms s), or exit with a message. */
static void
opt_time_unit(const char *arg, enum mct_unit *u)
{
	if (mct_parse_unit(arg, u) != 0 || *u == MCT_UNIT_AUTO) {
		warnx("--time-unit: unknown unit '%s' (want ns, us, ms or s)",
		    arg);
		mct_usage_hint();
	}
}

/* A number option's argument, from lo to hi, or exit with a message. */
double
mct_opt_num(const char *opt, const char *arg, double lo, double hi)
{
	char *end;
	double d = strtod(arg, &end);

	if (*arg == '\0' || *end != '\0' || !(d >= lo && d <= hi)) {
		warnx("%s: invalid number '%s' (want %g to %g)", opt, arg, lo, hi);
		mct_usage_hint();
	}
	return d;
}

/* A whole number option's argument, lo or more, or exit with a message. */
long long
mct_opt_count(const char *opt, const char *arg, long long lo)
{
	char *end;
	long long n = strtoll(arg, &end, 10);

	if (*arg == '\0' || *end != '\0' || n < lo) {
		warnx("%s: invalid number '%s'", opt, arg);
		mct_usage_hint();
	}
	return n;
}

/* --width's argument: cells in human tables; 0 is "never cut" (-1). */
static void
opt_width(const char *arg, int *w)
{
	char *end;
	long n;

	errno = 0;
	n = strtol(arg, &end, 10);
	if (end == arg || *end != '\0' || errno != 0 || n < 0 || n > 100000 ||
	    (n > 0 && n < 2)) {
		warnx("--width: invalid width '%s' (want a number of characters "
		    "from 2, or 0 for no limit)", arg);
		mct_usage_hint();
	}
	*w = n == 0 ? -1 : (int)n;
}

/*
 * A time option's argument (see mct_parse_time()), or exit with a
 * message naming it.  absolute NULL: a time from the origin only.
 */
int
mct_opt_time(const char *opt, const char *arg, int64_t *ns, int *absolute)
{
	int abs0 = 0;

	if ((absolute ? mct_parse_time(arg, ns, absolute) :
	    mct_parse_time(arg, ns, &abs0)) != 0 || (!absolute && abs0)) {
		warnx("%s: invalid time '%s' (want e.g. 26.5s, 300us, 1.5ms%s)",
		    opt, arg, absolute ? ", @123" : "");
		mct_usage_hint();
	}
	return 0;
}

/*
 * A duration option's argument (see mct_parse_dur()), lo or more, or
 * exit with a message that gives examples (eg).
 */
int64_t
mct_opt_dur(const char *opt, const char *arg, int64_t lo, const char *eg)
{
	int64_t ns;

	if (mct_parse_dur(arg, &ns) != 0 || ns < lo) {
		warnx("%s: invalid duration '%s' (want e.g. %s)", opt, arg, eg);
		mct_usage_hint();
	}
	return ns;
}

/* A field option's argument, or exit with a message. */
void
mct_opt_field(const char *opt, const char *arg, struct mct_field *f)
{
	if (mct_field_parse(arg, f) != 0) {
		warnx("%s: invalid field '%s'", opt, arg);
		mct_usage_hint();
	}
}

/* A field list option's argument (a,b,c), or exit with a message. */
void
mct_opt_fields(const char *opt, const char *arg, struct mct_field **f,
    int *n)
{
	if (mct_fields_parse(arg, f, n) != 0) {
		warnx("%s: invalid field list '%s'", opt, arg);
		mct_usage_hint();
	}
}

/* An expression option's argument (the --where language), or exit. */
struct mct_expr *
mct_opt_expr(const char *opt, const char *arg)
{
	struct mct_expr *e;
	char err[512];

	if ((e = mct_expr_parse(arg, 0, err, sizeof(err))) == NULL) {
		warnx("%s: %s in '%s'", opt, err, arg);
		mct_usage_hint();
	}
	return e;
}

/*
 * -o FORMAT.  The message lists the formats the tool takes, in the order
 * of its default: "table, md, ndjson, tsv, csv or partial" for a tool
 * whose output is a table on a terminal, "ndjson, tsv, csv, table, md or
 * trace" for a stream tool.
 */
static void
output(struct mct_cli *c, const char *arg)
{
	const char *w[7];
	struct mct_buf b = { 0 };
	int n = 0, i;

	c->fmt_given = 1;
	if (c->own != NULL && (c->own_fmt = strcmp(arg, c->own) == 0))
		return;
	if (mct_out_parse(arg, &c->out->fmt) == 0 &&
	    !(c->no_trace && c->out->fmt == MCT_O_TRACE))
		return;
	if (c->tty_table) {
		w[n++] = "table";
		w[n++] = "md";
	}
	w[n++] = "ndjson";
	w[n++] = "tsv";
	w[n++] = "csv";
	if (!c->tty_table) {
		w[n++] = "table";
		w[n++] = "md";
	}
	if (!c->no_trace)
		w[n++] = "trace";
	if (c->own != NULL)
		w[n++] = c->own;
	for (i = 0; i < n; i++) {
		if (i)
			mct_buf_adds(&b, i == n - 1 ? " or " : ", ");
		mct_buf_adds(&b, w[i]);
	}
	mct_buf_addc(&b, '\0');
	warnx("-o: unknown format '%s' (want %s)", arg, b.p);
	mct_buf_free(&b);
	mct_usage_hint();
}

/* --rank auto|order|N */
static void
opt_rank(const char *arg, struct mct_opts *mo)
{
	int64_t n;

	if (strcmp(arg, "auto") == 0)
		mo->rank = MCT_RANK_RULES;
	else if (strcmp(arg, "order") == 0)
		mo->rank = MCT_RANK_ORDER;
	else if (mct_int(arg, strlen(arg), &n) == 0 && n >= 0 &&
	    n <= INT32_MAX) {
		mo->rank = MCT_RANK_GIVEN;
		mo->rank_n = n;
	} else {
		warnx("--rank: invalid value '%s' (want auto, order or a "
		    "rank number)", arg);
		mct_usage_hint();
	}
}

/* --align none|start|NAME */
static void
opt_align(const char *arg, struct mct_opts *mo)
{
	if (*arg == '\0') {
		warnx("--align: empty (want none, start or an event name)");
		mct_usage_hint();
	}
	if (strcmp(arg, "none") == 0)
		mo->align = MCT_ALIGN_NONE;
	else if (strcmp(arg, "start") == 0)
		mo->align = MCT_ALIGN_START;
	else {
		mo->align = MCT_ALIGN_NAME;
		mo->align_name = arg;
	}
}

/* A shared option: 1 if ch is one (and it is done), else 0. */
static int
shared(struct mct_cli *c, int ch, const char *arg)
{
	switch (ch) {
	case 'F':
		c->fields = arg;
		break;
	case 'h':
		c->usage(0);
		break;
	case 'o':
		output(c, arg);
		break;
	case 'u':
		opt_unit(arg, &c->mo->unit);
		break;
	case 'V':
		version();
		break;
	case MCT_OPT_ALIGN:
		opt_align(arg, c->mo);
		break;
	case MCT_OPT_MERGE:
		c->mo->order = MCT_ORDER_TS;
		break;
	case MCT_OPT_META:
		c->out->meta = 1;
		break;
	case MCT_OPT_NO_HEADER:
		c->out->header = 0;
		break;
	case MCT_OPT_NO_PROGRESS:
		c->progress = 0;
		break;
	case MCT_OPT_PAIR_BE:
		c->mo->pair_be = 1;
		break;
	case MCT_OPT_PROGRESS:
		c->progress = 1;
		break;
	case MCT_OPT_RANK:
		opt_rank(arg, c->mo);
		break;
	case MCT_OPT_RULES:
		mct_rules_path(c->rules = arg);
		if (c->rules_now && mct_rules_need() != 0)
			exit(MCT_EXIT_USAGE);
		break;
	case MCT_OPT_TIME_UNIT:
		opt_time_unit(arg, &c->out->tunit);
		break;
	case MCT_OPT_WIDTH:
		opt_width(arg, &c->out->maxwidth);
		break;
	default:
		return 0;
	}
	return 1;
}

/*
 * After the last option, with the number of operands: -F parsed, the
 * defaults that depend on the terminal, and the reader options that do
 * not go together.
 */
static void
end(struct mct_cli *c, int noperands)
{
	struct mct_out *out = c->out;
	struct mct_opts *mo = c->mo;

	if (c->fields != NULL) {
		mct_opt_fields("-F", c->fields, &out->fields, &out->nfields);
		if (c->rules_now && mct_rules_fields(out->fields,
		    out->nfields) && mct_rules_need() != 0)
			exit(MCT_EXIT_USAGE);
	}
	if (c->tty_table && !c->fmt_given)
		out->fmt = isatty(STDOUT_FILENO) ? MCT_O_TABLE : MCT_O_NDJSON;
	mo->progress = c->progress == -1 ? isatty(STDERR_FILENO) : c->progress;
	if (mo->rank == MCT_RANK_GIVEN && noperands > 1) {
		warnx("--rank=%lld: one operand only (--rank=order numbers "
		    "several)", (long long)mo->rank_n);
		mct_usage_hint();
	}
	if (mo->order == MCT_ORDER_TS && mo->pair_be) {
		warnx("--merge and --pair-be: pair each trace first "
		    "(mct-cat --pair-be F > F.nd), then merge the streams");
		mct_usage_hint();
	}
}

/*
 * getopt_long() for a tool: the next option that is the tool's own (or
 * '?', a misused one, for its usage(2)), the shared ones and the tool's
 * on/off flags done on the way; -1 after the last, once what depends on all options is done too.
 */
int
mct_cli_getopt(struct mct_cli *c, int argc, char *argv[],
    const char *optstring, const struct option *longopts)
{
	const struct mct_flag *f;
	int ch;

	while ((ch = getopt_long(argc, argv, optstring, longopts, NULL)) != -1) {
		for (f = c->flags; f != NULL && f->set != NULL; f++)
			if (f->ch == ch)
				break;
		if (f != NULL && f->set != NULL)
			*f->set = 1;
		else if (!shared(c, ch, optarg))
			return ch;
	}
	end(c, argc - optind);
	return -1;
}
