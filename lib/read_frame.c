/*
 * read_frame.c - the framer: trace JSON in Object or Array form, complete
 * or cut off, or NDJSON, to one event at a time (frame_next()), each
 * checked and compacted by mct_scan(), damage said where it is and the
 * framing started again after it (frame_resync()).  As it goes it notes
 * what pass 1 learns of the events (struct facts: the form, the top-level
 * keys, the smallest ts, an event start every chunk bytes...), writes
 * each event to the spool unless it only checks a plain file
 * (frame_emit()), and shows the progress.  Parts of a file framed by
 * threads have facts of their own, which frame_merge() adds up.
 *
 * One framer reads one byte stream (struct framer); a thread framing a
 * part, a block or a chunk has its own.  It reads its source, or first
 * the bytes the block threads hold (struct held).
 *
 * Calls read_bytes.c and read_spool.c.
 */
#include "config.h"

#include <sys/param.h>
#include <sys/time.h>

#include <err.h>
#include <errno.h>
#include <fnmatch.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "mct.h"
#include "read_private.h"

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
	f->r->status = mct_status(f->r->status, MCT_EXIT_DAMAGED);
	if (f->fx->nsaid == SAY_MAX) {
		f->fx->nunsaid++;	/* counted: frame_said() says how many */
		return;
	}
	f->fx->nsaid++;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	warnx("%s:%llu: %s", f->name, off, msg);
}

/* After pass 1: how many places of damage were not said, if any. */
void
frame_said(const struct framer *f)
{
	if (f->fx->nunsaid > 0)
		warnx("%s: %lld more damaged places, not told (the first %d "
		    "are)", f->name, f->fx->nunsaid, SAY_MAX);
}

/* The bytes held, piece by piece, then the source's. */
static ssize_t
held_rd(void *arg, char *buf, size_t n)
{
	struct framer *f = arg;
	struct held *h = f->held;
	const struct iovec *v;
	size_t m;

	while (h->i < h->n) {
		v = &h->iov[h->i];
		if (h->off < v->iov_len) {
			m = v->iov_len - h->off < n ? v->iov_len - h->off : n;
			memcpy(buf, (const char *)v->iov_base + h->off, m);
			h->off += m;
			return (ssize_t)m;
		}
		h->i++;
		h->off = 0;
	}
	if (h->srcerr) {
		h->srcerr = 0;
		return -1;	/* as the read that failed */
	}
	return mct_src_read(f->src, buf, n);
}

/* More bytes for the framer; 0 at the end, -1 on an error (said here). */
static ssize_t
fill(struct framer *f)
{
	ssize_t n;

	if (f->held != NULL) {
		n = bytes_refill(&f->rb, held_rd, f);
		if (f->held->i < f->held->n)
			return n;	/* the source's error comes after them */
	} else
		n = bytes_refill(&f->rb, bytes_src_rd, f->src);
	/* a damaged gzip stream gives its last bytes and the error at once */
	if (f->src != NULL)
		bytes_src_error(f->r, f->name, f->src, f->fx);
	return n;
}

void
frame_progress(struct framer *f, int done)
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

void
frame_ckpt(struct facts *fx, long long off, int state, int kind)
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
void
frame_emit(struct framer *f)
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
		frame_ckpt(fx, at, f->state, CK_FRAME);
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
	if (sc->negdur != NULL)
		damage_at(f, f->evoff, "dur %.*s is negative; the event is kept "
		    "as written", (int)(sc->negdur_len > 40 ? 40 :
		    sc->negdur_len), sc->negdur);
	if (sc->ts_kind == MCT_TS_FRAC || sc->dur_kind == MCT_TS_FRAC)
		fx->anyfrac = 1;
	if (sc->has_co_id)
		fx->anycoid = 1;
	if (sc->rankish)
		fx->anyrankish = 1;
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
size_t
frame_resync(const struct rbuf *b, size_t from, int *inarray)
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
		if (spool_top(f->r, fx, p, n, k, before) == 0)
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

/*
 * Frame a trace up to its next event: returns 1 with the event in f->sc
 * (and compacted in f->out unless pass 1 of a plain file only checks
 * it), 0 at the end.  Between calls the state is kept in the framer.
 */
int
frame_next(struct framer *f)
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
			frame_progress(f, 0);
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
			frame_progress(f, 0);
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
			at = frame_resync(b, b->pos + 1, &inarray);
			if (at != (size_t)-1) {
				b->pos = at;
				/* inside the events array we stay there */
				state = inarray || state == S_ARRAY ? S_ARRAY :
				    S_TOP;
				break;
			}
			/* searched up to here; the refill keeps the context */
			if (b->end > b->pos + 1)
				b->pos = b->end - 1;
			if (fill(f) <= 0) {
				b->pos = b->end;
				break;
			}
		}
	}
	frame_progress(f, 1);
	f->state = state;
	f->nosep = !sep;
	f->begun = !first;
	return 0;
}

/* Free a framer's buffers; it starts again from its source's start. */
void
frame_reset(struct framer *f)
{
	free(f->rb.p);
	memset(&f->rb, 0, sizeof(f->rb));
	f->state = f->nosep = f->begun = 0;
	mct_buf_free(&f->out);
	free(f->sc.kv);
	memset(&f->sc, 0, sizeof(f->sc));
}

/* Add the facts of part p to those of fx (the part before it). */
void
frame_merge(struct facts *fx, const struct facts *p)
{
	unsigned long long before = fx->nevents;
	int i;

	fx->nevents += p->nevents;
	fx->anyfrac |= p->anyfrac;
	fx->anycoid |= p->anycoid;
	fx->anyrankish |= p->anyrankish;
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
		frame_ckpt(fx, p->cp[i].off, p->cp[i].state, p->cp[i].kind);
		fx->cp[fx->ncp - 1].conv = p->cp[i].conv;
		fx->cp[fx->ncp - 1].nev = before + p->cp[i].nev;
	}
	fx->kind = p->ncp > 0 ? p->kind : CK_FRAME;
	fx->endgap = p->endgap;
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
void
frame_facts_free(struct facts *fx)
{
	free(fx->cp);
	mct_buf_free(&fx->top);
	mct_buf_free(&fx->dropped);
	bigtop_free(fx);
	memset(fx, 0, sizeof(*fx));
}

/* Frame an input again from its start, as if for the first time. */
void
frame_restart(struct input *in)
{
	struct mct_buf top = in->fx.top;

	frame_reset(&in->fr);
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
