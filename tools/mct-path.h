/*
 * mct-path.h - what mct-path.c (the command line and the output),
 * path-read.c (the events kept), path-graph.c (the graph and its
 * longest path), path-steps.c (--steps all, step by step; --step, its
 * window only), path-pick.c (--step's instances, the window), path-job.c
 * (--steps all's job's steps, by name across ranks), path-cset.c (its
 * sets of ids) and path-sub.c (a step's own events) share.
 */
#ifndef MCT_PATH_H
#define MCT_PATH_H

#define TABLE_FIELDS	"bound,crit,share,segments,top"
#define STEPS_FIELDS	"name,crit,crit_host,crit_kernel,crit_comm," \
			"crit_launch,crit_wait"
/* Work of fewer items than this is not worth a thread (the host edges of
   path-graph.c, the successor lists of path-long.c). */
#define PAR_MIN		32768

struct evindex;

#define MAXSCALE	32		/* (bits of struct pev's scm) */

/* What an event is to the graph. */
enum { K_NONE, K_OP, K_DEV, K_SYNC };

/* Names that mean something (flags). */
#define F_HOSTCALL	0x01	/* launches device work */
#define F_BLOCK		0x02	/* a blocking call: its own time is 0 */
#define F_DEVSYNC	0x04	/* ...DeviceSynchronize */
#define F_STRSYNC	0x08	/* ...StreamSynchronize */
#define F_RECORD	0x10	/* ...EventRecord */
#define F_COMM		0x20	/* communication (the rules' category) */
#define F_GRAPH		0x40	/* its nodes are in the graph */
#define F_LAUNCH	0x80	/* a call that launches work (by its name) */
#define F_STEP		0x100	/* a training step (ProfilerStep#N) */
#define F_DONE		0x200	/* a step analysed (path-steps.c) */
#define F_EVSYNC	0x400	/* ...EventSynchronize */
#define F_BACK		0x800	/* read back from the spool (path-steps.c) */

struct pev {
	int64_t		 ts, dur;
	long long	 seq;			/* place in the input */
	int32_t		 name, lane, corr;	/* interned; corr -1: none */
	int32_t		 wstream, rcorr;	/* cuda_sync: wait_on_stream's
						   lane, the record's corr */
	int32_t		 rk;			/* its rank's index in o->rank */
	uint32_t	 scm;			/* the --scale options it matched,
						   a bit each (path_factor()) */
	uint16_t	 fl;
	uint8_t		 kind;
};

/* Edge kinds, in the order ties between equal paths prefer them. */
enum { E_OP, E_DEP, E_DEV, E_LAUNCH, E_WAIT, E_SYNC, E_COLL };

struct edge {
	int32_t		 u, v;		/* nodes: 2 * event + (end) */
	int64_t		 w;
	int32_t		 att;		/* the event it belongs to, -1 */
	uint8_t		 kind;
};

/* Segment kinds (the output's "kind"). */
enum { S_HOST, S_KERNEL, S_COMM, S_LAUNCH, S_WAIT, S_SYNC, S_N };

struct scale {
	struct mct_expr	*e;
	double		 f;
};

#define NLANECACHE	8

/* A lane interned lately: its rank's index, pid and tid texts. */
struct lanecache {
	int32_t		 id1, rk;	/* the id + 1; 0: empty */
	size_t		 pl, tl;
	char		 pid[24], tid[40];
};

#define NNAMECACHE	8

/* A name interned lately: its JSON text. */
struct namecache {
	int32_t		 id1;		/* the id + 1; 0: empty */
	size_t		 len;
	char		 text[64];
};

/* A set of correlation ids: runs of integers per rank, other texts. */
struct ival {
	int32_t		 rk;
	int64_t		 lo, hi;
};

struct cset {
	struct ival	*v;
	size_t		 n, cap;
	struct mct_map	 other;
};

/*
 * --steps all's and --step's state (path-steps.c, path-job.c).
 */

/* A step's row, kept as numbers till the end (a few dozen bytes). */
struct row {
	int64_t		 ts, dur, crit, ns[S_N];
	long long	 seq;
	int32_t		 name;
	int32_t		 nrk;		/* the ranks that have it */
	int		 cycle;		/* no row */
};

struct window {
	int32_t		 rk;
	int64_t		 a, b;
};

