/*
 * path-job.c - mct-path --steps all, the job's steps: each step's events
 * grouped by name across ranks (a step of the job is every rank's first
 * event of a ProfilerStep#N name, analysed as --step NAME analyses it),
 * done when every rank has moved past it.
 *
 * The ranks of a job often come one after another (its files, operand
 * by operand): a rank's part of a step that is done on its rank while
 * another rank has yet to come is parked, its events let go to the spool
 * of path-steps.c in one run, and read back when the job's step is done.
 * So memory stays that of a few steps whatever the order of the ranks.
 */
#include "config.h"

#include <sys/types.h>

#include <err.h>
#include <stdlib.h>
#include <string.h>

#include "mct.h"
#include "mct-path.h"

/* Has rank p->rk moved past its step p: an op after it, its launches'? */
static int
part_done(const struct opts *o, const struct stepstate *s,
    const struct pev *p)
{
	return s->hasmax[p->rk] && s->maxts[p->rk] > p->ts + p->dur &&
	    steps_launched(o, s, p);
}

/* The rank's part of the step named nm parked in the spool (-1: none). */
ssize_t
steps_parked(const struct stepstate *s, int32_t nm, int32_t rk)
{
	size_t i;

	for (i = 0; i < s->npark; i++)
		if (s->park[i].name == nm && (rk < 0 || s->park[i].rk == rk))
			return (ssize_t)i;
	return -1;
}

/*
 * Has every rank moved past the step named nm, of o->ev[g[0..k)] and
 * the parts parked: each rank in g past its part, each rank with neither
 * an op after the step's last end?
 */
static int
moved_past(const struct opts *o, const struct stepstate *s, int32_t nm,
    const size_t *g, size_t k)
{
	int64_t end = INT64_MIN;
	int32_t r;
	size_t j;

	if (o->nrank < s->nexpect)
		return 0;		/* a rank to come */
	for (j = 0; j < k; j++)
		if (o->ev[g[j]].ts + o->ev[g[j]].dur > end)
			end = o->ev[g[j]].ts + o->ev[g[j]].dur;
	for (j = 0; j < s->npark; j++)
		if (s->park[j].name == nm && s->park[j].end > end)
			end = s->park[j].end;
	for (r = 0; r < o->nrank; r++) {
		const struct pev *p = NULL;

		for (j = 0; j < k && p == NULL; j++)
			if (o->ev[g[j]].rk == r)
				p = &o->ev[g[j]];
		if (p != NULL ? !part_done(o, s, p) : steps_parked(s, nm, r) < 0 &&
		    (!s->hasmax[r] || s->maxts[r] <= end))
			return 0;
	}
	return 1;
}

/* A step of o->ev[g[0..k)] analysed and done; one: a job's step. */
static void
finish(struct opts *o, struct stepstate *s, const size_t *g, size_t k,
    int job)
{
	int32_t nm = o->ev[g[0]].name;
	size_t j;

	steps_row(o, g, k, s);
	for (j = 0; j < k; j++)
		if (!(o->ev[g[j]].fl & F_DONE))	/* (a part parked is) */
			steps_done(o, s, g[j]);
	if (!job)
		return;
	if (o->nrank > 1 && k < (size_t)o->nrank)
		s->partial++;
	while (s->ndonename <= nm) {
		s->donename = mct_xgrow(s->donename, (size_t)s->ndonename, 1);
		s->donename[s->ndonename++] = 0;
	}
	s->donename[nm] = 1;
}

/*
 * Park the rank's part of the step o->ev[i]: the step, the ops in its
 * window, the device events and syncs of their calls, let go to the
 * spool in one run (marked in gone), its window done.
 */
