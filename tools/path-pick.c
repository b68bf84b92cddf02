/*
 * path-pick.c - mct-path --step NAME[#N]'s instances: the events named
 * NAME#N (or, while no event has that name, those named NAME) of each
 * rank, the first N of each by (ts, input order) kept as they come, and
 * the window of the N-th of each rank, the one open window of the rank
 * (path-steps.c keeps what is in it); and the window of each rank that
 * --step, --steps, --from and --to make of the events kept.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "mct.h"
#include "mct-path.h"

/*
 * --step NAME#N: the length of NAME, N in *want; else (no #, or not a
 * whole number from 1 after the last, to the end of the len bytes of t,
 * NUL-terminated) len, and 1.
 */
static size_t
path_step_base(const char *t, size_t len, long *want)
{
	const char *hash = memrchr(t, '#', len);
	char *end;
	long n;

	*want = 1;
	if (hash == NULL || hash + 1 == t + len)
		return len;
	errno = 0;
	n = strtol(hash + 1, &end, 10);
	if (end != t + len || errno || n < 1)
		return len;
	*want = n;
	return (size_t)(hash - t);
}

/* The names --step NAME[#N] may mean: NAME#N itself, and NAME's N-th. */
void
picks_begin(struct opts *o, struct stepstate *s)
{
	size_t len;
	long want;

	s->pk[s->npk++] = (struct pick){ .text = o->step, .len = o->steplen,
	    .id = -1, .want = 1 };
	if ((len = path_step_base(o->step, o->steplen, &want)) ==
	    o->steplen)
		return;
	s->namebuf = mct_xmalloc(len + 1);
	memcpy(s->namebuf, o->step, len);
	s->namebuf[len] = '\0';
	s->pk[s->npk++] = (struct pick){ .text = s->namebuf, .len = len,
	    .id = -1, .want = want };
}

/* The names' ids, once they have come. */
static void
picks_ids(struct opts *o, struct stepstate *s)
{
	struct mct_mapent *e;
	int i;

	if (s->nnames == o->names.n)
		return;
	s->nnames = o->names.n;
	for (i = 0; i < s->npk; i++)
		if (s->pk[i].id < 0 && (e = mct_map_find(&o->names.map,
		    s->pk[i].text, s->pk[i].len)) != NULL)
			s->pk[i].id = (int32_t)e->val.i;
}

/*
 * A pick's events of rank r, the first want of the name so far, are a
 * max-heap by (ts, seq): c[r][0] is the latest of them, the want-th once
 * there are want.  Events that come latest first (a trace written
 * backwards) each go in at log(want) cost, where a sorted array would
 * move all the others.
 */

/* Is x after y, by (ts, seq)? */
static int
cand_after(const struct cand *x, const struct cand *y)
{
	return x->ts > y->ts || (x->ts == y->ts && x->seq > y->seq);
}

/* The heap h[0..n) again, after its element i has come later. */
static void
cand_down(struct cand *h, size_t n, size_t i)
{
	struct cand t = h[i];
	size_t m;

	while ((m = 2 * i + 1) < n) {
		if (m + 1 < n && cand_after(&h[m + 1], &h[m]))
			m++;
		if (!cand_after(&h[m], &t))
			break;
		h[i] = h[m];
		i = m;
	}
	h[i] = t;
}

/* The heap h[0..n] again, after its element n has been added. */
static void
cand_up(struct cand *h, size_t n)
{
	struct cand t = h[n];
	size_t m;

	while (n > 0 && cand_after(&t, &h[(m = (n - 1) / 2)])) {
		h[n] = h[m];
		n = m;
	}
	h[n] = t;
}

/*
 * Is p one of the first events of a pick's name on its rank?  Every event
 * kept went through pick_add(): one of its name and rank is one of the
 * first while they are fewer than want, else when not after the want-th.
 */
int
picks_cand(const struct stepstate *s, const struct pev *p)
{
	const struct pick *k;
	struct cand c;
	int i;

	for (i = 0; i < s->npk; i++) {
		k = &s->pk[i];
		if (k->id != p->name || p->rk >= k->nrk || k->nc[p->rk] == 0)
			continue;
		c = (struct cand){ p->ts, p->dur, p->seq };
		if (k->nc[p->rk] < (size_t)k->want ||
		    !cand_after(&c, &k->c[p->rk][0]))
			return 1;
	}
	return 0;
}

/*
 * An event of the pick's name: one of the first want of its rank, or
 * not (0).  *moved: the want-th is another now.
 */
static int
pick_add(struct pick *k, const struct pev *p, int *moved)
{
	struct cand c = { p->ts, p->dur, p->seq };
	int32_t r = p->rk;

	while (k->nrk <= r) {
		k->c = mct_xgrow(k->c, (size_t)k->nrk, sizeof(*k->c));
		k->nc = mct_xgrow(k->nc, (size_t)k->nrk, sizeof(*k->nc));
		k->c[k->nrk] = NULL;
		k->nc[k->nrk++] = 0;
	}
	if (k->nc[r] < (size_t)k->want) {
		k->c[r] = mct_xgrow(k->c[r], k->nc[r], sizeof(**k->c));
		k->c[r][k->nc[r]] = c;
		cand_up(k->c[r], k->nc[r]++);
	} else if (cand_after(&c, &k->c[r][0]))
		return 0;
	else {
		k->c[r][0] = c;
		cand_down(k->c[r], k->nc[r], 0);
	}
	*moved |= k->nc[r] == (size_t)k->want;
	return 1;
}

