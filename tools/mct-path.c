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

#include <err.h>
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <regex.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mct.h"

#define DEFAULT_FIELDS	"kind,crit,share,name"
#define TABLE_FIELDS	"bound,crit,share,segments,top"
#define MAXSCALE	32

/* What an event is to the graph. */
enum { K_NONE, K_OP, K_DEV, K_SYNC };

/* Names that mean something (flags). */
#define F_HOSTCALL	0x01	/* launches device work */
#define F_BLOCK		0x02	/* a blocking call: its own time is 0 */
#define F_DEVSYNC	0x04	/* ...DeviceSynchronize */
#define F_STRSYNC	0x08	/* ...StreamSynchronize */
#define F_RECORD	0x10	/* ...EventRecord */
#define F_COMM		0x20	/* communication (the rules' category) */
#define F_GRAPH		0x40	/* its nodes are in the graph */

struct pev {
	int64_t		 ts, dur;
	double		 f;			/* --scale's factor, or 1 */
	int32_t		 name, lane, corr;	/* interned; corr -1: none */
	int32_t		 wstream, rcorr;	/* cuda_sync: wait_on_stream's
						   lane, the record's corr */
	long long	 seq;			/* place in the input */
	uint8_t		 kind, fl;
};

/* Edge kinds, in the order ties between equal paths prefer them. */
enum { E_OP, E_DEP, E_DEV, E_LAUNCH, E_WAIT, E_SYNC };
static const int erank[] = { 0, 0, 1, 2, 3, 4 };

struct edge {
	int32_t		 u, v;		/* nodes: 2 * event + (end) */
	int64_t		 w;
	int32_t		 att;		/* the event it belongs to, -1 */
	uint8_t		 kind;
};

/* Segment kinds (the output's "kind"). */
enum { S_HOST, S_KERNEL, S_COMM, S_LAUNCH, S_WAIT, S_SYNC, S_N };
static const char *skind[] = { "host", "kernel", "comm", "launch",
    "kernel-wait", "sync" };

struct scale {
	struct mct_expr	*e;
	double		 f;
};

struct opts {
	struct mct_out	 out;
	const struct mct_header *hdr;
	int		 quiet, table;
	const char	*step;
	int64_t		 from, to;
	int		 has_from, has_to, from_rel, to_rel;
	struct scale	 sc[MAXSCALE];
	int		 nsc;
	/* the events */
	struct pev	*ev;
	size_t		 n, cap;
	long long	 seq;
	struct mct_strtab names, lanes, corrs;
	struct mct_buf	 tmp;
	/* the graph */
	struct edge	*e;
	size_t		 ne, ecap;
	long long	 negative, noedge;
	int		 unscaled;	/* --scale's factors not applied */
};

enum { OPT_FROM = MCT_OPT_TOOL, OPT_SCALE, OPT_STEP, OPT_TO };

