/*
 * mct.h - the whole interface of libmct, the library under every mct tool.
 *
 * Data flow.  A tool opens its operands with mct_open().  Bytes come from
 * input.c (a file or stdin, gzip or not), which keeps what goes wrong as
 * data for the reader to say in order.  Trace files (Object or Array
 * form, NDJSON without a header) are read once by the framer in
 * reader.c, which compacts every event to one line and writes it to an
 * unlinked spool file (a plain file is framed again instead) while it
 * learns each operand's facts (unit, origin, top-level keys, form,
 * order).  Inputs that already are an mct stream (first line is the
 * header) give their facts in that line and are read directly.  Every
 * operand's facts are a struct mct_source in the header (hdr->src); the
 * header's own fields and line are those of the run.  mct_next(), the
 * one way to get an event, then hands out one event at a time, with
 * ts/dur in integer nanoseconds and the index of its operand
 * (ev->source): operand after operand, or all in one ts order
 * (mct_opts.order: merge.c), B/E pairs made X events or not
 * (mct_opts.pair_be: pairbe.c), as the reader was opened.  A tool that
 * reads only the events' lines says so (mct_opts.want): the reader then
 * hands out, where it can, the rest of a chunk of lines pass 2's threads
 * made whole as one event, and writes the spool's lines pass 1 left final
 * to stdout by the kernel for a tool that copies them there.  A reader
 * keeps all its state in itself: a tool can have two open at once.
 *
 * Ownership, one rule: the reader owns every event.  A tool borrows the
 * event it is given until its next call to mct_next(); whatever it keeps
 * it copies into its own small structs.  Strings returned by field access
 * point into the event and live as long as it does.
 *
 * Fields.  A field is a path into the event or a virtual field; field.c
 * holds the one table of both kinds' special meanings (virtual fields with
 * their getters, record keys that are times).  Calls go one way: field.c
 * calls nothing above it, expr.c calls field.c, and rules.c calls both
 * and registers the getter of the virtual field category in the table.
 *
 * Every exported name starts with mct_ and is declared here, under the
 * heading of the file that defines it, or, if only lib's own files use
 * it, in lib/mct_private.h, laid out the same way.  The sections run
 * from the bottom up: memory, maps, JSON values and times; sources and
 * the reader; fields, expressions and what an event is; writing and the
 * command line; statistics, group tables and their partials; launches
 * and their device work; phases, runs and ranks; metric logs.  Library
 * functions report problems on stderr (warnx) and return a status; only
 * tools exit (and mct_nomem(), when memory runs out).
 */
#ifndef MCT_H
#define MCT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/types.h>

/* Exact wide integers for decimal arithmetic (GCC and Clang). */
__extension__ typedef __int128 mct_i128;

/* Exit statuses shared by every tool (mct(7), EXIT STATUS). */
#define MCT_EXIT_OK	0	/* success */
#define MCT_EXIT_DAMAGED 1	/* damaged input; every intact event was processed */
#define MCT_EXIT_USAGE	2	/* usage error, or a file that cannot be read */

/*
 * util.c - memory, growable buffers, statuses, threads, the end of main().
 */
struct mct_buf {
	char	*p;
	size_t	 len;
	size_t	 cap;
};

void	 mct_nomem(const char *) __attribute__((noreturn));
void	 mct_cutoff_arm(void);
int	 mct_cutoff_armed(void);
void	*mct_xmalloc(size_t);
void	*mct_xrealloc(void *, size_t);
void	*mct_xgrow(void *, size_t, size_t);
char	*mct_xstrdup(const char *);
void	 mct_buf_grow(struct mct_buf *, size_t);
void	 mct_buf_add(struct mct_buf *, const void *, size_t);
void	 mct_buf_adds(struct mct_buf *, const char *);
void	 mct_buf_addc(struct mct_buf *, int);
void	 mct_buf_addi(struct mct_buf *, int64_t);
size_t	 mct_i64(char *, int64_t);
void	 mct_buf_addjstr(struct mct_buf *, const char *, size_t);
void	 mct_buf_free(struct mct_buf *);
void	 mct_sort(void *, size_t, size_t, int (*)(const void *, const void *));

/*
 * a + b, held at the int64 bounds instead of overflowing (inline: sums
 * of times in the tools' inner loops, mct-path's longest path among them)
 */
static inline int64_t
mct_sat_add(int64_t a, int64_t b)
{
	int64_t r;

	if (__builtin_add_overflow(a, b, &r))
		return b > 0 ? INT64_MAX : INT64_MIN;
	return r;
}

/*
 * a - b, held at the int64 bounds likewise: the span from a start to an
 * end, each a time of the trace but too far apart for their difference
 */
static inline int64_t
mct_sat_sub(int64_t a, int64_t b)
{
	int64_t r;

	if (__builtin_sub_overflow(a, b, &r))
		return b < 0 ? INT64_MAX : INT64_MIN;
	return r;
}
void	 mct_sort_i64(int64_t *, size_t);
void	 mct_sort_r(void *, size_t, size_t,
	    int (*)(const void *, const void *, void *), void *);
FILE	*mct_tmpfile(char **, char **);
int	 mct_write_all(FILE *, const void *, size_t);
void	 mct_write(const void *, size_t);
int	 mct_status(int, int);
int	 mct_finish(int);
int	 mct_thread(pthread_t *, const char *, void *(*)(void *), void *,
	    int);

/*
 * table.c - the one hash map: byte-string keys (NUL bytes allowed),
 * copied into the map, to a value; interned strings on it.
 */
struct mct_mapent {
	char		*key;		/* the map's copy, NUL after it: read only */
	uint32_t	 len;
	uint32_t	 hash;		/* private */
	union {
		void	*p;
		int64_t	 i;
		uint32_t u[2];
	}		 val;		/* the caller's, zero when made */
};

struct mct_mapslot;

#define MCT_MAP_NFREE	32

struct mct_map {
	struct mct_mapent *ent;		/* in the order the keys came */
	size_t		 nent;		/* ent used, removed keys' holes too */
	size_t		 n;		/* keys */
	size_t		 extra;		/* set before the first key: bytes of the
					   caller's before each key, zeroed, at
					   val.p; they go with the key */
	/* private */
	struct mct_mapslot *slot;	/* the index over ent */
	size_t		 nslot;
	char		*chunk, *cut, *cutend;	/* where keys are copied */
	void		*kfree[MCT_MAP_NFREE];	/* removed keys' room, by size */
};

uint64_t mct_hash(const void *, size_t);
struct mct_mapent *mct_map_find(const struct mct_map *, const void *, size_t);
struct mct_mapent *mct_map_add(struct mct_map *, const void *, size_t, int *);
void	 mct_map_del(struct mct_map *, struct mct_mapent *);
struct mct_mapent *mct_map_next(const struct mct_map *, size_t *);
void	 mct_map_free(struct mct_map *);

struct mct_strtab {
	const char	**str;		/* the strings, by index */
	int32_t		 n, cap;
	struct mct_map	 map;		/* text -> index */
};

int32_t	 mct_intern(struct mct_strtab *, const char *, size_t);
int32_t	 mct_intern_one(struct mct_strtab *, const char *, size_t);
size_t	 mct_strtab_len(const struct mct_strtab *, int32_t);
void	 mct_strtab_free(struct mct_strtab *);

/*
 * json.c - compact JSON known to be valid (the spool's and an mct
 * stream's lines): a value's type and text, a string's text; field
 * access (field.c) is built on these.
 */
enum mct_jtype {
	MCT_J_NONE = 0,		/* missing */
	MCT_J_NULL,
	MCT_J_BOOL,
	MCT_J_NUMBER,
	MCT_J_STRING,		/* span includes the quotes */
	MCT_J_ARRAY,
	MCT_J_OBJECT
};

struct mct_val {
	enum mct_jtype	 type;
	const char	*p;	/* the value's JSON text */
	size_t		 len;
};

int	 mct_jstr(const struct mct_val *, struct mct_buf *);
int	 mct_jstr_eq(const struct mct_val *, const char *, size_t);
int	 mct_jcanon(const char *, size_t, struct mct_buf *);
int	 mct_jstr_prefix(const struct mct_val *, const char *, size_t);

/*
 * time.c - int64 nanoseconds, exactly from decimal text.
 */
/*
 * A time that sums and differences of two cannot overflow: |t| < 2^62 ns
 * (146 years).  Tools that add or subtract times take only these.
 */
