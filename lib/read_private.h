/*
 * read_private.h - what the files of the reader share and nothing else
 * sees: its structs, its constants, and the functions one of its files
 * gives the others (each named after its file: frame_ in read_frame.c,
 * and so on; read_ ones are inline here).  The tools and the rest of lib
 * see the reader through lib/mct.h only.
 *
 * The files, each calling only those below it (tests/house.bats checks
 * that no circle forms):
 *
 *   reader.c        the face: mct_open(), mct_next(), mct_close(); pass
 *                   1 of each operand, pass 2 alone; it feeds merge.c
 *                   and pairbe.c (struct mct_feed), which do not call it
 *   read_pass2.c    pass 2 by threads: chunks framed again or converted
 *   read_parts.c    pass 1 of a big plain file by threads, in parts
 *   read_blocks.c   pass 1 of a stream of bytes (gzip, a pipe) by
 *                   threads, in blocks, times converted from a guess
 *   read_header.c   what the header says: a stream operand's header read,
 *                   the unit and origin decided, ranks, the header line
 *   read_frame.c    the framer: trace JSON to events, one at a time, and
 *                   the facts it learns of them
 *   read_edit.c     an event's line edited: times to ns, rank and shift
 *   read_spool.c    the spool of event lines, and of big top-level values
 *   read_bytes.c    a buffer of a source's bytes, and its errors said
 */
#ifndef READ_PRIVATE_H
#define READ_PRIVATE_H

#include <sys/uio.h>

#include <string.h>

#include "mct_private.h"

typedef mct_i128 i128;

#define RBUF	(256 * 1024)	/* bytes a buffer of input reads at first */
#define MAX_PARTS	8	/* threads framing one operand */
#define CONTEXT	4096		/* bytes kept before, for frame_resync() */

/* A buffer of input bytes, and where it stands in the source. */
struct rbuf {
	char		*p;
	size_t		 cap, pos, end;
	unsigned long long base;	/* source offset of p[0] */
	int		 eof;
};

/*
 * Pass 1 saw an event start here: pass 2 may start framing here too.
 * What pass 1 saw of the chunk from here to the next ckpt may spare pass
 * 2 the framing: only events and separators between them, and each event
 * plain (mct_scan's: only whitespace to drop), or flat (plain, no
 * whitespace to drop, and a line end before the next event).
 */
enum { CK_FRAME, CK_PLAIN, CK_FLAT };

struct ckpt {
	long long	 off;
	int		 state;		/* the framer's, before the event */
	int		 kind;		/* of the chunk from here: CK_* */
	int		 conv;		/* a spool chunk's lines are converted to
					   ns already, from read_guess_unit() */
	unsigned long long nev;		/* the events before it */
};

/*
 * What pass 1 learns of the events of a trace operand, or of one part of
 * it that a thread frames (frame_merge() adds a part's to the operand's).
 */
#define SAY_MAX		20	/* damaged places said an operand, then a count */

struct facts {
	unsigned long long nevents;
	int		 form;		/* 'o'bject, 'a'rray, 'n'djson; 0: not yet */
	struct mct_buf	 top;		/* top-level keys: "k":v,... */
	int		 ntop_before;	/* how many of them came before traceEvents */
	int		 anyfrac, anycoid, anyodd;
	int		 anyrankish;	/* an event's line may have a rank key */
	int		 seen_ts, unsorted;
	i128		 first_e6, last_e6;	/* the first and the last ts */
	int		 has_min;
	i128		 min_e6;	/* the smallest ts, M events aside */
	char		 min_text[64];	/* as written */
	int		 damaged;	/* damage was noted */
	long long	 nsaid;		/* places of damage said, and more not */
	long long	 nunsaid;
	int		 notrace;	/* it began with neither '{' nor '[' */
	int		 has_mark;	/* --align NAME: its first event */
	i128		 mark_e6;
	char		 mark_text[64];
	struct mct_bigtop *big;		/* top-level values over the limit */
	int		 nbig;
	int		 bigtop;	/* a thread's part met one: frame alone */
	int		 ntop;		/* keys in top */
	struct mct_buf	 dropped;	/* a stream header's top_dropped */
	struct ckpt	*cp;		/* an event start every chunk bytes */
	int		 ncp, cpcap;
	int		 kind;		/* of the chunk since the last ckpt, so far */
	int		 endgap;	/* where it stopped: the gap's CK_* */
	long long	 first_ev;	/* where its first event starts */
	int		 manytimes;	/* an event has 3 ts/dur numbers or more */
	int		 guessed;	/* a chunk of spool lines has ckpt.conv */
};

