/*
 * path-pick.c - mct-path --step NAME[#N]'s instances: the events named
 * NAME#N (or, while no event has that name, those named NAME) of each
 * rank, the first N of each by (ts, input order) kept as they come, and
 * the window of the N-th of each rank, the one open window of the rank
 * (path-steps.c keeps what is in it).
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "mct.h"
#include "mct-path.h"

/* The names --step NAME[#N] may mean: NAME#N itself, and NAME's N-th. */
void
picks_begin(struct opts *o, struct stepstate *s)
{
	const char *hash = strrchr(o->step, '#');
	size_t len;
	char *end;
	long want;

	s->pk[s->npk++] = (struct pick){ .text = o->step, .id = -1, .want = 1 };
	if (hash == NULL)
		return;
	errno = 0;
	want = strtol(hash + 1, &end, 10);
	if (hash[1] == '\0' || *end != '\0' || errno || want < 1)
		return;
	len = (size_t)(hash - o->step);
	s->namebuf = mct_xmalloc(len + 1);
	memcpy(s->namebuf, o->step, len);
	s->namebuf[len] = '\0';
	s->pk[s->npk++] = (struct pick){ .text = s->namebuf, .id = -1,
	    .want = want };
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
		    s->pk[i].text, strlen(s->pk[i].text))) != NULL)
			s->pk[i].id = (int32_t)e->val.i;
}

/* Where (ts, seq) goes among the pick's events of rank r. */
static size_t
cand_at(const struct pick *k, int32_t r, int64_t ts, long long seq)
{
	size_t a = 0, b = k->nc[r], m;

	while (a < b) {
		const struct cand *c = &k->c[r][(m = (a + b) / 2)];

		if (c->ts < ts || (c->ts == ts && c->seq < seq))
			a = m + 1;
		else
			b = m;
	}
	return a;
}

/* Is p one of the first events of a pick's name on its rank? */
int
picks_cand(const struct stepstate *s, const struct pev *p)
{
	const struct pick *k;
	size_t j;
	int i;

	for (i = 0; i < s->npk; i++) {
		k = &s->pk[i];
		if (k->id != p->name || p->rk >= k->nrk)
			continue;
		j = cand_at(k, p->rk, p->ts, p->seq);
		if (j < k->nc[p->rk] && k->c[p->rk][j].seq == p->seq)
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
	int32_t r = p->rk;
	size_t j;

	while (k->nrk <= r) {
		k->c = mct_xgrow(k->c, (size_t)k->nrk, sizeof(*k->c));
		k->nc = mct_xgrow(k->nc, (size_t)k->nrk, sizeof(*k->nc));
		k->c[k->nrk] = NULL;
		k->nc[k->nrk++] = 0;
	}
	if ((j = cand_at(k, r, p->ts, p->seq)) >= (size_t)k->want)
		return 0;
	if (k->nc[r] < (size_t)k->want)
		k->c[r] = mct_xgrow(k->c[r], k->nc[r]++, sizeof(**k->c));
	memmove(&k->c[r][j + 1], &k->c[r][j], (k->nc[r] - 1 - j) *
	    sizeof(**k->c));
	k->c[r][j] = (struct cand){ p->ts, p->dur, p->seq };
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
			c = &s->pk[i].c[r][s->pk[i].want - 1];
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
