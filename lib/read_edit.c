/*
 * read_edit.c - an event's line as pass 2 hands it out: its ts and dur
 * rewritten from the source's unit to integer ns (or a guess of pass 1's
 * taken back), values beyond int64 ns said, and its rank and ts shift
 * added (mct_rank_line()).
 *
 * Calls nothing else of the reader's (the inline helpers of
 * read_private.h aside).
 */
#include "config.h"

#include <err.h>
#include <stdlib.h>
#include <string.h>

#include "mct.h"
#include "read_private.h"

/* Room in t for span n (and 4 at least). */
void
edit_span_room(struct spans *t, int n)
{
	if (n < t->cap)
		return;
	t->cap = t->cap ? t->cap * 2 : 4;
	t->sp = mct_xrealloc(t->sp, (size_t)t->cap * sizeof(*t->sp));
}

/*
 * The ts and dur values of the compact event json[0..len), in order:
 * the scan's (sc, if the event was framed and had two at most), else
 * found by indexing the event, up to its first ts and dur only if few
 * (no event of the operand has more).  Returns how many, in t->sp.
 */
int
edit_spans(const struct mct_scan *sc, const char *json, size_t len,
    struct spans *t, int few)
{
	int i, n = 0, nkv;

	edit_span_room(t, 1);
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
		edit_span_room(t, n);
		t->sp[n].off = kv->voff;
		t->sp[n].len = kv->vlen;
		n++;
	}
	return n;
}

/*
 * mct_edit(): the line json[0..len) edited into out, with the context of
 * the thread whose scratch t is, made before its first line; ev, if not
 * NULL, the line as an event already indexed (for the editor's event()).
 */
void
edit_line(const struct mct_reader *r, struct spans *t, const char *json,
    size_t len, struct mct_event *ev, struct mct_buf *out)
{
	if (!t->ehas) {
		t->ectx = r->edit->begin ? r->edit->begin(r->edit_arg) : NULL;
		t->ehas = 1;
	}
	if (ev != NULL && ev->indexed && r->edit->event != NULL)
		r->edit->event(r->edit_arg, t->ectx, ev, out);
	else
		r->edit->line(r->edit_arg, t->ectx, json, len, out);
}

/* The end of the context in t, if a line was edited with it. */
void
edit_end(const struct mct_reader *r, struct spans *t)
{
	if (!t->ehas)
		return;
	t->ehas = 0;
	if (r->edit->end)
		r->edit->end(r->edit_arg, t->ectx);
	t->ectx = NULL;
}

void
edit_spans_free(struct spans *t)
{
	mct_buf_free(&t->line);
	free(t->sp);
	free(t->kv);
	memset(t, 0, sizeof(*t));
}

/*
 * The ns text v[0..n) that pass 1 converted from its guess of us back to
 * the us it was (read_guess_unit()): the plain integer, to o; returns its
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
int
edit_put_times(struct mct_buf *b, const char *json, size_t len,
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

		if (!read_is_time(v, sp[i].len))
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

/*
 * Which of the n spans of json hold a value edit_put_times() leaves as
 * written, beyond int64 ns: their indexes in idx, at most max of them.
 */
int
edit_bad_spans(const char *json, const struct span *sp, int n,
    enum mct_unit unit, int *idx, int max)
{
	char o[64];
	int i, k = 0;

	for (i = 0; i < n && k < max; i++)
		if (read_is_time(json + sp[i].off, sp[i].len) &&
		    mct_ns_text(o, json + sp[i].off, sp[i].len, unit) == 0)
			idx[k++] = i;
	return k;
}

/*
 * n values beyond int64 ns of event line, the first of them v[0..len)
 * (or NULL: only counted): told, the first SAY_MAX of the operand.
 */
