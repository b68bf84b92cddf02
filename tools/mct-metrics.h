/*
 * mct-metrics.h - what the files of mct-metrics share and nothing else
 * sees: the state of a run (struct opts) and the functions one of its
 * files gives the others.  The files are listed in mct-metrics.c.
 */
#ifndef MCT_METRICS_H
#define MCT_METRICS_H

/* A sample of a log, for the sort. */
struct row {
	int64_t		 ts, dev, v;
	int32_t		 metric;	/* in o->names */
	uint64_t	 seq;
};

/* A counter --join names. */
struct jmetric {
	char		*name;
	struct mct_buf	 key;		/* "name": as written after each event */
	struct mct_series s;
	int		 has_dev;
	int64_t		 dev;		/* the device whose samples count */
	long long	 other;		/* samples of other devices, left out */
	long long	 joined;	/* events that got values */
	long long	 nsamples;
	int64_t		 first, last;	/* the samples' span */
};

/* An event held until the input has passed its end. */
struct pend {
	int64_t		 a, b;		/* its interval */
	uint64_t	 seq;
	char		*text;
	size_t		 len;
};

struct opts {
	struct mct_mlog	 proto;		/* the log options */
	const char	*sync;		/* --sync WALL=@TS */
	const char	*join;
	struct mct_buf	 jfields;	/* -F's default with --join */
	int		 has_device, has_window;
	int64_t		 device, window;
	struct mct_opts	 mo;
	struct mct_out	 out;
	int		 status;
	/* the logs */
	struct row	*row;
	size_t		 nrow, rowcap;
	int		 nlogs;		/* logs read: a header, or empty */
	struct mct_strtab names;	/* the metrics */
	char		**unit;		/* by metric */
	int32_t		 nunit;
	/* the join */
	struct jmetric	*jm;
	int		 njm;
	size_t		 jroom;		/* bytes the metrics object may take */
	struct pend	*heap;
	size_t		 npend, pendcap;
	uint64_t	 seq;
	int64_t		 now, forgot;
	int		 has_now, has_forgot;
	long long	 late, latesamples, withdur, sincefgt;
	int		 preloaded;	/* the samples came from log operands */
	int		 edited;	/* the reader's threads join (join_edit()) */
	long long	 unjoined;	/* counters of other operands then */
	int		*colmap;	/* a CSV log's column -> counter */
	int		 ncolmap;
	const struct mct_mlog *maplog;	/* the log colmap is of */
	int64_t		 evfirst, evlast;
	/* CSV logs read by a thread while the trace's pass 1 runs */
	pthread_t	 logtid;
	int		 logthread;	/* it runs */
	char		**csv;
	int		 ncsv;
	FILE		*sayto;		/* its messages, said when it ends */
	char		*saybuf;
	size_t		 saylen;
	struct mct_strtab seen;		/* counter names in the input */
	struct mct_field valuef;	/* args.value */
	struct mct_event ev;
	struct mct_buf	 line;
	struct mct_header hdr;
	char		*hline;
};

/* metrics-log.c */
void	 read_log(struct opts *, const char *);
void	 emit(struct opts *, const char *, size_t);
void	 logs(struct opts *, int, char *[]);

/* metrics-join.c */
void	 join_samples(struct opts *, const struct mct_mlog *);
void	 join(struct opts *, int, char *[]);

#endif /* MCT_METRICS_H */
