/*
 * mct-flow - join host calls to the device work they caused.
 *
 * Key mode (args.co_id, args.correlation, or --key FIELD): a host call
 * and its device events share a correlation id.  The host call is
 * remembered as a small struct; a device event whose host call has been
 * seen is written at once, one that comes first waits (its line is kept)
 * until the host call arrives.  On a time-sorted input a host call is
 * forgotten --window after it ended, so memory stays bounded (all of
 * this is lib/flow.c's, which mct-diff shares).  Flow events (s/f) are
 * only checked for dangling ends.
 *
 * Flow mode (no correlation ids anywhere, but s/f flow events): each flow
 * end is bound to the X slice that encloses it on its lane (an f with no
 * enclosing slice binds to the next slice), which needs the slices again:
 * they are spooled to a temporary file until a correlation id shows that
 * key mode applies.
 *
 * --stack (lib/stack.c): each pair waits until the host intervals around
 * its launch are known, and gains stack, op, annotation and module; -o
 * folded sums the device time of each distinct stack instead.
 */
#include "config.h"

#include <err.h>
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mct.h"
#include "mct-flow.h"

#define DEFAULT_FIELDS	"launch.name,name,latency,queue"

static const char pair_fields[] = DEFAULT_FIELDS;	/* -F's default */

/* A flow end (s or f), and the slice it binds to (flow mode). */
struct fend {
	char		*id;
	int32_t		 lane;		/* interned pid + tid */
	int		 start;		/* s, else f */
	int		 bpe;		/* f with "bp":"e": enclosing only */
	int64_t		 ts;
	long long	 slice;		/* spool offset of the bound slice, -1 */
	int64_t		 sts, sdur;	/* the bound slice's start and length */
};

struct opts {
	struct mct_flow	 fl;		/* key mode (lib/flow.c) */
	struct mct_seen	 seen;		/* was --key in some event? */
	int		 orphans, quiet, stack;
	int		 device;	/* --device: device work's pairs only */
	const char	*stepname, *under;	/* --step-name, --under */
	struct mct_out	 out;
	const struct mct_header *hdr;
	int		 keyed;		/* some event had a correlation id */
	long long	 no_dev;
	/* flow ends, for dangling counts and flow mode */
	struct fend	*fe;
	size_t		 nfe, fecap;
	struct mct_map	 tt;		/* key mode: open flow ids -> s, f ends */
	FILE		*spool;
	char		*spoolvb;	/* its buffer */
	long long	 spooled;
	struct mct_buf	 tmp, line;
	/* --stack, -o folded */
	int		 folded;
	int		 deffields;	/* --idle, --queue without -F */
	struct mct_map	 fold;		/* frames;kernel -> device ns */
	int		 damaged;	/* unbalanced B/E */
	struct mct_buf	 sline, sfold;
	struct ftab	 tab;		/* --idle, --queue (flow-tables.c) */
};

enum { OPT_HOST = MCT_OPT_TOOL, OPT_KEY, OPT_ORPHANS, OPT_STACK, OPT_WINDOW,
    OPT_STEP_NAME, OPT_UNDER, OPT_DEVICE };	/* FT_OPT_*: mct-flow.h */

static const struct option longopts[] = {
	{ "device",	no_argument,		NULL, OPT_DEVICE },
	MCT_LONGOPT_FIELDS,
	MCT_LONGOPT_HELP,
	{ "host",	required_argument,	NULL, OPT_HOST },
	{ "idle",	no_argument,		NULL, FT_OPT_IDLE },
	{ "kernel-wait", required_argument,	NULL, FT_OPT_KWAIT },
	{ "key",	required_argument,	NULL, OPT_KEY },
	MCT_LONGOPT_NO_HEADER,
	{ "orphans",	no_argument,		NULL, OPT_ORPHANS },
	MCT_LONGOPT_OUTPUT,
	MCT_LONGOPT_PAIR_BE,
	{ "queue",	no_argument,		NULL, FT_OPT_QUEUE },
	{ "queue-limit", required_argument,	NULL, FT_OPT_LIMIT },
	{ "quiet",	no_argument,		NULL, 'q' },
	MCT_LONGOPT_RULES,
	{ "stack",	no_argument,		NULL, OPT_STACK },
	{ "step-name",	required_argument,	NULL, OPT_STEP_NAME },
	MCT_LONGOPT_TIME_UNIT,
	{ "under",	required_argument,	NULL, OPT_UNDER },
	MCT_LONGOPT_UNIT,
	MCT_LONGOPT_VERSION,
	{ "window",	required_argument,	NULL, OPT_WINDOW },
	MCT_LONGOPT_WIDTH,
	{ NULL,		0,			NULL, 0 }
};