static void
park(struct opts *o, struct stepstate *s, size_t i, char *gone, size_t n)
{
	struct park *k;
	char *mine;
	int32_t r = o->ev[i].rk;
	int64_t a = o->ev[i].ts, b = a + o->ev[i].dur;
	size_t j;

	steps_done(o, s, i);
	if (s->spool == NULL && (s->spool = mct_tmpfile(NULL,
	    &s->spoolvb)) == NULL)
		exit(MCT_EXIT_USAGE);
	s->park = mct_xgrow(s->park, s->npark, sizeof(*s->park));
	k = &s->park[s->npark++];
	k->name = o->ev[i].name;
	k->rk = r;
	k->end = b;
	if ((k->a = ftello(s->spool)) < 0)
		err(MCT_EXIT_USAGE, "spool");
	mine = mct_xmalloc((size_t)o->corrs.n + 1);
	memset(mine, 0, (size_t)o->corrs.n + 1);
	for (j = 0; j < n; j++) {
		const struct pev *p = &o->ev[j];

		if (gone[j] || p->rk != r || (j != i && (steps_route(p) != R_TIME ||
		    p->ts < a || p->ts > b)))
			continue;
		if (p->corr >= 0)
			mine[p->corr] = 1;
		if (steps_route(p) == R_TIME)
			steps_skipped(o, s, p);
		steps_let_go(o, s, p);
		gone[j] = 1;
	}
	for (j = 0; j < n; j++) {
		const struct pev *p = &o->ev[j];

		if (!gone[j] && p->rk == r && steps_route(p) == R_CORR &&
		    mine[p->corr]) {
			steps_let_go(o, s, p);
			gone[j] = 1;
		}
	}
	free(mine);
	if ((k->b = ftello(s->spool)) < 0)
		err(MCT_EXIT_USAGE, "spool");
}

/* The parts of the step named nm back from the spool (F_BACK). */
static int
unpark(struct opts *o, struct stepstate *s, int32_t nm)
{
	struct pev p;
	size_t i, k;
	int any = 0;

	for (i = k = 0; i < s->npark; i++) {
		if (s->park[i].name != nm) {
			s->park[k++] = s->park[i];
			continue;
		}
		if (fflush(s->spool) != 0 ||
		    fseeko(s->spool, s->park[i].a, SEEK_SET) != 0)
			err(MCT_EXIT_USAGE, "spool");
		while (ftello(s->spool) < s->park[i].b) {
			if (fread(&p, sizeof(p), 1, s->spool) != 1)
				errx(MCT_EXIT_USAGE, "spool: short");
			p.corr = steps_get_text(o, s);
			p.rcorr = steps_get_text(o, s);
			p.fl |= F_BACK;
			steps_push(o, &p);
		}
		any = 1;
	}
	s->npark = k;
	if (any && fseeko(s->spool, 0, SEEK_END) != 0)
		err(MCT_EXIT_USAGE, "spool");
	return any;
}

/*
 * The job's step named nm: its parts parked back, each rank's first
 * step event of the name (in memory, or parked), analysed, done.
 */
static void
job(struct opts *o, struct stepstate *s, int32_t nm)
{
	size_t *g, k;

	if (unpark(o, s, nm)) {
		steps_unindex(s);
		steps_grow_corrs(o, s);
		mct_sort(o->ev, o->n, sizeof(*o->ev), steps_cmp_seq);
	}
	g = mct_xmalloc(((size_t)o->nrank + 1) * sizeof(*g));
	if ((k = steps_firsts(o, s, nm, g)) > 0)
		finish(o, s, g, k, 1);
	free(g);
}

/* Is the window of o->ev[i] apart from the other open steps' of its rank? */
static int
apart(const struct opts *o, size_t i)
{
	const struct pev *st = &o->ev[i];
	size_t j;

	for (j = 0; j < o->n; j++) {
		const struct pev *p = &o->ev[j];

		if (j != i && (p->fl & (F_STEP | F_DONE)) == F_STEP &&
		    p->rk == st->rk && p->ts <= st->ts + st->dur &&
		    st->ts <= p->ts + p->dur)
			return 0;
	}
	return 1;
}

