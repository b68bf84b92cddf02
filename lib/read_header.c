/*
 * read_header.c - what the header line of the stream says.  Of a stream
 * operand, its header read (header_probe(), header_read()); of a trace
 * operand, when pass 1 ends, its facts decide its struct mct_source: the
 * unit and why, the origin, the --align mark (header_decide_unit(),
 * header_publish()).  Then the rank and ts shift of every source
 * (header_decide_ranks(), by lib/rank.c's rules) and the header line of
 * the whole run (header_make()).
 *
 * Calls read_bytes.c.
 */
#include "config.h"

#include <err.h>
#include <stdlib.h>
#include <string.h>

#include "mct.h"
#include "read_private.h"

/* The end of pass 1 of a trace operand: its facts decide its source's. */
void
header_decide_unit(struct mct_reader *r, struct input *in)
{
	struct mct_source *s = in->s;
	const struct facts *fx = &in->fx;

	if (r->opts.unit != MCT_UNIT_AUTO) {
		s->facts.unit = r->opts.unit;
		s->facts.why = "given by --unit";
	} else if (fx->anyfrac) {
		s->facts.unit = MCT_UNIT_US;
		s->facts.why = "a ts or dur has a fraction";
	} else if (fx->anycoid) {
		s->facts.unit = MCT_UNIT_NS;
		s->facts.why = "events carry args.co_id (mcTracer)";
	} else if (fx->nevents == 0) {
		s->facts.unit = MCT_UNIT_US;
		s->facts.why = "no events";
	} else {
		s->facts.unit = MCT_UNIT_US;
		s->facts.why = "Chrome trace format default";
	}
	in->convert = s->facts.unit != MCT_UNIT_NS || fx->anyfrac || fx->anyodd;
	s->facts.has_origin = fx->has_min;
	if (s->facts.has_origin && mct_dec_ns(fx->min_text,
	    strlen(fx->min_text), s->facts.unit, &s->facts.origin) != 0) {
		warnx("%s: the smallest ts, %s %s, is beyond int64 ns; no origin",
		    s->name, fx->min_text, mct_unit_name(s->facts.unit));
		s->facts.has_origin = 0;
	}
	s->has_mark = fx->has_mark && mct_dec_ns(fx->mark_text,
	    strlen(fx->mark_text), s->facts.unit, &s->mark) == 0;
}

/* What the facts say of the source, pass 1 done (or a stream's header read). */
void
header_publish(struct input *in)
{
	struct mct_source *s = in->s;
	const struct facts *fx = &in->fx;

	s->facts.form = fx->form;
	s->facts.top = fx->top.len ? fx->top.p : NULL;
	s->facts.ntop_before = fx->ntop_before;
	s->facts.sorted = !fx->unsorted;
	s->nevents = fx->nevents;
	s->damaged = fx->damaged;
	s->notrace = fx->notrace && fx->nevents == 0;
	s->facts.big = fx->big;
	s->facts.nbig = fx->nbig;
	s->dropped = fx->dropped.len ? fx->dropped.p : NULL;
}

/* Is this operand an mct stream?  Reads its first line if so. */
int
header_probe(struct mct_reader *r, struct input *in)
{
	struct rbuf *b = &in->rp.rb;
	char *nl;

	for (;;) {
		nl = read_find_nl(b);
		if (b->end - b->pos >= MCT_KIND_BYTES || nl != NULL || b->eof)
			break;
		if (bytes_refill(b, bytes_src_rd, in->src) < 0)
			break;
	}
	bytes_src_error(r, in->s->name, in->src, &in->fx);
	if (mct_src_kind(b->p + b->pos, b->end - b->pos, b->eof) !=
	    MCT_KIND_STREAM)
		return 0;
	while ((nl = read_find_nl(b)) == NULL &&
	    !b->eof)
		if (bytes_refill(b, bytes_src_rd, in->src) < 0)
			break;
	bytes_src_error(r, in->s->name, in->src, &in->fx);
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
void
header_read(struct input *in)
{
	struct mct_source *s = in->s;
	struct facts *fx = &in->fx;
	struct mct_event ev = { 0 };
	struct mct_val v;
	int64_t n;

	ev.json = in->hline.p;
	ev.len = in->hline.len;
	s->facts.unit = MCT_UNIT_NS;
	s->facts.why = "from the header";
	if (mct_get_key(&ev, "args", &v) == 0 && v.type == MCT_J_OBJECT) {
		struct mct_event a = { 0 };
		struct mct_val f;

		a.json = v.p;
		a.len = v.len;
		if (mct_get_key(&a, "unit", &f) == 0 && f.type == MCT_J_STRING) {
			struct mct_buf u = { 0 };

			mct_jstr(&f, &u);
			if (u.p && mct_parse_unit(u.p, &s->facts.unit) != 0)
				s->facts.unit = MCT_UNIT_NS;
			mct_buf_free(&u);
		}
		if (mct_get_key(&a, "unit_from", &f) == 0 && f.type == MCT_J_STRING) {
			mct_jstr(&f, &in->whybuf);
			s->facts.why = in->whybuf.p ? in->whybuf.p : "";
		}
		if (mct_get_key(&a, "origin", &f) == 0 && f.type == MCT_J_NUMBER &&
		    mct_int(f.p, f.len, &n) == 0) {
			s->facts.origin = n;
			s->facts.has_origin = 1;
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
		    mct_unit_name(s->facts.unit ? s->facts.unit : MCT_UNIT_NS));
		put_str(b, ",\"unit_from\":", s->facts.why);
		put_int(b, ",\"origin\":", s->facts.has_origin,
		    s->facts.origin);
		put_int(b, ",\"shift\":", 1, s->shift);
		mct_buf_adds(b, ",\"top\":{");
		if (s->facts.top)
			mct_buf_adds(b, s->facts.top);
		mct_buf_adds(b, "}}");
	}
	mct_buf_addc(b, ']');
}

/*
 * After pass 1: the rank of every source and its shift.  Duplicate
 * ranks, or a source --align cannot place, leave nothing to read.
 */
void
header_decide_ranks(struct mct_reader *r)
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
	/*
	 * --rank=N and --rank=order outrank an event's own rank key; by the
	 * rules (no --rank, --rank=auto) the event's own key comes first.
	 */
	for (i = 0; i < r->nin; i++)
		r->in[i].addrank = !ranked || r->src[i].rank < 0 ? ADD_NONE :
		    r->src[i].ranks_inside ? (r->nin > 1 ? ADD_MISSING :
		    ADD_NONE) : r->opts.rank == MCT_RANK_GIVEN ||
		    r->opts.rank == MCT_RANK_ORDER ? ADD_ALL : ADD_MISSING;
}

