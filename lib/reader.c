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
 */
#include "config.h"

#include <sys/stat.h>
#include <sys/time.h>

#include <err.h>
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mct.h"

typedef mct_i128 i128;

#define RBUF	(1024 * 1024)
#define MAX_DIRECT	64	/* plain files kept open for pass 2 */
#define MAX_PARTS	8	/* threads framing one file in pass 1 */
#define SPLIT_MIN	(8LL << 20)	/* bytes a part has at least */

/* A buffer of input bytes, and where it stands in the source. */
struct rbuf {
	char		*p;
	size_t		 cap, pos, end;
	unsigned long long base;	/* source offset of p[0] */
	int		 eof;
};

struct input {
	const char	*name;		/* for messages; stdin is "(stdin)" */
	const char	*arg;		/* as given; "-" is stdin */
	int		 ok;		/* it could be opened */
	int		 started;	/* pass 2 has begun to read its lines */
	struct mct_src	*src;		/* a stream operand, kept open */
	struct rbuf	 rb;
	int		 stream;	/* an mct stream: read directly */
	int		 direct;	/* a plain file: pass 2 frames it again */
	int		 pass2;		/* framing it again */
	int		 quiet;		/* say nothing of damage, only note it */
	int		 damaged;	/* damage was noted */
	long long	 length;	/* bytes read in pass 1 */
	int		 fs_state, fs_sep, fs_first;	/* the framer, between events */
	/* a part of a file framed by a thread: stop at the next one's start */
	long long	 stop;		/* -1: read to the end */
	long long	 stopped_at;	/* where the framer stopped, -1: the end */
	int		 stop_state, stop_sep;
	int		 nparts;	/* of the first part: how many in all */
	i128		 first_e6;	/* the first ts seen */
	unsigned long long line;
	/* a trace operand, as framed into the spool */
	long long	 spool_from, spool_to;
	enum mct_unit	 unit;
	const char	*why;
	int		 convert;	/* rewrite ts/dur to ns in pass 2 */
	int		 has_origin;
	i128		 min_e6;
	char		 min_text[64];	/* the smallest ts, as written */
	i128		 last_e6;	/* the last ts seen */
	int		 seen_ts, unsorted;
	int64_t		 origin;
	int		 anyfrac, anycoid, anyodd;
	int		 form;
	int		 toobig;	/* a ts/dur beyond int64 ns was reported */
	struct mct_buf	 top;
	int		 ntop_before;
	unsigned long long nevents;
	/* the header line of a stream operand, and its unit_from */
	struct mct_buf	 hline, whybuf;
};

struct mct_reader {
	struct mct_opts	 opts;
	struct input	*in;
	int		 nin, cur;
	int		 spool;
	char		*spoolname;
	struct rbuf	 srb;		/* reading the spool back */
	long long	 spool_pos;
	struct mct_header hdr;
	struct mct_event ev;
	struct mct_buf	 conv;
	int		 status;
	/* pass 1 */
	struct mct_scan	 sc;
	struct mct_buf	 out;
	FILE		*spoolf;
	double		 last_progress;
};

/* Report damage at a source offset: "prog: file:offset: msg". */
static void
damage_at(struct mct_reader *r, struct input *in, unsigned long long off,
    const char *fmt, ...) __attribute__((format(printf, 4, 5)));

