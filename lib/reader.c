/*
 * reader.c - operands in, events out.
 *
 * Pass 1 (the framer) reads every operand that is not already an mct
 * stream: trace JSON in Object or Array form, complete or cut off, or
 * NDJSON.  It frames each event, checks and compacts it with mct_scan(),
 * and appends it as one line to an unlinked spool file in $TMPDIR.  While
 * doing so it learns what the header line must say and cannot know before
 * the end: the unit, the smallest ts, the top-level keys after
 * traceEvents.  Memory holds one event at a time.
 *
 * Pass 2 (mct_next) reads the spool, or a stream operand directly, line
 * by line, converting ts/dur to integer ns where the source was not ns.
 *
 * A plain regular file needs no spool: pass 1 only checks its events and
 * notes what the header needs (no copy is written), and pass 2 frames the
 * file again, quietly (pass 1 said what was damaged), handing out each
 * event as it is compacted.  The two passes run the same code on the same
 * bytes, so they see the same events.  This saves writing and reading a
 * copy as big as the trace, and lets the programs downstream start as
 * soon as pass 1 ends.
 *
 * Pass 2 is most of the work (compacting and converting every event), so
 * threads share it (struct pass2): pass 1 notes an event start every
 * chunk bytes (struct ckpt), and workers frame the chunks between, or
 * convert the spool's lines of a chunk, while mct_next() hands their
 * lines out in order.
 *
 * Of an operand read once (gzip, a pipe), pass 1 is the work: threads
 * frame it in blocks (struct blocks, frame_blocks()) while gzip inflates
 * in a thread of its own, and the operand's framer takes their lines in
 * order, or goes on alone where a block was damaged or cut wrong.
 *
 * The state is in three kinds of struct, one of each per operand:
 *   struct framer   the scanning position and state machine of one byte
 *                   stream, with its scratch (mct_scan, the compact copy);
 *                   a thread framing a part of a big file has its own
 *   struct facts    what pass 1 learns of the events (form, top-level
 *                   keys, smallest ts, order, fractions...); the parts'
 *                   facts merge into the operand's
 *   struct readpos  where pass 2 stands: lines handed out, the operand's
 *                   lines in the spool, a stream operand's buffer
 * When pass 1 ends, an operand's facts decide its struct mct_source (the
 * unit, the origin...), which the header shows to tools (hdr->src).
 *
 * Nothing is static or global: two readers can be open at once.  Nothing
 * exits: a spool that cannot be written makes the status MCT_EXIT_USAGE.
 * What goes wrong in a byte source comes back from input.c as data and is
 * said here, in order with the framer's own messages.
 */
#include "config.h"

#include <sys/param.h>
#include <sys/stat.h>
#include <sys/time.h>

#include <err.h>
#include <errno.h>
#include <fnmatch.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mct.h"

typedef mct_i128 i128;

#define RBUF	(256 * 1024)
#define MAX_DIRECT	64	/* plain files kept open for pass 2 */
#define MAX_PARTS	8	/* threads framing one file in pass 1 */
#define SPLIT_MIN	(4LL << 20)	/* bytes a part has at least */
#define CHUNK		(128LL << 10)	/* bytes a chunk of pass 2 has at least */
#define CONTEXT	4096		/* bytes kept before, for resync() */

/* A buffer of input bytes, and where it stands in the source. */
struct rbuf {
	char		*p;
	size_t		 cap, pos, end;
	unsigned long long base;	/* source offset of p[0] */
	int		 eof;
};

/*
 * Pass 1 saw an event start here: pass 2 may start framing here too.
 * What pass 1 saw of the chunk from here to the next ckpt may spare pass
 * 2 the framing: only events and separators between them, and each event
 * plain (mct_scan's: only whitespace to drop), or flat (plain, no
 * whitespace to drop, and a line end before the next event).
 */
enum { CK_FRAME, CK_PLAIN, CK_FLAT };

struct ckpt {
	long long	 off;
	int		 state;		/* the framer's, before the event */
	int		 kind;		/* of the chunk from here: CK_* */
	int		 conv;		/* a spool chunk's lines are converted to
					   ns already, from guess_unit() */
	unsigned long long nev;		/* the events before it */
};

/*
 * What pass 1 learns of the events of a trace operand, or of one part of
 * it that a thread frames (merge() adds a part's to the operand's).
 */
struct facts {
	unsigned long long nevents;
	int		 form;		/* 'o'bject, 'a'rray, 'n'djson; 0: not yet */
	struct mct_buf	 top;		/* top-level keys: "k":v,... */
	int		 ntop_before;	/* how many of them came before traceEvents */
	int		 anyfrac, anycoid, anyodd;
	int		 seen_ts, unsorted;
	i128		 first_e6, last_e6;	/* the first and the last ts */
	int		 has_min;
	i128		 min_e6;	/* the smallest ts, M events aside */
	char		 min_text[64];	/* as written */
	int		 damaged;	/* damage was noted */
	int		 notrace;	/* it began with neither '{' nor '[' */
	int		 has_mark;	/* --align NAME: its first event */
	i128		 mark_e6;
	char		 mark_text[64];
	struct mct_bigtop *big;		/* top-level values over the limit */
	int		 nbig;
	int		 bigtop;	/* a thread's part met one: frame alone */
	int		 ntop;		/* keys in top */
	struct mct_buf	 dropped;	/* a stream header's top_dropped */
	struct ckpt	*cp;		/* an event start every chunk bytes */
	int		 ncp, cpcap;
	int		 kind;		/* of the chunk since the last ckpt, so far */
	int		 endgap;	/* where it stopped: the gap's CK_* */
	long long	 first_ev;	/* where its first event starts */
	int		 manytimes;	/* an event has 3 ts/dur numbers or more */
	int		 guessed;	/* a chunk of spool lines has ckpt.conv */
};

/*
 * The framer of one byte stream: where it stands and its state between
 * events, and its scratch.  It is all a thread needs to frame a part.
 */
struct framer {
	struct mct_reader *r;		/* says damage there; NULL: a thread's part */
	struct mct_src	*src;		/* the bytes (borrowed) */
	const char	*name;		/* for messages */
	struct facts	*fx;		/* what it learns goes there */
	struct rbuf	 rb;
	int		 state, nosep, begun;	/* between events; zero to start */
	int		 check;		/* pass 1 of a plain file: check, copy nothing */
	int		 again;		/* pass 2: framing again, the facts are known */
	int		 index;		/* pass 2: index each event's keys as it is
					   scanned (a merge looks up its ts) */
	int		 quiet;		/* say nothing of damage, only note it */
	long long	 topmax;	/* a top-level value's size limit, -1: none */
	/* a part of a file framed by a thread: stop at the next one's start */
	long long	 stop;		/* -1: read to the end */
	int		 gap;		/* before the event framed last: CK_FLAT
					   (separators and a line end), CK_PLAIN
					   (separators), CK_FRAME (anything) */
	long long	 stopped_at;	/* where the framer stopped, -1: the end */
	int		 stop_state, stop_sep;
	int		 nparts;	/* of the first part: how many in all */
	long long	*pdone;		/* and the bytes of the others framed */
	const char	*mark;		/* --align NAME: note its first event */
	long long	 chunk;		/* pass 1: note a ckpt every chunk bytes */
	long long	 spooled;	/* bytes of the operand's spool lines */
	unsigned long long evoff;	/* where the event framed last starts */
	struct blocks	*held;		/* read the blocks held first, then src */
	struct mct_scan	 sc;		/* the event being framed */
	struct mct_buf	 out;		/* its compact copy */
	/*
	 * A block's thread keeps its events in out, a line each, where
	 * they were framed (no copy): keep is the bytes of those lines,
	 * the event being framed comes after them.
	 */
	int		 inlines;
	size_t		 keep;
};

/* Where pass 2 stands in an operand. */
struct readpos {
	int		 started;	/* its lines have begun to be read */
	unsigned long long line;	/* events (lines of a stream) handed out */
	long long	 spool_from, spool_to;	/* its lines in the spool */
	long long	 length;	/* a plain file: the bytes pass 1 read */
	struct rbuf	 rb;		/* a stream operand's bytes */
	int		 toobig;	/* a ts/dur beyond int64 ns was reported */
};

/* One operand. */
struct input {
	struct mct_source *s;		/* its public facts: r->src[i] */
	struct mct_src	*src;		/* the bytes, while open */
	int		 stream;	/* an mct stream: read directly */
	int		 direct;	/* a plain file: pass 2 frames it again */
	int		 convert;	/* rewrite ts/dur to ns in pass 2 */
	int		 addrank;	/* append its rank to each event */
	struct facts	 fx;
	struct framer	 fr;
	struct readpos	 rp;
	/* the header line of a stream operand, and its unit_from */
	struct mct_buf	 hline, whybuf;
	struct mct_buf	 rankfrom;	/* a stream's one rank's rule */
	struct mct_buf	 ranklist;	/* a stream's header's ranks, [ ] off */
	struct pass2	*p2;		/* a plain file's pass 2 by threads */
	/* pass 1 converted its first time beyond int64 ns: pass 2 says it */
	unsigned long long bigat;	/* its event, from 1; 0: none */
	struct mct_buf	 big;		/* its text */
	struct facts	 fx2;		/* pass 2's, framing a file again alone */
};

/* Where the ts and dur values of an event are, to be converted. */
struct span {
	size_t		 off, len;
};

/* Scratch of time_spans(), and of a thread's edit of a line. */
struct spans {
	struct span	*sp;
	int		 cap;
	struct mct_kv	*kv;
	int		 kvcap;
	struct mct_buf	 line;
};

struct mct_reader {
	struct mct_opts	 opts;
	struct input	*in;
	struct mct_source *src;		/* the operands' facts, for the header */
	int		 nin, cur;
	int		 spool;
	char		*spoolname;
	FILE		*spoolf;
	char		*spoolvb;	/* its buffer */
	int		 spoolbad;	/* it could not be written or read */
	FILE		*topf;		/* big top-level values (struct mct_bigtop) */
	char		*topvb;
	struct rbuf	 srb;		/* reading the spool back */
	long long	 spool_pos;
	struct mct_header hdr;
	struct mct_event ev;
	struct mct_buf	 conv;
	struct spans	 spans;
	struct mct_buf	 rline;		/* an event with its rank */
	int		 fatal;		/* nothing to read (duplicate ranks) */
	int		 status;
	double		 last_progress;
	mct_edit_fn	 edit;		/* mct_edit() */
	void		*edit_arg;
	struct mct_buf	 eline;		/* an event edited in this thread */
};

