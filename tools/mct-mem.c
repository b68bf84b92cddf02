/*
 * mct-mem - device memory over time, from the allocator's events.
 *
 * Kineto writes one instant event named [memory] per allocation and free
 * (profile_memory=True): Bytes (negative for a free), Total Allocated and
 * Total Reserved after it, Device Type and Device Id.  mct-mem keeps each
 * as a small struct, and the host intervals that say where it happened:
 * cpu_op slices and nn.Module python_function slices of each thread, and
 * the ProfilerStep#N slices of each process.  At the end each memory
 * event gets the innermost of each kind that holds it (one sweep per
 * kind over intervals and events sorted by lane and time, with a stack of
 * the open intervals), and the tool writes one of: the devices' summary
 * (the peak and when, the op, module and step at the peak), the
 * allocations by op or module and step, or the counter events that draw
 * allocated bytes over time in the viewer.
 */
#include "config.h"

#include <err.h>
#include <getopt.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "mct.h"

#define SUMMARY_FIELDS	"device,peak,rel,step,module,op"
#define BY_FIELDS	"device,step,%s,allocs,bytes,frees,freed"
#define MODULE_PREFIX	"nn.Module: "

#define BYTES(k)	{ .name = (k), .look = MCT_L_BYTES }
#define COUNT(k)	{ .name = (k), .look = MCT_L_COUNT }

/*
 * The keys of mct-mem's records that hold bytes and counts: in a human
 * table (table, md) 101.31 MB and 1,234, as mct-group writes its bytes
 * and counts; tsv, csv and ndjson keep the numbers.
 */
static const struct mct_vfield looks[] = {
	BYTES("peak"), BYTES("reserved"), BYTES("bytes"), BYTES("freed"),
	COUNT("allocs"), COUNT("frees"),
	BYTES("args.allocated"), BYTES("args.reserved")	/* --counters */
};

/* A host interval: an op, a module, a step. */
struct span {
	int32_t		 lane;		/* interned: pid, tid (a step: pid) */
	int32_t		 name;		/* interned JSON text */
	int64_t		 ts, end;
	long long	 seq;		/* input order */
};

struct spans {
	struct span	*v;
	size_t		 n, cap;
};

enum { K_OP, K_MODULE, K_STEP, NKIND };

/* A memory event. */
struct mem {
	int32_t		 lane, plane;	/* its thread, its process */
	int32_t		 dev;		/* interned device name */
	int32_t		 pid;		/* interned pid JSON text */
	int64_t		 ts, bytes, total, reserved;
	int		 hastotal, hasres;
	long long	 seq;
	int32_t		 in[NKIND];	/* innermost op, module, step; -1 */
};

/* Allocations and frees, counted and summed (int64 bytes: 8 EiB). */
struct tally {
	long long	 allocs, frees;
	int64_t		 bytes, freed;
};

/* A device's figures, and a row of --by. */
struct dev {
	int32_t		 dev;
	struct tally	 t;
	int		 has_peak;
	const struct mem *peak;
	int64_t		 peak_total;
	int64_t		 run;		/* the running sum, without Total Allocated */
};

struct row {
	int32_t		 dev, step, who;
	struct tally	 t;
};

struct opts {
	struct mct_out	 out;
	int		 by;		/* -1, K_OP or K_MODULE */
	int		 counters;	/* counter events (-o trace) */
	long long	 top;		/* rows per device; 0: all */
	struct mct_strtab st;
	struct spans	 sp[NKIND];
	struct mem	*m;
	size_t		 nm, mcap;
	long long	 seq, skipped;
	struct mct_field f_bytes, f_total, f_res, f_type, f_id;
	struct mct_buf	 tmp;
	int		 nsrc;
	const struct mct_header *hdr;
};

enum { OPT_BY = MCT_OPT_TOOL, OPT_COUNTERS, OPT_TOP };

