/*
 * mct-filter - keep the events you want.
 *
 * Different options AND; the same option given again ORs its values.
 * Metadata (ph M, and the stream's header line) passes unless --no-meta.
 */
#include "config.h"

#include <err.h>
#include <fnmatch.h>
#include <getopt.h>
#include <limits.h>
#include <regex.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "mct.h"
#include "mct-filter.h"

#define DEFAULT_FIELDS	"ts,dur,ph,pid,tid,name"

/* A repeated option: its values, any of which may match. */
struct list {
	char		**v;
	int		 n;
	char		*hit;		/* per value: it matched an event */
	char		**alt;		/* --cat: another case of the value
					   an event has (Kernel), or NULL */
};

struct opts {
	struct list	 ph, pid, tid, cat, name, category;
	struct mct_re	*re;
	int		 nre;
	struct mct_expr	**where;
	int		 nwhere;
	int		 icase;
	int		 has_from, has_to, from_abs, to_abs;
	int64_t		 from, to;	/* as given */
	const char	*from_text, *to_text;
	int64_t		 lo, hi;	/* the window in absolute ns */
	int64_t		 bare;		/* a unitless relative --from/--to (ns) */
	const char	*bare_opt, *bare_arg;
	int64_t		 first, last;	/* the trace's first ts and last end */
	int		 extent_seen;	/* first and last are set */
	int		 within, clip;
	int		 has_min, has_max;
	int64_t		 min_dur, max_dur;
	int		 invert, count, no_meta;
	int		 device;	/* --device: the device lanes of mct(7) */
	struct mct_seen	 seen;		/* --where fields some event had */
	struct mct_seen	 seen_own;	/* ... of the trace format's own keys */
	int		 rules;		/* --rules given, or category used */
	long long	 kept;
	struct mct_buf	 clipped;
	struct mct_buf	 text;		/* scratch: a value's text */
	char		**match;	/* --match, compiled after -i is known */
	int		 nmatch;
	struct mct_fsteps *step;	/* --step */
};

enum { OPT_CAT = MCT_OPT_TOOL, OPT_CATEGORY, OPT_CLIP, OPT_DEVICE, OPT_FROM,
    OPT_MATCH, OPT_MAX_DUR, OPT_MIN_DUR, OPT_NAME, OPT_NO_META, OPT_PH,
    OPT_PID, OPT_STEP, OPT_TID, OPT_TO, OPT_WHERE, OPT_WITHIN };

static const struct option longopts[] = {
	{ "cat",	required_argument,	NULL, OPT_CAT },
	{ "category",	required_argument,	NULL, OPT_CATEGORY },
	{ "clip",	no_argument,		NULL, OPT_CLIP },
	{ "count",	no_argument,		NULL, 'c' },
	{ "device",	no_argument,		NULL, OPT_DEVICE },
	MCT_LONGOPT_FIELDS,
	{ "from",	required_argument,	NULL, OPT_FROM },
	MCT_LONGOPT_HELP,
	{ "ignore-case", no_argument,		NULL, 'i' },
	{ "invert",	no_argument,		NULL, 'v' },
	{ "match",	required_argument,	NULL, OPT_MATCH },
	{ "max-dur",	required_argument,	NULL, OPT_MAX_DUR },
	MCT_LONGOPT_META,
	{ "min-dur",	required_argument,	NULL, OPT_MIN_DUR },
	{ "name",	required_argument,	NULL, OPT_NAME },
	MCT_LONGOPT_NO_HEADER,
	{ "no-meta",	no_argument,		NULL, OPT_NO_META },
	MCT_LONGOPT_OUTPUT,
	{ "ph",		required_argument,	NULL, OPT_PH },
	{ "pid",	required_argument,	NULL, OPT_PID },
	MCT_LONGOPT_RULES,
	{ "step",	required_argument,	NULL, OPT_STEP },
	{ "tid",	required_argument,	NULL, OPT_TID },
	MCT_LONGOPT_TIME_UNIT,
	{ "to",		required_argument,	NULL, OPT_TO },
	MCT_LONGOPT_UNIT,
	MCT_LONGOPT_VERSION,
	{ "where",	required_argument,	NULL, OPT_WHERE },
	{ "within",	no_argument,		NULL, OPT_WITHIN },
	MCT_LONGOPT_WIDTH,
	{ NULL,		0,			NULL, 0 }
};

