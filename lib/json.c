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

#define MAXDEPTH 512

/* Bytes that stop the fast copy loop inside a string. */
static unsigned char strstop[256];
/* Whitespace. */
static unsigned char wsp[256];

static void
tables(void)
{
	static int done;
	int c;

	if (done)
		return;
	for (c = 0; c < 256; c++)
		strstop[c] = c == '"' || c == '\\' || c < 0x20 || c >= 0x80;
	wsp[' '] = wsp['\t'] = wsp['\n'] = wsp['\r'] = 1;
	done = 1;
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

#define EMIT(s, q, n)	do { if ((s)->out) mct_buf_add((s)->out, (q), (n)); } while (0)
#define OUTPOS(s, q)	((s)->out ? (s)->out->len : (size_t)((const char *)(q) - base))

static int
is_hex(int c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') ||
	    (c >= 'A' && c <= 'F');
}

/*
 * Scan a string at p (on its opening quote).  Returns the position after
 * the closing quote, or NULL with *rc set.
 */
static const unsigned char *
scan_string(struct mct_scan *s, const unsigned char *p, const unsigned char *end,
    int *rc)
{
	const unsigned char *q;
	int n;

	EMIT(s, "\"", 1);
	p++;
	for (;;) {
		for (q = p; q < end && !strstop[*q]; q++)
			;
		EMIT(s, p, (size_t)(q - p));
		p = q;
		if (p >= end) {
			*rc = MCT_SCAN_MORE;
			return NULL;
		}
		switch (*p) {
		case '"':
			EMIT(s, "\"", 1);
			return p + 1;
		case '\\':
			if (p + 1 >= end) {
				*rc = MCT_SCAN_MORE;
				return NULL;
			}
			switch (p[1]) {
			case '"': case '\\': case '/': case 'b':
			case 'f': case 'n': case 'r': case 't':
				EMIT(s, p, 2);
				p += 2;
				continue;
			case 'u':
				if (p + 6 > end) {
					*rc = MCT_SCAN_MORE;
					return NULL;
				}
				if (is_hex(p[2]) && is_hex(p[3]) && is_hex(p[4]) &&
				    is_hex(p[5])) {
					EMIT(s, p, 6);
					p += 6;
					continue;
				}
				break;
			}
			/* An invalid escape: keep the backslash as a character. */
			fix(s, MCT_FIX_ESCAPE, p);
			EMIT(s, "\\\\", 2);
			p++;
			continue;
		default:
			if (*p < 0x20) {
				static const char hex[] = "0123456789abcdef";
				char e[6] = { '\\', 'u', '0', '0', hex[*p >> 4],
				    hex[*p & 15] };

				fix(s, MCT_FIX_CTRL, p);
				EMIT(s, e, 6);
				p++;
				continue;
			}
			n = utf8len(p, end);
			if (n < 0) {
				*rc = MCT_SCAN_MORE;
				return NULL;
			}
			if (n == 0) {
				fix(s, MCT_FIX_UTF8, p);
				EMIT(s, "\xef\xbf\xbd", 3);
				p++;
			} else {
				EMIT(s, p, (size_t)n);
				p += n;
			}
		}
	}
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

static int
keyis(const unsigned char *k, size_t n, const char *want)
{
	return strlen(want) == n && memcmp(k, want, n) == 0;
}

/* A ts or dur value: note it for the framer, and unquote a string number. */
static void
note_time(struct mct_scan *s, int isdur, const unsigned char *v, size_t n,
    int quoted)
{
	mct_i128 e6;
	int kind;

	if (mct_dec_e6((const char *)v, n, &e6) != 0)
		return;
	kind = memchr(v, '.', n) ? MCT_TS_FRAC : MCT_TS_INT;
	if (isdur)
		s->dur_kind = kind;
	else {
		s->ts_kind = kind;
		s->ts_e6 = e6;
	}
	if (quoted && s->out) {
		/* "ts":"123" becomes "ts":123: drop the quotes we copied. */
		s->out->len -= n + 2;
		mct_buf_add(s->out, v, n);
	}
}

int
mct_scan(struct mct_scan *s)
{
	const unsigned char *p = (const unsigned char *)s->p;
	const unsigned char *end = (const unsigned char *)s->end;
	const char *base = s->p;
	unsigned char stack[MAXDEPTH];
	const unsigned char *q, *kp = NULL;
	size_t klen = 0, keyout = 0;
	int depth = 0, rc = MCT_SCAN_OK, key1 = 0, inargs = 0;

	tables();
	s->nkv = 0;
	s->fixes = 0;
	s->errpos = NULL;
	s->errmsg = NULL;
	s->has_co_id = s->is_meta = 0;
	s->ts_kind = s->dur_kind = MCT_TS_NONE;

value:
	while (p < end && wsp[*p])
		p++;
	if (p >= end)
		goto more;
	if (depth == 1 && stack[0] == '{')
		s->kv[s->nkv - 1].voff = (uint32_t)OUTPOS(s, p);
	switch (*p) {
	case '{':
		if (depth == MAXDEPTH)
			goto toodeep;
		stack[depth++] = '{';
		EMIT(s, p, 1);
		p++;
		while (p < end && wsp[*p])
			p++;
		if (p >= end)
			goto more;
		if (*p == '}') {
			EMIT(s, p, 1);
			p++;
			depth--;
			goto after;
		}
		goto key;
	case '[':
		if (depth == MAXDEPTH)
			goto toodeep;
		stack[depth++] = '[';
		EMIT(s, p, 1);
		p++;
		while (p < end && wsp[*p])
			p++;
		if (p >= end)
			goto more;
		if (*p == ']') {
			EMIT(s, p, 1);
			p++;
			depth--;
			goto after;
		}
		goto value;
	case '"':
		q = p;
		if ((p = scan_string(s, p, end, &rc)) == NULL)
			goto stop;
		if (s->event && depth == 1 && key1 > 0) {
			size_t n = (size_t)(p - q) - 2;

			if (key1 == 3 && n == 1 && q[1] == 'M')
				s->is_meta = 1;
			else if (key1 <= 2 && n > 0 && n < 64 &&
			    memchr(q + 1, '\\', n) == NULL)
				note_time(s, key1 == 2, q + 1, n, 1);
		}
		goto after;
	case '-': case '0': case '1': case '2': case '3': case '4':
	case '5': case '6': case '7': case '8': case '9':
		q = p;
		if ((p = scan_number(p, end, &rc)) == NULL) {
			if (rc == MCT_SCAN_MORE)
				goto more;
			p = q;
			goto badnum;
		}
		EMIT(s, q, (size_t)(p - q));
		if (s->event && depth == 1 && (key1 == 1 || key1 == 2))
			note_time(s, key1 == 2, q, (size_t)(p - q), 0);
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
	if (*p == 'N' || *p == 'I') {
		fix(s, MCT_FIX_NAN, p);
		EMIT(s, "null", 4);
	} else
		EMIT(s, p, klen);
	p += klen;
	goto after;

key:
	while (p < end && wsp[*p])
		p++;
	if (p >= end)
		goto more;
	if (*p != '"') {
		if (*p == '}' && s->out && s->out->len > 0 &&
		    s->out->p[s->out->len - 1] == ',') {
			/* {"a":1,} */
			fix(s, MCT_FIX_COMMA, p);
			s->out->len--;
			EMIT(s, p, 1);
			p++;
			depth--;
			goto after;
		}
		s->errmsg = "expected a string key";
		goto error;
	}
	keyout = OUTPOS(s, p);
	q = p;
	if ((p = scan_string(s, p, end, &rc)) == NULL)
		goto stop;
	kp = q + 1;
	klen = (size_t)(p - q) - 2;
	if (depth == 1) {
		kv_add(s, keyout + 1, s->out ? s->out->len - keyout - 2 : klen);
		key1 = 0;
		inargs = 0;
		if (s->event) {
			if (keyis(kp, klen, "ts"))
				key1 = 1;
			else if (keyis(kp, klen, "dur"))
				key1 = 2;
			else if (keyis(kp, klen, "ph"))
				key1 = 3;
			else if (keyis(kp, klen, "args"))
				inargs = 1;
		}
	} else if (depth == 2 && inargs && s->event && keyis(kp, klen, "co_id"))
		s->has_co_id = 1;
	while (p < end && wsp[*p])
		p++;
	if (p >= end)
		goto more;
	if (*p != ':') {
		s->errmsg = "expected ':' after a key";
		goto error;
	}
	if (s->toplevel && depth == 1 && keyis(kp, klen, "traceEvents")) {
		q = p + 1;
		while (q < end && wsp[*q])
			q++;
		if (q >= end)
			goto more;
		if (*q == '[') {
			/* The caller takes the keys so far as top-level keys. */
			s->nkv--;
			if (s->out)
				s->out->len = keyout;
			s->p = (const char *)q + 1;
			return MCT_SCAN_TRACE;
		}
	}
	EMIT(s, ":", 1);
	p++;
	goto value;

after:
	if (depth == 0) {
		s->p = (const char *)p;
		return MCT_SCAN_OK;
	}
	if (depth == 1 && stack[0] == '{') {
		struct mct_kv *kv = &s->kv[s->nkv - 1];

		kv->vlen = (uint32_t)(OUTPOS(s, p) - kv->voff);
		key1 = 0;
	}
	while (p < end && wsp[*p])
		p++;
	if (p >= end)
		goto more;
	if (*p == ',') {
		EMIT(s, p, 1);
		p++;
		if (stack[depth - 1] == '{')
			goto key;
		while (p < end && wsp[*p])
			p++;
		if (p < end && *p == ']' && s->out && s->out->len > 0) {
			/* [1,2,] */
			fix(s, MCT_FIX_COMMA, p);
			s->out->len--;
			EMIT(s, p, 1);
			p++;
			depth--;
			goto after;
		}
		goto value;
	}
	if (*p == (stack[depth - 1] == '{' ? '}' : ']')) {
		EMIT(s, p, 1);
		p++;
		depth--;
		goto after;
	}
	s->errmsg = stack[depth - 1] == '{' ? "expected ',' or '}'" :
	    "expected ',' or ']'";
	goto error;

toodeep:
	s->errmsg = "nested too deeply";
	goto error;
badnum:
	s->errmsg = "invalid number";
	goto error;
error:
	s->errpos = (const char *)p;
	return MCT_SCAN_ERROR;
more:
	rc = MCT_SCAN_MORE;
stop:
	if (rc == MCT_SCAN_ERROR && s->errmsg == NULL)
		s->errmsg = "invalid number";
	s->errpos = (const char *)p;
	return rc;
}

/*
 * Skip one value of valid compact JSON at p; *next is set after it.
 * Returns its type.
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
		t = MCT_J_STRING;
		break;
	case '{':
		t = MCT_J_OBJECT;
		break;
	case '[':
		t = MCT_J_ARRAY;
		break;
	case 't':
	case 'f':
		t = MCT_J_BOOL;
		break;
	case 'n':
		t = MCT_J_NULL;
		break;
	default:
		t = MCT_J_NUMBER;
	}
	do {
		switch (*p) {
		case '"':
			for (p++; p < end && *p != '"'; p++)
				if (*p == '\\')
					p++;
			p++;
			break;
		case '{':
		case '[':
			depth++;
			p++;
			break;
		case '}':
		case ']':
			depth--;
			p++;
			break;
		default:
			if (depth == 0) {
				while (p < end && *p != ',' && *p != '}' &&
				    *p != ']' && *p != ':')
					p++;
			} else
				p++;
		}
	} while (depth > 0 && p < end);
	*next = p > end ? end : p;
	return t;
}

/*
 * Index the first-level keys of the compact object text[0..n).
 * Returns the number of keys, or -1 if the text is not an object.
 */
int
mct_index(const char *text, size_t n, struct mct_kv **kv, int *nkv, int *cap)
{
	const char *p = text, *end = text + n, *k;

	*nkv = 0;
	if (n < 2 || *p != '{')
		return -1;
	p++;
	while (p < end && *p == '"') {
		k = p + 1;
		mct_skip(p, end, &p);
		if (p >= end || *p != ':')
			return -1;
		if (*nkv == *cap) {
			*cap = *cap ? *cap * 2 : 16;
			*kv = mct_xrealloc(*kv, (size_t)*cap * sizeof(**kv));
		}
		(*kv)[*nkv].koff = (uint32_t)(k - text);
		(*kv)[*nkv].klen = (uint32_t)(p - 1 - k);
		p++;
		(*kv)[*nkv].voff = (uint32_t)(p - text);
		mct_skip(p, end, &p);
		(*kv)[*nkv].vlen = (uint32_t)(p - text) - (*kv)[*nkv].voff;
		(*nkv)++;
		if (p < end && *p == ',')
			p++;
	}
	return *nkv;
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
			if (end - p < 5) {
				p = end;
				break;
			}
			cp = (unsigned)(hexval(p[1]) << 12 | hexval(p[2]) << 8 |
			    hexval(p[3]) << 4 | hexval(p[4]));
			p += 5;
			if (cp >= 0xd800 && cp < 0xdc00 && end - p >= 6 &&
			    p[0] == '\\' && p[1] == 'u') {
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
