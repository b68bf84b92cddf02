/*
 * mct_private.h - what the files of lib give one another and no tool
 * calls: the reader's machinery that lives in other files (the JSON
 * scanner and compactor, trace times, a source's buffers, merge.c,
 * pairbe.c, rank.c), output.c's wrap.c, short.c's demangler.  Laid out
 * as lib/mct.h is, under the heading of the file that defines each.  A
 * lib file that needs it includes it in place of lib/mct.h (the reader's
 * and the json files through their own private header); the tools
 * include lib/mct.h only, the unit tests this one where they test what
 * it declares.
 */
#ifndef MCT_PRIVATE_H
#define MCT_PRIVATE_H

#include <string.h>

#include "mct.h"

/*
 * util.c - the reader's memory and pipes: buffers mapped at once, huge
 * pages kept, a pipe's size, a file's bytes sent to stdout.
 */
#define PREFAULT	(64 * 1024)	/* buffers this big are mapped at once */
void	 mct_prefault(void *, size_t);
void	 mct_heap_keep(void);
void	 mct_pipe_size(int);
long long mct_send(int, long long, size_t);

/*
 * json.c - a value skipped; the first-level keys of an object indexed.
 */
/* One key of an event, as offsets into the event's text. */
struct mct_kv {
	uint32_t	koff, klen;	/* key without its quotes, raw */
	uint32_t	voff, vlen;	/* value text */
};

int	 mct_skip(const char *, const char *, const char **);
int	 mct_index(const char *, size_t, struct mct_kv **, int *, int *);
int	 mct_index_plain(const char *, size_t, struct mct_kv **, int *, int *,
	    int *);
int	 mct_index_times(const char *, size_t, struct mct_kv **, int *, int *);

/*
 * json_scan.c - the validating, repairing compactor the framer reads
 * every event with.
 */
/* Result of mct_scan(). */
enum {
	MCT_SCAN_OK = 0,
	MCT_SCAN_MORE,		/* the text ended inside the value */
	MCT_SCAN_ERROR,		/* syntax error at errpos: errmsg */
	MCT_SCAN_TRACE		/* a top-level "traceEvents": [ was found */
};

/* What mct_scan() repaired; each bit names one kind. */
#define MCT_FIX_ESCAPE	0x01	/* invalid escape \q kept as \\q */
#define MCT_FIX_CTRL	0x02	/* raw control character escaped */
#define MCT_FIX_UTF8	0x04	/* invalid UTF-8 replaced by U+FFFD */
#define MCT_FIX_COMMA	0x08	/* trailing comma in an object or array dropped */
#define MCT_FIX_NAN	0x10	/* NaN or Infinity written as null */
#define MCT_NFIX	5

struct mct_scan {
	/* in */
	const char	*p, *end;	/* the text; p is left after the value */
	struct mct_buf	*out;		/* compacted copy, or NULL to only check */
	int		 toplevel;	/* stop at a top-level "traceEvents": [ */
	int		 event;		/* note ts, dur, ph, args.co_id (framer) */
	int		 index;		/* record first-level keys in .kv */
	/* out */
	const char	*errpos;
	const char	*errmsg;
	unsigned	 fixes;		/* MCT_FIX_* bits seen */
	const char	*fixpos;	/* where the first fix was needed */
	const char	*fixat[MCT_NFIX];	/* where the first fix of each kind was */
	struct mct_kv	*kv;		/* first-level keys, offsets into out or p */
	int		 nkv, kvcap;
	/* with .event set: what the framer learns of the event */
	int		 has_co_id;
	int		 rankish;	/* a first-level key "rank", or a string
					   with an escape (a key may spell it) */
	int		 is_meta;
	int		 ts_kind, dur_kind;	/* MCT_TS_* (ttime.c) */
	int		 odd;		/* ts or dur with an exponent */
	/*
	 * plain: the compact copy is the text with only the whitespace
	 * between tokens dropped (no repair, no "ts":"1" made a number);
	 * spaced: plain, and there was such whitespace.  Set when OK.
	 */
	int		 plain, spaced;
	mct_i128	 ts_e6;	/* ts times 10^6, in the source's unit */
	const char	*ts_text;	/* its text (in the input) */
	size_t		 ts_len;
	const char	*negdur;	/* a dur below 0 (its text), or NULL */
	size_t		 negdur_len;
	/*
	 * With .event: the first-level ts and dur values as they came, the
	 * first two of them as offsets into out (or p) and lengths, so that
	 * the reader converts them without indexing the event again.
	 */
	int		 ntimes;
	size_t		 time_off[2], time_len[2];
};

int	 mct_scan(struct mct_scan *);

/*
 * json_unspace.c - objects mct_scan() found plain compacted again at
 * memory speed, one a line.
 */
/*
 * What mct_unspace() noted of the first-level "ts" and "dur" numbers of
 * its objects, if known, in order: kv[i].koff is the object's number (0
 * first), klen 2 for ts and 3 for dur, voff and vlen the number in the
 * text appended to out (0 is where that starts).
 */