static void
usage(int status)
{
	if (status != 0) {
		fprintf(stderr, "usage: mct-filter [-chiVv] [-F fields] "
		    "[-o format] [-u unit] [predicate ...] [file ...]\n");
		mct_usage_hint();
	}
	printf("usage: mct-filter [-chiVv] [-F fields] [-o format] [-u unit] "
	    "[predicate ...] [file ...]\n"
	    "Keep the events that match every predicate; a predicate given "
	    "again ORs.\n\n"
	    "Predicates:\n"
	    "      --ph PH           event type (X, i, s, f, M, ...)\n"
	    "      --pid PID         process (lane), as written\n"
	    "      --tid TID         thread (lane), as written\n"
	    "      --cat CAT         category; matches one of cat's "
	    "comma-separated parts\n"
	    "      --name GLOB       name matches the shell pattern\n"
	    "      --match ERE       name matches the extended regular "
	    "expression\n"
	    "  -i, --ignore-case     --match and --name ignore case\n"
	    "      --from T          keep events that end after T\n"
	    "      --to T            keep events that start before T\n"
	    "      --within          only events wholly inside [from, to)\n"
	    "      --step N          the events of profiler step N (or NAME#N): "
	    "host events\n"
	    "                        in its annotation on their thread, device "
	    "work\n"
	    "                        launched in it; not inverted by -v\n"
	    "      --clip            cut X events straddling the window to it\n"
	    "      --min-dur D       dur >= D (no dur counts as 0)\n"
	    "      --max-dur D       dur <= D\n"
	    "      --where EXPR      FIELD OP VALUE, OP one of == != < <= > "
	    ">= ~ !~,\n"
	    "                        or a bare FIELD (exists); && and || join\n"
	    "      --device          X events of device work (kernels, copies, "
	    "memsets),\n"
	    "                        whatever the producer (mct(7))\n"
	    "      --category NAME   the rules give the event this label\n"
	    "      --rules FILE      the rules file for category\n"
	    "  -v, --invert          keep the events that do not match (inside "
	    "the window:\n"
	    "                        --from/--to are not inverted)\n"
	    "      --no-meta         drop metadata (ph M) and the header line\n\n"
	    "Output:\n"
	    "  -c, --count           print the number of events kept\n"
	    "  -F, --fields LIST     columns for tsv, csv, table (default "
	    DEFAULT_FIELDS ")\n"
	    "  -o, --output FORMAT   ndjson (default), tsv, csv, table, md, trace\n"
	    "      --meta            rows of metadata (ph M) events in tsv, csv, "
	    "table, md\n"
	    "                        (also with --ph M)\n"
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
	    "Times T are relative to the trace origin (26.57s, 500us, 1.5ms, "
	    "bare ns)\nor absolute with @.  Exit status: 0 success, 1 damaged "
	    "input, 2 usage or\nunreadable file.  See mct-filter(1) and "
	    "mct(7).\n");
	exit(mct_finish(MCT_EXIT_OK));
}

static void
add(struct list *l, const char *s)
{
	l->v = mct_xrealloc(l->v, (size_t)(l->n + 1) * sizeof(*l->v));
	l->hit = mct_xrealloc(l->hit, (size_t)(l->n + 1));
	l->alt = mct_xrealloc(l->alt, (size_t)(l->n + 1) * sizeof(*l->alt));
	l->hit[l->n] = 0;
	l->alt[l->n] = NULL;
	l->v[l->n++] = (char *)s;
}

/* The text of a first-level key into t (NUL-terminated); -1 if missing. */
static int
key_text(struct mct_event *ev, const char *key, struct mct_buf *t)
{
	struct mct_val v;

	if (mct_get_key(ev, key, &v) != 0)
		return -1;
	t->len = 0;
	mct_jstr(&v, t);
	if (t->p == NULL)
		mct_buf_addc(t, '\0'), t->len = 0;
	return 0;
}

/* The comma-separated part of the text t (n bytes) that is v, or NULL. */
static const char *
part(const char *t, size_t n, const char *v, int icase)
{
	size_t k = strlen(v), m;
	const char *p = t, *end = t + n;

	for (;; p += m + 1) {
		m = strcspn(p, ",");
		if (p + m > end)
			m = (size_t)(end - p);
		if (m == k && (icase ? strncasecmp(p, v, k) :
		    memcmp(p, v, k)) == 0)
			return p;
		if (p + m >= end)
			return NULL;
	}
}

