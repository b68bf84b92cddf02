/*
 * path-steps.c - mct-path --steps all: a row per ProfilerStep#N of the
 * job (with several ranks, every rank's window of the name: path-job.c),
 * the steps analysed one after another as the input comes, each step's
 * events freed once it is done; and --step NAME[#N], only the window of
 * the step that NAME[#N] is so far kept.
 *
 * An op (or a collective without launch) of rank r is kept while it
 * starts in the window [a, b] of an open step of r, else let go as it
 * comes.  A step is done when the input has shown an op of each rank
 * that starts after its b, and every launch (by name) of the rank that
 * starts in [a, b] has its device event.  Then it is analysed (its row
 * kept, for the rows come out in step order at the end), and what no
 * open step can use is let go: its ops, the device events and syncs
 * whose calls have gone (a rank's part done before the others': parked,
 * path-job.c).  What the input brings later is checked against what was
 * let go: an op in a done step's window, a step that starts at or before an
 * op let go of its rank, a device event or sync whose call was in a done
 * step, or a call whose device events were let go.
 * Then the order of the input is not one this can follow (Kineto writes
 * the device events after all host events, threads one after another):
 * the events let go, kept in a temporary file, are read back, and the
 * rest of the input is kept whole, as without this file.  So the rows
 * are the same either way.
 *
 * --step: the events named NAME#N (or, while no event has that name, the
 * N-th events named NAME) of each rank, earliest first, are kept, and the
 * window of the want-th of each rank is the one open window of the rank
 * (two with both names).  Nothing is analysed before the input ends (a
 * rank may come last).  When the want-th changes to one that starts at
 * or before an op let go, the order is broken as above.
 */
#include "config.h"

#include <err.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "mct.h"
#include "mct-path.h"

static const char *skey[S_N] = { "crit_host", "crit_kernel", "crit_comm",
    "crit_launch", "crit_wait", "crit_sync" };

/*
 * A step's row.
 */

/*
 * Analyse the step of the events o->ev[g[0..k)] (one per rank, the first
 * of its name on each): its row (or none: a cycle), its counts.  One
 * event: its rank's window only; several: --step NAME's, every rank's
 * window of the name, joined at the collectives.
 */
void
steps_row(struct opts *o, const size_t *g, size_t k, struct stepstate *s)
{
	struct path pa;
	struct row *w;
	const char *step = o->step;
	size_t steplen = o->steplen;
	int64_t end;
	size_t j;
	int steps = o->steps, r;

	o->stepev = g[0];
	if (k > 1) {
		o->steps = 0;
		o->step = o->names.str[o->ev[g[0]].name];
		o->steplen = mct_strtab_len(&o->names, o->ev[g[0]].name);
	}
	r = steps_analyse(o, s, &pa);
	o->steps = steps;
	o->step = step;
	o->steplen = steplen;
	if (r != 0)	/* no window found for the step's name: no path, no row */
		return;
	s->neg += o->negative;
	s->nok += o->nokernel;
	s->nos += o->nosrc;
	s->noe += o->noedge;
	s->row = mct_xgrow(s->row, s->nrow, sizeof(*s->row));
	w = &s->row[s->nrow++];
	memset(w, 0, sizeof(*w));
	w->ts = o->ev[g[0]].ts;
	end = w->ts + o->ev[g[0]].dur;
	w->seq = o->ev[g[0]].seq;
	for (j = 1; j < k; j++) {
		const struct pev *p = &o->ev[g[j]];

		if (p->ts < w->ts || (p->ts == w->ts && p->seq < w->seq)) {
			w->ts = p->ts;
			w->seq = p->seq;
		}
		if (p->ts + p->dur > end)
			end = p->ts + p->dur;
	}
	w->dur = mct_sat_sub(end, w->ts);	/* (ranks far apart) */
	w->name = o->ev[g[0]].name;
	w->nrk = (int32_t)k;
	w->cycle = pa.cycle > 0;
	w->crit = pa.len;
	for (j = 0; j < pa.n && !w->cycle; j++)
		w->ns[pa.s[j].kind] = mct_sat_add(w->ns[pa.s[j].kind],
		    pa.s[j].ns);
	path_free(&pa);
}

