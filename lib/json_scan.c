/*
 * json_scan.c - the validating, repairing compactor: mct_scan().
 *
 * mct_scan() reads one JSON value, checks its syntax, and (with .out)
 * appends a compacted copy: whitespace between tokens dropped, every
 * string byte, escape and number text kept as it was, except for the
 * repairs it reports in .fixes.  It is the framer's workhorse and never
 * builds a tree, so it runs at memory speed.  It also records where the
 * first-level keys and values of an object are (.kv), which is all that
 * field access needs.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "mct.h"
#include "json_private.h"

#define MAXDEPTH 512

/*
 * The tables are constant, written out here rather than built on first
 * use: built lazily they would be state two threads could race on.
 */
#define X16(v)	v, v, v, v, v, v, v, v, v, v, v, v, v, v, v, v

/* Bytes that stop the fast copy loop inside a string. */
static const unsigned char strstop[256] = {
	X16(1), X16(1),			/* control characters */
	0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,	/* '"' */
	X16(0), X16(0),
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0,	/* '\\' */
	X16(0), X16(0),
	X16(1), X16(1), X16(1), X16(1),	/* not ASCII */
	X16(1), X16(1), X16(1), X16(1)
};

static void
kv_add(struct mct_scan *s, size_t koff, size_t klen)
{
	if (s->nkv == s->kvcap) {
		s->kvcap = s->kvcap ? s->kvcap * 2 : 16;
		s->kv = mct_xrealloc(s->kv, (size_t)s->kvcap * sizeof(*s->kv));
	}
	s->kv[s->nkv].koff = (uint32_t)koff;
	s->kv[s->nkv].klen = (uint32_t)klen;
	s->kv[s->nkv].voff = s->kv[s->nkv].vlen = 0;
	s->nkv++;
}

static void
fix(struct mct_scan *s, unsigned what, const unsigned char *where)
{
	int i;

	for (i = 0; i < MCT_NFIX; i++)
		if (what == 1u << i && !(s->fixes & what))
			s->fixat[i] = (const char *)where;
	if (s->fixes == 0)
		s->fixpos = (const char *)where;
	s->fixes |= what;
}

/* Length of a valid UTF-8 sequence at p (c >= 0x80), 0 if invalid, -1 if cut. */
static int
utf8len(const unsigned char *p, const unsigned char *end)
{
	unsigned c = p[0];
	int n, i;

	if (c >= 0xc2 && c <= 0xdf)
		n = 2;
	else if (c >= 0xe0 && c <= 0xef)
		n = 3;
	else if (c >= 0xf0 && c <= 0xf4)
		n = 4;
	else
		return 0;
	for (i = 1; i < n; i++) {
		if (p + i >= end)
			return -1;
		if ((p[i] & 0xc0) != 0x80)
			return 0;
	}
	if (c == 0xe0 && p[1] < 0xa0)
		return 0;	/* overlong */
	if (c == 0xed && p[1] >= 0xa0)
		return 0;	/* surrogate */
	if (c == 0xf0 && p[1] < 0x90)
		return 0;	/* overlong */
	if (c == 0xf4 && p[1] >= 0x90)
		return 0;	/* beyond U+10FFFF */
	return n;
}

/*
 * The compacted copy is written through a cursor o kept in a local
 * variable (a char store may alias anything, so nothing the loop reads
 * lives behind a pointer).  mct_scan() makes room for as many bytes as
 * the input has left, which the copy never exceeds except by repairs;
 * every repair calls room() first.
 */
#define EMIT(q, n)	do { if (out) { memcpy(o, (q), (n)); o += (n); } } while (0)
#define EMIT1(c)	do { if (out) *o++ = (char)(c); } while (0)
#define OUTPOS(q)	(out ? (size_t)(o - out->p) : (size_t)((const char *)(q) - base))

static char *
room(struct mct_buf *out, char *o, const unsigned char *p,
    const unsigned char *end, size_t extra)
{
	size_t used;

	if (out == NULL)
		return o;
	used = (size_t)(o - out->p);
	out->len = used;
	mct_buf_grow(out, (size_t)(end - p) + extra + 64);
	return out->p + used;
}