#define MCT_SANE_NS(t)	((t) > -(INT64_C(1) << 62) && (t) < (INT64_C(1) << 62))

enum mct_unit { MCT_UNIT_AUTO = 0, MCT_UNIT_NS, MCT_UNIT_US, MCT_UNIT_MS, MCT_UNIT_S };

int	 mct_dec_e6(const char *, size_t, mct_i128 *);
int	 mct_dec_ns(const char *, size_t, enum mct_unit, int64_t *);
size_t	 mct_ns_text(char *, const char *, size_t, enum mct_unit);
int	 mct_e6_ns(mct_i128, enum mct_unit, int64_t *);
int	 mct_int(const char *, size_t, int64_t *);
int	 mct_parse_unit(const char *, enum mct_unit *);
const char *mct_unit_name(enum mct_unit);
int64_t	 mct_unit_ns(enum mct_unit);
int	 mct_parse_time(const char *, int64_t *, int *);
int	 mct_parse_dur(const char *, int64_t *);
size_t	 mct_fmt_dec(char *, int64_t, int64_t);
size_t	 mct_fmt_human(char *, double);
size_t	 mct_fmt_count(char *, int64_t);
size_t	 mct_fmt_bytes(char *, size_t, double, const int64_t *);
size_t	 mct_fmt_double(char *, double);
size_t	 mct_fmt_e6(char *, int64_t);

/*
 * input.c - byte sources: a file or standard input, gzip or plain.
 */
struct mct_src;

/*
 * Nothing here prints: an error (a file that cannot be opened, a read
 * error, damaged gzip data) is kept by the source until the reader takes
 * it with mct_src_error() and says it, in order with its own messages.
 */
struct mct_src	*mct_src_open(const char *);
int		 mct_src_failed(const struct mct_src *);
const char	*mct_src_error(struct mct_src *, long long *);
const char	*mct_src_name(const struct mct_src *);
long long	 mct_src_size(const struct mct_src *);
long long	 mct_src_pos(const struct mct_src *);
ssize_t		 mct_src_read(struct mct_src *, char *, size_t);
int		 mct_src_close(struct mct_src *);

/*
 * The kind of an input, by its first bytes (mct_src_kind()): a trace
 * (Object form or NDJSON events, Array form), an mct stream, a partial
 * of mct-group or of mct-ranks, a metric log (not JSON: CSV or TSV).
 */
enum {
	MCT_KIND_MORE = -1,	/* not known yet: give it more bytes */
	MCT_KIND_EMPTY,		/* nothing, or only space */
	MCT_KIND_OBJECT,	/* JSON that begins with '{' */
	MCT_KIND_ARRAY,		/* JSON that begins with '[' */
	MCT_KIND_STREAM,	/* an mct stream: the header line first */
	MCT_KIND_PARTIAL,	/* mct-group -o partial */
	MCT_KIND_RANKS_PARTIAL,	/* mct-ranks -o partial */
	MCT_KIND_LOG		/* not JSON: a CSV or TSV metric log */
};
#define MCT_KIND_BYTES	64	/* enough to tell any kind */

int		 mct_src_kind(const char *, size_t, int);
ssize_t		 mct_src_head(const char *, char *, size_t);

/*
 * Does the line at p begin as an mct stream's header?  mct_src_kind()'s
 * first test, inline for the reader, which asks it of every stream line.
 */
#define MCT_HEADER_NAME	"mct_header"
#define MCT_HEADER_TAG	"{\"name\":\"" MCT_HEADER_NAME "\""

static inline int
mct_header_line(const char *p, size_t n)
{
	return n >= sizeof(MCT_HEADER_TAG) - 1 &&
	    __builtin_memcmp(p, MCT_HEADER_TAG, sizeof(MCT_HEADER_TAG) - 1) == 0;
}

/*
 * The last line of a stream its writer could not finish (an error after
 * its header was out): every reader of the stream reports it.
 */
#define MCT_CUT_LINE	"{\"name\":\"mct_cut\",\"ph\":\"M\",\"args\":{}}"

static inline int
mct_cut_line(const char *p, size_t n)
{
	return n == sizeof(MCT_CUT_LINE) - 1 &&
	    __builtin_memcmp(p, MCT_CUT_LINE, n) == 0;
}

/*
 * reader.c - operands in, events out (see the top of this file).  The
 * files under it, read_*.c, are the reader's too (lib/read_private.h):
 * what they export is declared here.
 */
/*
 * What the reader knows of a trace when mct_open() returns: of each
 * operand (mct_source.facts), and of the run (mct_header.facts: the first
 * readable operand's, but the origin, the smallest of all after their
 * shifts, and sorted, true for one sorted operand or --merge).  For a
 * trace, pass 1 learnt them; for an mct stream, its header line said
 * them.  The strings are the reader's.
 */
struct mct_facts {
	enum mct_unit	 unit;		/* its unit */
	const char	*why;		/* how the unit was chosen */
	int		 has_origin;
	int64_t		 origin;	/* smallest ts (ns), M events aside */
	int		 form;		/* 'o'bject, 'a'rray, 'n'djson */
	const char	*top;		/* its other top-level keys:
					   "k":v,... or NULL */
	int		 ntop_before;	/* how many came before traceEvents */
	int		 sorted;	/* its events in ts order */
	const struct mct_bigtop *big;	/* top-level values over the limit, */
	int		 nbig;		/* kept for --wrap (the header's: the
					   first operand's) */
};

/* What the reader knows of one operand (a source), and its rank. */
struct mct_source {
	const char	*path;		/* as given; "-" is standard input */
	const char	*name;		/* for messages: "(stdin)" for "-" */
	int		 ok;		/* it could be opened */
	int		 stream;	/* an mct stream (facts from its header) */
	struct mct_facts facts;		/* unit, origin, form, top-level keys */
	unsigned long long nevents;	/* events pass 1 framed (0 for a stream) */
	int		 damaged;	/* pass 1 found damage */
	/* ranks (mct(7), Ranks; rank.c decides them) */
	int64_t		 rank;		/* its rank, MCT_RANK_NONE if none */
	const char	*rank_from;	/* the rule: "distributedInfo", "file name",
					   "order", "option", or a stream's */
	int		 notrace;	/* not a trace at all: no rank */
	int		 ranks_inside;	/* a stream whose header lists ranks: its
					   lines carry their own rank key, or
					   (one rank) it is the source's */
	int64_t		 shift;		/* ns added to its ts (--align) */
	int		 has_mark;
	int64_t		 mark;		/* ts of its first event named --align NAME */
	const char	*dropped;	/* a stream's top_dropped: "k":n,... or NULL */
};

struct mct_header {
	struct mct_facts facts;		/* the run's */
	char		*line;		/* the header line itself, no newline */
	int		 nread;		/* operands that could be read */
	size_t		 linelen;
	const struct mct_source *src;	/* every operand's facts, in order */
	int		 nsrc;
	int		 ranked;	/* event lines carry a rank key */
	int		 bigfd;		/* the spool of facts.big: read with
					   mct_bigtop_value() */
};

struct mct_event {
	const char	*json;		/* one compact JSON object */
	size_t		 len;
	const char	*file;		/* for messages */
	const struct mct_header *hdr;	/* of the stream it came in */
	int		 source;	/* its operand: hdr->src[source] */
	unsigned long long where;	/* line number (stream) or byte offset */
	int		 byline;	/* where is a line number */
	/* private to json.c/reader.c: first-level keys, built on demand;
	   indexed 1, 2 if no backslash in it, 3 if not one object */
	int		 indexed, nkv;
	int		 wkdone;
	int8_t		 wk[9];		/* where the well-known keys are */
	/* private to rules.c: the event's rule, known while it is indexed
	   and rulegen is the rules' (0 wherever the index is made) */
	int		 rule;
	unsigned	 rulegen;
	struct mct_kv	*kv;		/* kept across events: reset nothing below */
	int		 kvcap;
};

/* --rank: when events get a rank key, and from what. */
enum mct_rankmode {
	MCT_RANK_AUTO = 0,	/* two trace operands or more: by the rules */
	MCT_RANK_RULES,		/* always, by the rules (--rank=auto) */
	MCT_RANK_ORDER,		/* always, the operand's position (--rank=order) */
	MCT_RANK_GIVEN		/* one operand, rank given (--rank=N) */
};

/* --align: how each rank's ts are shifted. */
enum mct_align { MCT_ALIGN_NONE = 0, MCT_ALIGN_START, MCT_ALIGN_NAME };

#define MCT_RANK_NONE	(-1)