/*
 * The framer of one byte stream: where it stands and its state between
 * events, and its scratch.  It is all a thread needs to frame a part.
 */
struct framer {
	struct mct_reader *r;		/* says damage there; NULL: a thread's part */
	struct mct_src	*src;		/* the bytes (borrowed) */
	const char	*name;		/* for messages */
	struct facts	*fx;		/* what it learns goes there */
	struct rbuf	 rb;
	int		 state, nosep, begun;	/* between events; zero to start */
	int		 check;		/* pass 1 of a plain file: check, copy nothing */
	int		 again;		/* pass 2: framing again, the facts are known */
	int		 index;		/* pass 2: index each event's keys as it is
					   scanned (a merge looks up its ts) */
	int		 quiet;		/* say nothing of damage, only note it */
	long long	 topmax;	/* a top-level value's size limit, -1: none */
	/* a part of a file framed by a thread: stop at the next one's start */
	long long	 stop;		/* -1: read to the end */
	int		 gap;		/* before the event framed last: CK_FLAT
					   (separators and a line end), CK_PLAIN
					   (separators), CK_FRAME (anything) */
	long long	 stopped_at;	/* where the framer stopped, -1: the end */
	int		 stop_state, stop_sep;
	int		 nparts;	/* of the first part: how many in all */
	long long	*pdone;		/* and the bytes of the others framed */
	const char	*mark;		/* --align NAME: note its first event */
	long long	 chunk;		/* pass 1: note a ckpt every chunk bytes */
	long long	 spooled;	/* bytes of the operand's spool lines */
	unsigned long long evoff;	/* where the event framed last starts */
	struct held	*held;		/* bytes to read first, then src */
	struct mct_scan	 sc;		/* the event being framed */
	struct mct_buf	 out;		/* its compact copy */
	/*
	 * A block's thread keeps its events in out, a line each, where
	 * they were framed (no copy): keep is the bytes of those lines,
	 * the event being framed comes after them.
	 */
	int		 inlines;
	size_t		 keep;
};

/*
 * Bytes read ahead of a framer's source (by the block threads of
 * read_blocks.c), to be framed before the source's next ones: n pieces,
 * in order.
 */
struct held {
	struct iovec	*iov;
	int		 n, i;		/* pieces; the one being read */
	size_t		 off;		/* how far into it */
	int		 srcerr;	/* then: the source's last read failed */
};

/* Where pass 2 stands in an operand. */
struct readpos {
	int		 started;	/* its lines have begun to be read */
	unsigned long long line;	/* events (lines of a stream) handed out */
	long long	 spool_from, spool_to;	/* its lines in the spool */
	long long	 length;	/* a plain file: the bytes pass 1 read */
	struct rbuf	 rb;		/* a stream operand's bytes */
	long long	 toobig;	/* ts/dur values beyond int64 ns */
	int		 toobig_said;	/* those told (SAY_MAX at most) */
};

