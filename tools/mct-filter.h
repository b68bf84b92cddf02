/*
 * mct-filter.h - what mct-filter.c takes from filter-step.c (--step).
 */
#ifndef MCT_FILTER_H
#define MCT_FILTER_H

struct mct_fsteps;

struct mct_fsteps *fstep_open(const char *);
void	 fstep_see(struct mct_fsteps *, struct mct_event *);
void	 fstep_hold(struct mct_fsteps *, struct mct_event *);
int	 fstep_next(struct mct_fsteps *, const struct mct_header *,
	    struct mct_event **);

#endif /* MCT_FILTER_H */