/*
 * The job's steps among the open ones and the parked: each name's first
 * event on each rank, one step (analysed as --step NAME analyses it); a
 * later event of the name on a rank, a step of that rank alone.  Those
 * done (all: every one) analysed; with several ranks, a rank's part done
 * before the job's step, parked (its window apart from the rank's other
 * open steps', else the order is broken).  Returns whether one was.
 */
int
steps_groups(struct opts *o, struct stepstate *s, int all)
{
	size_t n = 0, np = 0, nj = 0, i, j, k, nd, *g, *dup, *pk;
	int32_t *jobs;
	char *gone;
	int any = 0;

	s->grp = mct_xrealloc(s->grp, (o->n + 1) * sizeof(*s->grp));
	for (i = 0; i < o->n; i++)
		if ((o->ev[i].fl & (F_STEP | F_DONE)) == F_STEP)
			s->grp[n++] = i;
	mct_sort_r(s->grp, n, sizeof(*s->grp), cmp_coll, o);
	g = mct_xmalloc(3 * (n + 1) * sizeof(*g));
	dup = g + n + 1;
	pk = dup + n + 1;
	jobs = mct_xmalloc((n + s->npark + 1) * sizeof(*jobs));
	for (i = 0; i < n; i = j) {
		int32_t nm = o->ev[s->grp[i]].name;

		k = nd = 0;
		for (j = i; j < n && o->ev[s->grp[j]].name == nm; j++)
			if (j > i && o->ev[s->grp[j]].rk ==
			    o->ev[s->grp[j - 1]].rk)
				dup[nd++] = s->grp[j];
			else
				g[k++] = s->grp[j];
		if (all || moved_past(o, s, nm, g, k))
			jobs[nj++] = nm;
		else if (o->nrank > 1 || s->nexpect > 1)
			while (k-- > 0)
				if (part_done(o, s, &o->ev[g[k]]))
					pk[np++] = g[k];
		for (k = 0; k < nd; k++)
			if (all || moved_past(o, s, nm, &dup[k], 1)) {
				finish(o, s, &dup[k], 1, 0);
				any = 1;
			}
	}
	/* the steps parked whole */
	for (i = 0; i < s->npark; i++) {
		int32_t nm = s->park[i].name;

		for (j = 0; j < nj && jobs[j] != nm; j++)
			;
		for (k = 0; k < n && o->ev[s->grp[k]].name != nm; k++)
			;
		if (j == nj && k == n && (all || moved_past(o, s, nm, NULL, 0)))
			jobs[nj++] = nm;
	}
	for (i = 0; i < np; i++)
		if (!apart(o, pk[i])) {
			free(g);
			free(jobs);
			steps_unindex(s);
			steps_give_up(o, s);
			return 0;
		}
	if (np > 0) {
		gone = mct_xmalloc(o->n + 1);
		memset(gone, 0, o->n + 1);
		for (i = 0; i < np; i++)
			park(o, s, pk[i], gone, o->n);
		for (i = k = 0; i < o->n; i++)
			if (!gone[i])
				o->ev[k++] = o->ev[i];
		o->n = k;
		free(gone);
		steps_unindex(s);
		any = 1;
	}
	for (i = 0; i < nj; i++)
		job(o, s, jobs[i]);
	free(g);
	free(jobs);
	steps_unindex(s);	/* the events move once this is done */
	return any || nj > 0;
}

/* How many ranks the operands name (a job's steps wait for them all). */
int32_t
steps_ranks(const struct mct_header *h)
{
	int32_t n = 0;
	int i, j;

	for (i = 0; i < h->nsrc; i++) {
		if (!h->src[i].ok || h->src[i].rank == MCT_RANK_NONE)
			continue;
		for (j = 0; j < i; j++)
			if (h->src[j].ok && h->src[j].rank == h->src[i].rank)
				break;
		n += j == i;
	}
	return n;
}

