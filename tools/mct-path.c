/*
 * mct-path - the critical path of a trace or of one step: which host ops,
 * launch delays, kernels and waits set its length.
 *
 * The graph is HolisticTraceAnalysis' lightweight critical path (the
 * rules in mct-path(1)): a start and an end node per host op and device
 * event; the ops of a host thread chained along their call stacks; a
 * launch edge (runtime call -> kernel, the launch delay) when nothing
 * was outstanding on the kernel's stream, else a kernel-kernel edge; and
 * synchronisation edges from kernels to the calls that waited for them.
 * The events are kept as small structs (names, lanes and correlation ids
 * interned), the graph is made once the input is read, and its longest
 * path is found in a topological order.
 */
#include "config.h"

#include <sys/stat.h>

#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <regex.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mct.h"
#include "mct-path.h"

static const char *skind[] = { "host", "kernel", "comm", "launch",
    "kernel-wait", "sync" };

/* --pair-be given (a word on an empty graph says what it does) */
static int pair_be;
/* --from's and --to's arguments, for a message */
static const char *from_arg, *to_arg;

enum { OPT_EVENTS = MCT_OPT_TOOL, OPT_FROM, OPT_ONLY, OPT_SCALE, OPT_STEP,
    OPT_STEPS, OPT_TO };

static const struct option longopts[] = {
	{ "events",	required_argument,	NULL, OPT_EVENTS },
	MCT_LONGOPT_FIELDS,
	{ "from",	required_argument,	NULL, OPT_FROM },
	MCT_LONGOPT_HELP,
	MCT_LONGOPT_NO_HEADER,
	{ "only-path",	no_argument,		NULL, OPT_ONLY },
	MCT_LONGOPT_OUTPUT,
	MCT_LONGOPT_PAIR_BE,
	{ "quiet",	no_argument,		NULL, 'q' },
	MCT_LONGOPT_RULES,
	{ "scale",	required_argument,	NULL, OPT_SCALE },
	{ "step",	required_argument,	NULL, OPT_STEP },
	{ "steps",	required_argument,	NULL, OPT_STEPS },
	MCT_LONGOPT_TIME_UNIT,
	{ "to",		required_argument,	NULL, OPT_TO },
	MCT_LONGOPT_UNIT,
	MCT_LONGOPT_VERSION,
	MCT_LONGOPT_WIDTH,
	{ NULL,		0,			NULL, 0 }
};

static void
usage(int status)
{
	if (status != 0) {
		fprintf(stderr, "usage: mct-path [-hqV] [-F fields] [-o format] "
		    "[-u unit] [--step name[#n] | --steps all|median]\n"
		    "                [--from t] [--to t] [--scale expr=f] "
		    "[--only-path] [--events file] [file ...]\n");
		mct_usage_hint();
	}
	printf("usage: mct-path [-hqV] [-F fields] [-o format] [-u unit] "
	    "[--step name[#n] | --steps all|median]\n"
	    "                [--from t] [--to t] [--scale expr=f] "
	    "[--only-path] [--events file] [file ...]\n"
	    "Find the critical path of a trace, or of one step: the host ops, "
	    "launch\ndelays, kernels and waits that set its length.  Writes "
	    "each segment of\nthe path (kind, crit, share), or with -o "
	    "table the time each kind bounds.\n\n"
	    "      --step NAME[#N]   the N-th event named NAME (default the "
	    "first), such\n"
	    "                        as ProfilerStep#552: ops that start within "
	    "it\n"
	    "      --steps all       a row per ProfilerStep#N (of the job, with "
	    "several\n"
	    "                        ranks): its path and what bounds it\n"
	    "      --steps median    the path of the step whose path is the "
	    "median (the\n"
	    "                        input read twice: a file)\n"
	    "      --from T          ops that start at T or later (-t like "
	    "mct-filter)\n"
	    "      --to T            ops that start at T or earlier\n"
	    "      --scale EXPR=F    the events EXPR matches take F times their "
	    "dur\n"
	    "                        (repeatable); the path before and after on "
	    "stderr\n"
	    "  -q, --quiet           no summary on stderr\n"
	    "      --pair-be         each matched B/E pair of a thread as one X "
	    "event\n"
	    "      --rules FILE      the rules file (communication kernels)\n"
	    "  -F, --fields LIST     the breakdown's columns in tsv, csv, table, "
	    "md (of\n"
	    "                        " TABLE_FIELDS ", the default); "
	    "with\n"
	    "                        --steps all, the row's\n"
	    "  -o, --output FORMAT   ndjson (default), tsv, csv, table, md, trace "
	    "(the\n"
	    "                        input, the path marked args.critical, its "
	    "edges\n"
	    "                        as flow events)\n"
	    "      --only-path       with -o trace: X events off the path left "
	    "out\n"
	    "      --events FILE     also the path's events, as -o ndjson writes "
	    "them, into\n"
	    "                        FILE (the table and the events in one run)\n"
	    "      --no-header       no header line in tsv and csv output\n"
	    "      --width N         cut table and md cells wider than N "
	    "characters\n"
	    "                        (default 60; 0: never)\n"
	    "      --time-unit UNIT  times in tsv/csv/table: ns (default), us, "
	    "ms, s\n"
	    "  -u, --unit UNIT       unit of a trace read directly: auto "
	    "(default), ns, us,\n"
	    "                        ms, s\n"
	    "  -h, --help            show this help and exit\n"
	    "  -V, --version         show the version and exit\n\n"
	    "Exit status: 0 success, 1 damaged input (or a cycle), 2 usage or "
	    "unreadable\nfile (or an unknown step).  See mct-path(1) and "
	    "mct(7).\n");
	exit(mct_finish(MCT_EXIT_OK));
}

