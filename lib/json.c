/*
 * json.c - compact JSON known to be valid, as the reader's spool and an
 * mct stream hold it: one value skipped (mct_skip()), the first-level
 * keys of an object indexed (mct_index(), and its "ts" and "dur" numbers
 * alone, mct_index_times()), a string's text (mct_jstr()) and a value's
 * one spelling, the key of what is grouped by it (mct_jcanon()).  Field
 * access is built on these; no grammar is checked again here (mct_scan()
 * of json_scan.c did it).
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "mct.h"
#include "json_private.h"

/*
 * Room for one more key in an index.  The first array takes whole cache
 * lines of its own: the reader's threads each index their events, and
 * two threads' indexes side by side in the heap (one arena) would share
 * a line that both write at every event.
 */
static inline void
kv_room(struct mct_kv **kv, int nkv, int *cap)
{
	struct mct_kv *a;

	if (nkv < *cap)
		return;
	if (*cap == 0) {
		if ((a = aligned_alloc(64, 32 * sizeof(*a))) == NULL)
			mct_nomem("malloc");
		free(*kv);
		*kv = a;
		*cap = 32;
		return;
	}
	*cap *= 2;
	*kv = mct_xrealloc(*kv, (size_t)*cap * sizeof(**kv));
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
			kv_room(kv, *nkv, cap);
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

#ifdef __SSE2__
/* Bits a to b - 1 of a word (0 <= a <= b <= 64). */
static inline uint64_t
bits(int a, int b)
{
	return (b >= 64 ? ~0ULL : (1ULL << b) - 1) & ~(a >= 64 ? ~0ULL :
	    (1ULL << a) - 1);
}

/* A key at the quote s[c] of the text (before end): its ':' after it. */
static inline const unsigned char *
key_at(const unsigned char *s, size_t c, const unsigned char *end)
{
	const unsigned char *q;

	if (s + c >= end || s[c] != '"' || (q = string_end(s + c, end)) ==
	    NULL || q >= end || *q != ':')
		return NULL;
	return q;
}

/* A key kept: at the quote s[c], its ':' at q.  Returns its value's start. */
static inline size_t
key_add(const unsigned char *s, size_t c, const unsigned char *q,
    struct mct_kv **kv, int *nkv, int *cap)
{
	struct mct_kv *e;

	kv_room(kv, *nkv, cap);
	e = &(*kv)[(*nkv)++];
	e->koff = (uint32_t)(c + 1);
	e->klen = (uint32_t)((size_t)(q - s) - c - 2);
	e->voff = (uint32_t)(q - s + 1);
	return e->voff;
}

/*
 * index_keys() 64 bytes at a time, for the compact objects it reads the
 * same way: the braces and brackets outside strings give the bytes of
 * the first level, whose commas end the values; each key is read by
 * string_end() right after its '{' or ',', its ':' right after it.
 * Anything else (whitespace or a backslash outside strings, a first-level
 * ':' that is not a key's, an empty value, an object that does not end
 * at the text's end), valid JSON or not, is -2: index_keys() answers it.
 */
static int
index_blocks(const char *text, size_t n, struct mct_kv **kv, int *nkv,
    int *cap, int *plain)
{
	const unsigned char *s = (const unsigned char *)text, *b, *q;
	const unsigned char *end = s + n;
	unsigned char tail[64 + 16];
	uint64_t instr = 0, escnext = 0, in, valid, x, d1, bs = 0;
	size_t done, c, voff, colons = 0;
	struct blk k;
	int depth = 0, i, from, closed = 0;

	*nkv = 0;
	if (s[0] != '{' || (q = key_at(s, 1, end)) == NULL)
		return -2;
	voff = key_add(s, 1, q, kv, nkv, cap);
	for (done = 0; done < n; done += 64) {
		b = block_at(s, done, n, tail);
		classify(b, &k);
		in = in_strings(&k, &escnext, &instr);
		valid = n - done >= 64 ? ~0ULL : bits(0, (int)(n - done));
		if ((k.space | k.bslash) & ~in & valid)
			return -2;
		bs |= k.bslash & valid;
		/* the first level: the bytes between brackets at depth 1 */
		d1 = 0;
		from = 0;
		for (x = (k.open | k.close) & ~in & valid; x; x &= x - 1) {
			i = __builtin_ctzll(x);
			if (depth == 1)
				d1 |= bits(from, i);
			from = i + 1;
			if (k.open >> i & 1)
				depth++;	/* (the first: s[0]) */
			else if (--depth == 0) {
				if (done + (size_t)i + 1 != n)
					return -2;
				closed = 1;
			}
		}
		if (depth == 1)
			d1 |= bits(from, 64);
		d1 &= ~in & valid;
		for (x = k.colon & d1; x; x &= x - 1)
			colons++;	/* (no popcount in x86-64's baseline) */
		/* each first-level ',': a value ends, a key and its ':' */
		for (x = k.comma & d1; x; x &= x - 1) {
			c = done + (size_t)__builtin_ctzll(x);
			if (c <= voff || (q = key_at(s, c + 1, end)) == NULL)
				return -2;
			(*kv)[*nkv - 1].vlen = (uint32_t)(c - voff);
			voff = key_add(s, c + 1, q, kv, nkv, cap);
		}
	}
	if (!closed || n - 1 <= voff || colons != (size_t)*nkv)
		return -2;
	(*kv)[*nkv - 1].vlen = (uint32_t)(n - 1 - voff);
	*plain = bs == 0;
	return *nkv;
}
#endif

/*
 * Index the first-level keys of the compact object text[0..n): a check
 * of its structure (one complete object, "key":value pairs at the first
 * level), not of every token as mct_scan does.  Returns the number of
 * keys, or -1 if the text is not one complete object.  From 64 bytes on,
 * 64 at a time where index_blocks() can (the same answer).
 */
int
mct_index(const char *text, size_t n, struct mct_kv **kv, int *nkv, int *cap)
{
	int plain;

	return mct_index_plain(text, n, kv, nkv, cap, &plain);
}

/*
 * mct_index(), and *plain 1 if the text surely has no backslash (then no
 * key is spelt with escapes), 0 if it may have one.
 */
int
mct_index_plain(const char *text, size_t n, struct mct_kv **kv, int *nkv,
    int *cap, int *plain)
{
#ifdef __SSE2__
	int r;

	/* (below 64 bytes, a byte at a time: the unit tests compare) */
	if (n >= 64 && (r = index_blocks(text, n, kv, nkv, cap, plain)) != -2)
		return r;
#endif
	*plain = 0;
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
 * The code point of the escape \uXXXX at p (p at the backslash, end the
 * string's end), a UTF-16 pair \uD8XX\uDCXX joined in one; a lone
 * surrogate is returned as it is.  Its length in *n; -1 if p holds no
 * such escape.
 */
static long
esc_u(const char *p, const char *end, size_t *n)
{
	unsigned cp, lo;

	if (end - p < 6 || p[1] != 'u' || !is_hex(p[2]) || !is_hex(p[3]) ||
	    !is_hex(p[4]) || !is_hex(p[5]))
		return -1;
	cp = (unsigned)(hexval(p[2]) << 12 | hexval(p[3]) << 8 |
	    hexval(p[4]) << 4 | hexval(p[5]));
	*n = 6;
	if (cp >= 0xd800 && cp < 0xdc00 && end - p >= 12 && p[6] == '\\' &&
	    p[7] == 'u' && is_hex(p[8]) && is_hex(p[9]) && is_hex(p[10]) &&
	    is_hex(p[11])) {
		lo = (unsigned)(hexval(p[8]) << 12 | hexval(p[9]) << 8 |
		    hexval(p[10]) << 4 | hexval(p[11]));
		if (lo >= 0xdc00 && lo < 0xe000) {
			cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
			*n = 12;
		}
	}
	return (long)cp;
}

/*
 * The text of a value: a string unescaped (without quotes), anything
 * else as its JSON text.  Appends to b; returns 0.
 */
int
mct_jstr(const struct mct_val *v, struct mct_buf *b)
{
	const char *p, *end;
	long cp;
	size_t n;

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
		switch (p[1]) {
		case 'b': mct_buf_addc(b, '\b'); p += 2; break;
		case 'f': mct_buf_addc(b, '\f'); p += 2; break;
		case 'n': mct_buf_addc(b, '\n'); p += 2; break;
		case 'r': mct_buf_addc(b, '\r'); p += 2; break;
		case 't': mct_buf_addc(b, '\t'); p += 2; break;
		case 'u':
			if ((cp = esc_u(p, end, &n)) < 0) {
				mct_buf_add(b, "\\u", 2);	/* not an escape */
				p += 2;
				break;
			}
			p += n;
			if (cp >= 0xd800 && cp < 0xe000)
				cp = 0xfffd;
			put_utf8(b, (unsigned)cp);
			break;
		default:
			if (p + 1 < end)
				mct_buf_addc(b, p[1]);
			p += 2;
		}
	}
	return 0;
}

/*
 * Append the canonical JSON text of a value, one spelling of each string
 * (RFC 8785's, JSON.stringify()'s): its escapes written again, each
 * character as its UTF-8 bytes but for \" and \\, \b \f \n \r \t and
 * the other control characters as \u00xx (lower case), a lone surrogate
 * as \udxxx ("gemm\u005fkernel" is "gemm_kernel", "a\/b" is "a/b").  Raw
 * characters are canonical as they are (the reader escapes a control
 * character and mends bad UTF-8), so a text without a backslash is
 * appended as it is, at the cost of looking for one; escapes are mended
 * one by one, wherever they stand (strings in an array or object too).
 * Returns 1 if the text was spelt otherwise, else 0.
 */
int
mct_jcanon(const char *p, size_t len, struct mct_buf *b)
{
	static const char hex[] = "0123456789abcdef", shortesc[] = "btnvfr";
	const char *end = p + len, *q;
	size_t start = b->len, n;
	long cp;

	if ((q = memchr(p, '\\', len)) == NULL) {
		mct_buf_add(b, p, len);
		return 0;
	}
	do {
		mct_buf_add(b, p, (size_t)(q - p));
		p = q;
		if (p + 1 >= end)
			break;
		if (p[1] != 'u') {
			if (p[1] == '/')
				mct_buf_addc(b, '/');
			else
				mct_buf_add(b, p, 2);
			p += 2;
			continue;
		}
		if ((cp = esc_u(p, end, &n)) < 0) {
			mct_buf_add(b, p, 2);
			p += 2;
			continue;
		}
		p += n;
		if (cp == '"' || cp == '\\') {
			mct_buf_addc(b, '\\');
			mct_buf_addc(b, (int)cp);
		} else if (cp >= 8 && cp <= 13 && cp != 11) {
			mct_buf_addc(b, '\\');
			mct_buf_addc(b, shortesc[cp - 8]);
		} else if (cp < 0x20 || (cp >= 0xd800 && cp < 0xe000)) {
			char e[6] = { '\\', 'u', hex[cp >> 12],
			    hex[(cp >> 8) & 15], hex[(cp >> 4) & 15], hex[cp & 15] };

			mct_buf_add(b, e, 6);
		} else
			put_utf8(b, (unsigned)cp);
	} while ((q = memchr(p, '\\', (size_t)(end - p))) != NULL);
	mct_buf_add(b, p, (size_t)(end - p));
	return b->len - start != len ||
	    (len > 0 && memcmp(b->p + start, end - len, len) != 0);
}

/* Is the value the string s[0..n)? */
int
mct_jstr_eq(const struct mct_val *v, const char *s, size_t n)
{
	struct mct_buf b = { 0 };
	int eq;

	if (v->type != MCT_J_STRING || v->len < n + 2)
		return 0;	/* (escapes only make the text longer) */
	if (n == 1 && v->len == 3 && v->p[1] != '\\' && v->p[2] == '"')
		return v->p[1] == s[0];	/* a ph: one character, no escape */
	if (v->len == n + 2 && memcmp(v->p + 1, s, n) == 0)
		return memchr(s, '\\', n) == NULL;	/* as it is, or escaped */
	if (memchr(v->p, '\\', v->len) == NULL)
		return 0;
	mct_jstr(v, &b);
	eq = b.len == n && memcmp(b.p, s, n) == 0;
	mct_buf_free(&b);
	return eq;
}

/*
 * Does the string value begin with pre[0..k) (a text with no '"', '\\'
 * or control character)?  Its raw bytes answer unless they leave pre at
 * a backslash: only then is it decoded ("nn\u002eModule: " begins with
 * "nn.Module: ").
 */
int
mct_jstr_prefix(const struct mct_val *v, const char *pre, size_t k)
{
	struct mct_buf b = { 0 };
	size_t i;
	int is;

	if (v->type != MCT_J_STRING || v->len < k + 2)
		return 0;	/* (escapes only make the text longer) */
	for (i = 0; i < k && v->p[1 + i] == pre[i]; i++)
		;
	if (i == k)
		return 1;
	if (v->p[1 + i] != '\\')
		return 0;
	mct_jstr(v, &b);
	is = b.len >= k && memcmp(b.p, pre, k) == 0;
	mct_buf_free(&b);
	return is;
}

/*
 * The first-level "ts" and "dur" numbers of the compact object text[0..n)
 * known to be valid (a spool line), in order, up to the first of each:
 * the reader's, to convert them, when no event has more of them than one
 * of each (the rest of the text is not looked at).  64 bytes at a time
 * as mct_unspace(): the first-level colons, each after its key.  Returns
 * how many, or -1 if the text ends inside the object.
 */
#ifdef __SSE2__
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
			kv_room(kv, *nkv, cap);
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
mct_index_times(const char *text, size_t n, struct mct_kv **kv, int *nkv,
    int *cap)
{
	return index_times_bytes(text, n, kv, nkv, cap);
}
#endif