/*
 * A --cat value no event has matched yet, in another case in this
 * event's cat (older Kineto writes Kernel, newer kernel): noted for a
 * hint at the end.
 */
static void
cat_case(struct list *l, const struct mct_buf *t)
{
	const char *p;
	size_t k;
	int i;

	for (i = 0; i < l->n; i++)
		if (!l->hit[i] && l->alt[i] == NULL &&
		    (p = part(t->p, t->len, l->v[i], 1)) != NULL) {
			k = strlen(l->v[i]);
			l->alt[i] = mct_xmalloc(k + 1);
			memcpy(l->alt[i], p, k);
			l->alt[i][k] = '\0';
		}
}

/* Does the value's text equal one of the list's values? */
static int
in_list(struct opts *o, struct mct_event *ev, const char *key,
    struct list *l, int commas)
{
	struct mct_buf *t = &o->text;
	int i;

	if (l->n == 0)
		return 1;
	if (key_text(ev, key, t) != 0)
		return 0;
	for (i = 0; i < l->n; i++)
		if ((t->len == strlen(l->v[i]) &&
		    memcmp(t->p, l->v[i], t->len) == 0) ||
		    (commas && part(t->p, t->len, l->v[i], 0) != NULL)) {
			l->hit[i] = 1;
			return 1;
		}
	if (commas)
		cat_case(l, t);
	return 0;
}

/* The end: a hint for each --cat value that matched only in another case. */
static void
cat_end(const struct list *l)
{
	int i;

	for (i = 0; i < l->n; i++)
		if (!l->hit[i] && l->alt[i] != NULL)
			warnx("--cat %s: no event has this category, but some "
			    "have '%s' (producers spell categories differently: "
			    "Kineto kernel, older Kineto Kernel; --device keeps "
			    "device work whatever the producer)", l->v[i],
			    l->alt[i]);
}

static int
name_ok(struct opts *o, struct mct_event *ev)
{
	struct mct_buf *t = &o->text;
	int i, ok;

	if (o->name.n == 0 && o->nre == 0)
		return 1;
	if (key_text(ev, "name", t) != 0)
		return 0;
	for (ok = o->name.n == 0, i = 0; i < o->name.n && !ok; i++)
		ok = fnmatch(o->name.v[i], t->p, o->icase ? FNM_CASEFOLD : 0) == 0;
	if (!ok)
		return 0;
	for (ok = o->nre == 0, i = 0; i < o->nre && !ok; i++)
		ok = mct_regmatch(&o->re[i], t->p);
	return ok;
}

/* The window test: overlap [from, to), or with --within lie inside it. */
static int
window_ok(struct opts *o, struct mct_event *ev)
{
	int64_t ts, dur, end;
	struct mct_val ph;
	int isx;

	if (!o->has_from && !o->has_to)
		return 1;
	if (mct_get_ns(ev, "ts", &ts) != 0)
		return 0;
	isx = mct_get_key(ev, "ph", &ph) == 0 && mct_jstr_eq(&ph, "X", 1);
	if (!isx || mct_get_ns(ev, "dur", &dur) != 0)
		dur = 0;
	end = mct_sat_add(ts, dur);
	if (!isx)
		return (!o->has_from || ts >= o->lo) && (!o->has_to || ts < o->hi);
	if (o->within)
		return (!o->has_from || ts >= o->lo) && (!o->has_to || end <= o->hi);
	/* an X event overlaps [from, to): starts before to, ends after from */
	if (o->has_to && ts >= o->hi)
		return 0;
	if (o->has_from && !(end > o->lo || (dur == 0 && ts >= o->lo)))
		return 0;
	return 1;
}