/* In what order mct_next() hands out the operands' events. */
enum mct_read_order {
	MCT_ORDER_INPUT = 0,	/* operand after operand, each as it came */
	MCT_ORDER_TS,		/* --merge: all in one ts order (merge.c: ties
				   by rank, then input order), an operand's
				   own order checked; the header says sorted */
	MCT_ORDER_TS_UNSORTED	/* the same, but only where the header does
				   not say sorted (a stream's word taken),
				   and the header left as it is */
};

/* What of each event the tool reads. */
enum mct_want {
	MCT_WANT_EVENT = 0,	/* the event: its fields */
	MCT_WANT_LINE,		/* its line only, as it is (or as mct_edit()
				   makes it): an event may then be a run of
				   several whole lines, the last one's end at
				   json[len] */
	MCT_WANT_COPY		/* its line only, to be copied to stdout as it
				   is: as MCT_WANT_LINE, and the reader may
				   write runs of lines there itself, after
				   what stdio holds */
};

struct mct_opts {
	enum mct_unit	 unit;		/* --unit; AUTO detects */
	int		 progress;	/* show progress on a terminal */
	enum mct_rankmode rank;		/* --rank */
	int64_t		 rank_n;	/* --rank=N */
	enum mct_align	 align;		/* --align */
	const char	*align_name;	/* --align NAME: a glob on name */
	enum mct_read_order order;	/* --merge */
	int		 pair_be;	/* --pair-be: B/E pairs of a thread come as
					   X events (pairbe.c), in E order; the
					   header says not sorted */
	long long	 top_max;	/* --top-max: bytes of a top-level value in
					   the header; 0: MCT_TOP_MAX, -1: no limit */
	enum mct_want	 want;		/* what of each event the tool reads;
					   EVENT where the reader merges or pairs */
};

/*
 * A top-level value over the size limit: not in the header (which says
 * top_dropped), but kept in a spool of the reader's (struct mct_bigtop),
 * for --wrap.
 */
#define MCT_TOP_MAX	(64 * 1024)

struct mct_bigtop;

struct mct_reader;

struct mct_reader *mct_open(int, char **, const struct mct_opts *);
const struct mct_header *mct_header(const struct mct_reader *);
/* A copy of a header that says its events are not in ts order. */
void	 mct_header_unsorted(struct mct_header *, char **,
	    const struct mct_header *);
int	 mct_next(struct mct_reader *, struct mct_event **);
int	 mct_close(struct mct_reader *);
void	 mct_damage(const struct mct_event *, const char *, ...)
	    __attribute__((format(printf, 2, 3)));

/*
 * An edit of every event line the reader hands out, in whatever thread
 * frames or converts it (pass 2's threads share the work): line() writes
 * the new line to out, without its newline.  Each thread that edits has
 * a context of its own, which the library keeps: begin() makes it before
 * the thread's first line, line() gets it with each line, and end()
 * takes it back, in that thread, when the thread has no more lines to
 * edit: a thread of pass 2 at the end of its operand, the reader's own
 * when mct_next() finds the end of the input (or at mct_close()).  So
 * the tool's state in the reader's threads is only what begin() made,
 * and what end() merges into the tool's (several ends may run at once).
 * arg goes to each of them; begin and end may be NULL.  Set between
 * mct_open() and the first mct_next(); refused (-1) when the reader
 * itself adds to the events (a rank, a shift of ts), since those come
 * after, or pairs them: the tool then does the edit's work itself, and
 * mct_next() hands out every event one at a time, whatever mct_opts.want
 * said.  event(), if not NULL, edits in line()'s stead a line the reader
 * edits in its own thread and has indexed already (a stream's, checked
 * as it comes): the line as the reader's event, its keys found without
 * indexing it again.
 */
struct mct_editor {
	void	*(*begin)(void *);
	void	 (*line)(void *, void *, const char *, size_t,
		    struct mct_buf *);
	void	 (*end)(void *, void *);
	void	 (*event)(void *, void *, struct mct_event *,
		    struct mct_buf *);
};

int	 mct_edit(struct mct_reader *, const struct mct_editor *, void *);

/*
 * read_bytes.c - a source's lines, one at a time, with the reader's own
 * buffer: for what is read line by line beside the reader (partials,
 * metric logs).  What goes wrong stays in the source (mct_src_error()).
 */
struct mct_lines;

enum { MCT_LINE = 1, MCT_LINE_CUT };	/* mct_lines_next() */

struct mct_lines *mct_lines_open(struct mct_src *);
int	 mct_lines_next(struct mct_lines *, const char **, size_t *,
	    unsigned long long *);
const char *mct_lines_peek(struct mct_lines *, size_t, size_t *);
void	 mct_lines_free(struct mct_lines *);

/*
 * field.c - field paths (`args.grid`, `args."a b"`) and their values, and
 * the one table of fields with a meaning beyond their path: the virtual
 * fields (rel, end, category) and the keys that hold times (the event's,
 * and those of their records the tools register).
 */
enum mct_point {
	MCT_P_NONE = 0,		/* not a point in time (a length, or no time) */
	MCT_P_ABS,		/* a point on the trace's clock: ts, end */
	MCT_P_REL		/* a point from the stream's origin: rel */
};

/* How a human table (table, md) writes a field that is no time. */
enum mct_look {
	MCT_L_PLAIN = 0,	/* as it is */
	MCT_L_BYTES,		/* an integer of bytes: 101.31 MB (mct_fmt_bytes) */
	MCT_L_COUNT		/* an integer: 1,234 (mct_fmt_count) */
};

/*
 * A virtual field's value: in *ns if it is a time, else in *v, whose text
 * lives as long as the event, or is made in the scratch buffer (the
 * field's own, until its next read).  Returns 0, or -1 if missing.
 */
typedef int mct_getter(struct mct_event *, const struct mct_header *,
    struct mct_buf *, struct mct_val *, int64_t *);

struct mct_vfield {
	const char	*name;		/* as written: rel, launch.ts */
	int		 time;		/* its value is a time in ns */
	enum mct_point	 point;		/* a time that takes @T */
	mct_getter	*get;		/* NULL: a path into the record */
	mct_getter	*other;		/* a group key's stand-in, or NULL */
	int		 between;	/* a time between two events (a latency,
					   a wait), not busy time: its sum
					   and share mean nothing */
	enum mct_look	 look;		/* a number's look in a human table */
};

struct mct_field {
	char		*text;		/* as the user wrote it */
	const struct mct_vfield *vf;	/* its entry in the table, or NULL */
	int		 nseg;		/* 0 for a virtual field */
	char		**seg;		/* unescaped path segments */
	size_t		*seglen;
	struct mct_buf	*scratch;	/* a virtual field's getter's */
};

const struct mct_vfield *mct_vfield(const char *);
const struct mct_vfield *mct_vfield_at(size_t);
int	 mct_field_register(const char *, mct_getter *, mct_getter *);
void	 mct_field_times(const struct mct_vfield *, size_t);
int	 mct_field_other(struct mct_event *, const struct mct_field *,
	    const struct mct_header *, struct mct_buf *);
int	 mct_field_time(const struct mct_field *);
int	 mct_field_between(const struct mct_field *);
int	 mct_field_virtual(const struct mct_field *);
void	 mct_event_init(struct mct_event *, const char *, size_t,
	    const struct mct_header *);
void	 mct_event_set(struct mct_event *, const char *, size_t);
void	 mct_event_free(struct mct_event *);
int	 mct_field_parse(const char *, struct mct_field *);
int	 mct_fields_parse(const char *, struct mct_field **, int *);
void	 mct_field_free(struct mct_field *);
int32_t	 mct_fields_intern(struct mct_strtab *, struct mct_event *,
	    const struct mct_field *, int, struct mct_buf *);
int	 mct_get(struct mct_event *, const struct mct_field *, struct mct_val *);
int	 mct_get_keyn(struct mct_event *, const char *, size_t,
	    struct mct_val *);
void	 mct_keep_last(struct mct_buf *, size_t, const char *const *);
int	 mct_event_has_key(struct mct_event *, const char *const *);
uint32_t mct_obj_keys(const struct mct_val *, const char *const *, int,
	    struct mct_val *);
/* A first-level key (a literal's length counted by the compiler). */
static inline int
mct_get_key(struct mct_event *ev, const char *key, struct mct_val *v)
{
	return mct_get_keyn(ev, key, strlen(key), v);
}
int	 mct_get_ns(struct mct_event *, const char *, int64_t *);
int	 mct_field_ns(struct mct_event *, const struct mct_field *,
	    const struct mct_header *, int64_t *);