static void
usage(int status)
{
	if (status != 0) {
		fprintf(stderr, "usage: mct-flow [-hqV] [-F fields] [-o format] "
		    "[-u unit] [--key field] [--stack | --idle | --queue] "
		    "[file ...]\n");
		mct_usage_hint();
	}
	printf("usage: mct-flow [-hqV] [-F fields] [-o format] [-u unit] "
	    "[--key field] [--stack | --idle | --queue] [file ...]\n"
	    "Pair each host call with the device events it caused.  Writes "
	    "the device\nevent with launch (the host call's name, ts, dur, "
	    "pid, tid), latency\n(device start - launch start) and queue "
	    "(device start - launch end).\n\n"
	    "      --device          only the pairs of device work (kernels, "
	    "copies,\n"
	    "                        memsets: not Kineto's cuda_sync waits, "
	    "not flows\n"
	    "                        between host slices)\n"
	    "      --key FIELD       the correlation id (default: args.co_id, "
	    "else\n"
	    "                        args.correlation, else flow event ids)\n"
	    "      --idle            instead of the pairs, a table of each "
	    "device stream's\n"
	    "                        idle time by cause: host_wait, "
	    "kernel_wait, other_wait\n"
	    "      --kernel-wait T   --idle: a shorter gap the host was not "
	    "late for is\n"
	    "                        kernel wait (default 30us)\n"
	    "      --queue           instead of the pairs, each device "
	    "stream's queue\n"
	    "                        length: count, mean, stddev, max, p50, "
	    "p95, at_limit;\n"
	    "                        with -o trace as counter events\n"
	    "      --queue-limit N   --queue: at_limit is time at N or "
	    "more (default 1024)\n"
	    "      --host EXPR       which events are host calls (default: cat "
	    "ending in\n"
	    "                        runtime or driver, or pid 1 without cat)\n"
	    "      --orphans         also write unpaired events, with \"orphan\"\n"
	    "      --pair-be         each matched B/E pair of a thread as one X "
	    "event\n"
	    "  -q, --quiet           no summary on stderr\n"
	    "      --rules FILE      the rules file, for category in --key, --host\n"
	    "                        or -F\n"
	    "      --stack           add the host stack of each launch: stack, op,\n"
	    "                        annotation, module, gpu_annotation, step\n"
	    "      --step-name NAME  steps are the annotations NAME#N (default\n"
	    "                        ProfilerStep); implies --stack\n"
	    "      --under GLOB      only the pairs with a stack frame whose name\n"
	    "                        matches GLOB; implies --stack\n"
	    "      --window T        on a time-sorted input, forget a host call "
	    "T after\n"
	    "                        it ended (default 10s; 0: never)\n"
	    "  -F, --fields LIST     columns for tsv, csv, table (default "
	    DEFAULT_FIELDS ")\n"
	    "  -o, --output FORMAT   ndjson (default), tsv, csv, table, md, trace,\n"
	    "                        folded (device ns per stack, for flame graphs)\n"
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
	    "Exit status: 0 success, 1 damaged input, 2 usage or unreadable "
	    "file.\nSee mct-flow(1) and mct(7).\n");
	exit(mct_finish(MCT_EXIT_OK));
}