static void
damage_at(struct mct_reader *r, struct input *in, unsigned long long off,
    const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	if (in->quiet) {
		in->damaged = 1;	/* said in pass 1, or to be said then */
		return;
	}
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	warnx("%s:%llu: %s", in->name, off, msg);
	r->status = mct_status(r->status, MCT_EXIT_DAMAGED);
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
 * Make room and read more.  Keeps p[pos..end); returns the number of new
 * bytes, 0 at the end, -1 on a read error.
 */
static ssize_t
refill(struct rbuf *b, ssize_t (*rd)(void *, char *, size_t), void *arg)
{
	ssize_t n;

	if (b->eof)
		return 0;
	if (b->pos > 0) {
		memmove(b->p, b->p + b->pos, b->end - b->pos);
		b->base += b->pos;
		b->end -= b->pos;
		b->pos = 0;
	}
	if (b->end == b->cap || b->cap - b->end < RBUF / 4) {
		b->cap = b->cap ? b->cap * 2 : RBUF;
		b->p = mct_xrealloc(b->p, b->cap + 1);
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

static ssize_t
spool_rd(void *arg, char *buf, size_t n)
{
	struct mct_reader *r = arg;
	long long left = r->in[r->cur].spool_to - r->spool_pos;
	ssize_t got;

	if ((long long)n > left)
		n = (size_t)left;
	if (n == 0)
		return 0;
	do
		got = pread(r->spool, buf, n, r->spool_pos);
	while (got == -1 && errno == EINTR);
	if (got == -1)
		err(MCT_EXIT_USAGE, "spool %s", r->spoolname);
	r->spool_pos += got;
	return got;
}

static void
progress(struct mct_reader *r, struct input *in, struct mct_src *src, int done)
{
	struct timeval tv;
	double now;
	long long pos = mct_src_pos(src), size = mct_src_size(src);

	if (!r->opts.progress || (in->quiet && in->nparts == 0))
		return;	/* pass 2 and the threads' parts say nothing */
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
	if (in->nparts > 0 && in->stop > 0)	/* the first of the parts */
		fprintf(stderr, "\r%s: %s: %lld MB, checking in %d parts (%d%%)",
		    program_invocation_short_name, in->name, size >> 20,
		    in->nparts, (int)(100 * pos / in->stop));
	else if (size > 0)
		fprintf(stderr, "\r%s: %s: %lld MB of %lld MB (%d%%), %llu events",
		    program_invocation_short_name, in->name, pos >> 20,
		    size >> 20, (int)(100 * pos / size), in->nevents);
	else
		fprintf(stderr, "\r%s: %s: %lld MB, %llu events",
		    program_invocation_short_name, in->name, pos >> 20,
		    in->nevents);
}

/* One compact event to the spool (unless direct); note what the header needs. */
static void
emit(struct mct_reader *r, struct input *in, const struct mct_scan *sc)
{
	if (!in->direct) {
		r->out.p[r->out.len] = '\n';
		if (fwrite(r->out.p, 1, r->out.len + 1, r->spoolf) !=
		    r->out.len + 1)
			err(MCT_EXIT_USAGE, "spool %s", r->spoolname);
	}
	in->nevents++;
	if (sc->ts_kind == MCT_TS_FRAC || sc->dur_kind == MCT_TS_FRAC)
		in->anyfrac = 1;
	if (sc->has_co_id)
		in->anycoid = 1;
	if (sc->odd)
		in->anyodd = 1;
	if (sc->ts_kind != MCT_TS_NONE && !sc->is_meta) {
		/* is the input in time order? (ts compared at 1e-6 units) */
		if (in->seen_ts && sc->ts_e6 < in->last_e6)
			in->unsorted = 1;
		if (!in->seen_ts)
			in->first_e6 = sc->ts_e6;
		in->last_e6 = sc->ts_e6;
		in->seen_ts = 1;
	}
	if (sc->ts_kind != MCT_TS_NONE && !sc->is_meta &&
	    sc->ts_len < sizeof(in->min_text) &&
	    (!in->has_origin || sc->ts_e6 < in->min_e6)) {
		in->min_e6 = sc->ts_e6;
		memcpy(in->min_text, sc->ts_text, sc->ts_len);
		in->min_text[sc->ts_len] = '\0';
		in->has_origin = 1;
	}
}

static void
report_fixes(struct mct_reader *r, struct input *in, const struct mct_scan *sc,
    const struct rbuf *b)
{
	static const char *what[MCT_NFIX] = {
		"invalid escape kept as a backslash",
		"raw control character escaped",
		"invalid UTF-8 replaced by U+FFFD",
		"trailing comma dropped",
		"NaN or Infinity written as null",
	};
	int i;

	for (i = 0; i < MCT_NFIX; i++)
		if (sc->fixes & (1u << i))
			damage_at(r, in, b->base + (size_t)(sc->fixat[i] - b->p),
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
 * A top-level "key": value after the traceEvents array; the key is in
 * r->out.  Returns 0, or -1 on a syntax error.  Needing more input, it
 * rewinds to the key so that the caller reads the pair again.
 */
static int
after_key(struct mct_reader *r, struct input *in, struct rbuf *b,
    struct mct_src *src, unsigned long long keyoff)
{
	struct mct_scan *sc = &r->sc;
	size_t top0 = in->top.len;
	int rc;

	while (b->pos < b->end && strchr(" \t\r\n", b->p[b->pos]))
		b->pos++;
	if (b->pos < b->end && b->p[b->pos] != ':')
		return -1;
	if (b->pos < b->end) {
		b->pos++;
		if (in->top.len)
			mct_buf_addc(&in->top, ',');
		mct_buf_add(&in->top, r->out.p, r->out.len);
		mct_buf_addc(&in->top, ':');
		r->out.len = 0;
		sc->out = &r->out;
		sc->toplevel = sc->event = sc->index = 0;
		sc->p = b->p + b->pos;
		sc->end = b->p + b->end;
		rc = mct_scan(sc);
		if (rc == MCT_SCAN_OK) {
			mct_buf_add(&in->top, r->out.p, r->out.len);
			b->pos = (size_t)(sc->p - b->p);
			if (in->pass2) {	/* the header has them already */
				in->top.len = top0;
				if (in->top.p)
					in->top.p[top0] = '\0';
			}
			return 0;
		}
		if (rc != MCT_SCAN_MORE || b->eof) {
			in->top.len = top0;	/* drop the key without a value */
			if (in->top.p)
				in->top.p[top0] = '\0';
			return rc == MCT_SCAN_MORE ? -2 : -1;
		}
	} else if (b->eof)
		return -2;
	/* The pair runs past the buffer: read it again with more input. */
	in->top.len = top0;
	if (in->top.p)
		in->top.p[top0] = '\0';
	b->pos = (size_t)(keyoff - b->base);
	refill(b, src_rd, src);
	return 0;
}

enum { S_TOP, S_ARRAY, S_AFTER };

/*
 * Frame one trace operand up to its next event: returns 1 with the event
 * in r->sc (and compacted in r->out unless pass 1 of a direct operand
 * only checks it), 0 at the end of the operand.  Between calls the
 * framer's state is kept in the input (in->fs_*, zero to start).
 */
static int
frame(struct mct_reader *r, struct input *in, struct mct_src *src)
{
	struct rbuf *b = &in->rb;
	struct mct_scan *sc = &r->sc;
	unsigned long long evoff;
	int state = in->fs_state, rc, inarray, first = !in->fs_first,
	    sep = !in->fs_sep;
	size_t at;
	char c;

	for (;;) {
		/* Skip whitespace and separators; get more input if needed. */
		while (b->pos < b->end) {
			c = b->p[b->pos];
			if (c == ' ' || c == '\n' || c == '\r' || c == '\t')
				b->pos++;
			else if (c == ',' && state != S_TOP) {
				b->pos++;
				sep = 1;
			}
			else
				break;
		}
		if (b->pos == b->end) {
			if (refill(b, src_rd, src) <= 0)
				break;
			progress(r, in, src, 0);
			continue;
		}
		if (first && b->end - b->pos >= 3 &&
		    memcmp(b->p + b->pos, "\xef\xbb\xbf", 3) == 0) {
			b->pos += 3;	/* a byte order mark */
			continue;
		}
		first = 0;
		c = b->p[b->pos];
		evoff = b->base + b->pos;
		if (in->stop >= 0 && evoff >= (unsigned long long)in->stop) {
			/* a part of a file: the next part starts here (we hope) */
			in->stopped_at = (long long)evoff;
			in->stop_state = state;
			in->stop_sep = sep;
			break;
		}
		if (state == S_ARRAY && c == ']') {
			b->pos++;
			state = in->form == 'o' ? S_AFTER : S_TOP;
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
			if (in->form == 0)
				in->form = 'a';
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
				if (refill(b, src_rd, src) < 0)
					break;
				continue;
			}
			if (rc == MCT_SCAN_OK) {
				damage_at(r, in, evoff,
				    "not an event (not a JSON object); skipped");
				b->pos = (size_t)(sc->p - b->p);
				continue;
			}
			goto bad;
		}
		/* An event, the top-level object, or a key after traceEvents. */
		r->out.len = 0;
		sc->p = b->p + b->pos;
		sc->end = b->p + b->end;
		/* pass 1 of a direct operand only checks the events of an array */
		sc->out = in->direct && !in->pass2 && state == S_ARRAY ? NULL :
		    &r->out;
		sc->toplevel = sc->index = state == S_TOP;
		sc->event = state != S_AFTER;
		rc = mct_scan(sc);
		if (rc == MCT_SCAN_MORE && !b->eof) {
			if (refill(b, src_rd, src) < 0)
				break;
			progress(r, in, src, 0);
			continue;
		}
		if (sc->fixes && rc != MCT_SCAN_ERROR)
			report_fixes(r, in, sc, b);
		switch (rc) {
		case MCT_SCAN_OK:
			b->pos = (size_t)(sc->p - b->p);
			if (state != S_AFTER) {
				if (in->form == 0)
					in->form = 'n';
				if (state == S_ARRAY && !sep)
					damage_at(r, in, evoff,
					    "missing ',' between events");
				sep = 0;
				in->fs_state = state;
				in->fs_sep = !sep;
				in->fs_first = !first;
				return 1;
			}
			/* "key": value after the traceEvents array */
			switch (after_key(r, in, b, src, evoff)) {
			case -1:
				goto bad;
			case -2:
				damage_at(r, in, evoff, "cut off inside a top-level "
				    "key at the end of the input; key dropped");
				b->pos = b->end;
				break;
			}
			continue;
		case MCT_SCAN_TRACE: {
			/* {"k":v,...,"traceEvents":[ : the keys so far are top-level */
			int i;

			in->form = 'o';
			for (i = 0; i < sc->nkv && !in->pass2; i++) {
				if (in->top.len)
					mct_buf_addc(&in->top, ',');
				mct_buf_add(&in->top, r->out.p + sc->kv[i].koff - 1,
				    sc->kv[i].voff + sc->kv[i].vlen -
				    sc->kv[i].koff + 1);
				in->ntop_before++;
			}
			b->pos = (size_t)(sc->p - b->p);
			state = S_ARRAY;
			sep = 1;
			continue;
		}
		case MCT_SCAN_MORE:
			/* the input ended inside this event */
			damage_at(r, in, evoff, "cut off inside an event "
			    "at the end of the input; %llu bytes dropped",
			    (unsigned long long)(b->end - b->pos));
			b->pos = b->end;
			continue;
		default:
			damage_at(r, in, b->base + (size_t)(sc->errpos - b->p),
			    "%s; the event at offset %llu is dropped",
			    sc->errmsg, evoff);
			goto resync;
		}
bad:
		if (state == S_TOP && in->nevents == 0 && in->form == 0)
			damage_at(r, in, evoff, "not a trace: expected '{' or "
			    "'[', found '%c'", c >= ' ' && c < 127 ? c : '?');
		else
			damage_at(r, in, evoff, "unexpected '%c' between events",
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
			/* keep some bytes before the next search as context */
			if (b->end > 256 && b->end - 256 > b->pos)
				b->pos = b->end - 256;
			if (refill(b, src_rd, src) <= 0) {
				b->pos = b->end;
				break;
			}
		}
	}
	progress(r, in, src, 1);
	in->fs_state = state;
	in->fs_sep = !sep;
	in->fs_first = !first;
	return 0;
}

/*
 * Pass 1 of a big plain file by several threads.  The file is cut into
 * parts at places where an event seems to start (resync()'s rule); a
 * thread frames each part quietly, noting its facts.  The cut is right
 * if the thread before stopped exactly there, between events, with the
 * same framing state.  Then the facts are merged and are those of one
 * pass; otherwise (a wrong cut, or any damage) returns -1 and the caller
 * frames the file again, alone and aloud.
 */
struct part {
	struct mct_reader r;	/* the framer's scratch (sc, out) */
	struct input	 in;
	pthread_t	 tid;
	int		 running;
};

static void *
part_run(void *arg)
{
	struct part *p = arg;

	while (frame(&p->r, &p->in, p->in.src))
		emit(&p->r, &p->in, &p->r.sc);
	return NULL;
}

/* Where an event seems to start at or after off, or -1. */
static long long
cut_at(struct input *in, long long off, long long limit, int *inarray)
{
	long long from = off > 4096 ? off - 4096 : 0;	/* context for resync */
	struct mct_src *c = mct_src_clone(in->src, from, limit);
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

/* Add the facts of part p to those of in (the part before it). */
static void
merge(struct input *in, const struct input *p)
{
	in->nevents += p->nevents;
	in->anyfrac |= p->anyfrac;
	in->anycoid |= p->anycoid;
	in->anyodd |= p->anyodd;
	in->unsorted |= p->unsorted;
	if (p->has_origin && (!in->has_origin || p->min_e6 < in->min_e6)) {
		in->min_e6 = p->min_e6;
		memcpy(in->min_text, p->min_text, sizeof(in->min_text));
		in->has_origin = 1;
	}
	if (p->seen_ts) {
		if (in->seen_ts && p->first_e6 < in->last_e6)
			in->unsorted = 1;
		if (!in->seen_ts)
			in->first_e6 = p->first_e6;
		in->last_e6 = p->last_e6;
		in->seen_ts = 1;
	}
	if (p->top.len) {
		if (in->top.len)
			mct_buf_addc(&in->top, ',');
		mct_buf_add(&in->top, p->top.p, p->top.len);
	}
}

/* Returns 1 if done, 0 if not tried, -1 if tried in vain (restart it). */
static int
frame_parts(struct mct_reader *r, struct input *in)
{
	struct part parts[MAX_PARTS];
	long long size = mct_src_size(in->src), cut[MAX_PARTS], at;
	const char *env = getenv("MCT_SPLIT");
	long long min = env && *env ? atoll(env) : SPLIT_MIN;
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	int k, n, i, state, inarray, ok = 1;

	/* one part per CPU; as many parts as asked for by MCT_SPLIT */
	k = env && *env ? MAX_PARTS : ncpu < 2 ? 1 : ncpu > MAX_PARTS ?
	    MAX_PARTS : (int)ncpu;
	if (min < 1)
		min = 1;
	if (k < 2 || size < 2 * min)
		return 0;
	if (size / min < k)
		k = (int)(size / min);
	/* the first event tells the form: in an array, or NDJSON */
	in->quiet = 1;
	in->stop = -1;
	if (!frame(r, in, in->src) || in->damaged) {
		in->quiet = 0;
		return -1;
	}
	emit(r, in, &r->sc);
	state = in->fs_state;
	for (n = 0, i = 1; i < k; i++) {
		at = cut_at(in, size / k * i, size, &inarray);
		if (at > (n ? cut[n - 1] : (long long)(in->rb.base + in->rb.pos)) &&
		    at < size && inarray == (state == S_ARRAY))
			cut[n++] = at;
	}
	if (n == 0) {
		in->quiet = 0;
		return -1;
	}
	memset(parts, 0, sizeof(parts));
	for (i = 0; i < n; i++) {
		struct input *p = &parts[i].in;

		p->name = in->name;
		p->arg = in->arg;
		p->direct = p->quiet = 1;
		p->form = in->form;
		p->fs_state = state;	/* after a ',' (or a line end), not first */
		p->fs_first = 1;
		p->stop = i + 1 < n ? cut[i + 1] : -1;
		p->stopped_at = -1;
		p->rb.base = (unsigned long long)cut[i];
		parts[i].r.opts = r->opts;
		parts[i].r.opts.progress = 0;
		if ((p->src = mct_src_clone(in->src, cut[i], size)) == NULL ||
		    pthread_create(&parts[i].tid, NULL, part_run, &parts[i]) != 0) {
			ok = 0;
			break;
		}
		parts[i].running = 1;
	}
	if (ok) {
		in->stop = cut[0];
		in->stopped_at = -1;
		in->nparts = n + 1;
		while (frame(r, in, in->src))
			emit(r, in, &r->sc);
	}
	for (i = 0; i < n; i++)
		if (parts[i].running)
			pthread_join(parts[i].tid, NULL);
	/* each part must have stopped where the next began, between events */
	ok = ok && !in->damaged && in->stopped_at == cut[0] &&
	    in->stop_state == state && (state != S_ARRAY || in->stop_sep);
	for (i = 0; ok && i < n; i++) {
		struct input *p = &parts[i].in;

		ok = !p->damaged && (i + 1 == n || (p->stopped_at == cut[i + 1] &&
		    p->stop_state == state && (state != S_ARRAY || p->stop_sep)));
	}
	for (i = 0; ok && i < n; i++)
		merge(in, &parts[i].in);
	if (ok)
		in->length = mct_src_pos(parts[n - 1].in.src);
	for (i = 0; i < n; i++) {
		mct_src_close(parts[i].in.src);
		free(parts[i].in.rb.p);
		mct_buf_free(&parts[i].in.top);
		free(parts[i].r.out.p);
		free(parts[i].r.sc.kv);
	}
	in->quiet = 0;
	in->stop = -1;
	in->nparts = 0;
	return ok ? 1 : -1;
}

/* Frame an input again from its start, as if for the first time. */
static void
restart(struct input *in)
{
	free(in->rb.p);
	memset(&in->rb, 0, sizeof(in->rb));
	in->fs_state = in->fs_sep = in->fs_first = 0;
	in->nevents = 0;
	in->anyfrac = in->anycoid = in->anyodd = 0;
	in->has_origin = in->seen_ts = in->unsorted = 0;
	in->top.len = 0;
	if (in->top.p)
		in->top.p[0] = '\0';
	in->ntop_before = 0;
	in->form = 0;
	in->damaged = in->quiet = 0;
	in->stop = -1;
	mct_src_rewind(in->src, -1);
}

static void
decide_unit(struct mct_reader *r, struct input *in)
{
	if (r->opts.unit != MCT_UNIT_AUTO) {
		in->unit = r->opts.unit;
		in->why = "given by --unit";
	} else if (in->anyfrac) {
		in->unit = MCT_UNIT_US;
		in->why = "a ts or dur has a fraction";
	} else if (in->anycoid) {
		in->unit = MCT_UNIT_NS;
		in->why = "events carry args.co_id (mcTracer)";
	} else if (in->nevents == 0) {
		in->unit = MCT_UNIT_US;
		in->why = "no events";
	} else {
		in->unit = MCT_UNIT_US;
		in->why = "Chrome trace format default";
	}
	in->convert = in->unit != MCT_UNIT_NS || in->anyfrac || in->anyodd;
	if (in->has_origin && mct_dec_ns(in->min_text, strlen(in->min_text),
	    in->unit, &in->origin) != 0) {
		warnx("%s: the smallest ts, %s %s, is beyond int64 ns; no origin",
		    in->name, in->min_text, mct_unit_name(in->unit));
		in->has_origin = 0;
	}
}

static int
is_header_line(const char *p, size_t n)
{
	static const char pre[] = "{\"name\":\"" MCT_HEADER_NAME "\"";

	return n >= sizeof(pre) - 1 && memcmp(p, pre, sizeof(pre) - 1) == 0;
}

/* Is this operand an mct stream?  Reads its first line if so. */
static int
probe_stream(struct input *in)
{
	struct rbuf *b = &in->rb;
	char *nl;

	for (;;) {
		nl = find_nl(b);
		if (b->end - b->pos >= 64 || nl != NULL || b->eof)
			break;
		if (refill(b, src_rd, in->src) < 0)
			break;
	}
	if (!is_header_line(b->p + b->pos, b->end - b->pos))
		return 0;
	while ((nl = find_nl(b)) == NULL &&
	    !b->eof)
		if (refill(b, src_rd, in->src) < 0)
			break;
	if (nl == NULL)
		nl = b->p + b->end;
	mct_buf_add(&in->hline, b->p + b->pos, (size_t)(nl - (b->p + b->pos)));
	b->pos = (size_t)(nl - b->p) + (nl < b->p + b->end);
	in->line = 1;
	return 1;
}

/* Read what a stream operand's header says. */
static void
read_header(struct mct_reader *r, struct input *in)
{
	struct mct_event ev = { 0 };
	struct mct_val v;
	int64_t n;

	ev.json = in->hline.p;
	ev.len = in->hline.len;
	in->unit = MCT_UNIT_NS;
	in->why = "from the header";
	if (mct_get_key(&ev, "args", &v) == 0 && v.type == MCT_J_OBJECT) {
		struct mct_event a = { 0 };
		struct mct_val f;

		a.json = v.p;
		a.len = v.len;
		if (mct_get_key(&a, "unit", &f) == 0 && f.type == MCT_J_STRING) {
			struct mct_buf s = { 0 };

			mct_jstr(&f, &s);
			if (s.p && mct_parse_unit(s.p, &in->unit) != 0)
				in->unit = MCT_UNIT_NS;
			mct_buf_free(&s);
		}
		if (mct_get_key(&a, "unit_from", &f) == 0 && f.type == MCT_J_STRING) {
			mct_jstr(&f, &in->whybuf);
			in->why = in->whybuf.p ? in->whybuf.p : "";
		}
		if (mct_get_key(&a, "origin", &f) == 0 && f.type == MCT_J_NUMBER &&
		    mct_int(f.p, f.len, &n) == 0) {
			in->origin = n;
			in->has_origin = 1;
		}
		if (mct_get_key(&a, "form", &f) == 0 && f.type == MCT_J_STRING &&
		    f.len > 2)
			in->form = f.p[1];
		in->unsorted = !(mct_get_key(&a, "sorted", &f) == 0 &&
		    f.type == MCT_J_BOOL && f.p[0] == 't');
		if (mct_get_key(&a, "top_before", &f) == 0 &&
		    f.type == MCT_J_NUMBER && mct_int(f.p, f.len, &n) == 0)
			in->ntop_before = (int)n;
		if (mct_get_key(&a, "top", &f) == 0 && f.type == MCT_J_OBJECT &&
		    f.len > 2)
			mct_buf_add(&in->top, f.p + 1, f.len - 2);
		free(a.kv);
	}
	free(ev.kv);
	(void)r;
}

/* Build the header of the whole run from the operands. */
static void
make_header(struct mct_reader *r)
{
	struct mct_header *h = &r->hdr;
	struct mct_buf b = { 0 };
	struct input *first = NULL;
	int i;

	for (i = 0; i < r->nin; i++) {
		struct input *in = &r->in[i];

		if (!in->ok)
			continue;	/* unreadable */
		if (first == NULL)
			first = in;
		h->nread++;
		if (in->has_origin && (!h->has_origin || in->origin < h->origin)) {
			h->origin = in->origin;
			h->has_origin = 1;
		}
	}
	if (first == NULL)
		first = &r->in[0];
	h->unit = first->unit ? first->unit : MCT_UNIT_NS;
	h->why = first->why ? first->why : "no events";
	h->form = first->form ? first->form : 'n';
	h->top = first->top.len ? mct_xstrdup(first->top.p) : NULL;
	h->ntop_before = first->ntop_before;
	h->sorted = h->nread == 1 && !first->unsorted;
	if (r->nin == 1 && first->stream) {
		/* as it came, NUL bytes and all: not strdup() */
		h->line = mct_xmalloc(first->hline.len + 1);
		memcpy(h->line, first->hline.p, first->hline.len);
		h->line[first->hline.len] = '\0';
		h->linelen = first->hline.len;
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
	mct_buf_adds(&b, "},\"sources\":[");
	for (i = 0; i < r->nin; i++) {
		const char *n = r->in[i].arg;

		if (i)
			mct_buf_addc(&b, ',');
		mct_buf_addjstr(&b, n, strlen(n));
	}
	mct_buf_adds(&b, "]}}");
	h->line = b.p;
	h->linelen = b.len;
}

static int
make_spool(struct mct_reader *r)
{
	if ((r->spoolf = mct_tmpfile(&r->spoolname)) == NULL)
		return -1;
	r->spool = fileno(r->spoolf);
	return 0;
}

/*
 * Open the operands (none means standard input) and read every trace
 * operand through pass 1.  Unreadable operands are reported and skipped
 * (status MCT_EXIT_USAGE at the end); the others are still read.
 */
struct mct_reader *
mct_open(int argc, char **argv, const struct mct_opts *opts)
{
	static char *dash[] = { (char *)"-", NULL };
	struct mct_reader *r;
	int i, rc, stdin_used = 0, ndirect = 0;

	if (argc == 0) {
		argc = 1;
		argv = dash;
	}
	r = mct_xmalloc(sizeof(*r));
	memset(r, 0, sizeof(*r));
	if (opts)
		r->opts = *opts;
	r->spool = -1;
	r->nin = argc;
	r->in = mct_xmalloc((size_t)argc * sizeof(*r->in));
	memset(r->in, 0, (size_t)argc * sizeof(*r->in));
	for (i = 0; i < argc; i++) {
		struct input *in = &r->in[i];

		in->arg = argv[i];
		in->name = strcmp(argv[i], "-") == 0 ? "(stdin)" : argv[i];
		in->stop = -1;
		if (strcmp(argv[i], "-") == 0 && stdin_used++) {
			warnx("standard input given twice; read once");
			continue;
		}
		if ((in->src = mct_src_open(argv[i])) == NULL) {
			r->status = mct_status(r->status, MCT_EXIT_USAGE);
			continue;
		}
		in->ok = 1;
		if (probe_stream(in)) {
			in->stream = 1;
			read_header(r, in);
			continue;
		}
		/* a plain file is read twice (kept open: a few of them) */
		in->direct = mct_src_rewindable(in->src) && ndirect < MAX_DIRECT &&
		    getenv("MCT_SPOOL") == NULL;
		if (in->direct)
			ndirect++;
		else if (r->spool == -1 && make_spool(r) == -1) {
			r->status = MCT_EXIT_USAGE;
			mct_src_close(in->src);
			in->src = NULL;
			continue;
		} else {
			fflush(r->spoolf);
			in->spool_from = ftello(r->spoolf);
		}
		rc = in->direct ? frame_parts(r, in) : 0;
		if (rc < 0)
			restart(in);
		if (rc <= 0) {
			while (frame(r, in, in->src))
				emit(r, in, &r->sc);
			in->length = mct_src_pos(in->src);
		}
		if (!in->direct) {
			if (fflush(r->spoolf) != 0)
				err(MCT_EXIT_USAGE, "spool %s", r->spoolname);
			in->spool_to = ftello(r->spoolf);
		}
		decide_unit(r, in);
		free(in->rb.p);
		memset(&in->rb, 0, sizeof(in->rb));
		in->fs_state = in->fs_sep = in->fs_first = 0;
		if (in->direct)
			continue;
		r->status = mct_status(r->status, mct_src_close(in->src));
		in->src = NULL;
	}
	free(r->out.p);
	memset(&r->out, 0, sizeof(r->out));
	free(r->sc.kv);
	r->sc.kv = NULL;
	r->sc.kvcap = 0;
	make_header(r);
	r->cur = 0;
	r->spool_pos = r->nin > 0 ? r->in[0].spool_from : 0;
	return r;
}

const struct mct_header *
mct_header(const struct mct_reader *r)
{
	return &r->hdr;
}

/* Rewrite ts and dur of a line from the source's unit to integer ns. */
static void
convert(struct mct_reader *r, struct input *in)
{
	struct mct_event *ev = &r->ev;
	struct mct_buf *c = &r->conv;
	size_t last = 0;
	int i;

	mct_event_index(ev);
	c->len = 0;
	for (i = 0; i < ev->nkv; i++) {
		struct mct_kv *kv = &ev->kv[i];
		const char *k = ev->json + kv->koff, *v = ev->json + kv->voff;
		int64_t ns;

		if (!((kv->klen == 2 && memcmp(k, "ts", 2) == 0) ||
		    (kv->klen == 3 && memcmp(k, "dur", 3) == 0)))
			continue;
		if (kv->vlen == 0 || !(*v == '-' || (*v >= '0' && *v <= '9')))
			continue;
		if (mct_dec_ns(v, kv->vlen, in->unit, &ns) != 0) {
			if (!in->toobig++)
				warnx("%s: event %llu: %.*s %s is beyond int64 ns; "
				    "left as written", in->name, in->line,
				    (int)kv->vlen, v, mct_unit_name(in->unit));
			r->status = mct_status(r->status, MCT_EXIT_DAMAGED);
			continue;
		}
		mct_buf_add(c, ev->json + last, kv->voff - last);
		mct_buf_addi(c, ns);
		last = kv->voff + kv->vlen;
	}
	if (last == 0)
		return;
	mct_buf_add(c, ev->json + last, ev->len - last);
	ev->json = c->p;
	ev->len = c->len;
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

/* Pass 2 of a direct operand: frame it again; 0 at its end. */
static int
direct_next(struct mct_reader *r, struct input *in, struct mct_event *ev)
{
	if (in->src == NULL)
		return 0;
	if (!in->pass2) {
		in->pass2 = in->quiet = 1;	/* pass 1 said what was damaged */
		mct_src_rewind(in->src, in->length);
	}
	if (frame(r, in, in->src)) {
		memset(ev, 0, offsetof(struct mct_event, kv));
		/* a line end after it, as a spool line has (mct_scan left room) */
		r->out.p[r->out.len] = '\n';
		ev->json = r->out.p;
		ev->len = r->out.len;
		ev->file = in->name;
		ev->hdr = &r->hdr;
		ev->where = ++in->line;
		if (in->convert)
			convert(r, in);
		return 1;
	}
	if (mct_src_pos(in->src) < in->length) {
		/* cut short since pass 1: the header may be wrong, say so */
		warnx("%s: the file shrank while it was read (%lld bytes, "
		    "was %lld)", in->name, mct_src_pos(in->src), in->length);
		r->status = mct_status(r->status, MCT_EXIT_DAMAGED);
	}
	r->status = mct_status(r->status, mct_src_close(in->src));
	in->src = NULL;
	free(in->rb.p);
	memset(&in->rb, 0, sizeof(in->rb));
	return 0;
}

/*
 * The next event, or 0 at the end.  The event is the reader's, valid
 * until the next call.
 */
int
mct_next(struct mct_reader *r, struct mct_event **evp)
{
	struct mct_event *ev = &r->ev;
	struct input *in;
	struct rbuf *b;
	char *nl;

	for (; r->cur < r->nin; r->cur++) {
		in = &r->in[r->cur];
		if (in->direct) {
			if (direct_next(r, in, ev)) {
				*evp = ev;
				return 1;
			}
			continue;
		}
		if (in->stream) {
			if (in->src == NULL)
				continue;
			b = &in->rb;
		} else {
			if (in->spool_to <= in->spool_from)
				continue;
			b = &r->srb;
			if (!in->started) {
				/* this operand's lines in the spool, from their start */
				r->spool_pos = in->spool_from;
				b->pos = b->end = 0;
				b->eof = 0;
				in->started = 1;
			}
		}
		for (;;) {
			nl = find_nl(b);
			if (nl == NULL) {
				if (!b->eof) {
					ssize_t n = in->stream ?
					    refill(b, src_rd, in->src) :
					    refill(b, spool_rd, r);

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
			memset(ev, 0, offsetof(struct mct_event, kv));
			ev->json = b->p + b->pos;
			ev->len = (size_t)(nl - ev->json);
			ev->file = in->name;
			ev->hdr = &r->hdr;
			b->pos = (size_t)(nl - b->p) + 1;
			if (b->pos > b->end)
				b->pos = b->end;
			if (in->stream) {
				ev->byline = 1;
				ev->where = ++in->line;
				while (ev->len > 0 && ev->json[ev->len - 1] == '\r')
					ev->len--;
				if (ev->len == 0)
					continue;
				if (!stream_line(r, ev))
					continue;
				if (is_header_line(ev->json, ev->len))
					continue;	/* another stream's header */
			} else {
				ev->where = ++in->line;
				if (in->convert)
					convert(r, in);
			}
			*evp = ev;
			return 1;
		}
		/* done with this operand */
		if (in->stream) {
			r->status = mct_status(r->status, mct_src_close(in->src));
			in->src = NULL;
			free(in->rb.p);
			memset(&in->rb, 0, sizeof(in->rb));
		} else {
			r->srb.pos = r->srb.end = 0;
			r->srb.eof = 0;
		}
	}
	return 0;
}

int
mct_close(struct mct_reader *r)
{
	int i, status = r->status;

	for (i = 0; i < r->nin; i++) {
		struct input *in = &r->in[i];

		if (in->src)
			mct_src_close(in->src);
		free(in->rb.p);
		mct_buf_free(&in->top);
		mct_buf_free(&in->hline);
		mct_buf_free(&in->whybuf);
	}
	if (r->spoolf)
		fclose(r->spoolf);	/* and r->spool, its descriptor */
	free(r->spoolname);
	free(r->srb.p);
	free(r->in);
	free(r->ev.kv);
	free(r->out.p);
	free(r->sc.kv);
	free(r->conv.p);
	free(r->hdr.top);
	free(r->hdr.line);
	free(r);
	return status;
}