/*
 * Output.
 */
/*
 * ,"share": and 100 * ns / len as printf's %.2f writes it (pct: as a
 * string with a %, as mct-group's tables show a share): by integers
 * where the hundredths are surely rounded one way (the rounding error of
 * x * 100 below 1e8 is far under the margin kept), else by snprintf().
 */
static void
add_share(struct mct_buf *b, int64_t ns, int64_t len, int pct)
{
	double x = len > 0 ? 100.0 * (double)ns / (double)len : 0.0, y, fr;
	char num[64];
	long long k;

	mct_buf_adds(b, pct ? ",\"share\":\"" : ",\"share\":");
	y = x * 100;
	if (x >= 0 && y < 1e8) {
		k = (long long)y;
		fr = y - (double)k;
		if (fr < 0.5 - 1e-6 || fr > 0.5 + 1e-6) {
			k += fr > 0.5;
			mct_buf_addi(b, k / 100);
			mct_buf_addc(b, '.');
			mct_buf_addc(b, (char)('0' + k % 100 / 10));
			mct_buf_addc(b, (char)('0' + k % 10));
			if (pct)
				mct_buf_adds(b, "%\"");
			return;
		}
	}
	snprintf(num, sizeof(num), pct ? "%.2f%%\"" : "%.2f", x);
	mct_buf_adds(b, num);
}

static void
put_name(struct opts *o, struct mct_buf *b, int32_t name)
{
	mct_buf_addjstr(b, o->names.str[name],
	    mct_strtab_len(&o->names, name));
}

/* An event's pid and tid, and its rank when there are several. */
static void
put_lane(const struct opts *o, struct mct_buf *b, const struct pev *p)
{
	const char *lane = o->lanes.str[p->lane];

	lane += strcspn(lane, "\036") + 1;
	mct_buf_adds(b, ",\"pid\":");
	mct_buf_add(b, lane, strcspn(lane, "\037"));
	mct_buf_adds(b, ",\"tid\":");
	mct_buf_adds(b, lane + strcspn(lane, "\037") + 1);
	if (o->nrank > 1 && o->rank[p->rk] >= 0) {
		mct_buf_adds(b, ",\"rank\":");
		mct_buf_addi(b, o->rank[p->rk]);
	}
}

/*
 * What put_name() (lane 0) or put_lane() (lane 1) writes of an id, made
 * once: at[2 * id] is its place in t plus 1 (0: not yet), at[2 * id + 1]
 * its length.  A path goes through the same few names and lanes often.
 */
struct memo {
	size_t		*at;
	struct mct_buf	 t;
};

static void
put_memo(struct opts *o, struct mct_buf *b, struct memo *m, int32_t id,
    const struct pev *p, int lane)
{
	size_t start = b->len;

	if (m->at[2 * id] > 0) {
		mct_buf_add(b, m->t.p + m->at[2 * id] - 1, m->at[2 * id + 1]);
		return;
	}
	if (lane)
		put_lane(o, b, p);
	else
		put_name(o, b, id);
	m->at[2 * id] = m->t.len + 1;
	m->at[2 * id + 1] = b->len - start;
	mct_buf_add(&m->t, b->p + start, b->len - start);
}