static int
keep(struct opts *o, struct mct_event *ev)
{
	int64_t dur;
	int i, ok;

	if (!in_list(o, ev, "ph", &o->ph, 0) ||
	    !in_list(o, ev, "pid", &o->pid, 0) ||
	    !in_list(o, ev, "tid", &o->tid, 0) ||
	    !in_list(o, ev, "cat", &o->cat, 1) ||
	    !name_ok(o, ev) ||
	    (o->device && !mct_device(ev)))
		return 0;
	if (o->has_min || o->has_max) {
		if (mct_get_ns(ev, "dur", &dur) != 0)
			dur = 0;
		if ((o->has_min && dur < o->min_dur) ||
		    (o->has_max && dur > o->max_dur))
			return 0;
	}
	for (ok = o->nwhere == 0, i = 0; i < o->nwhere && !ok; i++)
		ok = mct_expr_eval(o->where[i], ev, ev->hdr);
	if (!ok)
		return 0;
	if (o->category.n) {
		const char *c = mct_category(ev, ev->hdr);

		for (ok = 0, i = 0; c && i < o->category.n && !ok; i++)
			ok = strlen(c) == strlen(o->category.v[i]) + 2 &&
			    memcmp(c + 1, o->category.v[i],
			    strlen(o->category.v[i])) == 0;
		if (!ok)
			return 0;
	}
	return 1;
}

/* Cut an X event that straddles the window to it (--clip). */
static void
clip(struct opts *o, struct mct_event *ev)
{
	struct mct_buf *b = &o->clipped;
	int64_t ts, dur, end, nts, nend;
	struct mct_val vts, vdur, ph;

	if (mct_get_key(ev, "ph", &ph) != 0 || !mct_jstr_eq(&ph, "X", 1) ||
	    mct_get_ns(ev, "ts", &ts) != 0 || mct_get_ns(ev, "dur", &dur) != 0)
		return;
	end = mct_sat_add(ts, dur);
	if ((o->has_to && ts >= o->hi) || (o->has_from && end <= o->lo))
		return;	/* not in the window: as it is */
	nts = o->has_from && ts < o->lo ? o->lo : ts;
	nend = o->has_to && end > o->hi ? o->hi : end;
	if (nts == ts && nend == end)
		return;
	mct_get_key(ev, "ts", &vts);
	mct_get_key(ev, "dur", &vdur);
	b->len = 0;
	if (vts.p < vdur.p) {
		mct_buf_add(b, ev->json, (size_t)(vts.p - ev->json));
		mct_buf_addi(b, nts);
		mct_buf_add(b, vts.p + vts.len, (size_t)(vdur.p - vts.p - vts.len));
		mct_buf_addi(b, nend - nts);
		mct_buf_add(b, vdur.p + vdur.len,
		    ev->len - (size_t)(vdur.p + vdur.len - ev->json));
	} else {
		mct_buf_add(b, ev->json, (size_t)(vdur.p - ev->json));
		mct_buf_addi(b, nend - nts);
		mct_buf_add(b, vdur.p + vdur.len, (size_t)(vts.p - vdur.p - vdur.len));
		mct_buf_addi(b, nts);
		mct_buf_add(b, vts.p + vts.len,
		    ev->len - (size_t)(vts.p + vts.len - ev->json));
	}
	mct_event_set(ev, b->p, b->len);
}

/* The window in absolute ns, once the origin is known. */
static void
window(struct opts *o, const struct mct_header *h)
{
	int64_t origin = h->facts.has_origin ? h->facts.origin : 0;

	/* a window beyond int64 ns is clamped: it holds everything there */
	if (__builtin_add_overflow(o->from, o->from_abs ? 0 : origin, &o->lo))
		o->lo = o->from > 0 ? INT64_MAX : INT64_MIN;
	if (__builtin_add_overflow(o->to, o->to_abs ? 0 : origin, &o->hi))
		o->hi = o->to > 0 ? INT64_MAX : INT64_MIN;
}

/*
 * [from, to) that holds nothing is a mistake (--from 10ms --to 5ms), not
 * a question with the answer "no events".
 */
static void
empty_window(const struct opts *o, int64_t lo, int64_t hi)
{
	if (!o->has_from || !o->has_to || lo < hi)
		return;
	warnx("--from %s --to %s: an empty window (from must be before to)",
	    o->from_text, o->to_text);
	mct_usage_hint();
}

/*
 * A time without a unit is ns, as documented; but 1.5 or a number far
 * below the trace's length was likely meant in us, ms or s: say so (the
 * second once the trace has been read, in unitless_end()).
 */
