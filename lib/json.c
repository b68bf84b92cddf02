/*
 * json.c - scanning JSON text.
 *
 * mct_scan() reads one JSON value, checks its syntax, and (with .out)
 * appends a compacted copy: whitespace between tokens dropped, every
 * string byte, escape and number text kept as it was, except for the
 * repairs it reports in .fixes.  It is the framer's workhorse and never
 * builds a tree, so it runs at memory speed.  It also records where the
 * first-level keys and values of an object are (.kv), which is all that
 * field access needs.
 *
 * mct_skip() and mct_index() work on text known to be valid and compact:
 * the lines of an mct stream.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "mct.h"

#ifdef __SSE2__
#include <emmintrin.h>
#endif

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

/* Whitespace. */
static const unsigned char wsp[256] = {
	[' '] = 1, ['\t'] = 1, ['\n'] = 1, ['\r'] = 1
};

/*
 * Skip whitespace.  Indentation is taken eight bytes at a time: the
 * number of leading spaces in a word is its count of trailing zero bits
 * (little endian) after xor with eight spaces.
 */
static inline const unsigned char *
skipws(const unsigned char *p, const unsigned char *end)
{
#if defined(__GNUC__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	uint64_t w;

	if (p < end && *p > ' ')
		return p;	/* the common case: no whitespace at all */
	if (end - p >= 2 && *p == ' ' && p[1] > ' ')
		return p + 1;	/* and one space, as in "k": v, "k2" */
	while (end - p >= 8) {
		memcpy(&w, p, 8);
		w ^= 0x2020202020202020ULL;
		if (w == 0) {
			p += 8;
			continue;
		}
		p += __builtin_ctzll(w) >> 3;
		if (*p != '\n' && *p != '\r' && *p != '\t')
			return p;
		p++;
	}
#endif
	while (p < end && wsp[*p])
		p++;
	return p;
}

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

static int
is_hex(int c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') ||
	    (c >= 'A' && c <= 'F');
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
enum { K_OTHER, K_TS, K_DUR, K_PH, K_ARGS };

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
		break;
	}
	return K_OTHER;
}

