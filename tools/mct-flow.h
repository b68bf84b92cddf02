/*
 * mct-flow.h - what mct-flow.c (the command line, the pairing) and
 * flow-tables.c (--idle and --queue: the tables made of the pairs) share.
 */
#ifndef MCT_FLOW_H
#define MCT_FLOW_H

enum { FT_PAIRS = 0, FT_IDLE, FT_QUEUE };

/* The tables' options (mct-flow.c's own are numbered below these). */
enum { FT_OPT_IDLE = MCT_OPT_TOOL + 64, FT_OPT_QUEUE, FT_OPT_KWAIT,
    FT_OPT_LIMIT };

/* A pair as the tables need it: its stream, device start and end, launch. */
struct ftpair {
	int32_t		 stream;
	int64_t		 ts, end, lts;
};

/* A device stream: its rank (if it has one), pid and tid as JSON text. */
struct ftstream {
	int		 hasrank;
	int64_t		 rank;
	int32_t		 pid, tid;	/* in txt */
};

struct ftab {
	int		 mode;		/* FT_PAIRS: no table */
	int64_t		 kwait;		/* --kernel-wait */
	long long	 limit;		/* --queue-limit */
	struct mct_strtab st;		/* stream keys: numbers 0 .. ns */
	struct mct_strtab txt;		/* their pids and tids */
	struct ftstream	*s;		/* by stream number */
	int32_t		 ns;
	struct ftpair	*p;
	size_t		 np;
	struct mct_buf	 key;
};

int	 ftab_option(struct ftab *, int, const char *);
void	 ftab_check(const struct ftab *, const char *, enum mct_ofmt);
void	 ftab_add(struct ftab *, struct mct_event *, const struct mct_header *);
void	 ftab_report(struct ftab *, struct mct_out *, const struct mct_header *,
	    int);
void	 ftab_free(struct ftab *);

#endif