/*
 * A rank's part of a job's step, past on its rank while other ranks
 * have yet to come past it (they come one after another, as operands):
 * its events let go to the spool at once, read back for the job's step.
 */
struct park {
	int32_t		 name, rk;
	int64_t		 end;
	off_t		 a, b;		/* in the spool */
};

/* --step: the earliest events of a name, by rank (a name's instance). */
struct cand {
	int64_t		 ts, dur;
	long long	 seq;
};

struct pick {
	const char	*text;		/* the name */
	size_t		 len;
	int32_t		 id;		/* its id in o->names, -1 not yet */
	long		 want;		/* the instance */
	struct cand	**c;		/* per rank: the first want, a heap
					   (path-pick.c) */
	size_t		*nc;
	int32_t		 nrk;
};

struct stepstate {
	int		 stream;	/* 0: the whole input kept */
	int		 one;		/* --step */
	struct pick	 pk[2];		/* NAME#N as a name, NAME's N-th */
	int		 npk;
	int32_t		 nnames;	/* o->names.n when the ids were looked
					   up */
	char		*namebuf;
	struct row	*row;
	size_t		 nrow;
	long long	 neg, nok, nos, noe;
	int32_t		 nexpect;	/* the ranks the operands name */
	char		*donename;	/* by name: a job's step done */
	int32_t		 ndonename;
	size_t		*grp;		/* the open steps (steps_groups()) */
	struct park	*park;		/* ranks' parts let go, by step */
	size_t		 npark;
	long long	 partial;	/* job's steps some ranks lack */
	/* per rank */
	int64_t		*maxts, *doneend, *skip;	/* skip: the latest op
						   let go */
	char		*hasmax, *hasdone, *hasskip, *hassync;
	int32_t		 nrk;
	struct window	*done, *open;
	size_t		 ndone, nopen;
	struct cset	 indone, away;	/* calls' ids: in a done step, let go */
	int32_t		*nhost, *ndev;	/* per correlation id in o->corrs */
	int32_t		 ncorr;
	FILE		*spool;		/* the events let go */
	char		*spoolvb;
	struct mct_buf	 rec;		/* an event's record in it */
	size_t		 since, lastn;	/* events since the last look, kept
					   then */
	struct evindex	*ix;		/* the events kept, indexed while they
					   stay put (path-sub.c), or NULL */
};

/* A correlation id that is a plain integer, of a rank. */
struct corrint {
	int64_t		 v;
	int32_t		 rk;
	int32_t		 id1;		/* the id + 1; 0: empty */
};

struct opts {
	struct mct_out	 out;
	const struct mct_header *hdr;
	int		 quiet, table, trace, only;
	FILE		*spool;		/* -o trace: the input's lines */
	FILE		*events;	/* --events (evname) */
	FILE		*again;		/* --steps median: the first reading's
					   runs of lines (mct-path.c) */
	char		*againvb;
	off_t		 againlen;
	const char	*evname;
	char		*spoolvb;
	const char	*fields;	/* -F as given, or the default */
	const char	*step;
	size_t		 steplen;	/* (a name may hold a NUL) */
	int		 steps;		/* --steps all */
	int		 median;	/* --steps median */
	size_t		 stepev;	/* with steps: the step analysed */
	int		 sub;		/* the events are a step's own, their
					   ids numbered anew, ncorr of them
					   (path-sub.c) */
	struct stepstate *ss;		/* --steps all's, --step's
					   (path-steps.c) */
	int64_t		 from, to;
	int		 has_from, has_to, from_rel, to_rel;
	struct scale	 sc[MAXSCALE];
	int		 nsc;
	/* the events */
	struct pev	*ev;
	size_t		 n, cap;
	long long	 seq;
	long long	 nx;		/* X events with a time read so far
					   (--steps median: from the first
					   reading's count on) */
	struct mct_strtab names, lanes, corrs;
	int32_t		 ncorr;		/* correlation ids (not --steps) */
	struct corrint	*ci;		/* (rank, integer) -> id, a hash */
	size_t		 nci, cicap;
	int		 cimix;		/* its ids crowded: every bit mixed */
	int32_t		*cgid;		/* by index in corrs: its id */
	size_t		 ncgid;
	struct lanecache lc[NLANECACHE];
	unsigned	 nextlc;
	struct namecache nc[NNAMECACHE];
	unsigned	 nextnc;
	uint16_t	*namefl;	/* per name: its F_* flags, 0xffff unknown */
	int32_t		 nnamefl;
	int64_t		*rank;		/* the ranks seen (-1: none), by index */
	int32_t		 nrank;
	char		*rksync;	/* by rank: a cuda_sync event seen */
	int32_t		 nrksync;
	struct mct_buf	 tmp;
	/* the graph */
	struct edge	*e;
	size_t		 ne, ecap;
	int		 eborrowed;	/* e lies in another's array: grown
					   elsewhere, never in place */
	long long	 negative, noedge, nokernel, nosrc;
	int		 unscaled;	/* --scale's factors not applied */
};