void
edit_too_big(struct mct_reader *r, struct input *in, unsigned long long line,
    const char *v, size_t len, int n)
{
	if (v != NULL && in->rp.toobig_said < SAY_MAX) {
		warnx("%s: event %llu: %.*s %s is beyond int64 ns; left as "
		    "written", in->s->name, line, (int)len, v,
		    mct_unit_name(in->s->facts.unit));
		in->rp.toobig_said++;
	}
	in->rp.toobig += n;
	r->status = mct_status(r->status, MCT_EXIT_DAMAGED);
}

/* At the end: how many values beyond int64 ns were not told. */
void
edit_too_big_end(const struct input *in)
{
	if (in->rp.toobig > in->rp.toobig_said)
		warnx("%s: %lld more values beyond int64 ns, left as written "
		    "(the first %d are told)", in->s->name,
		    in->rp.toobig - in->rp.toobig_said, SAY_MAX);
}

/*
 * Rewrite ts and dur of the event from the source's unit to integer ns;
 * sc is the scan that framed it, or NULL (a spool line).
 */
void
edit_convert(struct mct_reader *r, struct input *in, const struct mct_scan *sc)
{
	struct mct_event *ev = &r->ev;
	struct mct_buf *c = &r->conv;
	struct span bad = { 0, 0 };
	int n, nbad;

	if ((n = edit_spans(sc, ev->json, ev->len, &r->spans,
	    !in->fx.manytimes)) == 0)
		return;
	c->len = 0;
	nbad = edit_put_times(c, ev->json, ev->len, r->spans.sp, n,
	    in->s->facts.unit, 0, &bad);
	if (nbad > 0) {
		int idx[4], k, i;

		k = edit_bad_spans(ev->json, r->spans.sp, n, in->s->facts.unit, idx,
		    4);
		for (i = 0; i < k; i++)
			edit_too_big(r, in, in->rp.line, ev->json +
			    r->spans.sp[idx[i]].off, r->spans.sp[idx[i]].len, 1);
		if (nbad > k)
			edit_too_big(r, in, in->rp.line, NULL, 0, nbad - k);
	}
	ev->json = c->p;
	ev->len = c->len - 1;	/* a line end after it, as a spool line has */
	ev->indexed = 0;
}

/*
 * The event r->ev with its rank and shift, if its source has them.  An
 * index of the event stays right when only a rank is appended: it gets
 * the rank's key (the line ends "rank":N}).  The rank key stands once:
 * a line's own (not null) is kept where the rules put it first
 * (ADD_MISSING), else the one appended replaces it, as jq's
 * . + {rank: N} would.  Only an operand whose pass 1 saw a key "rank" or
 * an escape (anyrankish) is looked at: no cost per line for the others.
 */
void
edit_rank(struct mct_reader *r, struct input *in)
{
	struct mct_event *ev = &r->ev;
	int keep = ev->indexed && ev->nkv >= 0 && in->s->shift == 0;
	static const char *const rank_key[] = { "rank", NULL };
	int add = in->addrank;
	struct mct_kv *kv;
	struct mct_val v;
	int64_t rank;
	size_t len;

	if (add == ADD_MISSING && in->fx.anyrankish &&
	    mct_event_rank(ev, NULL, &rank, &v) >= 0 && v.p != NULL)
		add = ADD_NONE;		/* the line has its own */
	if ((add == ADD_NONE && in->s->shift == 0) ||
	    mct_rank_line(ev, add != ADD_NONE ? in->s->rank : MCT_RANK_NONE,
	    in->s->shift, &r->rline) != 0)
		return;
	if (add != ADD_NONE && in->fx.anyrankish) {
		/* ours, not an own null or overruled key besides */
		len = r->rline.len;
		mct_keep_last(&r->rline, 0, rank_key);
		if (r->rline.len != len) {	/* a key less */
			mct_buf_addc(&r->rline, '\n');
			r->rline.len--;
			keep = 0;
		}
	}
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
	ev->rulegen = 0;	/* (a rule may read the rank) */
}
