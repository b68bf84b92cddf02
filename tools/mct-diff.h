/*
 * mct-diff.h - what the files of mct-diff share and nothing else sees:
 * the state of a run (struct opts) and the functions one of its files
 * gives the others.  The files are listed in mct-diff.c.
 */
#ifndef MCT_DIFF_H
#define MCT_DIFF_H

#define EXIT_FAIL	3	/* a row met --fail-if */

enum { STEP_N = 1, STEP_MEDIAN };

/* A cell's number: an exact integer, else a double; or none. */
struct num {
	int		 null;
	int		 isint;
	int64_t		 i;
	double		 d;
};

/* The columns of a row, after its key, in the order of mct-diff(1), Rows. */
enum { C_COUNT_A, C_COUNT_B, C_TOTAL_A, C_TOTAL_B, C_TOTAL_DELTA, C_TOTAL_PCT,
    C_MEDIAN_A, C_MEDIAN_B, C_MEDIAN_DELTA, C_MEDIAN_PCT, NCOL };


struct row {
	struct mct_group *g[2];		/* its group in A and in B, or NULL */
	struct num	 c[NCOL];
	int		 only;		/* 'a', 'b', or 0: in both */
};

/* --step: the pairs of one step, until the step is chosen. */
struct rheld;

struct steptab {
	int64_t		 n;
	struct mct_gtab	 t;
};

/* One run: an operand read into a table. */
struct run {
	const char	*path;
	const char	*name;		/* for messages */
	struct mct_gtab	 t;
	struct mct_runsum rs;
	int		 partial;	/* read from a partial: no summary */
	struct mct_pspec ps;
	int		 has_origin;
	int64_t		 origin;
	char		 what[64];	/* --by, for the warning of a field no
					   event had */
	long long	 events;	/* read, but metadata */
	struct steptab	*st;		/* --step: a table per step */
	size_t		 nst;
	struct mct_stepof *so;		/* --step: the rounds, if no steps */
	struct rheld	*held;		/* --step: pairs of no step, for them */
	size_t		 nheld;
	struct mct_buf	 heldlines;
};

struct opts {
	struct mct_field *by;
	int		 nby;
	struct mct_field value;
	int		 vtime;		/* the value is a time */
	const char	*by_text, *value_text;
	int		 device;	/* --device: only device work */
	long		 top;
	int64_t		 min_delta;	/* --min-delta, or -1 */
	struct mct_expr	*fail;		/* --fail-if */
	struct mct_out	 out;
	struct mct_method m;
	size_t		 limit;		/* values kept per group of a partial */
	struct run	 run[2];
	struct row	*row;
	size_t		 nrow;
	struct mct_header hdr;		/* of the output */
	int		 stack;		/* --by a field of the launch's stack */
	int		 step;		/* --step: STEP_N, STEP_MEDIAN, or 0 */
	int64_t		 stepn;		/* --step N */
	const char	*stepname;	/* --step-name, or NULL */
	struct mct_buf	 kbuf, line, fold, fkey;
};

/* diff-read.c */
int	 is_partial(const char *);
int	 read_partial(struct opts *, struct run *);
int	 stack_by(const struct opts *);
int	 read_events(struct opts *, struct run *, const struct mct_opts *);

/* diff-report.c */
void	 rows(struct opts *);
void	 table(struct opts *);
void	 summary_json(struct opts *);
void	 summary_table(struct opts *);
int	 gate(struct opts *);
void	 known(const struct mct_field *, void *);
void	 out_header(struct opts *);

#endif /* MCT_DIFF_H */
