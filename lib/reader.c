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
 * threads share it (read_pass2.c): pass 1 notes an event start every
 * chunk bytes (struct ckpt), and workers frame the chunks between, or
 * convert the spool's lines of a chunk, while mct_next() hands their
 * lines out in order.  Pass 1 of a big plain file is shared by threads
 * too, in parts (read_parts.c).
 *
 * Of an operand read once (gzip, a pipe), pass 1 is the work: threads
 * frame it in blocks (read_blocks.c) while gzip inflates in a thread of
 * its own, and the operand's framer takes their lines in order, or goes
 * on alone where a block was damaged or cut wrong.
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
 * unit, the origin...), which the header shows to tools (hdr->src):
 * read_header.c.  The structs, and what each file of the reader does,
 * are in read_private.h.
 *
 * Nothing is static or global: two readers can be open at once.  Nothing
 * exits: a spool that cannot be written makes the status MCT_EXIT_USAGE.
 * What goes wrong in a byte source comes back from input.c as data and is
 * said here, in order with the framer's own messages.
 *
 * This file is the reader's face: mct_open() (pass 1 of each operand),
 * mct_next() (pass 2 of an operand read alone, or by read_pass2.c's
 * threads), mct_close().  It calls every other file of the reader, and
 * none calls it.  mct_next() is the one way to an event: it hands out
 * pass 2's events as they come, or runs of lines pass 2's threads made
 * whole (a tool that wants lines only), or, with --merge and --pair-be,
 * what merge.c and pairbe.c make of the events it feeds them.
 */
#include "config.h"

#include <err.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "mct.h"
#include "read_private.h"

#define MAX_DIRECT	64	/* plain files kept open for pass 2 */
#define CHUNK		(128LL << 10)	/* bytes a chunk of pass 2 has at least */

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

/* mct_edit(): the event edited here, unless a thread of pass 2 did. */
static void
edit_event(struct mct_reader *r, struct input *in)
{
	struct mct_event *ev = &r->ev;

	if (r->edit == NULL || in->p2 != NULL)
		return;
	r->eline.len = 0;
	edit_line(r, &r->spans, ev->json, ev->len, ev, &r->eline);
	mct_buf_addc(&r->eline, '\n');		/* one write of it */
	ev->json = r->eline.p;
	ev->len = r->eline.len - 1;
	ev->indexed = 0;
	ev->wkdone = 0;
}

/* Edit every event; see mct.h.  Refused if the reader adds to them. */
int
mct_edit(struct mct_reader *r, const struct mct_editor *ed, void *arg)
{
	int i;

	for (i = 0; i < r->nin; i++)
		if (r->in[i].addrank || r->in[i].s->shift != 0 ||
		    r->in[i].rp.started || r->opts.pair_be) {
			r->opts.want = MCT_WANT_EVENT;	/* the tool edits */
			if (r->how == NEXT_LINES)
				r->how = NEXT_EVENTS;
			return -1;
		}
	r->editor = *ed;
	r->edit = &r->editor;
	r->edit_arg = arg;
	return 0;
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
	rc = in->direct ? parts_frame(in) : blocks_frame(r, in);
	if (rc < 0)
		frame_restart(in);
	if (rc <= 0) {
		while (frame_next(f))
			frame_emit(f);
		in->rp.length = mct_src_pos(in->src);
	}
	if (!in->direct)
		in->rp.spool_to = spool_at(r);
	frame_said(f);
	not_trace(r, in);
	header_decide_unit(r, in);
	header_publish(in);
	frame_reset(f);	/* pass 2 of a plain file starts afresh */
}

/* Open one operand: a stream's header is read, a trace goes through pass 1. */
static void
open_input(struct mct_reader *r, struct input *in, int *ndirect)
{
	struct mct_source *s = in->s;

	in->src = mct_src_open(s->path);
	if (mct_src_failed(in->src)) {
		bytes_src_error(r, s->name, in->src, &in->fx);
		mct_src_close(in->src);
		in->src = NULL;
		r->status = mct_status(r->status, MCT_EXIT_USAGE);
		return;
	}
	s->ok = 1;
	if (header_probe(r, in)) {
		in->stream = s->stream = 1;
		header_read(in);
		header_publish(in);
		return;
	}
	/* a plain file is read twice (kept open: a few of them) */
	in->direct = mct_src_rewindable(in->src) && *ndirect < MAX_DIRECT &&
	    getenv("MCT_SPOOL") == NULL;
	if (in->direct)
		(*ndirect)++;
	else if (r->spool == -1 && spool_make(r) == -1) {
		r->spoolbad = 1;	/* said */
		r->status = MCT_EXIT_USAGE;
		mct_src_close(in->src);
		in->src = NULL;
		return;
	}
	in->fr.src = in->src;
	in->fr.check = in->direct;
	in->fr.chunk = chunk_size();
	/* the framer goes on with what header_probe() read */
	in->fr.rb = in->rp.rb;
	memset(&in->rp.rb, 0, sizeof(in->rp.rb));
	pass1(r, in);
	if (in->direct)
		return;
	r->status = mct_status(r->status, mct_src_close(in->src));
	in->src = in->fr.src = NULL;
}