/* -o folded: frames;kernel, device time summed per distinct line. */
static void
fold(struct opts *o, struct mct_event *ev)
{
	struct mct_val name;
	struct mct_mapent *e;
	int64_t dur;
	size_t i, from;

	if (mct_get_ns(ev, "dur", &dur) != 0 || !MCT_SANE_NS(dur) || dur < 0)
		dur = 0;
	mct_buf_addc(&o->sfold, ';');
	from = o->sfold.len;
	if (mct_get_key(ev, "name", &name) == 0)
		mct_jstr(&name, &o->sfold);
	for (i = from; i < o->sfold.len; i++)	/* ; separates frames */
		if (o->sfold.p[i] == ';' || o->sfold.p[i] == '\n')
			o->sfold.p[i] = o->sfold.p[i] == ';' ? ':' : ' ';
	e = mct_map_add(&o->fold, o->sfold.p, o->sfold.len, NULL);
	if (__builtin_add_overflow(e->val.i, dur, &e->val.i))
		e->val.i = INT64_MAX;
}

/* --stack: write the pairs whose stacks are known. */
static void
stack_drain(struct opts *o)
{
	struct mct_event ev;
	int rc;

	while ((rc = mct_stack_next(o->fl.stk, &o->sline, &o->sfold)) == 1) {
		mct_event_init(&ev, o->sline.p, o->sline.len, o->hdr);
		if (o->folded)
			fold(o, &ev);
		else
			mct_out_event(&o->out, &ev);
		mct_event_free(&ev);
	}
	if (rc < 0)
		exit(MCT_EXIT_USAGE);
}

static int
cmp_key(const void *a, const void *b)
{
	const struct mct_mapent *x = *(const struct mct_mapent *const *)a,
	    *y = *(const struct mct_mapent *const *)b;

	return strcmp(x->key, y->key);
}

/* -o folded: the lines, by stack. */
static void
fold_write(struct opts *o)
{
	struct mct_mapent *e, **v;
	char num[32];
	size_t i, n = 0, it = 0;

	v = mct_xmalloc((o->fold.n + 1) * sizeof(*v));
	while ((e = mct_map_next(&o->fold, &it)) != NULL)
		v[n++] = e;
	mct_sort(v, n, sizeof(*v), cmp_key);
	for (i = 0; i < n; i++) {
		mct_write(v[i]->key, v[i]->len);
		mct_write(num, (size_t)snprintf(num, sizeof(num), " %lld\n",
		    (long long)v[i]->val.i));
	}
	free(v);
}

static const char *const orphan_key[] = { "orphan", NULL };

static void
orphan(struct opts *o, const char *json, size_t len, const char *why)
{
	struct mct_buf *b = &o->line;
	struct mct_event ev;

	if (!o->orphans)
		return;
	b->len = 0;
	mct_buf_add(b, json, len - 1);
	if (len > 2)
		mct_buf_addc(b, ',');
	mct_buf_adds(b, "\"orphan\":");
	mct_buf_addjstr(b, why, strlen(why));
	mct_buf_addc(b, '}');
	mct_keep_last(b, 0, orphan_key);	/* ours, not the event's own */
	mct_event_init(&ev, b->p, b->len, o->hdr);
	mct_out_event(&o->out, &ev);
	mct_event_free(&ev);
}

/* A key mode pair, without --stack. */
static void
put(void *arg, struct mct_event *ev)
{
	struct opts *o = arg;

	if (o->tab.mode != FT_PAIRS)
		ftab_add(&o->tab, ev, o->hdr);
	else
		mct_out_event(&o->out, ev);
}