static void
put_row(struct opts *o, struct mct_buf *b, const struct row *w)
{
	int k;

	b->len = 0;
	mct_buf_adds(b, "{\"name\":");
	mct_buf_addjstr(b, o->names.str[w->name],
	    mct_strtab_len(&o->names, w->name));
	mct_buf_adds(b, ",\"ph\":\"X\",\"ts\":");
	mct_buf_addi(b, w->ts);
	mct_buf_adds(b, ",\"dur\":");
	mct_buf_addi(b, w->dur);
	if (o->nrank > 1) {
		mct_buf_adds(b, ",\"ranks\":");
		mct_buf_addi(b, w->nrk);
	}
	mct_buf_adds(b, ",\"crit\":");
	mct_buf_addi(b, w->crit);
	for (k = 0; k < S_N; k++) {
		mct_buf_adds(b, ",\"");
		mct_buf_adds(b, skey[k]);
		mct_buf_adds(b, "\":");
		mct_buf_addi(b, w->ns[k]);
	}
	mct_buf_addc(b, '}');
	mct_out_json(&o->out, b->p, b->len);
}

/*
 * Are the events read step by step here (--steps, --step)?  They come and
 * go, and their correlation ids are the texts' table, o->corrs.
 */
int
path_stepwise(const struct opts *o)
{
	return o->steps || o->step != NULL;
}