static void
memo_init(struct memo *m, int32_t n)
{
	m->at = mct_xmalloc(2 * ((size_t)n + 1) * sizeof(*m->at));
	memset(m->at, 0, 2 * ((size_t)n + 1) * sizeof(*m->at));
	memset(&m->t, 0, sizeof(m->t));
}

static void
memo_free(struct memo *m)
{
	free(m->at);
	mct_buf_free(&m->t);
}

/*
 * Each segment of the path, as an event with kind, crit and share; in
 * ndjson, runs of lines written at once (a whole trace's path has a
 * line for most of its events).
 */
static void
write_segments(struct opts *o, struct mct_out *out, const struct path *pa)
{
	struct mct_buf b = { 0 };
	struct memo names, lanes;
	int run = out->fmt == MCT_O_NDJSON;
	size_t i;

	memo_init(&names, o->names.n);
	memo_init(&lanes, o->lanes.n);

	for (i = 0; i < pa->n; i++) {
		const struct seg *s = &pa->s[i];

		if (!run)
			b.len = 0;
		mct_buf_adds(&b, "{\"name\":");
		if (s->att >= 0) {
			const struct pev *p = &o->ev[s->att];

			put_memo(o, &b, &names, p->name, p, 0);
			mct_buf_adds(&b, ",\"ph\":\"X\",\"ts\":");
			mct_buf_addi(&b, p->ts);
			mct_buf_adds(&b, ",\"dur\":");
			mct_buf_addi(&b, p->dur);
			put_memo(o, &b, &lanes, p->lane, p, 1);
		} else
			mct_buf_adds(&b, "\"(thread)\",\"ph\":\"X\"");
		mct_buf_adds(&b, ",\"kind\":\"");
		mct_buf_adds(&b, skind[s->kind]);
		mct_buf_adds(&b, "\",\"crit\":");
		mct_buf_addi(&b, s->ns);
		add_share(&b, s->ns, pa->len, 0);
		mct_buf_addc(&b, '}');
		if (run)	/* (a run: its lines' newlines, the last's too) */
			mct_buf_addc(&b, '\n');
		if (!run || b.len >= 64 * 1024 || i + 1 == pa->n) {
			mct_out_json(out, b.p, b.len - run);
			b.len = 0;
		}
	}
	memo_free(&names);
	memo_free(&lanes);
	mct_buf_free(&b);
}

/* -o table: what each kind of segment bounds, and its top event. */
static void
write_table(struct opts *o, const struct path *pa)
{
	struct mct_buf b = { 0 };
	int64_t ns[S_N] = { 0 }, topns[S_N] = { 0 }, bestns = 0;
	int32_t top[S_N], best = -1, t;
	long long nseg[S_N] = { 0 };
	int64_t *sum;
	size_t i;
	int k;

	sum = mct_xmalloc((o->n + 1) * sizeof(*sum));
	memset(sum, 0, (o->n + 1) * sizeof(*sum));
	for (i = 0; i < pa->n; i++) {
		ns[pa->s[i].kind] = mct_sat_add(ns[pa->s[i].kind], pa->s[i].ns);
		nseg[pa->s[i].kind]++;
	}
	/* each kind's top: the event with the most of it (the first so) */
	for (k = 0; k < S_N; k++) {
		top[k] = -1;
		for (i = 0; i < pa->n; i++)
			if (pa->s[i].kind == k && pa->s[i].att >= 0)
				sum[pa->s[i].att] = mct_sat_add(
				    sum[pa->s[i].att], pa->s[i].ns);
		for (i = 0; i < pa->n; i++) {
			const struct seg *s = &pa->s[i];

			if (s->kind != k || s->att < 0)
				continue;
			if (top[k] < 0 || sum[s->att] > topns[k]) {
				top[k] = s->att;
				topns[k] = sum[s->att];
			}
		}
		for (i = 0; i < pa->n; i++)
			if (pa->s[i].att >= 0)
				sum[pa->s[i].att] = 0;
	}
	free(sum);
	for (k = 0; k < S_N; k++)	/* the total's top: the top of the tops */
		if (top[k] >= 0 && (best < 0 || topns[k] > bestns)) {
			best = top[k];
			bestns = topns[k];
		}
	for (k = 0; k <= S_N; k++) {
		if (k < S_N && nseg[k] == 0)
			continue;
		b.len = 0;
		mct_buf_adds(&b, "{\"bound\":\"");
		mct_buf_adds(&b, k < S_N ? skind[k] : "total");
		mct_buf_adds(&b, "\",\"crit\":");
		mct_buf_addi(&b, k < S_N ? ns[k] : pa->len);
		add_share(&b, k < S_N ? ns[k] : pa->len, pa->len,
		    mct_out_human(&o->out));
		mct_buf_adds(&b, ",\"segments\":");
		mct_buf_addi(&b, k < S_N ? nseg[k] : (int64_t)pa->n);
		mct_buf_adds(&b, ",\"top\":");
		t = k < S_N ? top[k] : best;
		if (t >= 0)
			put_name(o, &b, o->ev[t].name);
		else
			mct_buf_adds(&b, "\"\"");
		mct_buf_addc(&b, '}');
		mct_out_json(&o->out, b.p, b.len);
	}
	mct_buf_free(&b);
}