/* A host call that caused no device work: counted, written with --orphans. */
static void
no_device(void *arg, const struct mct_corr *c, const struct mct_mapent *e)
{
	struct opts *o = arg;
	struct mct_buf b = { 0 };
	const char *r;

	o->no_dev++;
	if (!o->orphans)
		return;
	mct_buf_adds(&b, "{\"name\":");
	mct_buf_adds(&b, o->fl.st.str[c->name]);
	mct_buf_adds(&b, ",\"ph\":\"X\",\"ts\":");
	mct_buf_addi(&b, c->ts);
	mct_buf_adds(&b, ",\"dur\":");
	mct_buf_addi(&b, c->dur);
	mct_buf_adds(&b, ",\"pid\":");
	mct_buf_adds(&b, o->fl.st.str[c->pid]);
	mct_buf_adds(&b, ",\"tid\":");
	mct_buf_adds(&b, o->fl.st.str[c->tid]);
	mct_buf_adds(&b, ",\"key\":");
	if ((r = memchr(e->key, '\036', e->len)) != NULL) {
		mct_buf_addjstr(&b, r + 1, e->len - (size_t)(r + 1 - e->key));
		mct_buf_adds(&b, ",\"rank\":");
		mct_buf_add(&b, e->key, (size_t)(r - e->key));
	} else
		mct_buf_addjstr(&b, e->key, e->len);
	mct_buf_addc(&b, '}');
	orphan(o, b.p, b.len, "launch without device event");
	mct_buf_free(&b);
}

/*
 * Key mode: count a flow end; an id with both an s and an f end is done
 * and forgotten (Kineto writes one of each), so only open ids are kept.
 */
static void
tally(struct opts *o, const char *id, int start)
{
	struct mct_mapent *e = mct_map_add(&o->tt, id, strlen(id), NULL);

	e->val.u[start ? 0 : 1]++;	/* s ends, f ends */
	if (e->val.u[0] && e->val.u[1])
		mct_map_del(&o->tt, e);
}

/* Key mode from now on: the flow ends kept for flow mode become tallies. */
static void
to_key_mode(struct opts *o)
{
	size_t i;

	o->keyed = 1;
	if (o->spool)
		fclose(o->spool);
	o->spool = NULL;
	free(o->spoolvb);
	o->spoolvb = NULL;
	for (i = 0; i < o->nfe; i++) {
		tally(o, o->fe[i].id, o->fe[i].start);
		free(o->fe[i].id);
	}
	free(o->fe);
	o->fe = NULL;
	o->nfe = o->fecap = 0;
}

static void
add_fend(struct opts *o, struct mct_event *ev, int start)
{
	struct mct_val id, bp, pid, tid, cat;
	struct fend *f;
	int64_t ts;

	if (mct_get_key(ev, "id", &id) != 0 || mct_get_ns(ev, "ts", &ts) != 0 ||
	    !MCT_SANE_NS(ts))
		return;
	if (o->keyed) {
		o->tmp.len = 0;
		mct_flow_rank(&o->fl, ev, &o->tmp);
		if (mct_get_key(ev, "cat", &cat) == 0)
			mct_jstr(&cat, &o->tmp);
		mct_buf_addc(&o->tmp, '\037');
		mct_jstr(&id, &o->tmp);
		tally(o, o->tmp.p, start);
		return;
	}
	if (o->nfe == o->fecap) {
		o->fecap = o->fecap ? o->fecap * 2 : 1024;
		o->fe = mct_xrealloc(o->fe, o->fecap * sizeof(*o->fe));
	}
	f = &o->fe[o->nfe++];
	memset(f, 0, sizeof(*f));
	/* a flow is its cat and id: Kineto's ac2g and fwdbwd share ids */
	o->tmp.len = 0;
	mct_flow_rank(&o->fl, ev, &o->tmp);
	if (mct_get_key(ev, "cat", &cat) == 0)
		mct_jstr(&cat, &o->tmp);
	mct_buf_addc(&o->tmp, '\037');
	mct_jstr(&id, &o->tmp);
	f->id = mct_xstrdup(o->tmp.p);
	mct_get_key(ev, "pid", &pid);
	mct_get_key(ev, "tid", &tid);
	o->tmp.len = 0;
	mct_flow_rank(&o->fl, ev, &o->tmp);
	mct_buf_add(&o->tmp, pid.p ? pid.p : "", pid.len);
	mct_buf_addc(&o->tmp, '\037');
	mct_buf_add(&o->tmp, tid.p ? tid.p : "", tid.len);
	f->lane = mct_intern(&o->fl.st, o->tmp.p, o->tmp.len);
	f->start = start;
	f->bpe = !start && mct_get_key(ev, "bp", &bp) == 0 &&
	    mct_jstr_eq(&bp, "e", 1);
	f->ts = ts;
	f->slice = -1;
}