/*
 * The rare bytes of a string at p: an escape, a control character or
 * UTF-8.  Copies or repairs one of them; returns the position after it,
 * or NULL if the text ends first.
 */
static const unsigned char *
string_special(struct mct_scan *s, struct mct_buf *out, char **op,
    const unsigned char *p, const unsigned char *end)
{
	static const char hex[] = "0123456789abcdef";
	char *o = *op;
	int n;

	if (*p == '\\') {
		s->rankish = 1;		/* a key may be "r\u0061nk" */
		if (p + 1 >= end)
			return NULL;
		switch (p[1]) {
		case '"': case '\\': case '/': case 'b':
		case 'f': case 'n': case 'r': case 't':
			EMIT(p, 2);
			*op = o;
			return p + 2;
		case 'u': {
			int k;

			/* four hex digits; a non-digit before them is damage now */
			for (k = 2; k < 6 && p + k < end && is_hex(p[k]); k++)
				;
			if (k == 6) {
				EMIT(p, 6);
				*op = o;
				return p + 6;
			}
			if (p + k >= end)
				return NULL;
			break;
		}
		}
		/* An invalid escape: keep the backslash as a character. */
		fix(s, MCT_FIX_ESCAPE, p);
		o = room(out, o, p, end, 2);
		EMIT("\\\\", 2);
		*op = o;
		return p + 1;
	}
	if (*p < 0x20) {
		char e[6] = { '\\', 'u', '0', '0', hex[*p >> 4], hex[*p & 15] };

		fix(s, MCT_FIX_CTRL, p);
		o = room(out, o, p, end, 6);
		EMIT(e, 6);
		*op = o;
		return p + 1;
	}
	n = utf8len(p, end);
	if (n < 0)
		return NULL;
	if (n == 0) {
		fix(s, MCT_FIX_UTF8, p);
		o = room(out, o, p, end, 3);
		EMIT("\xef\xbf\xbd", 3);
		n = 1;
	} else
		EMIT(p, (size_t)n);
	*op = o;
	return p + n;
}

/*
 * How many of the PLAIN bytes at p may stay as they are in a string
 * (none is '"', '\\', below 0x20 or from 0x80 on); PLAIN if all.
 */
#ifdef __SSE2__
#define PLAIN	16
static inline size_t
plain_bytes(const unsigned char *p)
{
	const __m128i v = _mm_loadu_si128((const __m128i *)p);
	/* (the bytes from 0x80 on are below 0x20 as signed) */
	unsigned m = (unsigned)_mm_movemask_epi8(_mm_or_si128(_mm_or_si128(
	    _mm_cmpeq_epi8(v, _mm_set1_epi8('"')),
	    _mm_cmpeq_epi8(v, _mm_set1_epi8('\\'))),
	    _mm_cmplt_epi8(v, _mm_set1_epi8(0x20))));

	return m ? (size_t)__builtin_ctz(m) : PLAIN;
}
#elif defined(__GNUC__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define PLAIN	8
static inline size_t
plain_bytes(const unsigned char *p)
{
	const uint64_t one = 0x0101010101010101ULL;
	uint64_t w, a, b, m;

	memcpy(&w, p, 8);
	a = w ^ (one * '"');
	b = w ^ (one * '\\');
	m = ((w - one * 0x20) & ~w) | ((a - one) & ~a) | ((b - one) & ~b) | w;
	m &= one * 0x80;
	return m ? (size_t)__builtin_ctzll(m) >> 3 : PLAIN;
}
#endif

/*
 * Scan a string at p (on its opening quote), copying it to *op.  Returns
 * the position after the closing quote, or NULL if the text ends first.
 */