/* A line of the input with "critical":1 first in its args. */
static void
mark(struct mct_event *ev, struct mct_buf *b)
{
	struct mct_val v;
	size_t at;

	b->len = 0;
	if (mct_get_key(ev, "args", &v) == 0 && v.type == MCT_J_OBJECT) {
		at = (size_t)(v.p - ev->json) + 1;
		mct_buf_add(b, ev->json, at);
		mct_buf_adds(b, v.len > 2 ? "\"critical\":1," : "\"critical\":1");
		mct_buf_add(b, ev->json + at, ev->len - at);
	} else {
		mct_buf_add(b, ev->json, ev->len - 1);
		mct_buf_adds(b, ev->len > 2 ? ",\"args\":{\"critical\":1}}" :
		    "\"args\":{\"critical\":1}}");
	}
}

/* Is the event one --only-path leaves out: an X event not annotation? */
static int
off_path(struct mct_event *ev)
{
	static const char *keep[] = { "user_annotation", "python_function",
	    NULL };
	struct mct_val ph, cat;
	int i;

	if (mct_get_key(ev, "ph", &ph) != 0 || !mct_jstr_eq(&ph, "X", 1) ||
	    mct_is_step(ev))
		return 0;
	for (i = 0; keep[i] && mct_get_key(ev, "cat", &cat) == 0; i++)
		if (mct_jstr_eq(&cat, keep[i], strlen(keep[i])))
			return 0;
	return 1;
}

/* A flow event at a node of the path (an end a ns inside its slice). */
static void
flow_end(struct opts *o, struct mct_buf *b, int32_t node, int start,
    long long id, const struct edge *e)
{
	static const char *cat[] = { "", "dependency", "", "kernel_launch_delay",
	    "", "sync_dependency", "collective" };
	const struct pev *p = &o->ev[node / 2];
	int64_t ts = p->ts;

	if (node % 2)
		ts += p->dur - (p->dur > 0);
	b->len = 0;
	mct_buf_adds(b, "{\"name\":\"critical_path\",\"ph\":\"");
	mct_buf_adds(b, start ? "s" : "f\",\"bp\":\"e");
	mct_buf_adds(b, "\",\"id\":");
	mct_buf_addi(b, id);
	put_lane(o, b, p);
	mct_buf_adds(b, ",\"ts\":");
	mct_buf_addi(b, ts);
	mct_buf_adds(b, ",\"cat\":\"critical_path\",\"args\":{\"weight\":");
	mct_buf_addi(b, e->w);
	mct_buf_adds(b, ",\"critical\":true,\"type\":\"critical_path_");
	mct_buf_adds(b, cat[e->kind]);
	mct_buf_adds(b, "\"}}");
}

/*
 * -o trace: the input again, its events with a node on the path marked
 * args.critical (--only-path: its other X events left out, annotations
 * kept), and the path's dependency, launch and sync edges as flows.
 */