/* One event (key mode, and what flow mode needs). */
static void
add(struct opts *o, struct mct_event *ev)
{
	struct mct_val ph;

	if (mct_get_key(ev, "ph", &ph) != 0 || ph.type != MCT_J_STRING)
		return;
	if (mct_jstr_eq(&ph, "s", 1) || mct_jstr_eq(&ph, "f", 1)) {
		if (!o->fl.haskey)
			add_fend(o, ev, mct_jstr_eq(&ph, "s", 1));
		return;
	}
	/* --device: a correlated event that is neither a launch nor work */
	if (o->device && mct_jstr_eq(&ph, "X", 1) && !mct_device(ev) &&
	    !mct_flow_is_host(&o->fl, ev) &&
	    mct_flow_key(&o->fl, ev, &o->tmp) == 0)
		return;
	switch (mct_flow_add(&o->fl, ev, &o->tmp)) {
	case -1:
		exit(MCT_EXIT_USAGE);
	case MCT_FLOW_NOKEY:
		if (o->spool && !o->keyed) {
			/* flow mode may need this slice again */
			if (fwrite(ev->json, 1, ev->len, o->spool) != ev->len ||
			    putc('\n', o->spool) == EOF)
				err(MCT_EXIT_USAGE, "flow spool");
		}
		break;
	case MCT_FLOW_KEYED:
		if (!o->keyed)	/* the spool and flow ends are not needed */
			to_key_mode(o);
		break;
	}
}

/* A slice of flow mode: where it is, and where its line is in the spool. */
struct slice {
	int32_t		 lane;
	int64_t		 ts, dur;
	long long	 off;
};

/*
 * By lane, start, then longest first, then last in the input first: the
 * backward search meets the shortest of equal starts first, and of equal
 * slices the first in the input.
 */
static int
cmp_slice(const void *a, const void *b)
{
	const struct slice *x = a, *y = b;

	if (x->lane != y->lane)
		return x->lane < y->lane ? -1 : 1;
	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	if (x->dur != y->dur)
		return x->dur > y->dur ? -1 : 1;
	return x->off > y->off ? -1 : x->off < y->off;
}

static int
cmp_fid(const void *a, const void *b)
{
	const struct fend *x = *(struct fend *const *)a,
	    *y = *(struct fend *const *)b;
	int r = strcmp(x->id, y->id);

	return r ? r : y->start - x->start;	/* s before f */
}

/* Read back the slice at a spool offset. */
static int
slice_at(struct opts *o, FILE *f, long long off, struct mct_buf *b)
{
	int c;

	b->len = 0;
	if (fseeko(f, off, SEEK_SET) != 0)
		return -1;
	while ((c = getc(f)) != EOF && c != '\n')
		mct_buf_addc(b, c);
	(void)o;
	return b->len > 0 ? 0 : -1;
}

/*
 * Flow mode: bind flow ends to slices, then pair s and f of each id.
 * Returns the counts of orphans through the pointers.
 */