static inline __attribute__((always_inline)) const unsigned char *
scan_string(struct mct_scan *s, struct mct_buf *out, char **op,
    const unsigned char *p, const unsigned char *end)
{
	char *o = *op;

	EMIT1('"');
	p++;
	for (;;) {
#ifdef PLAIN
		/* PLAIN bytes at a time while they are plain */
		while (end - p >= PLAIN) {
			size_t k = plain_bytes(p);

			if (out) {
				memcpy(o, p, PLAIN);
				o += k;
			}
			p += k;
			if (k < PLAIN)
				goto stop;	/* at a byte that stops */
		}
#endif
		while (p < end && !strstop[*p]) {
			EMIT1(*p);
			p++;
		}
		if (p >= end)
			break;
#ifdef PLAIN
stop:
#endif
		if (*p == '"') {
			EMIT1('"');
			*op = o;
			return p + 1;
		}
		if ((p = string_special(s, out, &o, p, end)) == NULL)
			break;
	}
	*op = o;
	return NULL;
}

/* The first byte from p on that is not a decimal digit, or end. */
static inline const unsigned char *
digits_end(const unsigned char *p, const unsigned char *end)
{
#ifdef MCT_DIGITS8
	uint64_t w, m;

	while (end - p >= 8) {	/* a word at a time */
		memcpy(&w, p, 8);
		if ((m = mct_nondigits(w)) != 0)
			return p + (__builtin_ctzll(m) >> 3);
		p += 8;
	}
#endif
	while (p < end && (unsigned)(*p - '0') < 10)
		p++;
	return p;
}

/* The end of a number's text at p, checked against JSON's grammar. */
static const unsigned char *
scan_number(const unsigned char *p, const unsigned char *end, int *rc)
{
	const unsigned char *q = p;

	if (q < end && *q == '-')
		q++;
	if (q >= end)
		goto more;
	if (*q == '0')
		q++;
	else if (*q >= '1' && *q <= '9')
		while (q < end && *q >= '0' && *q <= '9')
			q++;
	else
		goto bad;
	if (q < end && *q == '.') {
		q++;
		if (q >= end)
			goto more;
		if (*q < '0' || *q > '9')
			goto bad;
		while (q < end && *q >= '0' && *q <= '9')
			q++;
	}
	if (q < end && (*q == 'e' || *q == 'E')) {
		q++;
		if (q < end && (*q == '+' || *q == '-'))
			q++;
		if (q >= end)
			goto more;
		if (*q < '0' || *q > '9')
			goto bad;
		while (q < end && *q >= '0' && *q <= '9')
			q++;
	}
	if (q >= end)
		goto more;
	return q;
more:
	*rc = MCT_SCAN_MORE;
	return NULL;
bad:
	*rc = MCT_SCAN_ERROR;
	return NULL;
}

/* Is s[0..n) exactly one JSON number? */
static int
is_number(const unsigned char *s, size_t n)
{
	unsigned char buf[72];
	const unsigned char *e;
	int rc;

	if (n + 1 > sizeof(buf))
		return 0;
	memcpy(buf, s, n);
	buf[n] = ' ';	/* ends the number */
	e = scan_number(buf, buf + n + 1, &rc);
	return e == buf + n;
}

/* The first-level keys the framer cares about. */
enum { K_OTHER, K_TS, K_DUR, K_PH, K_ARGS, K_RANK };

static inline int
key_kind(const unsigned char *k, size_t n)
{
	switch (n) {
	case 2:
		if (k[0] == 't' && k[1] == 's')
			return K_TS;
		if (k[0] == 'p' && k[1] == 'h')
			return K_PH;
		break;
	case 3:
		if (k[0] == 'd' && k[1] == 'u' && k[2] == 'r')
			return K_DUR;
		break;
	case 4:
		if (k[0] == 'a' && k[1] == 'r' && k[2] == 'g' && k[3] == 's')
			return K_ARGS;
		if (k[0] == 'r' && k[1] == 'a' && k[2] == 'n' && k[3] == 'k')
			return K_RANK;
		break;
	}
	return K_OTHER;
}

