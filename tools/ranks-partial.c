/*
 * ranks-partial.c - mct-ranks' partials: -o partial writes each rank's
 * figures and collective calls (lib/rankpart.c); --merge reads them in
 * place of events.
 */
#include "config.h"

#include <err.h>
#include <stdlib.h>
#include <string.h>

#include "mct.h"
#include "mct-ranks.h"

/*
 * The origin of rank id's trace, for --align at a merge: that of the
 * operand that is the rank, or of the run when it read a single rank.
 * 0, or -1 if not known (a stream of several ranks) or no time of a
 * trace (the ts of an event beyond 2^62 ns, which the tools take as none:
 * a merge refuses a rank with such an origin, --align could not use it).
 */
static int
rank_origin(const struct opts *o, int64_t id, int64_t *origin)
{
	const struct mct_header *h = o->hdr;
	int i;

	for (i = 0; i < h->nsrc; i++)
		if (h->src[i].ok && h->src[i].rank != MCT_RANK_NONE &&
		    h->src[i].rank == id && h->src[i].facts.has_origin) {
			*origin = h->src[i].facts.origin;
			return MCT_SANE_NS(*origin) ? 0 : -1;
		}
	if (o->nrk != 1 || !h->facts.has_origin)
		return -1;
	*origin = h->facts.origin;
	return MCT_SANE_NS(*origin) ? 0 : -1;
}

/*
 * -o partial: every rank's figures and collective calls (lib/rankpart.c),
 * under the options that made them.
 */
void
partial_of(struct opts *o, struct mct_rpart *rp)
{
	const char *env = getenv("MCT_RULES");
	struct mct_rprank *p;
	const struct rank *r;
	long *nth;
	size_t i, k;

	rp->st = &o->st;
	rp->opt[MCT_RP_KEY] = mct_xstrdup(o->opt[MCT_RP_KEY] ?
	    o->opt[MCT_RP_KEY] : DEFAULT_KEY);
	if (o->opt[MCT_RP_DEVICE] != NULL)
		rp->opt[MCT_RP_DEVICE] = mct_xstrdup(o->opt[MCT_RP_DEVICE]);
	if (o->opt[MCT_RP_RULES] != NULL || (env != NULL && *env != '\0'))
		rp->opt[MCT_RP_RULES] = mct_xstrdup(o->opt[MCT_RP_RULES] ?
		    o->opt[MCT_RP_RULES] : env);
	mct_partial_cover_of(&rp->cover, o->hdr);
	nth = mct_xmalloc(((size_t)o->st.n + 1) * sizeof(*nth));
	for (i = 0; i < o->nrk; i++) {
		r = &o->rk[i];
		p = mct_rpart_rank(rp, r->id);
		p->start = r->start;
		p->end = r->end;
		p->busy = r->busy;
		p->compute = r->compute;
		p->comm = r->commt;
		p->kernel = r->kernel;
		p->memory = r->memory;
		p->haskm = 1;
		p->rounds = r->rounds;
		p->round = r->round;
		p->hasround = r->hasround;
		p->hasorigin = rank_origin(o, r->id, &p->origin) == 0;
		memset(nth, 0, ((size_t)o->st.n + 1) * sizeof(*nth));
		for (k = 0; k < r->n; k++)
			if (r->call[k].comm)
				mct_rpart_call(p, r->call[k].c.name,
				    ++nth[r->call[k].c.name], r->call[k].c.ts,
				    r->call[k].c.dur);
	}
	free(nth);
}

/*
 * --merge: the ranks of the partials, measured already; their calls are
 * the collective ones only, in the order they had on their rank.
 */
static void
ranks_of(struct opts *o, const struct mct_rpart *rp)
{
	const struct mct_rprank *p;
	struct rank *r;
	size_t i, k;

	for (i = 0; i < rp->nrk; i++) {
		p = &rp->rk[i];
		r = rank_add(o, p->rank);
		r->start = p->start;
		r->end = p->end;
		r->busy = p->busy;
		r->compute = p->compute;
		r->commt = p->comm;
		r->kernel = p->kernel;
		r->memory = p->memory;
		r->nokm = !p->haskm;
		r->rounds = p->rounds;
		r->round = p->round;
		r->hasround = p->hasround;
		r->n = r->cap = p->ncall;
		r->call = mct_xmalloc((p->ncall + 1) * sizeof(*r->call));
		for (k = 0; k < p->ncall; k++) {
			r->call[k].c.ts = p->call[k].ts;
			r->call[k].c.dur = p->call[k].dur;
			r->call[k].c.name = r->call[k].c.sig = p->call[k].name;
			r->call[k].seq = k;
			r->call[k].comm = 1;
		}
	}
	mct_sort(o->rk, o->nrk, sizeof(*o->rk), cmp_rank);
}


/* --merge --align start: the ranks shifted, each shift said. */
static void
align(struct mct_rpart *rp)
{
	size_t i;

	if (mct_rpart_align(rp) != 0)
		exit(MCT_EXIT_USAGE);
	for (i = 0; i < rp->nrk; i++)
		warnx("--align start: rank %lld (%s) shifted by %lld ns",
		    (long long)rp->rk[i].rank, rp->file[rp->rk[i].file],
		    (long long)rp->rk[i].shift);
}

/*
 * Partials in: the ranks of every file.  A partial that cannot be read,
 * is of other options (those given must be the partials' own) or holds a
 * rank another one holds ends the run at once, with nothing written.
 */
int
from_partials(struct opts *o, int argc, char *argv[])
{
	static struct mct_header hdr;
	static char dash[] = "-", *stdin_only[] = { dash, NULL };
	struct mct_rpart rp = { .st = &o->st };
	int i, status = MCT_EXIT_OK;

	if (argc == 0) {
		argc = 1;
		argv = stdin_only;
	}
	for (i = 0; i < MCT_RP_NOPT; i++)
		if (o->opt[i] != NULL) {
			rp.opt[i] = mct_xstrdup(o->opt[i]);
			rp.known[i] = 1;
		}
	for (i = 0; i < argc && status != MCT_EXIT_USAGE; i++)
		status = mct_status(status, mct_rpart_read(&rp, argv[i]));
	if (status == MCT_EXIT_USAGE)
		exit(MCT_EXIT_USAGE);
	if (o->align)
		align(&rp);
	mct_partial_header(&rp.cover, &hdr);
	o->hdr = &hdr;
	if (o->partial)
		mct_rpart_write(&rp);
	else {
		ranks_of(o, &rp);
		report(o);
	}
	mct_rpart_free(&rp);
	return status;
}