/* One operand. */
struct input {
	struct mct_source *s;		/* its public facts: r->src[i] */
	struct mct_src	*src;		/* the bytes, while open */
	int		 stream;	/* an mct stream: read directly */
	int		 direct;	/* a plain file: pass 2 frames it again */
	int		 convert;	/* rewrite ts/dur to ns in pass 2 */
	int		 addrank;	/* append its rank to each event (ADD_*) */
	struct facts	 fx;
	struct framer	 fr;
	struct readpos	 rp;
	/* the header line of a stream operand, and its unit_from */
	struct mct_buf	 hline, whybuf;
	struct mct_buf	 rankfrom;	/* a stream's one rank's rule */
	struct mct_buf	 ranklist;	/* a stream's header's ranks, [ ] off */
	struct pass2	*p2;		/* a plain file's pass 2 by threads */
	/*
	 * times beyond int64 ns pass 1 converted (left as written): pass 2
	 * says the first SAY_MAX, with its events, and counts the others
	 */
	int		 nbigsay;
	unsigned long long bigat[SAY_MAX];	/* its event, from 1 */
	size_t		 bigend[SAY_MAX];	/* where its text in big ends */
	struct mct_buf	 big;
	long long	 nbigmore;
	struct facts	 fx2;		/* pass 2's, framing a file again alone */
};

/*
 * input.addrank: a trace's rank given by --rank=N or --rank=order goes on
 * every line, in place of a rank key the line has; a trace's rank by the
 * rules, and a stream of one rank (a trace read alone says its rank in
 * the header only) read with other operands, go on the lines that lack
 * one (mct(7), Ranks: an event's own rank comes before its operand's).
 */
enum { ADD_NONE, ADD_ALL, ADD_MISSING };

/* Where the ts and dur values of an event are, to be converted. */
struct span {
	size_t		 off, len;
};

/*
 * Scratch of edit_spans(), and of a thread's edit of a line: with the
 * editor's context of that thread (edit_line(), edit_end()).
 */
struct spans {
	struct span	*sp;
	int		 cap;
	struct mct_kv	*kv;
	int		 kvcap;
	struct mct_buf	 line;
	void		*ectx;
	int		 ehas;		/* ectx was made: end it */
};

struct mct_reader {
	struct mct_opts	 opts;
	struct input	*in;
	struct mct_source *src;		/* the operands' facts, for the header */
	int		 nin, cur;
	int		 spool;
	char		*spoolname;
	FILE		*spoolf;
	char		*spoolvb;	/* its buffer */
	int		 spoolbad;	/* it could not be written or read */
	FILE		*topf;		/* big top-level values (struct mct_bigtop) */
	char		*topvb;
	struct rbuf	 srb;		/* reading the spool back */
	long long	 spool_pos;
	struct mct_header hdr;
	struct mct_event ev;
	struct mct_buf	 conv;
	struct spans	 spans;
	struct mct_buf	 rline;		/* an event with its rank */
	int		 fatal;		/* nothing to read (duplicate ranks, no spool) */
	int		 status;
	double		 last_progress;
	const struct mct_editor *edit;	/* mct_edit(): &editor, or NULL */
	struct mct_editor editor;
	void		*edit_arg;
	struct mct_buf	 eline;		/* an event edited in this thread */
	/* what mct_next() hands out (the last two fed by feed_next()) */
	enum { NEXT_EVENTS, NEXT_LINES, NEXT_MERGED, NEXT_PAIRED } how;
	int		 merging;	/* merged: 1, 2 once open (first mct_next()) */
	struct mct_merge *merge;	/* then: mct_opts.order */
	struct mct_pairbe *pairbe;	/* mct_opts.pair_be */
	struct mct_feed	 feed;		/* their events */
	char		*turns;		/* feed.turns */
};

/* The framer's state between events. */
enum { S_TOP, S_ARRAY, S_AFTER };

/* read_bytes.c */
ssize_t	 bytes_refill(struct rbuf *, ssize_t (*)(void *, char *, size_t),
	    void *);
ssize_t	 bytes_src_rd(void *, char *, size_t);
void	 bytes_src_error(struct mct_reader *, const char *, struct mct_src *,
	    struct facts *);