static const struct option longopts[] = {
	MCT_LONGOPT_FIELDS,
	{ "from",	required_argument,	NULL, OPT_FROM },
	MCT_LONGOPT_HELP,
	MCT_LONGOPT_NO_HEADER,
	MCT_LONGOPT_OUTPUT,
	MCT_LONGOPT_PAIR_BE,
	{ "quiet",	no_argument,		NULL, 'q' },
	MCT_LONGOPT_RULES,
	{ "scale",	required_argument,	NULL, OPT_SCALE },
	{ "step",	required_argument,	NULL, OPT_STEP },
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
		    "[-u unit] [--step name[#n]] [--from t] [--to t]\n"
		    "                [--scale expr=f] [file ...]\n");
		mct_usage_hint();
	}
	printf("usage: mct-path [-hqV] [-F fields] [-o format] [-u unit] "
	    "[--step name[#n]] [--from t] [--to t]\n"
	    "                [--scale expr=f] [file ...]\n"
	    "Find the critical path of a trace, or of one step: the host ops, "
	    "launch\ndelays, kernels and waits that set its length.  Writes "
	    "each segment of\nthe path (kind, crit, share), or with -o "
	    "table the time each kind bounds.\n\n"
	    "      --step NAME[#N]   the N-th event named NAME (default the "
	    "first), such\n"
	    "                        as ProfilerStep#552: ops that start within "
	    "it\n"
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
	    "  -F, --fields LIST     columns for tsv, csv, table (default "
	    DEFAULT_FIELDS ",\n"
	    "                        with -o table " TABLE_FIELDS ")\n"
	    "  -o, --output FORMAT   ndjson (default), tsv, csv, table, md\n"
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
 * Reading: each X event with a time becomes a struct pev.
 */

static const char *notops[] = { "user_annotation", "gpu_user_annotation",
    "python_function", "Trace", NULL };

/* Does name (a runtime call's) match (cuda|hip|mc)WHAT exactly? */
static int
call_is(const char *name, const char *what)
{
	static const char *pre[] = { "cuda", "hip", "mc", NULL };
	size_t k;
	int i;

	for (i = 0; pre[i]; i++) {
		k = strlen(pre[i]);
		if (strncmp(name, pre[i], k) == 0 && strcmp(name + k, what) == 0)
			return 1;
	}
	return 0;
}

static int
call_any(const char *name, const char *const *what)
{
	int i;

	for (i = 0; what[i]; i++)
		if (call_is(name, what[i]))
			return 1;
	return 0;
}

/* The text of a value: a string's own, else its JSON. */
static int32_t
intern_val(struct opts *o, struct mct_strtab *st, const struct mct_val *v)
{
	o->tmp.len = 0;
	if (v->type == MCT_J_STRING)
		mct_jstr(v, &o->tmp);
	else
		mct_buf_add(&o->tmp, v->p, v->len);
	mct_buf_addc(&o->tmp, '\0');
	return mct_intern(st, o->tmp.p, o->tmp.len - 1);
}

static int32_t
intern_lane(struct opts *o, const struct mct_val *pid, const struct mct_val *tid)
{
	o->tmp.len = 0;
	mct_buf_add(&o->tmp, pid->p ? pid->p : "", pid->p ? pid->len : 0);
	mct_buf_addc(&o->tmp, '\037');
	mct_buf_add(&o->tmp, tid->p ? tid->p : "", tid->p ? tid->len : 0);
	mct_buf_addc(&o->tmp, '\0');
	return mct_intern(&o->lanes, o->tmp.p, o->tmp.len - 1);
}

static int32_t
corr_of(struct opts *o, struct mct_event *ev)
{
	static struct mct_field f[2];
	struct mct_val v;
	int i;

	if (f[0].text == NULL) {
		mct_field_parse("args.correlation", &f[0]);
		mct_field_parse("args.co_id", &f[1]);
	}
	for (i = 0; i < 2; i++)
		if (mct_get(ev, &f[i], &v) == 0 && v.type != MCT_J_NULL &&
		    v.type != MCT_J_OBJECT && v.type != MCT_J_ARRAY)
			return intern_val(o, &o->corrs, &v);
	return -1;
}

static void
add(struct opts *o, struct mct_event *ev)
{
	static const char *blocking[] = { "DeviceSynchronize",
	    "StreamSynchronize", "EventQuery", "EventSynchronize", "Memcpy",
	    "MemcpyAsync", NULL };
	static struct mct_field ws, rc;
	struct mct_val ph, cat, name, pid, tid, v;
	const char *nm, *c;
	struct pev *p;
	int64_t ts, dur;
	int i, hascat;

	o->seq++;
	if (mct_get_key(ev, "ph", &ph) != 0 || !mct_jstr_eq(&ph, "X", 1) ||
	    mct_get_ns(ev, "ts", &ts) != 0 || !MCT_SANE_NS(ts))
		return;
	if (mct_get_ns(ev, "dur", &dur) != 0 || dur < 0 || !MCT_SANE_NS(dur))
		dur = 0;
	if (o->n == o->cap) {
		o->cap = o->cap ? o->cap * 2 : 4096;
		o->ev = mct_xrealloc(o->ev, o->cap * sizeof(*o->ev));
	}
	p = &o->ev[o->n++];
	memset(p, 0, sizeof(*p));
	p->seq = o->seq - 1;
	p->ts = ts;
	p->dur = dur;
	p->f = 1;
	for (i = 0; i < o->nsc; i++)
		if (mct_expr_eval(o->sc[i].e, ev, o->hdr))
			p->f *= o->sc[i].f;
	p->wstream = p->rcorr = -1;
	if (mct_get_key(ev, "name", &name) != 0)
		name.p = "\"\"", name.len = 2, name.type = MCT_J_STRING;
	p->name = intern_val(o, &o->names, &name);
	nm = o->names.str[p->name];
	pid.p = tid.p = NULL;
	mct_get_key(ev, "pid", &pid);
	mct_get_key(ev, "tid", &tid);
	p->lane = intern_lane(o, &pid, &tid);
	p->corr = corr_of(o, ev);
	hascat = mct_get_key(ev, "cat", &cat) == 0;
	if (mct_device(ev)) {
		p->kind = K_DEV;
		c = mct_category(ev, o->hdr);
		if (c != NULL && strcmp(c, "\"communication\"") == 0)
			p->fl |= F_COMM;
	} else if (hascat && mct_jstr_eq(&cat, "cuda_sync", 9)) {
		p->kind = K_SYNC;
		if (ws.text == NULL) {
			mct_field_parse("args.wait_on_stream", &ws);
			mct_field_parse("args.wait_on_cuda_event_record_corr_id",
			    &rc);
		}
		if (mct_get(ev, &ws, &v) == 0)
			p->wstream = intern_lane(o, &pid, &v);
		if (mct_get(ev, &rc, &v) == 0)
			p->rcorr = intern_val(o, &o->corrs, &v);
	} else if (dur > 0) {
		p->kind = K_OP;
		for (i = 0; hascat && cat.type == MCT_J_STRING && notops[i]; i++)
			if (mct_jstr_eq(&cat, notops[i], strlen(notops[i])))
				p->kind = K_NONE;
	}
	if (p->kind == K_OP && mct_host_call(ev))
		p->fl |= F_HOSTCALL;
	if (call_any(nm, blocking))
		p->fl |= F_BLOCK;
	if (call_is(nm, "DeviceSynchronize"))
		p->fl |= F_DEVSYNC;
	if (call_is(nm, "StreamSynchronize"))
		p->fl |= F_STRSYNC;
	if (call_is(nm, "EventRecord"))
		p->fl |= F_RECORD;
}

/*
 * The window: --step, --from, --to.  Returns -1 for an unknown step.
 */
static int
window(struct opts *o, int64_t *lo, int64_t *hi, int *haslo, int *hashi)
{
	const char *base = o->step;
	struct pev *best = NULL;
	long want = 1, seen = 0;
	char *hash = NULL, *end;
	int32_t id;
	size_t i;

	*haslo = *hashi = 0;
	if (o->step != NULL) {
		id = -1;
		o->tmp.len = 0;
		mct_buf_adds(&o->tmp, o->step);
		if (mct_map_find(&o->names.map, o->step, strlen(o->step)) == NULL &&
		    (hash = strrchr(o->step, '#')) != NULL) {
			errno = 0;
			want = strtol(hash + 1, &end, 10);
			if (hash[1] == '\0' || *end != '\0' || errno || want < 1)
				return -1;
			o->tmp.len = (size_t)(hash - o->step);
		}
		mct_buf_addc(&o->tmp, '\0');
		base = o->tmp.p;
		{
			struct mct_mapent *e = mct_map_find(&o->names.map, base,
			    strlen(base));

			if (e == NULL)
				return -1;
			id = (int32_t)e->val.i;
		}
		/* the want-th in ts order, ties in input order */
		for (;;) {
			struct pev *next = NULL;

			for (i = 0; i < o->n; i++) {
				struct pev *p = &o->ev[i];

				if (p->name != id || (best != NULL &&
				    (p->ts < best->ts || (p->ts == best->ts &&
				    p->seq <= best->seq))))
					continue;
				if (next == NULL || p->ts < next->ts ||
				    (p->ts == next->ts && p->seq < next->seq))
					next = p;
			}
			if (next == NULL)
				return -1;
			best = next;
			if (++seen == want)
				break;
		}
		*lo = best->ts;
		*hi = best->ts + best->dur;
		*haslo = *hashi = 1;
	}
	if (o->has_from) {
		*lo = o->from + (o->from_rel ? o->hdr->facts.origin : 0);
		*haslo = 1;
	}
	if (o->has_to) {
		*hi = o->to + (o->to_rel ? o->hdr->facts.origin : 0);
		*hashi = 1;
	}
	return 0;
}

/*
 * The graph.
 */
#define S(i)	((int32_t)(2 * (i)))
#define E(i)	((int32_t)(2 * (i) + 1))

static int64_t
node_ts(const struct opts *o, int32_t n)
{
	const struct pev *p = &o->ev[n / 2];

	return p->ts + (n % 2 ? p->dur : 0);
}

static void
edge(struct opts *o, int32_t u, int32_t v, int64_t w, int kind, int32_t att)
{
	struct edge *e;

	if (w < 0) {
		o->negative++;
		w = 0;
	}
	if (o->ne == o->ecap) {
		o->ecap = o->ecap ? o->ecap * 2 : 4096;
		o->e = mct_xrealloc(o->e, o->ecap * sizeof(*o->e));
	}
	e = &o->e[o->ne++];
	e->u = u;
	e->v = v;
	e->w = w;
	e->kind = (uint8_t)kind;
	e->att = att;
}

static struct opts *sorting;	/* for the comparisons below */

/* Host ops by lane, start, longest first, input order. */
static int
cmp_op(const void *a, const void *b)
{
	const struct pev *x = &sorting->ev[*(const size_t *)a],
	    *y = &sorting->ev[*(const size_t *)b];

	if (x->lane != y->lane)
		return x->lane < y->lane ? -1 : 1;
	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	if (x->dur != y->dur)
		return x->dur > y->dur ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* Each host lane's ops along their call stacks. */
static void
host_edges(struct opts *o, size_t *ops, size_t nops)
{
	size_t *stack, i, j, k, depth;
	int32_t last, lasttop;

	sorting = o;
	mct_sort(ops, nops, sizeof(*ops), cmp_op);
	stack = mct_xmalloc((nops + 1) * sizeof(*stack));
	for (i = 0; i < nops; i = j) {
		depth = 0;
		last = lasttop = -1;
		for (j = i; j <= nops; j++) {
			struct pev *x = j < nops ? &o->ev[ops[j]] : NULL;

			if (x != NULL && x->lane != o->ev[ops[i]].lane)
				x = NULL;
			/* leave the ops that ended before x starts */
			while (depth > 0) {
				struct pev *t = &o->ev[stack[depth - 1]];

				if (x != NULL && t->ts + t->dur > x->ts)
					break;
				k = stack[--depth];
				edge(o, last, E(k), t->fl & F_BLOCK ? 0 :
				    t->ts + t->dur - node_ts(o, last), E_OP,
				    (int32_t)k);
				if (depth == 0) {
					last = -1;
					lasttop = E(k);
				} else
					last = E(k);
			}
			if (x == NULL)
				break;
			if (depth == 0 && lasttop >= 0)
				edge(o, lasttop, S(ops[j]), 0, E_DEP, -1);
			if (last >= 0)
				edge(o, last, S(ops[j]), x->ts - node_ts(o, last),
				    E_OP, depth ? (int32_t)stack[depth - 1] : -1);
			stack[depth++] = ops[j];
			last = S(ops[j]);
		}
	}
	free(stack);
}

/* A launch and its device event. */
struct pair {
	size_t		 r, d;
};

static int
cmp_pair_stream(const void *a, const void *b)
{
	const struct pair *p = a, *q = b;
	const struct pev *x = &sorting->ev[p->d], *y = &sorting->ev[q->d],
	    *rx = &sorting->ev[p->r], *ry = &sorting->ev[q->r];

	if (x->lane != y->lane)
		return x->lane < y->lane ? -1 : 1;
	if (rx->ts != ry->ts)
		return rx->ts < ry->ts ? -1 : 1;
	return rx->seq < ry->seq ? -1 : rx->seq > ry->seq;
}

static int
cmp_pair_thread(const void *a, const void *b)
{
	const struct pair *p = a, *q = b;
	const struct pev *rx = &sorting->ev[p->r], *ry = &sorting->ev[q->r];

	if (rx->lane != ry->lane)
		return rx->lane < ry->lane ? -1 : 1;
	if (rx->ts != ry->ts)
		return rx->ts < ry->ts ? -1 : 1;
	return rx->seq < ry->seq ? -1 : rx->seq > ry->seq;
}

/* The queue of a stream: launches (+1) and kernel starts (-1) by time. */
struct qitem {
	int32_t		 lane;
	int		 kernel;
	int64_t		 ts;
	long long	 seq;
	size_t		 pair;
};

static int
cmp_qitem(const void *a, const void *b)
{
	const struct qitem *x = a, *y = b;

	if (x->lane != y->lane)
		return x->lane < y->lane ? -1 : 1;
	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	if (x->kernel != y->kernel)
		return x->kernel - y->kernel;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* Device events and syncs, by ts (syncs by their end). */
struct ditem {
	int64_t		 key;
	long long	 seq;
	size_t		 i;		/* the event */
	int		 what;		/* 'k', 'c' context, 's' stream, 'e'
					   event sync, 'w' stream wait */
	size_t		 call;		/* the host call a sync ends */
};

static int
cmp_ditem(const void *a, const void *b)
{
	const struct ditem *x = a, *y = b;

	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/*
 * The last pair of a sorted run [lo, hi) whose launch is before ts, or
 * hi if none (the run is by launch time).
 */
static size_t
last_before(struct opts *o, const struct pair *v, size_t lo, size_t hi,
    int64_t ts)
{
	size_t a = lo, b = hi;

	while (a < b) {
		size_t m = (a + b) / 2;

		if (o->ev[v[m].r].ts < ts)
			a = m + 1;
		else
			b = m;
	}
	return a == lo ? hi : a - 1;
}

/* The run of pairs of lane (by key) in a sorted array. */
static void
run_of(const struct pair *v, size_t n, int32_t lane, int by_dev,
    const struct opts *o, size_t *lo, size_t *hi)
{
	size_t a = 0, b = n;

	while (a < b) {
		size_t m = (a + b) / 2;
		int32_t l = o->ev[by_dev ? v[m].d : v[m].r].lane;

		if (l < lane)
			a = m + 1;
		else
			b = m;
	}
	*lo = a;
	while (a < n && o->ev[by_dev ? v[a].d : v[a].r].lane == lane)
		a++;
	*hi = a;
}

static void
device_edges(struct opts *o, int32_t *launch, int32_t *record, char *synced)
{
	struct pair *ps, *pt;
	struct qitem *q;
	struct ditem *it;
	int *qrt, *qk;
	int32_t *last;		/* per stream lane: its last kernel, -1 */
	int32_t *ksync;		/* per event: the kernel it waits for, -1 */
	size_t np = 0, nit = 0, i, j, lo, hi;

	ps = mct_xmalloc((o->n + 1) * sizeof(*ps));
	it = mct_xmalloc((o->n + 1) * sizeof(*it));
	for (i = 0; i < o->n; i++) {
		struct pev *p = &o->ev[i];

		if (p->kind == K_DEV && p->corr >= 0 && launch[p->corr] >= 0) {
			p->fl |= F_GRAPH;
			ps[np].r = (size_t)launch[p->corr];
			ps[np++].d = i;
			it[nit].what = 'k';
		} else if (p->kind == K_SYNC && p->corr >= 0 &&
		    launch[p->corr] >= 0) {
			struct mct_val dummy;
			const char *nm = o->names.str[p->name];

			(void)dummy;
			it[nit].call = (size_t)launch[p->corr];
			if (strcmp(nm, "Context Sync") == 0)
				it[nit].what = 'c';
			else if (strcmp(nm, "Stream Sync") == 0)
				it[nit].what = 's';
			else if (strcmp(nm, "Event Sync") == 0)
				it[nit].what = 'e';
			else if (strcmp(nm, "Stream Wait Event") == 0)
				it[nit].what = 'w';
			else
				continue;
		} else if ((p->fl & F_GRAPH) && p->kind == K_OP &&
		    (p->fl & F_HOSTCALL) && (p->corr < 0 || !synced[p->corr]) &&
		    (p->fl & (F_DEVSYNC | F_STRSYNC))) {
			it[nit].call = i;
			it[nit].what = p->fl & F_DEVSYNC ? 'c' : 't';
		} else
			continue;
		it[nit].i = i;
		it[nit].seq = p->seq;
		it[nit].key = it[nit].what == 'k' ? p->ts : p->ts + p->dur;
		nit++;
	}
	/* queues */
	q = mct_xmalloc((2 * np + 1) * sizeof(*q));
	qrt = mct_xmalloc((np + 1) * sizeof(*qrt));
	qk = mct_xmalloc((np + 1) * sizeof(*qk));
	for (i = 0; i < np; i++) {
		struct pev *r = &o->ev[ps[i].r], *d = &o->ev[ps[i].d];

		q[2 * i] = (struct qitem){ d->lane, 0, r->ts, r->seq, i };
		q[2 * i + 1] = (struct qitem){ d->lane, 1, d->ts, d->seq, i };
	}
	mct_sort(q, 2 * np, sizeof(*q), cmp_qitem);
	for (i = 0; i < 2 * np; i = j) {
		int len = 0;

		for (j = i; j < 2 * np && q[j].lane == q[i].lane; j++) {
			len += q[j].kernel ? -1 : 1;
			(q[j].kernel ? qk : qrt)[q[j].pair] = len;
		}
	}
	/* the queues by device event */
	{
		int *a = mct_xmalloc((o->n + 1) * sizeof(*a)),
		    *b = mct_xmalloc((o->n + 1) * sizeof(*b));

		for (i = 0; i < np; i++) {
			a[ps[i].d] = qrt[i];
			b[ps[i].d] = qk[i];
		}
		free(qrt);
		free(qk);
		qrt = a;
		qk = b;
	}
	free(q);
	/* launches by stream and by thread, in launch order */
	sorting = o;
	pt = mct_xmalloc((np + 1) * sizeof(*pt));
	memcpy(pt, ps, np * sizeof(*ps));
	mct_sort(ps, np, sizeof(*ps), cmp_pair_stream);
	mct_sort(pt, np, sizeof(*pt), cmp_pair_thread);
	mct_sort(it, nit, sizeof(*it), cmp_ditem);
	last = mct_xmalloc(((size_t)o->lanes.n + 1) * sizeof(*last));
	for (i = 0; i < (size_t)o->lanes.n; i++)
		last[i] = -1;
	ksync = mct_xmalloc((o->n + 1) * sizeof(*ksync));
	for (i = 0; i < o->n; i++)
		ksync[i] = -1;
	for (i = 0; i < nit; i++) {
		struct ditem *t = &it[i];
		struct pev *x = &o->ev[t->i];
		int32_t src = -1, ls, srcs[1];
		size_t k, nsrc = 0;

		if (t->what == 'k') {
			struct pev *r = &o->ev[launch[x->corr]];
			int added = 0;

			edge(o, S(t->i), E(t->i), x->dur, E_DEV, (int32_t)t->i);
			if ((src = ksync[t->i]) >= 0) {
				ksync[t->i] = -1;
				edge(o, E(src), S(t->i), 0, E_SYNC,
				    (int32_t)t->i);
				added = 1;
			}
			ls = last[x->lane];
			if (qrt[t->i] == 1 && qk[t->i] == 0 && (ls < 0 ||
			    node_ts(o, E(ls)) < r->ts) && (src < 0 ||
			    node_ts(o, E(src)) < r->ts)) {
				edge(o, S(launch[x->corr]), S(t->i),
				    x->ts - r->ts, E_LAUNCH, launch[x->corr]);
				added = 1;
			} else if (ls >= 0 && (src < 0 ||
			    node_ts(o, E(src)) < node_ts(o, E(ls)))) {
				edge(o, E(ls), S(t->i), x->ts -
				    node_ts(o, E(ls)), E_WAIT, ls);
				added = 1;
			}
			if (!added)
				o->noedge++;
			last[x->lane] = (int32_t)t->i;
			continue;
		}
		if (!(o->ev[t->call].fl & F_GRAPH))
			continue;
		switch (t->what) {
		case 'c':
			for (k = 0; k < (size_t)o->lanes.n; k++)
				if (last[k] >= 0)
					edge(o, E(last[k]), E(t->call), 0,
					    E_SYNC, (int32_t)t->call);
			continue;
		case 's':
			srcs[nsrc++] = last[x->lane];
			break;
		case 't':	/* the stream of the thread's last launch */
			run_of(pt, np, x->lane, 0, o, &lo, &hi);
			k = last_before(o, pt, lo, hi, x->ts);
			if (k < hi)
				srcs[nsrc++] = last[o->ev[pt[k].d].lane];
			break;
		case 'e':
		case 'w':
			if (x->wstream < 0 || x->rcorr < 0 ||
			    record[x->rcorr] < 0)
				continue;
			run_of(ps, np, x->wstream, 1, o, &lo, &hi);
			k = last_before(o, ps, lo, hi,
			    o->ev[record[x->rcorr]].ts);
			if (k == hi)
				continue;
			src = (int32_t)ps[k].d;
			if (t->what == 'e') {
				srcs[nsrc++] = src;
				break;
			}
			/* the next launch of the call's thread on x's stream */
			run_of(ps, np, x->lane, 1, o, &lo, &hi);
			for (k = lo; k < hi; k++) {
				struct pev *r = &o->ev[ps[k].r];

				if (r->lane == o->ev[t->call].lane &&
				    r->ts > o->ev[t->call].ts)
					break;
			}
			if (k < hi)
				ksync[ps[k].d] = src;
			continue;
		}
		for (k = 0; k < nsrc; k++)
			if (srcs[k] >= 0)
				edge(o, E(srcs[k]), E(t->call), 0, E_SYNC,
				    (int32_t)t->call);
	}
	free(ps);
	free(pt);
	free(it);
	free(qrt);
	free(qk);
	free(last);
	free(ksync);
}

/*
 * The longest path.
 */
struct seg {
	int32_t		 att;
	int		 kind;
	int64_t		 ns;
};

struct path {
	struct seg	*s;
	size_t		 n;
	int64_t		 len;
	size_t		 nodes;
	char		*on;		/* per event: a node on the path */
	long long	 cycle;		/* nodes in a cycle */
};

static int
seg_kind(const struct opts *o, const struct edge *e)
{
	switch (e->kind) {
	case E_LAUNCH:
		return S_LAUNCH;
	case E_WAIT:
		return S_WAIT;
	case E_SYNC:
		return S_SYNC;
	}
	if (e->att < 0 || o->ev[e->att].kind != K_DEV)
		return S_HOST;
	return o->ev[e->att].fl & F_COMM ? S_COMM : S_KERNEL;
}

static void
longest(struct opts *o, struct path *pa)
{
	size_t nn = 2 * o->n, i, k, head, tail;
	size_t *pstart, *sstart, *pl, *sl, *order;
	int64_t *dist;
	int32_t *pred, *indeg, n, end = -1;
	char *node;

	memset(pa, 0, sizeof(*pa));
	pa->on = mct_xmalloc(o->n + 1);
	memset(pa->on, 0, o->n + 1);
	node = mct_xmalloc(nn + 1);
	for (i = 0; i < o->n; i++)
		node[2 * i] = node[2 * i + 1] = (o->ev[i].fl & F_GRAPH) != 0;
	pstart = mct_xmalloc((nn + 2) * sizeof(*pstart));
	sstart = mct_xmalloc((nn + 2) * sizeof(*sstart));
	memset(pstart, 0, (nn + 2) * sizeof(*pstart));
	memset(sstart, 0, (nn + 2) * sizeof(*sstart));
	for (k = 0; k < o->ne; k++) {
		pstart[o->e[k].v + 1]++;
		sstart[o->e[k].u + 1]++;
	}
	for (i = 0; i < nn; i++) {
		pstart[i + 1] += pstart[i];
		sstart[i + 1] += sstart[i];
	}
	pl = mct_xmalloc((o->ne + 1) * sizeof(*pl));
	sl = mct_xmalloc((o->ne + 1) * sizeof(*sl));
	{
		size_t *pp = mct_xmalloc((nn + 1) * sizeof(*pp)),
		    *sp = mct_xmalloc((nn + 1) * sizeof(*sp));

		memcpy(pp, pstart, nn * sizeof(*pp));
		memcpy(sp, sstart, nn * sizeof(*sp));
		for (k = 0; k < o->ne; k++) {
			pl[pp[o->e[k].v]++] = k;
			sl[sp[o->e[k].u]++] = k;
		}
		free(pp);
		free(sp);
	}
	indeg = mct_xmalloc((nn + 1) * sizeof(*indeg));
	order = mct_xmalloc((nn + 1) * sizeof(*order));
	dist = mct_xmalloc((nn + 1) * sizeof(*dist));
	pred = mct_xmalloc((nn + 1) * sizeof(*pred));
	head = tail = 0;
	for (i = 0; i < nn; i++) {
		indeg[i] = (int32_t)(pstart[i + 1] - pstart[i]);
		if (node[i] && indeg[i] == 0)
			order[tail++] = i;
	}
	while (head < tail) {
		size_t v = order[head++];

		for (k = sstart[v]; k < sstart[v + 1]; k++)
			if (--indeg[o->e[sl[k]].v] == 0)
				order[tail++] = (size_t)o->e[sl[k]].v;
	}
	for (i = 0; i < nn; i++)
		pa->cycle += node[i];
	pa->cycle -= (long long)tail;
	if (pa->cycle > 0)
		goto done;
	for (i = 0; i < tail; i++) {
		size_t v = order[i];
		int32_t best = -1;
		int64_t bd = 0;

		for (k = pstart[v]; k < pstart[v + 1]; k++) {
			const struct edge *e = &o->e[pl[k]];
			const struct edge *b = best >= 0 ? &o->e[best] : NULL;
			int64_t d = dist[e->u] + e->w;

			if (b == NULL || d > bd || (d == bd &&
			    (erank[e->kind] < erank[b->kind] ||
			    (erank[e->kind] == erank[b->kind] && e->u < b->u)))) {
				best = (int32_t)pl[k];
				bd = d;
			}
		}
		dist[v] = best >= 0 ? bd : 0;
		pred[v] = best;
		if (end < 0 || dist[v] > dist[end] ||
		    (dist[v] == dist[end] && (int32_t)v < end))
			end = (int32_t)v;
	}
	if (end < 0)
		goto done;
	pa->len = dist[end];
	/* back from the end: the segments, reversed at the end */
	for (n = end; ; n = o->e[pred[n]].u) {
		const struct edge *e;
		int sk;

		pa->nodes++;
		pa->on[n / 2] = 1;
		if (pred[n] < 0)
			break;
		e = &o->e[pred[n]];
		if (e->kind == E_DEP)
			continue;
		sk = seg_kind(o, e);
		if (pa->n > 0 && pa->s[pa->n - 1].att == e->att &&
		    pa->s[pa->n - 1].kind == sk) {
			pa->s[pa->n - 1].ns += e->w;
			continue;
		}
		pa->s = mct_xrealloc(pa->s, (pa->n + 1) * sizeof(*pa->s));
		pa->s[pa->n++] = (struct seg){ e->att, sk, e->w };
	}
	for (i = 0; i < pa->n / 2; i++) {
		struct seg t = pa->s[i];

		pa->s[i] = pa->s[pa->n - 1 - i];
		pa->s[pa->n - 1 - i] = t;
	}
	/* merging ran backwards: merge again forwards */
	for (i = k = 0; i < pa->n; i++) {
		if (k > 0 && pa->s[k - 1].att == pa->s[i].att &&
		    pa->s[k - 1].kind == pa->s[i].kind)
			pa->s[k - 1].ns += pa->s[i].ns;
		else
			pa->s[k++] = pa->s[i];
	}
	pa->n = k;
done:
	free(node);
	free(pstart);
	free(sstart);
	free(pl);
	free(sl);
	free(indeg);
	free(order);
	free(dist);
	free(pred);
}

/* The graph of the window, and its path. */
static int
analyse(struct opts *o, struct path *pa)
{
	int32_t *launch, *record;
	char *synced;
	size_t *ops, nops = 0, i;
	int64_t lo = 0, hi = 0;
	int haslo, hashi;

	if (window(o, &lo, &hi, &haslo, &hashi) != 0)
		return -1;
	launch = mct_xmalloc(((size_t)o->corrs.n + 1) * sizeof(*launch));
	record = mct_xmalloc(((size_t)o->corrs.n + 1) * sizeof(*record));
	synced = mct_xmalloc((size_t)o->corrs.n + 1);
	memset(synced, 0, (size_t)o->corrs.n + 1);
	for (i = 0; i < (size_t)o->corrs.n; i++)
		launch[i] = record[i] = -1;
	ops = mct_xmalloc((o->n + 1) * sizeof(*ops));
	for (i = 0; i < o->n; i++) {
		struct pev *p = &o->ev[i];

		p->fl &= ~F_GRAPH;
		if (p->kind != K_OP || (haslo && p->ts < lo) ||
		    (hashi && p->ts > hi))
			continue;
		p->fl |= F_GRAPH;
		ops[nops++] = i;
		if (p->corr >= 0 && (p->fl & F_HOSTCALL) &&
		    launch[p->corr] < 0)
			launch[p->corr] = (int32_t)i;
		if (p->corr >= 0 && (p->fl & F_RECORD) && record[p->corr] < 0)
			record[p->corr] = (int32_t)i;
	}
	for (i = 0; i < o->n; i++)
		if (o->ev[i].kind == K_SYNC && o->ev[i].corr >= 0 &&
		    launch[o->ev[i].corr] >= 0)
			synced[o->ev[i].corr] = 1;
	o->ne = 0;
	o->negative = o->noedge = 0;
	host_edges(o, ops, nops);
	device_edges(o, launch, record, synced);
	/* --scale: an event's own spans, the rest of the graph as it was */
	for (i = 0; i < o->ne && !o->unscaled; i++) {
		struct edge *e = &o->e[i];

		if ((e->kind == E_OP || e->kind == E_DEV) && e->att >= 0 &&
		    o->ev[e->att].f != 1)
			e->w = (int64_t)((double)e->w * o->ev[e->att].f);
	}
	longest(o, pa);
	free(ops);
	free(launch);
	free(record);
	free(synced);
	return 0;
}

/*
 * Output.
 */
static void
add_share(struct mct_buf *b, int64_t ns, int64_t len)
{
	char num[64];

	mct_buf_adds(b, ",\"share\":");
	snprintf(num, sizeof(num), "%.2f", len > 0 ? 100.0 * (double)ns /
	    (double)len : 0.0);
	mct_buf_adds(b, num);
}

static void
put_name(struct opts *o, struct mct_buf *b, int32_t name)
{
	const char *s = o->names.str[name];

	mct_buf_addjstr(b, s, strlen(s));
}

/* Each segment of the path, as an event with kind, crit and share. */
static void
write_segments(struct opts *o, const struct path *pa)
{
	struct mct_buf b = { 0 };
	size_t i;

	for (i = 0; i < pa->n; i++) {
		const struct seg *s = &pa->s[i];
		const char *lane;

		b.len = 0;
		mct_buf_adds(&b, "{\"name\":");
		if (s->att >= 0) {
			const struct pev *p = &o->ev[s->att];

			put_name(o, &b, p->name);
			mct_buf_adds(&b, ",\"ph\":\"X\",\"ts\":");
			mct_buf_addi(&b, p->ts);
			mct_buf_adds(&b, ",\"dur\":");
			mct_buf_addi(&b, p->dur);
			lane = o->lanes.str[p->lane];
			mct_buf_adds(&b, ",\"pid\":");
			mct_buf_add(&b, lane, strcspn(lane, "\037"));
			mct_buf_adds(&b, ",\"tid\":");
			mct_buf_adds(&b, lane + strcspn(lane, "\037") + 1);
		} else
			mct_buf_adds(&b, "\"(thread)\",\"ph\":\"X\"");
		mct_buf_adds(&b, ",\"kind\":\"");
		mct_buf_adds(&b, skind[s->kind]);
		mct_buf_adds(&b, "\",\"crit\":");
		mct_buf_addi(&b, s->ns);
		add_share(&b, s->ns, pa->len);
		mct_buf_addc(&b, '}');
		mct_out_json(&o->out, b.p, b.len);
	}
	mct_buf_free(&b);
}

/* -o table: what each kind of segment bounds, and its top event. */
static void
write_table(struct opts *o, const struct path *pa)
{
	struct mct_buf b = { 0 };
	int64_t ns[S_N] = { 0 }, topns[S_N] = { 0 };
	int32_t top[S_N];
	long long nseg[S_N] = { 0 };
	size_t i, j;
	int k;

	for (k = 0; k < S_N; k++)
		top[k] = -1;
	for (i = 0; i < pa->n; i++) {
		const struct seg *s = &pa->s[i];
		int64_t sum = 0;

		ns[s->kind] += s->ns;
		nseg[s->kind]++;
		if (s->att < 0)
			continue;
		for (j = 0; j < pa->n; j++)	/* the event's whole share */
			if (pa->s[j].att == s->att && pa->s[j].kind == s->kind)
				sum += pa->s[j].ns;
		if (top[s->kind] < 0 || sum > topns[s->kind]) {
			top[s->kind] = s->att;
			topns[s->kind] = sum;
		}
	}
	for (k = 0; k <= S_N; k++) {
		if (k < S_N && nseg[k] == 0)
			continue;
		b.len = 0;
		mct_buf_adds(&b, "{\"bound\":\"");
		mct_buf_adds(&b, k < S_N ? skind[k] : "total");
		mct_buf_adds(&b, "\",\"crit\":");
		mct_buf_addi(&b, k < S_N ? ns[k] : pa->len);
		add_share(&b, k < S_N ? ns[k] : pa->len, pa->len);
		mct_buf_adds(&b, ",\"segments\":");
		mct_buf_addi(&b, k < S_N ? nseg[k] : (int64_t)pa->n);
		mct_buf_adds(&b, ",\"top\":");
		if (k < S_N && top[k] >= 0)
			put_name(o, &b, o->ev[top[k]].name);
		else
			mct_buf_adds(&b, "\"\"");
		mct_buf_addc(&b, '}');
		mct_out_json(&o->out, b.p, b.len);
	}
	mct_buf_free(&b);
}

static void
summary(struct opts *o, const struct path *pa, const char *what)
{
	char num[64];
	long long ev = 0;
	size_t i;

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
	if (analyse(o, &pa) == 0 && pa.cycle == 0)
		summary(o, &pa, "before --scale: ");
	o->unscaled = 0;
	free(pa.s);
	free(pa.on);
}

static int
options(int argc, char *argv[], struct opts *o, struct mct_opts *mo)
{
	struct mct_cli c = { .usage = usage, .out = &o->out, .mo = mo,
	    .fields = DEFAULT_FIELDS, .no_trace = 1 };
	char *eq;
	int ch, abs;

	while ((ch = mct_cli_getopt(&c, argc, argv, "F:ho:qu:V",
	    longopts)) != -1) {
		switch (ch) {
		case 'q':
			o->quiet = 1;
			break;
		case OPT_STEP:
			o->step = optarg;
			break;
		case OPT_FROM:
			mct_opt_time("--from", optarg, &o->from, &abs);
			o->from_rel = !abs;
			o->has_from = 1;
			break;
		case OPT_TO:
			mct_opt_time("--to", optarg, &o->to, &abs);
			o->to_rel = !abs;
			o->has_to = 1;
			break;
		case OPT_SCALE:
			if ((eq = strrchr(optarg, '=')) == NULL ||
			    o->nsc == MAXSCALE) {
				fprintf(stderr, "mct-path: --scale '%s': "
				    "EXPR=F wanted (at most %d)\n", optarg,
				    MAXSCALE);
				usage(2);
			}
			*eq = '\0';
			o->sc[o->nsc].f = mct_opt_num("--scale", eq + 1, 0, 1e6);
			o->sc[o->nsc++].e = mct_opt_expr("--scale", optarg);
			break;
		default:
			usage(2);
		}
	}
	o->table = o->out.fmt != MCT_O_NDJSON;
	if (o->table && strcmp(c.fields, DEFAULT_FIELDS) == 0)
		mct_opt_fields("-F", TABLE_FIELDS, &o->out.fields,
		    &o->out.nfields);
	return optind;
}

int
main(int argc, char *argv[])
{
	struct opts o = { .out = { .fmt = MCT_O_NDJSON, .header = 1 } };
	struct mct_opts mo = { .unit = MCT_UNIT_AUTO };
	struct mct_reader *r;
	struct mct_event *ev;
	struct path pa;
	int n, i, status = MCT_EXIT_OK;

	mct_records_register();	/* the times of the tools' records */
	n = options(argc, argv, &o, &mo);
	argc -= n;
	argv += n;
	if (mct_rules_need() != 0)
		exit(MCT_EXIT_USAGE);
	for (i = 0; i < o.nsc; i++)
		if (mct_rules_expr(o.sc[i].e) && mct_rules_need() != 0)
			exit(MCT_EXIT_USAGE);
	r = mct_open(argc, argv, &mo);
	o.hdr = mct_header(r);
	while (mct_next(r, &ev))
		if (!mct_is_meta(ev))
			add(&o, ev);
		else
			o.seq++;
	if (o.nsc > 0 && !o.quiet)
		before(&o);
	if (analyse(&o, &pa) != 0) {
		fprintf(stderr, "%s: --step %s: no such event\n",
		    program_invocation_short_name, o.step);
		mct_close(r);
		return mct_finish(MCT_EXIT_USAGE);
	}
	if (pa.cycle > 0) {
		fprintf(stderr, "%s: %lld nodes in a cycle (times out of "
		    "order): no path\n", program_invocation_short_name,
		    pa.cycle);
		status = MCT_EXIT_DAMAGED;
	}
	mct_out_begin(&o.out, o.hdr);
	if (o.table)
		write_table(&o, &pa);
	else
		write_segments(&o, &pa);
	if (!o.quiet) {
		summary(&o, &pa, o.nsc ? "after --scale: " : "");
		if (o.negative)
			fprintf(stderr, "%s: %lld edges of negative weight "
			    "(times out of order), taken as 0\n",
			    program_invocation_short_name, o.negative);
		if (o.noedge)
			fprintf(stderr, "%s: %lld kernels with neither a launch "
			    "nor an earlier kernel to wait for\n",
			    program_invocation_short_name, o.noedge);
	}
	mct_out_end(&o.out);
	return mct_finish(mct_status(mct_close(r), status));
}
