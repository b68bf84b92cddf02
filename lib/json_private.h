/*
 * json_private.h - what the json files share and nothing else includes:
 * whitespace, the end of a string, and the 64-byte block classifier that
 * mct_unspace() and mct_index_times() find structure with.  Included
 * after mct.h (for mct_nondigits()).
 */
#ifndef MCT_JSON_PRIVATE_H
#define MCT_JSON_PRIVATE_H

#include <stdint.h>
#include <string.h>

#include "mct_private.h"

#ifdef __SSE2__
#include <emmintrin.h>
#endif

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

static inline int
is_hex(int c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') ||
	    (c >= 'A' && c <= 'F');
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

#ifdef __SSE2__
/*
 * A block of 64 bytes as simdjson finds structure: a bit a byte for
 * quotes, backslashes, whitespace, braces, commas and colons (SSE2, in
 * every x86-64); the bytes inside strings are those after an odd number
 * of unescaped quotes (a prefix xor).
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

#endif /* __SSE2__ */

#endif /* MCT_JSON_PRIVATE_H */