int	 mct_field_key(struct mct_event *, const struct mct_field *,
	    const struct mct_header *, struct mct_buf *);
int	 mct_is_meta(struct mct_event *);

/* An event's ts, dur and ph (mct_get_times()). */
struct mct_tdp {
	int64_t		 ts, dur;
	int		 hasts, hasdur;	/* ts, dur are integers */
	struct mct_val	 ph;		/* type MCT_J_NONE if missing */
	int		 meta;		/* a metadata event (mct_is_meta()) */
};

void	 mct_get_times(struct mct_event *, struct mct_tdp *);
int	 mct_event_rank(struct mct_event *, const struct mct_header *,
	    int64_t *, struct mct_val *);

/*
 * expr.c - the --where language: FIELD OP VALUE joined by && and ||.
 */
#include <regex.h>

struct mct_expr;

/* A compiled ERE, and the text a string must begin with to match it. */
struct mct_re {
	regex_t		 re;
	char		*lit;		/* "^ab[0-9]": "ab"; NULL if none */
	size_t		 nlit;
};

int	 mct_regcomp(struct mct_re *, const char *, int);
int	 mct_regmatch(const struct mct_re *, const char *);

struct mct_expr *mct_expr_parse(const char *, int, char *, size_t);
struct mct_expr *mct_expr_parse_at(const char *, int, char *, size_t, size_t *);
void	 mct_expr_free(struct mct_expr *);
int	 mct_expr_eval(const struct mct_expr *, struct mct_event *,
	    const struct mct_header *);
void	 mct_expr_fields(const struct mct_expr *,
	    void (*)(const struct mct_field *, void *), void *);
int	 mct_expr_presence_only(const struct mct_expr *, const char *);
int	 mct_expr_has(struct mct_event *, const struct mct_field *,
	    const struct mct_header *);

/*
 * rules.c - LABEL<TAB>PREDICATE rules and the virtual field category,
 * whose getter it registers in field.c's table.  One rule set per
 * process, loaded on first use; a tool that reads category calls
 * mct_rules_need() first and exits if it fails.  mct_category() may be
 * asked in several threads at once (in an edit: mct_edit()); they take
 * turns.
 */
void	 mct_rules_path(const char *);
int	 mct_rules_load(const char *);
void	 mct_rules_reset(void);
int	 mct_rules_need(void) __attribute__((warn_unused_result));
int	 mct_rules_fields(const struct mct_field *, int);
int	 mct_rules_expr(const struct mct_expr *);
const char *mct_category(struct mct_event *, const struct mct_header *);

#define MCT_OTHER	"(other)"	/* the category of what no rule matched */
#define MCT_NOOP	"(no op)"	/* the op of a launch outside every op */

/*
 * short.c - readable kernel names (the virtual field short).
 */
void	 mct_short(const char *, size_t, struct mct_buf *);

/*
 * device.c - the device lanes: which X events are device work, and
 * which host calls launch it, for every producer (mct(7)).
 */
int	 mct_device(struct mct_event *);
int	 mct_device_memory(struct mct_event *);
int	 mct_host_call(struct mct_event *);

/*
 * seen.c - fields the user named that no event of the input had: a
 * warning at the end, with the nearest field seen.  Zero it, add the
 * fields, show it every event, end it.  mct_nearest(): of some names,
 * the one a misspelled name likely meant.
 */
struct mct_seen {
	const struct mct_field **f;	/* the fields watched */
	const char	**what;		/* the option that named each */
	char		*found;		/* per field: some event had it */
	int		 nf, nleft;	/* fields, fields not yet found */
	long long	 events, sampled;
	struct mct_map	 paths;		/* paths seen, while one is missing */
	struct mct_buf	 tmp;
};

void	 mct_seen_add(struct mct_seen *, const struct mct_field *,
	    const char *);
void	 mct_seen_event(struct mct_seen *, struct mct_event *);
int	 mct_seen_end(struct mct_seen *);
void	 mct_seen_where(struct mct_seen *, struct mct_seen *,
	    const struct mct_expr *, const char *);
const char *mct_nearest(const char *, const char *const *, int);

/*
 * cut.c - a column's cells cut to a width, two different values never
 * alike (the tables of output.c).
 */
struct mct_text {
	const char	*p;
	size_t		 len;
};

void	 mct_cut_column(const struct mct_text *, size_t, size_t,
	    struct mct_buf *, struct mct_text *, int);

/*
 * output.c - writing events: ndjson, tsv, csv, table, trace.
 */
enum mct_ofmt { MCT_O_NDJSON = 0, MCT_O_TSV, MCT_O_CSV, MCT_O_TABLE, MCT_O_TRACE,
    MCT_O_MD };

#define MCT_WIDTH	60	/* characters in a human table's cell */

struct mct_outstate;

struct mct_out {
	enum mct_ofmt	 fmt;
	struct mct_field *fields;	/* -F, for tsv/csv/table */
	int		 nfields;
	int		 header;	/* write the TSV/CSV header line */
	enum mct_unit	 tunit;		/* --time-unit for tsv/csv/table */
	int		 maxwidth;	/* --width: table and md cells cut with
					   an ellipsis; 0 is MCT_WIDTH, <0 never */
	const struct mct_header *hdr;
	int		 meta;		/* rows of metadata (ph M) events too */
	int		 endcut;	/* cut every cell at its end, alike or
					   not: rows that are not keyed by
					   their cells (mct-phases' phases) */
	int		 rel_human;	/* rel in a human table without
					   --time-unit: a length from the
					   origin in a unit of its own
					   (4.78 ms), not a number in the
					   header's unit */
	struct mct_outstate *st;	/* output.c's, made when first needed,
					   gone at mct_out_end() */
};

int	 mct_out_parse(const char *, enum mct_ofmt *);
int	 mct_out_human(const struct mct_out *);
void	 mct_out_begin(struct mct_out *, const struct mct_header *);
void	 mct_out_event(struct mct_out *, struct mct_event *);
void	 mct_out_row(struct mct_out *, const char *, size_t);
void	 mct_out_json(struct mct_out *, const char *, size_t);
void	 mct_out_time(const struct mct_out *, struct mct_buf *, int64_t);
void	 mct_out_at(const struct mct_out *, struct mct_buf *, int64_t);
void	 mct_out_header(struct mct_header *, const char *const *, int);
void	 mct_out_end(struct mct_out *);

/*
 * cli.c - the command line: the options the tools share, -h and -V, and
 * strict parsers of option values.  A bad value is a message naming the
 * option and quoting the text, then "Try 'mct-x --help'" and exit 2: the
 * command line ends the process from lib, as mct_finish() and
 * mct_nomem() do.
 *
 * A tool takes a shared option by listing it: its MCT_LONGOPT_* entry in
 * the longopts table (where the tool wants it: getopt_long names the
 * matches of an ambiguous abbreviation in table order), its letter in
 * the getopt string.  The tool numbers its own long options from
 * MCT_OPT_TOOL and loops on mct_cli_getopt() in place of getopt_long():
 * it returns only the tool's own options.
 */
#include <getopt.h>
#include <limits.h>

enum { MCT_OPT_ALIGN = CHAR_MAX + 1, MCT_OPT_MERGE, MCT_OPT_META,
    MCT_OPT_NO_HEADER, MCT_OPT_NO_PROGRESS, MCT_OPT_PAIR_BE,
    MCT_OPT_PROGRESS, MCT_OPT_RANK, MCT_OPT_RULES, MCT_OPT_TIME_UNIT,
    MCT_OPT_WIDTH, MCT_OPT_TOOL };

#define MCT_LONGOPT_ALIGN \
	{ "align", required_argument, NULL, MCT_OPT_ALIGN }
#define MCT_LONGOPT_FIELDS \
	{ "fields", required_argument, NULL, 'F' }
#define MCT_LONGOPT_HELP \
	{ "help", no_argument, NULL, 'h' }
#define MCT_LONGOPT_MERGE \
	{ "merge", no_argument, NULL, MCT_OPT_MERGE }
#define MCT_LONGOPT_META \
	{ "meta", no_argument, NULL, MCT_OPT_META }
#define MCT_LONGOPT_NO_HEADER \
	{ "no-header", no_argument, NULL, MCT_OPT_NO_HEADER }
#define MCT_LONGOPT_NO_PROGRESS \
	{ "no-progress", no_argument, NULL, MCT_OPT_NO_PROGRESS }