static const struct option longopts[] = {
	{ "by",		required_argument,	NULL, OPT_BY },
	{ "counters",	no_argument,		NULL, OPT_COUNTERS },
	MCT_LONGOPT_FIELDS,
	MCT_LONGOPT_HELP,
	MCT_LONGOPT_NO_HEADER,
	MCT_LONGOPT_OUTPUT,
	MCT_LONGOPT_TIME_UNIT,
	{ "top",	required_argument,	NULL, OPT_TOP },
	MCT_LONGOPT_UNIT,
	MCT_LONGOPT_VERSION,
	MCT_LONGOPT_WIDTH,
	{ NULL,		0,			NULL, 0 }
};

static void
usage(int status)
{
	if (status != 0) {
		fprintf(stderr, "usage: mct-mem [-hV] [-F fields] [-o format] "
		    "[-u unit] [--by op|module] [--counters] [--top N] "
		    "[file ...]\n");
		mct_usage_hint();
	}
	printf("usage: mct-mem [-hV] [-F fields] [-o format] [-u unit] "
	    "[--by op|module] [--counters] [--top N] [file ...]\n"
	    "Device memory from the allocator's [memory] events (PyTorch "
	    "profiler,\nprofile_memory=True).  Writes one record per device: "
	    "its peak of allocated\nbytes, when, and the op, module and step "
	    "running then.\n\n"
	    "      --by op|module    allocations and frees by device, step "
	    "and op (or\n"
	    "                        module), most bytes first\n"
	    "      --top N           with --by: the first N rows of each "
	    "device\n"
	    "      --counters        the allocated and reserved bytes after "
	    "each event, as\n"
	    "                        counter events (ph C); -o trace implies "
	    "it\n"
	    "  -F, --fields LIST     columns for tsv, csv, table (default "
	    SUMMARY_FIELDS ";\n"
	    "                        with --by: device,step,op,allocs,bytes,"
	    "frees,freed)\n"
	    "  -o, --output FORMAT   table (default on a terminal), md, "
	    "ndjson (default\n"
	    "                        otherwise), tsv, csv, trace\n"
	    "      --no-header       no header line in tsv and csv output\n"
	    "      --width N         cut table and md cells wider than N "
	    "characters\n"
	    "                        (default 60; 0: never)\n"
	    "      --time-unit UNIT  times in tsv/csv/table/md: ns, us, ms, s "
	    "(default: ns in\n"
	    "                        tsv and csv, lengths for people in table "
	    "and md)\n"
	    "  -u, --unit UNIT       unit of a trace read directly: auto "
	    "(default), ns, us,\n"
	    "                        ms, s\n"
	    "  -h, --help            show this help and exit\n"
	    "  -V, --version         show the version and exit\n\n"
	    "Exit status: 0 success, 1 damaged input, 2 usage or unreadable "
	    "file.\nSee mct-mem(1) and mct(7).\n");
	exit(mct_finish(MCT_EXIT_OK));
}

/* The JSON text of a first-level key, interned; -1 if missing. */
static int32_t
key_id(struct opts *o, struct mct_event *ev, const char *key)
{
	struct mct_val v;

	if (mct_get_key(ev, key, &v) != 0)
		return -1;
	return mct_intern(&o->st, v.p, v.len);
}

/* The lane of an event: its operand, pid and, unless bypid, tid. */
static int32_t
lane(struct opts *o, struct mct_event *ev, int bypid)
{
	struct mct_buf *b = &o->tmp;
	struct mct_val v;

	b->len = 0;
	mct_buf_addi(b, ev->source);
	mct_buf_addc(b, '\037');
	if (mct_get_key(ev, "pid", &v) == 0)
		mct_buf_add(b, v.p, v.len);
	if (!bypid) {
		mct_buf_addc(b, '\037');
		if (mct_get_key(ev, "tid", &v) == 0)
			mct_buf_add(b, v.p, v.len);
	}
	return mct_intern(&o->st, b->p, b->len);
}

static int
get_int(struct mct_event *ev, const struct mct_field *f, int64_t *v)
{
	struct mct_val val;

	return mct_get(ev, f, &val) == 0 && val.type == MCT_J_NUMBER &&
	    mct_int(val.p, val.len, v) == 0 ? 0 : -1;
}