static int feed_next(void *, int, struct mct_event **);

/*
 * How mct_next() hands out the events, now that pass 1 has said what the
 * operands are: one at a time, or in runs of lines for a tool that wants
 * lines only, or merged (merge.c), or paired (pairbe.c); the last two
 * take the reader's events from feed_next().
 */
static void
feed(struct mct_reader *r)
{
	int i;

	r->turns = mct_xmalloc((size_t)r->nin);
	for (i = 0; i < r->nin; i++)
		r->turns[i] = r->in[i].direct || r->in[i].stream;
	r->feed.next = feed_next;
	r->feed.arg = r;
	r->feed.turns = r->turns;
	r->merging = r->opts.order == MCT_ORDER_TS ||
	    (r->opts.order == MCT_ORDER_TS_UNSORTED && !r->hdr.facts.sorted);
	if (r->opts.pair_be)
		r->pairbe = mct_pairbe_new(&r->hdr, &r->feed);
	if (r->merging || r->pairbe)
		r->opts.want = MCT_WANT_EVENT;
	r->how = r->pairbe ? NEXT_PAIRED : r->merging ? NEXT_MERGED :
	    r->opts.want != MCT_WANT_EVENT ? NEXT_LINES : NEXT_EVENTS;
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
	header_decide_ranks(r);
	header_make(r);
	if (r->spoolbad)
		r->fatal = 1;	/* no header it could not stand behind */
	if (r->fatal)
		r->hdr.nread = 0;	/* the tools write nothing */
	r->cur = 0;
	r->spool_pos = r->nin > 0 ? r->in[0].rp.spool_from : 0;
	feed(r);
	return r;
}

const struct mct_header *
mct_header(const struct mct_reader *r)
{
	return r->pairbe ? mct_pairbe_header(r->pairbe) : &r->hdr;
}

/*
 * Check a line of a stream operand and index its keys.  Stream lines are
 * JSON as mct-cat wrote it; the check is of structure (one complete
 * object, keys and values in place), which is cheap.  A damaged line is
 * reported and skipped (0).
 */