#define MCT_LONGOPT_OUTPUT \
	{ "output", required_argument, NULL, 'o' }
#define MCT_LONGOPT_PAIR_BE \
	{ "pair-be", no_argument, NULL, MCT_OPT_PAIR_BE }
#define MCT_LONGOPT_PROGRESS \
	{ "progress", no_argument, NULL, MCT_OPT_PROGRESS }
#define MCT_LONGOPT_RANK \
	{ "rank", required_argument, NULL, MCT_OPT_RANK }
#define MCT_LONGOPT_RULES \
	{ "rules", required_argument, NULL, MCT_OPT_RULES }
#define MCT_LONGOPT_TIME_UNIT \
	{ "time-unit", required_argument, NULL, MCT_OPT_TIME_UNIT }
#define MCT_LONGOPT_UNIT \
	{ "unit", required_argument, NULL, 'u' }
#define MCT_LONGOPT_VERSION \
	{ "version", no_argument, NULL, 'V' }
#define MCT_LONGOPT_WIDTH \
	{ "width", required_argument, NULL, MCT_OPT_WIDTH }

/* What a tool's shared options write to, and how it takes them. */
/* An on/off option of a tool's own: given, it sets its int to 1. */
struct mct_flag {
	int		 ch;		/* its getopt value */
	int		*set;
};

struct mct_cli {
	void		(*usage)(int);	/* the tool's: -h is usage(0) */
	const struct mct_flag *flags;	/* the tool's on/off options, ended
					   by { 0, NULL } (or NULL) */
	struct mct_out	*out;		/* -o, -F, --meta, --no-header,
					   --time-unit, --width */
	struct mct_opts	*mo;		/* -u, --align, --merge, --pair-be,
					   --progress, --rank */
	const char	*fields;	/* -F: the tool's default (NULL: it has
					   no -F), then the option's */
	const char	*own;		/* -o: a format of the tool's own */
	int		 no_trace;	/* -o trace is not one of its formats */
	int		 tty_table;	/* no -o: a table on a terminal, else
					   ndjson */
	int		 rules_now;	/* --rules, and category in -F, load
					   the rules at once */
	int		 progress;	/* on stderr: 1 always, 0 never, -1 on
					   a terminal; the tool's default,
					   then --progress, --no-progress */
	/* what the options said */
	int		 fmt_given;	/* -o */
	int		 own_fmt;	/* -o named the tool's own format */
	const char	*rules;		/* --rules FILE */
};

int	 mct_cli_getopt(struct mct_cli *, int, char *[], const char *,
	    const struct option *);
void	 mct_usage_hint(void);
double	 mct_opt_num(const char *, const char *, double, double);
long long mct_opt_count(const char *, const char *, long long);
int	 mct_opt_time(const char *, const char *, int64_t *, int *);
int64_t	 mct_opt_dur(const char *, const char *, int64_t, const char *);
void	 mct_opt_field(const char *, const char *, struct mct_field *);
void	 mct_opt_fields(const char *, const char *, struct mct_field **,
	    int *);
struct mct_expr *mct_opt_expr(const char *, const char *);

/*
 * records.c - the keys of the tools' own records that hold times, which
 * every tool registers in field.c's table at start-up.
 */
void	 mct_records_register(void);

/*
 * sketch.c - a mergeable, order-independent quantile sketch: log-spaced
 * buckets from a double's top bits (128 a power of two), every value
 * within 1/256 of its bucket's midpoint.
 */
#define MCT_SKETCH_BITS	18		/* exponent and 7 bits of fraction */
#define MCT_SKETCH_BOUND 0.00390625	/* relative error bound: 1/256 */

/*
 * One side's buckets: dense, the counts of buckets lo .. lo + n - 1 (idx
 * NULL); or, when the buckets in use lie far apart (a partial from
 * another machine can name any two), sparse: n buckets idx[i], smallest
 * first, with counts c[i], so memory grows with the buckets in use.
 */
struct mct_skside {
	int32_t		 lo, n;
	int64_t		*c;		/* counts */
	int32_t		*idx;		/* sparse: the buckets; else NULL */
};

struct mct_sketch {
	int64_t		 zero;		/* values that are 0 */
	struct mct_skside pos, neg;	/* neg: buckets of -value */
};

void	 mct_sketch_put(struct mct_sketch *, int, int32_t, int64_t);
int	 mct_sketch_at(const struct mct_skside *, int32_t, int32_t *,
	    int64_t *);
void	 mct_sketch_add(struct mct_sketch *, double, int64_t);
void	 mct_sketch_merge(struct mct_sketch *, const struct mct_sketch *);
double	 mct_sketch_quantile(const struct mct_sketch *, int64_t, int64_t,
	    size_t, double, double);
void	 mct_sketch_free(struct mct_sketch *);

/*
 * stats.c - exact statistics of a set of numbers (every value is kept).
 */
union mct_num {
	int64_t		 i;
	double		 d;
};

/* A value and how many times it came (struct mct_stats, compact). */
struct mct_vcount {
	int64_t		 v, c;
};

struct mct_stats {
	union mct_num	*v;		/* the values (nv of them), as they came */
	size_t		 n, cap, nv;
	struct mct_vcount *vc;		/* compact: the others, sorted, counted */
	size_t		 nvc;
	int		 compact;	/* integers may be counted (set first) */
	int		 isfloat;	/* some value had a fraction: doubles */
	int		 sorted;
	mct_i128	 isum;
	int64_t		 imin, imax;
	mct_i128	 isumsq;	/* integers: sum of squares, exact */
	int		 sqover;	/* ... unless it overflowed */
	struct mct_sketch *sk;		/* past the exact limit: v is gone */
	int		 nokeep;	/* no value kept (no quantile asked) */
	double		 fsum, fsumsq, fmin, fmax;	/* with sk, nokeep: running */
};

void	 mct_stats_add(struct mct_stats *, int64_t);
void	 mct_stats_addf(struct mct_stats *, double);
void	 mct_stats_merge(struct mct_stats *, const struct mct_stats *);
void	 mct_stats_sketch(struct mct_stats *);
double	 mct_stats_sum(const struct mct_stats *);
double	 mct_stats_min(struct mct_stats *);
double	 mct_stats_max(struct mct_stats *);
double	 mct_stats_mean(const struct mct_stats *);
double	 mct_stats_stddev(const struct mct_stats *);
double	 mct_stats_quantile(struct mct_stats *, int64_t, int64_t);
void	 mct_stats_free(struct mct_stats *);

/*
 * group.c - the group table: events grouped under a key, with exact
 * statistics of a value (lib/stats.c), running figures of extra fields,
 * and the aggregates of mct-group's -a.  A key is the texts of its parts
 * (a --by field's JSON value each, empty if missing) joined by \037.
 * A tool may keep several tables (two readers), and merge one into
 * another (partial states).
 */
enum mct_akind { MCT_A_COUNT, MCT_A_TOTAL, MCT_A_SHARE, MCT_A_MEAN,
    MCT_A_MEDIAN, MCT_A_MIN, MCT_A_MAX, MCT_A_STDDEV, MCT_A_PCT, MCT_A_FIRST,
    MCT_A_LAST, MCT_A_SUMF, MCT_A_MINF, MCT_A_MAXF, MCT_A_MEANF };

struct mct_agg {
	enum mct_akind	 kind;
	char		*text;		/* as written: the column's name */
	int64_t		 qn, qd;	/* MCT_A_PCT: the quantile qn/qd */
	int		 x;		/* MCT_A_*F: the extra field's index */
	int		 time;		/* for people: a time (the caller sets it) */
	int		 bytes;		/* for people: bytes (the caller sets it) */
};

/* Running figures of an extra numeric field (sum:F and friends). */
struct mct_run {
	long long	 n;
	int		 isfloat;
	mct_i128	 isum;
	double		 dsum, min, max;
};

struct mct_group {
	const char	*key;		/* the table's copy */
	size_t		 klen;
	long long	 count;
	struct mct_stats val;		/* every value */
	struct mct_run	*x;		/* one per extra field */
	int64_t		 first, last;	/* absolute ns: first start, last end */
	int		 span;		/* first and last are set */
};

/* One event's value. */
struct mct_number {
	union mct_num	 v;
	int		 isfloat;
};