/* What the framer is told of the event's ts (isdur 0) or dur at v[0..n). */
static inline void
set_time(struct mct_scan *s, int isdur, int kind, mct_i128 e6,
    const unsigned char *v, size_t n)
{
	if (isdur) {
		s->dur_kind = kind;
		if (e6 < 0) {
			s->negdur = (const char *)v;
			s->negdur_len = n;
		}
	} else {
		s->ts_kind = kind;
		s->ts_e6 = e6;
		s->ts_text = (const char *)v;
		s->ts_len = n;
	}
}

/* A ts or dur value: note it for the framer.  Returns 0 if it is a number. */
static int
note_time(struct mct_scan *s, int isdur, const unsigned char *v, size_t n)
{
	mct_i128 e6;
	int kind, exp;

	if ((kind = mct_ttime_e6((const char *)v, n, &e6, &exp)) < 0)
		return -1;
	if (exp)
		s->odd = 1;	/* an exponent: the text must be rewritten */
	set_time(s, isdur, kind, e6, v, n);
	return 0;
}

/* A ts or dur number of the event at off (in out) for the reader. */
static inline void
time_at(struct mct_scan *s, size_t off, size_t n)
{
	if (s->ntimes < 2) {
		s->time_off[s->ntimes] = off;
		s->time_len[s->ntimes] = n;
	}
	s->ntimes++;
}

/*
 * The steps of the scanner, each inlined into it as the scanner is into
 * mct_scan(): the cursor o of the copy, passed as op, stays a local.
 */

/* What mct_scan() says before it reads a value. */
static inline void
scan_begin(struct mct_scan *s)
{
	s->nkv = 0;
	s->fixes = 0;
	s->errpos = NULL;
	s->errmsg = NULL;
	s->has_co_id = s->is_meta = s->odd = s->rankish = 0;
	s->plain = s->spaced = 0;
	s->ts_kind = s->dur_kind = MCT_TS_NONE;
	s->negdur = NULL;
	s->ntimes = 0;
}

/* The byte that closes what open ('{' or '[') opened. */
static inline int
closing(int open)
{
	return open == '{' ? '}' : ']';
}

/* Is a value at depth, after a key of kind key1, an event's ts or dur? */
static inline int
time_value(int event, int depth, int key1)
{
	return event && depth == 1 && (key1 == K_TS || key1 == K_DUR);
}

/*
 * An event's first-level string value q..p (quotes and all; its copy
 * ends at *op) after a key of kind key1: "ph":"M" is metadata, and a ts
 * or dur written as a number in a string is noted as that number and
 * copied without its quotes ("ts":"123" becomes "ts":123).  Returns 1 if
 * it was: the copy is then no longer the text with spaces dropped.
 */
static inline __attribute__((always_inline)) int
event_string(struct mct_scan *s, struct mct_buf *out, char **op, int key1,
    const unsigned char *q, const unsigned char *p)
{
	char *o = *op;
	size_t n = (size_t)(p - q) - 2;

	if (key1 == K_PH && n == 1 && q[1] == 'M') {
		s->is_meta = 1;
		return 0;
	}
	if (!((key1 == K_TS || key1 == K_DUR) && n > 0 && n < 64 &&
	    is_number(q + 1, n) && note_time(s, key1 == K_DUR, q + 1, n) == 0))
		return 0;
	if (out && (size_t)(o - out->p) >= n + 2 &&
	    memcmp(o - n - 1, q + 1, n) == 0) {
		o -= n + 2;
		time_at(s, (size_t)(o - out->p), n);
		EMIT(q + 1, n);
	} else
		time_at(s, 0, 0);	/* counted */
	*op = o;
	return 1;
}

/*
 * A number at p whose first digit is 1 to 9, in one of the forms most
 * numbers have: an event's ts or dur (time set) as ttime.c reads it in
 * one pass, noted for the framer; any other plain integer.  Copies it
 * and returns its end; NULL if it has no such form (scan_number() then
 * checks it).
 */