static void
flow_mode(struct opts *o, FILE *sp, long long *no_dev, long long *no_host,
    long long *dangling)
{
	struct mct_buf line = { 0 }, hl = { 0 };
	struct slice *sls = NULL;
	size_t nsl = 0, slcap = 0;
	struct fend **byid;
	long long off = 0;
	size_t i, j, lo, hi;
	int c;

	/* the slices, by lane and start: a few words each */
	rewind(sp);
	for (;;) {
		struct mct_event ev;
		struct mct_val pid, tid;
		struct slice *sl;
		int64_t ts, dur;

		line.len = 0;
		while ((c = getc(sp)) != EOF && c != '\n')
			mct_buf_addc(&line, c);
		if (c == EOF && line.len == 0)
			break;
		mct_event_init(&ev, line.p, line.len, o->hdr);
		if (mct_get_ns(&ev, "ts", &ts) == 0 && MCT_SANE_NS(ts)) {
			if (mct_get_ns(&ev, "dur", &dur) != 0 || dur < 0 ||
			    !MCT_SANE_NS(dur))
				dur = 0;
			mct_get_key(&ev, "pid", &pid);
			mct_get_key(&ev, "tid", &tid);
			o->tmp.len = 0;
			mct_flow_rank(&o->fl, &ev, &o->tmp);
			mct_buf_add(&o->tmp, pid.p ? pid.p : "", pid.len);
			mct_buf_addc(&o->tmp, '\037');
			mct_buf_add(&o->tmp, tid.p ? tid.p : "", tid.len);
			if (nsl == slcap) {
				slcap = slcap ? slcap * 2 : 1024;
				sls = mct_xrealloc(sls, slcap * sizeof(*sls));
			}
			sl = &sls[nsl++];
			sl->lane = mct_intern(&o->fl.st, o->tmp.p, o->tmp.len);
			sl->ts = ts;
			sl->dur = dur;
			sl->off = off;
		}
		off += (long long)line.len + 1;
		mct_event_free(&ev);
	}
	mct_sort(sls, nsl, sizeof(*sls), cmp_slice);
	/* bind each end: the innermost slice that encloses it, else (an f
	 * without "bp":"e") the first slice that starts after it */
	for (i = 0; i < o->nfe; i++) {
		struct fend *f = &o->fe[i];
		struct slice *best = NULL;

		lo = 0;
		hi = nsl;
		while (lo < hi) {	/* the first slice after f on its lane */
			size_t mid = (lo + hi) / 2;

			if (sls[mid].lane < f->lane || (sls[mid].lane == f->lane &&
			    sls[mid].ts <= f->ts))
				lo = mid + 1;
			else
				hi = mid;
		}
		/* back over the slices that start at or before f: the first
		 * that encloses it starts latest, and of equal starts it is
		 * the shortest, and of equal slices the first in the input */
		for (j = lo; j > 0 && sls[j - 1].lane == f->lane; j--)
			if (sls[j - 1].ts + sls[j - 1].dur >= f->ts) {
				best = &sls[j - 1];
				break;
			}
		if (best == NULL && !f->start && !f->bpe && lo < nsl &&
		    sls[lo].lane == f->lane)
			best = &sls[lo];
		if (best != NULL) {
			f->slice = best->off;
			f->sts = best->ts;
			f->sdur = best->dur;
		}
	}
	free(sls);
	/* pair the ends of each id */
	byid = mct_xmalloc((o->nfe + 1) * sizeof(*byid));
	for (i = 0; i < o->nfe; i++)
		byid[i] = &o->fe[i];
	mct_sort(byid, o->nfe, sizeof(*byid), cmp_fid);
	for (i = 0; i < o->nfe; i = j) {
		struct fend *s = NULL;
		size_t ns = 0, nf = 0;

		for (j = i; j < o->nfe && strcmp(byid[j]->id, byid[i]->id) == 0;
		    j++) {
			if (!byid[j]->start)
				nf++;
			else if (ns++ == 0)
				s = byid[j];
		}
		if (ns == 0 || nf == 0)
			*dangling += (long long)(ns + nf);
		if (s != NULL && s->slice >= 0 && nf == 0 &&
		    slice_at(o, sp, s->slice, &hl) == 0) {
			(*no_dev)++;
			orphan(o, hl.p, hl.len, "launch without device event");
		}
		for (lo = i; lo < j; lo++) {
			struct fend *f = byid[lo];
			struct mct_corr cr = { 0 };
			struct mct_event h;
			int dv;

			if (f->start || f->slice < 0 ||
			    slice_at(o, sp, f->slice, &line) != 0)
				continue;
			if (o->device) {	/* a host slice: no pair, no orphan */
				mct_event_init(&h, line.p, line.len, o->hdr);
				dv = mct_device(&h);
				mct_event_free(&h);
				if (!dv)
					continue;
			}
			if (s == NULL || s->slice < 0 ||
			    slice_at(o, sp, s->slice, &hl) != 0) {
				(*no_host)++;
				orphan(o, line.p, line.len,
				    "device event without launch");
				continue;
			}
			mct_event_init(&h, hl.p, hl.len, o->hdr);
			cr.name = mct_flow_intern(&o->fl, &h, MCT_FLOW_NAME);
			cr.pid = mct_flow_intern(&o->fl, &h, MCT_FLOW_PID);
			cr.tid = mct_flow_intern(&o->fl, &h, MCT_FLOW_TID);
			cr.rank = mct_flow_intern(&o->fl, &h, MCT_FLOW_RANK);
			cr.ts = s->sts;
			cr.dur = s->sdur;
			mct_event_free(&h);
			if (mct_flow_pair(&o->fl, line.p, line.len, &cr,
			    f->sts) != 0)
				exit(MCT_EXIT_USAGE);
		}
	}
	free(byid);
	mct_buf_free(&line);
	mct_buf_free(&hl);
}