struct mct_times {
	struct mct_kv	*kv;
	int		 n, cap;
	int		 known;		/* 0: not noted; index each line */
};

int	 mct_unspace(const char *, size_t, struct mct_buf *,
	    struct mct_times *);

/*
 * time.c - eight digits at a time.
 */
#if defined(__GNUC__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define MCT_DIGITS8	1
/*
 * The eight bytes at p as a number if they are all decimal digits, else
 * -1: each byte 0x30..0x39, then combined in pairs, quads and the eight
 * (the first digit highest).  For the scanner's and time.c's loops over
 * long timestamps.
 */
/*
 * The bytes of the word w (little endian) that are not decimal digits:
 * their high nibble is not 3, or their low one carries into it when 6 is
 * added (a carry out of a byte only reaches bytes after the first found).
 */
static inline uint64_t
mct_nondigits(uint64_t w)
{
	const uint64_t hi = 0xf0f0f0f0f0f0f0f0ULL, three = 0x3030303030303030ULL;

	return ((w & hi) ^ three) | (((w + 0x0606060606060606ULL) & hi) ^ three);
}

static inline int64_t
mct_digits8(const char *p)
{
	uint64_t w;

	__builtin_memcpy(&w, p, 8);
	if (mct_nondigits(w) != 0)
		return -1;
	w -= 0x3030303030303030ULL;
	w = (w * 10 + (w >> 8)) & 0x00ff00ff00ff00ffULL;
	w = (w * 100 + (w >> 16)) & 0x0000ffff0000ffffULL;
	return (int64_t)((w * 10000 + (w >> 32)) & 0xffffffffULL);
}

/* Are the n bytes at p, 8 to 16, all decimal digits?  Two words. */
static inline int
mct_digits16(const char *p, size_t n)
{
	return mct_digits8(p) >= 0 && mct_digits8(p + n - 8) >= 0;
}
#endif

/*
 * ttime.c - trace times: an event's ts or dur text, a JSON number in its
 * source's unit (not known yet when the framer reads it), as 10^6 times
 * its value, exactly.  The common form is read inline, in the pass of the
 * scanner that finds the number's end (a call for each made mct-cat run
 * 3% more instructions); mct_ttime_e6() reads any other.
 */
#define MCT_TS_NONE	0
#define MCT_TS_INT	1	/* digits, no point */
#define MCT_TS_FRAC	2	/* digits after a point */

int	 mct_ttime_e6(const char *, size_t, mct_i128 *, int *);

/*
 * The common ts or dur at p (on a digit 1 to 9), read in the one pass
 * that also finds its end: up to 19 digits, and a point with up to six
 * after it (Kineto's fractional µs, 1661203462598738.047: six digits
 * after the point are exact at 10^-6 units).  Returns the end of the
 * number, *e6 and *kind set; NULL if the number is not of that form or
 * its end is not in the text (more digits, an exponent, the text cut):
 * the caller then checks it against JSON's grammar and reads it with
 * mct_ttime_e6().
 */
static inline __attribute__((always_inline)) const char *
mct_ttime_plain(const char *s, const char *end, mct_i128 *e6, int *kind)
{
	const unsigned char *p = (const unsigned char *)s, *q = p;
	const unsigned char *e = (const unsigned char *)end;
	uint64_t u = 0;
	mct_i128 v;
	int k;
#ifdef MCT_DIGITS8
	int64_t d8;

	/* eight digits at a time while they last */
	while (e - q >= 8 && q - p <= 11 &&
	    (d8 = mct_digits8((const char *)q)) >= 0) {
		u = u * 100000000 + (uint64_t)d8;
		q += 8;
	}
#endif
	for (; q < e && q - p < 19 && (unsigned)(*q - '0') < 10; q++)
		u = u * 10 + (uint64_t)(*q - '0');
	k = MCT_TS_INT;
	v = (mct_i128)u * 1000000;
	if (q + 1 < e && *q == '.' && (unsigned)(q[1] - '0') < 10) {
		const unsigned char *f = q + 1;
		uint64_t fr = 0, scale = 1000000;

		for (; f < e && f - q <= 6 && (unsigned)(*f - '0') < 10; f++) {
			fr = fr * 10 + (uint64_t)(*f - '0');
			scale /= 10;
		}
		if (f < e && !((unsigned)(*f - '0') < 10 || *f == 'e' ||
		    *f == 'E')) {
			k = MCT_TS_FRAC;
			v += (mct_i128)(fr * scale);
			q = f;
		}
	}
	if (q < e && !((unsigned)(*q - '0') < 10 || *q == '.' || *q == 'e' ||
	    *q == 'E')) {
		*e6 = v;
		*kind = k;
		return (const char *)q;
	}
	return NULL;
}

/*
 * input.c - what only the reader does with a source: buffers traded
 * with gzip's thread, a plain file read again or in parts.
 */