static int
cmp_row(const void *a, const void *b)
{
	const struct row *x = a, *y = b;

	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/*
 * What an event is to the steps.
 */
int
steps_route(const struct pev *p)
{
	if (p->kind == K_OP || (p->kind == K_DEV && p->corr < 0 &&
	    (p->fl & F_COMM)))
		return R_TIME;		/* in a window by its start */
	if ((p->kind == K_DEV || p->kind == K_SYNC) && p->corr >= 0)
		return R_CORR;		/* by its call's */
	return R_NONE;			/* in no graph */
}

static void
grow_ranks(struct opts *o, struct stepstate *s)
{
	while (s->nrk < o->nrank) {
		size_t n = (size_t)s->nrk;

		s->maxts = mct_xgrow(s->maxts, n, sizeof(*s->maxts));
		s->doneend = mct_xgrow(s->doneend, n, sizeof(*s->doneend));
		s->skip = mct_xgrow(s->skip, n, sizeof(*s->skip));
		s->hasmax = mct_xgrow(s->hasmax, n, 1);
		s->hasdone = mct_xgrow(s->hasdone, n, 1);
		s->hasskip = mct_xgrow(s->hasskip, n, 1);
		s->hassync = mct_xgrow(s->hassync, n, 1);
		s->hasmax[n] = s->hasdone[n] = s->hasskip[n] = s->hassync[n] = 0;
		s->nrk++;
	}
}

void
steps_grow_corrs(struct opts *o, struct stepstate *s)
{
	while (s->ncorr < o->corrs.n) {
		size_t n = (size_t)s->ncorr;

		s->nhost = mct_xgrow(s->nhost, n, sizeof(*s->nhost));
		s->ndev = mct_xgrow(s->ndev, n, sizeof(*s->ndev));
		s->nhost[n] = s->ndev[n] = 0;
		s->ncorr++;
	}
}

/* An id's text, or "" for none. */
static const char *
corr_text(const struct opts *o, int32_t c)
{
	return c >= 0 ? o->corrs.str[c] : "";
}

static void
put_text(struct mct_buf *b, const char *t, int has)
{
	uint32_t len = has ? (uint32_t)strlen(t) : UINT32_MAX;

	mct_buf_add(b, &len, sizeof(len));
	if (has)
		mct_buf_add(b, t, len);
}

/*
 * Let the event go: to the spool, for when the input breaks the order
 * (the event, then its ids' texts: one write, with no lock, of many).
 */
void
steps_let_go(struct opts *o, struct stepstate *s, const struct pev *p)
{
	if (steps_route(p) == R_NONE && !(p->fl & F_STEP))
		return;		/* no row needs it, ever */
	if (s->spool == NULL && (s->spool = mct_tmpfile(NULL,
	    &s->spoolvb)) == NULL)
		exit(MCT_EXIT_USAGE);
	s->rec.len = 0;
	mct_buf_add(&s->rec, p, sizeof(*p));
	put_text(&s->rec, corr_text(o, p->corr), p->corr >= 0);
	put_text(&s->rec, corr_text(o, p->rcorr), p->rcorr >= 0);
	if (fwrite_unlocked(s->rec.p, 1, s->rec.len, s->spool) != s->rec.len)
		err(MCT_EXIT_USAGE, "spool");
}

int
steps_cmp_seq(const void *a, const void *b)
{
	const struct pev *x = a, *y = b;

	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

int32_t
steps_get_text(struct opts *o, struct stepstate *s)
{
	uint32_t len;

	if (fread_unlocked(&len, sizeof(len), 1, s->spool) != 1)
		err(MCT_EXIT_USAGE, "spool");
	if (len == UINT32_MAX)
		return -1;
	o->tmp.len = 0;
	mct_buf_grow(&o->tmp, (size_t)len + 1);
	if (fread_unlocked(o->tmp.p, 1, len, s->spool) != len)
		errx(MCT_EXIT_USAGE, "spool: short");
	o->tmp.len = len;
	mct_buf_addc(&o->tmp, '\0');
	return mct_intern(&o->corrs, o->tmp.p, len);
}

/* An event at the end of o->ev. */
void
steps_push(struct opts *o, const struct pev *p)
{
	if (o->n == o->cap) {
		o->cap = o->cap ? o->cap * 2 : 4096;
		o->ev = mct_xrealloc(o->ev, o->cap * sizeof(*o->ev));
	}
	o->ev[o->n++] = *p;
}

/*
 * The order is broken: every event back, in input order, and the rest
 * of the input kept whole.
 */
void
steps_give_up(struct opts *o, struct stepstate *s)
{
	struct pev p;
	size_t i;

	s->stream = 0;
	s->nrow = 0;
	s->neg = s->nok = s->nos = s->noe = s->partial = 0;
	path_reserve(o, 1);	/* the whole input is kept now */
	if (s->spool != NULL) {
		if (fflush(s->spool) != 0 || fseeko(s->spool, 0, SEEK_SET) != 0)
			err(MCT_EXIT_USAGE, "spool");
		while (fread(&p, sizeof(p), 1, s->spool) == 1) {
			p.corr = steps_get_text(o, s);
			p.rcorr = steps_get_text(o, s);
			steps_push(o, &p);
		}
		fclose(s->spool);
		free(s->spoolvb);
		s->spool = NULL;
		s->spoolvb = NULL;
		mct_sort(o->ev, o->n, sizeof(*o->ev), steps_cmp_seq);
	}
	for (i = 0; i < o->n; i++)
		o->ev[i].fl &= ~F_DONE;
	cset_free(&s->indone);
	cset_free(&s->away);
	s->npark = 0;
}

/* Is ts in one of the windows w[0..n) of rank rk? */
static int
in_windows(const struct window *w, size_t n, int32_t rk, int64_t ts)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (w[i].rk == rk && w[i].a <= ts && ts <= w[i].b)
			return 1;
	return 0;
}

/* Has every launch of the step's rank in its window a device event? */
int
steps_launched(const struct opts *o, const struct stepstate *s, const struct pev *st)
{
	size_t i;

	for (i = 0; i < o->n; i++) {
		const struct pev *p = &o->ev[i];

		if (p->kind == K_OP && p->rk == st->rk && p->corr >= 0 &&
		    (p->fl & (F_HOSTCALL | F_LAUNCH)) ==
		    (F_HOSTCALL | F_LAUNCH) && p->ts >= st->ts &&
		    p->ts <= st->ts + st->dur && s->ndev[p->corr] == 0)
			return 0;
	}
	return 1;
}

/* The step event o->ev[i] done: its window is no open step's now. */
void
steps_done(struct opts *o, struct stepstate *s, size_t i)
{
	struct pev *st = &o->ev[i];
	int64_t b = st->ts + st->dur;
	const size_t *w;
	size_t j, n;

	st->fl |= F_DONE;
	s->done = mct_xgrow(s->done, s->ndone, sizeof(*s->done));
	s->done[s->ndone++] = (struct window){ st->rk, st->ts, b };
	if (!s->hasdone[st->rk] || s->doneend[st->rk] < b)
		s->doneend[st->rk] = b;
	s->hasdone[st->rk] = 1;
	w = steps_in_window(o, s, st->rk, st->ts, b, &n);
	for (j = 0; j < n; j++) {
		const struct pev *p = &o->ev[w[j]];

		if (p->kind == K_OP && p->rk == st->rk && p->corr >= 0 &&
		    p->ts >= st->ts && p->ts <= b)
			cset_add(&s->indone, o->corrs.str[p->corr]);
	}
}

/* The open steps' windows, from the steps in o->ev. */
static void
open_windows(struct opts *o, struct stepstate *s)
{
	size_t i;

	s->nopen = 0;
	for (i = 0; i < o->n; i++) {
		const struct pev *p = &o->ev[i];

		if ((p->fl & (F_STEP | F_DONE)) != F_STEP)
			continue;
		s->open = mct_xgrow(s->open, s->nopen, sizeof(*s->open));
		s->open[s->nopen++] = (struct window){ p->rk, p->ts,
		    p->ts + p->dur };
	}
}

/* An op let go: no step to come may start at or before it. */
void
steps_skipped(struct opts *o, struct stepstate *s, const struct pev *p)
{
	const char *c = p->corr >= 0 ? o->corrs.str[p->corr] : NULL;

	if (!s->hasskip[p->rk] || s->skip[p->rk] < p->ts)
		s->skip[p->rk] = p->ts;
	s->hasskip[p->rk] = 1;
	if (c != NULL && !cset_has(&s->indone, c))
		cset_add(&s->away, c);
}

/* Keep what an open step can use; intern the ids again. */
static void	reintern(struct opts *, struct stepstate *);

static void
prune(struct opts *o, struct stepstate *s)
{
	char *keep;
	size_t i, k;

	if (s->one)
		picks_windows(s);
	else
		open_windows(o, s);
	keep = mct_xmalloc(o->n + 1);
	for (i = 0; i < (size_t)s->ncorr; i++)
		s->nhost[i] = 0;
	for (i = 0; i < o->n; i++) {
		const struct pev *p = &o->ev[i];

		keep[i] = s->one ? picks_cand(s, p) :
		    (p->fl & (F_STEP | F_DONE)) == F_STEP;
		if ((p->fl & F_BACK) || steps_route(p) != R_TIME) {
			keep[i] &= !(p->fl & F_BACK);
			continue;
		}
		if (in_windows(s->open, s->nopen, p->rk, p->ts))
			keep[i] = 1;
		if (keep[i] && p->corr >= 0)
			s->nhost[p->corr]++;
		else if (!keep[i])
			steps_skipped(o, s, p);
	}
	for (i = 0; i < o->n; i++) {
		const struct pev *p = &o->ev[i];
		const char *c;

		if (steps_route(p) != R_CORR || (p->fl & F_BACK))
			continue;
		c = o->corrs.str[p->corr];
		keep[i] = (s->one && keep[i]) || s->nhost[p->corr] > 0 ||
		    (!cset_has(&s->indone, c) && !cset_has(&s->away, c));
	}
	for (i = k = 0; i < o->n; i++) {
		if (!keep[i] && !(o->ev[i].fl & F_BACK))
			steps_let_go(o, s, &o->ev[i]);
		else if (keep[i])
			o->ev[k++] = o->ev[i];
	}
	o->n = k;
	free(keep);
	reintern(o, s);
}

/*
 * The ids of the events kept interned again (those of the events let go
 * dropped), and their counts made again.
 */
static void
reintern(struct opts *o, struct stepstate *s)
{
	struct mct_strtab nt = { 0 };
	size_t i;

	for (i = 0; i < o->n; i++) {
		struct pev *p = &o->ev[i];

		if (p->corr >= 0)
			p->corr = mct_intern(&nt, o->corrs.str[p->corr],
			    strlen(o->corrs.str[p->corr]));
		if (p->rcorr >= 0)
			p->rcorr = mct_intern(&nt, o->corrs.str[p->rcorr],
			    strlen(o->corrs.str[p->rcorr]));
	}
	mct_strtab_free(&o->corrs);
	o->corrs = nt;
	free(s->nhost);
	free(s->ndev);
	s->nhost = s->ndev = NULL;
	s->ncorr = 0;
	steps_grow_corrs(o, s);
	for (i = 0; i < o->n; i++) {
		const struct pev *p = &o->ev[i];

		if (steps_route(p) == R_TIME && p->corr >= 0)
			s->nhost[p->corr]++;
		else if (steps_route(p) == R_CORR && p->kind == K_DEV)
			s->ndev[p->corr]++;
	}
	/* a smaller array when the buffer has shrunk much */
	if (o->cap > 4096 && o->n < o->cap / 4) {
		o->cap /= 2;
		o->ev = mct_xrealloc(o->ev, o->cap * sizeof(*o->ev));
	}
}

/* The steps that are done, analysed, and what they held let go. */
static void
close_done(struct opts *o, struct stepstate *s)
{
	if (steps_groups(o, s, 0))
		prune(o, s);
}

void
steps_begin(struct opts *o)
{
	o->ss = mct_xmalloc(sizeof(*o->ss));
	memset(o->ss, 0, sizeof(*o->ss));
	o->ss->stream = !o->has_from && !o->has_to;
	if ((o->ss->one = !o->steps))
		picks_begin(o, o->ss);
	else
		o->ss->nexpect = steps_ranks(o->hdr);
}

/* The event path_add() has just kept, o->ev[o->n - 1]: keep it or not. */
static void
add_one(struct opts *o)
{
	struct stepstate *s = o->ss;
	struct pev *p = &o->ev[o->n - 1];
	const char *c;
	int32_t r = p->rk;
	int keep;			/* kept whatever its window */

	if (!s->stream)
		return;
	/* a rank new after a step was done: that step was not the job's */
	if (!s->one && o->nrank > s->nrk && s->nrow > 0) {
		steps_give_up(o, s);
		return;
	}
	grow_ranks(o, s);
	steps_grow_corrs(o, s);
	c = p->corr >= 0 ? o->corrs.str[p->corr] : NULL;
	/* the rank's first cuda_sync: its steps done took syncs by name */
	if (p->kind == K_SYNC && !s->hassync[r]) {
		s->hassync[r] = 1;
		if (s->hasdone[r]) {
			steps_give_up(o, s);
			return;
		}
	}
	if (s->one) {
		if ((keep = picks_add(o, s, p)) < 0) {
			steps_give_up(o, s);
			return;
		}
	} else if ((keep = (p->fl & F_STEP) != 0)) {
		if ((s->hasskip[r] && p->ts <= s->skip[r]) || (o->nrank > 1 &&
		    p->name < s->ndonename && s->donename[p->name]) ||
		    steps_parked(s, p->name, r) >= 0) {
			steps_give_up(o, s);
			return;
		}
		s->open = mct_xgrow(s->open, s->nopen, sizeof(*s->open));
		s->open[s->nopen++] = (struct window){ r, p->ts,
		    p->ts + p->dur };
	}
	switch (steps_route(p)) {
	case R_TIME:
		if (!s->hasmax[r] || s->maxts[r] < p->ts)
			s->maxts[r] = p->ts;
		s->hasmax[r] = 1;
		if (s->hasdone[r] && p->ts <= s->doneend[r] &&
		    in_windows(s->done, s->ndone, r, p->ts)) {
			steps_give_up(o, s);
			return;
		}
		if (c != NULL && (cset_has(&s->indone, c) ||
		    cset_has(&s->away, c))) {
			steps_give_up(o, s);
			return;
		}
		if (!in_windows(s->open, s->nopen, r, p->ts) && !keep) {
			steps_skipped(o, s, p);
			steps_let_go(o, s, p);
			o->n--;
			return;
		}
		if (c != NULL)
			s->nhost[p->corr]++;
		break;
	case R_CORR:
		if (cset_has(&s->indone, c)) {
			steps_give_up(o, s);
			return;
		}
		if (s->nhost[p->corr] == 0 && cset_has(&s->away, c) && !keep) {
			steps_let_go(o, s, p);
			o->n--;
			return;
		}
		if (p->kind == K_DEV)
			s->ndev[p->corr]++;
		break;
	default:
		if (!keep) {
			o->n--;		/* in no graph, no step */
			return;
		}
	}
}

/* A look every 4096 events, or as many as were kept then. */
static void
look(struct opts *o)
{
	struct stepstate *s = o->ss;

	if (s->stream && s->since >= 4096 && s->since >= s->lastn) {
		s->since = 0;
		if (s->one)
			prune(o, s);
		else
			close_done(o, s);
		/* the ids of the events let go as they came */
		if ((size_t)o->corrs.n > 2 * o->n + 4096)
			reintern(o, s);
		s->lastn = o->n;
	}
}

/*
 * The events path_add() or path_lines() kept, from o->ev[from] on: one
 * by one (giving up may put events back before them), then a look (its
 * new ids would not be theirs).
 */
void
steps_add(struct opts *o, size_t from)
{
	struct pev *run;
	size_t n = o->n - from, i;

	if (!o->ss->stream)
		return;
	if (n == 1)
		add_one(o);
	else {
		run = mct_xmalloc(n * sizeof(*run));
		memcpy(run, &o->ev[from], n * sizeof(*run));
		o->n = from;
		for (i = 0; i < n; i++) {
			steps_push(o, &run[i]);
			add_one(o);
		}
		free(run);
	}
	o->ss->since += n;
	look(o);
}

static void	state_free(struct opts *);

/* A text of n bytes (a NUL among them) as -o tsv writes it. */
static void
add_tsv(struct mct_buf *b, const char *t, size_t n)
{
	for (; n > 0; t++, n--)
		switch (*t) {
		case '\t': mct_buf_adds(b, "\\t"); break;
		case '\n': mct_buf_adds(b, "\\n"); break;
		case '\r': mct_buf_adds(b, "\\r"); break;
		case '\\': mct_buf_adds(b, "\\\\"); break;
		default: mct_buf_addc(b, *t);
		}
}

/* A row's line of -o tsv -F name,crit, for the median's order. */
struct mrow {
	int64_t		 crit;
	size_t		 at, len, nlen;	/* in the buffer of lines; the
					   name's length */
	int32_t		 name;
};

static int
cmp_mrow(const void *a, const void *b, void *arg)
{
	const struct mrow *x = a, *y = b;
	const char *t = arg;
	int c;

	if (x->crit != y->crit)
		return x->crit < y->crit ? -1 : 1;
	c = memcmp(t + x->at, t + y->at, x->len < y->len ? x->len : y->len);
	if (c != 0)
		return c;
	return x->len < y->len ? -1 : x->len > y->len;
}

/*
 * --steps median: the step of the rows' median path (the lower of the
 * two middle ones), the rows ordered by crit, then by their lines of
 * -o tsv -F name,crit (as sort -k2,2n orders them); said on stderr, even
 * with -q.  A copy of its name (*len bytes, a NUL after them), or NULL
 * with no row.
 */
static char *
median(struct opts *o, const struct row *w, size_t n, size_t *len)
{
	struct mct_buf b = { 0 };
	struct mrow *m;
	char *name = NULL;
	size_t i, k = 0;

	*len = 0;
	m = mct_xmalloc((n + 1) * sizeof(*m));
	for (i = 0; i < n; i++) {
		if (w[i].cycle)
			continue;
		m[k].at = b.len;
		add_tsv(&b, o->names.str[w[i].name],
		    mct_strtab_len(&o->names, w[i].name));
		m[k].nlen = b.len - m[k].at;
		mct_buf_addc(&b, '\t');
		mct_buf_addi(&b, w[i].crit);
		m[k].len = b.len - m[k].at;
		m[k].crit = w[i].crit;
		m[k++].name = w[i].name;
	}
	mct_sort_r(m, k, sizeof(*m), cmp_mrow, b.p);
	if (k > 0) {
		i = (k - 1) / 2;
		*len = mct_strtab_len(&o->names, m[i].name);
		name = mct_xmalloc(*len + 1);
		memcpy(name, o->names.str[m[i].name], *len + 1);
		fprintf(stderr, "%s: median of %zu steps: ",
		    program_invocation_short_name, k);
		fwrite(b.p + m[i].at, 1, m[i].nlen, stderr);
		fputc('\n', stderr);
	} else if (n > 0)
		fprintf(stderr, "%s: no step without a cycle: the whole "
		    "input\n", program_invocation_short_name);
	else
		fprintf(stderr, "%s: no step: the whole input\n",
		    program_invocation_short_name);
	free(m);
	mct_buf_free(&b);
	return name;
}

/*
 * The rows, in step order, and what was counted; or, with med, no rows:
 * *med the median's name (median()), of *medlen bytes.
 */
int
steps_end(struct opts *o, char **med, size_t *medlen)
{
	struct stepstate *s = o->ss;
	struct mct_buf b = { 0 };
	long long n = 0, cyc = 0;
	size_t i;

	/*
	 * the ranks add_one() did not see (all of them with --from or --to,
	 * which keep the whole input; those that came after a give-up)
	 */
	grow_ranks(o, s);
	steps_groups(o, s, 1);
	mct_sort(s->row, s->nrow, sizeof(*s->row), cmp_row);
	for (i = 0; i < s->nrow; i++) {
		if (s->row[i].cycle) {
			cyc++;
			continue;
		}
		if (med == NULL)
			put_row(o, &b, &s->row[i]);
		n++;
	}
	mct_buf_free(&b);
	o->negative = s->neg;
	o->nokernel = s->nok;
	o->nosrc = s->nos;
	o->noedge = s->noe;
	if (!o->quiet && med == NULL)	/* of which cyc have no row */
		fprintf(stderr, "%s: %lld steps\n", program_invocation_short_name,
		    n + cyc);
	if (s->partial && !o->quiet)
		fprintf(stderr, "%s: %lld steps on some ranks only: each "
		    "analysed on the ranks that have it\n",
		    program_invocation_short_name, s->partial);
	if (cyc)
		fprintf(stderr, "%s: %lld steps with a cycle (times out of "
		    "order): no row\n", program_invocation_short_name, cyc);
	if (med != NULL)
		*med = median(o, s->row, s->nrow, medlen);
	state_free(o);
	return cyc ? MCT_EXIT_DAMAGED : MCT_EXIT_OK;
}

/* --step: the input has ended (the step is analysed as a whole read's). */
void
step_end(struct opts *o)
{
	state_free(o);
}

static void
state_free(struct opts *o)
{
	struct stepstate *s = o->ss;
	int32_t r;
	int i;

	for (i = 0; i < s->npk; i++) {
		for (r = 0; r < s->pk[i].nrk; r++)
			free(s->pk[i].c[r]);
		free(s->pk[i].c);
		free(s->pk[i].nc);
	}
	free(s->namebuf);
	free(s->row);
	free(s->donename);
	free(s->grp);
	free(s->park);
	free(s->maxts);
	free(s->doneend);
	free(s->skip);
	free(s->hasmax);
	free(s->hasdone);
	free(s->hasskip);
	free(s->hassync);
	free(s->done);
	free(s->open);
	free(s->nhost);
	free(s->ndev);
	cset_free(&s->indone);
	cset_free(&s->away);
	steps_unindex(s);
	if (s->spool != NULL)
		fclose(s->spool);
	free(s->spoolvb);
	mct_buf_free(&s->rec);
	free(s);
	o->ss = NULL;
}