struct seg {
	int32_t		 att;
	int		 kind;
	int64_t		 ns;
};

struct path {
	struct seg	*s;
	size_t		 n;
	int64_t		 len;
	size_t		 nodes;
	char		*on;		/* per event: a node on the path */
	int32_t		*edge;		/* its edges (o->e), from the end back */
	size_t		 nedge;
	long long	 cycle;		/* nodes in a cycle */
};

/* The graph's nodes: the start and the end of event i. */
#define S(i)	((int32_t)(2 * (i)))
#define E(i)	((int32_t)(2 * (i) + 1))

void	 path_reserve(struct opts *, int);
double	 path_factor(const struct opts *, const struct pev *);
int	 path_want_lines(const struct opts *, int);
int	 path_edit(struct opts *, struct mct_reader *);
void	 path_take(struct opts *, struct mct_event *, int);
void	 path_again_drop(struct opts *);
int	 path_take_again(struct opts *, FILE *, const struct mct_header *);
int	 path_window(struct opts *, int64_t *, int64_t *, int *, int *);
void	 path_window_ends(const struct opts *, int64_t *, int64_t *);
int	 path_analyse(struct opts *, struct path *);
void	 path_longest(struct opts *, struct path *);
void	 path_edge(struct opts *, int32_t, int32_t, int64_t, int, int32_t);
void	 path_collectives(struct opts *);
void	 path_sort_near(void *, size_t, size_t,
	    int (*)(const void *, const void *));
size_t	*path_by_lane(const struct opts *, void *, size_t, size_t,
	    int32_t (*)(const struct opts *, const void *));
void	 path_free(struct path *);
int	 cset_has(const struct cset *, const char *);
void	 cset_add(struct cset *, const char *);
void	 cset_free(struct cset *);
int	 path_stepwise(const struct opts *);
void	 steps_begin(struct opts *);
void	 steps_add(struct opts *, size_t);
int	 steps_end(struct opts *, char **, size_t *);
void	 step_end(struct opts *);
/* What an event is to the steps: in no graph, in a window by its start,
   by its call's */
enum { R_NONE, R_TIME, R_CORR };
int	 steps_route(const struct pev *);
void	 steps_row(struct opts *, const size_t *, size_t, struct stepstate *);
void	 steps_done(struct opts *, struct stepstate *, size_t);
int	 steps_launched(const struct opts *, const struct stepstate *,
	    const struct pev *);
void	 steps_let_go(struct opts *, struct stepstate *, const struct pev *);
void	 steps_skipped(struct opts *, struct stepstate *, const struct pev *);
int32_t	 steps_get_text(struct opts *, struct stepstate *);
void	 steps_push(struct opts *, const struct pev *);
int	 steps_cmp_seq(const void *, const void *);
void	 steps_grow_corrs(struct opts *, struct stepstate *);
void	 steps_give_up(struct opts *, struct stepstate *);
int	 steps_groups(struct opts *, struct stepstate *, int);
void	 picks_begin(struct opts *, struct stepstate *);
int	 picks_cand(const struct stepstate *, const struct pev *);
void	 picks_windows(struct stepstate *);
int	 picks_add(struct opts *, struct stepstate *, const struct pev *);
ssize_t	 steps_parked(const struct stepstate *, int32_t, int32_t);
int32_t	 steps_ranks(const struct mct_header *);
int	 cmp_coll(const void *, const void *, void *);
int	 steps_analyse(struct opts *, struct stepstate *, struct path *);
const size_t *steps_in_window(struct opts *, struct stepstate *, int32_t,
	    int64_t, int64_t, size_t *);
size_t	 steps_firsts(struct opts *, struct stepstate *, int32_t, size_t *);
void	 steps_unindex(struct stepstate *);

#endif /* MCT_PATH_H */