/* read_spool.c */
int	 spool_make(struct mct_reader *);
void	 spool_failed(struct mct_reader *);
long long spool_at(struct mct_reader *);
ssize_t	 spool_rd(void *, char *, size_t);
size_t	 spool_read(int, char *, long long, size_t);
int	 spool_top(struct mct_reader *, struct facts *, const char *, size_t,
	    size_t, int);

/* read_edit.c */
void	 edit_span_room(struct spans *, int);
int	 edit_spans(const struct mct_scan *, const char *, size_t,
	    struct spans *, int);
void	 edit_spans_free(struct spans *);
void	 edit_line(const struct mct_reader *, struct spans *, const char *,
	    size_t, struct mct_event *, struct mct_buf *);
void	 edit_end(const struct mct_reader *, struct spans *);
int	 edit_put_times(struct mct_buf *, const char *, size_t,
	    const struct span *, int, enum mct_unit, int, struct span *);
int	 edit_bad_spans(const char *, const struct span *, int,
	    enum mct_unit, int *, int);
void	 edit_too_big(struct mct_reader *, struct input *, unsigned long long,
	    const char *, size_t, int);
void	 edit_too_big_end(const struct input *);
void	 edit_convert(struct mct_reader *, struct input *,
	    const struct mct_scan *);
void	 edit_rank(struct mct_reader *, struct input *);

/* read_frame.c */
int	 frame_next(struct framer *);
void	 frame_emit(struct framer *);
void	 frame_progress(struct framer *, int);
void	 frame_said(const struct framer *);
size_t	 frame_resync(const struct rbuf *, size_t, int *);
void	 frame_reset(struct framer *);
void	 frame_restart(struct input *);
void	 frame_ckpt(struct facts *, long long, int, int);
void	 frame_merge(struct facts *, const struct facts *);
void	 frame_facts_free(struct facts *);

/* read_header.c */
int	 header_probe(struct mct_reader *, struct input *);
void	 header_read(struct input *);
void	 header_decide_unit(struct mct_reader *, struct input *);
void	 header_publish(struct input *);
void	 header_decide_ranks(struct mct_reader *);
void	 header_make(struct mct_reader *);

/* read_parts.c */
int	 parts_frame(struct input *);

/* read_blocks.c */
int	 blocks_frame(struct mct_reader *, struct input *);

/* read_pass2.c */
void	 pass2_start(struct mct_reader *, struct input *, int);
int	 pass2_next(struct mct_reader *, struct input *);
void	 pass2_free(struct input *);
int	 pass2_lines(struct mct_reader *, const char **, size_t *);
int	 pass2_send(struct mct_reader *);

/* The next newline in the buffer, or NULL. */
static inline char *
read_find_nl(const struct rbuf *b)
{
	return b->end > b->pos ? memchr(b->p + b->pos, '\n', b->end - b->pos) :
	    NULL;
}

/* A time edit_put_times() converts: a number (not null, not a string). */
static inline int
read_is_time(const char *v, size_t n)
{
	return n > 0 && (*v == '-' || (*v >= '0' && *v <= '9'));
}

/*
 * The unit the block threads convert times from before pass 1 ends:
 * --unit's, else us (read_blocks.c says why).
 */
static inline enum mct_unit
read_guess_unit(const struct mct_reader *r)
{
	return r->opts.unit == MCT_UNIT_AUTO ? MCT_UNIT_US : r->opts.unit;
}

/* The event r->ev anew: text, and where it came from. */
static inline void
read_event_at(struct mct_reader *r, struct input *in, const char *json,
    size_t len)
{
	struct mct_event *ev = &r->ev;

	memset(ev, 0, offsetof(struct mct_event, kv));
	ev->json = json;
	ev->len = len;
	ev->file = in->s->name;
	ev->source = r->cur;
	ev->hdr = &r->hdr;
}

/* Is this line an mct stream's header?  (mct_src_kind()'s test.) */
static inline int
read_is_header_line(const char *p, size_t n)
{
	return mct_header_line(p, n);
}

#endif /* READ_PRIVATE_H */