/* A ts or dur value: note it for the framer.  Returns 0 if it is a number. */
static int
note_time(struct mct_scan *s, int isdur, const unsigned char *v, size_t n)
{
	mct_i128 e6;
	int kind;

	if (n <= 19 && n > 0 && *v != '-' && *v != '0') {
		/* the common case: a plain integer */
		uint64_t u = 0;
		size_t i;

		for (i = 0; i < n && v[i] >= '0' && v[i] <= '9'; i++)
			u = u * 10 + (uint64_t)(v[i] - '0');
		if (i == n) {
			if (isdur)
				s->dur_kind = MCT_TS_INT;
			else {
				s->ts_kind = MCT_TS_INT;
				s->ts_e6 = (mct_i128)u * 1000000;
				s->ts_text = (const char *)v;
				s->ts_len = n;
			}
			return 0;
		}
	}
	if (mct_dec_e6((const char *)v, n, &e6) != 0)
		return -1;
	kind = memchr(v, '.', n) ? MCT_TS_FRAC : MCT_TS_INT;
	if (memchr(v, 'e', n) || memchr(v, 'E', n))
		s->odd = 1;	/* an exponent: the text must be rewritten */
	if (isdur)
		s->dur_kind = kind;
	else {
		s->ts_kind = kind;
		s->ts_e6 = e6;
		s->ts_text = (const char *)v;
		s->ts_len = n;
	}
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
 * The scanner, inlined twice by mct_scan(): with out NULL (a check) the
 * compiler drops every copy.  SKIPWS also notes whitespace dropped, for
 * .spaced, where there is no copy to measure.
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
	const unsigned char *q, *kp = NULL;
	size_t klen = 0, keyout = 0, out0 = out ? out->len : 0;
	int depth = 0, rc = MCT_SCAN_OK, key1 = K_OTHER, inargs = 0;
	int spaced = 0, retyped = 0;
	char *o = NULL;

	s->nkv = 0;
	s->fixes = 0;
	s->errpos = NULL;
	s->errmsg = NULL;
	s->has_co_id = s->is_meta = s->odd = 0;
	s->plain = s->spaced = 0;
	s->ts_kind = s->dur_kind = MCT_TS_NONE;
	s->ntimes = 0;
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
		if (depth == MAXDEPTH)
			goto toodeep;
		stack[depth++] = '{';
		EMIT1('{');
		SKIPWS(p, p + 1);
		if (p >= end)
			goto more;
		if (*p == '}') {
			EMIT1('}');
			p++;
			depth--;
			goto after;
		}
		goto key;
	case '[':
		if (depth == MAXDEPTH)
			goto toodeep;
		stack[depth++] = '[';
		EMIT1('[');
		SKIPWS(p, p + 1);
		if (p >= end)
			goto more;
		if (*p == ']') {
			EMIT1(']');
			p++;
			depth--;
			goto after;
		}
		goto value;
	case '"':
		q = p;
		if ((p = scan_string(s, out, &o, p, end)) == NULL)
			goto more;
		if (event && depth == 1 && key1 != K_OTHER) {
			size_t n = (size_t)(p - q) - 2;

			if (key1 == K_PH && n == 1 && q[1] == 'M')
				s->is_meta = 1;
			else if ((key1 == K_TS || key1 == K_DUR) && n > 0 &&
			    n < 64 && is_number(q + 1, n) &&
			    note_time(s, key1 == K_DUR, q + 1, n) == 0) {
				retyped = 1;
				if (out && (size_t)(o - out->p) >= n + 2 &&
				    memcmp(o - n - 1, q + 1, n) == 0) {
					/* "ts":"123" becomes "ts":123 */
					o -= n + 2;
					time_at(s, OUTPOS(p), n);
					EMIT(q + 1, n);
				} else
					time_at(s, 0, 0);	/* counted */
			}
		}
		goto after;
	case '1': case '2': case '3': case '4':
	case '5': case '6': case '7': case '8': case '9':
		if (event && depth == 1 && (key1 == K_TS || key1 == K_DUR)) {
			/* the common ts or dur: a plain integer, in one pass */
			uint64_t u = 0;
			mct_i128 e6;
			int kind;
#ifdef MCT_DIGITS8
			int64_t d8;
#endif

			q = p;
#ifdef MCT_DIGITS8
			/* eight digits at a time while they last */
			while (end - q >= 8 && q - p <= 11 &&
			    (d8 = mct_digits8((const char *)q)) >= 0) {
				u = u * 100000000 + (uint64_t)d8;
				q += 8;
			}
#endif
			for (; q < end && q - p < 19 &&
			    (unsigned)(*q - '0') < 10; q++)
				u = u * 10 + (uint64_t)(*q - '0');
			/*
			 * Kineto's fractional µs, 1661203462598738.047: up to
			 * six digits after the point are exact at 1e-6 units.
			 */
			kind = MCT_TS_INT;
			e6 = (mct_i128)u * 1000000;
			if (q + 1 < end && *q == '.' &&
			    (unsigned)(q[1] - '0') < 10) {
				const unsigned char *f = q + 1;
				uint64_t fr = 0, scale = 1000000;

				for (; f < end && f - q <= 6 &&
				    (unsigned)(*f - '0') < 10; f++) {
					fr = fr * 10 + (uint64_t)(*f - '0');
					scale /= 10;
				}
				if (f < end && !((unsigned)(*f - '0') < 10 ||
				    *f == 'e' || *f == 'E')) {
					kind = MCT_TS_FRAC;
					e6 += (mct_i128)(fr * scale);
					q = f;
				}
			}
			if (q < end && !((unsigned)(*q - '0') < 10 || *q == '.' ||
			    *q == 'e' || *q == 'E')) {
				if (key1 == K_DUR)
					s->dur_kind = kind;
				else {
					s->ts_kind = kind;
					s->ts_e6 = e6;
					s->ts_text = (const char *)p;
					s->ts_len = (size_t)(q - p);
				}
				time_at(s, OUTPOS(p), (size_t)(q - p));
				EMIT(p, (size_t)(q - p));
				p = q;
				goto after;
			}
		} else {
			/*
			 * Any other plain integer (Kineto's args are full of
			 * ids and counts): its digits, and the byte after them
			 * neither a digit nor part of a fraction or exponent,
			 * is all the grammar there is to check.
			 */
			q = digits_end(p + 1, end);
			if (q < end && *q != '.' && *q != 'e' && *q != 'E') {
				EMIT(p, (size_t)(q - p));
				p = q;
				goto after;
			}
		}
		/* FALLTHROUGH */
	case '-': case '0':
		if (*p == '-' && p + 1 < end && p[1] == 'I') {
			kp = (const unsigned char *)"-Infinity";
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
		if (event && depth == 1 && (key1 == K_TS || key1 == K_DUR)) {
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
		kp = (const unsigned char *)"true";
		klen = 4;
		goto literal;
	case 'f':
		kp = (const unsigned char *)"false";
		klen = 5;
		goto literal;
	case 'n':
		kp = (const unsigned char *)"null";
		klen = 4;
		goto literal;
	case 'N':
		kp = (const unsigned char *)"NaN";
		klen = 3;
		goto literal;
	case 'I':
		kp = (const unsigned char *)"Infinity";
		klen = 8;
		goto literal;
	default:
		s->errmsg = "unexpected character";
		goto error;
	}

literal:
	if ((size_t)(end - p) < klen) {
		if (memcmp(p, kp, (size_t)(end - p)) == 0)
			goto more;
		s->errmsg = "invalid literal";
		goto error;
	}
	if (memcmp(p, kp, klen) != 0) {
		s->errmsg = "invalid literal";
		goto error;
	}
	if (*p == 'N' || *p == 'I' || *p == '-') {
		fix(s, MCT_FIX_NAN, p);
		o = room(out, o, p, end, 4);
		EMIT("null", 4);
	} else
		EMIT(p, klen);
	p += klen;
	goto after;

key:
	SKIPWS(p, p);
	if (p >= end)
		goto more;
	if (*p != '"') {
		if (*p == '}') {
			/* {"a":1,} (a key follows '{' or ','; '{' '}' is done) */
			fix(s, MCT_FIX_COMMA, p);
			if (out)
				o[-1] = '}';
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
	kp = q + 1;
	klen = (size_t)(p - q) - 2;
	if (depth == 1) {
		if (index)
			kv_add(s, keyout + 1, out ? OUTPOS(p) - keyout - 2 : klen);
		key1 = K_OTHER;
		inargs = 0;
		if (event) {
			key1 = key_kind(kp, klen);
			inargs = key1 == K_ARGS;
		}
	} else if (depth == 2 && inargs && klen == 5 &&
	    memcmp(kp, "co_id", 5) == 0)
		s->has_co_id = 1;
	SKIPWS(p, p);
	if (p >= end)
		goto more;
	if (*p != ':') {
		s->errmsg = "expected ':' after a key";
		goto error;
	}
	if (toplevel && depth == 1 && klen == 11 &&
	    memcmp(kp, "traceEvents", 11) == 0) {
		SKIPWS(q, p + 1);
		if (q >= end)
			goto more;
		if (*q == '[') {
			/* The caller takes the keys so far as top-level keys. */
			if (index)
				s->nkv--;
			if (out)
				out->len = keyout;
			s->p = (const char *)q + 1;
			return MCT_SCAN_TRACE;
		}
	}
	EMIT1(':');
	p++;
	goto value;

after:
	if (depth == 0) {
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
			/* [1,2,] */
			fix(s, MCT_FIX_COMMA, p);
			if (out)
				o[-1] = ']';
			p++;
			depth--;
			goto after;
		}
		goto value;
	}
	if (*p == (stack[depth - 1] == '{' ? '}' : ']')) {
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

/* The end of a string at p (on its opening quote), or end. */
static const char *
skip_string(const char *p, const char *end)
{
	const char *q;

	for (p++; p < end; p = q + 1) {
		const char *b;

		if ((q = memchr(p, '"', (size_t)(end - p))) == NULL)
			return end;
		for (b = q; b > p && b[-1] == '\\'; b--)
			;
		if ((q - b) % 2 == 0)
			return q + 1;
	}
	return end;
}

/*
 * Skip one value of compact JSON at p; *next is set after it (or to end
 * if the value does not close).  Returns its type.
 */
int
mct_skip(const char *p, const char *end, const char **next)
{
	int depth = 0, t;

	if (p >= end) {
		*next = p;
		return MCT_J_NONE;
	}
	switch (*p) {
	case '"':
		*next = skip_string(p, end);
		return MCT_J_STRING;
	case '{':
		t = MCT_J_OBJECT;
		break;
	case '[':
		t = MCT_J_ARRAY;
		break;
	default:
		t = *p == 't' || *p == 'f' ? MCT_J_BOOL : *p == 'n' ?
		    MCT_J_NULL : MCT_J_NUMBER;
		while (p < end && *p != ',' && *p != '}' && *p != ']' &&
		    *p != ':')
			p++;
		*next = p;
		return t;
	}
	while (p < end) {
		switch (*p) {
		case '"':
			p = skip_string(p, end);
			continue;
		case '{':
		case '[':
			depth++;
			break;
		case '}':
		case ']':
			if (--depth == 0) {
				*next = p + 1;
				return t;
			}
			break;
		}
		p++;
	}
	*next = end;
	return t;
}

/* After the string at p (on its opening quote), or NULL if it does not end. */
static inline __attribute__((always_inline)) const unsigned char *
string_end(const unsigned char *p, const unsigned char *end)
{
	p++;
	for (;;) {
#if defined(__GNUC__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
		while (end - p >= 8) {
			const uint64_t one = 0x0101010101010101ULL;
			uint64_t w, a, b, m;

			memcpy(&w, p, 8);
			a = w ^ (one * '"');
			b = w ^ (one * '\\');
			m = (((a - one) & ~a) | ((b - one) & ~b)) & (one * 0x80);
			if (m) {
				p += __builtin_ctzll(m) >> 3;
				break;
			}
			p += 8;
		}
#endif
		while (p < end && *p != '"' && *p != '\\')
			p++;
		if (p >= end)
			return NULL;
		if (*p == '"')
			return p + 1;
		p += 2;
	}
}

/* Is the pair a first-level "ts" (1) or "dur" (2) with a number? */
static int
time_pair(const unsigned char *s, uint32_t koff, uint32_t klen, uint32_t voff)
{
	const unsigned char *k = s + koff, v = s[voff];

	if (!(v == '-' || (v >= '0' && v <= '9')))
		return 0;
	if (klen == 2 && k[0] == 't' && k[1] == 's')
		return 1;
	if (klen == 3 && k[0] == 'd' && k[1] == 'u' && k[2] == 'r')
		return 2;
	return 0;
}

/*
 * mct_index(), and with times set it stops once it has a "ts" and a
 * "dur" number (the rest of the text unchecked).  Inlined in both, so
 * that mct_index() (every stream line) pays nothing for it.
 */
static inline __attribute__((always_inline)) int
index_keys(const char *text, size_t n, struct mct_kv **kv, int *nkv,
    int *cap, int times)
{
	static const unsigned char cls[256] = {
		['"'] = 1, ['{'] = 2, ['['] = 2, ['}'] = 3, [']'] = 3,
		[':'] = 4, [','] = 5
	};
	const unsigned char *s = (const unsigned char *)text, *p, *q;
	const unsigned char *end = s + n;
	uint32_t koff = 0, klen = 0, voff = 0;
	int depth = 1, want_key = 1, open = 0;

	*nkv = 0;
	if (n < 2 || *s != '{')
		return -1;
	for (p = s + 1; p < end; p++) {
		switch (cls[*p]) {
		case 0:
			if (depth == 1 && want_key) {
				if (*p != ' ')
					return -1;
				continue;
			}
			while (p + 1 < end && cls[p[1]] == 0)
				p++;	/* numbers, literals */
			continue;
		case 1:
			if ((q = string_end(p, end)) == NULL)
				return -1;
			if (depth == 1 && want_key) {
				koff = (uint32_t)(p + 1 - s);
				klen = (uint32_t)(q - p - 2);
				want_key = 0;
			}
			p = q - 1;
			continue;
		case 2:
			if (depth == 1 && !open)
				return -1;
			depth++;
			continue;
		case 3:
			if (--depth > 0)
				continue;
			if (p + 1 != end || (want_key && *nkv > 0) ||
			    (!open && !want_key))
				return -1;
			break;
		case 4:
			if (depth > 1)
				continue;
			if (want_key || open)
				return -1;
			voff = (uint32_t)(p + 1 - s);
			open = 1;
			continue;
		case 5:
			if (depth > 1)
				continue;
			if (!open)
				return -1;
			break;
		}
		/* a first-level ',' or the final '}': the value ends here */
		if (open) {
			if ((uint32_t)(p - s) == voff)
				return -1;
			if (*nkv == *cap) {
				*cap = *cap ? *cap * 2 : 16;
				*kv = mct_xrealloc(*kv, (size_t)*cap * sizeof(**kv));
			}
			(*kv)[*nkv].koff = koff;
			(*kv)[*nkv].klen = klen;
			(*kv)[*nkv].voff = voff;
			(*kv)[*nkv].vlen = (uint32_t)(p - s) - voff;
			(*nkv)++;
			open = 0;
			if (times && (times |= time_pair(s, koff, klen,
			    voff) << 1) == 7)
				return *nkv;
		}
		if (depth == 0)
			return *nkv;
		want_key = 1;
	}
	return -1;
}

/*
 * Index the first-level keys of the compact object text[0..n): a check
 * of its structure (one complete object, "key":value pairs at the first
 * level), not of every token as mct_scan does.  Returns the number of
 * keys, or -1 if the text is not one complete object.
 */
int
mct_index(const char *text, size_t n, struct mct_kv **kv, int *nkv, int *cap)
{
	return index_keys(text, n, kv, nkv, cap, 0);
}

/* mct_index_times() a byte at a time. */
static int
index_times_bytes(const char *text, size_t n, struct mct_kv **kv, int *nkv,
    int *cap)
{
	const unsigned char *s = (const unsigned char *)text;
	int i, m = 0;

	if (index_keys(text, n, kv, nkv, cap, 1) < 0)
		return -1;
	for (i = 0; i < *nkv; i++)
		if (time_pair(s, (*kv)[i].koff, (*kv)[i].klen, (*kv)[i].voff))
			(*kv)[m++] = (*kv)[i];
	return *nkv = m;
}

static int
hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return c - 'A' + 10;
}

static void
put_utf8(struct mct_buf *b, unsigned cp)
{
	char u[4];

	if (cp < 0x80)
		mct_buf_addc(b, (int)cp);
	else if (cp < 0x800) {
		u[0] = (char)(0xc0 | (cp >> 6));
		u[1] = (char)(0x80 | (cp & 0x3f));
		mct_buf_add(b, u, 2);
	} else if (cp < 0x10000) {
		u[0] = (char)(0xe0 | (cp >> 12));
		u[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
		u[2] = (char)(0x80 | (cp & 0x3f));
		mct_buf_add(b, u, 3);
	} else {
		u[0] = (char)(0xf0 | (cp >> 18));
		u[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
		u[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
		u[3] = (char)(0x80 | (cp & 0x3f));
		mct_buf_add(b, u, 4);
	}
}

/*
 * The text of a value: a string unescaped (without quotes), anything
 * else as its JSON text.  Appends to b; returns 0.
 */
int
mct_jstr(const struct mct_val *v, struct mct_buf *b)
{
	const char *p, *end;
	unsigned cp, lo;

	if (v->type != MCT_J_STRING) {
		mct_buf_add(b, v->p, v->len);
		return 0;
	}
	p = v->p + 1;
	end = v->p + v->len - 1;
	while (p < end) {
		const char *q = memchr(p, '\\', (size_t)(end - p));

		if (q == NULL)
			q = end;
		mct_buf_add(b, p, (size_t)(q - p));
		p = q;
		if (p >= end)
			break;
		p++;
		switch (*p) {
		case 'b': mct_buf_addc(b, '\b'); p++; break;
		case 'f': mct_buf_addc(b, '\f'); p++; break;
		case 'n': mct_buf_addc(b, '\n'); p++; break;
		case 'r': mct_buf_addc(b, '\r'); p++; break;
		case 't': mct_buf_addc(b, '\t'); p++; break;
		case 'u':
			if (end - p < 5 || !is_hex(p[1]) || !is_hex(p[2]) ||
			    !is_hex(p[3]) || !is_hex(p[4])) {
				mct_buf_add(b, "\\u", 2);	/* not an escape */
				p++;
				break;
			}
			cp = (unsigned)(hexval(p[1]) << 12 | hexval(p[2]) << 8 |
			    hexval(p[3]) << 4 | hexval(p[4]));
			p += 5;
			if (cp >= 0xd800 && cp < 0xdc00 && end - p >= 6 &&
			    p[0] == '\\' && p[1] == 'u' && is_hex(p[2]) &&
			    is_hex(p[3]) && is_hex(p[4]) && is_hex(p[5])) {
				lo = (unsigned)(hexval(p[2]) << 12 |
				    hexval(p[3]) << 8 | hexval(p[4]) << 4 |
				    hexval(p[5]));
				if (lo >= 0xdc00 && lo < 0xe000) {
					cp = 0x10000 + ((cp - 0xd800) << 10) +
					    (lo - 0xdc00);
					p += 6;
				}
			}
			if (cp >= 0xd800 && cp < 0xe000)
				cp = 0xfffd;
			put_utf8(b, cp);
			break;
		default:
			mct_buf_addc(b, *p);
			p++;
		}
	}
	return 0;
}

/* Is the value the string s[0..n)? */
int
mct_jstr_eq(const struct mct_val *v, const char *s, size_t n)
{
	struct mct_buf b = { 0 };
	int eq;

	if (v->type != MCT_J_STRING)
		return 0;
	if (memchr(v->p, '\\', v->len) == NULL)
		return v->len == n + 2 && memcmp(v->p + 1, s, n) == 0;
	mct_jstr(v, &b);
	eq = b.len == n && memcmp(b.p, s, n) == 0;
	mct_buf_free(&b);
	return eq;
}

/* mct_unspace() a byte at a time. */
static int
unspace_bytes(const char *text, size_t n, struct mct_buf *out)
{
	/* 1 whitespace, 2 '"', 3 opens, 4 closes; 0 copied as it is */
	static const unsigned char cls[256] = {
		[' '] = 1, ['\n'] = 1, ['\r'] = 1, ['\t'] = 1, ['"'] = 2,
		['{'] = 3, ['['] = 3, ['}'] = 4, [']'] = 4
	};
	const unsigned char *p = (const unsigned char *)text, *q;
	const unsigned char *end = p + n;
	char *o;
	int depth = 0, nobj = 0;

	mct_buf_grow(out, n + n / 2 + 64);
	o = out->p + out->len;
	while (p < end) {
		if (depth == 0) {
			if (*p == '{') {
				depth = 1;
				*o++ = '{';
			} else if (!wsp[*p] && *p != ',')
				return -1;
			p++;
			continue;
		}
		switch (cls[*p]) {
		case 0:
			do
				*o++ = (char)*p++;
			while (p < end && cls[*p] == 0);
			continue;
		case 1:
			p = skipws(p, end);
			continue;
		case 2:
			if ((q = string_end(p, end)) == NULL)
				return -1;
			memcpy(o, p, (size_t)(q - p));
			o += q - p;
			p = q;
			continue;
		case 3:
			depth++;
			break;
		case 4:
			if (--depth == 0) {
				*o++ = (char)*p++;
				*o++ = '\n';
				nobj++;
				continue;
			}
			break;
		}
		*o++ = (char)*p++;
	}
	if (depth != 0)
		return -1;
	out->len = (size_t)(o - out->p);
	return nobj;
}

/*
 * The JSON objects of text[0..n), with whitespace, commas and nothing
 * else between them, and each known to be plain (mct_scan() checked it:
 * no repair needed), appended to out compacted, one a line.  No grammar
 * is checked again: whitespace outside strings goes, strings are copied
 * to their closing quote, and the object ends where its braces balance.
 * Returns how many, or -1 if the text is not so (cut, or not objects).
 */
#ifdef __SSE2__
/*
 * mct_unspace() 64 bytes at a time, as simdjson finds structure: a bit a
 * byte for quotes, backslashes, whitespace, braces and commas (SSE2, in
 * every x86-64); the bytes inside strings are those after an odd number
 * of unescaped quotes (a prefix xor); whitespace outside strings goes,
 * the rest is copied in runs, and the braces outside strings tell where
 * each object ends.
 */
struct blk {
	uint64_t	 quote, bslash, space, open, close, comma, colon;
};

static inline uint64_t
mask16x4(__m128i a, __m128i b, __m128i c, __m128i d)
{
	return (uint64_t)(uint16_t)_mm_movemask_epi8(a) |
	    (uint64_t)(uint16_t)_mm_movemask_epi8(b) << 16 |
	    (uint64_t)(uint16_t)_mm_movemask_epi8(c) << 32 |
	    (uint64_t)(uint16_t)_mm_movemask_epi8(d) << 48;
}

static inline __attribute__((always_inline)) void
classify(const unsigned char *p, struct blk *k)
{
	const __m128i v0 = _mm_loadu_si128((const __m128i *)p);
	const __m128i v1 = _mm_loadu_si128((const __m128i *)(p + 16));
	const __m128i v2 = _mm_loadu_si128((const __m128i *)(p + 32));
	const __m128i v3 = _mm_loadu_si128((const __m128i *)(p + 48));
	const __m128i sp = _mm_set1_epi8(0x20);
	__m128i c;
#define EQ(v, x)	_mm_cmpeq_epi8((v), (x))
	c = _mm_set1_epi8('"');
	k->quote = mask16x4(EQ(v0, c), EQ(v1, c), EQ(v2, c), EQ(v3, c));
	c = _mm_set1_epi8('\\');
	k->bslash = mask16x4(EQ(v0, c), EQ(v1, c), EQ(v2, c), EQ(v3, c));
	c = _mm_set1_epi8(',');
	k->comma = mask16x4(EQ(v0, c), EQ(v1, c), EQ(v2, c), EQ(v3, c));
	c = _mm_set1_epi8(':');
	k->colon = mask16x4(EQ(v0, c), EQ(v1, c), EQ(v2, c), EQ(v3, c));
	/* bytes up to ' ' (outside strings only whitespace can be) */
	k->space = mask16x4(EQ(_mm_min_epu8(v0, sp), v0),
	    EQ(_mm_min_epu8(v1, sp), v1), EQ(_mm_min_epu8(v2, sp), v2),
	    EQ(_mm_min_epu8(v3, sp), v3));
	/* '[' | 0x20 is '{', ']' | 0x20 is '}' */
	c = _mm_set1_epi8('{');
	k->open = mask16x4(EQ(_mm_or_si128(v0, sp), c),
	    EQ(_mm_or_si128(v1, sp), c), EQ(_mm_or_si128(v2, sp), c),
	    EQ(_mm_or_si128(v3, sp), c));
	c = _mm_set1_epi8('}');
	k->close = mask16x4(EQ(_mm_or_si128(v0, sp), c),
	    EQ(_mm_or_si128(v1, sp), c), EQ(_mm_or_si128(v2, sp), c),
	    EQ(_mm_or_si128(v3, sp), c));
#undef EQ
}

static inline uint64_t
prefix_xor(uint64_t x)
{
	x ^= x << 1;
	x ^= x << 2;
	x ^= x << 4;
	x ^= x << 8;
	x ^= x << 16;
	x ^= x << 32;
	return x;
}

/* The bits set in x (a call to libgcc without -mpopcnt: too dear here). */
static inline int
ones(uint64_t x)
{
#ifdef __POPCNT__
	return __builtin_popcountll(x);
#else
	x -= (x >> 1) & 0x5555555555555555ULL;
	x = (x & 0x3333333333333333ULL) + ((x >> 2) & 0x3333333333333333ULL);
	x = (x + (x >> 4)) & 0x0f0f0f0f0f0f0f0fULL;
	return (int)((x * 0x0101010101010101ULL) >> 56);
#endif
}

/* Bits a..b (a <= b < 64). */
static inline uint64_t
bits(int a, int b)
{
	return (~0ULL >> (63 - b)) & (~0ULL << a);
}

/* Copy the bytes of p whose bits are set in m to o, in runs; the end. */
static inline char *
runs(char *o, const unsigned char *p, uint64_t m)
{
	int s, r, k;

	while (m) {
		uint64_t t;

		s = __builtin_ctzll(m);
		t = ~(m >> s);
		r = t ? __builtin_ctzll(t) : 64 - s;
		for (k = 0; k < r; k += 16)	/* 16 at a time: room after */
			memcpy(o + k, p + s + k, 16);
		o += r;
		if (s + r >= 64)
			break;
		m &= ~0ULL << (s + r);
	}
	return o;
}

#if defined(__GNUC__) && defined(__x86_64__) && defined(__SSE2__)
#include <tmmintrin.h>
#define PACK	1
/*
 * Copying the kept bytes a run at a time costs a branch or two a run,
 * and Kineto's "k": v, "k2": v2 has a run every few bytes.  Then the
 * bytes go eight at a time through SSSE3's byte shuffle and POPCNT
 * (every x86-64 CPU since 2008 has them; the others keep to runs()):
 * pack8[m] holds the positions of the bits of m in order, 0x80 (a zero
 * byte) after them.
 */
static const uint64_t pack8[256] = {
	0x8080808080808080ULL, 0x8080808080808000ULL, 0x8080808080808001ULL,
	0x8080808080800100ULL, 0x8080808080808002ULL, 0x8080808080800200ULL,
	0x8080808080800201ULL, 0x8080808080020100ULL, 0x8080808080808003ULL,
	0x8080808080800300ULL, 0x8080808080800301ULL, 0x8080808080030100ULL,
	0x8080808080800302ULL, 0x8080808080030200ULL, 0x8080808080030201ULL,
	0x8080808003020100ULL, 0x8080808080808004ULL, 0x8080808080800400ULL,
	0x8080808080800401ULL, 0x8080808080040100ULL, 0x8080808080800402ULL,
	0x8080808080040200ULL, 0x8080808080040201ULL, 0x8080808004020100ULL,
	0x8080808080800403ULL, 0x8080808080040300ULL, 0x8080808080040301ULL,
	0x8080808004030100ULL, 0x8080808080040302ULL, 0x8080808004030200ULL,
	0x8080808004030201ULL, 0x8080800403020100ULL, 0x8080808080808005ULL,
	0x8080808080800500ULL, 0x8080808080800501ULL, 0x8080808080050100ULL,
	0x8080808080800502ULL, 0x8080808080050200ULL, 0x8080808080050201ULL,
	0x8080808005020100ULL, 0x8080808080800503ULL, 0x8080808080050300ULL,
	0x8080808080050301ULL, 0x8080808005030100ULL, 0x8080808080050302ULL,
	0x8080808005030200ULL, 0x8080808005030201ULL, 0x8080800503020100ULL,
	0x8080808080800504ULL, 0x8080808080050400ULL, 0x8080808080050401ULL,
	0x8080808005040100ULL, 0x8080808080050402ULL, 0x8080808005040200ULL,
	0x8080808005040201ULL, 0x8080800504020100ULL, 0x8080808080050403ULL,
	0x8080808005040300ULL, 0x8080808005040301ULL, 0x8080800504030100ULL,
	0x8080808005040302ULL, 0x8080800504030200ULL, 0x8080800504030201ULL,
	0x8080050403020100ULL, 0x8080808080808006ULL, 0x8080808080800600ULL,
	0x8080808080800601ULL, 0x8080808080060100ULL, 0x8080808080800602ULL,
	0x8080808080060200ULL, 0x8080808080060201ULL, 0x8080808006020100ULL,
	0x8080808080800603ULL, 0x8080808080060300ULL, 0x8080808080060301ULL,
	0x8080808006030100ULL, 0x8080808080060302ULL, 0x8080808006030200ULL,
	0x8080808006030201ULL, 0x8080800603020100ULL, 0x8080808080800604ULL,
	0x8080808080060400ULL, 0x8080808080060401ULL, 0x8080808006040100ULL,
	0x8080808080060402ULL, 0x8080808006040200ULL, 0x8080808006040201ULL,
	0x8080800604020100ULL, 0x8080808080060403ULL, 0x8080808006040300ULL,
	0x8080808006040301ULL, 0x8080800604030100ULL, 0x8080808006040302ULL,
	0x8080800604030200ULL, 0x8080800604030201ULL, 0x8080060403020100ULL,
	0x8080808080800605ULL, 0x8080808080060500ULL, 0x8080808080060501ULL,
	0x8080808006050100ULL, 0x8080808080060502ULL, 0x8080808006050200ULL,
	0x8080808006050201ULL, 0x8080800605020100ULL, 0x8080808080060503ULL,
	0x8080808006050300ULL, 0x8080808006050301ULL, 0x8080800605030100ULL,
	0x8080808006050302ULL, 0x8080800605030200ULL, 0x8080800605030201ULL,
	0x8080060503020100ULL, 0x8080808080060504ULL, 0x8080808006050400ULL,
	0x8080808006050401ULL, 0x8080800605040100ULL, 0x8080808006050402ULL,
	0x8080800605040200ULL, 0x8080800605040201ULL, 0x8080060504020100ULL,
	0x8080808006050403ULL, 0x8080800605040300ULL, 0x8080800605040301ULL,
	0x8080060504030100ULL, 0x8080800605040302ULL, 0x8080060504030200ULL,
	0x8080060504030201ULL, 0x8006050403020100ULL, 0x8080808080808007ULL,
	0x8080808080800700ULL, 0x8080808080800701ULL, 0x8080808080070100ULL,
	0x8080808080800702ULL, 0x8080808080070200ULL, 0x8080808080070201ULL,
	0x8080808007020100ULL, 0x8080808080800703ULL, 0x8080808080070300ULL,
	0x8080808080070301ULL, 0x8080808007030100ULL, 0x8080808080070302ULL,
	0x8080808007030200ULL, 0x8080808007030201ULL, 0x8080800703020100ULL,
	0x8080808080800704ULL, 0x8080808080070400ULL, 0x8080808080070401ULL,
	0x8080808007040100ULL, 0x8080808080070402ULL, 0x8080808007040200ULL,
	0x8080808007040201ULL, 0x8080800704020100ULL, 0x8080808080070403ULL,
	0x8080808007040300ULL, 0x8080808007040301ULL, 0x8080800704030100ULL,
	0x8080808007040302ULL, 0x8080800704030200ULL, 0x8080800704030201ULL,
	0x8080070403020100ULL, 0x8080808080800705ULL, 0x8080808080070500ULL,
	0x8080808080070501ULL, 0x8080808007050100ULL, 0x8080808080070502ULL,
	0x8080808007050200ULL, 0x8080808007050201ULL, 0x8080800705020100ULL,
	0x8080808080070503ULL, 0x8080808007050300ULL, 0x8080808007050301ULL,
	0x8080800705030100ULL, 0x8080808007050302ULL, 0x8080800705030200ULL,
	0x8080800705030201ULL, 0x8080070503020100ULL, 0x8080808080070504ULL,
	0x8080808007050400ULL, 0x8080808007050401ULL, 0x8080800705040100ULL,
	0x8080808007050402ULL, 0x8080800705040200ULL, 0x8080800705040201ULL,
	0x8080070504020100ULL, 0x8080808007050403ULL, 0x8080800705040300ULL,
	0x8080800705040301ULL, 0x8080070504030100ULL, 0x8080800705040302ULL,
	0x8080070504030200ULL, 0x8080070504030201ULL, 0x8007050403020100ULL,
	0x8080808080800706ULL, 0x8080808080070600ULL, 0x8080808080070601ULL,
	0x8080808007060100ULL, 0x8080808080070602ULL, 0x8080808007060200ULL,
	0x8080808007060201ULL, 0x8080800706020100ULL, 0x8080808080070603ULL,
	0x8080808007060300ULL, 0x8080808007060301ULL, 0x8080800706030100ULL,
	0x8080808007060302ULL, 0x8080800706030200ULL, 0x8080800706030201ULL,
	0x8080070603020100ULL, 0x8080808080070604ULL, 0x8080808007060400ULL,
	0x8080808007060401ULL, 0x8080800706040100ULL, 0x8080808007060402ULL,
	0x8080800706040200ULL, 0x8080800706040201ULL, 0x8080070604020100ULL,
	0x8080808007060403ULL, 0x8080800706040300ULL, 0x8080800706040301ULL,
	0x8080070604030100ULL, 0x8080800706040302ULL, 0x8080070604030200ULL,
	0x8080070604030201ULL, 0x8007060403020100ULL, 0x8080808080070605ULL,
	0x8080808007060500ULL, 0x8080808007060501ULL, 0x8080800706050100ULL,
	0x8080808007060502ULL, 0x8080800706050200ULL, 0x8080800706050201ULL,
	0x8080070605020100ULL, 0x8080808007060503ULL, 0x8080800706050300ULL,
	0x8080800706050301ULL, 0x8080070605030100ULL, 0x8080800706050302ULL,
	0x8080070605030200ULL, 0x8080070605030201ULL, 0x8007060503020100ULL,
	0x8080808007060504ULL, 0x8080800706050400ULL, 0x8080800706050401ULL,
	0x8080070605040100ULL, 0x8080800706050402ULL, 0x8080070605040200ULL,
	0x8080070605040201ULL, 0x8007060504020100ULL, 0x8080800706050403ULL,
	0x8080070605040300ULL, 0x8080070605040301ULL, 0x8007060504030100ULL,
	0x8080070605040302ULL, 0x8007060504030200ULL, 0x8007060504030201ULL,
	0x0706050403020100ULL,
};

static __attribute__((target("ssse3,popcnt"))) char *
pack(char *o, const unsigned char *p, uint64_t m)
{
	int g;

	for (g = 0; g < 64; g += 8, m >>= 8) {
		unsigned b = (unsigned)m & 0xff;
		__m128i v = _mm_loadl_epi64((const __m128i *)(p + g));
		__m128i s = _mm_cvtsi64_si128((long long)pack8[b]);

		_mm_storel_epi64((__m128i *)o, _mm_shuffle_epi8(v, s));
		o += __builtin_popcount(b);
	}
	return o;
}
#endif

/*
 * Copy the bytes of p whose bits are set in m to o (16 bytes of room
 * after them); the end.
 */
static inline char *
keep_bytes(char *o, const unsigned char *p, uint64_t m)
{
#ifdef PACK
	if (ones(m & ~(m << 1)) > 3 && __builtin_cpu_supports("ssse3") &&
	    __builtin_cpu_supports("popcnt"))
		return pack(o, p, m);
#endif
	return runs(o, p, m);
}

/*
 * The bytes of block k inside strings (their quotes: the opening one in,
 * the closing one out); *escnext and *instr carry what the block before
 * left open: an escaping backslash at its end, a string.
 */
static inline uint64_t
in_strings(const struct blk *k, uint64_t *escnext, uint64_t *instr)
{
	uint64_t esc = 0, in;
	int i;

	if (k->bslash | *escnext) {
		/* a backslash escapes the next byte, unless escaped */
		uint64_t m = k->bslash;

		esc = *escnext;
		m &= ~*escnext;
		*escnext = 0;
		while (m) {
			i = __builtin_ctzll(m);
			if (i == 63) {
				*escnext = 1;
				break;
			}
			esc |= 2ULL << i;
			m &= ~(3ULL << i);
		}
	}
	in = prefix_xor(k->quote & ~esc) ^ *instr;
	*instr = (uint64_t)((int64_t)in >> 63);
	return in;
}

/* Block p[done..n) of 64 bytes, or its last bytes padded with spaces. */
static inline const unsigned char *
block_at(const unsigned char *p, size_t done, size_t n, unsigned char *tail)
{
	if (n - done >= 64 + 16)
		return p + done;
	memset(tail, ' ', 64 + 16);
	memcpy(tail, p + done, n - done < 64 ? n - done : 64);
	return tail;
}

#define NCOLON	32	/* first-level keys of an object noted, at most */

/*
 * Is the first-level colon at c of the compact object that starts at ls
 * in p[0..n) the one of a "ts" (2) or "dur" (3) key with a number after
 * it?  0 if not.  The key is right before it, after '{' or ','.
 */
static inline int
time_key(const char *p, size_t ls, size_t c, size_t n)
{
	if (c + 1 >= n || !(p[c + 1] == '-' || (p[c + 1] >= '0' &&
	    p[c + 1] <= '9')))
		return 0;
	if (c - ls >= 5 && memcmp(p + c - 4, "\"ts\"", 4) == 0 &&
	    (p[c - 5] == '{' || p[c - 5] == ','))
		return 2;
	if (c - ls >= 6 && memcmp(p + c - 5, "\"dur\"", 5) == 0 &&
	    (p[c - 6] == '{' || p[c - 6] == ','))
		return 3;
	return 0;
}

/* The end of the number at p[v..n): its digits eight at a time. */
static inline size_t
number_end(const char *p, size_t v, size_t n)
{
	uint64_t w, m;

	while (v < n) {
		if (v + 8 <= n) {
			__builtin_memcpy(&w, p + v, 8);
			if ((m = mct_nondigits(w)) == 0) {
				v += 8;
				continue;
			}
			v += (size_t)__builtin_ctzll(m) >> 3;
		} else if (p[v] >= '0' && p[v] <= '9') {
			v++;
			continue;
		}
		if (p[v] != '.' && p[v] != '-' && p[v] != '+' && p[v] != 'e' &&
		    p[v] != 'E')
			break;
		v++;
	}
	return v;
}

/*
 * The colons of block p that may follow a "ts" or "dur" key: right after
 * a '"' that comes after an 's' or an 'r', or after a space (a key may
 * be spaced from its colon), or where those bytes are in the block before
 * (its first two).  The others are no time's: not noted.
 */
static inline uint64_t
time_colons(const unsigned char *p, const struct blk *k)
{
	const __m128i one = _mm_set1_epi8(1), sr = _mm_set1_epi8('s');
	uint64_t m;

	/* ('r' | 1 is 's') */
	m = mask16x4(
	    _mm_cmpeq_epi8(_mm_or_si128(_mm_loadu_si128((const __m128i *)p),
	    one), sr),
	    _mm_cmpeq_epi8(_mm_or_si128(_mm_loadu_si128((const __m128i *)(p +
	    16)), one), sr),
	    _mm_cmpeq_epi8(_mm_or_si128(_mm_loadu_si128((const __m128i *)(p +
	    32)), one), sr),
	    _mm_cmpeq_epi8(_mm_or_si128(_mm_loadu_si128((const __m128i *)(p +
	    48)), one), sr));
	return k->colon & ((k->quote << 1 & m << 2) | k->space << 1 | 3);
}

/*
 * Note the first-level colons c of a block (the object's bytes kept from
 * from on go to out at at): where each goes, after the bytes kept before
 * it.  Returns the new count (more than NCOLON: too many to note).
 */
static inline int
colons(size_t *col, int ncol, uint64_t c, size_t at, uint64_t keep,
    int from)
{
	int i;

	while (c) {
		i = __builtin_ctzll(c);
		c &= c - 1;
		if (ncol++ < NCOLON)
			col[ncol - 1] = at + (i > from ?
			    (size_t)ones(keep & bits(from, i - 1)) : 0);
	}
	return ncol;
}

/*
 * Note the "ts" and "dur" numbers among the first-level keys of object
 * nobj, whose line starts at ls in out (what this call appends starts at
 * out0): col[] are where the ':' after each key is (ncol > NCOLON: more
 * than that, not noted).
 */
static void
times_note(struct mct_times *tm, const struct mct_buf *out, size_t out0,
    size_t ls, const size_t *col, int ncol, int nobj)
{
	const char *p = out->p;
	size_t c, v, e;
	int i, klen;

	if (ncol > NCOLON) {
		tm->known = 0;
		return;
	}
	for (i = 0; i < ncol; i++) {
		c = col[i];
		/* (compact now) */
		if ((klen = time_key(p, ls, c, out->len)) == 0)
			continue;
		v = c + 1;
		e = number_end(p, v, out->len);
		if (tm->n == tm->cap) {
			tm->cap = tm->cap ? tm->cap * 2 : 64;
			tm->kv = mct_xrealloc(tm->kv, (size_t)tm->cap *
			    sizeof(*tm->kv));
		}
		tm->kv[tm->n].koff = (uint32_t)nobj;
		tm->kv[tm->n].klen = (uint32_t)klen;
		tm->kv[tm->n].voff = (uint32_t)(v - out0);
		tm->kv[tm->n].vlen = (uint32_t)(e - v);
		tm->n++;
	}
}

int
mct_unspace(const char *text, size_t n, struct mct_buf *out,
    struct mct_times *tm)
{
	const unsigned char *p = (const unsigned char *)text, *b;
	unsigned char tail[64 + 16];
	uint64_t instr = 0, escnext = 0, colon;
	struct blk k;
	char *o;
	int depth = 0, nobj = 0, ncol = 0;
	size_t done, ls = 0, col[NCOLON], out0 = out->len;

	if (tm != NULL) {
		tm->n = 0;
		/* (voff has 32 bits: what is appended stays below 2^32) */
		tm->known = n >= 256 && n < (1ULL << 31);
	}
	if (n < 256)
		return unspace_bytes(text, n, out);	/* not worth the setup */
	/* a line end each ("{}{}" may touch), and room for 16-byte copies */
	mct_buf_grow(out, n + n / 2 + 64);
	o = out->p + out->len;
	for (done = 0; done < n; done += 64) {
		uint64_t in, keep, st, sep;
		int from, i;

		/* whole blocks where 16 more bytes can be read after a run */
		b = block_at(p, done, n, tail);
		classify(b, &k);
		in = in_strings(&k, &escnext, &instr);
		keep = ~(k.space & ~in);
		st = (k.open | k.close) & ~in;
		/* the colons matter at depth 1 only: taken a run at a time */
		colon = tm != NULL && tm->known ? time_colons(b, &k) & ~in : 0;
		sep = k.space | k.comma;	/* between objects, all there is */
		from = 0;
		for (;;) {
			uint64_t before;

			i = st ? __builtin_ctzll(st) : 64;
			if (colon) {
				before = i < 64 ? colon & ((1ULL << i) - 1) :
				    colon;
				colon &= ~before;
				if (depth == 1)
					ncol = colons(col, ncol, before,
					    (size_t)(o - out->p), keep, from);
			}
			if (i == 64)
				break;
			st &= st - 1;
			if (k.open >> i & 1) {
				if (depth++ > 0)
					continue;
				/* an object starts: before it, separators only */
				if (i > from && (bits(from, i - 1) & ~sep) != 0)
					return -1;
				from = i;
				ls = (size_t)(o - out->p);
				ncol = 0;
			} else {
				if (depth == 0)
					return -1;
				if (--depth > 0)
					continue;
				o = keep_bytes(o, b, keep & bits(from, i));
				if (tm != NULL && tm->known) {
					out->len = (size_t)(o - out->p);
					times_note(tm, out, out0, ls, col,
					    ncol, nobj);
				}
				*o++ = '\n';
				nobj++;
				from = i + 1;
			}
		}
		if (from < 64) {
			if (depth > 0)
				o = keep_bytes(o, b, keep & bits(from, 63));
			else if ((bits(from, 63) & ~sep) != 0)
				return -1;
		}
	}
	if (depth != 0 || instr != 0)
		return -1;
	out->len = (size_t)(o - out->p);
	return nobj;
}

/*
 * The first-level "ts" and "dur" numbers of the compact object text[0..n)
 * known to be valid (a spool line), in order, up to the first of each:
 * the reader's, to convert them, when no event has more of them than one
 * of each (the rest of the text is not looked at).  64 bytes at a time
 * as mct_unspace(): the first-level colons, each after its key.  Returns
 * how many, or -1 if the text ends inside the object.
 */
int
mct_index_times(const char *text, size_t n, struct mct_kv **kv, int *nkv,
    int *cap)
{
	const unsigned char *p = (const unsigned char *)text, *b;
	unsigned char tail[64 + 16];
	uint64_t instr = 0, escnext = 0, in, st;
	struct blk k;
	size_t done, c;
	int depth = 0, seen = 0, klen, i;

	*nkv = 0;
	if (n < 64)
		return index_times_bytes(text, n, kv, nkv, cap);
	for (done = 0; done < n; done += 64) {
		b = block_at(p, done, n, tail);
		classify(b, &k);
		in = in_strings(&k, &escnext, &instr);
		st = (k.open | k.close | k.colon) & ~in;
		while (st) {
			i = __builtin_ctzll(st);
			st &= st - 1;
			if (k.open >> i & 1) {
				depth++;
				continue;
			}
			if (k.close >> i & 1) {
				if (--depth == 0)
					return *nkv;
				continue;
			}
			c = done + (size_t)i;
			if (depth != 1 || (klen = time_key(text, 0, c, n)) == 0)
				continue;
			if (*nkv == *cap) {
				*cap = *cap ? *cap * 2 : 16;
				*kv = mct_xrealloc(*kv, (size_t)*cap *
				    sizeof(**kv));
			}
			(*kv)[*nkv].koff = (uint32_t)(c - (size_t)klen - 1);
			(*kv)[*nkv].klen = (uint32_t)klen;
			(*kv)[*nkv].voff = (uint32_t)(c + 1);
			(*kv)[*nkv].vlen = (uint32_t)(number_end(text, c + 1, n) -
			    c - 1);
			(*nkv)++;
			if ((seen |= 1 << klen) == (1 << 2 | 1 << 3))
				return *nkv;	/* a ts and a dur */
		}
	}
	return -1;
}
#else
int
mct_unspace(const char *text, size_t n, struct mct_buf *out,
    struct mct_times *tm)
{
	if (tm != NULL)
		tm->n = tm->known = 0;
	return unspace_bytes(text, n, out);
}

int
mct_index_times(const char *text, size_t n, struct mct_kv **kv, int *nkv,
    int *cap)
{
	return index_times_bytes(text, n, kv, nkv, cap);
}
#endif