/*
 * mct_src_read() into *buf.  Of gzip, the thread inflates into buffers of
 * its own: mct_src_swap() reads to the end of one (if n is no more than
 * its size), and trades it whole for *buf rather than copy it, if *buf
 * is an mct_src_buf() of n bytes, as big.  Such a buffer has room for
 * MCT_SRC_BEFORE bytes before it and MCT_SRC_AFTER after its n.
 */
#define MCT_SRC_BEFORE	4096
#define MCT_SRC_AFTER	(64 * 1024 + 1)
int		 mct_src_gzip(const struct mct_src *);
ssize_t		 mct_src_swap(struct mct_src *, char **, size_t);
char		*mct_src_buf(size_t);
void		 mct_src_buf_free(char *);
int		 mct_src_rewindable(const struct mct_src *);
void		 mct_src_rewind(struct mct_src *, long long);
struct mct_src	*mct_src_clone(const struct mct_src *, long long, long long);
long long	 mct_src_size_now(const struct mct_src *);
int		 mct_src_changed(const struct mct_src *);

/*
 * reader.c - top-level values over the limit, and the events merge.c
 * and pairbe.c take.
 */
struct mct_bigtop {
	char		*key;		/* the key, quoted, as in the source */
	size_t		 keylen;
	long long	 off;		/* the value in the spool */
	size_t		 len;
	int		 before;	/* it came before traceEvents */
	int		 pos;		/* its place among all top-level keys */
};
int	 mct_bigtop_value(const struct mct_header *, int, struct mct_buf *);
/*
 * The reader's events as merge.c and pairbe.c take them: mct_next()
 * calls those two, and they call nothing of the reader's but next().
 * next(arg, i, &ev): 1 with the next event of operand i in ev (the
 * reader's, valid until the next call), 0 at its end; i = -1: the next
 * of all, in the order asked (mct_opts.order).  An operand that turns[i]
 * allows can be read in turns with others, an event of each at a time;
 * any other must be read to its end before another begins.
 */
struct mct_feed {
	int		(*next)(void *, int, struct mct_event **);
	void		*arg;
	const char	*turns;		/* one a source (hdr->nsrc) */
};

/*
 * pairbe.c - B/E duration events paired into X events (mct_opts.pair_be),
 * with one stack of open B events per thread; events come out in E
 * order.  For mct_next() only.
 */
struct mct_pairbe;

struct mct_pairbe *mct_pairbe_new(const struct mct_header *,
	    const struct mct_feed *);
const struct mct_header *mct_pairbe_header(const struct mct_pairbe *);
int	 mct_pairbe_next(struct mct_pairbe *, struct mct_event **);
void	 mct_pairbe_free(struct mct_pairbe *);

/*
 * rank.c - the rank of each source and its ts shift.
 */
int	 mct_rank_in_name(const char *, int64_t *);
int	 mct_rank_in_top(const char *, int64_t *);
int	 mct_rank_decide(struct mct_source *, int, const struct mct_opts *);
int	 mct_rank_align(struct mct_source *, int, const struct mct_opts *);
int	 mct_rank_line(struct mct_event *, int64_t, int64_t, struct mct_buf *);

/*
 * merge.c - every operand's events in one ts order (ties: rank, then
 * input order), through sorted runs in $TMPDIR: bounded memory
 * (mct_opts.order).  For mct_next() only.
 */
struct mct_merge;

struct mct_merge *mct_merge_open(const struct mct_header *,
	    const struct mct_feed *);
int	 mct_merge_next(struct mct_merge *, struct mct_event **);
int	 mct_merge_close(struct mct_merge *);

/*
 * field.c - an event's first-level keys: the index, a key's place in
 * it, the header line told from an event.
 */
void	 mct_event_index(struct mct_event *);
int	 mct_is_header(struct mct_event *);

/* The index of the last first-level key of an indexed event, or -1. */
static inline int
mct_key_at(const struct mct_event *ev, const char *key)
{
	size_t n = strlen(key);
	int i;

	for (i = ev->nkv - 1; i >= 0; i--)
		if (ev->kv[i].klen == n &&
		    memcmp(ev->json + ev->kv[i].koff, key, n) == 0)
			return i;
	return -1;
}

/*
 * demangle.cc - a C++ name demangled by the C++ runtime, for short.c
 * (which has a stand-in that demangles nothing when configure found no
 * C++ runtime).
 */
char	*mct_demangle(const char *);

/*
 * wrap.c - a multi-rank stream made one trace (mct-cat --wrap), for
 * output.c.
 */
struct mct_wrap;

struct mct_wrap *mct_wrap_new(void);
int	 mct_wrap_event(struct mct_wrap *, struct mct_event *, struct mct_buf *);
void	 mct_wrap_end(struct mct_wrap *, struct mct_buf *);
void	 mct_wrap_free(struct mct_wrap *);

#endif /* MCT_PRIVATE_H */