static inline __attribute__((always_inline)) const unsigned char *
common_number(struct mct_scan *s, struct mct_buf *out, char **op,
    const char *base, int time, int isdur, const unsigned char *p,
    const unsigned char *end)
{
	const unsigned char *q;
	char *o = *op;

	if (time) {
		mct_i128 e6;
		int kind;

		q = (const unsigned char *)mct_ttime_plain((const char *)p,
		    (const char *)end, &e6, &kind);
		if (q == NULL)
			return NULL;
		set_time(s, isdur, kind, e6, p, (size_t)(q - p));
		time_at(s, OUTPOS(p), (size_t)(q - p));
	} else {
		/*
		 * Kineto's args are full of ids and counts: their digits,
		 * and the byte after them neither a digit nor part of a
		 * fraction or exponent, is all the grammar there is to check.
		 */
		q = digits_end(p + 1, end);
		if (!(q < end && *q != '.' && *q != 'e' && *q != 'E'))
			return NULL;
	}
	EMIT(p, (size_t)(q - p));
	*op = o;
	return q;
}

/*
 * The literal lit (n bytes) at p, copied; NaN and the infinities, which
 * JSON has not, are written null (repaired).  Returns its end, or NULL
 * with *rc MCT_SCAN_MORE if the text ends inside it, MCT_SCAN_ERROR if
 * it is not lit.
 */
static inline __attribute__((always_inline)) const unsigned char *
scan_literal(struct mct_scan *s, struct mct_buf *out, char **op,
    const unsigned char *p, const unsigned char *end, const char *lit,
    size_t n, int *rc)
{
	char *o = *op;

	if ((size_t)(end - p) < n) {
		*rc = memcmp(p, lit, (size_t)(end - p)) == 0 ? MCT_SCAN_MORE :
		    MCT_SCAN_ERROR;
		return NULL;
	}
	if (memcmp(p, lit, n) != 0) {
		*rc = MCT_SCAN_ERROR;
		return NULL;
	}
	if (*p == 'N' || *p == 'I' || *p == '-') {
		fix(s, MCT_FIX_NAN, p);
		o = room(out, o, p, end, 4);
		EMIT("null", 4);
	} else
		EMIT(p, n);
	*op = o;
	return p + n;
}

/*
 * A key kp[0..klen) of the first level read (its copy at keyout,
 * outlen bytes without its quotes): in .kv with index; of an event,
 * its kind, which is returned, and *inargs set if it is "args".
 */
static inline __attribute__((always_inline)) int
first_key(struct mct_scan *s, int index, int event, size_t keyout,
    size_t outlen, const unsigned char *kp, size_t klen, int *inargs)
{
	int kind = K_OTHER;

	if (index)
		kv_add(s, keyout + 1, outlen);
	if (event && (kind = key_kind(kp, klen)) == K_RANK) {
		s->rankish = 1;
		kind = K_OTHER;		/* noted, its value is any other */
	}
	*inargs = kind == K_ARGS;
	return kind;
}

/*
 * The key kp[0..klen) of a top-level object, its ':' at p: is it
 * "traceEvents": [ ?  Then the caller takes the keys before it as the
 * trace's top-level keys (this one neither indexed nor copied), and the
 * events from after the '['.  Returns MCT_SCAN_TRACE then, MCT_SCAN_MORE
 * if the text ends before the value, MCT_SCAN_OK if it is no such key.
 */
static inline int
trace_events(struct mct_scan *s, struct mct_buf *out, size_t keyout,
    const unsigned char *kp, size_t klen, const unsigned char *p,
    const unsigned char *end)
{
	const unsigned char *q;

	if (klen != 11 || memcmp(kp, "traceEvents", 11) != 0)
		return MCT_SCAN_OK;
	if ((q = skipws(p + 1, end)) >= end)
		return MCT_SCAN_MORE;
	if (*q != '[')
		return MCT_SCAN_OK;
	if (s->index)
		s->nkv--;
	if (out)
		out->len = keyout;
	s->p = (const char *)q + 1;
	return MCT_SCAN_TRACE;
}