/* The open windows: the want-th of each pick and rank. */
void
picks_windows(struct stepstate *s)
{
	const struct cand *c;
	int32_t r;
	int i;

	s->nopen = 0;
	for (i = 0; i < s->npk; i++)
		for (r = 0; r < s->pk[i].nrk; r++) {
			if (s->pk[i].nc[r] != (size_t)s->pk[i].want)
				continue;
			c = &s->pk[i].c[r][0];
			s->open = mct_xgrow(s->open, s->nopen, sizeof(*s->open));
			s->open[s->nopen++] = (struct window){ r, c->ts,
			    c->ts + c->dur };
		}
}

/*
 * --step: is p an instance to keep?  -1: the window of its rank has
 * moved to where an op was let go (the order is broken).
 */
int
picks_add(struct opts *o, struct stepstate *s, const struct pev *p)
{
	int i, moved = 0, cand = 0;
	size_t w;

	picks_ids(o, s);
	for (i = 0; i < s->npk; i++)
		if (s->pk[i].id == p->name && pick_add(&s->pk[i], p, &moved))
			cand = 1;
	if (!moved)
		return cand;
	picks_windows(s);
	for (w = 0; w < s->nopen; w++)
		if (s->open[w].rk == p->rk && s->hasskip[p->rk] &&
		    s->open[w].a <= s->skip[p->rk])
			return -1;
	return cand;
}

/*
 * --from's or --to's t on the trace's clock; one beyond int64 ns (far
 * from the origin) is clamped: it holds everything there.
 */
static int64_t
window_end(int64_t t, int rel, const struct mct_header *hdr)
{
	return mct_sat_add(t, rel ? hdr->facts.origin : 0);
}

/*
 * Each rank's want-th event named id (in ts order, ties in input order):
 * its window in lo and hi (lo > hi: none).  The events of the name are
 * sorted once (by rank, ts, input order), not looked for again for each
 * of the want.  Returns the ranks that have one.
 */
static long
nth_of(struct opts *o, int32_t id, long want, int64_t *lo, int64_t *hi)
{
	size_t *c, nc = 0, i, j;
	const struct pev *p;
	long found = 0;
	int32_t r;

	for (r = 0; r < o->nrank; r++) {
		lo[r] = 1;
		hi[r] = 0;
	}
	c = mct_xmalloc((o->n + 1) * sizeof(*c));
	for (i = 0; i < o->n; i++)
		if (o->ev[i].name == id)
			c[nc++] = i;
	mct_sort_r(c, nc, sizeof(*c), cmp_coll, o);
	for (i = 0; i < nc; i = j) {
		for (j = i; j < nc && o->ev[c[j]].rk == o->ev[c[i]].rk; j++)
			;
		if ((size_t)want > j - i)
			continue;
		p = &o->ev[c[i + (size_t)want - 1]];
		lo[p->rk] = p->ts;
		hi[p->rk] = p->ts + p->dur;
		found++;
	}
	free(c);
	return found;
}

/* --from's and --to's ends on the trace's clock (path-sub.c's too). */
void
path_window_ends(const struct opts *o, int64_t *from, int64_t *to)
{
	*from = window_end(o->from, o->from_rel, o->hdr);
	*to = window_end(o->to, o->to_rel, o->hdr);
}

/*
 * The window of each rank: --steps, --step, --from, --to.  lo > hi: no
 * op of the rank.  Returns -1 for a step that no rank has.
 */
int
path_window(struct opts *o, int64_t *lo, int64_t *hi, int *haslo, int *hashi)
{
	struct mct_mapent *e;
	long want = 1, found = 0;
	int64_t from, to;
	size_t len;
	int32_t id, r;

	*haslo = *hashi = 0;
	if (o->steps) {
		for (r = 0; r < o->nrank; r++) {
			lo[r] = 1;
			hi[r] = 0;
		}
		r = o->ev[o->stepev].rk;
		lo[r] = o->ev[o->stepev].ts;
		hi[r] = lo[r] + o->ev[o->stepev].dur;
		*haslo = *hashi = 1;
	} else if (o->step != NULL) {
		/* the whole name, else NAME of NAME#N */
		len = o->steplen;
		if (mct_map_find(&o->names.map, o->step, len) == NULL)
			len = path_step_base(o->step, o->steplen, &want);
		if ((e = mct_map_find(&o->names.map, o->step, len)) == NULL)
			return -1;
		id = (int32_t)e->val.i;
		found = nth_of(o, id, want, lo, hi);
		if (found == 0)
			return -1;
		*haslo = *hashi = 1;
	}
	path_window_ends(o, &from, &to);
	for (r = 0; r < o->nrank; r++) {
		if (o->has_from)
			lo[r] = from;
		if (o->has_to)
			hi[r] = to;
	}
	*haslo |= o->has_from;
	*hashi |= o->has_to;
	return 0;
}