struct mct_gtab {
	/* set before the first event */
	const struct mct_field *value;	/* the value aggregated */
	const struct mct_header *hdr;	/* for rel, end and first, last */
	struct mct_field *xf;		/* extra fields, added by mct_agg_parse */
	int		 nx;
	/* the groups, in the order their keys came */
	struct mct_group *g;
	size_t		 n, cap;
	struct mct_map	 map;		/* key -> index in g */
	/* the value summed over every event that has one (share) */
	mct_i128	 alltotal;
	double		 alltotalf;
	int		 allfloat;
	int		 needvals;	/* an aggregate parsed needs the values */
	int		 novals;	/* keep none (set before the first event) */
	int		 countvals;	/* values may be counted (no partial) */
};

/* The order of a report: a key part (A to Z), else an aggregate. */
struct mct_order {
	int		 by;		/* the key part, or -1 */
	struct mct_agg	 agg;		/* largest first */
	int		 reverse;
};

int	 mct_agg_parse(struct mct_gtab *, const char *, struct mct_agg *);
double	 mct_agg_value(const struct mct_gtab *, struct mct_group *,
	    const struct mct_agg *, int *, int64_t *, int *);
int	 mct_gtab_value(const struct mct_gtab *, struct mct_event *,
	    struct mct_number *);
struct mct_group *mct_gtab_add(struct mct_gtab *, struct mct_event *,
	    const char *, size_t, const struct mct_number *);
struct mct_group *mct_gtab_find(const struct mct_gtab *, const char *, size_t);
struct mct_group *mct_gtab_group(struct mct_gtab *, const char *, size_t);
void	 mct_gtab_merge(struct mct_gtab *, const struct mct_gtab *);
void	 mct_gtab_sort(const struct mct_gtab *, struct mct_group **, size_t,
	    const struct mct_order *);
void	 mct_gtab_report(struct mct_gtab *, const struct mct_order *, long, int,
	    void (*)(void *, struct mct_group *, const char *), void *);
void	 mct_gtab_free(struct mct_gtab *);
void	 mct_group_merge(const struct mct_gtab *, struct mct_group *,
	    const struct mct_group *);
const char *mct_group_part(const struct mct_group *, int, size_t *);
int	 mct_group_key(struct mct_event *, const struct mct_field *, int, int,
	    const struct mct_header *, struct mct_buf *);
void	 mct_gtab_event(struct mct_gtab *, struct mct_event *,
	    const struct mct_field *, int, int, struct mct_buf *);

/*
 * cell.c - a group table's rows for the writers: aggregates as cells, for
 * people or for programs; key parts as text; keys as JSON members.
 */
void	 mct_cell_agg(const struct mct_gtab *, struct mct_group *,
	    const struct mct_agg *, const struct mct_out *, struct mct_buf *);
void	 mct_cell_text(const struct mct_group *, int, struct mct_buf *);
void	 mct_cell_json(const struct mct_group *, const struct mct_field *,
	    int, struct mct_buf *);

/*
 * partline.c - any kind of partial, read line by line as untrusted input:
 * mct_pline_read() checks the header's kind and version, counts the lines
 * against the end line, says damage as FILE:OFFSET, and hands each line
 * to the kind's reader.
 */
struct mct_pline {
	const char	*name;		/* the file, for messages */
	unsigned long long line;	/* the line's number, from 1 */
	struct mct_event ev;		/* the line */
	uint64_t	 digest;	/* of the partial's lines so far */
	char		 why[160];	/* a damaged line: what is wrong */
};

struct mct_partkind {
	const char	*key;		/* the header's: "mct_partial" */
	int		 version;
	const char	*tool;		/* "mct-group", in messages */
	const char	*what;		/* "mct-group -o partial" */
	const char	*endkey;	/* the end line's: "mct_partial_end" */
	const char	*item;		/* a line's name: "group" */
	int		(*header)(struct mct_pline *, void *);	/* 0, -1 said */
	int		(*line)(struct mct_pline *, void *);	/* 0, -1 damaged,
								   -2 refused (said) */
	int		(*end)(struct mct_pline *, void *);	/* a status; or NULL */
};

int	 mct_pline_read(const char *, const struct mct_partkind *, void *);
int	 mct_pline_int(struct mct_pline *, const char *, int64_t *);
uint64_t mct_pline_digest(uint64_t, const char *, size_t);
void	 mct_pline_why(struct mct_pline *, const char *, ...)
	    __attribute__((format(printf, 2, 3)));
void	 mct_pline_msgstr(struct mct_buf *, const char *, size_t);

/*
 * partial.c - a group table's mergeable state as NDJSON (mct-group -o
 * partial, mct(7)): a header line (format version, --by, --value,
 * extra fields, origin), one line per group (count, exact sums, min, max,
 * first, last, the values up to the exact limit or a sketch past it), an
 * end line (totals, number of groups).  mct_partial_read() merges one
 * file of them (any number of partials one after another) into a table;
 * the first header read sets spec and the table's extra fields, every
 * later one must agree.
 */
#define MCT_PARTIAL_VERSION	1
#define MCT_EXACT_LIMIT		1000000

struct mct_pspec {
	char		**by;		/* the --by fields as written */
	int		 nby;
	char		*value;		/* --value as written */
	int		 set;		/* by and value are known */
	int		 missing, meta;	/* --missing, --meta */
	int		 nhdr;		/* partial headers read */
	enum mct_unit	 unit;		/* the traces' unit (the first's) */
	int		 has_origin;
	int64_t		 origin;	/* the smallest of the partials' */
	int		 nsrc;		/* the traces the table covers */
	char		**src;
	struct mct_pid	*id;		/* the partials read, by identity */
	int		 nid;
	int		 repeat_ok;	/* --allow-repeat: say a repeat, merge */
	int		 repeat_opt;	/* the tool has --allow-repeat */
};

/*
 * A partial's identity, as its end line says it (or, of a partial
 * without one, as its reader makes it): the host that wrote it, a digest
 * of its lines, the sources it read there.
 */
struct mct_pid {
	char		*host;		/* "" if not known */
	char		*digest;	/* 16 hex digits */
	char		**src;
	int		 nsrc;
	char		*file;		/* the file it was read from */
};

void	 mct_partial_write(struct mct_gtab *, const struct mct_pspec *, size_t);
int	 mct_partial_read(struct mct_gtab *, struct mct_pspec *, const char *,
	    size_t);
void	 mct_partial_header(const struct mct_pspec *, struct mct_header *);
void	 mct_pspec_free(struct mct_pspec *);

int	 mct_partial_cover(struct mct_pspec *, struct mct_pline *);
void	 mct_partial_cover_write(struct mct_buf *, const struct mct_pspec *);
void	 mct_partial_ident_write(struct mct_buf *, const struct mct_pspec *,
	    uint64_t);
int	 mct_partial_ident(struct mct_pspec *, struct mct_pline *);
void	 mct_partial_cover_of(struct mct_pspec *, const struct mct_header *);

/*
 * stack.c - the host stack of each launch, for mct-flow --stack: host
 * intervals by pid/tid, and pairs that wait until their stack is known.
 */
struct mct_stack;

struct mct_launch {
	const char	*name, *pid, *tid;	/* JSON texts */
	int64_t		 ts, dur;
	int64_t		 ext;		/* args."External id" */
	int		 has_ext;
	struct mct_event *dev;		/* the device event the pair's line
					   was made of, or NULL: the line's
					   own keys read from the line */
};

/* A step: the annotation NAME#N (ProfilerStep#N), its N and interval. */
struct mct_stack_step {
	int64_t		 n, ts, end;
};

struct mct_stack_counts {
	long long	 unbalanced;	/* an E without B, a B without E */
	long long	 nowhere;	/* an External id that names no op */
	long long	 deep;		/* stacks cut at 1,000 frames */
};

struct mct_stack *mct_stack_open(int, int64_t);
void	 mct_stack_step_name(struct mct_stack *, const char *);
void	 mct_stack_under(struct mct_stack *, const char *);
size_t	 mct_stack_steps(const struct mct_stack *,
	    const struct mct_stack_step **);
void	 mct_stack_time(struct mct_stack *, int64_t);
void	 mct_stack_event(struct mct_stack *, struct mct_event *);
int	 mct_stack_ext(struct mct_event *, int64_t *);
int	 mct_stack_pair(struct mct_stack *, const char *, size_t,
	    const struct mct_launch *);
void	 mct_stack_end(struct mct_stack *);
int	 mct_stack_next(struct mct_stack *, struct mct_buf *, struct mct_buf *);
void	 mct_stack_close(struct mct_stack *, struct mct_stack_counts *);
int	 mct_stack_noop(struct mct_event *, const struct mct_field *,
	    struct mct_buf *);

