/*
 * filter-step.c - mct-filter's --step: the events of one profiler step.
 *
 * A host event is in step N when the innermost step annotation (an X
 * event NAME#N of the host, ProfilerStep#N by default: mct_is_step_n())
 * of its thread that holds it is NAME#N; device work is in the step of its
 * launch (the host call of the same correlation id), as mct-flow --stack
 * gives a launch its step: on the launch's thread, else on its process
 * (lib/stepof.c).  The annotations may come after the events they hold,
 * so the events that pass the other predicates are held (their lines, in
 * memory) and decided at the end, in input order.
 */
#include "config.h"

#include <err.h>
#include <stdlib.h>
#include <string.h>

#include "mct.h"
#include "mct-filter.h"

/* An event held for the end. */
struct fheld {
	size_t		 off, len;	/* its line in held.lines */
	struct mct_stepkey k;		/* what its step is found by */
};

struct mct_fsteps {
	int64_t		 n;
	struct mct_stepof *so;
	struct fheld	*held;
	size_t		 nheld, heldcap, next;
	struct mct_buf	 lines;
	struct mct_event ev;
};

/* --step N or NAME#N; NULL and a message if it is neither. */
struct mct_fsteps *
fstep_open(const char *arg)
{
	struct mct_fsteps *f;
	const char *hash = strrchr(arg, '#'), *num = hash ? hash + 1 : arg;
	char *name = NULL;
	int64_t n;

	if (*num == '\0' || strspn(num, "0123456789") != strlen(num) ||
	    mct_int(num, strlen(num), &n) != 0 || hash == arg) {
		warnx("--step: invalid step '%s' (want a step number N, or "
		    "NAME#N)", arg);
		return NULL;
	}
	f = mct_xmalloc(sizeof(*f));
	memset(f, 0, sizeof(*f));
	f->n = n;
	if (hash) {
		name = mct_xstrdup(arg);
		name[hash - arg] = '\0';
	}
	f->so = mct_stepof_new(name);
	return f;
}

/* Every event: the step annotations and the launches are noted. */
void
fstep_see(struct mct_fsteps *f, struct mct_event *ev)
{
	mct_stepof_see(f->so, ev);
}

/* An event that passed the other predicates, held for the end. */
void
fstep_hold(struct mct_fsteps *f, struct mct_event *ev)
{
	struct fheld *h;

	if (f->nheld == f->heldcap) {
		f->heldcap = f->heldcap ? 2 * f->heldcap : 1024;
		f->held = mct_xrealloc(f->held, f->heldcap * sizeof(*f->held));
	}
	h = &f->held[f->nheld++];
	h->off = f->lines.len;
	h->len = ev->len;
	mct_buf_add(&f->lines, ev->json, ev->len);
	mct_stepof_key(f->so, ev, &h->k);
}

/* The held events of the step, in input order: 0 after the last. */
int
fstep_next(struct mct_fsteps *f, const struct mct_header *hdr,
    struct mct_event **ev)
{
	const struct fheld *h;

	while (f->next < f->nheld) {
		h = &f->held[f->next++];
		if (mct_stepof_at(f->so, &h->k) != f->n)
			continue;
		if (f->ev.hdr == NULL)
			mct_event_init(&f->ev, NULL, 0, hdr);
		mct_event_set(&f->ev, f->lines.p + h->off, h->len);
		*ev = &f->ev;
		return 1;
	}
	return 0;
}
