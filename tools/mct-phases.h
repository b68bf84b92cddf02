/*
 * mct-phases.h - what the files of mct-phases share and nothing else
 * sees: the state of a run (struct opts) and the functions one of its
 * files gives the others.  The files are listed in mct-phases.c.
 */
#ifndef MCT_PHASES_H
#define MCT_PHASES_H

#define NTOP		3

struct gap {
	int64_t		 start, end;
	int32_t		 top[NTOP];
	int64_t		 over[NTOP];
};

/*
 * The ranks of a job: each is cut into phases of its own.  The
 * device calls are read with the index of their rank beside them, then
 * grouped by rank; cur is the rank being cut and reported.
 */
struct ranks {
	int64_t		*rank;		/* by index, as they came; -1: none */
	int64_t		*tend;		/* each one's last end */
	int		 n, cur, any;	/* any: some event had a rank */
	int		 reported;	/* ranks reported yet */
	int32_t		*of;		/* the rank of each device call; NULL:
					   the first, while n is 1 */
	size_t		 ofcap;
};

struct hostrec;

struct opts {
	struct mct_field *key;
	int		 nkey;
	struct mct_expr	*device;
	int		 gaps, only_gaps;
	int64_t		 gapmin;	/* --gap; 0: automatic */
	int64_t		 minswitch;	/* --min-switch; -1: 1% of the median round */
	struct mct_steps steps;		/* Kineto's ProfilerStep#N */
	int32_t		*steprk;	/* the rank of each (struct ranks) */
	size_t		 steprkcap;
	struct mct_method	 m;
	struct mct_out	 out;
	int		 track;		/* -o trace: a stream of track events */
	const struct mct_header *hdr;
	/* what was read */
	struct mct_call	*dev;
	size_t		 ndev, devcap;
	size_t		 devmap;	/* bytes of dev's own pages; 0: in the heap */
	FILE		*host;		/* the host spool, with --gaps */
	char		*hostvb;	/* its buffer */
	struct hostrec	*hrec;		/* host events not spooled yet */
	size_t		 nhrec;
	int		 hspilled;	/* some went to the spool */
	int64_t		 tend;		/* the last end of any event */
	int		 hasend;
	/* interned strings: signatures and host names */
	struct mct_strtab st;
	/* results */
	struct mct_phase	*ph;
	int		 nph;
	struct gap	*gap;
	size_t		 ngap;
	struct mct_buf	 tmp;		/* one event's texts, to intern */
	struct ranks	 rk;
};

/* phases-cut.c */
void	 add(struct opts *, struct mct_event *);
void	 free_dev(struct opts *);
void	 sort_calls(struct mct_call *, size_t);
void	 phases(struct opts *);
void	 find_gaps(struct opts *);

/* phases-report.c */
void	 report(struct opts *);

#endif /* MCT_PHASES_H */