static void
bare_time(struct opts *o, const char *opt, const char *arg, int64_t ns,
    int absolute)
{
	size_t n = strlen(arg);

	if (n == 0 || !((arg[n - 1] >= '0' && arg[n - 1] <= '9') ||
	    arg[n - 1] == '.'))
		return;		/* it has a unit */
	if (strchr(arg, '.') != NULL)
		warnx("%s: '%s' has no unit and is read as ns, rounded to %lld "
		    "ns; write %sus, %sms or %ss for those units", opt, arg,
		    (long long)ns, arg, arg, arg);
	else if (!absolute && ns > 0 && ns > o->bare) {
		o->bare = ns;
		o->bare_opt = opt;
		o->bare_arg = arg;
	}
}

static void
bare_end(const struct opts *o)
{
	char s[64];
	int64_t width;

	if (o->bare == 0 || !o->extent_seen ||
	    __builtin_sub_overflow(o->last, o->first, &width) ||
	    width / 1000 <= o->bare)
		return;
	mct_fmt_human(s, (double)width);
	warnx("%s: '%s' has no unit and was read as %s ns, but the trace "
	    "is %s long: did you mean %sus, %sms or %ss?", o->bare_opt,
	    o->bare_arg, o->bare_arg, s, o->bare_arg, o->bare_arg, o->bare_arg);
}

/* Note the extent of the trace, for bare_end(). */
static void
extent(struct opts *o, struct mct_event *ev)
{
	int64_t ts, dur;

	if (mct_get_ns(ev, "ts", &ts) != 0)
		return;
	if (mct_get_ns(ev, "dur", &dur) != 0 || dur < 0 ||
	    __builtin_add_overflow(ts, dur, &dur))
		dur = ts;
	if (!o->extent_seen || ts < o->first)
		o->first = ts;
	if (!o->extent_seen || dur > o->last)
		o->last = dur;
	o->extent_seen = 1;
}

/* --match regexes, once -i is known. */
static void
compile(struct opts *o)
{
	int i, rc;

	o->re = mct_xmalloc((size_t)(o->nmatch + 1) * sizeof(*o->re));
	for (i = 0; i < o->nmatch; i++) {
		if ((rc = mct_regcomp(&o->re[i], o->match[i], REG_EXTENDED |
		    REG_NOSUB | (o->icase ? REG_ICASE : 0))) != 0) {
			char msg[256];

			regerror(rc, &o->re[i].re, msg, sizeof(msg));
			warnx("--match: invalid regular expression '%s': %s",
			    o->match[i], msg);
			mct_usage_hint();
		}
		o->nre++;
	}
}

/*
 * --ph: warn of a value no Chrome trace has (a typo such as x for X
 * selects nothing); asking for M asks for metadata rows too.
 */
static void
ph_check(const char *ph, struct mct_out *out)
{
	if (strcmp(ph, "M") == 0)
		out->meta = 1;
	if (strlen(ph) != 1 || strchr("BEXiICbneOstfPNDMRcS(T)pFvV", *ph) ==
	    NULL)
		warnx("--ph: '%s' is not a Chrome trace phase (X, B, E, i, I, "
		    "C, b, e, n, s, t, f, M, ...; case matters)", ph);
}

/* --from (from 1) or --to: the time, and its text for messages. */
static void
window_opt(struct opts *o, int from, const char *arg)
{
	const char *opt = from ? "--from" : "--to";
	int64_t *t = from ? &o->from : &o->to;
	int *abs = from ? &o->from_abs : &o->to_abs;

	mct_opt_time(opt, arg, t, abs);
	*(from ? &o->has_from : &o->has_to) = 1;
	*(from ? &o->from_text : &o->to_text) = arg;
	bare_time(o, opt, arg, *t, *abs);
}

static int
options(int argc, char *argv[], struct opts *o, struct mct_out *out,
    struct mct_opts *mo)
{
	const struct mct_flag flags[] = { { 'c', &o->count },
	    { 'i', &o->icase }, { 'v', &o->invert }, { OPT_CLIP, &o->clip },
	    { OPT_DEVICE, &o->device }, { OPT_NO_META, &o->no_meta },
	    { OPT_WITHIN, &o->within }, { 0, NULL } };
	struct mct_cli c = { .usage = usage, .flags = flags, .out = out,
	    .mo = mo, .fields = DEFAULT_FIELDS };
	int ch;