/*
 * stepof.c - the profiler step of any event (mct-filter --step, the field
 * step of mct-group): the innermost step annotation NAME#N of a host
 * event's thread, device work by its launch's; in a trace without any,
 * the round of mct-phases that holds the event's ts.  Every event is
 * seen first, then asked.
 */
struct mct_stepof;

/* What an event's step is found by (mct_stepof_key), to ask later. */
struct mct_stepkey {
	int64_t		 ts, end;
	int64_t		 rank;		/* its rank, or -1 */
	int32_t		 lane, pid;	/* interned; lane -1: in no step */
	int32_t		 corr;		/* device work's correlation, or -1 */
};

struct mct_stepof *mct_stepof_new(const char *);
void	 mct_stepof_see(struct mct_stepof *, struct mct_event *);
void	 mct_stepof_key(struct mct_stepof *, struct mct_event *,
	    struct mct_stepkey *);
int64_t	 mct_stepof_at(struct mct_stepof *, const struct mct_stepkey *);
int64_t	 mct_stepof(struct mct_stepof *, struct mct_event *);
size_t	 mct_stepof_rounds(struct mct_stepof *, const struct mct_stack_step **);

/*
 * flow.c - device events joined to their launches by correlation id
 * (mct-flow's key mode, mct-diff --by op).  The caller sets key/haskey,
 * host, window, stk (pairs go to lib/stack.c's queue) or write (pairs
 * as events), nodev and arg after mct_flow_init().
 */
struct mct_corr {			/* a correlation id's state */
	int64_t		 ts, dur;	/* of the host call */
	char		**wait;		/* device lines that came first */
	int32_t		 name, pid, tid;	/* interned JSON texts of the host */
	int32_t		 rank;		/* its rank's text, "null" if none */
	uint32_t	 ndev;		/* device events paired with it */
	uint16_t	 nwait;
	uint8_t		 has_host;
	uint8_t		 has_ext;	/* with stk: the host's External id */
	int64_t		 ext;
};

enum { MCT_FLOW_NAME, MCT_FLOW_PID, MCT_FLOW_TID, MCT_FLOW_RANK };

struct mct_flowstate;
enum { MCT_FLOW_NOKEY = 1, MCT_FLOW_KEYED };	/* mct_flow_add() */

struct mct_flow {
	const struct mct_header *hdr;
	struct mct_field key;		/* with haskey: the id (--key) */
	int		 haskey;
	struct mct_expr	*host;		/* which events are host calls, or NULL */
	int64_t		 window;	/* forget a host call this after it
					   ended (sorted input); 0: never */
	struct mct_stack *stk;
	void		(*write)(void *, struct mct_event *);
	void		(*nodev)(void *, const struct mct_corr *,
			    const struct mct_mapent *);	/* forgotten unused */
	void		*arg;
	long long	 pairs;
	struct mct_map	 corrs;		/* id -> struct mct_corr, in the entry */
	struct mct_strtab st;		/* host names, pids, tids, ranks */
	struct mct_flowstate *fs;	/* flow.c's, from mct_flow_init() to
					   mct_flow_free() */
};

void	 mct_flow_init(struct mct_flow *, const struct mct_header *);
int32_t	 mct_flow_intern(struct mct_flow *, struct mct_event *, int);
void	 mct_flow_rank(struct mct_flow *, struct mct_event *, struct mct_buf *);
int	 mct_flow_key(struct mct_flow *, struct mct_event *, struct mct_buf *);
int	 mct_flow_is_host(struct mct_flow *, struct mct_event *);
int	 mct_flow_add(struct mct_flow *, struct mct_event *, struct mct_buf *);
int	 mct_flow_pair(struct mct_flow *, const char *, size_t,
	    const struct mct_corr *, int64_t);
void	 mct_flow_free(struct mct_flow *);

/*
 * phases.c - mct-phases' method, steps 2 to 5: device calls (in time
 * order, signatures and names interned below nsig) cut into phases.
 */
/* A device call: its place, and its signature and name as interned ids. */
struct mct_call {
	int64_t		 ts, dur;
	int32_t		 sig;
	int32_t		 name;		/* the event's own name, interned */
};

struct mct_anchor {
	int32_t		 sig;
	long		 calls;
	int64_t		 total;
};

enum mct_pkind { MCT_PH_INIT, MCT_PH_WARMUP, MCT_PH_STEADY, MCT_PH_SWITCH,
    MCT_PH_TAIL };

struct mct_phase {
	enum mct_pkind	 kind;
	int64_t		 start, end;	/* absolute ns */
	struct mct_anchor *anc;
	int		 nanc;
	long		 rounds;
};

/* The knobs of steps 2 to 4, as the options of the same names give them. */
struct mct_method {
	int		 min_rounds;
	double		 min_share;	/* % */
	double		 split;
	double		 overlap;	/* % */
	int64_t		 join;		/* -1: 1% of the device span */
};

/*
 * What the steps share: the calls and knobs a caller gives, what one step
 * hands the next (private), and the phases found.
 */
struct mct_cand;

struct mct_phaser {
	/* given: the calls, in time order, and the knobs */
	const struct mct_call *dev;
	size_t		 ndev;
	size_t		 nsig;		/* every sig and name is below it */
	const struct mct_method *m;
	int64_t		 origin;	/* init begins here */
	int64_t		 tend;		/* the tail ends here, if hasend */
	int		 hasend;
	/*
	 * Step 2's index: signature s's calls, in time order, are
	 * dev[order[first[s]]] to dev[order[first[s + 1] - 1]].
	 */
	size_t		*order, *first;
	/* step 2's candidates, for step 3 */
	struct mct_cand	*cand;
	size_t		 ncand;
	/*
	 * The phases: the steady ones (step 3) first, then the warmups
	 * (step 4); step 5 adds init, switches and tail and sorts them all
	 * by time.
	 */
	struct mct_phase *ph;
	int		 nph, nsteady;
};

/* A training step the profiler annotated (Kineto's ProfilerStep#N). */
struct mct_step {
	int64_t		 ts, end;
};

struct mct_steps {
	struct mct_step	*v;		/* in input order */
	size_t		 n, cap;
};

int64_t	 mct_phases_overlap(int64_t, int64_t, int64_t, int64_t);
void	 mct_phases_find(struct mct_phaser *);
int	 mct_is_step_name(const struct mct_val *);
int	 mct_is_step_of(const struct mct_val *, const char *, int64_t *);
int64_t	 mct_phase_dur(struct mct_event *, int64_t);
int	 mct_is_step(struct mct_event *);
int	 mct_is_step_n(struct mct_event *, const char *, int64_t *);
void	 mct_steps_add(struct mct_steps *, int64_t, int64_t);
void	 mct_phases_steps(struct mct_phaser *, struct mct_step *, size_t);
void	 mct_phases_merge_switches(struct mct_phaser *, int64_t);
size_t	 mct_phases_rounds(const struct mct_phaser *, struct mct_step **);
void	 mct_phases_free(struct mct_phaser *);

/*
 * runsum.c - a run's device figures: span, busy time (the union of its
 * device calls), steady rounds and their median time (lib/phases.c).
 * Zero it with mct_runsum_init(), give it every event, end it.
 */
#define MCT_SIG_DEFAULT	"name,args.grid,args.block"	/* mct-phases' --key */

/* A device call of a run, in input order (seq), communication or not. */
struct mct_rcall {
	struct mct_call	 c;
	size_t		 seq;		/* its place in the input, for ties */
	int		 comm;
	int		 mem;		/* a copy or memset (not comm) */
};

/*
 * What some of a run's steady rounds are: profiler steps (sig -1), or
 * the calls of one signature, the heaviest anchor of their steady phase
 * (mct-phases names the phase by it); rounds: how many of them.
 */
struct mct_roundof {
	int32_t		 sig;
	long		 rounds;
};

struct mct_runsum {
	/* private: the device calls */
	struct mct_rcall *call;
	size_t		 n, cap;
	struct mct_steps steps;		/* Kineto's ProfilerStep#N */
	struct mct_strtab st;		/* signatures and names */
	struct mct_field *sig, name;
	int		 nsig;
	struct mct_buf	 tmp;
	/* the figures, after mct_runsum_end(); all 0 without device calls */
	int64_t		 start, end;	/* first start, last end (absolute ns) */
	int64_t		 busy;
	long		 rounds;
	int64_t		 round;		/* median time of a steady round */
	int		 hasround;
	struct mct_roundof *of;		/* what the rounds are: steps first,
					   then by signature's bytes, each once */
	size_t		 nof;
};