/* The device's name: cuda:0, hip:0, cpu, else "type T:N". */
static int32_t
device(struct opts *o, struct mct_event *ev, int64_t type, int64_t id)
{
	struct mct_buf *b = &o->tmp;
	char num[64];

	b->len = 0;
	mct_buf_addc(b, '"');
	if (type == 0 || id == -1)
		mct_buf_adds(b, "cpu");
	else {
		if (type == 1 || type == 6)
			snprintf(num, sizeof(num), "%s:%lld",
			    type == 1 ? "cuda" : "hip", (long long)id);
		else
			snprintf(num, sizeof(num), "type %lld:%lld",
			    (long long)type, (long long)id);
		mct_buf_adds(b, num);
	}
	if (o->nsrc > 1) {	/* operands' devices apart */
		mct_buf_adds(b, " of ");
		mct_buf_adds(b, o->hdr->src[ev->source].name);
	}
	mct_buf_addc(b, '"');
	return mct_intern(&o->st, b->p, b->len);
}

/*
 * A step's name as every tool takes it, decoded: one with an escape is
 * written again (Profiler\u0053tep#1 as ProfilerStep#1), so that one
 * step has one name however it was spelt.
 */
static int32_t
step_name(struct opts *o, const struct mct_val *name)
{
	struct mct_buf d = { 0 }, e = { 0 };
	int32_t id;

	if (memchr(name->p, '\\', name->len) == NULL)
		return mct_intern(&o->st, name->p, name->len);
	mct_jstr(name, &d);
	mct_buf_addjstr(&e, d.p ? d.p : "", d.len);
	id = mct_intern(&o->st, e.p, e.len);
	mct_buf_free(&d);
	mct_buf_free(&e);
	return id;
}

static void
add_span(struct opts *o, int kind, struct mct_event *ev,
    const struct mct_tdp *t, const struct mct_val *name)
{
	struct spans *s = &o->sp[kind];
	struct span *p;

	if (s->n == s->cap)
		s->v = mct_xgrow(s->v, s->cap = s->cap ? 2 * s->cap : 256,
		    sizeof(*s->v));
	p = &s->v[s->n++];
	p->lane = lane(o, ev, kind == K_STEP);
	p->name = kind == K_STEP ? step_name(o, name) :
	    mct_intern(&o->st, name->p, name->len);
	p->ts = t->ts;
	p->end = t->ts + t->dur;
	p->seq = o->seq;
}

static void
add_mem(struct opts *o, struct mct_event *ev, const struct mct_tdp *t)
{
	int64_t type, id;
	struct mem *m;

	if (o->nm == o->mcap)
		o->m = mct_xgrow(o->m, o->mcap = o->mcap ? 2 * o->mcap : 256,
		    sizeof(*o->m));
	m = &o->m[o->nm];
	memset(m, 0, sizeof(*m));
	if (!t->hasts || get_int(ev, &o->f_bytes, &m->bytes) != 0 ||
	    get_int(ev, &o->f_type, &type) != 0 ||
	    get_int(ev, &o->f_id, &id) != 0) {
		o->skipped++;
		return;
	}
	m->hastotal = get_int(ev, &o->f_total, &m->total) == 0;
	m->hasres = get_int(ev, &o->f_res, &m->reserved) == 0;
	m->ts = t->ts;
	m->seq = o->seq;
	m->lane = lane(o, ev, 0);
	m->plane = lane(o, ev, 1);
	m->pid = key_id(o, ev, "pid");
	m->dev = device(o, ev, type, id);
	m->in[K_OP] = m->in[K_MODULE] = m->in[K_STEP] = -1;
	o->nm++;
}

