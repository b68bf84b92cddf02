/*
 * mct-ranks.h - what the files of mct-ranks share and nothing else sees:
 * the state of a run (struct opts) and the functions one of its files
 * gives the others.  The files are listed in mct-ranks.c.
 */
#ifndef MCT_RANKS_H
#define MCT_RANKS_H

#define DEFAULT_KEY	"name,args.grid,args.block"

/* A device call, and whether the rules call it communication. */
/* What is known of one rank. */
struct rank {
	int64_t		 id;
	struct mct_rcall	*call;		/* its device calls */
	size_t		 n, cap;
	struct mct_steps steps;		/* Kineto's ProfilerStep#N */
	/* measured at the end */
	int64_t		 start, end;	/* first start, last end */
	int64_t		 busy, compute, commt;
	int64_t		 kernel, memory;	/* copies and memsets, the rest */
	int		 nokm;		/* from a partial without them */
	long		 rounds;
	int64_t		 round;		/* median time of a steady round */
	int		 hasround;
};

struct opts {
	struct mct_field *key;
	int		 nkey;
	struct mct_field namef;		/* the field name */
	struct mct_expr	*device;
	double		 threshold;	/* % */
	int		 collectives;
	struct mct_method m;
	struct mct_out	 out;
	const struct mct_header *hdr;
	struct rank	*rk;		/* by id, once sorted */
	size_t		 nrk;
	size_t		 last;		/* the last event's rank: a guess */
	struct mct_strtab st;		/* signatures and names */
	struct mct_buf	 tmp;
	int		 status;
	int		 partial;	/* -o partial */
	int		 merge;		/* --merge */
	int		 partial_in;	/* a partial was read as a trace */
	int		 align;		/* --align start (with --merge) */
	const char	*opt[MCT_RP_NOPT];	/* --key, --device, --rules */
};

/* ranks-measure.c */
void	 add(struct opts *, struct mct_event *);
struct rank *rank_add(struct opts *, int64_t);
int	 cmp_rank(const void *, const void *);
void	 measure(struct opts *);

/* ranks-report.c */
void	 report(struct opts *);

/* ranks-partial.c */
void	 partial_of(struct opts *, struct mct_rpart *);
int	 from_partials(struct opts *, int, char *[]);

#endif /* MCT_RANKS_H */