static void
write_trace(struct opts *o, const struct path *pa)
{
	struct mct_buf b = { 0 };
	struct mct_event ev;
	char *crit, *line = NULL;
	size_t cap = 0, i;
	ssize_t n;
	long long seq = 0, id = 0;

	crit = mct_xmalloc((size_t)o->seq + 1);
	memset(crit, 0, (size_t)o->seq + 1);
	for (i = 0; i < o->n; i++)
		if (pa->on[i])
			crit[o->ev[i].seq] = 1;
	if (fflush(o->spool) != 0 || fseeko(o->spool, 0, SEEK_SET) != 0)
		err(MCT_EXIT_USAGE, "spool");
	while ((n = getline(&line, &cap, o->spool)) > 0) {
		mct_event_init(&ev, line, (size_t)n - 1, o->hdr);
		if (seq < o->seq && crit[seq]) {
			mark(&ev, &b);
			mct_event_free(&ev);
			mct_event_init(&ev, b.p, b.len, o->hdr);
			mct_out_event(&o->out, &ev);
		} else if (!o->only || !off_path(&ev))
			mct_out_event(&o->out, &ev);
		mct_event_free(&ev);
		seq++;
	}
	for (i = pa->nedge; i-- > 0; ) {
		const struct edge *e = &o->e[pa->edge[i]];

		if (e->kind != E_DEP && e->kind != E_LAUNCH &&
		    e->kind != E_SYNC && e->kind != E_COLL)
			continue;
		flow_end(o, &b, e->u, 1, id, e);
		mct_out_json(&o->out, b.p, b.len);
		flow_end(o, &b, e->v, 0, id++, e);
		mct_out_json(&o->out, b.p, b.len);
	}
	free(line);
	free(crit);
	mct_buf_free(&b);
}

/*
 * --events: the segments as -o ndjson writes them (its header first),
 * into the file, stdout pointed at it meanwhile.
 */
static void
write_events(struct opts *o, const struct path *pa)
{
	struct mct_out out = { .fmt = MCT_O_NDJSON, .header = 1 };
	int fd;

	if (fflush(stdout) != 0 || (fd = dup(STDOUT_FILENO)) < 0 ||
	    dup2(fileno(o->events), STDOUT_FILENO) < 0)
		err(MCT_EXIT_USAGE, "--events");
	mct_out_begin(&out, o->hdr);
	write_segments(o, &out, pa);
	mct_out_end(&out);
	if (fflush(stdout) != 0)
		err(MCT_EXIT_USAGE, "%s", o->evname);
	if (dup2(fd, STDOUT_FILENO) < 0)
		err(MCT_EXIT_USAGE, "--events");
	close(fd);
	if (fclose(o->events) != 0)
		err(MCT_EXIT_USAGE, "%s", o->evname);
	o->events = NULL;
}

static void
summary(struct opts *o, const struct path *pa, const char *what)
{
	char num[64];
	long long ev = 0;
	size_t i;

	if (o->hdr->nread == 0)		/* the reader has said why */
		return;
	if (pa->nodes == 0) {
		fprintf(stderr, "%s: %sno host op or device event: no path%s\n",
		    program_invocation_short_name, what, pair_be ? "" :
		    " (B/E events count only with --pair-be)");
		return;
	}
	for (i = 0; i < o->n; i++)
		ev += pa->on[i];
	mct_fmt_human(num, (double)pa->len);
	fprintf(stderr, "%s: %s%s on the path (%lld ns), %lld events, %zu "
	    "nodes\n", program_invocation_short_name, what, num,
	    (long long)pa->len, ev, pa->nodes);
}

/* --scale: the path without it, said first. */
static void
before(struct opts *o)
{
	struct path pa;

	o->unscaled = 1;
	if (path_analyse(o, &pa) == 0) {	/* (no such step: said after) */
		if (pa.cycle == 0)
			summary(o, &pa, "before --scale: ");
		path_free(&pa);
	}
	o->unscaled = 0;
}

/*
 * --scale: how many events of the window it scaled (a factor other
 * than 1), said with the path after; none is said even with -q.
 */
static void
scaled(const struct opts *o)
{
	long long n = 0;
	size_t i;

	for (i = 0; i < o->n; i++)
		n += o->ev[i].scm != 0 && path_factor(o, &o->ev[i]) != 1.0;
	if (n == 0)
		fprintf(stderr, "%s: --scale: no event matched: the path is "
		    "as measured\n", program_invocation_short_name);
	else if (!o->quiet)
		fprintf(stderr, "%s: --scale: %lld events scaled\n",
		    program_invocation_short_name, n);
}

/*
 * One path: the window's, written as -o asks; with a cycle, or no op,
 * no path (the trace not marked, no table row).
 */
