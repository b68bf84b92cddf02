/*
 * path-pick.c - mct-path --step NAME[#N]'s instances: the events named
 * NAME#N (or, while no event has that name, those named NAME) of each
 * rank, the first N of each by (ts, input order) kept as they come, and
 * the window of the N-th of each rank, the one open window of the rank
 * (path-steps.c keeps what is in it).
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "mct.h"
#include "mct-path.h"

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