	while ((ch = mct_cli_getopt(&c, argc, argv, "cF:hio:u:Vv",
	    longopts)) != -1) {
		switch (ch) {
		case OPT_CAT:
			add(&o->cat, optarg);
			break;
		case OPT_CATEGORY:
			add(&o->category, optarg);
			break;
		case OPT_FROM:
		case OPT_TO:
			window_opt(o, ch == OPT_FROM, optarg);
			break;
		case OPT_MATCH:
			o->match = mct_xgrow(o->match, o->nmatch, sizeof(*o->match));
			o->match[o->nmatch++] = optarg;
			break;
		case OPT_MAX_DUR:
			o->max_dur = mct_opt_dur("--max-dur", optarg, INT64_MIN,
			    "1.5ms, 300us, 2s");
			o->has_max = 1;
			break;
		case OPT_MIN_DUR:
			o->min_dur = mct_opt_dur("--min-dur", optarg, INT64_MIN,
			    "1.5ms, 300us, 2s");
			o->has_min = 1;
			break;
		case OPT_NAME:
			add(&o->name, optarg);
			break;
		case OPT_PH:
			add(&o->ph, optarg);
			ph_check(optarg, out);
			break;
		case OPT_PID:
			add(&o->pid, optarg);
			break;
		case OPT_TID:
			add(&o->tid, optarg);
			break;
		case OPT_WHERE:
			o->where = mct_xgrow(o->where, o->nwhere, sizeof(*o->where));
			o->where[o->nwhere] = mct_opt_expr("--where", optarg);
			o->rules |= mct_rules_expr(o->where[o->nwhere]);
			o->nwhere++;
			break;
		case OPT_STEP:
			if ((o->step = fstep_open(optarg)) == NULL)
				usage(2);
			break;
		default:
			usage(2);
		}
	}
	o->rules |= c.rules != NULL ||
	    mct_rules_fields(out->fields, out->nfields);
	compile(o);
	return optind;
}

/* An event kept: counted, or written (cut to the window with --clip). */
static void
put(struct opts *o, struct mct_out *out, struct mct_event *ev)
{
	o->kept++;
	if (o->count)
		return;
	if (o->clip && (o->has_from || o->has_to))
		clip(o, ev);
	mct_out_event(out, ev);
}

int
main(int argc, char *argv[])
{
	struct mct_opts mo = { .unit = MCT_UNIT_AUTO };
	struct mct_out out = { .fmt = MCT_O_NDJSON, .header = 1 };
	struct opts o = { 0 };
	struct mct_reader *r;
	struct mct_event *ev;
	int n, missing;

	mct_records_register();	/* the times of the tools' records */
	n = options(argc, argv, &o, &out, &mo);
	argc -= n;
	argv += n;
	/* a bad rules file: before any output */
	if ((o.rules || o.category.n) && mct_rules_need() != 0)
		exit(MCT_EXIT_USAGE);

	for (n = 0; n < o.nwhere; n++)
		mct_seen_where(&o.seen, &o.seen_own, o.where[n], "--where");
	if (o.from_abs == o.to_abs)
		empty_window(&o, o.from, o.to);
	r = mct_open(argc, argv, &mo);
	window(&o, mct_header(r));
	empty_window(&o, o.lo, o.hi);
	if (o.count || (o.no_meta && out.fmt == MCT_O_NDJSON))
		out.hdr = mct_header(r);	/* no header line */
	else
		mct_out_begin(&out, mct_header(r));
	while (mct_next(r, &ev)) {
		if (mct_is_meta(ev)) {
			if (!o.no_meta && !o.count)
				mct_out_event(&out, ev);
			continue;
		}
		mct_seen_event(&o.seen, ev);
		mct_seen_event(&o.seen_own, ev);
		if (o.bare)
			extent(&o, ev);
		if (o.step)
			fstep_see(o.step, ev);
		/* -v inverts the predicates, never the window */
		if (!window_ok(&o, ev) || keep(&o, ev) == o.invert)
			continue;
		if (o.step)
			fstep_hold(o.step, ev);
		else
			put(&o, &out, ev);
	}
	while (o.step && fstep_next(o.step, mct_header(r), &ev))
		put(&o, &out, ev);
	mct_seen_end(&o.seen_own);
	missing = mct_seen_end(&o.seen);
	cat_end(&o.cat);
	bare_end(&o);
	if (o.count && !missing)
		printf("%lld\n", o.kept);
	else if (!o.count)
		mct_out_end(&out);
	return mct_finish(mct_status(mct_close(r),
	    missing ? MCT_EXIT_USAGE : MCT_EXIT_OK));
}