static int
one(struct opts *o)
{
	struct path pa;
	int status = MCT_EXIT_OK;

	/*
	 * The correlation ids' texts and values are not read again, only
	 * their ids (path-read.c): their tables go back to the heap, where
	 * the graph's arrays find them, instead of fresh pages.  (A step's
	 * ids are its table's: path-steps.c kept them there, and the graph
	 * counts them by it.)
	 */
	if (!path_stepwise(o)) {
		mct_strtab_free(&o->corrs);
		free(o->ci);
		free(o->cgid);
		o->ci = NULL;
		o->cgid = NULL;
		o->nci = o->cicap = o->ncgid = 0;
		o->cimix = 0;
	}
	if (o->nsc > 0 && !o->quiet)
		before(o);
	if (path_analyse(o, &pa) != 0) {
		fprintf(stderr, "%s: --step %s: no such event\n",
		    program_invocation_short_name, o->step);
		return -1;
	}
	if (pa.cycle > 0) {
		fprintf(stderr, "%s: %lld nodes in a cycle (times out of "
		    "order): no path\n", program_invocation_short_name,
		    pa.cycle);
		status = MCT_EXIT_DAMAGED;
	}
	mct_out_begin(&o->out, o->hdr);
	if (o->trace)
		write_trace(o, &pa);
	else if (o->table) {
		if (pa.cycle == 0 && pa.nodes > 0)
			write_table(o, &pa);
	} else
		write_segments(o, &o->out, &pa);
	if (o->events != NULL)
		write_events(o, &pa);
	if (!o->quiet && pa.cycle == 0)
		summary(o, &pa, o->nsc ? "after --scale: " : "");
	if (o->nsc > 0 && pa.cycle == 0 && pa.nodes > 0)
		scaled(o);

	path_free(&pa);
	return status;
}

/* What was odd in the input, counted. */
static void
counts(const struct opts *o)
{
	if (o->negative)
		fprintf(stderr, "%s: %lld edges of negative weight (times out "
		    "of order), taken as 0\n", program_invocation_short_name,
		    o->negative);
	if (o->nokernel)
		fprintf(stderr, "%s: %lld launches without a device event\n",
		    program_invocation_short_name, o->nokernel);
	if (o->nosrc)
		fprintf(stderr, "%s: %lld syncs with no kernel before them to "
		    "wait for\n", program_invocation_short_name, o->nosrc);
	if (o->noedge)
		fprintf(stderr, "%s: %lld kernels with neither a launch nor an "
		    "earlier kernel to wait for\n",
		    program_invocation_short_name, o->noedge);
}

/* --from, --to: a time from the origin, or @T on the trace's clock. */
static void
time_opt(struct opts *o, int to, const char *arg)
{
	int abs;

	mct_opt_time(to ? "--to" : "--from", arg, to ? &o->to : &o->from, &abs);
	*(to ? &o->to_rel : &o->from_rel) = !abs;
	*(to ? &o->has_to : &o->has_from) = 1;
	*(to ? &to_arg : &from_arg) = arg;
}

/* --scale EXPR=F */
static void
scale_opt(struct opts *o, char *arg)
{
	char *eq = strrchr(arg, '=');

	if (eq == NULL) {
		fprintf(stderr, "mct-path: --scale '%s': EXPR=F wanted\n", arg);
		usage(2);
	}
	if (o->nsc == MAXSCALE) {
		fprintf(stderr, "mct-path: --scale '%s': at most %d --scale "
		    "options\n", arg, MAXSCALE);
		usage(2);
	}
	*eq = '\0';
	o->sc[o->nsc].f = mct_opt_num("--scale", eq + 1, 0, 1e6);
	o->sc[o->nsc++].e = mct_opt_expr("--scale", arg);
}

/* --steps all, --steps median */
static void
steps_opt(struct opts *o, const char *arg)
{
	if (strcmp(arg, "all") == 0 || strcmp(arg, "median") == 0) {
		o->steps = arg[0] == 'a';	/* the last one given */
		o->median = !o->steps;
	} else {
		fprintf(stderr, "mct-path: --steps '%s': all or median\n", arg);
		usage(2);
	}
}