/* Report damage at a source offset: "prog: file:offset: msg". */
static void
damage_at(struct framer *f, unsigned long long off, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void
damage_at(struct framer *f, unsigned long long off, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	f->fx->damaged = 1;
	if (f->quiet)
		return;		/* said in pass 1, or to be said then */
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	warnx("%s:%llu: %s", f->name, off, msg);
	f->r->status = mct_status(f->r->status, MCT_EXIT_DAMAGED);
}

/*
 * Say what went wrong in a byte source, if anything did, now: in order
 * with the framer's messages.  It is damage; a thread's part (no reader)
 * only notes it, and the file is then framed again, aloud.
 */
static void
src_error(struct mct_reader *r, const char *name, struct mct_src *s,
    struct facts *fx)
{
	const char *msg;
	long long off;

	if ((msg = mct_src_error(s, &off)) == NULL)
		return;
	fx->damaged = 1;
	if (r == NULL)
		return;
	r->status = mct_status(r->status, MCT_EXIT_DAMAGED);
	if (off >= 0)
		warnx("%s:%lld: %s", name, off, msg);
	else
		warnx("%s: %s", name, msg);
}

/* Report damage in an event a tool was given. */
void
mct_damage(const struct mct_event *ev, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (ev->byline)
		warnx("%s:%llu: %s", ev->file, ev->where, msg);
	else
		warnx("%s: event %llu: %s", ev->file, ev->where, msg);
}

/*
 * Make room and read more.  Keeps p[pos..end) and up to CONTEXT bytes before
 * pos, the context resync() looks back into (the '}' of "}, {"), so that
 * where a read ends does not change where framing starts again; returns
 * the number of new bytes, 0 at the end, -1 on a read error.
 */
static ssize_t
refill(struct rbuf *b, ssize_t (*rd)(void *, char *, size_t), void *arg)
{
	size_t drop;
	ssize_t n;

	if (b->eof)
		return 0;
	if (b->pos > CONTEXT) {
		drop = b->pos - CONTEXT;
		memmove(b->p, b->p + drop, b->end - drop);
		b->base += drop;
		b->end -= drop;
		b->pos = CONTEXT;
	}
	if (b->end == b->cap || b->cap - b->end < RBUF / 4) {
		size_t had = b->cap;

		b->cap = b->cap ? b->cap * 2 : RBUF;
		b->p = mct_xrealloc(b->p, b->cap + 1);
		mct_prefault(b->p + had, b->cap + 1 - had);
	}
	n = rd(arg, b->p + b->end, b->cap - b->end);
	if (n <= 0) {
		b->eof = 1;
		return n;
	}
	b->end += (size_t)n;
	return n;
}

/* The next newline in the buffer, or NULL. */
static char *
find_nl(const struct rbuf *b)
{
	return b->end > b->pos ? memchr(b->p + b->pos, '\n', b->end - b->pos) :
	    NULL;
}

static ssize_t
src_rd(void *arg, char *buf, size_t n)
{
	return mct_src_read(arg, buf, n);
}

/* More bytes for the framer; 0 at the end, -1 on an error (said here). */
static ssize_t held_rd(void *, char *, size_t);
static int held_left(const struct blocks *);
static int put_converted(struct mct_buf *, const char *, size_t,
    const struct span *, int, enum mct_unit, int, struct span *);
static int time_spans(const struct mct_scan *, const char *, size_t,
    struct spans *, int);
static void spans_free(struct spans *);

static ssize_t
fill(struct framer *f)
{
	ssize_t n;

	if (f->held != NULL) {
		n = refill(&f->rb, held_rd, f);
		if (held_left(f->held))
			return n;	/* the source's error comes after them */
	} else
		n = refill(&f->rb, src_rd, f->src);
	/* a damaged gzip stream gives its last bytes and the error at once */
	if (f->src != NULL)
		src_error(f->r, f->name, f->src, f->fx);
	return n;
}

/* The spool failed: say so once; the status says it at the end. */
static void
spool_failed(struct mct_reader *r)
{
	if (!r->spoolbad)
		warn("spool %s", r->spoolname);
	r->spoolbad = 1;
	r->status = mct_status(r->status, MCT_EXIT_USAGE);
}

static ssize_t
spool_rd(void *arg, char *buf, size_t n)
{
	struct mct_reader *r = arg;
	long long left = r->in[r->cur].rp.spool_to - r->spool_pos;
	ssize_t got;

	if ((long long)n > left)
		n = (size_t)left;
	if (n == 0)
		return 0;
	do
		got = pread(r->spool, buf, n, r->spool_pos);
	while (got == -1 && errno == EINTR);
	if (got == -1) {
		spool_failed(r);
		return -1;
	}
	r->spool_pos += got;
	return got;
}

static void
progress(struct framer *f, int done)
{
	struct mct_reader *r = f->r;
	struct timeval tv;
	double now;
	long long pos, size;

	if (r == NULL || !r->opts.progress || (f->quiet && f->nparts == 0))
		return;	/* pass 2 and the threads' parts say nothing */
	pos = mct_src_pos(f->src);
	size = mct_src_size(f->src);
	gettimeofday(&tv, NULL);
	now = (double)tv.tv_sec + (double)tv.tv_usec / 1e6;
	if (done) {
		if (r->last_progress > 0)
			fprintf(stderr, "\r\033[K");
		return;
	}
	if (r->last_progress == 0) {
		r->last_progress = now;	/* show nothing for the first second */
		return;
	}
	if (now - r->last_progress < 1.0)
		return;
	r->last_progress = now;
	if (f->nparts > 0 && f->stop > 0 && size > 0)	/* the first part */
		fprintf(stderr, "\r%s: %s: %lld MB, checking in %d parts (%d%%)",
		    program_invocation_short_name, f->name, size >> 20,
		    f->nparts, (int)(100 * ((pos < f->stop ? pos : f->stop) +
		    __atomic_load_n(f->pdone, __ATOMIC_RELAXED)) / size));
	else if (size > 0)
		fprintf(stderr, "\r%s: %s: %lld MB of %lld MB (%d%%), %llu events",
		    program_invocation_short_name, f->name, pos >> 20,
		    size >> 20, (int)(100 * pos / size), f->fx->nevents);
	else
		fprintf(stderr, "\r%s: %s: %lld MB, %llu events",
		    program_invocation_short_name, f->name, pos >> 20,
		    f->fx->nevents);
}

/*
 * Events with ts from first to last follow those seen: are they all in
 * time order?  (ts compared at 1e-6 units.)
 */
static inline void
saw_ts(struct facts *fx, i128 first, i128 last)
{
	if (fx->seen_ts && first < fx->last_e6)
		fx->unsorted = 1;
	if (!fx->seen_ts)
		fx->first_e6 = first;
	fx->last_e6 = last;
	fx->seen_ts = 1;
}

/* A ts, its text n bytes at t: the smallest yet? */
static inline void
saw_min(struct facts *fx, i128 e6, const char *t, size_t n)
{
	if (n < sizeof(fx->min_text) && (!fx->has_min || e6 < fx->min_e6)) {
		fx->min_e6 = e6;
		memcpy(fx->min_text, t, n);
		fx->min_text[n] = '\0';
		fx->has_min = 1;
	}
}

/* --align NAME: is the event just framed the first of that name yet? */
static void
saw_mark(struct framer *f)
{
	const struct mct_scan *sc = &f->sc;
	struct facts *fx = f->fx;
	struct mct_event ev;
	struct mct_val v;
	struct mct_buf name = { 0 };

	if (sc->ts_len >= sizeof(fx->mark_text) ||
	    (fx->has_mark && sc->ts_e6 >= fx->mark_e6))
		return;
	mct_event_init(&ev, f->out.p + f->keep, f->out.len - f->keep, NULL);
	if (mct_get_key(&ev, "name", &v) == 0 && v.type == MCT_J_STRING &&
	    mct_jstr(&v, &name) == 0 && name.p != NULL &&
	    fnmatch(f->mark, name.p, 0) == 0) {
		fx->mark_e6 = sc->ts_e6;
		memcpy(fx->mark_text, sc->ts_text, sc->ts_len);
		fx->mark_text[sc->ts_len] = '\0';
		fx->has_mark = 1;
	}
	mct_buf_free(&name);
	mct_event_free(&ev);
}

static void
ckpt_add(struct facts *fx, long long off, int state, int kind)
{
	if (fx->ncp == fx->cpcap) {
		fx->cpcap = fx->cpcap ? fx->cpcap * 2 : 64;
		fx->cp = mct_xrealloc(fx->cp, (size_t)fx->cpcap * sizeof(*fx->cp));
	}
	fx->cp[fx->ncp].off = off;
	fx->cp[fx->ncp].state = state;
	fx->cp[fx->ncp].kind = kind;
	fx->cp[fx->ncp].conv = 0;
	fx->cp[fx->ncp].nev = fx->nevents;
	fx->ncp++;
}

/*
 * The event just framed to the spool (unless pass 1 only checks it);
 * note what the header needs, and in pass 1 of a plain file where pass 2
 * may cut it into chunks.
 */
static void
emit(struct framer *f)
{
	const struct mct_scan *sc = &f->sc;
	struct facts *fx = f->fx;
	struct mct_reader *r = f->r;
	long long at;
	int kind;

	/* where pass 2 may start: in the file, or the operand's spool lines */
	at = f->check ? (long long)f->evoff : f->spooled;
	kind = !f->check || !sc->plain ? CK_FRAME : sc->spaced ? CK_PLAIN :
	    CK_FLAT;
	if (fx->nevents == 0)
		fx->first_ev = at;
	if (f->chunk > 0 && at >= (fx->ncp ? fx->cp[fx->ncp - 1].off : 0) +
	    f->chunk) {
		/* the chunk before ends with the gap before this event */
		if (fx->ncp > 0)
			fx->cp[fx->ncp - 1].kind = MIN(fx->kind, f->gap);
		ckpt_add(fx, at, f->state, CK_FRAME);
		fx->kind = kind;
	} else
		fx->kind = MIN(MIN(fx->kind, kind), f->gap);
	if (f->inlines) {
		f->out.p[f->out.len++] = '\n';
		f->out.p[f->out.len] = '\0';
		f->spooled += (long long)(f->out.len - f->keep);
		f->keep = f->out.len;
	} else if (!f->check && !r->spoolbad) {
		f->out.p[f->out.len] = '\n';
		if (fwrite(f->out.p, 1, f->out.len + 1, r->spoolf) !=
		    f->out.len + 1)
			spool_failed(r);
		f->spooled += (long long)f->out.len + 1;
	}
	fx->nevents++;
	if (sc->ts_kind == MCT_TS_FRAC || sc->dur_kind == MCT_TS_FRAC)
		fx->anyfrac = 1;
	if (sc->has_co_id)
		fx->anycoid = 1;
	if (sc->odd)
		fx->anyodd = 1;
	if (sc->ntimes > 2)
		fx->manytimes = 1;
	if (sc->ts_kind != MCT_TS_NONE && !sc->is_meta) {
		saw_ts(fx, sc->ts_e6, sc->ts_e6);
		saw_min(fx, sc->ts_e6, sc->ts_text, sc->ts_len);
		if (f->mark != NULL)
			saw_mark(f);
	}
}

static void
report_fixes(struct framer *f)
{
	static const char *const what[MCT_NFIX] = {
		"invalid escape kept as a backslash",
		"raw control character escaped",
		"invalid UTF-8 replaced by U+FFFD",
		"trailing comma dropped",
		"NaN or Infinity written as null",
	};
	const struct rbuf *b = &f->rb;
	int i;

	for (i = 0; i < MCT_NFIX; i++)
		if (f->sc.fixes & (1u << i))
			damage_at(f, b->base + (size_t)(f->sc.fixat[i] - b->p),
			    "%s", what[i]);
}

/*
 * Where to start again after damage: the next '{' that opens a line, or
 * follows "}," or "[" (the places events start in every writer's
 * layout).  Returns its index, or (size_t)-1 if none is in the buffer.
 */
static size_t
resync(const struct rbuf *b, size_t from, int *inarray)
{
	const char *p = b->p;
	size_t i, j;

	for (i = from; i < b->end; i++) {
		if (p[i] != '{')
			continue;
		j = i;
		while (j > 0 && (p[j - 1] == ' ' || p[j - 1] == '\t' ||
		    p[j - 1] == '\r'))
			j--;
		if ((j == 0 && b->base == 0) || (j > 0 && p[j - 1] == '\n')) {
			/* a line start: an NDJSON or one-per-line event */
			size_t k = j > 0 ? j - 1 : 0;

			while (k > 0 && (p[k - 1] == ' ' || p[k - 1] == '\n' ||
			    p[k - 1] == '\t' || p[k - 1] == '\r'))
				k--;
			*inarray = k > 0 && (p[k - 1] == ',' || p[k - 1] == '[');
			return i;
		}
		while (j > 0 && (p[j - 1] == '\n' || p[j - 1] == ' '))
			j--;
		if (j > 0 && p[j - 1] == '[') {
			*inarray = 1;
			return i;
		}
		if (j > 1 && p[j - 1] == ',') {
			j--;
			while (j > 0 && (p[j - 1] == ' ' || p[j - 1] == '\n' ||
			    p[j - 1] == '\t' || p[j - 1] == '\r'))
				j--;
			if (j > 0 && p[j - 1] == '}') {
				*inarray = 1;
				return i;
			}
		}
	}
	return (size_t)-1;
}

/*
 * Keep a value over the limit in the reader's side spool: 0, or -1 if it
 * cannot be written (then it goes in the header after all).
 */
static int
top_spool(struct mct_reader *r, struct facts *fx, const char *p, size_t n,
    size_t k, int before)
{
	struct mct_bigtop *t;
	long long off;

	if (r->topf == NULL && (r->topf = mct_tmpfile(NULL, &r->topvb)) == NULL)
		return -1;
	if (fseeko(r->topf, 0, SEEK_END) != 0 || (off = ftello(r->topf)) < 0 ||
	    fwrite(p + k + 1, 1, n - k - 1, r->topf) != n - k - 1 ||
	    fflush(r->topf) != 0) {
		warn("spool of big top-level values");
		return -1;
	}
	fx->big = mct_xrealloc(fx->big, (size_t)(fx->nbig + 1) * sizeof(*t));
	t = &fx->big[fx->nbig++];
	t->key = mct_xmalloc(k + 1);
	memcpy(t->key, p, k);
	t->key[k] = '\0';
	t->keylen = k;
	t->off = off;
	t->len = n - k - 1;
	t->before = before;
	t->pos = fx->ntop + fx->nbig - 1;
	return 0;
}

/*
 * A top-level "key":value of the source, compact, p[0..n), the quoted
 * key k bytes: to the header's keys, unless the value is over the limit
 * (Fuchsia's systemTraceEvents, megabytes, would make every stream's first
 * line that long): then it is kept aside for --wrap, and the header says
 * top_dropped.  A thread's part cannot: it has the file framed alone.
 */
static void
top_add(struct framer *f, const char *p, size_t n, size_t k, int before)
{
	struct facts *fx = f->fx;

	if (f->topmax >= 0 && n - k - 1 > (size_t)f->topmax) {
		if (f->r == NULL) {
			fx->bigtop = 1;
			return;
		}
		if (top_spool(f->r, fx, p, n, k, before) == 0)
			return;
	}
	if (fx->top.len)
		mct_buf_addc(&fx->top, ',');
	mct_buf_add(&fx->top, p, n);
	fx->ntop_before += before;
	fx->ntop++;
}

/*
 * A top-level "key": value after the traceEvents array; the key is in
 * f->out.  Returns 0, -1 on a syntax error, -2 if the input ends inside
 * the pair.  Needing more input, it rewinds to the key so that the
 * caller reads the pair again.  Pass 2 knows the keys: it only skips them.
 */
static int
after_key(struct framer *f, unsigned long long keyoff)
{
	struct rbuf *b = &f->rb;
	struct mct_scan *sc = &f->sc;
	size_t klen = f->out.len - f->keep;
	int rc;

	while (b->pos < b->end && strchr(" \t\r\n", b->p[b->pos]))
		b->pos++;
	if (b->pos < b->end && b->p[b->pos] != ':')
		return -1;
	if (b->pos < b->end) {
		b->pos++;
		mct_buf_addc(&f->out, ':');	/* "key": then the value */
		sc->out = &f->out;
		sc->toplevel = sc->event = sc->index = 0;
		sc->p = b->p + b->pos;
		sc->end = b->p + b->end;
		rc = mct_scan(sc);
		if (rc == MCT_SCAN_OK) {
			b->pos = (size_t)(sc->p - b->p);
			if (!f->again)
				top_add(f, f->out.p + f->keep,
				    f->out.len - f->keep, klen, 0);
			return 0;
		}
		if (rc != MCT_SCAN_MORE || b->eof)	/* the key is dropped */
			return rc == MCT_SCAN_MORE ? -2 : -1;
	} else if (b->eof)
		return -2;
	/* The pair runs past the buffer: read it again with more input. */
	b->pos = (size_t)(keyoff - b->base);
	fill(f);
	return 0;
}

enum { S_TOP, S_ARRAY, S_AFTER };

/*
 * Frame a trace up to its next event: returns 1 with the event in f->sc
 * (and compacted in f->out unless pass 1 of a plain file only checks
 * it), 0 at the end.  Between calls the state is kept in the framer.
 */
static int
frame(struct framer *f)
{
	struct rbuf *b = &f->rb;
	struct mct_scan *sc = &f->sc;
	struct facts *fx = f->fx;
	unsigned long long evoff;
	int state = f->state, rc, inarray, first = !f->begun, sep = !f->nosep;
	/* since the event before: a line end; nothing but separators */
	int nl = 0, lone = 1, lone_was;
	size_t at;
	char c;

	for (;;) {
		/* Skip whitespace and separators; get more input if needed. */
		while (b->pos < b->end) {
			c = b->p[b->pos];
			if (c == ' ' || c == '\n' || c == '\r' || c == '\t') {
				nl |= c == '\n';
				b->pos++;
			} else if (c == ',' && state != S_TOP) {
				b->pos++;
				sep = 1;
			} else
				break;
		}
		if (b->pos == b->end) {
			if (fill(f) <= 0)
				break;
			progress(f, 0);
			continue;
		}
		if (first && b->end - b->pos >= 3 &&
		    memcmp(b->p + b->pos, "\xef\xbb\xbf", 3) == 0) {
			b->pos += 3;	/* a byte order mark */
			lone = 0;
			continue;
		}
		first = 0;
		c = b->p[b->pos];
		evoff = b->base + b->pos;
		if (f->stop >= 0 && evoff >= (unsigned long long)f->stop) {
			/* a part of a file: the next part starts here (we hope) */
			f->stopped_at = (long long)evoff;
			f->stop_state = state;
			f->stop_sep = sep;
			fx->endgap = !lone ? CK_FRAME : nl ? CK_FLAT : CK_PLAIN;
			break;
		}
		/* what follows, unless it is an event, is not a separator */
		lone_was = lone;
		lone = 0;
		if (state == S_ARRAY && c == ']') {
			b->pos++;
			state = fx->form == 'o' ? S_AFTER : S_TOP;
			continue;
		}
		if (state == S_AFTER) {
			if (c == '}') {
				b->pos++;
				state = S_TOP;
				continue;
			}
			if (c != '"')
				goto bad;
		} else if (state == S_TOP && c == '[') {
			b->pos++;
			if (fx->form == 0)
				fx->form = 'a';
			state = S_ARRAY;
			sep = 1;
			continue;
		} else if (c != '{') {
			if (state == S_TOP)
				goto bad;
			/* An array element that is not an object. */
			memset(sc, 0, offsetof(struct mct_scan, kv));
			sc->p = b->p + b->pos;
			sc->end = b->p + b->end;
			rc = mct_scan(sc);
			if (rc == MCT_SCAN_MORE && !b->eof) {
				if (fill(f) < 0)
					break;
				continue;
			}
			if (rc == MCT_SCAN_OK) {
				damage_at(f, evoff,
				    "not an event (not a JSON object); skipped");
				b->pos = (size_t)(sc->p - b->p);
				continue;
			}
			goto bad;
		}
		/* An event, the top-level object, or a key after traceEvents. */
		f->out.len = f->keep;
		sc->p = b->p + b->pos;
		sc->end = b->p + b->end;
		/* pass 1 of a plain file only checks the events of an array */
		sc->out = f->check && state == S_ARRAY && f->mark == NULL ?
		    NULL : &f->out;
		sc->toplevel = state == S_TOP;
		sc->index = state == S_TOP || (f->index && state == S_ARRAY);
		sc->event = state != S_AFTER;
		rc = mct_scan(sc);
		if (rc == MCT_SCAN_MORE && !b->eof) {
			if (fill(f) < 0)
				break;
			progress(f, 0);
			lone = lone_was;	/* the same event, read on */
			continue;
		}
		if (sc->fixes && rc != MCT_SCAN_ERROR)
			report_fixes(f);
		switch (rc) {
		case MCT_SCAN_OK:
			b->pos = (size_t)(sc->p - b->p);
			if (state != S_AFTER) {
				if (fx->form == 0)
					fx->form = 'n';
				if (state == S_ARRAY && !sep)
					damage_at(f, evoff,
					    "missing ',' between events");
				sep = 0;
				f->state = state;
				f->nosep = !sep;
				f->begun = !first;
				f->evoff = evoff;
				f->gap = !lone_was ? CK_FRAME : nl ? CK_FLAT :
				    CK_PLAIN;
				return 1;
			}
			/* "key": value after the traceEvents array */
			switch (after_key(f, evoff)) {
			case -1:
				goto bad;
			case -2:
				damage_at(f, evoff, "cut off inside a top-level "
				    "key at the end of the input; key dropped");
				b->pos = b->end;
				break;
			}
			continue;
		case MCT_SCAN_TRACE: {
			/* {"k":v,...,"traceEvents":[ : the keys so far are top-level */
			int i;

			fx->form = 'o';
			for (i = 0; i < sc->nkv && !f->again; i++)
				top_add(f, f->out.p + sc->kv[i].koff - 1,
				    sc->kv[i].voff + sc->kv[i].vlen -
				    sc->kv[i].koff + 1, sc->kv[i].klen + 2, 1);
			b->pos = (size_t)(sc->p - b->p);
			state = S_ARRAY;
			sep = 1;
			continue;
		}
		case MCT_SCAN_MORE:
			/* the input ended inside this event */
			damage_at(f, evoff, "cut off inside an event "
			    "at the end of the input; %llu bytes dropped",
			    (unsigned long long)(b->end - b->pos));
			b->pos = b->end;
			continue;
		default:
			damage_at(f, b->base + (size_t)(sc->errpos - b->p),
			    "%s; the event at offset %llu is dropped",
			    sc->errmsg, evoff);
			goto resync;
		}
bad:
		if (state == S_TOP && fx->nevents == 0 && fx->form == 0) {
			damage_at(f, evoff, "not a trace: expected '{' or "
			    "'[', found '%c'", c >= ' ' && c < 127 ? c : '?');
			fx->notrace = 1;
		} else
			damage_at(f, evoff, "unexpected '%c' between events",
			    c >= ' ' && c < 127 ? c : '?');
resync:
		for (;;) {
			at = resync(b, b->pos + 1, &inarray);
			if (at != (size_t)-1) {
				b->pos = at;
				/* inside the events array we stay there */
				state = inarray || state == S_ARRAY ? S_ARRAY :
				    S_TOP;
				break;
			}
			/* searched up to here; refill() keeps the context */
			if (b->end > b->pos + 1)
				b->pos = b->end - 1;
			if (fill(f) <= 0) {
				b->pos = b->end;
				break;
			}
		}
	}
	progress(f, 1);
	f->state = state;
	f->nosep = !sep;
	f->begun = !first;
	return 0;
}

/* Free a framer's buffers; it starts again from its source's start. */
static void
framer_reset(struct framer *f)
{
	free(f->rb.p);
	memset(&f->rb, 0, sizeof(f->rb));
	f->state = f->nosep = f->begun = 0;
	mct_buf_free(&f->out);
	free(f->sc.kv);
	memset(&f->sc, 0, sizeof(f->sc));
}

/*
 * Pass 1 of a big plain file by several threads.  The file is cut into
 * parts at places where an event seems to start (resync()'s rule); the
 * threads frame the parts quietly, noting their facts, each taking the
 * next part no one has taken when it is done with one (so that a thread
 * slowed down, or a part slower to frame, does not leave a CPU idle at
 * the end: up to PARTS_CPU parts a CPU).  The cut is right if the part
 * before stopped exactly there, between events, with the same framing
 * state.  Then the facts are merged and are those of one pass; otherwise
 * (a wrong cut, or any damage) returns -1 and the caller frames the file
 * again, alone and aloud.
 */
#define PARTS_CPU	4

struct part {
	struct framer	 f;		/* its own source, a clone */
	struct facts	 fx;
	long long	 start;		/* its first byte's offset */
};

struct parts {
	struct part	*p;
	int		 n;
	int		 next;		/* the next part no one has taken */
	long long	 done;		/* bytes of the parts framed */
	long long	 size;
	pthread_mutex_t	 mu;
	pthread_t	 tid[MAX_PARTS];
	int		 nthr;
};

/*
 * Frame the parts no one has taken yet, one at a time; the reader's
 * thread (say: its framer, which framed the first) shows the progress.
 */
static void
parts_take(struct parts *ps, struct framer *say)
{
	struct part *p;
	long long end;

	for (;;) {
		pthread_mutex_lock(&ps->mu);
		p = ps->next < ps->n ? &ps->p[ps->next++] : NULL;
		pthread_mutex_unlock(&ps->mu);
		if (p == NULL)
			return;
		while (frame(&p->f))
			emit(&p->f);
		end = p->f.stop >= 0 ? p->f.stop : ps->size;
		__atomic_add_fetch(&ps->done, end - p->start, __ATOMIC_RELAXED);
		framer_reset(&p->f);	/* its buffers; its facts stay */
		if (say != NULL)
			progress(say, 0);
	}
}

static void *
part_run(void *arg)
{
	parts_take(arg, NULL);
	return NULL;
}

/* Where an event seems to start at or after off, or -1. */
#define CUT_LOOK	(64 * 1024)
static long long
cut_at(struct mct_src *src, long long off, long long limit, int *inarray)
{
	long long from = off > 4096 ? off - 4096 : 0;	/* context for resync */
	/* (an event starts within 64 KiB, or there is no cut there) */
	struct mct_src *c = mct_src_clone(src, from, limit < off + CUT_LOOK ?
	    limit : off + CUT_LOOK);
	struct rbuf b = { 0 };
	long long at = -1;
	size_t i;

	if (c == NULL)
		return -1;
	b.base = (unsigned long long)from;
	while (refill(&b, src_rd, c) > 0 && b.end < RBUF)
		;
	if (b.end > (size_t)(off - from) &&
	    (i = resync(&b, (size_t)(off - from), inarray)) != (size_t)-1)
		at = (long long)(b.base + i);
	free(b.p);
	mct_src_close(c);
	return at;
}

/* Add the facts of part p to those of fx (the part before it). */
static void
merge(struct facts *fx, const struct facts *p)
{
	unsigned long long before = fx->nevents;
	int i;

	fx->nevents += p->nevents;
	fx->anyfrac |= p->anyfrac;
	fx->anycoid |= p->anycoid;
	fx->anyodd |= p->anyodd;
	fx->manytimes |= p->manytimes;
	fx->unsorted |= p->unsorted;
	if (p->has_min)
		saw_min(fx, p->min_e6, p->min_text, strlen(p->min_text));
	if (p->seen_ts)
		saw_ts(fx, p->first_e6, p->last_e6);
	if (p->has_mark && (!fx->has_mark || p->mark_e6 < fx->mark_e6)) {
		fx->mark_e6 = p->mark_e6;
		memcpy(fx->mark_text, p->mark_text, sizeof(fx->mark_text));
		fx->has_mark = 1;
	}
	if (p->top.len) {
		if (fx->top.len)
			mct_buf_addc(&fx->top, ',');
		mct_buf_add(&fx->top, p->top.p, p->top.len);
	}
	fx->ntop += p->ntop;
	/* the chunk that ends where p begins, if p begins with a ckpt */
	if (fx->ncp > 0)
		fx->cp[fx->ncp - 1].kind = p->ncp > 0 &&
		    p->cp[0].off == p->first_ev ? MIN(fx->kind, fx->endgap) :
		    CK_FRAME;
	for (i = 0; i < p->ncp; i++) {
		ckpt_add(fx, p->cp[i].off, p->cp[i].state, p->cp[i].kind);
		fx->cp[fx->ncp - 1].conv = p->cp[i].conv;
		fx->cp[fx->ncp - 1].nev = before + p->cp[i].nev;
	}
	fx->kind = p->ncp > 0 ? p->kind : CK_FRAME;
	fx->endgap = p->endgap;
}

/* Did framer f stop right where the next part starts, between events? */
static int
stopped_at_cut(const struct framer *f, long long cut, int state)
{
	return !f->fx->damaged && f->stopped_at == cut &&
	    f->stop_state == state && (state != S_ARRAY || f->stop_sep);
}

/* Returns 1 if done, 0 if not tried, -1 if tried in vain (restart it). */
static int
frame_parts(struct input *in)
{
	struct framer *f = &in->fr;
	struct part parts[MAX_PARTS];
	struct parts ps;
	long long size = mct_src_size(in->src), cut[MAX_PARTS], at;
	const char *env = getenv("MCT_SPLIT");
	long long min = env && *env ? atoll(env) : SPLIT_MIN;
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	int k, n, i, nthr, state, form, inarray, ok = 1;

	/*
	 * Up to PARTS_CPU parts a CPU, framed by one thread a CPU (the
	 * reader's one of them); as many parts as asked for by MCT_SPLIT,
	 * by two threads at least
	 */
	if (ncpu < 1)
		ncpu = 1;
	nthr = env && *env ? (ncpu < 2 ? 2 : (int)ncpu) : (int)ncpu;
	k = env && *env ? MAX_PARTS : ncpu < 2 ? 1 :
	    ncpu * PARTS_CPU > MAX_PARTS ? MAX_PARTS : (int)ncpu * PARTS_CPU;
	if (min < 1)
		min = 1;
	if (k < 2 || size < 2 * min)
		return 0;
	if (size / min < k)
		k = (int)(size / min);
	/* the first event tells the form: in an array, or NDJSON */
	f->quiet = 1;
	f->stop = -1;
	if (!frame(f) || in->fx.damaged) {
		f->quiet = 0;
		return -1;
	}
	emit(f);
	state = f->state;
	form = in->fx.form;
	for (n = 0, i = 1; i < k; i++) {
		at = cut_at(in->src, size / k * i, size, &inarray);
		if (at > (n ? cut[n - 1] : (long long)(f->rb.base + f->rb.pos)) &&
		    at < size && inarray == (state == S_ARRAY))
			cut[n++] = at;
	}
	if (n == 0) {
		f->quiet = 0;
		return -1;
	}
	memset(parts, 0, sizeof(parts));
	for (i = 0; i < n; i++) {
		struct framer *pf = &parts[i].f;

		pf->name = f->name;
		pf->mark = f->mark;
		pf->fx = &parts[i].fx;
		pf->check = pf->quiet = 1;
		pf->topmax = f->topmax;
		pf->chunk = f->chunk;
		parts[i].fx.form = in->fx.form;
		pf->state = state;	/* after a ',' (or a line end), not first */
		pf->begun = 1;
		pf->stop = i + 1 < n ? cut[i + 1] : -1;
		pf->stopped_at = -1;
		pf->rb.base = (unsigned long long)cut[i];
		parts[i].start = cut[i];
		if ((pf->src = mct_src_clone(in->src, cut[i], size)) == NULL)
			ok = 0;
	}
	memset(&ps, 0, sizeof(ps));
	ps.p = parts;
	ps.n = ok ? n : 0;
	ps.size = size;
	pthread_mutex_init(&ps.mu, NULL);
	/* the reader's thread frames the first part, then takes others */
	for (i = 0; ok && i < nthr - 1 && i < n; i++) {
		if (mct_thread(&ps.tid[i], "mct-part", part_run, &ps, i) != 0)
			break;
		ps.nthr++;
	}
	ok = ok && ps.nthr > 0;
	if (ok) {
		f->stop = cut[0];
		f->stopped_at = -1;
		f->nparts = n + 1;
		f->pdone = &ps.done;
		while (frame(f))
			emit(f);
		parts_take(&ps, f);
	}
	for (i = 0; i < ps.nthr; i++)
		pthread_join(ps.tid[i], NULL);
	pthread_mutex_destroy(&ps.mu);
	/*
	 * each part must have stopped where the next began, between events;
	 * none may have changed the form (the parts after it began with
	 * the one before)
	 */
	ok = ok && stopped_at_cut(f, cut[0], state) && in->fx.form == form;
	for (i = 0; ok && i < n; i++)
		ok = (i + 1 == n ? !parts[i].fx.damaged && !parts[i].fx.bigtop :
		    stopped_at_cut(&parts[i].f, cut[i + 1], state) &&
		    !parts[i].fx.bigtop) && parts[i].fx.form == form;
	for (i = 0; ok && i < n; i++)
		merge(&in->fx, &parts[i].fx);
	if (ok)
		in->rp.length = mct_src_pos(parts[n - 1].f.src);
	for (i = 0; i < n; i++) {
		mct_src_close(parts[i].f.src);
		framer_reset(&parts[i].f);
		mct_buf_free(&parts[i].fx.top);
		free(parts[i].fx.cp);
	}
	f->quiet = 0;
	f->stop = -1;
	f->nparts = 0;
	f->pdone = NULL;
	return ok ? 1 : -1;
}

/*
 * Pass 1 of a trace that comes as a stream of bytes (gzip, a pipe) by
 * threads.  Its events go to the spool compacted, so pass 1 is most of
 * the work; one thread framed it while the others waited.  Now the bytes
 * are cut into blocks, each with a copy of the next block's first bytes
 * (OVERLAP), and a thread frames each block quietly into lines of its own:
 * from where an event seems to start in it (resync()'s rule) to the first
 * event at or after the next block's start.  One CPU less than there are
 * threads: the reader's thread frames blocks too while it waits for the
 * next to take, rather than wake another to do it (every hand-over costs
 * a wake-up, slow on a virtual machine).  The operand's framer takes
 * the blocks' lines in order, when the block before stopped exactly where
 * this one began (as frame_parts() checks its parts) and nothing in it was
 * damaged.  At the first block that fails so, and for the last block, the
 * operand's framer goes on itself, aloud, from where the last good block
 * stopped: through the blocks it still holds, then the source.  So the
 * spool, the facts and the messages are those of one framer alone.
 */
#define BLOCK	(256 * 1024)
#define SPLIT_MAX	(64LL << 20)	/* MCT_SPLIT above: blocks are off */
#define OVERLAP	(64 * 1024)
#if CONTEXT > MCT_SRC_BEFORE || OVERLAP + 1 > MCT_SRC_AFTER
#error "a block's buffer has no room for its context and overlap"
#endif

struct block {
	char		*p;		/* its own bytes, then some of the next's */
	size_t		 own, len;
	size_t		 ctx;		/* bytes of the block before, before p */
	unsigned long long base;	/* the source offset of p[0] */
	int		 k;		/* the block it holds; -1: the slot is free */
	int		 ready;		/* the next block's bytes are there */
	int		 done;		/* framed */
	long long	 start;		/* where its framing began; -1: nowhere */
	int		 state;		/* the framer's state there */
	long long	 stopped_at;	/* and where it stopped, -1: at the end */
	int		 stop_state, stop_sep;
	struct facts	 fx;
	struct mct_buf	 lines;		/* its events, compact, a line each */
	int		 guess;		/* lines has ns times (guess_event()) */
	int		 nbig;		/* times it left as written: too big */
	unsigned long long bigat;	/* the first one's event, from 1 */
	struct mct_buf	 big;		/* and its text */
	struct mct_buf	 conv;		/* scratch */
	struct spans	 t;
};

struct blocks {
	struct input	*in;
	pthread_mutex_t	 mu;
	pthread_cond_t	 work;		/* a block is ready, or stop */
	pthread_cond_t	 done;		/* a block was framed */
	pthread_t	 tid[MAX_PARTS];
	int		 nthr;
	struct framer	 mine;		/* the reader's thread's, for blocks */
	struct block	*slot;
	int		 nslot;
	size_t		 blocksz;
	int		 next;		/* the block a thread frames next */
	int		 stop;
	int		 srcerr;	/* the source's last read failed */
	enum mct_unit	 unit;		/* guess_unit(); NS: no guess */
	struct rbuf	 lead;		/* what the framer had read ahead */
	int		 form;		/* the facts' form */
	/* block 0 starts where the operand's framer stands after one event */
	int		 state0, sep0, begun0;
	int		 state;		/* a later block's framer's state */
	/* the operand's framer reads blocks hk..hn-1 (from hoff), then src */
	int		 hk, hn;
	size_t		 hoff;
};

/* Up to n of the bytes the framer had read ahead, to buf. */
static size_t
lead_take(struct blocks *bl, char *buf, size_t n)
{
	struct rbuf *rb = &bl->lead;
	size_t m = rb->end - rb->pos < n ? rb->end - rb->pos : n;

	if (m > 0) {
		memcpy(buf, rb->p + rb->pos, m);
		rb->pos += m;
	}
	return m;
}

static int
held_left(const struct blocks *bl)
{
	return bl->hk < bl->hn || bl->lead.pos < bl->lead.end;
}

/*
 * The up to CONTEXT bytes before source offset at, from the bytes held
 * (the lead, the blocks still in their slots), to ctx: the framer that
 * goes on alone from there needs them to start again after damage as
 * one that read the bytes itself would.  Returns how many.
 */
static size_t
held_context(const struct blocks *bl, unsigned long long at, char *ctx)
{
	unsigned long long want = at < CONTEXT ? at : CONTEXT;
	unsigned long long x = at, lo, hi, from;
	const struct block *b;
	const char *p;
	int i;

	while (at - x < want) {
		p = NULL;
		for (i = bl->hk - 1; i < bl->hn && p == NULL; i++) {
			if (i < 0 || i < bl->hn - bl->nslot)
				continue;
			b = &bl->slot[i % bl->nslot];
			if (b->k != i)
				continue;
			lo = b->base - b->ctx;
			hi = b->base + b->own;
			if (lo < x && x <= hi)
				p = b->p - b->ctx, from = lo;
		}
		lo = bl->lead.base;
		hi = bl->lead.base + bl->lead.end;
		if (p == NULL && bl->lead.p != NULL && lo < x && x <= hi)
			p = bl->lead.p, from = lo;
		if (p == NULL)
			break;
		lo = from > at - want ? from : at - want;
		memcpy(ctx + (lo - (at - want)), p + (lo - from), x - lo);
		x = lo;
	}
	memmove(ctx, ctx + (x - (at - want)), at - x);
	return (size_t)(at - x);
}

/* Bytes of the blocks held, then of the source. */
static ssize_t
held_rd(void *arg, char *buf, size_t n)
{
	struct framer *f = arg;
	struct blocks *bl = f->held;
	struct block *b;
	size_t m;

	while (bl->hk < bl->hn) {
		b = &bl->slot[bl->hk % bl->nslot];
		if (bl->hoff < b->own) {
			m = b->own - bl->hoff < n ? b->own - bl->hoff : n;
			memcpy(buf, b->p + bl->hoff, m);
			bl->hoff += m;
			return (ssize_t)m;
		}
		bl->hk++;
		bl->hoff = 0;
	}
	if (bl->lead.pos < bl->lead.end)
		return (ssize_t)lead_take(bl, buf, n);
	if (bl->srcerr) {
		bl->srcerr = 0;
		return -1;	/* as the read that failed */
	}
	return mct_src_read(f->src, buf, n);
}

/*
 * Lines framed in place: f's out becomes lines (emptied), and back.  The
 * lines end after the last event framed.
 */
static void
swap_out(struct framer *f, struct mct_buf *lines)
{
	struct mct_buf t = *lines;

	if (f->inlines) {
		f->out.len = f->keep;
		if (f->out.p != NULL)
			f->out.p[f->out.len] = '\0';
	} else
		t.len = 0;
	*lines = f->out;
	f->out = t;
	f->inlines = !f->inlines;
	f->keep = 0;
}

/*
 * Pass 2 of an operand read once converts the spool's lines to ns, and
 * cannot start before pass 1 ends and decide_unit() knows the unit.  But
 * the unit is as good as known: --unit's, else us unless the trace turns
 * out to be mcTracer's (co_id, no fraction).  So the block threads of
 * pass 1 convert each event from that guess as it is framed, in place,
 * and the spool has the block's lines so (struct ckpt.conv): pass 2 only
 * copies them.  Until the block has a fraction (then the unit is us for
 * sure), a guess must be one to take back exactly, should a later block
 * show it wrong (n000 ns were n us, unguess()): the block gives it up at
 * an event with a co_id, more than two times, a time that is not a plain
 * integer or one beyond int64 ns, and takes back what it converted.
 */
static enum mct_unit
guess_unit(const struct mct_reader *r)
{
	return r->opts.unit == MCT_UNIT_AUTO ? MCT_UNIT_US : r->opts.unit;
}

/* A time put_converted() converts: a number (not null, not a string). */
static int
is_time(const char *v, size_t n)
{
	return n > 0 && (*v == '-' || (*v >= '0' && *v <= '9'));
}

/* A plain integer: -?(0|[1-9][0-9]*), not -0. */
static int
plain_int(const char *v, size_t n)
{
	size_t i = n > 0 && v[0] == '-';

	if (i == n || (v[i] == '0' && (n > i + 1 || i == 1)))
		return 0;
#ifdef MCT_DIGITS8
	if (n - i >= 8 && n - i <= 16)	/* a Kineto ts: two words */
		return mct_digits16(v + i, n - i);
#endif
	for (; i < n; i++)
		if (v[i] < '0' || v[i] > '9')
			return 0;
	return 1;
}

#define NPLACE	4	/* times place_times() rewrites at most */
#define MAKE_ALONE (512 * 1024)	/* spool bytes pass 2's reader converts
				   alone rather than start threads */

/*
 * The n times at sp[] (offsets from base in o->p, in order) of the text
 * o->p[..len) rewritten in place to num[i], w[i] bytes each (0: left as written),
 * if none is shorter than it was, or none longer: each time and the text
 * after it move by what the times before it grew, the last first (right)
 * or the first first (left).  Returns the new length, or 0 if some grow
 * and some shrink (or n is too big): nothing is changed then.
 */
static size_t
place_times(struct mct_buf *o, size_t len, size_t base,
    const struct span *sp, char (*num)[24], const size_t *w, int n)
{
	long d[NPLACE + 1] = { 0 };
	size_t off, end, next;
	int i, more = 0, less = 0;

	if (n > NPLACE)
		return 0;
	for (i = 0; i < n; i++) {
		d[i + 1] = d[i] + (w[i] ? (long)w[i] - (long)sp[i].len : 0);
		more |= d[i + 1] > d[i];
		less |= d[i + 1] < d[i];
	}
	if (more && less)
		return 0;
	if (more)
		mct_buf_grow(o, len + (size_t)d[n] - o->len);
	for (i = 0; i < n; i++) {
		/* (right: the last first) */
		int j = more ? n - 1 - i : i;

		off = base + sp[j].off;
		end = off + sp[j].len;
		next = j + 1 < n ? base + sp[j + 1].off : len;
		if (w[j] == 0) {	/* it moves with what follows it */
			memmove(o->p + off + d[j], o->p + off, next - off);
			continue;
		}
		if (less)		/* (over what it was) */
			memcpy(o->p + off + d[j], num[j], w[j]);
		memmove(o->p + end + d[j + 1], o->p + end, next - end);
		if (!less)		/* (where that was) */
			memcpy(o->p + off + d[j], num[j], w[j]);
	}
	return (size_t)((long)len + d[n]);
}

/* The lines out[..from) now end at to: where the next event starts. */
static void
lines_end(struct framer *f, size_t from, size_t to)
{
	f->keep = f->keep - from + to;
	f->spooled = f->spooled - (long long)from + (long long)to;
}

/*
 * Block b gives the guess up: its events before out[at] (the event just
 * framed) are taken back as they came, in place.
 */
static void
guess_off(struct framer *f, struct block *b, size_t at)
{
	struct mct_buf *o = &f->out, *c = &b->conv;
	struct facts *fx = &b->fx;
	struct span bad;
	size_t line, nl, was = o->len;
	int i = 0, nt;

	b->guess = 0;
	c->len = 0;
	for (line = 0; line < at; line = nl + 1) {
		nl = (size_t)((char *)memchr(o->p + line, '\n', at - line) -
		    o->p);
		for (; i < fx->ncp && fx->cp[i].off == (long long)line; i++)
			fx->cp[i].off = (long long)c->len;
		/* (the spans first: time_spans() may move them) */
		nt = time_spans(NULL, o->p + line, nl - line, &b->t, 0);
		(void)put_converted(c, o->p + line, nl - line, b->t.sp, nt,
		    MCT_UNIT_NS, 1, &bad);
	}
	for (; i < fx->ncp; i++)	/* the event's own */
		fx->cp[i].off -= (long long)(at - c->len);
	mct_buf_add(c, o->p + at, o->len - at);
	o->len = 0;
	mct_buf_add(o, c->p, c->len);
	lines_end(f, was, o->len);
}

/* The event just framed has n times too big, left as written, the first v. */
static void
guess_big(struct block *b, const char *v, size_t len, int n)
{
	if (b->nbig == 0) {
		b->bigat = b->fx.nevents;
		b->big.len = 0;
		mct_buf_add(&b->big, v, len);
	}
	b->nbig += n;
}

/*
 * The event just framed by block b's thread, from out[from] (a time) to
 * its line end, converted to b->conv and copied back: the n spans of
 * times are from there.  The unit is sure.
 */
static void
guess_copy(const struct blocks *bl, struct framer *f, struct block *b,
    size_t from, const struct span *sp, int n, int say)
{
	struct mct_buf *o = &f->out;
	struct span bad;
	size_t was = o->len;
	int nbad;

	b->conv.len = 0;
	if ((nbad = put_converted(&b->conv, o->p + from, was - 1 - from, sp, n,
	    bl->unit, 0, &bad)) > 0 && say)
		guess_big(b, o->p + from + bad.off, bad.len, nbad);
	o->len = from;
	mct_buf_add(o, b->conv.p, b->conv.len);
	lines_end(f, was, o->len);
}

/*
 * The event just framed by block b's thread, at out[at..] with its line
 * end, gets its times in ns from the guessed unit, or b gives the guess
 * up (above).
 */
static void
guess_event(const struct blocks *bl, struct framer *f, struct block *b,
    size_t at)
{
	const struct mct_scan *sc = &f->sc;
	struct mct_buf *o = &f->out;
	struct span sp[2];
	char num[2][24];	/* an int64 */
	size_t from, was = o->len, w[2];
	const char *v;
	int i, n, sure, nbig = 0, big = 0;

	if (sc->ntimes == 0)
		return;
	sure = bl->in->fr.r->opts.unit != MCT_UNIT_AUTO || b->fx.anyfrac;
	if (!sure && (sc->ntimes > 2 || sc->has_co_id)) {
		guess_off(f, b, at);
		return;
	}
	if (sc->ntimes > 2) {	/* the scan noted two: index them all */
		n = time_spans(NULL, o->p + at, was - 1 - at, &b->t, 0);
		guess_copy(bl, f, b, at, b->t.sp, n, 1);
		return;
	}
	/* the new texts */
	n = sc->ntimes;
	from = sc->time_off[0];
	for (i = 0; i < n; i++) {
		sp[i].off = sc->time_off[i] - from;
		sp[i].len = sc->time_len[i];
		v = o->p + sc->time_off[i];
		w[i] = 0;
		if (is_time(v, sp[i].len)) {
			if (!sure && !plain_int(v, sp[i].len)) {
				guess_off(f, b, at);
				return;
			}
			if ((w[i] = mct_ns_text(num[i], v, sp[i].len,
			    bl->unit)) == 0) {
				if (!sure) {
					guess_off(f, b, at);
					return;
				}
				if (nbig++ == 0)	/* left as written */
					big = i;
			}
		}
	}
	if (nbig > 0)
		guess_big(b, o->p + sc->time_off[big], sp[big].len, nbig);
	if ((o->len = place_times(o, was, from, sp, num, w, n)) == 0) {
		/* one longer, one shorter (a fraction: sure) */
		o->len = was;
		guess_copy(bl, f, b, from, sp, n, nbig == 0);
		return;
	}
	o->p[o->len] = '\0';
	lines_end(f, was, o->len);
}

/* Frame block b (the k-th) with f, a thread's own framer. */
static void
block_frame(struct blocks *bl, struct framer *f, struct block *b, int k)
{
	struct facts *fx = &b->fx;
	int inarray;
	size_t i;

	mct_buf_free(&fx->top);
	free(fx->cp);
	memset(fx, 0, sizeof(*fx));
	fx->form = bl->form;
	b->start = b->stopped_at = -1;
	f->fx = fx;
	f->spooled = 0;
	f->rb.p = b->p - b->ctx;	/* borrowed: nothing more to read */
	f->rb.cap = f->rb.end = b->ctx + b->len;
	f->rb.base = b->base - b->ctx;
	f->rb.eof = 1;
	if (k == 0) {
		i = b->ctx;
		f->state = bl->state0;
		f->nosep = !bl->sep0;
		f->begun = bl->begun0;
	} else {
		i = resync(&f->rb, b->ctx, &inarray);
		if (i == (size_t)-1 || i >= b->ctx + b->own ||
		    inarray != (bl->state == S_ARRAY))
			return;
		f->state = bl->state;
		f->nosep = 0;
		f->begun = 1;
	}
	f->rb.pos = i;
	b->start = (long long)(f->rb.base + i);
	b->state = f->state;
	f->stop = (long long)(b->base + b->own);
	f->stopped_at = -1;
	b->guess = bl->unit != MCT_UNIT_NS;
	b->nbig = 0;
	/* the block's lines are framed in place: its buffer is the out */
	swap_out(f, &b->lines);
	while (frame(f)) {
		size_t at = f->keep;

		emit(f);
		if (b->guess)
			guess_event(bl, f, b, at);
	}
	b->stopped_at = f->stopped_at;
	b->stop_state = f->stop_state;
	b->stop_sep = f->stop_sep;
	swap_out(f, &b->lines);
}

/* A framer for blocks: quiet, with the operand's settings. */
static void
block_framer(struct framer *f, const struct input *in)
{
	memset(f, 0, sizeof(*f));
	f->name = in->s->name;
	f->quiet = 1;
	f->topmax = in->fr.topmax;
	f->mark = in->fr.mark;
	f->chunk = in->fr.chunk;
}

/*
 * With bl->mu held: frame the next block with f if it is ready, and say
 * so; 0 if there is none to frame now.
 */
static int
block_next(struct blocks *bl, struct framer *f)
{
	struct block *b = &bl->slot[bl->next % bl->nslot];
	int k;

	if (bl->stop || b->k != bl->next || !b->ready)
		return 0;
	k = bl->next++;
	pthread_mutex_unlock(&bl->mu);
	block_frame(bl, f, b, k);
	f->rb.p = NULL;		/* the block's */
	f->rb.cap = 0;
	pthread_mutex_lock(&bl->mu);
	b->done = 1;
	pthread_cond_broadcast(&bl->done);
	return 1;
}

static void *
block_run(void *arg)
{
	struct blocks *bl = arg;
	struct framer f;

	block_framer(&f, bl->in);
	pthread_mutex_lock(&bl->mu);
	while (!bl->stop)
		if (!block_next(bl, &f))
			pthread_cond_wait(&bl->work, &bl->mu);
	pthread_mutex_unlock(&bl->mu);
	framer_reset(&f);
	return NULL;
}

/*
 * Up to bl->blocksz bytes of block b: first what the operand's framer
 * read ahead, then the source's.  Returns 0 at the end of the source.
 */
static int
block_read(struct blocks *bl, struct block *b)
{
	struct framer *f = &bl->in->fr;
	int gz = mct_src_gzip(f->src), more = 1;
	ssize_t n;
	char *q;

	b->own = lead_take(bl, b->p, bl->blocksz);
	while (b->own < bl->blocksz) {
		q = b->p + b->own;
		n = gz ? mct_src_swap(f->src, &q, bl->blocksz - b->own) :
		    mct_src_read(f->src, q, bl->blocksz - b->own);
		if (n <= 0) {
			bl->srcerr = n < 0;
			more = 0;
			break;
		}
		if (b->own == 0)
			b->p = q;	/* traded */
		b->own += (size_t)n;
		/*
		 * gzip: a block ends where the inflater's buffer does, so
		 * that the next is one whole, traded rather than copied.
		 */
		if (gz)
			break;
	}
	b->len = b->own;
	return more;
}

/*
 * The spool's lines from here on are converted (conv) or not: a chunk
 * starts here if the one before is not the same, or if new.
 */
static void
conv_from(struct input *in, int conv, int new)
{
	struct facts *fx = &in->fx;

	if (!new && (fx->ncp > 0 && fx->cp[fx->ncp - 1].conv) == conv)
		return;
	ckpt_add(fx, in->fr.spooled, S_ARRAY, CK_FRAME);
	fx->cp[fx->ncp - 1].conv = conv;
}

/* Block b's lines to the spool, its facts to the operand's. */
static void
block_take(struct mct_reader *r, struct input *in, struct block *b)
{
	struct framer *f = &in->fr;
	int i;

	/* (a block's lines by write(2), not copied into the buffer first) */
	if (!r->spoolbad && mct_write_all(r->spoolf, b->lines.p,
	    b->lines.len) == -1)
		spool_failed(r);
	for (i = 0; i < b->fx.ncp; i++) {
		b->fx.cp[i].off += f->spooled;
		b->fx.cp[i].conv = b->guess;
	}
	if (b->lines.len > 0)
		conv_from(in, b->guess, f->chunk > 0 && f->spooled >=
		    (in->fx.ncp ? in->fx.cp[in->fx.ncp - 1].off : 0) + f->chunk);
	in->fx.guessed |= b->guess && b->lines.len > 0;
	if (b->guess && b->nbig > 0 && in->bigat == 0) {
		in->bigat = in->fx.nevents + b->bigat;
		mct_buf_add(&in->big, b->big.p, b->big.len);
	}
	f->spooled += (long long)b->lines.len;
	merge(&in->fx, &b->fx);
}

static void
blocks_free(struct blocks *bl)
{
	int i;

	pthread_mutex_lock(&bl->mu);
	bl->stop = 1;
	pthread_cond_broadcast(&bl->work);
	pthread_mutex_unlock(&bl->mu);
	for (i = 0; i < bl->nthr; i++)
		pthread_join(bl->tid[i], NULL);
	framer_reset(&bl->mine);
	for (i = 0; i < bl->nslot; i++) {
		mct_src_buf_free(bl->slot[i].p);
		mct_buf_free(&bl->slot[i].lines);
		mct_buf_free(&bl->slot[i].conv);
		mct_buf_free(&bl->slot[i].big);
		spans_free(&bl->slot[i].t);
		mct_buf_free(&bl->slot[i].fx.top);
		free(bl->slot[i].fx.cp);
	}
	free(bl->slot);
	free(bl->lead.p);
	pthread_mutex_destroy(&bl->mu);
	pthread_cond_destroy(&bl->work);
	pthread_cond_destroy(&bl->done);
	free(bl);
}

/*
 * Pass 1 of an operand read once (not a plain file) by threads, if two
 * CPUs (or MCT_SPLIT) can share it.  Returns 1 if done, 0 if not tried
 * (the caller frames it alone).
 */
static int
frame_blocks(struct mct_reader *r, struct input *in)
{
	struct framer *f = &in->fr;
	const char *env = getenv("MCT_SPLIT");
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	struct blocks *bl;
	struct block *b, *prev = NULL;
	char ctx[CONTEXT];
	long long cont;
	size_t m;
	int n, i, nread, take, more, cstate, csep, ok;

	n = env && *env ? 2 : ncpu > MAX_PARTS ? MAX_PARTS : (int)ncpu;
	if (n < 2 || r->spoolbad || r->opts.progress ||
	    (env && *env && atoll(env) > SPLIT_MAX))
		return 0;
	/* the first event aloud: the form, the keys before traceEvents */
	if (!frame(f))
		return 1;
	emit(f);
	if (in->fx.damaged || f->rb.eof)
		return 0;	/* all of it read, or damaged: alone */
	bl = mct_xmalloc(sizeof(*bl));
	memset(bl, 0, sizeof(*bl));
	bl->in = in;
	bl->blocksz = env && *env ? (atoll(env) > 0 ? (size_t)atoll(env) : 1) :
	    BLOCK;
	bl->form = in->fx.form;
	bl->unit = f->chunk > 0 ? guess_unit(r) : MCT_UNIT_NS;
	bl->state0 = bl->state = f->state;
	bl->sep0 = !f->nosep;
	bl->begun0 = f->begun;
	bl->nslot = n + 2;
	bl->slot = mct_xmalloc((size_t)bl->nslot * sizeof(*bl->slot));
	memset(bl->slot, 0, (size_t)bl->nslot * sizeof(*bl->slot));
	for (i = 0; i < bl->nslot; i++) {
		bl->slot[i].k = -1;
		bl->slot[i].p = mct_src_buf(bl->blocksz);
	}
	pthread_mutex_init(&bl->mu, NULL);
	pthread_cond_init(&bl->work, NULL);
	pthread_cond_init(&bl->done, NULL);
	block_framer(&bl->mine, in);
	/* the reader's thread is one of the n that frame */
	for (i = 0; i < n - 1; i++) {
		if (mct_thread(&bl->tid[i], "mct-block", block_run, bl, i) != 0)
			break;
		bl->nthr++;
	}
	cont = (long long)(f->rb.base + f->rb.pos);
	bl->lead = f->rb;	/* its bytes go to the blocks first */
	memset(&f->rb, 0, sizeof(f->rb));
	cstate = f->state;
	csep = !f->nosep;
	nread = take = 0;
	more = 1;
	for (;;) {
		/* read ahead into the free slots */
		while (more && nread - take < bl->nslot) {
			b = &bl->slot[nread % bl->nslot];
			b->base = nread == 0 ? (unsigned long long)cont :
			    prev->base + prev->own;
			more = block_read(bl, b);
			if (b->own == 0)
				break;
			pthread_mutex_lock(&bl->mu);	/* a thread may look */
			b->ready = b->done = 0;
			b->k = nread;
			pthread_mutex_unlock(&bl->mu);
			/* the end of the block before, to see where events start */
			b->ctx = 0;
			if (nread > 0) {
				b->ctx = prev->own < CONTEXT ? prev->own : CONTEXT;
				memcpy(b->p - b->ctx, prev->p + prev->own - b->ctx,
				    b->ctx);
			}
			if (nread > take) {
				/* the block before gets its overlap: it may go */
				prev = &bl->slot[(nread - 1) % bl->nslot];
				m = b->own < OVERLAP ? b->own : OVERLAP;
				memcpy(prev->p + prev->own, b->p, m);
				prev->len = prev->own + m;
				pthread_mutex_lock(&bl->mu);
				prev->ready = 1;
				pthread_cond_broadcast(&bl->work);
				pthread_mutex_unlock(&bl->mu);
			}
			prev = b;
			nread++;
		}
		/* the last block is the operand's framer's */
		if (bl->nthr == 0 || take >= nread - 1)
			break;
		/* (while it waits, the reader's thread frames blocks too) */
		b = &bl->slot[take % bl->nslot];
		pthread_mutex_lock(&bl->mu);
		while (!b->done)
			if (!block_next(bl, &bl->mine))
				pthread_cond_wait(&bl->done, &bl->mu);
		pthread_mutex_unlock(&bl->mu);
		/* (a block that changed the form: the rest must know it) */
		ok = b->start == cont && b->state == cstate &&
		    (take == 0 || cstate != S_ARRAY || csep) &&
		    !b->fx.damaged && !b->fx.bigtop && b->stopped_at >= 0 &&
		    b->fx.form == bl->form;
		if (!ok)
			break;
		block_take(r, in, b);
		cont = b->stopped_at;
		cstate = b->stop_state;
		csep = b->stop_sep;
		pthread_mutex_lock(&bl->mu);
		b->k = -1;
		pthread_mutex_unlock(&bl->mu);
		take++;
		progress(f, 0);
	}
	/* the rest alone: from cont, through the blocks held, then src */
	conv_from(in, 0, 0);
	pthread_mutex_lock(&bl->mu);
	bl->stop = 1;
	pthread_cond_broadcast(&bl->work);
	pthread_mutex_unlock(&bl->mu);
	bl->hk = take;
	bl->hn = nread;
	while (bl->hk < bl->hn && (long long)(bl->slot[bl->hk % bl->nslot].base +
	    bl->slot[bl->hk % bl->nslot].own) <= cont)
		bl->hk++;
	bl->hoff = bl->hk < bl->hn ? (size_t)(cont -
	    (long long)bl->slot[bl->hk % bl->nslot].base) : 0;
	m = held_context(bl, (unsigned long long)cont, ctx);
	if (bl->lead.pos == bl->lead.end) {
		f->rb = bl->lead;	/* its buffer, rather than a new one */
		memset(&bl->lead, 0, sizeof(bl->lead));
	}
	if (f->rb.cap < RBUF) {
		f->rb.cap = RBUF;
		f->rb.p = mct_xrealloc(f->rb.p, f->rb.cap + 1);
	}
	memcpy(f->rb.p, ctx, m);
	f->rb.pos = f->rb.end = m;
	f->rb.base = (unsigned long long)cont - m;
	f->rb.eof = 0;
	f->state = cstate;
	f->nosep = !csep;
	f->begun = 1;
	f->held = bl;
	while (frame(f))
		emit(f);
	f->held = NULL;
	blocks_free(bl);
	return 1;
}

static void
bigtop_free(struct facts *fx)
{
	int i;

	for (i = 0; i < fx->nbig; i++)
		free(fx->big[i].key);
	free(fx->big);
	fx->big = NULL;
	fx->nbig = 0;
}

/* What facts hold, freed (they are then as new). */
static void
facts_free(struct facts *fx)
{
	free(fx->cp);
	mct_buf_free(&fx->top);
	mct_buf_free(&fx->dropped);
	bigtop_free(fx);
	memset(fx, 0, sizeof(*fx));
}

/* Frame an input again from its start, as if for the first time. */
static void
restart(struct input *in)
{
	struct mct_buf top = in->fx.top;

	framer_reset(&in->fr);
	in->fr.quiet = 0;
	in->fr.stop = -1;
	top.len = 0;
	if (top.p)
		top.p[0] = '\0';
	bigtop_free(&in->fx);
	free(in->fx.cp);
	memset(&in->fx, 0, sizeof(in->fx));
	in->fx.top = top;
	mct_src_rewind(in->src, -1);
}

/* The end of pass 1 of a trace operand: its facts decide its source's. */
static void
decide_unit(struct mct_reader *r, struct input *in)
{
	struct mct_source *s = in->s;
	const struct facts *fx = &in->fx;

	if (r->opts.unit != MCT_UNIT_AUTO) {
		s->unit = r->opts.unit;
		s->why = "given by --unit";
	} else if (fx->anyfrac) {
		s->unit = MCT_UNIT_US;
		s->why = "a ts or dur has a fraction";
	} else if (fx->anycoid) {
		s->unit = MCT_UNIT_NS;
		s->why = "events carry args.co_id (mcTracer)";
	} else if (fx->nevents == 0) {
		s->unit = MCT_UNIT_US;
		s->why = "no events";
	} else {
		s->unit = MCT_UNIT_US;
		s->why = "Chrome trace format default";
	}
	in->convert = s->unit != MCT_UNIT_NS || fx->anyfrac || fx->anyodd;
	s->has_origin = fx->has_min;
	if (s->has_origin && mct_dec_ns(fx->min_text, strlen(fx->min_text),
	    s->unit, &s->origin) != 0) {
		warnx("%s: the smallest ts, %s %s, is beyond int64 ns; no origin",
		    s->name, fx->min_text, mct_unit_name(s->unit));
		s->has_origin = 0;
	}
	s->has_mark = fx->has_mark && mct_dec_ns(fx->mark_text,
	    strlen(fx->mark_text), s->unit, &s->mark) == 0;
}

/* What the facts say of the source, pass 1 done (or a stream's header read). */
static void
publish(struct input *in)
{
	struct mct_source *s = in->s;
	const struct facts *fx = &in->fx;

	s->form = fx->form;
	s->top = fx->top.len ? fx->top.p : NULL;
	s->ntop_before = fx->ntop_before;
	s->sorted = !fx->unsorted;
	s->nevents = fx->nevents;
	s->damaged = fx->damaged;
	s->notrace = fx->notrace && fx->nevents == 0;
	s->big = fx->big;
	s->nbig = fx->nbig;
	s->dropped = fx->dropped.len ? fx->dropped.p : NULL;
}

static int
is_header_line(const char *p, size_t n)
{
	static const char pre[] = "{\"name\":\"" MCT_HEADER_NAME "\"";

	return n >= sizeof(pre) - 1 && memcmp(p, pre, sizeof(pre) - 1) == 0;
}

/* Is this operand an mct stream?  Reads its first line if so. */
static int
probe_stream(struct mct_reader *r, struct input *in)
{
	struct rbuf *b = &in->rp.rb;
	char *nl;

	for (;;) {
		nl = find_nl(b);
		if (b->end - b->pos >= 64 || nl != NULL || b->eof)
			break;
		if (refill(b, src_rd, in->src) < 0)
			break;
	}
	src_error(r, in->s->name, in->src, &in->fx);
	if (!is_header_line(b->p + b->pos, b->end - b->pos))
		return 0;
	while ((nl = find_nl(b)) == NULL &&
	    !b->eof)
		if (refill(b, src_rd, in->src) < 0)
			break;
	src_error(r, in->s->name, in->src, &in->fx);
	if (nl == NULL)
		nl = b->p + b->end;
	mct_buf_add(&in->hline, b->p + b->pos, (size_t)(nl - (b->p + b->pos)));
	b->pos = (size_t)(nl - b->p) + (nl < b->p + b->end);
	in->rp.line = 1;
	return 1;
}

/*
 * A stream header's ranks: its lines carry their rank keys.  A stream of
 * one rank is that rank's source (duplicates are then found).
 */
static void
read_ranks(struct input *in, const struct mct_val *list)
{
	struct mct_source *s = in->s;
	struct mct_event ev;
	struct mct_val v;
	const char *p = list->p + 1, *end = list->p + list->len - 1, *q;

	s->ranks_inside = 1;
	if (p < end)
		mct_buf_add(&in->ranklist, p, (size_t)(end - p));
	if (p >= end || *p != '{' || mct_skip(p, end, &q) != MCT_J_OBJECT || q != end)
		return;		/* not exactly one rank */
	mct_event_init(&ev, p, (size_t)(q - p), NULL);
	if (mct_get_key(&ev, "rank", &v) == 0 && v.type == MCT_J_NUMBER &&
	    mct_int(v.p, v.len, &s->rank) == 0) {
		s->rank_from = "the stream's header";
		if (mct_get_key(&ev, "rank_from", &v) == 0 &&
		    v.type == MCT_J_STRING && mct_jstr(&v, &in->rankfrom) == 0 &&
		    in->rankfrom.p != NULL)
			s->rank_from = in->rankfrom.p;
	} else
		s->rank = MCT_RANK_NONE;
	mct_event_free(&ev);
}

/* Read what a stream operand's header says. */
static void
read_header(struct input *in)
{
	struct mct_source *s = in->s;
	struct facts *fx = &in->fx;
	struct mct_event ev = { 0 };
	struct mct_val v;
	int64_t n;

	ev.json = in->hline.p;
	ev.len = in->hline.len;
	s->unit = MCT_UNIT_NS;
	s->why = "from the header";
	if (mct_get_key(&ev, "args", &v) == 0 && v.type == MCT_J_OBJECT) {
		struct mct_event a = { 0 };
		struct mct_val f;

		a.json = v.p;
		a.len = v.len;
		if (mct_get_key(&a, "unit", &f) == 0 && f.type == MCT_J_STRING) {
			struct mct_buf u = { 0 };

			mct_jstr(&f, &u);
			if (u.p && mct_parse_unit(u.p, &s->unit) != 0)
				s->unit = MCT_UNIT_NS;
			mct_buf_free(&u);
		}
		if (mct_get_key(&a, "unit_from", &f) == 0 && f.type == MCT_J_STRING) {
			mct_jstr(&f, &in->whybuf);
			s->why = in->whybuf.p ? in->whybuf.p : "";
		}
		if (mct_get_key(&a, "origin", &f) == 0 && f.type == MCT_J_NUMBER &&
		    mct_int(f.p, f.len, &n) == 0) {
			s->origin = n;
			s->has_origin = 1;
		}
		if (mct_get_key(&a, "form", &f) == 0 && f.type == MCT_J_STRING &&
		    f.len > 2)
			fx->form = f.p[1];
		fx->unsorted = !(mct_get_key(&a, "sorted", &f) == 0 &&
		    f.type == MCT_J_BOOL && f.p[0] == 't');
		if (mct_get_key(&a, "top_before", &f) == 0 &&
		    f.type == MCT_J_NUMBER && mct_int(f.p, f.len, &n) == 0)
			fx->ntop_before = (int)n;
		if (mct_get_key(&a, "top", &f) == 0 && f.type == MCT_J_OBJECT &&
		    f.len > 2)
			mct_buf_add(&fx->top, f.p + 1, f.len - 2);
		if (mct_get_key(&a, "ranks", &f) == 0 && f.type == MCT_J_ARRAY)
			read_ranks(in, &f);
		if (mct_get_key(&a, "top_dropped", &f) == 0 &&
		    f.type == MCT_J_OBJECT && f.len > 2) {
			mct_buf_add(&fx->dropped, f.p + 1, f.len - 2);
			mct_buf_addc(&fx->dropped, '\0');
			fx->dropped.len--;
		}
		free(a.kv);
	}
	free(ev.kv);
}

/* ,"key": and a string, or null. */
static void
put_str(struct mct_buf *b, const char *key, const char *v)
{
	mct_buf_adds(b, key);
	if (v)
		mct_buf_addjstr(b, v, strlen(v));
	else
		mct_buf_adds(b, "null");
}

/* ,"key": and a number, or null if it is not set. */
static void
put_int(struct mct_buf *b, const char *key, int set, int64_t v)
{
	mct_buf_adds(b, key);
	if (set)
		mct_buf_addi(b, v);
	else
		mct_buf_adds(b, "null");
}

/*
 * The header's list of ranked sources: "ranks":[{path, rank, rank_from,
 * unit, unit_from, origin, shift, top}, ...], one per operand.
 */
static void
header_ranks(struct mct_reader *r, struct mct_buf *b)
{
	int i;

	mct_buf_adds(b, ",\"ranks\":[");
	for (i = 0; i < r->nin; i++) {
		const struct mct_source *s = &r->src[i];

		if (i)
			mct_buf_addc(b, ',');
		if (r->in[i].ranklist.len > 0) {
			/* a stream of ranks: its own list, as it came */
			mct_buf_add(b, r->in[i].ranklist.p, r->in[i].ranklist.len);
			continue;
		}
		mct_buf_adds(b, "{\"path\":");
		mct_buf_addjstr(b, s->path, strlen(s->path));
		put_int(b, ",\"rank\":", s->rank >= 0, s->rank);
		put_str(b, ",\"rank_from\":", s->rank_from);
		put_str(b, ",\"unit\":",
		    mct_unit_name(s->unit ? s->unit : MCT_UNIT_NS));
		put_str(b, ",\"unit_from\":", s->why);
		put_int(b, ",\"origin\":", s->has_origin, s->origin);
		put_int(b, ",\"shift\":", 1, s->shift);
		mct_buf_adds(b, ",\"top\":{");
		if (s->top)
			mct_buf_adds(b, s->top);
		mct_buf_adds(b, "}}");
	}
	mct_buf_addc(b, ']');
}

/*
 * After pass 1: the rank of every source and its shift.  Duplicate
 * ranks, or a source --align cannot place, leave nothing to read.
 */
static void
decide_ranks(struct mct_reader *r)
{
	int i, ranked;

	if ((ranked = mct_rank_decide(r->src, r->nin, &r->opts)) < 0 ||
	    mct_rank_align(r->src, r->nin, &r->opts) < 0) {
		r->fatal = 1;
		r->status = mct_status(r->status, MCT_EXIT_USAGE);
		return;
	}
	r->hdr.ranked = ranked;
	for (i = 0; i < r->nin; i++)
		if (ranked && r->src[i].notrace)	/* no rank of the job */
			r->status = mct_status(r->status, MCT_EXIT_USAGE);
	for (i = 0; i < r->nin; i++)
		r->in[i].addrank = ranked && !r->src[i].ranks_inside &&
		    r->src[i].rank >= 0;
}

/* mct_edit(): the event edited here, unless a thread of pass 2 did. */
static void
edit_event(struct mct_reader *r, struct input *in)
{
	struct mct_event *ev = &r->ev;

	if (r->edit == NULL || in->p2 != NULL)
		return;
	r->eline.len = 0;
	r->edit(r->edit_arg, ev->json, ev->len, &r->eline);
	mct_buf_addc(&r->eline, '\n');		/* one write of it */
	ev->json = r->eline.p;
	ev->len = r->eline.len - 1;
	ev->indexed = 0;
	ev->wkdone = 0;
}

/* Edit every event; see mct.h.  Refused if the reader adds to them. */
int
mct_edit(struct mct_reader *r, mct_edit_fn fn, void *arg)
{
	int i;

	for (i = 0; i < r->nin; i++)
		if (r->in[i].addrank || r->in[i].s->shift != 0 ||
		    r->in[i].rp.started || r->opts.pair_be)
			return -1;
	r->edit = fn;
	r->edit_arg = arg;
	return 0;
}

/*
 * The event r->ev with its rank and shift, if its source has them.  An
 * index of the event stays right when only a rank is appended: it gets
 * the rank's key (the line ends "rank":N}).
 */
static void
rank_event(struct mct_reader *r, struct input *in)
{
	struct mct_event *ev = &r->ev;
	int keep = ev->indexed && ev->nkv >= 0 && in->s->shift == 0;
	struct mct_kv *kv;

	if ((!in->addrank && in->s->shift == 0) ||
	    mct_rank_line(ev, in->addrank ? in->s->rank : MCT_RANK_NONE,
	    in->s->shift, &r->rline) != 0)
		return;
	ev->json = r->rline.p;
	ev->len = r->rline.len;
	ev->indexed = 0;
	ev->wkdone = 0;
	if (!keep)
		return;
	if (ev->nkv == ev->kvcap) {
		ev->kvcap = ev->kvcap ? ev->kvcap * 2 : 16;
		ev->kv = mct_xrealloc(ev->kv, (size_t)ev->kvcap * sizeof(*ev->kv));
	}
	kv = &ev->kv[ev->nkv++];
	kv->vlen = 0;
	while (ev->json[ev->len - 2 - kv->vlen] != ':')
		kv->vlen++;
	kv->voff = (uint32_t)(ev->len - 1 - kv->vlen);
	kv->koff = kv->voff - 6;	/* rank": */
	kv->klen = 4;
	ev->indexed = 1;
}

/* ,"top_dropped":{"key":bytes,...}: the values not in the header. */
static void
top_dropped(struct mct_buf *b, const struct mct_source *s)
{
	int i;

	if (s->dropped == NULL && s->nbig == 0)
		return;
	mct_buf_adds(b, ",\"top_dropped\":{");
	if (s->dropped)
		mct_buf_adds(b, s->dropped);
	for (i = 0; i < s->nbig; i++) {
		if (i || s->dropped)
			mct_buf_addc(b, ',');
		mct_buf_add(b, s->big[i].key, s->big[i].keylen);
		mct_buf_addc(b, ':');
		mct_buf_addi(b, (int64_t)s->big[i].len);
	}
	mct_buf_addc(b, '}');
}

/* Build the header of the whole run from the operands' facts. */
static void
make_header(struct mct_reader *r)
{
	struct mct_header *h = &r->hdr;
	struct mct_buf b = { 0 };
	const struct mct_source *first = NULL;
	int i;

	h->src = r->src;
	h->nsrc = r->nin;
	for (i = 0; i < r->nin; i++) {
		const struct mct_source *s = &r->src[i];

		if (!s->ok)
			continue;	/* unreadable */
		if (first == NULL)
			first = s;
		h->nread++;
		if (s->has_origin && (!h->has_origin ||
		    s->origin + s->shift < h->origin)) {
			h->origin = s->origin + s->shift;
			h->has_origin = 1;
		}
	}
	if (first == NULL)
		first = &r->src[0];
	h->unit = first->unit ? first->unit : MCT_UNIT_NS;
	h->why = first->why ? first->why : "no events";
	h->form = first->form ? first->form : 'n';
	h->top = first->top ? mct_xstrdup(first->top) : NULL;
	h->ntop_before = first->ntop_before;
	h->sorted = (h->nread == 1 && first->sorted) || r->opts.merged;
	h->big = first->big;
	h->nbig = first->nbig;
	h->bigfd = r->topf ? fileno(r->topf) : -1;
	if (r->nin == 1 && first->stream && !r->in[0].addrank &&
	    first->shift == 0 && !r->opts.merged) {
		const struct mct_buf *l = &r->in[0].hline;

		/* as it came, NUL bytes and all: not strdup() */
		h->line = mct_xmalloc(l->len + 1);
		memcpy(h->line, l->p, l->len);
		h->line[l->len] = '\0';
		h->linelen = l->len;
		return;
	}
	mct_buf_adds(&b, "{\"name\":\"" MCT_HEADER_NAME "\",\"ph\":\"M\","
	    "\"args\":{\"version\":1,\"unit\":\"");
	mct_buf_adds(&b, mct_unit_name(h->unit));
	mct_buf_adds(&b, "\",\"unit_from\":");
	mct_buf_addjstr(&b, h->why, strlen(h->why));
	mct_buf_adds(&b, ",\"origin\":");
	if (h->has_origin)
		mct_buf_addi(&b, h->origin);
	else
		mct_buf_adds(&b, "null");
	mct_buf_adds(&b, ",\"form\":\"");
	mct_buf_adds(&b, h->form == 'o' ? "object" : h->form == 'a' ? "array" :
	    "ndjson");
	mct_buf_adds(&b, "\",\"sorted\":");
	mct_buf_adds(&b, h->sorted ? "true" : "false");
	mct_buf_adds(&b, ",\"top_before\":");
	mct_buf_addi(&b, h->ntop_before);
	mct_buf_adds(&b, ",\"top\":{");
	if (h->top)
		mct_buf_adds(&b, h->top);
	mct_buf_addc(&b, '}');
	top_dropped(&b, first);
	mct_buf_adds(&b, ",\"sources\":[");
	for (i = 0; i < r->nin; i++) {
		const char *n = r->src[i].path;

		if (i)
			mct_buf_addc(&b, ',');
		mct_buf_addjstr(&b, n, strlen(n));
	}
	mct_buf_addc(&b, ']');
	if (h->ranked)
		header_ranks(r, &b);
	mct_buf_adds(&b, "}}");
	h->line = b.p;
	h->linelen = b.len;
}

static int
make_spool(struct mct_reader *r)
{
	if ((r->spoolf = mct_tmpfile(&r->spoolname, &r->spoolvb)) == NULL)
		return -1;
	r->spool = fileno(r->spoolf);
	return 0;
}

/* Where this trace operand's lines in the spool begin, or end. */
static long long
spool_at(struct mct_reader *r)
{
	if (r->spoolbad)
		return 0;
	if (fflush(r->spoolf) != 0) {
		spool_failed(r);
		return 0;
	}
	return ftello(r->spoolf);
}

/*
 * Pass 1 found no trace: an empty input is worth a warning only (a
 * profiler that wrote nothing), but bytes that are not JSON at all (a
 * log, a binary, the wrong file) are a usage error, not a damaged trace.
 */
static void
not_trace(struct mct_reader *r, const struct input *in)
{
	if (in->fx.nevents > 0)
		return;
	if (in->fx.form == 0 && !in->fx.damaged)
		warnx("%s: empty input: no events", in->s->name);
	else if (in->fx.notrace)
		r->status = mct_status(r->status, MCT_EXIT_USAGE);
}

/* Bytes a chunk of pass 2 has at least: MCT_SPLIT, as a part of pass 1. */
static long long
chunk_size(void)
{
	const char *env = getenv("MCT_SPLIT");
	long long n = env && *env ? atoll(env) : CHUNK;

	return n < 1 ? 1 : n;
}

/* Pass 1 of a trace operand. */
static void
pass1(struct mct_reader *r, struct input *in)
{
	struct framer *f = &in->fr;
	int rc;

	if (!in->direct)
		in->rp.spool_from = spool_at(r);
	rc = in->direct ? frame_parts(in) : frame_blocks(r, in);
	if (rc < 0)
		restart(in);
	if (rc <= 0) {
		while (frame(f))
			emit(f);
		in->rp.length = mct_src_pos(in->src);
	}
	if (!in->direct)
		in->rp.spool_to = spool_at(r);
	not_trace(r, in);
	decide_unit(r, in);
	publish(in);
	framer_reset(f);	/* pass 2 of a plain file starts afresh */
}

/* Open one operand: a stream's header is read, a trace goes through pass 1. */
static void
open_input(struct mct_reader *r, struct input *in, int *ndirect)
{
	struct mct_source *s = in->s;

	in->src = mct_src_open(s->path);
	if (mct_src_failed(in->src)) {
		src_error(r, s->name, in->src, &in->fx);
		mct_src_close(in->src);
		in->src = NULL;
		r->status = mct_status(r->status, MCT_EXIT_USAGE);
		return;
	}
	s->ok = 1;
	if (probe_stream(r, in)) {
		in->stream = s->stream = 1;
		read_header(in);
		publish(in);
		return;
	}
	/* a plain file is read twice (kept open: a few of them) */
	in->direct = mct_src_rewindable(in->src) && *ndirect < MAX_DIRECT &&
	    getenv("MCT_SPOOL") == NULL;
	if (in->direct)
		(*ndirect)++;
	else if (r->spool == -1 && make_spool(r) == -1) {
		r->status = MCT_EXIT_USAGE;
		mct_src_close(in->src);
		in->src = NULL;
		return;
	}
	in->fr.src = in->src;
	in->fr.check = in->direct;
	in->fr.chunk = chunk_size();
	/* the framer goes on with what probe_stream() read */
	in->fr.rb = in->rp.rb;
	memset(&in->rp.rb, 0, sizeof(in->rp.rb));
	pass1(r, in);
	if (in->direct)
		return;
	r->status = mct_status(r->status, mct_src_close(in->src));
	in->src = in->fr.src = NULL;
}

/*
 * Open the operands (none means standard input) and read every trace
 * operand through pass 1.  Unreadable operands are reported and skipped
 * (status MCT_EXIT_USAGE at the end); the others are still read.
 */
struct mct_reader *
mct_open(int argc, char **argv, const struct mct_opts *opts)
{
	char *dash[] = { (char *)"-", NULL };
	struct mct_reader *r;
	int i, stdin_used = 0, ndirect = 0;

	if (argc == 0) {
		argc = 1;
		argv = dash;
	}
	mct_heap_keep();
	r = mct_xmalloc(sizeof(*r));
	memset(r, 0, sizeof(*r));
	if (opts)
		r->opts = *opts;
	r->spool = -1;
	r->nin = argc;
	r->in = mct_xmalloc((size_t)argc * sizeof(*r->in));
	memset(r->in, 0, (size_t)argc * sizeof(*r->in));
	r->src = mct_xmalloc((size_t)argc * sizeof(*r->src));
	memset(r->src, 0, (size_t)argc * sizeof(*r->src));
	for (i = 0; i < argc; i++) {
		struct input *in = &r->in[i];
		struct mct_source *s = &r->src[i];

		in->s = s;
		s->path = argv[i];
		s->name = strcmp(argv[i], "-") == 0 ? "(stdin)" : argv[i];
		in->fr.r = r;
		in->fr.name = s->name;
		in->fr.fx = &in->fx;
		in->fr.stop = -1;
		in->fr.mark = r->opts.align == MCT_ALIGN_NAME ?
		    r->opts.align_name : NULL;
		s->rank = MCT_RANK_NONE;
		in->fr.topmax = r->opts.top_max ? r->opts.top_max : MCT_TOP_MAX;
		if (strcmp(argv[i], "-") == 0 && stdin_used++) {
			warnx("standard input given twice; read once");
			continue;
		}
		open_input(r, in, &ndirect);
	}
	decide_ranks(r);
	make_header(r);
	if (r->fatal)
		r->hdr.nread = 0;	/* the tools write nothing */
	r->cur = 0;
	r->spool_pos = r->nin > 0 ? r->in[0].rp.spool_from : 0;
	return r;
}

const struct mct_header *
mct_header(const struct mct_reader *r)
{
	return &r->hdr;
}

/* Room in t for span n (and 4 at least). */
static void
span_room(struct spans *t, int n)
{
	if (n < t->cap)
		return;
	t->cap = t->cap ? t->cap * 2 : 4;
	t->sp = mct_xrealloc(t->sp, (size_t)t->cap * sizeof(*t->sp));
}

/*
 * The spans mct_unspace() noted of object obj, whose line starts at ls
 * of what it wrote (its notes are in order: *ti is the first not taken
 * yet) to t; returns how many.
 */
static int
noted_spans(const struct mct_times *tm, int *ti, unsigned long long obj,
    size_t ls, struct spans *t)
{
	int nt;

	for (nt = 0; *ti < tm->n && tm->kv[*ti].koff == obj; (*ti)++, nt++) {
		span_room(t, nt);
		t->sp[nt].off = tm->kv[*ti].voff - ls;
		t->sp[nt].len = tm->kv[*ti].vlen;
	}
	return nt;
}

/*
 * The ts and dur values of the compact event json[0..len), in order:
 * the scan's (sc, if the event was framed and had two at most), else
 * found by indexing the event, up to its first ts and dur only if few
 * (no event of the operand has more).  Returns how many, in t->sp.
 */
static int
time_spans(const struct mct_scan *sc, const char *json, size_t len,
    struct spans *t, int few)
{
	int i, n = 0, nkv;

	span_room(t, 1);
	if (sc != NULL && sc->ntimes <= 2) {
		for (i = 0; i < sc->ntimes; i++) {
			t->sp[i].off = sc->time_off[i];
			t->sp[i].len = sc->time_len[i];
		}
		return sc->ntimes;
	}
	if ((few ? mct_index_times : mct_index)(json, len, &t->kv, &nkv,
	    &t->kvcap) < 0)
		return 0;
	for (i = 0; i < nkv; i++) {
		const struct mct_kv *kv = &t->kv[i];
		const char *k = json + kv->koff;

		if (!((kv->klen == 2 && memcmp(k, "ts", 2) == 0) ||
		    (kv->klen == 3 && memcmp(k, "dur", 3) == 0)))
			continue;
		span_room(t, n);
		t->sp[n].off = kv->voff;
		t->sp[n].len = kv->vlen;
		n++;
	}
	return n;
}

static void
spans_free(struct spans *t)
{
	mct_buf_free(&t->line);
	free(t->sp);
	free(t->kv);
	memset(t, 0, sizeof(*t));
}

/*
 * The ns text v[0..n) that pass 1 converted from its guess of us back to
 * the us it was (guess_unit()): the plain integer, to o; returns its
 * length.
 */
static size_t
unguess(char *o, const char *v, size_t n)
{
	if (n > 3 && memcmp(v + n - 3, "000", 3) == 0)
		n -= 3;		/* (else 0, or not converted: as it is) */
	memcpy(o, v, n);
	return n;
}

/*
 * Append json[0..len) and a newline to b, the numbers at the n spans
 * (ts and dur) rewritten from unit to integer ns, or (back) pass 1's
 * guess taken back.  A value beyond int64 ns stays as written: returns
 * how many did, the first in *bad.
 */
static int
put_converted(struct mct_buf *b, const char *json, size_t len,
    const struct span *sp, int n, enum mct_unit unit, int back,
    struct span *bad)
{
	size_t last = 0, w;
	int i, nbad = 0;
	char *o;

	/* a value's ns take 21 bytes at most */
	mct_buf_grow(b, len + 1 + (size_t)n * 21);
	o = b->p + b->len;
	for (i = 0; i < n; i++) {
		const char *v = json + sp[i].off;

		if (!is_time(v, sp[i].len))
			continue;
		memcpy(o, json + last, sp[i].off - last);
		o += sp[i].off - last;
		last = sp[i].off;
		if (back)
			w = unguess(o, v, sp[i].len);
		else if ((w = mct_ns_text(o, v, sp[i].len, unit)) == 0) {
			if (nbad++ == 0)	/* as written, with what follows */
				*bad = sp[i];
			continue;
		}
		o += w;
		last = sp[i].off + sp[i].len;
	}
	memcpy(o, json + last, len - last);
	o += len - last;
	*o++ = '\n';
	*o = '\0';		/* as mct_buf_add() leaves it */
	b->len = (size_t)(o - b->p);
	return nbad;
}

/* Say a value beyond int64 ns, the first of the operand's. */
static void
too_big(struct mct_reader *r, struct input *in, unsigned long long line,
    const char *v, size_t len, int n)
{
	if (in->rp.toobig == 0)
		warnx("%s: event %llu: %.*s %s is beyond int64 ns; left as "
		    "written", in->s->name, line, (int)len, v,
		    mct_unit_name(in->s->unit));
	in->rp.toobig += n;
	r->status = mct_status(r->status, MCT_EXIT_DAMAGED);
}

/*
 * Rewrite ts and dur of the event from the source's unit to integer ns;
 * sc is the scan that framed it, or NULL (a spool line).
 */
static void
convert(struct mct_reader *r, struct input *in, const struct mct_scan *sc)
{
	struct mct_event *ev = &r->ev;
	struct mct_buf *c = &r->conv;
	struct span bad = { 0, 0 };
	int n, nbad;

	if ((n = time_spans(sc, ev->json, ev->len, &r->spans,
	    !in->fx.manytimes)) == 0)
		return;
	c->len = 0;
	nbad = put_converted(c, ev->json, ev->len, r->spans.sp, n,
	    in->s->unit, 0, &bad);
	if (nbad > 0)
		too_big(r, in, in->rp.line, ev->json + bad.off, bad.len, nbad);
	ev->json = c->p;
	ev->len = c->len - 1;	/* a line end after it, as a spool line has */
	ev->indexed = 0;
}

/*
 * Check a line of a stream operand and index its keys.  Stream lines are
 * JSON as mct-cat wrote it; the check is of structure (one complete
 * object, keys and values in place), which is cheap.  A damaged line is
 * reported and skipped (0).
 */
static int
stream_line(struct mct_reader *r, struct mct_event *ev)
{
	if (mct_index(ev->json, ev->len, &ev->kv, &ev->nkv, &ev->kvcap) < 0) {
		warnx("%s:%llu: not a complete JSON object; line skipped",
		    ev->file, ev->where);
		r->status = mct_status(r->status, MCT_EXIT_DAMAGED);
		return 0;
	}
	ev->indexed = 1;
	ev->wkdone = 0;
	return 1;
}

/* The event r->ev anew: text, and where it came from. */
static void
event_at(struct mct_reader *r, struct input *in, const char *json,
    size_t len)
{
	struct mct_event *ev = &r->ev;

	memset(ev, 0, offsetof(struct mct_event, kv));
	ev->json = json;
	ev->len = len;
	ev->file = in->s->name;
	ev->source = r->cur;
	ev->hdr = &r->hdr;
}

/* The scanner's index of the event it framed is the event's. */
static void
take_index(struct mct_event *ev, const struct mct_scan *sc)
{
	if (sc->nkv > ev->kvcap) {
		ev->kvcap = sc->nkv;
		ev->kv = mct_xrealloc(ev->kv, (size_t)ev->kvcap * sizeof(*ev->kv));
	}
	if (sc->nkv > 0)
		memcpy(ev->kv, sc->kv, (size_t)sc->nkv * sizeof(*ev->kv));
	ev->nkv = sc->nkv;
	ev->indexed = 1;
	ev->wkdone = 0;
}

/*
 * Pass 2 of a big plain file by threads.  Pass 1 noted an event start
 * every chunk bytes or so (struct ckpt); worker threads frame the chunks
 * between them again, each from its start with the framer's state there,
 * compact and convert their events into a buffer of lines of their own,
 * and mct_next() hands the lines out in the file's order.  A ring of two
 * buffers per thread bounds the memory.  Only a file pass 1 found intact
 * is read so: pass 2 then has nothing to say but values beyond int64 ns
 * (a worker notes them, mct_next() says them in order) and a file that
 * changed meanwhile.  Pass 2 is most of the work on a trace: framing,
 * compacting and converting the events again, which threads share.
 */
struct chunk {
	struct mct_buf	 out;		/* its events, a line each */
	unsigned long long nlines;	/* how many */
	int		 k;		/* the chunk it holds, -1: the slot is free */
	int		 ready;
	int		 ntoobig;	/* values beyond int64 ns */
	unsigned long long toobig_at;	/* the first one's event in the chunk */
	struct mct_buf	 toobig;	/* and its text */
	long long	 shrank;	/* where the file ended early, or -1 */
	int		 changed;	/* damage pass 1 did not see */
	int		 unread;	/* p->mine: its lines are still in the
					   spool */
};

struct pass2 {
	struct input	*in;
	int		 spool;		/* the spool's lines are read, or -1 */
	long long	 spool_from, spool_to;
	pthread_mutex_t	 mu;
	pthread_cond_t	 ready;		/* a chunk is ready */
	pthread_cond_t	 room;		/* a slot was freed, or stop */
	pthread_t	 tid[MAX_PARTS];
	int		 nthr;
	struct chunk	*slot;
	int		 nslot;
	int		 nchunk;	/* the ckpts and one */
	int		 next;		/* the next chunk a worker makes */
	int		 take;		/* the chunk mct_next() hands out */
	int		 taking;	/* it has begun */
	size_t		 pos;		/* how far into it */
	int		 said;		/* a change of the file was said */
	int		 stop;
	int		 send;		/* lines as they are in the spool are
					   left there, for mct_next_send() */
	struct chunk	 mine;		/* such a chunk, taken by the reader's
					   thread (chunk_cur()) */
	/* no thread could start: mct_next() makes the spool's chunks */
	struct mct_buf	 rd;
	struct spans	 t;
};

/*
 * The bytes of chunk k: [from, to), and the framer's state at from; of
 * the file, or of the spool.
 */
static void
chunk_bounds(const struct pass2 *p, int k, long long *from, long long *to,
    int *state)
{
	const struct input *in = p->in;
	const struct facts *fx = &in->fx;

	*from = k == 0 ? 0 : fx->cp[k - 1].off;
	*to = k < fx->ncp ? fx->cp[k].off : in->rp.length;
	*state = k == 0 ? S_TOP : fx->cp[k - 1].state;
	if (p->spool >= 0) {
		*from += p->spool_from;
		*to = k < fx->ncp ? p->spool_from + fx->cp[k].off : p->spool_to;
	}
}

/*
 * mct_edit(): the line json[0..len) edited into c from byte at on, with
 * its line end (json may be c's own bytes from at on: t is the scratch).
 */
static void
chunk_edit(struct chunk *c, size_t at, const struct mct_reader *r,
    struct spans *t, const char *json, size_t len)
{
	t->line.len = 0;
	r->edit(r->edit_arg, json, len, &t->line);
	c->out.len = at;
	mct_buf_add(&c->out, t->line.p, t->line.len);
	mct_buf_addc(&c->out, '\n');
}

/*
 * Append the event json[0..len) with a line end to c, converted (the nt
 * spans of its times are in t->sp), noting the first value beyond int64
 * ns: it is event n of the chunk.
 */
static void
chunk_put_spans(struct chunk *c, const struct input *in, struct spans *t,
    const char *json, size_t len, unsigned long long n, int nt, int back)
{
	struct mct_reader *r = in->fr.r;
	struct span bad;
	size_t at = c->out.len;
	int nbad;

	nbad = put_converted(&c->out, json, len, t->sp, nt, in->s->unit, back,
	    &bad);
	if (r->edit != NULL)	/* the line converted (and ended), edited */
		chunk_edit(c, at, r, t, c->out.p + at, c->out.len - at - 1);
	if (nbad > 0 && c->ntoobig == 0) {
		c->toobig_at = n;
		c->toobig.len = 0;
		mct_buf_add(&c->toobig, json + bad.off, bad.len);
	}
	c->ntoobig += nbad;
}

/*
 * The lines l[0..len) that mct_unspace() compacted, with the times it
 * noted (tm) converted, to c: put_converted() over the whole chunk at
 * once, as if it were one line, with no line looked at otherwise.
 */
static void
chunk_put_noted(struct chunk *c, const struct input *in,
    const struct mct_times *tm, struct spans *t, const char *l, size_t len)
{
	struct span bad;
	int i, nbad;

	if (len == 0)
		return;
	for (i = 0; i < tm->n; i++) {
		span_room(t, i);
		t->sp[i].off = tm->kv[i].voff;
		t->sp[i].len = tm->kv[i].vlen;
	}
	/* (the last line end is put_converted()'s) */
	nbad = put_converted(&c->out, l, len - 1, t->sp, tm->n, in->s->unit,
	    0, &bad);
	if (nbad > 0 && c->ntoobig == 0) {
		for (i = 0; tm->kv[i].voff != bad.off; i++)
			;
		c->toobig_at = tm->kv[i].koff + 1ULL;
		c->toobig.len = 0;
		mct_buf_add(&c->toobig, l + bad.off, bad.len);
	}
	c->ntoobig += nbad;
}

/* chunk_put_spans(), the spans found by sc (or by indexing the event). */
static void
chunk_put(struct chunk *c, const struct input *in, const struct mct_scan *sc,
    struct spans *t, const char *json, size_t len, unsigned long long n,
    int back)
{
	/* (a guess taken back: every time, as pass 1 found them) */
	chunk_put_spans(c, in, t, json, len, n,
	    time_spans(sc, json, len, t, !in->fx.manytimes && !back), back);
}

/* How many events pass 1 framed in chunk k. */
static unsigned long long
chunk_nev(const struct input *in, int k)
{
	return (k < in->fx.ncp ? in->fx.cp[k].nev : in->fx.nevents) -
	    (k > 0 ? in->fx.cp[k - 1].nev : 0);
}

/* The spool's bytes [from, from + n) into p; how many it could read. */
static size_t
spool_read(int spool, char *p, long long from, size_t n)
{
	size_t done = 0;
	ssize_t got;

	while (done < n) {
		got = pread(spool, p + done, n - done, (off_t)(from +
		    (long long)done));
		if (got == -1 && errno == EINTR)
			continue;
		if (got <= 0)
			break;
		done += (size_t)got;
	}
	return done;
}

/*
 * The spool's lines of chunk k need no conversion: pass 1 converted them
 * from the unit the source has, or that unit is ns.
 */
static int
chunk_asis(const struct input *in, int k)
{
	int conv = k > 0 && in->fx.cp[k - 1].conv;

	return conv ? in->s->unit == guess_unit(in->fr.r) : !in->convert;
}

/* ... and no edit is asked for either: they are final as they are. */
static int
chunk_final(const struct input *in, int k)
{
	return in->fr.r->edit == NULL && chunk_asis(in, k);
}

/*
 * Chunk k is left in the spool, for mct_next_send(): no worker makes it,
 * the reader's thread takes it (p->mine).
 */
static int
chunk_sent(const struct pass2 *p, int k)
{
	return p->send && chunk_final(p->in, k);
}

/*
 * The spool's lines of chunk k into c, converted, or as they are (pass 1
 * converted them, or the source's unit is ns), or with pass 1's guess
 * taken back; rd is scratch.
 */
static void
chunk_lines(struct pass2 *p, struct mct_buf *rd, struct spans *t,
    struct chunk *c, int k)
{
	const struct input *in = p->in;
	const struct mct_reader *r = in->fr.r;
	int conv = k > 0 && in->fx.cp[k - 1].conv;
	int back = conv && in->s->unit != guess_unit(r);
	int asis = chunk_asis(in, k);
	struct mct_buf *b = asis && r->edit == NULL ? &c->out : rd;
	long long from, to;
	unsigned long long n = 0;
	size_t done;
	char *line, *nl, *end;
	int state;

	chunk_bounds(p, k, &from, &to, &state);
	b->len = 0;
	mct_buf_grow(b, (size_t)(to - from) + 1);
	done = spool_read(p->spool, b->p, from, (size_t)(to - from));
	c->changed = done < (size_t)(to - from);
	if (b == &c->out) {
		/* as they are: as many as pass 1 framed there */
		c->out.len = done;
		c->out.p[done] = '\0';
		c->nlines = chunk_nev(in, k);
		return;
	}
	end = b->p + done;
	for (line = b->p; line < end; line = nl + 1) {
		if ((nl = memchr(line, '\n', (size_t)(end - line))) == NULL)
			break;		/* (the spool's lines all end) */
		n++;
		if (asis)
			chunk_edit(c, c->out.len, r, t, line,
			    (size_t)(nl - line));
		else
			chunk_put(c, in, NULL, t, line, (size_t)(nl - line), n,
			    back);
	}
	c->nlines = n;
}

/*
 * Pass 1 saw chunk k plain, or flat (struct ckpt): take its events with
 * no framing.  A flat chunk's events are its lines, once the separators
 * around them are cut off; a plain chunk is compacted by mct_unspace()
 * first.  The bytes are read into c's buffer, or into rd when the lines
 * are compacted, converted or edited into c (lines is scratch).  Returns
 * 0 if the file was written since it was opened: then the chunk must be
 * framed again (chunk_make()), which says what changed.
 */
static int
chunk_taken(struct pass2 *p, struct mct_buf *rd, struct mct_buf *lines,
    struct mct_times *tm, struct spans *t, struct chunk *c, int k)
{
	struct input *in = p->in;
	const struct mct_reader *r = in->fr.r;
	int flat = in->fx.cp[k - 1].kind == CK_FLAT;
	int direct = !in->convert && r->edit == NULL;
	struct mct_buf *b = flat && direct ? &c->out : rd;
	struct mct_src *src;
	unsigned long long n = 0;
	long long from, to;
	size_t want, done = 0;
	ssize_t got;
	char *line, *nl, *end, *w, *e;
	int state, ti = 0, nobj;

	chunk_bounds(p, k, &from, &to, &state);
	tm->known = 0;
	if ((src = mct_src_clone(in->src, from, to)) == NULL)
		return 0;
	want = (size_t)(to - from);
	b->len = 0;
	mct_buf_grow(b, want + 1);
	while (done < want &&
	    (got = mct_src_read(src, b->p + done, want - done)) > 0)
		done += (size_t)got;
	if (done < want || mct_src_changed(src)) {
		mct_src_close(src);
		return 0;
	}
	mct_src_close(src);
	if (!flat) {
		struct mct_buf *lb = direct ? &c->out : lines;

		lb->len = 0;
		if ((nobj = mct_unspace(b->p, done, lb, in->convert ? tm :
		    NULL)) < 0)
			return 0;
		if (direct) {
			c->nlines = (unsigned long long)nobj;
			return 1;
		}
		if (in->convert && tm->known && r->edit == NULL) {
			chunk_put_noted(c, in, tm, t, lb->p, lb->len);
			c->nlines = (unsigned long long)nobj;
			return 1;
		}
		b = lb;
		done = b->len;
	}
	end = b->p + done;
	for (w = line = b->p; (nl = memchr(line, '\n', (size_t)(end -
	    line))) != NULL; line = nl + 1) {
		for (e = nl; e > line && (e[-1] == ',' || e[-1] == ' ' ||
		    e[-1] == '\t' || e[-1] == '\r'); e--)
			;
		while (line < e && (*line == ',' || *line == ' ' ||
		    *line == '\t' || *line == '\r'))
			line++;
		if (line == e)
			continue;
		n++;
		if (!direct) {
			if (in->convert && tm->known)
				chunk_put_spans(c, in, t, line, (size_t)(e -
				    line), n, noted_spans(tm, &ti, n - 1,
				    (size_t)(line - b->p), t), 0);
			else if (in->convert)
				chunk_put(c, in, NULL, t, line, (size_t)(e - line),
				    n, 0);
			else
				chunk_edit(c, c->out.len, r, t, line,
				    (size_t)(e - line));
			continue;
		}
		memmove(w, line, (size_t)(e - line));
		w += e - line;
		*w++ = '\n';
	}
	if (direct)
		c->out.len = (size_t)(w - c->out.p);
	c->nlines = n;
	return 1;
}

/* Frame chunk k of the file into c with framer f (a worker's own). */
static void
chunk_make(struct pass2 *p, struct framer *f, struct spans *t,
    struct chunk *c, int k)
{
	struct input *in = p->in;
	unsigned long long n = 0;
	long long from, to, now;
	int state;

	chunk_bounds(p, k, &from, &to, &state);
	if ((f->src = mct_src_clone(in->src, from, to)) == NULL) {
		c->changed = 1;
		return;
	}
	f->rb.pos = f->rb.end = 0;
	f->rb.base = (unsigned long long)from;
	f->rb.eof = 0;
	f->state = state;
	f->begun = k > 0;	/* the first chunk starts the file */
	f->nosep = 0;
	f->fx->damaged = 0;
	f->fx->form = in->fx.form;
	while (frame(f)) {
		n++;
		if (!in->convert && in->fr.r->edit != NULL) {
			chunk_edit(c, c->out.len, in->fr.r, t, f->out.p,
			    f->out.len);
			continue;
		}
		if (!in->convert) {
			f->out.p[f->out.len] = '\n';
			mct_buf_add(&c->out, f->out.p, f->out.len + 1);
			continue;
		}
		chunk_put(c, in, &f->sc, t, f->out.p, f->out.len, n, 0);
	}
	if (mct_src_pos(f->src) < to) {
		/* a chunk after the new end reads nothing: say the end */
		now = mct_src_size_now(f->src);
		c->shrank = now >= 0 && now < mct_src_pos(f->src) ? now :
		    mct_src_pos(f->src);
	}
	c->changed = f->fx->damaged;
	c->nlines = n;
	mct_src_close(f->src);
	f->src = NULL;
}

static void
chunk_clear(struct chunk *c)
{
	c->out.len = 0;
	c->ntoobig = 0;
	c->shrank = -1;
	c->changed = 0;
	c->unread = 0;
}

static void *
pass2_run(void *arg)
{
	struct pass2 *p = arg;
	struct framer f;
	struct facts fx;
	struct spans t = { 0 };
	struct mct_buf rd = { 0 }, lines = { 0 };
	struct mct_times tm = { 0 };
	struct chunk *c;
	int k;

	memset(&f, 0, sizeof(f));
	memset(&fx, 0, sizeof(fx));
	f.name = p->in->s->name;
	f.fx = &fx;
	f.stop = -1;
	f.again = f.quiet = 1;		/* pass 1 said what was damaged */
	f.topmax = -1;
	pthread_mutex_lock(&p->mu);
	for (;;) {
		for (;;) {
			while (p->next < p->nchunk && chunk_sent(p, p->next))
				p->next++;	/* the reader's thread's */
			if (p->stop || p->next >= p->nchunk ||
			    p->slot[p->next % p->nslot].k == -1)
				break;
			pthread_cond_wait(&p->room, &p->mu);
		}
		if (p->stop || p->next >= p->nchunk)
			break;
		k = p->next++;
		c = &p->slot[k % p->nslot];
		c->k = k;
		c->ready = 0;
		pthread_mutex_unlock(&p->mu);
		chunk_clear(c);
		if (p->spool >= 0)
			chunk_lines(p, &rd, &t, c, k);
		else if (!(k > 0 && p->in->fx.cp[k - 1].kind != CK_FRAME &&
		    chunk_taken(p, &rd, &lines, &tm, &t, c, k))) {
			c->out.len = 0;
			c->ntoobig = 0;
			chunk_make(p, &f, &t, c, k);
		}
		pthread_mutex_lock(&p->mu);
		c->ready = 1;
		pthread_cond_broadcast(&p->ready);
	}
	pthread_mutex_unlock(&p->mu);
	framer_reset(&f);
	spans_free(&t);
	mct_buf_free(&rd);
	mct_buf_free(&lines);
	free(tm.kv);
	return NULL;
}

/* Stop the workers of pass 2 and free it. */
static void
pass2_free(struct input *in)
{
	struct pass2 *p = in->p2;
	int i;

	if (p == NULL)
		return;
	pthread_mutex_lock(&p->mu);
	p->stop = 1;
	pthread_cond_broadcast(&p->room);
	pthread_mutex_unlock(&p->mu);
	for (i = 0; i < p->nthr; i++)
		pthread_join(p->tid[i], NULL);
	for (i = 0; i < p->nslot; i++) {
		mct_buf_free(&p->slot[i].out);
		mct_buf_free(&p->slot[i].toobig);
	}
	mct_buf_free(&p->mine.out);
	free(p->slot);
	mct_buf_free(&p->rd);
	spans_free(&p->t);
	pthread_mutex_destroy(&p->mu);
	pthread_cond_destroy(&p->ready);
	pthread_cond_destroy(&p->room);
	free(p);
	in->p2 = NULL;
}

/*
 * Start pass 2 of an operand by threads, if it is worth it and two CPUs
 * (or MCT_SPLIT) can share it: a plain file pass 1 found intact and cut
 * into chunks, or the spool's lines of an operand whose times must be
 * converted (spool: the spool's descriptor, else -1).  Spool lines pass 1
 * converted (guess_unit()), or lines the tool sends (mct_opts.send), are
 * taken by chunks in any case: by the reader's thread if no other starts
 * or none is needed.
 */
static void
pass2_start(struct mct_reader *r, struct input *in, int spool)
{
	const char *env = getenv("MCT_SPLIT");
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	struct pass2 *p;
	/* (mct_next_send() takes them where mct_next_lines() would) */
	int send = spool >= 0 && r->opts.send && !in->addrank &&
	    in->s->shift == 0;
	int must = spool >= 0 && (in->fx.guessed || send) && !r->spoolbad;
	long long from, to, make;
	int n, i, k, nmake, state;

	n = env && *env ? 2 : ncpu > MAX_PARTS ? MAX_PARTS : (int)ncpu;
	if (!must && (in->fx.ncp == 0 || n < 2 ||
	    (spool < 0 && in->fx.damaged) ||
	    (spool >= 0 && (!in->convert || r->spoolbad))))
		return;
	p = mct_xmalloc(sizeof(*p));
	memset(p, 0, sizeof(*p));
	p->in = in;
	p->spool = spool;
	p->send = send;
	p->spool_from = in->rp.spool_from;
	p->spool_to = in->rp.spool_to;
	/*
	 * The chunks a worker makes.  None is needed for one, nor where
	 * the rest is sent and what is left is less than a thread's start
	 * is worth (the first event, the end pass 1 framed alone).
	 */
	for (k = nmake = 0, make = 0; k <= in->fx.ncp; k++)
		if (!chunk_sent(p, k)) {
			nmake++;
			chunk_bounds(p, k, &from, &to, &state);
			make += to - from;
		}
	if (n > nmake)
		n = nmake > 1 ? nmake : 0;
	if (send && make < MAKE_ALONE)
		n = 0;
	if (n < 1 && !must)
		n = 1;
	p->nchunk = in->fx.ncp + 1;
	p->nslot = n > 0 ? 2 * n : 1;
	p->slot = mct_xmalloc((size_t)p->nslot * sizeof(*p->slot));
	memset(p->slot, 0, (size_t)p->nslot * sizeof(*p->slot));
	for (i = 0; i < p->nslot; i++)
		p->slot[i].k = -1;
	pthread_mutex_init(&p->mu, NULL);
	pthread_cond_init(&p->ready, NULL);
	pthread_cond_init(&p->room, NULL);
	in->p2 = p;
	for (i = 0; i < n; i++) {
		if (mct_thread(&p->tid[i], "mct-chunk", pass2_run, p, i) != 0)
			break;
		p->nthr++;
	}
	if (p->nthr == 0 && !must)
		pass2_free(in);		/* then alone, as for a small file */
}

/* What chunk c noted, said when its events are handed out. */
static void
chunk_say(struct mct_reader *r, struct input *in, struct pass2 *p,
    const struct chunk *c)
{
	if (c->ntoobig > 0)
		too_big(r, in, in->rp.line + c->toobig_at, c->toobig.p,
		    c->toobig.len, c->ntoobig);
	if (in->bigat > in->rp.line && in->bigat <= in->rp.line + c->nlines)
		too_big(r, in, in->bigat, in->big.p, in->big.len, 1);
	if (c->changed && p->spool >= 0) {
		spool_failed(r);
		return;
	}
	if ((c->shrank >= 0 || c->changed) && !p->said) {
		if (c->shrank >= 0)
			warnx("%s: the file shrank while it was read (%lld "
			    "bytes, was %lld)", in->s->name, c->shrank,
			    in->rp.length);
		else
			warnx("%s: the file changed while it was read",
			    in->s->name);
		p->said = 1;
		r->status = mct_status(r->status, MCT_EXIT_DAMAGED);
	}
}

/* Wait for the chunk to take next, c, and say what it noted. */
static void
chunk_wait(struct mct_reader *r, struct input *in, struct pass2 *p,
    struct chunk *c)
{
	if (c == &p->mine) {
		/* left in the spool: sent, or read by chunk_fill() */
		chunk_clear(c);
		c->k = p->take;
		c->nlines = chunk_nev(in, c->k);
		c->unread = 1;
	} else if (p->nthr == 0) {
		/* no thread: the spool's lines, made here (pass2_start()) */
		c->k = p->take;
		chunk_clear(c);
		chunk_lines(p, &p->rd, &p->t, c, c->k);
	} else {
		pthread_mutex_lock(&p->mu);
		while (c->k != p->take || !c->ready)
			pthread_cond_wait(&p->ready, &p->mu);
		pthread_mutex_unlock(&p->mu);
	}
	chunk_say(r, in, p, c);
	p->taking = 1;
	p->pos = 0;
}

/*
 * The chunk taken, c, left in the spool, read after all: it is handed
 * out as events or text, not sent.
 */
static void
chunk_fill(struct mct_reader *r, struct pass2 *p, struct chunk *c)
{
	long long from, to;
	size_t n;
	int state;

	chunk_bounds(p, c->k, &from, &to, &state);
	n = (size_t)(to - from);
	mct_buf_grow(&c->out, n + 1);
	c->out.len = spool_read(p->spool, c->out.p, from, n);
	c->out.p[c->out.len] = '\0';
	c->unread = 0;
	if (c->out.len < n)
		spool_failed(r);
}

/*
 * The chunk mct_next() hands out next: a worker's, in the slot of its
 * number, or one left in the spool, taken by the reader's thread.
 */
static struct chunk *
chunk_cur(struct pass2 *p)
{
	return chunk_sent(p, p->take) ? &p->mine : &p->slot[p->take % p->nslot];
}

/* The chunk taken is handed out: its slot is free for the chunk nslot on. */
static void
chunk_done(struct pass2 *p, struct chunk *c)
{
	p->take++;
	p->taking = 0;
	if (c == &p->mine)
		return;		/* (the reader's thread's own) */
	pthread_mutex_lock(&p->mu);
	c->k = -1;
	c->ready = 0;
	pthread_cond_broadcast(&p->room);
	pthread_mutex_unlock(&p->mu);
}

/* The next event of pass 2 by threads; 0 at the operand's end. */
static int
pass2_next(struct mct_reader *r, struct input *in)
{
	struct pass2 *p = in->p2;
	struct chunk *c;
	char *line, *nl;

	while (p->take < p->nchunk) {
		c = chunk_cur(p);
		if (!p->taking)
			chunk_wait(r, in, p, c);
		if (c->unread)
			chunk_fill(r, p, c);
		if (p->pos < c->out.len) {
			line = c->out.p + p->pos;
			nl = memchr(line, '\n', c->out.len - p->pos);
			p->pos = (size_t)(nl - c->out.p) + 1;
			event_at(r, in, line, (size_t)(nl - line));
			r->ev.where = ++in->rp.line;
			rank_event(r, in);
			return 1;
		}
		chunk_done(p, c);
	}
	pass2_free(in);
	if (in->direct) {
		r->status = mct_status(r->status, mct_src_close(in->src));
		in->src = in->fr.src = NULL;
	}
	return 0;
}

/*
 * The lines the reader holds ready, whole, each with its line end: the
 * rest of a chunk pass 2's threads made, when nothing is left to do to
 * its events (no rank to add, no ts to shift).  For a tool that writes
 * the events as they come; returns 0 where there are none so: then
 * mct_next() goes on, and gives the chunks that follow too.
 */
static struct chunk *
lines_chunk(struct mct_reader *r, struct pass2 **pp)
{
	struct input *in;
	struct pass2 *p;
	struct chunk *c;

	if (r->cur >= r->nin || r->fatal)
		return NULL;
	in = &r->in[r->cur];
	if ((p = in->p2) == NULL || in->addrank || in->s->shift != 0 ||
	    p->take >= p->nchunk)
		return NULL;
	c = chunk_cur(p);
	if (p->taking && p->pos >= c->out.len && !c->unread) {
		chunk_done(p, c);
		if (p->take >= p->nchunk)
			return NULL;	/* mct_next() ends the operand */
		c = chunk_cur(p);
	}
	if (!p->taking)
		chunk_wait(r, in, p, c);
	*pp = p;
	return c;
}

int
mct_next_lines(struct mct_reader *r, const char **text, size_t *len)
{
	struct input *in;
	struct pass2 *p;
	struct chunk *c;
	const char *q, *end;

	if ((c = lines_chunk(r, &p)) == NULL)
		return 0;
	in = p->in;
	if (c->unread)
		chunk_fill(r, p, c);
	if (p->pos >= c->out.len)
		return 0;
	*text = c->out.p + p->pos;
	*len = c->out.len - p->pos;
	if (p->pos == 0)
		in->rp.line += c->nlines;
	else
		for (q = *text, end = q + *len; (q = memchr(q, '\n',
		    (size_t)(end - q))) != NULL; q++)
			in->rp.line++;
	p->pos = c->out.len;
	return 1;
}

/*
 * mct_next_lines(), where the lines lie in the spool as they are: they
 * go to stdout by mct_send(), after what stdio holds, with no copy
 * through the tool.  For a tool that writes the events as they come, if
 * it opened the reader with mct_opts.send; returns 0 where there are no
 * such lines: then mct_next_lines() and mct_next() go on.
 */
int
mct_next_send(struct mct_reader *r)
{
	struct pass2 *p;
	struct chunk *c;
	long long from, at, to;
	int state;

	if ((c = lines_chunk(r, &p)) == NULL || !c->unread)
		return 0;
	/* c and the chunks left in the spool after it: one run of bytes */
	chunk_bounds(p, c->k, &from, &to, &state);
	for (;;) {
		p->in->rp.line += c->nlines;
		c->unread = 0;
		if (p->take + 1 >= p->nchunk || !chunk_sent(p, p->take + 1))
			break;
		chunk_done(p, c);
		chunk_wait(r, p->in, p, c);
		chunk_bounds(p, c->k, &at, &to, &state);
	}
	if (mct_send(p->spool, from, (size_t)(to - from)) < to - from)
		spool_failed(r);
	p->pos = 0;
	return 1;
}

/* Pass 2 of a direct operand: frame it again; 0 at its end. */
static int
direct_next(struct mct_reader *r, struct input *in)
{
	struct framer *f = &in->fr;

	if (in->p2 != NULL)
		return pass2_next(r, in);
	if (in->src == NULL)
		return 0;
	if (!f->again) {
		f->again = f->quiet = 1;	/* pass 1 said what was damaged */
		f->check = 0;
		/*
		 * A merge reads its operands in turns and wants each event's
		 * index from the framer: one framer an operand, no threads.
		 */
		f->index = r->opts.merged;
		if (!r->opts.merged) {
			pass2_start(r, in, -1);
			if (in->p2 != NULL)
				return pass2_next(r, in);
		}
		/*
		 * Facts of its own, from nothing as pass 1's were: the framer
		 * decides by what it has seen so far (the form: is a ']' the
		 * end of traceEvents?), and pass 1's are of the whole file.
		 */
		memset(&in->fx2, 0, sizeof(in->fx2));
		f->fx = &in->fx2;
		mct_src_rewind(in->src, in->rp.length);
	}
	if (frame(f)) {
		/* a line end after it, as a spool line has (mct_scan left room) */
		f->out.p[f->out.len] = '\n';
		event_at(r, in, f->out.p, f->out.len);
		if (f->sc.index)
			take_index(&r->ev, &f->sc);
		r->ev.where = ++in->rp.line;
		if (in->convert)
			convert(r, in, &f->sc);
		edit_event(r, in);
		rank_event(r, in);
		return 1;
	}
	if (mct_src_pos(in->src) < in->rp.length) {
		/* cut short since pass 1: the header may be wrong, say so */
		warnx("%s: the file shrank while it was read (%lld bytes, "
		    "was %lld)", in->s->name, mct_src_pos(in->src),
		    in->rp.length);
		r->status = mct_status(r->status, MCT_EXIT_DAMAGED);
	}
	r->status = mct_status(r->status, mct_src_close(in->src));
	in->src = f->src = NULL;
	framer_reset(f);
	facts_free(&in->fx2);
	f->fx = &in->fx;
	return 0;
}

/*
 * The next event of operand r->cur, or 0 at its end.  The event is the
 * reader's, valid until the next call.
 */
static int
next_of(struct mct_reader *r, struct input *in, struct mct_event **evp)
{
	struct mct_event *ev = &r->ev;
	struct rbuf *b;
	char *nl;

	if (in->direct) {
		if (!direct_next(r, in))
			return 0;
		*evp = ev;
		return 1;
	}
	if (in->stream) {
		if (in->src == NULL)
			return 0;
		b = &in->rp.rb;
	} else {
		if (in->rp.spool_to <= in->rp.spool_from || r->spoolbad)
			return 0;
		b = &r->srb;
		if (!in->rp.started) {
			/* this operand's lines in the spool, from their start */
			r->spool_pos = in->rp.spool_from;
			b->pos = b->end = 0;
			b->eof = 0;
			in->rp.started = 1;
			pass2_start(r, in, r->spool);
		}
		if (in->p2 != NULL || in->rp.started > 1) {
			/* converted by threads */
			in->rp.started = 2;
			if (in->p2 != NULL && pass2_next(r, in)) {
				*evp = ev;
				return 1;
			}
			return 0;
		}
	}
	for (;;) {
		nl = find_nl(b);
		if (nl == NULL) {
			if (!b->eof) {
				ssize_t n;

				if (in->stream) {
					n = refill(b, src_rd, in->src);
					src_error(r, in->s->name, in->src, &in->fx);
				} else if ((n = refill(b, spool_rd, r)) < 0)
					b->pos = b->end;	/* said; none of it */
				if (n < 0)
					r->status = mct_status(r->status,
					    MCT_EXIT_DAMAGED);
				continue;
			}
			if (b->pos == b->end)
				break;
			nl = b->p + b->end;	/* last line, no newline */
			b->p[b->end] = '\n';
		}
		event_at(r, in, b->p + b->pos, (size_t)(nl - (b->p + b->pos)));
		b->pos = (size_t)(nl - b->p) + 1;
		if (b->pos > b->end)
			b->pos = b->end;
		ev->where = ++in->rp.line;
		if (in->stream) {
			ev->byline = 1;
			while (ev->len > 0 && ev->json[ev->len - 1] == '\r')
				ev->len--;
			if (ev->len == 0)
				continue;
			if (!stream_line(r, ev))
				continue;
			if (is_header_line(ev->json, ev->len))
				continue;	/* another stream's header */
		} else if (in->convert)
			convert(r, in, NULL);
		edit_event(r, in);
		rank_event(r, in);
		*evp = ev;
		return 1;
	}
	/* done with this operand */
	if (in->stream) {
		r->status = mct_status(r->status, mct_src_close(in->src));
		in->src = NULL;
		free(in->rp.rb.p);
		memset(&in->rp.rb, 0, sizeof(in->rp.rb));
	} else {
		r->srb.pos = r->srb.end = 0;
		r->srb.eof = 0;
	}
	return 0;
}

/*
 * The next event, or 0 at the end.  The event is the reader's, valid
 * until the next call.
 */
int
mct_next(struct mct_reader *r, struct mct_event **evp)
{
	for (; r->cur < r->nin && !r->fatal; r->cur++)
		if (next_of(r, &r->in[r->cur], evp))
			return 1;
	return 0;
}

/*
 * The next event of operand i alone (for a merge), or 0 at its end.
 * Operands that mct_apart() allows can be read in turns, one event of
 * each at a time; any other must be read to its end before another of
 * its kind begins (they share the reader's spool).
 */
int
mct_next_in(struct mct_reader *r, int i, struct mct_event **evp)
{
	if (r->fatal || i < 0 || i >= r->nin)
		return 0;
	r->cur = i;
	return next_of(r, &r->in[i], evp);
}

/* Can operand i be read in turns with others by mct_next_in()? */
int
mct_apart(const struct mct_reader *r, int i)
{
	return i >= 0 && i < r->nin && (r->in[i].direct || r->in[i].stream);
}

int
mct_close(struct mct_reader *r)
{
	int i, status = r->status;

	for (i = 0; i < r->nin; i++) {
		struct input *in = &r->in[i];

		pass2_free(in);
		if (in->src)
			mct_src_close(in->src);
		framer_reset(&in->fr);
		free(in->rp.rb.p);
		facts_free(&in->fx);
		facts_free(&in->fx2);
		mct_buf_free(&in->hline);
		mct_buf_free(&in->whybuf);
		mct_buf_free(&in->rankfrom);
		mct_buf_free(&in->ranklist);
		mct_buf_free(&in->big);
	}
	if (r->spoolf)
		fclose(r->spoolf);	/* and r->spool, its descriptor */
	if (r->topf)
		fclose(r->topf);
	free(r->spoolvb);
	free(r->topvb);
	free(r->spoolname);
	free(r->srb.p);
	free(r->in);
	free(r->src);
	free(r->ev.kv);
	free(r->conv.p);
	spans_free(&r->spans);
	free(r->rline.p);
	mct_buf_free(&r->eline);
	free(r->hdr.top);
	free(r->hdr.line);
	free(r);
	return status;
}

/*
 * The value of h->big[i], from the reader's spool, into b (replacing what
 * b held).  Returns 0, or -1 if it cannot be read (said here).
 */
int
mct_bigtop_value(const struct mct_header *h, int i, struct mct_buf *b)
{
	const struct mct_bigtop *t = &h->big[i];
	size_t done = 0;
	ssize_t n;

	b->len = 0;
	mct_buf_grow(b, t->len + 1);
	while (done < t->len) {
		n = pread(h->bigfd, b->p + done, t->len - done,
		    (off_t)(t->off + (long long)done));
		if (n == -1 && errno == EINTR)
			continue;
		if (n <= 0) {
			warn("spool of big top-level values");
			return -1;
		}
		done += (size_t)n;
	}
	b->len = t->len;
	return 0;
}