/* Dangling flow ends in key mode: the ends of the ids still open. */
static long long
dangling_flows(struct opts *o)
{
	struct mct_mapent *e;
	long long n = 0;
	size_t it = 0;

	if (!o->keyed)
		to_key_mode(o);
	while ((e = mct_map_next(&o->tt, &it)) != NULL)
		n += (long long)e->val.u[0] + e->val.u[1];
	return n;
}

/* --stack: the last pairs, and what was wrong with the stacks. */
static void
stack_end(struct opts *o)
{
	struct mct_stack_counts c;

	mct_stack_end(o->fl.stk);
	stack_drain(o);
	mct_stack_close(o->fl.stk, &c);
	o->fl.stk = NULL;
	if (o->folded)
		fold_write(o);
	if (c.unbalanced)
		fprintf(stderr, "%s: %lld unbalanced B/E events (an E without "
		    "its B, or a B never ended)\n",
		    program_invocation_short_name, c.unbalanced);
	if (c.nowhere && !o->quiet)
		fprintf(stderr, "%s: %lld launches whose External id names no "
		    "op (op found by time instead)\n",
		    program_invocation_short_name, c.nowhere);
	if (c.deep)
		fprintf(stderr, "%s: %lld stacks deeper than 1000 frames, cut "
		    "to their outermost 1000\n", program_invocation_short_name,
		    c.deep);
	o->damaged = c.unbalanced > 0;
}

static void
report(struct opts *o)
{
	long long no_host = 0, dangling = 0;
	struct mct_mapent *e;
	size_t it = 0;
	int k;

	if (!o->keyed && o->spool && o->nfe > 0)
		flow_mode(o, o->spool, &o->no_dev, &no_host, &dangling);
	else {
		while ((e = mct_map_next(&o->fl.corrs, &it)) != NULL) {
			struct mct_corr *c = e->val.p;

			if (c->has_host && c->ndev == 0)
				no_device(o, c, e);
			for (k = 0; k < c->nwait; k++) {
				no_host++;
				orphan(o, c->wait[k], strlen(c->wait[k]),
				    "device event without launch");
			}
		}
		dangling = o->fl.haskey ? 0 : dangling_flows(o);
	}
	if (o->fl.stk)
		stack_end(o);
	if (!o->quiet)
		fprintf(stderr, "%s: %lld pairs; %lld host calls without "
		    "device event, %lld device events without launch, %lld "
		    "dangling flow ends\n", program_invocation_short_name,
		    o->fl.pairs, o->no_dev, no_host, dangling);
}

/* --step-name and --under (both imply --stack); -1 if ch is neither. */
static int
stack_opt(struct opts *o, int ch, const char *arg)
{
	if (ch != OPT_STEP_NAME && ch != OPT_UNDER)
		return -1;
	*(ch == OPT_UNDER ? &o->under : &o->stepname) = arg;
	o->stack = 1;
	return 0;
}