static int
options(int argc, char *argv[], struct opts *o, struct mct_opts *mo)
{
	const struct mct_flag flags[] = { { 'q', &o->quiet },
	    { OPT_ONLY, &o->only }, { 0, NULL } };
	struct mct_cli c = { .usage = usage, .flags = flags, .out = &o->out,
	    .mo = mo };
	int ch;

	while ((ch = mct_cli_getopt(&c, argc, argv, "F:ho:qu:V",
	    longopts)) != -1) {
		if (ch == OPT_STEP) {
			o->step = optarg;
			o->steplen = strlen(optarg);
		} else if (ch == OPT_FROM || ch == OPT_TO)
			time_opt(o, ch == OPT_TO, optarg);
		else if (ch == OPT_SCALE)
			scale_opt(o, optarg);
		else if (ch == OPT_STEPS)
			steps_opt(o, optarg);
		else if (ch == OPT_EVENTS)
			o->evname = optarg;
		else
			usage(2);
	}
	o->fields = c.fields;	/* NULL: no -F */
	return optind;
}

/* Options that do not go together (exit 2), or do nothing (a word). */
static void
check_opts(struct opts *o)
{
	if (o->step != NULL && (o->steps || o->median)) {
		fprintf(stderr, "mct-path: --step %s: not with --steps %s (one "
		    "step, or each)\n", o->step, o->steps ? "all" : "median");
		usage(2);
	}
	if (o->has_from && o->has_to && o->from_rel == o->to_rel &&
	    o->from > o->to) {
		fprintf(stderr, "mct-path: --from %s is after --to %s: no op "
		    "in between\n", from_arg, to_arg);
		usage(2);
	}
	if (o->trace && o->steps) {
		fprintf(stderr, "mct-path: --steps all: a row per step, not a "
		    "trace (-o trace takes one path)\n");
		usage(2);
	}
	if (o->evname != NULL && o->steps) {
		fprintf(stderr, "mct-path: --events: the events of one path, "
		    "not with --steps all\n");
		usage(2);
	}
	if (o->only && !o->trace)
		fprintf(stderr, "mct-path: --only-path: with -o trace only, "
		    "ignored\n");
	if (o->fields != NULL && !o->table)
		fprintf(stderr, "mct-path: -F: the columns of tsv, csv, table "
		    "and md, ignored with -o %s\n", o->trace ? "trace" :
		    "ndjson");
}

/*
 * -F: the breakdown's columns, or the rows' of --steps all; the
 * breakdown's a choice of its own (a name it has not is an error).
 */
static void
table_fields(struct opts *o)
{
	static const char *known[] = { "bound", "crit", "share", "segments",
	    "top", NULL };
	int i, k;

	if (o->fields == NULL) {
		mct_opt_fields("-F", o->steps ? STEPS_FIELDS : TABLE_FIELDS,
		    &o->out.fields, &o->out.nfields);
		return;
	}
	for (i = 0; i < o->out.nfields && !o->steps; i++) {
		for (k = 0; known[k] != NULL; k++)
			if (strcmp(o->out.fields[i].text, known[k]) == 0)
				break;
		if (known[k] == NULL) {
			fprintf(stderr, "mct-path: -F: no field '%s' in the "
			    "breakdown (bound crit share segments top)\n",
			    o->out.fields[i].text);
			usage(2);
		}
	}
}

/*
 * The input read into o: its events (path-read.c), --step's and --steps
 * all's as they come (path-steps.c), -o trace's lines.  The reader is
 * left open (o->hdr is its header).
 */
static struct mct_reader *
read_input(struct opts *o, int argc, char *argv[], struct mct_opts mo)
{
	struct mct_reader *r;
	struct mct_event *ev;
	int lines;

	if ((lines = path_want_lines(o, argc)))
		mo.want = MCT_WANT_LINE;
	r = mct_open(argc, argv, &mo);
	o->hdr = mct_header(r);
	path_reserve(o, 0);
	lines = lines && path_edit(o, r);
	if (!lines)
		path_again_drop(o);
	if (path_stepwise(o))
		steps_begin(o);
	while (mct_next(r, &ev))
		path_take(o, ev, lines);
	if (o->ss != NULL && !o->steps)
		step_end(o);
	return r;
}

/* What read_input() kept, let go. */
static void
forget(struct opts *o)
{
	free(o->ev);
	mct_strtab_free(&o->names);
	mct_strtab_free(&o->lanes);
	mct_strtab_free(&o->corrs);
	free(o->namefl);
	free(o->rank);
	free(o->rksync);
	free(o->e);
	mct_buf_free(&o->tmp);
}