static int
stream_line(struct mct_reader *r, struct input *in, struct mct_event *ev)
{
	int plain;

	if (mct_index_plain(ev->json, ev->len, &ev->kv, &ev->nkv, &ev->kvcap,
	    &plain) < 0) {
		if (in->fx.nsaid++ < SAY_MAX)
			warnx("%s:%llu: not a complete JSON object; line "
			    "skipped", ev->file, ev->where);
		else
			in->fx.nunsaid++;
		r->status = mct_status(r->status, MCT_EXIT_DAMAGED);
		return 0;
	}
	/* 2: no backslash in it, so no key spelt with escapes to look for */
	ev->indexed = plain ? 2 : 1;
	ev->wkdone = 0;
	ev->rulegen = 0;
	return 1;
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
	ev->rulegen = 0;
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
		 * --merge reads its operands in turns and wants each event's
		 * index from the framer: one framer an operand, no threads.
		 */
		f->index = r->opts.order == MCT_ORDER_TS;
		if (!f->index) {
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
	if (frame_next(f)) {
		/* a line end after it, as a spool line has (mct_scan left room) */
		f->out.p[f->out.len] = '\n';
		read_event_at(r, in, f->out.p, f->out.len);
		if (f->sc.index)
			take_index(&r->ev, &f->sc);
		r->ev.where = ++in->rp.line;
		if (in->convert)
			edit_convert(r, in, &f->sc);
		edit_event(r, in);
		edit_rank(r, in);
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
	frame_reset(f);
	frame_facts_free(&in->fx2);
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
		nl = read_find_nl(b);
		if (nl == NULL) {
			if (!b->eof) {
				ssize_t n;

				if (in->stream) {
					n = bytes_refill(b, bytes_src_rd,
					    in->src);
					bytes_src_error(r, in->s->name,
					    in->src, &in->fx);
				} else if ((n = bytes_refill(b, spool_rd, r)) < 0)
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
		read_event_at(r, in, b->p + b->pos,
		    (size_t)(nl - (b->p + b->pos)));
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
			if (!stream_line(r, in, ev))
				continue;
			if (read_is_header_line(ev->json, ev->len))
				continue;	/* another stream's header */
			if (mct_cut_line(ev->json, ev->len)) {
				warnx("%s:%llu: the stream is cut: its writer "
				    "stopped on an error before its end",
				    ev->file, ev->where);
				r->status = mct_status(r->status,
				    MCT_EXIT_DAMAGED);
				continue;
			}
		} else if (in->convert)
			edit_convert(r, in, NULL);
		edit_event(r, in);
		edit_rank(r, in);
		*evp = ev;
		return 1;
	}
	/* done with this operand */
	if (in->stream) {
		frame_said(&in->fr);
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

/* The next event of the operands, one after another, or 0 at the end. */
static inline int
next_events(struct mct_reader *r, struct mct_event **evp)
{
	for (; r->cur < r->nin && !r->fatal; r->cur++)
		if (next_of(r, &r->in[r->cur], evp))
			return 1;
	edit_end(r, &r->spans);		/* the reader's thread edits no more */
	return 0;
}

/*
 * next_events(), for a tool that wants lines only (mct_opts.want): the
 * rest of a chunk pass 2's threads made, where nothing is left to do to
 * its events (no rank to add, no ts to shift), comes whole as one event;
 * for one that copies them to stdout, the spool's lines pass 1 left
 * final go there by mct_send(), with no copy through the tool.
 */
static __attribute__((noinline)) int
next_lines(struct mct_reader *r, struct mct_event **evp)
{
	const char *text;
	size_t len;

	if (r->opts.want == MCT_WANT_COPY)
		while (pass2_send(r))
			;
	if (pass2_lines(r, &text, &len)) {
		struct input *in = &r->in[r->cur];

		read_event_at(r, in, text, len - 1);	/* each line's end */
		r->ev.where = in->rp.line;	/* the last one's */
		*evp = &r->ev;
		return 1;
	}
	return next_events(r, evp);
}

/*
 * The merge, at the first mct_next(): it reads every operand it cannot
 * read in place, and says what goes wrong after what came before.
 */
static __attribute__((noinline)) void
merge_start(struct mct_reader *r)
{
	r->merging = 2;
	if ((r->merge = mct_merge_open(&r->hdr, &r->feed)) == NULL) {
		r->status = mct_status(r->status, MCT_EXIT_USAGE);
		mct_cutoff_arm();	/* the header is out */
	}
}

/* The next event of all in ts order. */
static int
next_merged(struct mct_reader *r, struct mct_event **evp)
{
	if (r->merging == 1)
		merge_start(r);
	if (r->merge == NULL)
		return 0;
	return mct_merge_next(r->merge, evp);
}

/* The next event of all for pairbe.c: merged, or as they come. */
static __attribute__((noinline)) int
feed_all(struct mct_reader *r, struct mct_event **evp)
{
	return r->merging ? next_merged(r, evp) : next_events(r, evp);
}

/*
 * The feed of merge.c and pairbe.c (struct mct_feed): the next event of
 * operand i, or of all (i = -1).  An operand read in turns with others
 * (r->turns) has a position of its own; the others share the spool's.
 */
static int
feed_next(void *arg, int i, struct mct_event **evp)
{
	struct mct_reader *r = arg;

	if (i < 0)
		return feed_all(r, evp);
	if (r->fatal || i >= r->nin)
		return 0;
	r->cur = i;
	return next_of(r, &r->in[i], evp);
}

/*
 * The next event, or 0 at the end: see mct.h for which.  The event is
 * the reader's, valid until the next call.  (next_lines() is kept out
 * of line, and events one at a time come first: the way most tools
 * read costs a load and a test more than the loop of next_events().)
 */
int
mct_next(struct mct_reader *r, struct mct_event **evp)
{
	if (r->how == NEXT_EVENTS)
		return next_events(r, evp);
	if (r->how == NEXT_LINES)
		return next_lines(r, evp);
	if (r->how == NEXT_MERGED)
		return next_merged(r, evp);
	return mct_pairbe_next(r->pairbe, evp);
}

int
mct_close(struct mct_reader *r)
{
	int i, status;

	if (r->merge != NULL)
		r->status = mct_status(r->status, mct_merge_close(r->merge));
	mct_pairbe_free(r->pairbe);
	free(r->turns);
	status = r->status;
	for (i = 0; i < r->nin; i++) {
		struct input *in = &r->in[i];

		edit_too_big_end(in);
		pass2_free(in);
		if (in->src)
			mct_src_close(in->src);
		frame_reset(&in->fr);
		free(in->rp.rb.p);
		frame_facts_free(&in->fx);
		frame_facts_free(&in->fx2);
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
	edit_end(r, &r->spans);
	edit_spans_free(&r->spans);
	free(r->rline.p);
	mct_buf_free(&r->eline);
	free((char *)r->hdr.facts.top);	/* the header's own copy */
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
	const struct mct_bigtop *t = &h->facts.big[i];

	b->len = 0;
	mct_buf_grow(b, t->len + 1);
	if (spool_read(h->bigfd, b->p, t->off, t->len) < t->len) {
		warn("spool of big top-level values");
		return -1;
	}
	b->len = t->len;
	return 0;
}