static int
options(int argc, char *argv[], struct opts *o, struct mct_opts *mo)
{
	const struct mct_flag flags[] = { { 'q', &o->quiet },
	    { OPT_ORPHANS, &o->orphans }, { OPT_STACK, &o->stack },
	    { OPT_DEVICE, &o->device }, { 0, NULL } };
	struct mct_cli c = { .usage = usage, .flags = flags, .out = &o->out,
	    .mo = mo, .fields = pair_fields, .own = "folded", .rules_now = 1 };
	int ch;

	while ((ch = mct_cli_getopt(&c, argc, argv, "F:ho:qu:V",
	    longopts)) != -1) {
		switch (ch) {
		case OPT_HOST:
			o->fl.host = mct_opt_expr("--host", optarg);
			break;
		case OPT_KEY:
			mct_opt_field("--key", optarg, &o->fl.key);
			o->fl.haskey = 1;
			break;
		case OPT_WINDOW:
			o->fl.window = mct_opt_dur("--window", optarg, 0, "60s, 0");
			break;
		default:	/* --step-name, --under; --idle, --queue and theirs */
			if (stack_opt(o, ch, optarg) != 0 &&
			    !ftab_option(&o->tab, ch, optarg))
				usage(2);
		}
	}
	o->folded = c.own_fmt;
	o->deffields = c.fields == pair_fields;
	ftab_check(&o->tab, o->stack ? "--stack" : o->folded ? "-o folded" :
	    o->orphans ? "--orphans" : NULL, o->out.fmt);
	return optind;
}

int
main(int argc, char *argv[])
{
	struct opts o = { .fl = { .window = 10000000000LL },
	    .out = { .fmt = MCT_O_NDJSON, .header = 1 },
	    .tab = { .kwait = 30000, .limit = 1024 } };
	struct mct_opts mo = { .unit = MCT_UNIT_AUTO };
	struct mct_reader *r;
	struct mct_event *ev;
	int n, table;

	mct_records_register();	/* the times of the tools' records */
	n = options(argc, argv, &o, &mo);
	argc -= n;
	argv += n;
	if ((mct_rules_fields(&o.fl.key, 1) || mct_rules_expr(o.fl.host)) &&
	    mct_rules_need() != 0)
		exit(MCT_EXIT_USAGE);
	if (!o.fl.haskey && (o.spool = mct_tmpfile(NULL, &o.spoolvb)) == NULL)
		exit(MCT_EXIT_USAGE);

	if (o.fl.haskey)
		mct_seen_add(&o.seen, &o.fl.key, "--key");
	r = mct_open(argc, argv, &mo);
	o.hdr = mct_header(r);
	mct_flow_init(&o.fl, o.hdr);
	o.fl.write = put;
	o.fl.nodev = no_device;
	o.fl.arg = &o;
	if ((o.stack || o.folded) &&
	    (o.fl.stk = mct_stack_open(o.hdr->facts.sorted,
	    o.fl.window)) == NULL)
		exit(MCT_EXIT_USAGE);
	if (o.fl.stk && o.stepname)
		mct_stack_step_name(o.fl.stk, o.stepname);
	if (o.fl.stk)
		mct_stack_under(o.fl.stk, o.under);
	/* a table (--idle, --queue but -o trace) begins when it is known */
	table = o.tab.mode == FT_IDLE || (o.tab.mode == FT_QUEUE &&
	    o.out.fmt != MCT_O_TRACE);
	if (!o.folded && !table)
		mct_out_begin(&o.out, o.hdr);
	while (mct_next(r, &ev)) {
		if (mct_is_meta(ev)) {
			/* names for the viewer; not rows of a table */
			if (!o.folded && !table && (o.out.fmt == MCT_O_NDJSON ||
			    o.out.fmt == MCT_O_TRACE))
				mct_out_event(&o.out, ev);
		} else {
			mct_seen_event(&o.seen, ev);
			add(&o, ev);
		}
		if (o.fl.stk)
			stack_drain(&o);
	}
	mct_seen_end(&o.seen);
	report(&o);
	if (o.tab.mode != FT_PAIRS) {
		ftab_report(&o.tab, &o.out, o.hdr, o.deffields);
		ftab_free(&o.tab);
	}
	if (!o.folded)
		mct_out_end(&o.out);
	return mct_finish(mct_status(mct_close(r),
	    o.damaged ? MCT_EXIT_DAMAGED : MCT_EXIT_OK));
}