/* ,"top_dropped":{"key":bytes,...}: the values not in the header. */
static void
top_dropped(struct mct_buf *b, const struct mct_source *s)
{
	int i;

	if (s->dropped == NULL && s->facts.nbig == 0)
		return;
	mct_buf_adds(b, ",\"top_dropped\":{");
	if (s->dropped)
		mct_buf_adds(b, s->dropped);
	for (i = 0; i < s->facts.nbig; i++) {
		if (i || s->dropped)
			mct_buf_addc(b, ',');
		mct_buf_add(b, s->facts.big[i].key, s->facts.big[i].keylen);
		mct_buf_addc(b, ':');
		mct_buf_addi(b, (int64_t)s->facts.big[i].len);
	}
	mct_buf_addc(b, '}');
}

/* Build the header of the whole run from the operands' facts. */
void
header_make(struct mct_reader *r)
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
		if (s->facts.has_origin && (!h->facts.has_origin ||
		    s->facts.origin + s->shift < h->facts.origin)) {
			h->facts.origin = s->facts.origin + s->shift;
			h->facts.has_origin = 1;
		}
	}
	if (first == NULL)
		first = &r->src[0];
	h->facts.unit = first->facts.unit ? first->facts.unit : MCT_UNIT_NS;
	h->facts.why = first->facts.why ? first->facts.why : "no events";
	h->facts.form = first->facts.form ? first->facts.form : 'n';
	h->facts.top = first->facts.top ? mct_xstrdup(first->facts.top) : NULL;
	h->facts.ntop_before = first->facts.ntop_before;
	h->facts.sorted = (h->nread == 1 && first->facts.sorted) ||
	    r->opts.order == MCT_ORDER_TS;
	h->facts.big = first->facts.big;
	h->facts.nbig = first->facts.nbig;
	h->bigfd = r->topf ? fileno(r->topf) : -1;
	if (r->nin == 1 && first->stream && !r->in[0].addrank &&
	    first->shift == 0 && r->opts.order != MCT_ORDER_TS) {
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
	mct_buf_adds(&b, mct_unit_name(h->facts.unit));
	mct_buf_adds(&b, "\",\"unit_from\":");
	mct_buf_addjstr(&b, h->facts.why, strlen(h->facts.why));
	mct_buf_adds(&b, ",\"origin\":");
	if (h->facts.has_origin)
		mct_buf_addi(&b, h->facts.origin);
	else
		mct_buf_adds(&b, "null");
	mct_buf_adds(&b, ",\"form\":\"");
	mct_buf_adds(&b, h->facts.form == 'o' ? "object" :
	    h->facts.form == 'a' ? "array" : "ndjson");
	mct_buf_adds(&b, "\",\"sorted\":");
	mct_buf_adds(&b, h->facts.sorted ? "true" : "false");
	mct_buf_adds(&b, ",\"top_before\":");
	mct_buf_addi(&b, h->facts.ntop_before);
	mct_buf_adds(&b, ",\"top\":{");
	if (h->facts.top)
		mct_buf_adds(&b, h->facts.top);
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
	for (i = 0; i < r->nin && r->src[i].rank < 0; i++)
		;
	if (h->ranked || i < r->nin)	/* lines with ranks, or a trace's own */
		header_ranks(r, &b);
	mct_buf_adds(&b, "}}");
	h->line = b.p;
	h->linelen = b.len;
}

/*
 * A copy of a header that says the events are not in ts order; its
 * line, if it had to change, is made in *line (the caller frees it).
 * pairbe.c hands out events in the order they end, and mct-metrics
 * --join writes them so too.
 */
void
mct_header_unsorted(struct mct_header *d, char **line,
    const struct mct_header *h)
{
	static const char s[] = ",\"sorted\":true,";
	const char *at;
	size_t n;

	*d = *h;
	d->facts.sorted = 0;
	*line = NULL;
	if ((at = memmem(h->line, h->linelen, s, sizeof(s) - 1)) == NULL)
		return;
	n = (size_t)(at - h->line);
	*line = mct_xmalloc(h->linelen + 2);
	memcpy(*line, h->line, n);
	memcpy(*line + n, ",\"sorted\":false,", sizeof(s));
	memcpy(*line + n + sizeof(s), at + sizeof(s) - 1,
	    h->linelen - n - (sizeof(s) - 1));
	d->linelen = h->linelen + 1;
	(*line)[d->linelen] = '\0';
	d->line = *line;
}