/* A comma before the close c at p ({"a":1,} or [1,2,]): dropped. */
static inline void
drop_comma(struct mct_scan *s, struct mct_buf *out, char *o,
    const unsigned char *p, int c)
{
	fix(s, MCT_FIX_COMMA, p);
	if (out)
		o[-1] = (char)c;	/* over the comma copied */
}

/*
 * The value from base ended at p, its copy at o (from out0): what
 * mct_scan() says of it.
 */
static inline __attribute__((always_inline)) int
scan_end(struct mct_scan *s, struct mct_buf *out, char *o, const char *base,
    const unsigned char *p, size_t out0, int spaced, int retyped)
{
	s->p = (const char *)p;
	if (out) {
		out->len = (size_t)(o - out->p);
		spaced = out->len - out0 != (size_t)(p -
		    (const unsigned char *)base);
	}
	s->plain = !s->fixes && !retyped;
	s->spaced = s->plain && spaced;
	return MCT_SCAN_OK;
}

/*
 * The scanner, inlined twice by mct_scan(): with out NULL (a check) the
 * compiler drops every copy.  A state machine of four states (value, key,
 * after a value, the literal of a value) with the depth in stack[]; the
 * first level of an object (depth 1) is where .kv and an event's notes
 * come from.  SKIPWS also notes whitespace dropped, for .spaced, where
 * there is no copy to measure.
 */
#define SKIPWS(q, from)	do {						\
	const unsigned char *from_ = (from);				\
									\
	(q) = skipws(from_, end);					\
	if (!out)							\
		spaced |= (q) != from_;					\
} while (0)

