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

#define EXIT_FAIL	3	/* a row met --fail-if */
#define SUMMARY_NAME	"mct_diff_summary"
#define FLOW_WINDOW	10000000000LL	/* mct-flow's default --window */
#define SYNOPSIS	"usage: mct-diff [-hV] [-k fields] [-n top] [-o format] " \
	"[-u unit] [--device]\n" \
	"                [--fail-if expr] [--min-delta time] [--value field] " \
	"A B\n"

/* A cell's number: an exact integer, else a double; or none. */
struct num {
	int		 null;
	int		 isint;
	int64_t		 i;
	double		 d;
};

/* The columns of a row, after its key, in the order of mct-diff(1), Rows. */
enum { C_COUNT_A, C_COUNT_B, C_TOTAL_A, C_TOTAL_B, C_TOTAL_DELTA, C_TOTAL_PCT,
    C_MEDIAN_A, C_MEDIAN_B, C_MEDIAN_DELTA, C_MEDIAN_PCT, NCOL };

enum { K_COUNT, K_VALUE, K_PCT };	/* what a column's numbers are */

static const struct {
	const char	*name;
	int		 kind;
} col[NCOL] = {
	{ "count_a", K_COUNT }, { "count_b", K_COUNT },
	{ "total_a", K_VALUE }, { "total_b", K_VALUE },
	{ "total_delta", K_VALUE }, { "total_pct", K_PCT },
	{ "median_a", K_VALUE }, { "median_b", K_VALUE },
	{ "median_delta", K_VALUE }, { "median_pct", K_PCT }
};

struct row {
	struct mct_group *g[2];		/* its group in A and in B, or NULL */
	struct num	 c[NCOL];
	int		 only;		/* 'a', 'b', or 0: in both */
};

/* One run: an operand read into a table. */
struct run {
	const char	*path;
	const char	*name;		/* for messages */
	struct mct_gtab	 t;
	struct mct_runsum rs;
	int		 partial;	/* read from a partial: no summary */
	struct mct_pspec ps;
	int		 has_origin;
	int64_t		 origin;
	char		 what[64];	/* --by, for the warning of a field no
					   event had */
	long long	 events;	/* read, but metadata */
};

struct opts {
	struct mct_field *by;
	int		 nby;
	struct mct_field value;
	int		 vtime;		/* the value is a time */
	const char	*by_text, *value_text;
	int		 device;	/* --device: only device work */
	long		 top;
	int64_t		 min_delta;	/* --min-delta, or -1 */
	struct mct_expr	*fail;		/* --fail-if */
	struct mct_out	 out;
	struct mct_method m;
	size_t		 limit;		/* values kept per group of a partial */
	struct run	 run[2];
	struct row	*row;
	size_t		 nrow;
	struct mct_header hdr;		/* of the output */
	int		 stack;		/* --by a field of the launch's stack */
	struct mct_buf	 kbuf, line, fold, fkey;
};

enum { OPT_DEVICE = MCT_OPT_TOOL, OPT_FAIL_IF, OPT_MIN_DELTA, OPT_VALUE };