/* stderr to /dev/null (its descriptor kept in *fd), and back. */
static void
hush(int *fd)
{
	int null;

	fflush(stderr);
	if ((*fd = dup(STDERR_FILENO)) < 0 ||
	    (null = open("/dev/null", O_WRONLY)) < 0 ||
	    dup2(null, STDERR_FILENO) < 0)
		err(MCT_EXIT_USAGE, "stderr");
	close(null);
}

static void
unhush(int fd)
{
	fflush(stderr);
	if (dup2(fd, STDERR_FILENO) < 0)
		err(MCT_EXIT_USAGE, "stderr");
	close(fd);
}

/*
 * --steps median: the rows of --steps all (steps_end() says the median),
 * then that step's path as --step finds it, from a second reading of the
 * input, which says nothing (the first has said it): of the runs of
 * lines the first kept (path_take()), the same, else of the input again (-o
 * trace, which wants its lines; events read one by one, not in runs; a
 * temporary file that cannot be made, silently, or hold them).  The
 * first reader is left open: its header is o->hdr.
 */
static struct mct_reader *
median(struct opts *o, int argc, char *argv[], const struct mct_opts *mo,
    int *status)
{
	struct opts rows = *o;
	struct mct_reader *r, *again;
	struct stat st;
	char *med;
	FILE *spool;
	int i, fd;

	for (i = 0; i <= argc; i++) {
		const char *f = i < argc ? argv[i] : argc ? NULL : "-";

		if (f != NULL && strcmp(f, "-") != 0 && stat(f, &st) != 0) {
			fprintf(stderr, "mct-path: %s: %s\n", f,
			    strerror(errno));
			exit(mct_finish(MCT_EXIT_USAGE));
		}
		if (f != NULL && (strcmp(f, "-") == 0 ||
		    !S_ISREG(st.st_mode))) {
			fprintf(stderr, "mct-path: --steps median: %s: not a "
			    "file (the input is read twice)\n",
			    strcmp(f, "-") == 0 ? "standard input" : f);
			exit(mct_finish(MCT_EXIT_USAGE));
		}
	}
	rows.steps = 1;
	rows.trace = 0;
	if (!o->trace) {
		hush(&fd);
		rows.again = mct_tmpfile(NULL, &rows.againvb);
		unhush(fd);
	}
	r = read_input(&rows, argc, argv, *mo);
	*status = steps_end(&rows, &med, &o->steplen);
	o->step = med;
	o->nx = rows.nx;	/* (path_reserve()) */
	spool = rows.again;
	forget(&rows);
	hush(&fd);
	if (spool == NULL || !path_take_again(o, spool, mct_header(r))) {
		again = read_input(o, argc, argv, *mo);
		mct_close(again);
	}
	if (spool != NULL)
		fclose(spool);
	free(rows.againvb);
	unhush(fd);
	o->hdr = mct_header(r);
	return r;
}

int
main(int argc, char *argv[])
{
	struct opts o = { .out = { .fmt = MCT_O_NDJSON, .header = 1 } };
	struct mct_opts mo = { .unit = MCT_UNIT_AUTO };
	struct mct_reader *r;
	int n, status = MCT_EXIT_OK;

	mct_records_register();	/* the times of the tools' records */
	n = options(argc, argv, &o, &mo);
	argc -= n;
	argv += n;
	pair_be = mo.pair_be;
	o.trace = o.out.fmt == MCT_O_TRACE;
	o.table = o.out.fmt != MCT_O_NDJSON && !o.trace;
	if (o.trace && (o.spool = mct_tmpfile(NULL, &o.spoolvb)) == NULL)
		exit(MCT_EXIT_USAGE);
	check_opts(&o);
	if (o.evname != NULL && (o.events = fopen(o.evname, "w")) == NULL)
		err(MCT_EXIT_USAGE, "%s", o.evname);
	if (o.table || o.steps)
		table_fields(&o);
	if (mct_rules_need() != 0)	/* communication, and --scale's */
		exit(MCT_EXIT_USAGE);
	if (o.median)
		r = median(&o, argc, argv, &mo, &status);
	else
		r = read_input(&o, argc, argv, mo);
	if (o.steps) {
		mct_out_begin(&o.out, o.hdr);
		status = steps_end(&o, NULL, NULL);
	} else if ((n = one(&o)) < 0) {
		mct_close(r);
		return mct_finish(MCT_EXIT_USAGE);
	} else
		status = mct_status(status, n);
	if (!o.quiet)
		counts(&o);
	mct_out_end(&o.out);
	return mct_finish(mct_status(mct_close(r), status));
}