static inline __attribute__((always_inline)) int
scan(struct mct_scan *s, struct mct_buf *const out)
{
	const unsigned char *p = (const unsigned char *)s->p;
	const unsigned char *end = (const unsigned char *)s->end;
	const char *base = s->p;
	const int event = s->event, index = s->index, toplevel = s->toplevel;
	unsigned char stack[MAXDEPTH];
	const unsigned char *q;
	const char *lit = NULL;
	size_t klen = 0, keyout = 0, out0 = out ? out->len : 0;
	int depth = 0, rc = MCT_SCAN_OK, key1 = K_OTHER, inargs = 0;
	int spaced = 0, retyped = 0;
	char *o = NULL;

	scan_begin(s);
	if (out) {
		mct_buf_grow(out, (size_t)(end - p) + 64);
		o = out->p + out->len;
	}

value:
	SKIPWS(p, p);
	if (p >= end)
		goto more;
	if (depth == 1 && index && stack[0] == '{')
		s->kv[s->nkv - 1].voff = (uint32_t)OUTPOS(p);
	switch (*p) {
	case '{':
	case '[':
		if (depth == MAXDEPTH)
			goto toodeep;
		stack[depth++] = *p;
		EMIT1(*p);
		SKIPWS(p, p + 1);
		if (p >= end)
			goto more;
		if (*p == closing(stack[depth - 1])) {
			EMIT1(*p);
			p++;
			depth--;
			goto after;
		}
		if (stack[depth - 1] == '{')
			goto key;
		goto value;
	case '"':
		q = p;
		if ((p = scan_string(s, out, &o, p, end)) == NULL)
			goto more;
		if (event && depth == 1 && key1 != K_OTHER)
			retyped |= event_string(s, out, &o, key1, q, p);
		goto after;
	case '1': case '2': case '3': case '4':
	case '5': case '6': case '7': case '8': case '9':
		if ((q = common_number(s, out, &o, base, time_value(event,
		    depth, key1), key1 == K_DUR, p, end)) != NULL) {
			p = q;
			goto after;
		}
		/* FALLTHROUGH */
	case '-': case '0':
		if (*p == '-' && p + 1 < end && p[1] == 'I') {
			lit = "-Infinity";
			klen = 9;
			goto literal;
		}
		q = p;
		if ((p = scan_number(p, end, &rc)) == NULL) {
			if (rc == MCT_SCAN_MORE)
				goto more;
			p = q;
			s->errmsg = "invalid number";
			goto error;
		}
		if (time_value(event, depth, key1)) {
			note_time(s, key1 == K_DUR, q, (size_t)(p - q));
			time_at(s, OUTPOS(q), (size_t)(p - q));
		}
		if (out) {
			const unsigned char *r;

			for (r = q; r < p; r++)
				*o++ = (char)*r;
		}
		goto after;
	case 't':
		lit = "true";
		klen = 4;
		goto literal;
	case 'f':
		lit = "false";
		klen = 5;
		goto literal;
	case 'n':
		lit = "null";
		klen = 4;
		goto literal;
	case 'N':
		lit = "NaN";
		klen = 3;
		goto literal;
	case 'I':
		lit = "Infinity";
		klen = 8;
		goto literal;
	default:
		s->errmsg = "unexpected character";
		goto error;
	}

literal:
	if ((q = scan_literal(s, out, &o, p, end, lit, klen, &rc)) == NULL) {
		if (rc == MCT_SCAN_MORE)
			goto more;
		s->errmsg = "invalid literal";
		goto error;
	}
	p = q;
	goto after;

key:
	SKIPWS(p, p);
	if (p >= end)
		goto more;
	if (*p != '"') {
		if (*p == '}') {
			/* {"a":1,} (a key follows '{' or ','; '{' '}' is done) */
			drop_comma(s, out, o, p, '}');
			p++;
			depth--;
			goto after;
		}
		s->errmsg = "expected a string key";
		goto error;
	}
	keyout = OUTPOS(p);
	q = p;
	if ((p = scan_string(s, out, &o, p, end)) == NULL)
		goto more;
	klen = (size_t)(p - q) - 2;
	if (depth == 1)
		key1 = first_key(s, index, event, keyout, out ? OUTPOS(p) -
		    keyout - 2 : klen, q + 1, klen, &inargs);
	else if (depth == 2 && inargs && klen == 5 &&
	    memcmp(q + 1, "co_id", 5) == 0)
		s->has_co_id = 1;
	SKIPWS(p, p);
	if (p >= end)
		goto more;
	if (*p != ':') {
		s->errmsg = "expected ':' after a key";
		goto error;
	}
	if (toplevel && depth == 1 &&
	    (rc = trace_events(s, out, keyout, q + 1, klen, p, end)) !=
	    MCT_SCAN_OK) {
		if (rc == MCT_SCAN_TRACE)
			return rc;
		goto more;
	}
	EMIT1(':');
	p++;
	goto value;

after:
	if (depth == 0)
		return scan_end(s, out, o, base, p, out0, spaced, retyped);
	if (depth == 1 && index && stack[0] == '{') {
		struct mct_kv *kv = &s->kv[s->nkv - 1];

		kv->vlen = (uint32_t)(OUTPOS(p) - kv->voff);
	}
	if (depth == 1)
		key1 = K_OTHER;
	SKIPWS(p, p);
	if (p >= end)
		goto more;
	if (*p == ',') {
		EMIT1(',');
		p++;
		if (stack[depth - 1] == '{')
			goto key;
		SKIPWS(p, p);
		if (p < end && *p == ']') {
			drop_comma(s, out, o, p, ']');
			p++;
			depth--;
			goto after;
		}
		goto value;
	}
	if (*p == closing(stack[depth - 1])) {
		EMIT1(*p);
		p++;
		depth--;
		goto after;
	}
	s->errmsg = stack[depth - 1] == '{' ? "expected ',' or '}'" :
	    "expected ',' or ']'";
	goto error;

toodeep:
	s->errmsg = "nested too deeply";
error:
	rc = MCT_SCAN_ERROR;
	goto stop;
more:
	rc = MCT_SCAN_MORE;
stop:
	s->errpos = (const char *)p;
	if (out)
		out->len = (size_t)(o - out->p);
	return rc;
}

int
mct_scan(struct mct_scan *s)
{
	return s->out ? scan(s, s->out) : scan(s, NULL);
}