int64_t	 mct_median_i64(int64_t *, size_t);
int	 mct_rounds(const struct mct_call *, size_t, size_t,
	    const struct mct_method *, int64_t, int64_t,
	    const struct mct_steps *, long *, int64_t *,
	    struct mct_roundof **, size_t *);
int	 mct_roundof_cmp(const struct mct_runsum *,
	    const struct mct_roundof *, const struct mct_runsum *,
	    const struct mct_roundof *);
int	 mct_runsum_alike(const struct mct_runsum *,
	    const struct mct_runsum *);
void	 mct_runsum_init(struct mct_runsum *, const char *);
void	 mct_runsum_event(struct mct_runsum *, struct mct_event *, int);
void	 mct_runsum_end(struct mct_runsum *, const struct mct_method *);
size_t	 mct_runsum_rounds(struct mct_runsum *, const struct mct_method *,
	    struct mct_step **);
void	 mct_runsum_free(struct mct_runsum *);
void	 mct_rcall_sort(struct mct_rcall *, size_t);
int64_t	 mct_rcall_union(const struct mct_rcall *, size_t, int);

/*
 * rankpart.c - mct-ranks' mergeable state (mct-ranks -o partial and
 * --merge, mct(7)): a header with the options that change the figures
 * and the traces covered; per rank a line of its figures (final: a rank's
 * unions of intervals cannot be merged, so one partial holds all of a
 * rank) followed by a line per collective call of the rank (name, n, ts,
 * dur), in the rank's time order; an end line.  Two partials of one
 * rank, or of other options, are refused (MCT_EXIT_USAGE).
 */
#define MCT_RPART_VERSION	1

enum { MCT_RP_KEY, MCT_RP_DEVICE, MCT_RP_RULES, MCT_RP_NOPT };

struct mct_rpcall {
	int32_t		 name;		/* interned in the mct_rpart's st */
	long		 n;		/* the rank's n-th call of name, from 1 */
	int64_t		 ts, dur;
};

struct mct_rprank {
	int64_t		 rank;
	int64_t		 start, end;	/* first start, last end of its calls */
	int64_t		 busy, compute, comm;	/* unions of intervals */
	int64_t		 kernel, memory;	/* the same, if haskm */
	int		 haskm;		/* not in a partial of an older mct */
	long		 rounds;	/* steady rounds */
	int64_t		 round;		/* their median time, if hasround */
	int		 hasround;
	int64_t		 origin;	/* its trace's, if hasorigin (--align) */
	int		 hasorigin;
	int64_t		 shift;		/* added to its times by --align */
	int		 file;		/* read from rp->file[file] */
	struct mct_rpcall *call;	/* its collective calls, in time order */
	size_t		 ncall, cap;
};

struct mct_rpart {
	char		*opt[MCT_RP_NOPT];	/* --key, --device, --rules as
						   written; NULL: none given */
	int		 known[MCT_RP_NOPT];	/* opt[i] is set: check the rest */
	struct mct_pspec cover;		/* unit, origin, sources */
	struct mct_rprank *rk;
	size_t		 nrk;
	struct mct_strtab *st;		/* the names of calls: the caller's */
	char		**file;		/* the files read, for messages */
	int		 nfile;
	struct mct_map	 ids;		/* private: rank -> its index in rk */
};

struct mct_rprank *mct_rpart_rank(struct mct_rpart *, int64_t);
void	 mct_rpart_call(struct mct_rprank *, int32_t, long, int64_t, int64_t);
void	 mct_rpart_write(const struct mct_rpart *);
int	 mct_rpart_read(struct mct_rpart *, const char *);
int	 mct_rpart_align(struct mct_rpart *);
void	 mct_rpart_free(struct mct_rpart *);

/*
 * metrics.c - device metric logs (mct-metrics(1)): wall times as epoch ns, a
 * CSV/TSV log's lines as samples (values in millionths, exact from the
 * text), and a metric's step function over an interval (mct-metrics).
 */
struct mct_tz {
	int		 local;		/* the local rules (TZ) */
	int64_t		 off;		/* else seconds east of UTC */
};

enum mct_mcrole { MCT_MC_UNKNOWN = 0, MCT_MC_TIME, MCT_MC_DEVICE,
    MCT_MC_METRIC, MCT_MC_TEXT };

/* A bad value in a metric column, for the caller to say with its line. */
struct mct_mbad {
	long long	 line;
	char		 why[120];
};
#define MCT_MLOG_KEEP	20	/* bad values a column of no kind yet keeps */

struct mct_mcol {
	char		*name;		/* the header's text, unit taken off */
	char		*unit;		/* "MHz" of "clocks.sm [MHz]", or NULL */
	enum mct_mcrole	 role;		/* a metric once a value was a number */
	/* private: values no number while the column may still be text */
	struct mct_mbad	*pend;
	int		 npend;
	long long	 nlost;		/* more than MCT_MLOG_KEEP of them */
};

struct mct_msample {
	int64_t		 ts, dev;
	int		 col;		/* its metric: the column */
	int64_t		 v;		/* value x 10^6 */
};

struct mct_mlogstate;

struct mct_mlog {
	/* set before the header */
	const char	*timecol;	/* --time: a name or number, or NULL */
	const char	*devcol;	/* --index, or NULL */
	const char	*metrics;	/* -m: names, comma-separated, or NULL */
	enum mct_unit	 tunit;		/* numbers in the time column */
	struct mct_tz	 tz;		/* wall times without an offset */
	int		 has_sync;	/* ts = sync_ts + (time - sync_t) */
	int64_t		 sync_t, sync_ts;
	const char	*join;		/* --join: names that are metrics */
	/* set before each line: its number, for the messages */
	long long	 line;
	/* the header's */
	int		 delim;
	struct mct_mcol	*col;
	int		 ncol, tcol, dcol;	/* dcol -1: device 0 */
	/* a line's samples, or why it is bad */
	struct mct_msample *sample;
	size_t		 nsample, scap;
	char		 why[128];
	/*
	 * and, after a line, its bad values (each skipped, the line's others
	 * kept), with those of earlier lines of a column found a metric only
	 * now; nlost more of them not kept; the earlier line of its device at
	 * its time, or 0
	 */
	struct mct_mbad	*bad;
	size_t		 nbad, badcap;
	long long	 nlost, dup;
	struct mct_mlogstate *ls;	/* metrics.c's, made when first needed,
					   gone at mct_mlog_free() */
};

/*
 * A metric's samples in time order, live from lo to n; each holds until
 * the next, at most until its lim (twice the time since the one before).
 */
struct mct_sample_pt {
	int64_t		 t, v;		/* time (ns), value x 10^6 */
	int64_t		 lim;		/* private: where it stops holding */
};
struct mct_series {
	struct mct_sample_pt *pt;		/* one array: one block to grow */
	size_t		 lo, n, cap;
	size_t		 hint;		/* private: the last answer */
};

/* The step function over an interval. */
struct mct_over {
	long long	 samples;	/* in effect for part of it */
	int64_t		 min, max;	/* x 10^6 */
	mct_i128	 wsum;		/* value x 10^6 x ns */
	int64_t		 covered;	/* ns of it the log covers */
};

int	 mct_tz_parse(const char *, struct mct_tz *);
int	 mct_wall_ns(const char *, size_t, const struct mct_tz *, int64_t *);
int	 mct_value_e6(const char *, size_t, int64_t *);
int	 mct_mlog_header(struct mct_mlog *, const char *, size_t,
	    const char **);
int	 mct_mlog_time(const struct mct_mlog *, const char *, size_t,
	    int64_t *);
int	 mct_mlog_line(struct mct_mlog *, const char *, size_t);
void	 mct_mlog_free(struct mct_mlog *);
void	 mct_series_add(struct mct_series *, int64_t, int64_t);
void	 mct_series_forget(struct mct_series *, int64_t);
int	 mct_series_over(struct mct_series *, int64_t, int64_t,
	    struct mct_over *);
int	 mct_series_over_h(const struct mct_series *, size_t *, int64_t,
	    int64_t, struct mct_over *);
void	 mct_series_free(struct mct_series *);
void	 mct_over_json(const struct mct_over *, struct mct_buf *);
#define MCT_OVER_MAX	128	/* bytes mct_over_fmt() may write */
size_t	 mct_over_fmt(const struct mct_over *, char *);

#endif /* MCT_H */