/* Keep what mct-mem needs of an event. */
static void
take(struct opts *o, struct mct_event *ev)
{
	struct mct_tdp t;
	struct mct_val name, cat;

	o->seq++;
	if (mct_get_key(ev, "name", &name) != 0 || name.type != MCT_J_STRING)
		return;
	mct_get_times(ev, &t);
	if (t.ph.type != MCT_J_STRING)
		return;
	if ((mct_jstr_eq(&t.ph, "i", 1) || mct_jstr_eq(&t.ph, "I", 1)) &&
	    mct_jstr_eq(&name, "[memory]", 8)) {
		add_mem(o, ev, &t);
		return;
	}
	if (!mct_jstr_eq(&t.ph, "X", 1) || !t.hasts || !t.hasdur ||
	    t.dur < 0 || !MCT_SANE_NS(t.ts) || !MCT_SANE_NS(t.dur))
		return;
	if (mct_is_step(ev))
		add_span(o, K_STEP, ev, &t, &name);
	if (mct_get_key(ev, "cat", &cat) != 0)
		return;
	if (mct_jstr_eq(&cat, "cpu_op", 6))
		add_span(o, K_OP, ev, &t, &name);
	else if (mct_jstr_eq(&cat, "python_function", 15) &&
	    name.len > sizeof(MODULE_PREFIX) &&
	    mct_jstr_prefix(&name, MODULE_PREFIX, sizeof(MODULE_PREFIX) - 1))
		add_span(o, K_MODULE, ev, &t, &name);
}

static int
cmp_span(const void *a, const void *b)
{
	const struct span *x = a, *y = b;

	if (x->lane != y->lane)
		return x->lane < y->lane ? -1 : 1;
	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	if (x->end != y->end)		/* the outer first */
		return x->end > y->end ? -1 : 1;
	return x->seq > y->seq ? -1 : x->seq < y->seq;	/* the first on top */
}