static const struct option longopts[] = {
	{ "by",		required_argument,	NULL, 'k' },
	{ "device",	no_argument,		NULL, OPT_DEVICE },
	{ "fail-if",	required_argument,	NULL, OPT_FAIL_IF },
	MCT_LONGOPT_HELP,
	{ "min-delta",	required_argument,	NULL, OPT_MIN_DELTA },
	MCT_LONGOPT_NO_HEADER,
	MCT_LONGOPT_OUTPUT,
	MCT_LONGOPT_RULES,
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

/*
 * Reading a run.
 */

/*
 * Is the operand a partial of mct-group?  Only a file can be looked at
 * first and read again; a pipe is read as events (and a partial there
 * refused when its first line comes).
 */
static int
is_partial(const char *path)
{
	char buf[MCT_KIND_BYTES];
	ssize_t n;

	return (n = mct_src_head(path, buf, sizeof(buf))) > 0 &&
	    mct_src_kind(buf, (size_t)n, 1) == MCT_KIND_PARTIAL;
}

/* The spec every partial must have: this run's --by and --value. */
static void
spec(struct opts *o, struct mct_pspec *ps)
{
	int i;

	ps->nby = o->nby;
	ps->by = mct_xmalloc((size_t)(o->nby + 1) * sizeof(*ps->by));
	for (i = 0; i < o->nby; i++)
		ps->by[i] = mct_xstrdup(o->by[i].text);
	ps->value = mct_xstrdup(o->value.text);
	ps->set = 1;
}

static int
read_partial(struct opts *o, struct run *r)
{
	int status;

	r->partial = 1;
	spec(o, &r->ps);
	status = mct_partial_read(&r->t, &r->ps, r->path, o->limit);
	if (status == MCT_EXIT_USAGE)
		exit(mct_finish(MCT_EXIT_USAGE));
	r->has_origin = r->ps.has_origin;
	r->origin = r->ps.origin;
	return status;
}

/* Does --by name a field that mct-flow --stack adds? */
static int
stack_by(const struct opts *o)
{
	static const char *const stackf[] = { "op", "module", "annotation",
	    "stack", NULL };
	int i, j;

	for (i = 0; i < o->nby; i++)
		for (j = 0; stackf[j]; j++)
			if (strcmp(o->by[i].text, stackf[j]) == 0)
				return 1;
	return 0;
}

/*
 * An event of the run into its table.  A pair (a device event with its
 * launch, from here or from mct-flow upstream) is kept without the
 * fields it lacks: a kernel whose launch is in no op is the null op's.
 */
static void
group(struct opts *o, struct run *r, struct mct_seen *seen,
    struct mct_event *ev, int dev, int missing)
{
	if (o->device && !dev)
		return;
	mct_seen_event(seen, ev);
	mct_gtab_event(&r->t, ev, o->by, o->nby, missing, &o->kbuf);
}

/* The pairs whose stacks are known, into the table. */
static void
stack_drain(struct opts *o, struct run *r, struct mct_seen *seen,
    struct mct_stack *stk)
{
	struct mct_event ev;
	int rc;

	while ((rc = mct_stack_next(stk, &o->line, &o->fold)) == 1) {
		mct_event_init(&ev, o->line.p, o->line.len, r->t.hdr);
		group(o, r, seen, &ev, mct_device(&ev), 1);
		mct_event_free(&ev);
	}
	if (rc < 0)
		exit(mct_finish(MCT_EXIT_USAGE));
}

/*
 * --by op (module, annotation, stack) on a trace: its device events
 * paired with their launches and the launches' stacks, as mct-flow
 * --stack would (lib/flow.c, lib/stack.c), and the pairs grouped.
 */
static struct mct_stack *
stack_open(struct run *r, struct mct_flow *fl)
{
	mct_flow_init(fl, r->t.hdr);
	fl->window = FLOW_WINDOW;
	if ((fl->stk = mct_stack_open(r->t.hdr->sorted, fl->window)) == NULL)
		exit(mct_finish(MCT_EXIT_USAGE));
	return fl->stk;
}

/* The last pairs, and what could not be paired: 1 for unbalanced B/E. */
static int
stack_close(struct opts *o, struct run *r, struct mct_seen *seen,
    struct mct_flow *fl)
{
	struct mct_stack_counts c;
	struct mct_mapent *e;
	long long nolaunch = 0;
	size_t it = 0;

	mct_stack_end(fl->stk);
	stack_drain(o, r, seen, fl->stk);
	mct_stack_close(fl->stk, &c);
	while ((e = mct_map_next(&fl->corrs, &it)) != NULL)
		nolaunch += ((struct mct_corr *)e->val.p)->nwait;
	mct_flow_free(fl);
	if (nolaunch)
		warnx("%s: %lld device events without launch, in no row",
		    r->name, nolaunch);
	if (c.unbalanced)
		warnx("%s: %lld unbalanced B/E events (an E without its B, "
		    "or a B never ended)", r->name, c.unbalanced);
	if (c.deep)
		warnx("%s: %lld stacks deeper than 1000 frames, cut to their "
		    "outermost 1000", r->name, c.deep);
	return c.unbalanced ? MCT_EXIT_DAMAGED : MCT_EXIT_OK;
}

/* An event of a run --by a stack field. */
static void
stack_event(struct opts *o, struct run *r, struct mct_seen *seen,
    struct mct_flow *fl, struct mct_event *ev, int dev)
{
	struct mct_val v;

	if (mct_get_key(ev, "launch", &v) == 0) {	/* mct-flow's pair */
		group(o, r, seen, ev, dev, 1);
		return;
	}
	if (mct_flow_add(fl, ev, &o->fkey) < 0)
		exit(mct_finish(MCT_EXIT_USAGE));
	stack_drain(o, r, seen, fl->stk);
}

static int
read_events(struct opts *o, struct run *r, const struct mct_opts *mo)
{
	char *argv[2] = { (char *)r->path, NULL };
	struct mct_seen seen = { 0 };
	struct mct_flow fl = { 0 };
	struct mct_reader *rd;
	struct mct_event *ev;
	const struct mct_header *h;
	int i, dev, first = 1, status = MCT_EXIT_OK;

	snprintf(r->what, sizeof(r->what), "--by (run %c)",
	    r == &o->run[0] ? 'A' : 'B');
	for (i = 0; i < o->nby; i++)
		mct_seen_add(&seen, &o->by[i], r->what);
	rd = mct_open(1, argv, mo);
	h = r->t.hdr = mct_header(rd);
	if (o->stack)
		stack_open(r, &fl);
	while (mct_next(rd, &ev)) {
		if (first && mct_src_kind(ev->json, ev->len, 1) ==
		    MCT_KIND_PARTIAL) {
			warnx("%s: a partial of mct-group is read from a file, "
			    "not from a pipe", r->name);
			exit(mct_finish(MCT_EXIT_USAGE));
		}
		first = 0;
		if (mct_is_meta(ev))
			continue;
		r->events++;
		dev = mct_device(ev);
		mct_runsum_event(&r->rs, ev, dev);
		if (o->stack)
			stack_event(o, r, &seen, &fl, ev, dev);
		else
			group(o, r, &seen, ev, dev, 0);
	}
	if (o->stack)
		status = stack_close(o, r, &seen, &fl);
	mct_seen_end(&seen);
	mct_runsum_end(&r->rs, &o->m);
	r->has_origin = h->has_origin;
	r->origin = h->origin;
	if (h->nread == 0) {		/* said by the reader */
		mct_close(rd);
		exit(mct_finish(MCT_EXIT_USAGE));
	}
	r->t.hdr = NULL;		/* the reader's, gone with it */
	return mct_status(mct_close(rd), status);
}

/*
 * The rows.
 */

static double
val(const struct num *x)
{
	return x->isint ? (double)x->i : x->d;
}

/* A group's total; a run without the key has 0. */
static void
total(const struct mct_group *g, struct num *x)
{
	if (g == NULL || g->val.n == 0) {
		x->isint = 1;
		return;
	}
	x->d = mct_stats_sum(&g->val);
	if (!g->val.isfloat && g->val.isum <= INT64_MAX &&
	    g->val.isum >= -INT64_MAX) {
		x->isint = 1;
		x->i = (int64_t)g->val.isum;
	}
}

/* A group's median: none without values; an integer when it is one. */
static void
median(struct mct_group *g, struct num *x)
{
	if (g == NULL || g->val.n == 0) {
		x->null = 1;
		return;
	}
	x->d = mct_stats_quantile(&g->val, 1, 2);
	if (!g->val.isfloat && fabs(x->d) < 9e18 &&
	    x->d == (double)(int64_t)x->d) {
		x->isint = 1;
		x->i = (int64_t)x->d;
	}
}

/* b - a, and its % of a (none when a is 0 or either is none). */
static void
delta(const struct num *a, const struct num *b, struct num *d,
    struct num *pct)
{
	mct_i128 x;

	if (a->null || b->null) {
		d->null = pct->null = 1;
		return;
	}
	if (a->isint && b->isint) {
		x = (mct_i128)b->i - a->i;
		d->d = (double)x;
		if (x <= INT64_MAX && x >= -INT64_MAX) {
			d->isint = 1;
			d->i = (int64_t)x;
		}
	} else
		d->d = val(b) - val(a);
	if (val(a) == 0) {
		pct->null = 1;
		return;
	}
	pct->d = (double)((long double)d->d * 100 / (long double)val(a));
}

static void
cells(struct row *w)
{
	struct num *c = w->c;

	c[C_COUNT_A].isint = c[C_COUNT_B].isint = 1;
	c[C_COUNT_A].i = w->g[0] ? w->g[0]->count : 0;
	c[C_COUNT_B].i = w->g[1] ? w->g[1]->count : 0;
	total(w->g[0], &c[C_TOTAL_A]);
	total(w->g[1], &c[C_TOTAL_B]);
	delta(&c[C_TOTAL_A], &c[C_TOTAL_B], &c[C_TOTAL_DELTA], &c[C_TOTAL_PCT]);
	median(w->g[0], &c[C_MEDIAN_A]);
	median(w->g[1], &c[C_MEDIAN_B]);
	delta(&c[C_MEDIAN_A], &c[C_MEDIAN_B], &c[C_MEDIAN_DELTA],
	    &c[C_MEDIAN_PCT]);
	w->only = w->g[1] == NULL ? 'a' : w->g[0] == NULL ? 'b' : 0;
}

static const struct mct_group *
key_of(const struct row *w)
{
	return w->g[0] ? w->g[0] : w->g[1];
}

/* Keys as bytes: the order of strcmp(3) on keys without NUL. */
static int
keycmp(const struct row *a, const struct row *b)
{
	const struct mct_group *x = key_of(a), *y = key_of(b);
	int r = memcmp(x->key, y->key, x->klen < y->klen ? x->klen : y->klen);

	return r ? r : (x->klen > y->klen) - (x->klen < y->klen);
}

/* Largest change of total first (either way), then key order. */
static int
cmp_row(const void *pa, const void *pb)
{
	const struct row *a = pa, *b = pb;
	const struct num *x = &a->c[C_TOTAL_DELTA], *y = &b->c[C_TOTAL_DELTA];
	uint64_t ux, uy;
	double dx, dy;

	if (x->isint && y->isint) {
		ux = x->i < 0 ? 0 - (uint64_t)x->i : (uint64_t)x->i;
		uy = y->i < 0 ? 0 - (uint64_t)y->i : (uint64_t)y->i;
		if (ux != uy)
			return ux > uy ? -1 : 1;
	} else if ((dx = fabs(val(x))) != (dy = fabs(val(y))))
		return dx > dy ? -1 : 1;
	return keycmp(a, b);
}

static void
add_row(struct opts *o, struct mct_group *a, struct mct_group *b)
{
	struct row *w;

	o->row = mct_xrealloc(o->row, (o->nrow + 1) * sizeof(*o->row));
	w = &o->row[o->nrow++];
	memset(w, 0, sizeof(*w));
	w->g[0] = a;
	w->g[1] = b;
	cells(w);
}

/* A row per key of either run, in order. */
static void
rows(struct opts *o)
{
	struct mct_gtab *ta = &o->run[0].t, *tb = &o->run[1].t;
	size_t i;

	for (i = 0; i < ta->n; i++)
		add_row(o, &ta->g[i], mct_gtab_find(tb, ta->g[i].key,
		    ta->g[i].klen));
	for (i = 0; i < tb->n; i++)
		if (mct_gtab_find(ta, tb->g[i].key, tb->g[i].klen) == NULL)
			add_row(o, NULL, &tb->g[i]);
	mct_sort(o->row, o->nrow, sizeof(*o->row), cmp_row);
}

/*
 * Writing.
 */

/* A number for programs: raw, times scaled by --time-unit. */
static void
put_raw(struct mct_buf *b, const struct num *x, int time, enum mct_unit tu,
    int json)
{
	char num[64];
	int64_t unit = time ? mct_unit_ns(tu) : 1;

	if (x->null) {
		mct_buf_adds(b, json ? "null" : "");
		return;
	}
	if (x->isint && unit > 1)
		mct_fmt_dec(num, x->i, unit);
	else if (x->isint)
		snprintf(num, sizeof(num), "%lld", (long long)x->i);
	else
		mct_fmt_double(num, x->d / (double)unit);
	mct_buf_adds(b, num);
}

/* A number for people: times as 1.23 ms, changes with a sign. */
static void
put_human(struct mct_buf *b, const struct num *x, int kind, int time,
    int sign)
{
	char num[64];
	size_t n = 0;

	if (x->null) {
		mct_buf_adds(b, "-");
		return;
	}
	if (sign && val(x) > 0)
		num[n++] = '+';
	if (kind == K_PCT)
		snprintf(num + n, sizeof(num) - n, "%.2f%%", x->d);
	else if (kind == K_COUNT || (x->isint && !time))
		mct_fmt_count(num + n, x->i);
	else if (time)
		mct_fmt_human(num + n, val(x));
	else
		snprintf(num + n, sizeof(num) - n, "%.2f", x->d);
	mct_buf_adds(b, num);
}

static int
is_change(int c)
{
	return c == C_TOTAL_DELTA || c == C_TOTAL_PCT || c == C_MEDIAN_DELTA ||
	    c == C_MEDIAN_PCT;
}

/*
 * The row as an NDJSON record; tu scales its times.  For --fail-if (gate
 * set) in ns, and a column without a number is left out: a missing field
 * meets no comparison, where null would compare as the text "null".
 */
static void
row_json(struct opts *o, const struct row *w, enum mct_unit tu, int gate,
    struct mct_buf *b)
{
	int c;

	b->len = 0;
	mct_buf_addc(b, '{');
	mct_group_json(key_of(w), o->by, o->nby, b);
	for (c = 0; c < NCOL; c++) {
		if (gate && w->c[c].null)
			continue;
		if (b->len > 1)
			mct_buf_addc(b, ',');
		mct_buf_addc(b, '"');
		mct_buf_adds(b, col[c].name);
		mct_buf_adds(b, "\":");
		put_raw(b, &w->c[c], col[c].kind == K_VALUE && o->vtime, tu, 1);
	}
	mct_buf_adds(b, w->only == 'a' ? ",\"only\":\"a\"" :
	    w->only == 'b' ? ",\"only\":\"b\"" : gate ? "" :
	    ",\"only\":null");
	/* for --fail-if a flag is there when true: a bare new holds */
	if (!gate || w->only == 'b')
		mct_buf_adds(b, w->only == 'b' ? ",\"new\":true" :
		    ",\"new\":false");
	if (!gate || w->only == 'a')
		mct_buf_adds(b, w->only == 'a' ? ",\"gone\":true" :
		    ",\"gone\":false");
	mct_buf_addc(b, '}');
}

/* The key's cells: missing and null are empty. */
static void
key_cells(struct opts *o, const struct row *w, struct mct_buf *b)
{
	const struct mct_group *g = key_of(w);
	const char *p;
	size_t n;
	int i;

	for (i = 0; i < o->nby; i++) {
		if (i)
			mct_buf_addc(b, '\037');
		if ((p = mct_group_part(g, i, &n)) != NULL &&
		    (n != 4 || memcmp(p, "null", 4) != 0))
			mct_group_text(g, i, b);
	}
}

static void
write_row(struct opts *o, const struct row *w)
{
	struct mct_buf *b = &o->line;
	struct mct_event ev;
	int c, time;

	if (o->out.fmt == MCT_O_NDJSON) {
		row_json(o, w, o->out.tunit, 0, b);
		mct_event_init(&ev, b->p, b->len, NULL);
		mct_out_event(&o->out, &ev);
		mct_event_free(&ev);
		return;
	}
	b->len = 0;
	key_cells(o, w, b);
	for (c = 0; c < NCOL; c++) {
		mct_buf_addc(b, '\037');
		time = col[c].kind == K_VALUE && o->vtime;
		if (mct_out_human(&o->out))
			put_human(b, &w->c[c], col[c].kind, time, is_change(c));
		else
			put_raw(b, &w->c[c], time, o->out.tunit, 0);
	}
	mct_buf_addc(b, '\037');
	if (w->only)
		mct_buf_addc(b, w->only);
	else if (mct_out_human(&o->out))
		mct_buf_adds(b, "-");
	for (c = 'b'; c >= 'a'; c--) {		/* new, gone */
		mct_buf_addc(b, '\037');
		mct_buf_adds(b, mct_out_human(&o->out) ? (w->only == c ?
		    "yes" : "no") : w->only == c ? "true" : "false");
	}
	mct_out_row(&o->out, b->p, b->len);
}

/* Is the row hidden by --min-delta? */
static int
small(const struct opts *o, const struct row *w)
{
	const struct num *d = &w->c[C_TOTAL_DELTA];

	if (o->min_delta < 0)
		return 0;
	if (d->isint)
		return (d->i < 0 ? 0 - (uint64_t)d->i : (uint64_t)d->i) <
		    (uint64_t)o->min_delta;
	return fabs(d->d) < (double)o->min_delta;
}

static void
table(struct opts *o)
{
	struct mct_buf h = { 0 };
	size_t i, shown = 0;
	int c;

	if (o->out.fmt != MCT_O_NDJSON && (o->out.header ||
	    mct_out_human(&o->out))) {
		for (c = 0; c < o->nby; c++) {
			if (c)
				mct_buf_addc(&h, '\037');
			mct_buf_adds(&h, o->by[c].text);
		}
		for (c = 0; c < NCOL; c++) {
			mct_buf_addc(&h, '\037');
			mct_buf_adds(&h, col[c].name);
		}
		mct_buf_adds(&h, "\037only\037new\037gone");
		mct_out_row(&o->out, h.p, h.len);
		mct_buf_free(&h);
	}
	for (i = 0; i < o->nrow; i++) {
		if (small(o, &o->row[i]))
			continue;
		if (o->top > 0 && shown >= (size_t)o->top)
			break;
		write_row(o, &o->row[i]);
		shown++;
	}
}

/*
 * The summary: each run's device figures.
 */
enum { S_SPAN, S_BUSY, S_BUSYPCT, S_ROUNDS, S_ROUND, NSUM };

static const struct {
	const char	*key;		/* in the NDJSON record, _a and _b */
	const char	*label;		/* in the human table */
	int		 time;
} sumrow[NSUM] = {
	{ "span", "span", 1 }, { "busy", "device busy", 1 },
	{ "busy_pct", "busy %", 0 }, { "rounds", "steady rounds", 0 },
	{ "round", "median round", 1 }
};

static void
sum_num(const struct run *r, int s, struct num *x)
{
	const struct mct_runsum *rs = &r->rs;

	memset(x, 0, sizeof(*x));
	x->isint = 1;
	if (r->partial || (rs->n == 0 && s != S_ROUNDS) ||
	    (s == S_ROUND && !rs->hasround)) {
		x->null = 1;
		return;
	}
	switch (s) {
	case S_SPAN:
		x->i = rs->end - rs->start;
		break;
	case S_BUSY:
		x->i = rs->busy;
		break;
	case S_BUSYPCT:
		x->isint = 0;
		if (rs->end == rs->start)
			x->null = 1;
		else
			x->d = 100.0 * (double)rs->busy /
			    (double)(rs->end - rs->start);
		break;
	case S_ROUNDS:
		x->i = rs->rounds;
		break;
	default:
		x->i = rs->round;
	}
}

static void
summary_json(struct opts *o)
{
	struct mct_buf *b = &o->line;
	struct mct_event ev;
	struct num x;
	int s, k;

	b->len = 0;
	mct_buf_adds(b, "{\"name\":\"" SUMMARY_NAME "\"");
	for (s = 0; s < NSUM; s++)
		for (k = 0; k < 2; k++) {
			sum_num(&o->run[k], s, &x);
			mct_buf_addc(b, ',');
			mct_buf_addc(b, '"');
			mct_buf_adds(b, sumrow[s].key);
			mct_buf_adds(b, k ? "_b\":" : "_a\":");
			put_raw(b, &x, sumrow[s].time, o->out.tunit, 1);
		}
	mct_buf_addc(b, '}');
	mct_event_init(&ev, b->p, b->len, NULL);
	mct_out_event(&o->out, &ev);
	mct_event_free(&ev);
}

/* The summary as a table of its own: a figure a line, A, B, the change. */
static void
summary_table(struct opts *o)
{
	struct mct_out out;
	struct mct_buf b = { 0 };
	struct num x[2], d, pct;
	int s;

	memset(&out, 0, sizeof(out));
	out.fmt = o->out.fmt;
	out.maxwidth = o->out.maxwidth;
	mct_out_begin(&out, &o->hdr);
	mct_buf_adds(&b, "summary\037a\037b\037delta\037delta_pct");
	mct_out_row(&out, b.p, b.len);
	for (s = 0; s < NSUM; s++) {
		sum_num(&o->run[0], s, &x[0]);
		sum_num(&o->run[1], s, &x[1]);
		memset(&d, 0, sizeof(d));
		memset(&pct, 0, sizeof(pct));
		delta(&x[0], &x[1], &d, &pct);
		b.len = 0;
		mct_buf_adds(&b, sumrow[s].label);
		mct_buf_addc(&b, '\037');
		put_human(&b, &x[0], s == S_BUSYPCT ? K_PCT : K_VALUE,
		    sumrow[s].time, 0);
		mct_buf_addc(&b, '\037');
		put_human(&b, &x[1], s == S_BUSYPCT ? K_PCT : K_VALUE,
		    sumrow[s].time, 0);
		mct_buf_addc(&b, '\037');
		/* a change of a % is in points, and has no % of its own */
		put_human(&b, &d, s == S_BUSYPCT ? K_PCT : K_VALUE,
		    sumrow[s].time, 1);
		mct_buf_addc(&b, '\037');
		if (s == S_BUSYPCT)
			pct.null = 1;
		put_human(&b, &pct, K_PCT, 0, 1);
		mct_out_row(&out, b.p, b.len);
	}
	mct_out_end(&out);
	mct_buf_free(&b);
	mct_write("\n", 1);
}

/*
 * --fail-if: every row (whatever --top and --min-delta hide) as a record
 * in ns; the ones that meet it are named on stderr.
 */
static int
gate(struct opts *o)
{
	struct mct_buf b = { 0 }, k = { 0 };
	struct mct_event ev;
	char num[2][64];
	size_t i;
	int met = 0, j;

	if (o->fail == NULL)
		return MCT_EXIT_OK;
	for (i = 0; i < o->nrow; i++) {
		row_json(o, &o->row[i], MCT_UNIT_NS, 1, &b);
		mct_event_init(&ev, b.p, b.len, &o->hdr);
		if (mct_expr_eval(o->fail, &ev, &o->hdr)) {
			met++;
			k.len = 0;
			for (j = 0; j < o->nby; j++) {
				if (j)
					mct_buf_addc(&k, ' ');
				mct_group_text(key_of(&o->row[i]), j, &k);
			}
			mct_buf_addc(&k, '\0');
			b.len = 0;
			put_human(&b, &o->row[i].c[C_TOTAL_DELTA], K_VALUE,
			    o->vtime, 1);
			mct_buf_addc(&b, '\0');
			snprintf(num[0], sizeof(num[0]), "%s", b.p);
			b.len = 0;
			put_human(&b, &o->row[i].c[C_TOTAL_PCT], K_PCT, 0, 1);
			mct_buf_addc(&b, '\0');
			snprintf(num[1], sizeof(num[1]), "%s", b.p);
			warnx("--fail-if: %s (total %s, %s%s)", k.p, num[0],
			    num[1], o->row[i].only == 'a' ? ", only in A" :
			    o->row[i].only == 'b' ? ", only in B" : "");
		}
		mct_event_free(&ev);
	}
	mct_buf_free(&b);
	mct_buf_free(&k);
	return met ? EXIT_FAIL : MCT_EXIT_OK;
}

/*
 * The output's header line: a stream of the comparison, in ns, at A's
 * origin, with both runs as its sources.
 */
static void
out_header(struct opts *o)
{
	struct mct_header *h = &o->hdr;
	struct mct_buf b = { 0 };
	int k;

	h->unit = MCT_UNIT_NS;
	h->why = "mct-diff";
	h->has_origin = o->run[0].has_origin;
	h->origin = o->run[0].origin;
	h->form = 'n';
	h->nread = 1;
	mct_buf_adds(&b, "{\"name\":\"" MCT_HEADER_NAME "\",\"ph\":\"M\","
	    "\"args\":{\"version\":1,\"unit\":\"ns\",\"unit_from\":\"mct-diff\","
	    "\"origin\":");
	if (h->has_origin)
		mct_buf_addi(&b, h->origin);
	else
		mct_buf_adds(&b, "null");
	mct_buf_adds(&b, ",\"form\":\"ndjson\",\"sorted\":false,"
	    "\"top_before\":0,\"top\":{},\"sources\":[");
	for (k = 0; k < 2; k++) {
		if (k)
			mct_buf_addc(&b, ',');
		mct_buf_addjstr(&b, o->run[k].path, strlen(o->run[k].path));
	}
	mct_buf_adds(&b, "]}}");
	h->line = b.p;
	h->linelen = b.len;
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

/* A field of --fail-if: a column of the rows, or a usage error. */
static void
known(const struct mct_field *f, void *arg)
{
	const struct opts *o = arg;
	const char **name, *near;
	struct mct_buf b = { 0 };
	size_t n;
	int i, k = 0, found = 0;

	name = mct_xmalloc((size_t)(o->nby + NCOL + 3) * sizeof(*name));
	for (i = 0; i < o->nby; i++) {	/* a --by field, or a path in it */
		n = strlen(o->by[i].text);
		found |= strncmp(f->text, o->by[i].text, n) == 0 &&
		    (f->text[n] == '\0' || f->text[n] == '.');
		name[k++] = o->by[i].text;
	}
	for (i = 0; i < NCOL; i++)
		name[k++] = col[i].name;
	name[k++] = "only";
	name[k++] = "new";
	name[k++] = "gone";
	for (i = o->nby; i < k; i++)
		found |= strcmp(f->text, name[i]) == 0;
	if (found) {
		free(name);
		return;
	}
	if ((near = mct_nearest(f->text, name, k)) != NULL)
		warnx("--fail-if: no column '%s' (did you mean '%s'?)",
		    f->text, near);
	else {
		for (i = 0; i < k; i++) {
			mct_buf_adds(&b, i ? ", " : "");
			mct_buf_adds(&b, name[i]);
		}
		warnx("--fail-if: no column '%s' (the columns: %s)", f->text,
		    b.p);
	}
	mct_usage_hint();
}

static int
options(int argc, char *argv[], struct opts *o, struct mct_opts *mo)
{
	struct mct_cli c = { .usage = usage, .out = &o->out, .mo = mo,
	    .no_trace = 1, .tty_table = 1 };
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
		case OPT_DEVICE:
			o->device = 1;
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
