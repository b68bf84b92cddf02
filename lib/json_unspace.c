/*
 * json_unspace.c - mct_unspace(): objects known to be plain (mct_scan()
 * found nothing to repair in them) compacted again at memory speed, one a
 * line, without their grammar checked again; on the way, where the "ts"
 * and "dur" numbers of each are, for the reader to convert them.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "mct.h"
#include "json_private.h"

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
 * mct_unspace() 64 bytes at a time, each block classified as
 * json_private.h does: whitespace outside strings goes, the rest is
 * copied in runs, and the braces outside strings tell where each object
 * ends.
 */

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

#define NCOLON	32	/* first-level keys of an object noted, at most */

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
#else
int
mct_unspace(const char *text, size_t n, struct mct_buf *out,
    struct mct_times *tm)
{
	if (tm != NULL)
		tm->n = tm->known = 0;
	return unspace_bytes(text, n, out);
}

#endif