static int
cmp_time(const void *a, const void *b)
{
	const struct mem *x = *(const struct mem *const *)a,
	    *y = *(const struct mem *const *)b;

	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static int
cmp_lane_time(const void *a, const void *b, void *arg)
{
	const struct mem *x = *(const struct mem *const *)a,
	    *y = *(const struct mem *const *)b;
	int bypid = *(int *)arg;
	int32_t lx = bypid ? x->plane : x->lane, ly = bypid ? y->plane : y->lane;

	if (lx != ly)
		return lx < ly ? -1 : 1;
	return cmp_time(a, b);
}

/*
 * Each memory event's innermost interval of a kind: the one of its lane
 * that started last before it (ts <= t) and has not ended (t < end).
 */
static void
enclose(struct opts *o, int kind, struct mem **v)
{
	struct spans *s = &o->sp[kind];
	struct span **stack;
	size_t i, j = 0, depth = 0;
	int bypid = kind == K_STEP;
	int32_t cur = -1;

	mct_sort(s->v, s->n, sizeof(*s->v), cmp_span);
	mct_sort_r(v, o->nm, sizeof(*v), cmp_lane_time, &bypid);
	stack = mct_xmalloc((s->n + 1) * sizeof(*stack));
	for (i = 0; i < o->nm; i++) {
		struct mem *m = v[i];
		int32_t l = bypid ? m->plane : m->lane;

		if (l != cur) {
			depth = 0;
			cur = l;
		}
		while (j < s->n && s->v[j].lane < l)
			j++;
		for (; j < s->n && s->v[j].lane == l && s->v[j].ts <= m->ts;
		    j++) {
			while (depth > 0 && stack[depth - 1]->end <= s->v[j].ts)
				depth--;
			stack[depth++] = &s->v[j];
		}
		while (depth > 0 && stack[depth - 1]->end <= m->ts)
			depth--;
		m->in[kind] = depth > 0 ? stack[depth - 1]->name : -1;
	}
	free(stack);
}

static void
tally(struct tally *t, int64_t bytes)
{
	if (bytes > 0) {
		t->allocs++;
		t->bytes = mct_sat_add(t->bytes, bytes);
	} else if (bytes < 0) {
		t->frees++;
		/* (a damaged Bytes; -INT64_MIN is past int64 too) */
		t->freed = mct_sat_add(t->freed, bytes == INT64_MIN ?
		    INT64_MAX : -bytes);
	}
}

/* The devices, in the order their first event came (in time). */
static struct dev *
devices(struct opts *o, struct mem **v, size_t *ndev)
{
	struct dev *d = NULL, *x;
	size_t i, k, n = 0;

	for (i = 0; i < o->nm; i++) {
		const struct mem *m = v[i];

		for (k = 0; k < n && d[k].dev != m->dev; k++)
			;
		if (k == n) {
			d = mct_xrealloc(d, (n + 1) * sizeof(*d));
			memset(&d[n], 0, sizeof(*d));
			d[n++].dev = m->dev;
		}
		x = &d[k];
		x->run = mct_sat_add(x->run, m->bytes);
		if (!m->hastotal)
			((struct mem *)m)->total = x->run;
		tally(&x->t, m->bytes);
		if (!x->has_peak || m->total > x->peak_total) {
			x->has_peak = 1;
			x->peak_total = m->total;
			x->peak = m;
		}
	}
	*ndev = n;
	return d;
}

/* ,"key":NAME, or nothing for -1 (or "(no op)" for an op). */
static void
add_name(struct opts *o, struct mct_buf *b, const char *key, int32_t id,
    int kind)
{
	if (id < 0 && kind != K_OP)
		return;
	mct_buf_addc(b, ',');
	mct_buf_addjstr(b, key, strlen(key));
	mct_buf_addc(b, ':');
	if (id < 0)
		mct_buf_adds(b, "\"" MCT_NOOP "\"");
	else
		mct_buf_adds(b, o->st.str[id]);
}

/* The record in b, ended with the tally's figures (unless NULL). */
static void
emit(struct opts *o, struct mct_buf *b, const struct tally *t)
{
	if (t != NULL) {
		mct_buf_adds(b, ",\"allocs\":");
		mct_buf_addi(b, t->allocs);
		mct_buf_adds(b, ",\"bytes\":");
		mct_buf_addi(b, t->bytes);
		mct_buf_adds(b, ",\"frees\":");
		mct_buf_addi(b, t->frees);
		mct_buf_adds(b, ",\"freed\":");
		mct_buf_addi(b, t->freed);
		mct_buf_addc(b, '}');
	}
	mct_out_json(&o->out, b->p, b->len);
}

static void
summary(struct opts *o, const struct dev *d, size_t n)
{
	struct mct_buf b = { 0 };
	size_t i;

	for (i = 0; i < n; i++) {
		const struct mem *p = d[i].peak;

		b.len = 0;
		mct_buf_adds(&b, "{\"device\":");
		mct_buf_adds(&b, o->st.str[d[i].dev]);
		mct_buf_adds(&b, ",\"ts\":");
		mct_buf_addi(&b, p->ts);
		mct_buf_adds(&b, ",\"peak\":");
		mct_buf_addi(&b, d[i].peak_total);
		if (p->hasres) {
			mct_buf_adds(&b, ",\"reserved\":");
			mct_buf_addi(&b, p->reserved);
		}
		add_name(o, &b, "step", p->in[K_STEP], K_STEP);
		add_name(o, &b, "op", p->in[K_OP], K_OP);
		add_name(o, &b, "module", p->in[K_MODULE], K_MODULE);
		emit(o, &b, &d[i].t);
	}
	mct_buf_free(&b);
}

/* One device's rows: most bytes first, then by name and step. */
static int
cmp_row(const void *a, const void *b, void *arg)
{
	const struct row *x = a, *y = b;
	const struct opts *o = arg;

	if (x->t.bytes != y->t.bytes)
		return x->t.bytes > y->t.bytes ? -1 : 1;
	if (x->who != y->who) {
		if (x->who < 0 || y->who < 0)
			return x->who < 0 ? 1 : -1;
		return strcmp(o->st.str[x->who], o->st.str[y->who]);
	}
	if (x->step != y->step) {
		if (x->step < 0 || y->step < 0)
			return x->step < 0 ? 1 : -1;
		return strcmp(o->st.str[x->step], o->st.str[y->step]);
	}
	return 0;
}

/* --by op|module: allocations and frees by device, step and op. */
static void
by(struct opts *o, struct mem **v, const struct dev *d, size_t ndev)
{
	const char *who = o->by == K_OP ? "op" : "module";
	struct mct_map map = { 0 };
	struct mct_buf b = { 0 };
	struct row *r = NULL;
	size_t i, k, n = 0, from;
	long long shown;

	for (i = 0; i < o->nm; i++) {
		const struct mem *m = v[i];
		int32_t key[3] = { m->dev, m->in[K_STEP], m->in[o->by] };
		struct mct_mapent *e;
		struct row *x;
		int isnew;

		e = mct_map_add(&map, key, sizeof(key), &isnew);
		if (isnew) {
			r = mct_xgrow(r, n, sizeof(*r));
			memset(&r[n], 0, sizeof(*r));
			r[n].dev = key[0];
			r[n].step = key[1];
			r[n].who = key[2];
			e->val.i = (int64_t)n++;
		}
		x = &r[e->val.i];
		tally(&x->t, m->bytes);
	}
	for (k = 0; k < ndev; k++) {
		/* this device's rows, together, most bytes first */
		for (from = 0, i = 0; i < n; i++)
			if (r[i].dev == d[k].dev) {
				struct row t = r[from];

				r[from] = r[i];
				r[i] = t;
				from++;
			}
		mct_sort_r(r, from, sizeof(*r), cmp_row, o);
		for (shown = 0, i = 0; i < from &&
		    (o->top == 0 || shown < o->top); i++, shown++) {
			b.len = 0;
			mct_buf_adds(&b, "{\"device\":");
			mct_buf_adds(&b, o->st.str[r[i].dev]);
			add_name(o, &b, "step", r[i].step, K_STEP);
			add_name(o, &b, who, r[i].who, o->by);
			emit(o, &b, &r[i].t);
		}
		/* the rest, after this device's */
		memmove(r, r + from, (n - from) * sizeof(*r));
		n -= from;
	}
	free(r);
	mct_map_free(&map);
	mct_buf_free(&b);
}

/* --counters: allocated (and reserved) bytes after each event. */
static void
counters(struct opts *o, struct mem **v)
{
	struct mct_buf b = { 0 };
	size_t i;

	for (i = 0; i < o->nm; i++) {
		const struct mem *m = v[i];
		const char *dev = o->st.str[m->dev];

		b.len = 0;
		mct_buf_adds(&b, "{\"name\":\"memory ");
		mct_buf_add(&b, dev + 1, strlen(dev) - 1);	/* its quote */
		mct_buf_adds(&b, ",\"ph\":\"C\",\"ts\":");
		mct_buf_addi(&b, m->ts);
		if (m->pid >= 0) {
			mct_buf_adds(&b, ",\"pid\":");
			mct_buf_adds(&b, o->st.str[m->pid]);
		}
		mct_buf_adds(&b, ",\"args\":{\"allocated\":");
		mct_buf_addi(&b, m->total);
		if (m->hasres) {
			mct_buf_adds(&b, ",\"reserved\":");
			mct_buf_addi(&b, m->reserved);
		}
		mct_buf_adds(&b, "}}");
		emit(o, &b, NULL);
	}
	mct_buf_free(&b);
}

/* --by's argument, or exit with a message. */
static int
opt_by(const char *arg)
{
	if (strcmp(arg, "op") != 0 && strcmp(arg, "module") != 0) {
		warnx("--by: '%s' is not op or module", arg);
		mct_usage_hint();
	}
	return strcmp(arg, "op") == 0 ? K_OP : K_MODULE;
}

static int
options(int argc, char *argv[], struct opts *o, struct mct_opts *mo)
{
	const struct mct_flag flags[] = { { OPT_COUNTERS, &o->counters },
	    { 0, NULL } };
	struct mct_cli c = { .usage = usage, .flags = flags, .out = &o->out,
	    .mo = mo, .tty_table = 1 };
	int ch;

	while ((ch = mct_cli_getopt(&c, argc, argv, "F:ho:u:V",
	    longopts)) != -1) {
		switch (ch) {
		case OPT_BY:
			o->by = opt_by(optarg);
			break;
		case OPT_TOP:
			o->top = mct_opt_count("--top", optarg, 1);
			break;
		default:
			usage(2);
		}
	}
	return optind;
}

/* What the options make together: counters with -o trace, the default -F. */
static void
modes(struct opts *o)
{
	char def[64];

	if (o->out.fmt == MCT_O_TRACE)
		o->counters = 1;
	if (o->counters && o->by >= 0) {
		warnx("--counters and --by: one at a time");
		mct_usage_hint();
	}
	if (o->top != 0 && o->by < 0) {
		warnx("--top goes with --by (the first N rows of each device)");
		mct_usage_hint();
	}
	if (o->out.nfields == 0) {
		if (o->by >= 0)
			snprintf(def, sizeof(def), BY_FIELDS,
			    o->by == K_OP ? "op" : "module");
		else if (o->counters)
			snprintf(def, sizeof(def), "rel,name,args.allocated");
		else
			snprintf(def, sizeof(def), "%s", SUMMARY_FIELDS);
		mct_opt_fields("-F", def, &o->out.fields, &o->out.nfields);
	}
}

int
main(int argc, char *argv[])
{
	struct opts o = { .by = -1, .out = { .fmt = MCT_O_NDJSON, .header = 1 } };
	struct mct_opts mo = { .unit = MCT_UNIT_AUTO };
	struct mct_reader *r;
	struct mct_event *ev;
	struct mem **v;
	struct dev *d;
	size_t i, ndev;
	int n;

	mct_records_register();	/* the times of the tools' records */
	mct_field_times(looks, sizeof(looks) / sizeof(looks[0]));
	o.out.rel_human = 1;	/* the peak's rel: 4.78 ms, not 4775792 */
	n = options(argc, argv, &o, &mo);
	modes(&o);
	argc -= n;
	argv += n;
	if (mct_field_parse("args.Bytes", &o.f_bytes) != 0 ||
	    mct_field_parse("args.\"Total Allocated\"", &o.f_total) != 0 ||
	    mct_field_parse("args.\"Total Reserved\"", &o.f_res) != 0 ||
	    mct_field_parse("args.\"Device Type\"", &o.f_type) != 0 ||
	    mct_field_parse("args.\"Device Id\"", &o.f_id) != 0)
		errx(MCT_EXIT_USAGE, "the [memory] fields do not parse");
	r = mct_open(argc, argv, &mo);
	o.hdr = mct_header(r);
	o.nsrc = o.hdr->nsrc;
	mct_out_begin(&o.out, o.hdr);
	while (mct_next(r, &ev)) {
		if (mct_is_meta(ev)) {
			/* names for the viewer; not rows of a table */
			if (o.counters && (o.out.fmt == MCT_O_NDJSON ||
			    o.out.fmt == MCT_O_TRACE))
				mct_out_event(&o.out, ev);
		} else
			take(&o, ev);
	}
	v = mct_xmalloc((o.nm + 1) * sizeof(*v));
	for (i = 0; i < o.nm; i++)
		v[i] = &o.m[i];
	if (!o.counters)
		for (n = 0; n < NKIND; n++)
			enclose(&o, n, v);
	mct_sort(v, o.nm, sizeof(*v), cmp_time);
	d = devices(&o, v, &ndev);
	if (o.counters)
		counters(&o, v);
	else if (o.by >= 0)
		by(&o, v, d, ndev);
	else
		summary(&o, d, ndev);
	if (o.skipped > 0)
		warnx("%lld [memory] event%s without a whole Bytes, Device "
		    "Type or Device Id: left out", o.skipped,
		    o.skipped == 1 ? "" : "s");
	if (o.nm == 0 && o.hdr->nread > 0)
		warnx("no [memory] events: the trace was recorded without "
		    "memory (PyTorch profiler: profile_memory=True)");
	mct_out_end(&o.out);
	free(v);
	free(d);
	return mct_finish(mct_close(r));
}
