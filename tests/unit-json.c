/*
 * unit-json.c - json.c: the scanner (compaction, repairs, event mode and
 * the ts/dur it notes), unspacing, and mct_skip, mct_index, mct_jstr on
 * compact text; and json-c in strict mode for unit-differential.c.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "mct.h"
#include "unit.h"

/* Scan text[0..n) into a fresh out buffer (if out), NUL-terminated. */
int
scan(const char *text, size_t n, int event, int index, struct mct_buf *out,
    struct mct_scan *s)
{
	struct mct_kv *kv = s->kv;
	int kvcap = s->kvcap, rc;

	memset(s, 0, sizeof(*s));
	s->kv = kv;
	s->kvcap = kvcap;
	s->p = text;
	s->end = text + n;
	s->out = out;
	s->event = event;
	s->index = index;
	if (out)
		out->len = 0;
	rc = mct_scan(s);
	if (out) {
		mct_buf_grow(out, 0);
		out->p[out->len] = '\0';
	}
	return rc;
}

const char *
rcname(int rc)
{
	switch (rc) {
	case MCT_SCAN_OK: return "OK";
	case MCT_SCAN_MORE: return "MORE";
	case MCT_SCAN_ERROR: return "ERROR";
	case MCT_SCAN_TRACE: return "TRACE";
	}
	return "?";
}

/* Scan text; expect rc, the output (if OK), fixes, errmsg (if ERROR). */
static void
t_scan(const char *text, size_t n, int want_rc, const char *want_out,
    unsigned want_fixes, const char *want_msg)
{
	struct mct_buf out = { 0 };
	struct mct_scan s = { 0 };
	int rc = scan(text, n, 0, 0, &out, &s), pass;
	const char *got = out.p ? out.p : "";

	pass = rc == want_rc && s.fixes == want_fixes;
	if (want_out)
		pass = pass && out.len == strlen(want_out) &&
		    memcmp(got, want_out, out.len) == 0;
	if (want_msg)
		pass = pass && s.errmsg && strcmp(s.errmsg, want_msg) == 0;
	if (want_rc == MCT_SCAN_OK && want_out)
		pass = pass && s.p == text + n;
	ok(pass, "mct_scan \"%s\" -> %s%s%s%s", esc(text, n), rcname(want_rc),
	    want_out ? " \"" : "", want_out ? esc(want_out, strlen(want_out)) :
	    "", want_out ? "\"" : "");
	if (!pass)
		diag("got %s, fixes %#x, errmsg %s, out \"%s\", p at %td",
		    rcname(rc), s.fixes, s.errmsg ? s.errmsg : "-",
		    esc(got, out.len), s.p - text);
	/*
	 * .plain: no repair; .spaced: the copy is shorter than the text,
	 * whitespace gone (only whitespace, being plain).  Said alike
	 * without .out, where there is no copy to measure.
	 */
	if (rc == MCT_SCAN_OK && (s.plain != (s.fixes == 0) ||
	    (s.plain && s.spaced != (out.len != (size_t)(s.p - text)))))
		ok(0, "mct_scan .plain %d .spaced %d on \"%s\"", s.plain,
		    s.spaced, esc(text, n));
	/* Without .out the result is the same (trailing commas aside). */
	if (!(want_fixes & MCT_FIX_COMMA)) {
		int plain = s.plain, spaced = s.spaced;
		int rc0 = scan(text, n, 0, 0, NULL, &s);

		if (rc0 != rc)
			ok(0, "mct_scan without .out agrees on \"%s\" (%s vs %s)",
			    esc(text, n), rcname(rc0), rcname(rc));
		else if (rc == MCT_SCAN_OK &&
		    (s.plain != plain || s.spaced != spaced))
			ok(0, "mct_scan without .out: .plain %d .spaced %d on "
			    "\"%s\" (with .out: %d %d)", s.plain, s.spaced,
			    esc(text, n), plain, spaced);
	}
	free(s.kv);
	mct_buf_free(&out);
}

#define TS(text, rc, out, fixes, msg) \
	t_scan((text), sizeof(text) - 1, (rc), (out), (fixes), (msg))

/* Is t[0..n) a JSON number (RFC 8259)?  Independent of lib/. */
int
json_number(const char *t, size_t n)
{
	size_t i = 0;

	if (i < n && t[i] == '-')
		i++;
	if (i < n && t[i] == '0')
		i++;
	else if (i < n && t[i] >= '1' && t[i] <= '9')
		while (i < n && t[i] >= '0' && t[i] <= '9')
			i++;
	else
		return 0;
	if (i < n && t[i] == '.') {
		i++;
		if (i >= n || t[i] < '0' || t[i] > '9')
			return 0;
		while (i < n && t[i] >= '0' && t[i] <= '9')
			i++;
	}
	if (i < n && (t[i] == 'e' || t[i] == 'E')) {
		i++;
		if (i < n && (t[i] == '+' || t[i] == '-'))
			i++;
		if (i >= n || t[i] < '0' || t[i] > '9')
			return 0;
		while (i < n && t[i] >= '0' && t[i] <= '9')
			i++;
	}
	return i == n;
}

/*
 * json-c in strict mode, as the oracle.  json-c 0.16 leaves a pending high
 * surrogate in the tokener after an error (a following parse of "\u0041"
 * gives U+FFFD A even after json_tokener_reset()), so a parse that fails
 * gets a new tokener.
 */
static struct json_tokener *jtok;

int
jws(unsigned char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

int
only_ws(const char *p, const char *end)
{
	for (; p < end; p++)
		if (!jws((unsigned char)*p))
			return 0;
	return 1;
}

/* Parse t[0..n) with json-c (t[n] is NUL).  Returns accepted or not. */
int
jc_parse(const char *t, size_t n, json_object **op)
{
	json_object *o;
	int good;

	if (jtok == NULL) {
		jtok = json_tokener_new_ex(600);
		json_tokener_set_flags(jtok, JSON_TOKENER_STRICT);
	} else
		json_tokener_reset(jtok);
	o = json_tokener_parse_ex(jtok, t, (int)n + 1);
	good = json_tokener_get_error(jtok) == json_tokener_success &&
	    only_ws(t + json_tokener_get_parse_end(jtok), t + n);
	if (!good) {
		json_object_put(o);
		o = NULL;
		json_tokener_free(jtok);
		jtok = NULL;
	}
	if (op)
		*op = o;
	else
		json_object_put(o);
	return good;
}

/* Free jc_parse()'s tokener. */
void
jc_free(void)
{
	if (jtok)
		json_tokener_free(jtok);
	jtok = NULL;
}

/* Does json-c accept the compact text, and does mct rescan it unchanged? */
int
valid_compact(const char *t, size_t n)
{
	struct mct_buf out = { 0 }, copy = { 0 };
	struct mct_scan s = { 0 };
	int good;

	mct_buf_add(&copy, t, n);
	good = jc_parse(copy.p, n, NULL);
	/* the NUL after the text ends a bare number, as a newline would */
	good = good && scan(copy.p, n + 1, 0, 0, &out, &s) == MCT_SCAN_OK &&
	    s.fixes == 0 && s.p == copy.p + n && out.len == n &&
	    memcmp(out.p, t, n) == 0;
	free(s.kv);
	mct_buf_free(&out);
	mct_buf_free(&copy);
	return good;
}

void
test_scan(void)
{
	struct mct_buf out = { 0 };
	struct mct_scan s = { 0 };
	struct mct_buf deep = { 0 };
	const char *t;
	int rc, i;

	/* valid values: compacted, texts kept */
	TS("{ \"a\" : 1 , \"b\" : [ 1 , 2 ] }", MCT_SCAN_OK,
	    "{\"a\":1,\"b\":[1,2]}", 0, NULL);
	TS("{\n\t\"a\":\r\n  {  }  ,\"b\":[ ]}", MCT_SCAN_OK, "{\"a\":{},\"b\":[]}",
	    0, NULL);
	TS("{\"n\":[1.10,-0.0e+5,12345678901234567890123,0,-0,1E-7,3e0010]}",
	    MCT_SCAN_OK,
	    "{\"n\":[1.10,-0.0e+5,12345678901234567890123,0,-0,1E-7,3e0010]}",
	    0, NULL);
	TS("{\"s\":\"\\u00e9\\n\\\"x\\\\\\/\\b\\f\\r\\t\\uD83D\\uDE00\"}", MCT_SCAN_OK,
	    "{\"s\":\"\\u00e9\\n\\\"x\\\\\\/\\b\\f\\r\\t\\uD83D\\uDE00\"}", 0, NULL);
	TS("{\"u\":\"\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\xf4\x8f\xbf\xbf\"}",
	    MCT_SCAN_OK, "{\"u\":\"\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80"
	    "\xf4\x8f\xbf\xbf\"}", 0, NULL);
	TS("{\"t\":true,\"f\":false,\"z\":null}", MCT_SCAN_OK,
	    "{\"t\":true,\"f\":false,\"z\":null}", 0, NULL);
	TS("[ 1 , \"x\" , [ ] , { } ]", MCT_SCAN_OK, "[1,\"x\",[],{}]", 0, NULL);
	TS("\"a b\"", MCT_SCAN_OK, "\"a b\"", 0, NULL);
	TS("true", MCT_SCAN_OK, "true", 0, NULL);
	TS("{\"long\":\"abcdefghijklmnopqrstuvwxyz0123456789 abcdefghij\"}",
	    MCT_SCAN_OK, "{\"long\":\"abcdefghijklmnopqrstuvwxyz0123456789 "
	    "abcdefghij\"}", 0, NULL);
	TS("{\"a\":                                        1}", MCT_SCAN_OK,
	    "{\"a\":1}", 0, NULL);
	TS("{\"a\":\"\x7f\"}", MCT_SCAN_OK, "{\"a\":\"\x7f\"}", 0, NULL);

	/* syntax errors */
	TS("{\"a\":1 \"b\":2}", MCT_SCAN_ERROR, NULL, 0, "expected ',' or '}'");
	TS("[1 2]", MCT_SCAN_ERROR, NULL, 0, "expected ',' or ']'");
	TS("{\"a\" 1}", MCT_SCAN_ERROR, NULL, 0, "expected ':' after a key");
	TS("{1:2}", MCT_SCAN_ERROR, NULL, 0, "expected a string key");
	TS("{'a':1}", MCT_SCAN_ERROR, NULL, 0, "expected a string key");
	TS("{\"a\":x}", MCT_SCAN_ERROR, NULL, 0, "unexpected character");
	TS("{\"a\":'x'}", MCT_SCAN_ERROR, NULL, 0, "unexpected character");
	TS("{\"a\":tru}", MCT_SCAN_ERROR, NULL, 0, "invalid literal");
	TS("{\"a\":nul,\"b\":1}", MCT_SCAN_ERROR, NULL, 0, "invalid literal");
	TS("{\"a\":True}", MCT_SCAN_ERROR, NULL, 0, "unexpected character");
	TS("{\"a\":01}", MCT_SCAN_ERROR, NULL, 0, "expected ',' or '}'");
	TS("{\"a\":-01}", MCT_SCAN_ERROR, NULL, 0, "expected ',' or '}'");
	TS("{\"a\":-}", MCT_SCAN_ERROR, NULL, 0, "invalid number");
	TS("{\"a\":1.}", MCT_SCAN_ERROR, NULL, 0, "invalid number");
	TS("{\"a\":.5}", MCT_SCAN_ERROR, NULL, 0, "unexpected character");
	TS("{\"a\":+1}", MCT_SCAN_ERROR, NULL, 0, "unexpected character");
	TS("{\"a\":1e}", MCT_SCAN_ERROR, NULL, 0, "invalid number");
	TS("{\"a\":1e+}", MCT_SCAN_ERROR, NULL, 0, "invalid number");
	TS("{\"a\":-Inf}", MCT_SCAN_ERROR, NULL, 0, "invalid literal");
	TS("{\"a\":1,,\"b\":2}", MCT_SCAN_ERROR, NULL, 0, "expected a string key");
	TS("[1,,2]", MCT_SCAN_ERROR, NULL, 0, "unexpected character");
	TS("{,}", MCT_SCAN_ERROR, NULL, 0, "expected a string key");
	TS("[,]", MCT_SCAN_ERROR, NULL, 0, "unexpected character");
	TS("{\"a\":1]", MCT_SCAN_ERROR, NULL, 0, "expected ',' or '}'");
	TS("{\"a\"\v:1}", MCT_SCAN_ERROR, NULL, 0, "expected ':' after a key");
	TS("{/*c*/\"a\":1}", MCT_SCAN_ERROR, NULL, 0, "expected a string key");

	/* errpos points at the offending byte */
	t = "{\"a\":1 \"b\":2}";
	rc = scan(t, strlen(t), 0, 0, &out, &s);
	ok(rc == MCT_SCAN_ERROR && s.errpos == t + 7,
	    "mct_scan: errpos is the offset of the unexpected byte (7, got %td)",
	    s.errpos - t);

	/* the text ends inside the value */
	TS("{\"a\":", MCT_SCAN_MORE, NULL, 0, NULL);
	TS("{\"a\"", MCT_SCAN_MORE, NULL, 0, NULL);
	TS("{", MCT_SCAN_MORE, NULL, 0, NULL);
	TS("{ ", MCT_SCAN_MORE, NULL, 0, NULL);
	TS("", MCT_SCAN_MORE, NULL, 0, NULL);
	TS("  ", MCT_SCAN_MORE, NULL, 0, NULL);
	TS("{\"a\":\"xy", MCT_SCAN_MORE, NULL, 0, NULL);
	TS("{\"a\":\"abcdefghijklmnopq", MCT_SCAN_MORE, NULL, 0, NULL);
	TS("{\"a\":1", MCT_SCAN_MORE, NULL, 0, NULL);
	TS("{\"a\":1.5e", MCT_SCAN_MORE, NULL, 0, NULL);
	TS("{\"a\":-", MCT_SCAN_MORE, NULL, 0, NULL);
	TS("{\"a\":tr", MCT_SCAN_MORE, NULL, 0, NULL);
	TS("{\"a\":\"\\", MCT_SCAN_MORE, NULL, 0, NULL);
	TS("{\"a\":\"\\u12", MCT_SCAN_MORE, NULL, 0, NULL);
	TS("{\"a\":\"\xe2\x82", MCT_SCAN_MORE, NULL, 0, NULL);
	TS("{\"a\":[1,{\"b\":", MCT_SCAN_MORE, NULL, 0, NULL);
	TS("12", MCT_SCAN_MORE, NULL, 0, NULL);	/* a number needs its end */
	TS("12 ", MCT_SCAN_OK, NULL, 0, NULL);
	/* A complete object ending in a bad \u escape is not "cut off". */
	{
		const char *u = "{\"a\":\"\\u1\"}";

		rc = scan(u, strlen(u), 0, 0, &out, &s);
		ok(rc == MCT_SCAN_OK && s.fixes == MCT_FIX_ESCAPE,
		    "mct_scan \"%s\" at the very end of the "
		    "text -> OK with MCT_FIX_ESCAPE (got %s)", ESC(u), rcname(rc));
		rc = scan("{\"a\":\"\\u1\"} ", strlen(u) + 1, 0, 0, &out, &s);
		ok(rc == MCT_SCAN_OK && s.fixes == MCT_FIX_ESCAPE,
		    "mct_scan \"%s \" -> OK with MCT_FIX_ESCAPE", ESC(u));
	}

	/* repairs */
	TS("{\"a\":\"x\\qy\"}", MCT_SCAN_OK, "{\"a\":\"x\\\\qy\"}", MCT_FIX_ESCAPE,
	    NULL);
	TS("{\"a\":\"\\u12zz\"}", MCT_SCAN_OK, "{\"a\":\"\\\\u12zz\"}",
	    MCT_FIX_ESCAPE, NULL);
	TS("{\"a\":\"x\ty\"}", MCT_SCAN_OK, "{\"a\":\"x\\u0009y\"}", MCT_FIX_CTRL,
	    NULL);
	TS("{\"a\":\"\x01\x1f\"}", MCT_SCAN_OK, "{\"a\":\"\\u0001\\u001f\"}",
	    MCT_FIX_CTRL, NULL);
	TS("{\"a\":\"x\0y\"}", MCT_SCAN_OK, "{\"a\":\"x\\u0000y\"}", MCT_FIX_CTRL,
	    NULL);
	TS("{\"a\":\"\xff\"}", MCT_SCAN_OK, "{\"a\":\"\xef\xbf\xbd\"}",
	    MCT_FIX_UTF8, NULL);
	TS("{\"a\":\"\xc0\x80\"}", MCT_SCAN_OK,
	    "{\"a\":\"\xef\xbf\xbd\xef\xbf\xbd\"}", MCT_FIX_UTF8, NULL);
	TS("{\"a\":\"\xed\xa0\x80\"}", MCT_SCAN_OK,
	    "{\"a\":\"\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\"}", MCT_FIX_UTF8, NULL);
	TS("{\"a\":\"\xe2\x82x\"}", MCT_SCAN_OK,
	    "{\"a\":\"\xef\xbf\xbd\xef\xbf\xbdx\"}", MCT_FIX_UTF8, NULL);
	TS("{\"a\":\"\xf4\x90\x80\x80\"}", MCT_SCAN_OK, NULL, MCT_FIX_UTF8, NULL);
	TS("{\"a\":1,}", MCT_SCAN_OK, "{\"a\":1}", MCT_FIX_COMMA, NULL);
	TS("{\"a\":1 , }", MCT_SCAN_OK, "{\"a\":1}", MCT_FIX_COMMA, NULL);
	TS("[1,2,]", MCT_SCAN_OK, "[1,2]", MCT_FIX_COMMA, NULL);
	TS("{\"a\":[1, ],\"b\":{\"c\":[],},}", MCT_SCAN_OK,
	    "{\"a\":[1],\"b\":{\"c\":[]}}", MCT_FIX_COMMA, NULL);
	TS("{\"a\":NaN,\"b\":Infinity,\"c\":-Infinity}", MCT_SCAN_OK,
	    "{\"a\":null,\"b\":null,\"c\":null}",
	    MCT_FIX_NAN, NULL);
	TS("{\"a\":\"\\q\x01\xff\",\"b\":[NaN,],}", MCT_SCAN_OK,
	    "{\"a\":\"\\\\q\\u0001\xef\xbf\xbd\",\"b\":[null]}",
	    MCT_FIX_ESCAPE | MCT_FIX_CTRL | MCT_FIX_UTF8 | MCT_FIX_COMMA |
	    MCT_FIX_NAN, NULL);
	TS("{\"\\q\x01\":1}", MCT_SCAN_OK, "{\"\\\\q\\u0001\":1}",
	    MCT_FIX_ESCAPE | MCT_FIX_CTRL, NULL);
	t = "{\"a\":\"ok\",\"b\":\"x\\q\x01\"}";
	rc = scan(t, strlen(t), 0, 0, &out, &s);
	ok(rc == MCT_SCAN_OK && s.fixpos == t + 16,
	    "mct_scan: fixpos is where the first repair was needed (16, got %td)",
	    s.fixpos ? s.fixpos - t : -1);
	/* A repaired output needs no more repairs and is valid JSON. */
	t = "{\"a\":\"\\q\x01\xff\xc0\",\"b\":[NaN,Infinity,],}";
	rc = scan(t, strlen(t), 0, 0, &out, &s);
	ok(rc == MCT_SCAN_OK && valid_compact(out.p, out.len),
	    "mct_scan: a repaired copy is valid JSON that needs no repair");
	/* Repairs that grow the text a lot still fit (the buffer grows). */
	{
		struct mct_buf big = { 0 };

		mct_buf_adds(&big, "{\"a\":\"");
		for (i = 0; i < 5000; i++)
			mct_buf_addc(&big, i % 2 ? 0x01 : 0xff);
		mct_buf_adds(&big, "\"}");
		rc = scan(big.p, big.len, 0, 0, &out, &s);
		ok(rc == MCT_SCAN_OK && out.len == 6 + 2500 * 6 + 2500 * 3 + 2 &&
		    valid_compact(out.p, out.len),
		    "mct_scan: 5000 repaired bytes make a %d-byte copy (got %zu)",
		    6 + 2500 * 9 + 2, out.len);
		mct_buf_free(&big);
	}

	/* The output is appended to what the buffer holds. */
	free(s.kv);
	out.len = 0;
	mct_buf_adds(&out, "X");
	memset(&s, 0, sizeof(s));
	s.p = "{ \"a\" : 1 }";
	s.end = s.p + strlen(s.p);
	s.out = &out;
	s.index = 1;
	rc = mct_scan(&s);
	ok(rc == MCT_SCAN_OK && out.len == 8 && memcmp(out.p, "X{\"a\":1}", 8) == 0 &&
	    s.nkv == 1 && s.kv[0].koff == 3 && s.kv[0].klen == 1 &&
	    s.kv[0].voff == 6 && s.kv[0].vlen == 1,
	    "mct_scan appends to .out; .kv offsets count from out->p");

	/* p is left after the value */
	t = "{\"a\":1} {\"b\":2}";
	rc = scan(t, strlen(t), 0, 0, &out, &s);
	ok(rc == MCT_SCAN_OK && s.p == t + 7 && out.len == 7,
	    "mct_scan stops after the first value (p at 7, got %td)", s.p - t);

	/* nesting: 512 levels, not 513 */
	for (i = 0; i < 512; i++)
		mct_buf_addc(&deep, '[');
	for (i = 0; i < 512; i++)
		mct_buf_addc(&deep, ']');
	rc = scan(deep.p, deep.len, 0, 0, &out, &s);
	ok(rc == MCT_SCAN_OK && out.len == 1024, "mct_scan: 512 nested arrays");
	deep.len = 0;
	for (i = 0; i < 513; i++)
		mct_buf_addc(&deep, i % 2 ? '[' : '{');
	rc = scan(deep.p, deep.len, 0, 0, &out, &s);
	ok(rc == MCT_SCAN_ERROR, "mct_scan: 513 nested levels are an error (%s)",
	    s.errmsg ? s.errmsg : "-");
	deep.len = 0;
	for (i = 0; i < 600; i++)
		mct_buf_adds(&deep, "{\"a\":");
	rc = scan(deep.p, deep.len, 0, 0, &out, &s);
	ok(rc == MCT_SCAN_ERROR && s.errmsg &&
	    strcmp(s.errmsg, "nested too deeply") == 0,
	    "mct_scan: 600 nested objects: \"nested too deeply\"");
	mct_buf_free(&deep);

	/* the index of first-level keys, with and without .out */
	t = "{ \"ts\" : 1 , \"name\" : \"x\" , \"args\" : { \"a\" : [ 1 ] } , "
	    "\"k\\\"q\" : null }";
	rc = scan(t, strlen(t), 0, 1, &out, &s);
	ok(rc == MCT_SCAN_OK && s.nkv == 4 &&
	    s.kv[0].klen == 2 && memcmp(out.p + s.kv[0].koff, "ts", 2) == 0 &&
	    s.kv[0].vlen == 1 && memcmp(out.p + s.kv[0].voff, "1", 1) == 0 &&
	    s.kv[1].klen == 4 && memcmp(out.p + s.kv[1].koff, "name", 4) == 0 &&
	    s.kv[1].vlen == 3 && memcmp(out.p + s.kv[1].voff, "\"x\"", 3) == 0 &&
	    s.kv[2].vlen == 9 &&
	    memcmp(out.p + s.kv[2].voff, "{\"a\":[1]}", 9) == 0 &&
	    s.kv[3].klen == 4 && memcmp(out.p + s.kv[3].koff, "k\\\"q", 4) == 0 &&
	    s.kv[3].vlen == 4 && memcmp(out.p + s.kv[3].voff, "null", 4) == 0,
	    "mct_scan .index with .out: keys and values in the compact copy");
	rc = scan(t, strlen(t), 0, 1, NULL, &s);
	ok(rc == MCT_SCAN_OK && s.nkv == 4 &&
	    s.kv[0].klen == 2 && memcmp(t + s.kv[0].koff, "ts", 2) == 0 &&
	    s.kv[1].klen == 4 && memcmp(t + s.kv[1].koff, "name", 4) == 0 &&
	    memcmp(t + s.kv[1].voff, "\"x\"", 3) == 0 && s.kv[1].vlen == 3 &&
	    s.kv[2].vlen == 15 &&
	    memcmp(t + s.kv[2].voff, "{ \"a\" : [ 1 ] }", 15) == 0 &&
	    s.kv[3].klen == 4 && memcmp(t + s.kv[3].koff, "k\\\"q", 4) == 0,
	    "mct_scan .index without .out: offsets into the input text");
	rc = scan("[{\"a\":1}]", 9, 0, 1, &out, &s);
	ok(rc == MCT_SCAN_OK && s.nkv == 0, "mct_scan .index: keys of nested "
	    "objects are not first-level keys");
	rc = scan("{\"a\":{\"b\":1},\"c\":[{\"d\":2}]}", 27, 0, 1, &out, &s);
	ok(rc == MCT_SCAN_OK && s.nkv == 2 && s.kv[1].klen == 1 &&
	    out.p[s.kv[1].koff] == 'c' && s.kv[0].vlen == 7 && s.kv[1].vlen == 9,
	    "mct_scan .index: values that are containers span them whole");

	/* the top-level "traceEvents": [ */
	free(s.kv);
	memset(&s, 0, sizeof(s));
	t = "{\"otherData\" : {\"v\":1} , \"traceEvents\" : [ {\"ts\":1} ] }";
	s.p = t;
	s.end = t + strlen(t);
	out.len = 0;
	s.out = &out;
	s.toplevel = s.index = 1;
	rc = mct_scan(&s);
	ok(rc == MCT_SCAN_TRACE && s.p == strchr(t, '[') + 1 && s.nkv == 1 &&
	    out.len == 21 && memcmp(out.p, "{\"otherData\":{\"v\":1},", 21) == 0 &&
	    s.kv[0].klen == 9 && s.kv[0].vlen == 7,
	    "mct_scan .toplevel: TRACE after \"traceEvents\": [, with the keys "
	    "before it (got %s, out \"%s\")", rcname(rc), esc(out.p, out.len));
	t = "{\"traceEvents\":{\"a\":1}}";
	s.p = t;
	s.end = t + strlen(t);
	out.len = 0;
	rc = mct_scan(&s);
	ok(rc == MCT_SCAN_OK, "mct_scan .toplevel: \"traceEvents\" not an array "
	    "is a plain key");
	t = "{\"a\":{\"traceEvents\":[1]}}";
	s.p = t;
	s.end = t + strlen(t);
	out.len = 0;
	rc = mct_scan(&s);
	ok(rc == MCT_SCAN_OK, "mct_scan .toplevel: a nested \"traceEvents\" is "
	    "a plain key");
	t = "{\"traceEvents\"  ";
	s.p = t;
	s.end = t + strlen(t);
	out.len = 0;
	rc = mct_scan(&s);
	ok(rc == MCT_SCAN_MORE, "mct_scan .toplevel: MORE before the ':'");
	t = "{\"traceEvents\":[{\"ts\":1}]}";
	rc = scan(t, strlen(t), 0, 0, &out, &s);
	ok(rc == MCT_SCAN_OK && out.len == strlen(t), "mct_scan without "
	    ".toplevel reads the whole trace");

	free(s.kv);
	mct_buf_free(&out);
}

/* t less its whitespace outside strings, in a static buffer. */
static const char *
unspaced(const char *t)
{
	static char buf[1024];
	size_t n = 0;
	int instr = 0;

	for (; *t && n + 1 < sizeof(buf); t++) {
		if (instr && *t == '\\' && t[1]) {
			buf[n++] = *t++;
			buf[n++] = *t;
			continue;
		}
		if (*t == '"')
			instr = !instr;
		if (instr || !strchr(" \t\r\n", *t))
			buf[n++] = *t;
	}
	buf[n] = '\0';
	return buf;
}

/* Event mode: what the framer learns. */
static void
t_event(const char *t, const char *want_out, int ts_kind, const char *ts_e6,
    int dur_kind, int meta, int coid)
{
	struct mct_buf out = { 0 };
	struct mct_scan s = { 0 };
	int rc = scan(t, strlen(t), 1, 1, &out, &s), pass, i;
	/* plain: the copy is the text less its whitespace, and no more */
	int plain = strcmp(unspaced(t), want_out) == 0;
	int spaced = plain && strlen(t) != strlen(want_out);

	for (i = 0; i < 2; i++) {
		if (i == 1)
			(void)scan(t, strlen(t), 1, 1, NULL, &s);
		ok(s.plain == plain && s.spaced == spaced, "mct_scan .event "
		    "\"%s\"%s: .plain %d, .spaced %d", ESC(t), i ?
		    " without .out" : "", plain, spaced);
	}
	rc = scan(t, strlen(t), 1, 1, &out, &s);

	pass = rc == MCT_SCAN_OK && out.len == strlen(want_out) &&
	    memcmp(out.p, want_out, out.len) == 0 && s.ts_kind == ts_kind &&
	    (ts_kind == MCT_TS_NONE || strcmp(i128s(s.ts_e6), ts_e6) == 0) &&
	    s.dur_kind == dur_kind && s.is_meta == meta && s.has_co_id == coid;
	ok(pass, "mct_scan .event \"%s\" -> \"%s\", ts %d %s, dur %d, meta %d, "
	    "co_id %d", ESC(t), ESC(want_out), ts_kind, ts_e6 ? ts_e6 : "-",
	    dur_kind, meta, coid);
	if (!pass)
		diag("got %s \"%s\", ts %d %s, dur %d, meta %d, co_id %d", rcname(rc),
		    esc(out.p, out.len), s.ts_kind, i128s(s.ts_e6), s.dur_kind,
		    s.is_meta, s.has_co_id);
	free(s.kv);
	mct_buf_free(&out);
}

/* Random whitespace: none mostly, else a run that may cross a block. */
static void
u_ws(struct mct_buf *b)
{
	static const char ws[] = " \n\t\r";
	unsigned k, n = rn(4) ? 0 : rn(3) ? 1 + rn(3) : 1 + rn(90);

	for (k = 0; k < n; k++)
		mct_buf_addc(b, ws[rn(4)]);
}

/* A random plain JSON value, spaced at random, depth levels at most. */
static void
u_value(struct mct_buf *b, int depth)
{
	/* strings full of what must not end or cut them */
	static const char *const bits[] = { "a", "b c", "\\\"", "\\\\", "\\n",
	    "\\u00e9", "{", "}", "[", "]", ",", ":", " ", "\xc3\xa9", "\\/",
	    "\\\\\\\"", "xxxxxxxxxxxxxxxx" };
	unsigned k, n;
	int obj;

	switch (depth > 0 ? rn(5) : rn(4)) {
	case 0:
		mct_buf_addc(b, '"');
		for (k = 0, n = rn(12); k < n; k++)
			mct_buf_adds(b, bits[rn(sizeof(bits) / sizeof(bits[0]))]);
		mct_buf_addc(b, '"');
		break;
	case 1:
		mct_buf_adds(b, rn(2) ? "-12.5e3" : "1712195480123456789");
		break;
	case 2:
		mct_buf_adds(b, rn(3) == 0 ? "true" : rn(2) ? "false" : "null");
		break;
	case 3:
		mct_buf_addc(b, '0');
		break;
	default:		/* an object two times in three, or an array */
		obj = rn(3) < 2;
		mct_buf_addc(b, obj ? '{' : '[');
		for (k = 0, n = rn(4); k < n; k++) {
			if (k)
				mct_buf_addc(b, ',');
			u_ws(b);
			if (obj) {
				mct_buf_adds(b, rn(2) ? "\"k\\\"}\"" : "\"ts\"");
				u_ws(b);
				mct_buf_addc(b, ':');
				u_ws(b);
			}
			u_value(b, depth - 1);
			u_ws(b);
		}
		mct_buf_addc(b, obj ? '}' : ']');
		break;
	}
}

/*
 * What mct_unspace() must make of t[0..n), found another way: whitespace
 * outside strings dropped, a line end after each object that closes at
 * the top.  -1 if something else than ',' is between objects.
 */
static int
u_want(const char *t, size_t n, struct mct_buf *w)
{
	size_t i;
	int instr = 0, depth = 0, nobj = 0;

	for (i = 0; i < n; i++) {
		char c = t[i];

		if (instr) {
			mct_buf_addc(w, c);
			if (c == '\\')
				mct_buf_addc(w, t[++i]);
			else if (c == '"')
				instr = 0;
			continue;
		}
		if (c == ' ' || c == '\n' || c == '\t' || c == '\r')
			continue;
		if (depth == 0 && c == ',')
			continue;
		if (depth == 0 && c != '{')
			return -1;
		mct_buf_addc(w, c);
		if (c == '"')
			instr = 1;
		else if (c == '{' || c == '[')
			depth++;
		else if ((c == '}' || c == ']') && --depth == 0) {
			mct_buf_addc(w, '\n');
			nobj++;
		}
	}
	return depth == 0 && !instr ? nobj : -1;
}

/*
 * The first-level "ts" and "dur" numbers of the compact object line
 * l[0..n), as mct_unspace() notes them (object number o, the line at ls
 * of the text), found by a walk of the line; appended to times as text
 * "o:klen:voff:vlen;".
 */
static void
u_times(const char *l, size_t n, int o, size_t ls, struct mct_buf *times)
{
	size_t i, ks = 0, v, e;
	int depth = 0, instr = 0;
	char note[64];

	for (i = 0; i < n; i++) {
		if (instr) {
			if (l[i] == '\\')
				i++;
			else if (l[i] == '"')
				instr = 0;
			continue;
		}
		if (l[i] == '"') {
			instr = 1;
			ks = i;
		} else if (l[i] == '{' || l[i] == '[')
			depth++;
		else if (l[i] == '}' || l[i] == ']')
			depth--;
		else if (l[i] == ':' && depth == 1) {
			int klen = (int)(i - ks) - 2;

			if (!((klen == 2 && memcmp(l + ks, "\"ts\"", 4) == 0) ||
			    (klen == 3 && memcmp(l + ks, "\"dur\"", 5) == 0)))
				continue;
			v = i + 1;
			if (!(l[v] == '-' || (l[v] >= '0' && l[v] <= '9')))
				continue;
			for (e = v; e < n && strchr("0123456789.-+eE", l[e]) &&
			    l[e] != '\0'; e++)
				;
			snprintf(note, sizeof(note), "%d:%d:%zu:%zu;", o, klen,
			    ls + v, e - v);
			mct_buf_adds(times, note);
		}
	}
}

void
test_unspace(void)
{
	struct mct_buf t = { 0 }, got = { 0 }, want = { 0 };
	struct mct_buf tgot = { 0 }, twant = { 0 };
	struct mct_times tm = { 0 };
	int i, k, n, nw, bad = 0, cases = 0, tbad = 0, tcases = 0;
	static const char *const top[] = { "\"name\"", "\"ts\"", "\"dur\"",
	    "\"xts\"", "\"args\"", "\"ts\" " };
	static const char *const wrong[] = {
		"{\"a\":1} x {\"b\":2}",	/* not a separator */
		"{\"a\":\"cut",			/* a string cut */
		"{\"a\":[1,2}",			/* braces unbalanced: ends open */
		"]{\"a\":1}",			/* closes what never opened */
	};

	rng_state = 7;
	for (i = 0; i < 3000; i++) {
		t.len = 0;
		for (k = 0, n = 1 + rn(12); k < n; k++) {
			unsigned j, nk = 1 + rn(5);

			u_ws(&t);
			mct_buf_addc(&t, '{');
			for (j = 0; j < nk; j++) {
				if (j)
					mct_buf_addc(&t, ',');
				mct_buf_adds(&t, top[rn(6)]);
				mct_buf_addc(&t, ':');
				u_ws(&t);
				if (rn(2))
					mct_buf_adds(&t, rn(2) ?
					    "1661203462598738.047" : "-5");
				else
					u_value(&t, 4);
				u_ws(&t);
			}
			mct_buf_addc(&t, '}');
			u_ws(&t);
			if (k + 1 < n || rn(2))
				mct_buf_addc(&t, ',');
		}
		want.len = got.len = 0;
		nw = u_want(t.p, t.len, &want);
		n = mct_unspace(t.p, t.len, &got, &tm);
		cases++;
		if (n >= 0 && tm.known) {
			const char *l = want.p, *nl;

			/* the times it noted, and those a walk of each line finds */
			tgot.len = twant.len = 0;
			for (k = 0; k < tm.n; k++) {
				char note[64];

				snprintf(note, sizeof(note), "%u:%u:%u:%u;",
				    tm.kv[k].koff, tm.kv[k].klen, tm.kv[k].voff,
				    tm.kv[k].vlen);
				mct_buf_adds(&tgot, note);
			}
			for (k = 0; k < nw && (nl = memchr(l, '\n',
			    want.len - (size_t)(l - want.p))) != NULL; k++) {
				u_times(l, (size_t)(nl - l), k,
				    (size_t)(l - want.p), &twant);
				l = nl + 1;
			}
			tcases++;
			if (tgot.len != twant.len || (tgot.len > 0 &&
			    memcmp(tgot.p, twant.p, tgot.len) != 0)) {
				if (tbad++ == 0)
					diag("mct_unspace times of \"%s\": "
					    "got %s, want %s", esc(want.p,
					    want.len), esc(tgot.p, tgot.len),
					    esc(twant.p, twant.len));
			}
		}
		if (n != nw || got.len != want.len ||
		    memcmp(got.p, want.p, got.len) != 0) {
			if (bad++ == 0)
				diag("mct_unspace \"%s\": got %d \"%s\", want %d "
				    "\"%s\"", esc(t.p, t.len), n, esc(got.p,
				    got.len), nw, esc(want.p, want.len));
		}
	}
	ok(bad == 0, "mct_unspace: %d random texts of spaced objects, short "
	    "and long (64-byte blocks), as found another way (%d differ)",
	    cases, bad);
	ok(tbad == 0 && tcases > 1000, "mct_unspace: the first-level ts and "
	    "dur numbers it notes of %d texts are those a walk finds (%d "
	    "differ)", tcases, tbad);
	for (i = 0; i < (int)(sizeof(wrong) / sizeof(wrong[0])); i++) {
		/* short, and long enough to go by blocks */
		for (k = 0; k < 2; k++) {
			t.len = 0;
			if (k)
				for (n = 0; n < 40; n++)
					mct_buf_adds(&t, "{\"pad\" : [ 1, 2 ]} ,\n");
			mct_buf_adds(&t, wrong[i]);
			got.len = 0;
			ok(mct_unspace(t.p, t.len, &got, NULL) == -1,
			    "mct_unspace \"%s\" (%zu bytes): -1", ESC(wrong[i]),
			    t.len);
		}
	}
	mct_buf_free(&t);
	mct_buf_free(&got);
	mct_buf_free(&want);
	mct_buf_free(&tgot);
	mct_buf_free(&twant);
	free(tm.kv);
}

void
test_event(void)
{
	static const char *bad_ts[] = { "+5", ".5", "5.", "007", "-.5", "1.e3" };
	struct mct_buf out = { 0 };
	struct mct_scan s = { 0 };
	size_t i;
	int nbad = 0;

	t_event("{\"ph\":\"X\",\"ts\":1712195495519689.047,\"dur\":2.5,"
	    "\"args\":{\"co_id\":7}}", "{\"ph\":\"X\",\"ts\":1712195495519689.047,"
	    "\"dur\":2.5,\"args\":{\"co_id\":7}}", MCT_TS_FRAC,
	    "1712195495519689047000", MCT_TS_FRAC, 0, 1);
	t_event("{\"ph\":\"M\",\"ts\":5}", "{\"ph\":\"M\",\"ts\":5}", MCT_TS_INT,
	    "5000000", MCT_TS_NONE, 1, 0);
	t_event("{ \"ts\" : 123 , \"dur\" : 4 }", "{\"ts\":123,\"dur\":4}",
	    MCT_TS_INT, "123000000", MCT_TS_INT, 0, 0);
	t_event("{\"ts\":-5}", "{\"ts\":-5}", MCT_TS_INT, "-5000000", MCT_TS_NONE,
	    0, 0);
	t_event("{\"ts\":0}", "{\"ts\":0}", MCT_TS_INT, "0", MCT_TS_NONE, 0, 0);
	t_event("{\"ts\":1.5e3}", "{\"ts\":1.5e3}", MCT_TS_FRAC, "1500000000",
	    MCT_TS_NONE, 0, 0);
	t_event("{\"ts\":15e2}", "{\"ts\":15e2}", MCT_TS_INT, "1500000000",
	    MCT_TS_NONE, 0, 0);
	t_event("{\"ts\":9999999999999999999}", "{\"ts\":9999999999999999999}",
	    MCT_TS_INT, "9999999999999999999000000", MCT_TS_NONE, 0, 0);
	t_event("{\"ts\":12345678901234567890123}",
	    "{\"ts\":12345678901234567890123}", MCT_TS_INT,
	    "12345678901234567890123000000", MCT_TS_NONE, 0, 0);
	t_event("{\"ts\":\"123\",\"dur\":\"4.5\",\"ph\":\"X\"}",
	    "{\"ts\":123,\"dur\":4.5,\"ph\":\"X\"}", MCT_TS_INT, "123000000",
	    MCT_TS_FRAC, 0, 0);
	t_event("{\"ts\":\"-7\"}", "{\"ts\":-7}", MCT_TS_INT, "-7000000",
	    MCT_TS_NONE, 0, 0);
	t_event("{\"ts\":\"1e3\"}", "{\"ts\":1e3}", MCT_TS_INT, "1000000000",
	    MCT_TS_NONE, 0, 0);
	t_event("{\"ts\":\"1\\u0032\"}", "{\"ts\":\"1\\u0032\"}", MCT_TS_NONE,
	    NULL, MCT_TS_NONE, 0, 0);
	t_event("{\"ts\":\"abc\",\"dur\":\"\"}", "{\"ts\":\"abc\",\"dur\":\"\"}",
	    MCT_TS_NONE, NULL, MCT_TS_NONE, 0, 0);
	t_event("{\"ts\":\" 1\"}", "{\"ts\":\" 1\"}", MCT_TS_NONE, NULL,
	    MCT_TS_NONE, 0, 0);
	t_event("{\"ts\":{\"a\":\"1\"},\"dur\":[2]}", "{\"ts\":{\"a\":\"1\"},"
	    "\"dur\":[2]}", MCT_TS_NONE, NULL, MCT_TS_NONE, 0, 0);
	t_event("{\"args\":{\"ts\":\"5\",\"dur\":6}}", "{\"args\":{\"ts\":\"5\","
	    "\"dur\":6}}", MCT_TS_NONE, NULL, MCT_TS_NONE, 0, 0);
	t_event("{\"co_id\":1,\"args\":{\"x\":{\"co_id\":2}},\"a\":{\"args\":"
	    "{\"co_id\":3}}}", "{\"co_id\":1,\"args\":{\"x\":{\"co_id\":2}},"
	    "\"a\":{\"args\":{\"co_id\":3}}}", MCT_TS_NONE, NULL, MCT_TS_NONE, 0, 0);
	t_event("{\"args\":1,\"x\":{\"co_id\":2}}", "{\"args\":1,\"x\":{\"co_id\""
	    ":2}}", MCT_TS_NONE, NULL, MCT_TS_NONE, 0, 0);
	t_event("{\"ph\":\"MM\",\"x\":\"M\",\"args\":{\"ph\":\"M\"}}",
	    "{\"ph\":\"MM\",\"x\":\"M\",\"args\":{\"ph\":\"M\"}}", MCT_TS_NONE,
	    NULL, MCT_TS_NONE, 0, 0);
	t_event("{\"ts\":5,\"ts\":7}", "{\"ts\":5,\"ts\":7}", MCT_TS_INT,
	    "7000000", MCT_TS_NONE, 0, 0);

	/* A string ts that is not a JSON number stays a string. */
	for (i = 0; i < sizeof(bad_ts) / sizeof(bad_ts[0]); i++) {
		char t[64];
		int rc;

		snprintf(t, sizeof(t), "{\"ts\":\"%s\",\"ph\":\"X\"}", bad_ts[i]);
		rc = scan(t, strlen(t), 1, 1, &out, &s);
		if (rc != MCT_SCAN_OK || out.len != strlen(t) ||
		    memcmp(out.p, t, out.len) != 0 || s.ts_kind != MCT_TS_NONE) {
			diag("mct_scan .event \"%s\" -> \"%s\", ts kind %d",
			    ESC(t), esc(out.p, out.len), s.ts_kind);
			nbad++;
		}
	}
	ok(nbad == 0, "mct_scan .event: \"ts\":\"+5\", \".5\", \"5.\", \"007\", "
	    "\"-.5\", \"1.e3\" stay strings (%d of %zu do not)", nbad,
	    sizeof(bad_ts) / sizeof(bad_ts[0]));
	/* An exponent in ts or dur: the text must be rewritten (.odd) */
	{
		int odd1, odd2, odd3;

		scan("{\"ts\":15e2}", 11, 1, 1, &out, &s);
		odd1 = s.odd;
		scan("{\"dur\":\"1E3\"}", 14, 1, 1, &out, &s);
		odd2 = s.odd;
		scan("{\"ts\":1500,\"args\":{\"ts\":1e3}}", 30, 1, 1, &out, &s);
		odd3 = s.odd;
		ok(odd1 && odd2 && !odd3, "mct_scan .event: .odd for an exponent in "
		    "ts or dur (%d %d %d)", odd1, odd2, odd3);
	}
	free(s.kv);
	mct_buf_free(&out);
}

/* Is p[0..n) valid UTF-8 (no overlongs, surrogates, beyond U+10FFFF)? */
static int
utf8_valid(const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)s, *end = p + n;

	while (p < end) {
		unsigned c = *p, cp, k, i;

		if (c < 0x80) {
			p++;
			continue;
		}
		k = c >= 0xf0 ? 3 : c >= 0xe0 ? 2 : c >= 0xc0 ? 1 : 0;
		if (k == 0 || c > 0xf4 || (size_t)(end - p) <= k)
			return 0;
		cp = c & (0x3f >> k);
		for (i = 1; i <= k; i++) {
			if ((p[i] & 0xc0) != 0x80)
				return 0;
			cp = cp << 6 | (p[i] & 0x3f);
		}
		if ((k == 1 && cp < 0x80) || (k == 2 && cp < 0x800) ||
		    (k == 3 && cp < 0x10000) || cp > 0x10ffff ||
		    (cp >= 0xd800 && cp < 0xe000))
			return 0;
		p += k + 1;
	}
	return 1;
}

/*
 * mct_index() reads texts of 64 bytes or more 64 at a time, and where it
 * cannot, a byte at a time (as it reads shorter ones): each text here,
 * and mangled copies of it (a byte replaced by one of structure, deleted
 * or doubled), goes after a first key "p" of 0 to 130 bytes, once as it
 * is and once after a space (which the blocks leave to the bytes): the
 * same keys either way, one more than the short text's alone.
 */
static int
index_twice(const char *t, size_t n, size_t pad, struct mct_buf *a,
    struct mct_buf *b)
{
	static struct mct_kv *kv[3];
	static int nkv[3], cap[3];
	int r[3], i, j;

	a->len = b->len = 0;
	mct_buf_add(a, "{\"p\":\"", 6);
	while (a->len < pad + 6)
		mct_buf_add(a, a->len % 9 ? "y" : "\\\\", a->len % 9 ? 1 : 2);
	mct_buf_add(a, "\",", 2);
	mct_buf_add(b, a->p, a->len);
	mct_buf_addc(b, ' ');
	mct_buf_add(a, t + 1, n - 1);
	mct_buf_add(b, t + 1, n - 1);
	r[0] = mct_index(t, n, &kv[0], &nkv[0], &cap[0]);
	r[1] = mct_index(a->p, a->len, &kv[1], &nkv[1], &cap[1]);
	r[2] = mct_index(b->p, b->len, &kv[2], &nkv[2], &cap[2]);
	if (r[0] == 0)		/* "{}": "{"p":"y",}" is -1 */
		return 1;
	if (r[1] != (r[0] < 0 ? -1 : r[0] + 1) || r[2] != r[1])
		return 0;
	for (i = 0; i < r[0]; i++)
		for (j = 1; j < 3; j++) {
			uint32_t d = (uint32_t)((j == 1 ? a->len : b->len) - n);

			if (kv[j][i + 1].koff != kv[0][i].koff + d ||
			    kv[j][i + 1].klen != kv[0][i].klen ||
			    kv[j][i + 1].voff != kv[0][i].voff + d ||
			    kv[j][i + 1].vlen != kv[0][i].vlen)
				return 0;
		}
	return 1;
}

static void
index_blocks_bytes(void)
{
	static const char *const tt[] = {
		"{\"ph\":\"X\",\"ts\":5,\"dur\":6,\"args\":{\"a\":[1,{}]}}",
		"{\"a\":\"\\\"}\\\\\",\"b\":[\"]\",{\"c\":\":,\"}],\"d\":-1e3}",
		"{\"k\\\"q\":true,\"\":null,\"x\":\"\\u00e9\"}",
		"{\"a\":1\"b\"2,\"c\":{\"d\":1}}",
		"{\"a\":[},\"b\":]{}",
		"{\"a\":1,\"b\":2}",
	};
	static const char mut[] = "{}[]:,\"\\ a1";
	struct mct_buf a = { 0 }, b = { 0 }, m = { 0 };
	unsigned x = 12345;
	size_t ti, pad, at, len;
	long cases = 0, bad = 0;
	int k;

	for (ti = 0; ti < sizeof(tt) / sizeof(tt[0]); ti++) {
		len = strlen(tt[ti]);
		for (k = 0; k < 600; k++) {
			m.len = 0;
			mct_buf_add(&m, tt[ti], len);
			x = x * 1103515245 + 12345;
			at = 1 + (x >> 8) % (len - 1);
			if (k == 0)
				;	/* as it is */
			else if (k % 3 == 0)
				m.p[at] = mut[(x >> 20) % (sizeof(mut) - 1)];
			else if (k % 3 == 1) {
				memmove(m.p + at, m.p + at + 1, len - at - 1);
				m.len--;
			} else {
				mct_buf_addc(&m, 0);
				memmove(m.p + at + 1, m.p + at, len - at);
			}
			for (pad = k % 5; pad <= 130; pad += 5 + k % 7) {
				cases++;
				if (!index_twice(m.p, m.len, pad, &a, &b) &&
				    bad++ == 0)
					diag("mct_index of \"%s\" after %zu "
					    "bytes", ESC(m.p), pad);
			}
		}
	}
	ok(bad == 0, "mct_index 64 bytes at a time is its byte at a time: "
	    "%ld cases, %ld differ", cases, bad);
	mct_buf_free(&a);
	mct_buf_free(&b);
	mct_buf_free(&m);
}

/* mct_skip, mct_index, mct_jstr on compact text */
void
test_compact(void)
{
	struct mct_buf b = { 0 };
	struct mct_kv *kv = NULL;
	int nkv = 0, cap = 0, n, r;
	const char *t, *next;
	struct mct_val v;
	char once[16];

#define SKIP(text, type, rest) do {					\
	t = (text);							\
	n = mct_skip(t, t + strlen(t), &next);				\
	ok(n == (type) && strcmp(next, (rest)) == 0,			\
	    "mct_skip \"%s\" -> type %d, rest \"%s\" (got %d, \"%s\")",	\
	    ESC(t), (type), ESC(rest), n, ESC(next));			\
} while (0)
	SKIP("\"a\\\"b\",1", MCT_J_STRING, ",1");
	SKIP("\"a\\\\\",1", MCT_J_STRING, ",1");
	SKIP("{\"a\":[1,{\"b\":\"}]\"}]},2", MCT_J_OBJECT, ",2");
	SKIP("[[],[[]],\"]\"]]", MCT_J_ARRAY, "]");
	SKIP("123]", MCT_J_NUMBER, "]");
	SKIP("-1.5e3}", MCT_J_NUMBER, "}");
	SKIP("1.5", MCT_J_NUMBER, "");
	SKIP("true,", MCT_J_BOOL, ",");
	SKIP("false", MCT_J_BOOL, "");
	SKIP("null}", MCT_J_NULL, "}");
	SKIP("\"k\":1", MCT_J_STRING, ":1");
	SKIP("", MCT_J_NONE, "");
	t = "\"abc";
	n = mct_skip(t, t + 4, &next);
	ok(n == MCT_J_STRING && next == t + 4, "mct_skip: an unterminated string "
	    "ends at the end");
	t = "\"ab\\";
	n = mct_skip(t, t + 4, &next);
	ok(next == t + 4, "mct_skip: a backslash at the end stays within the text");
#undef SKIP

	t = "{\"a\":1,\"b\":[1,2],\"c\":{\"d\":\"x,y\"},\"e\\\"f\":\"\"}";
	n = mct_index(t, strlen(t), &kv, &nkv, &cap);
	ok(n == 4 && nkv == 4 &&
	    kv[0].koff == 2 && kv[0].klen == 1 && kv[0].voff == 5 && kv[0].vlen == 1 &&
	    kv[1].koff == 8 && kv[1].klen == 1 && kv[1].vlen == 5 &&
	    memcmp(t + kv[2].voff, "{\"d\":\"x,y\"}", kv[2].vlen) == 0 &&
	    kv[2].vlen == 11 && kv[3].klen == 4 &&
	    memcmp(t + kv[3].koff, "e\\\"f", 4) == 0 && kv[3].vlen == 2,
	    "mct_index: four keys with their values");
	ok(mct_index("{}", 2, &kv, &nkv, &cap) == 0 && nkv == 0,
	    "mct_index \"{}\": no keys");
	ok(mct_index("[1]", 3, &kv, &nkv, &cap) == -1 &&
	    mct_index("", 0, &kv, &nkv, &cap) == -1 &&
	    mct_index("\"a\"", 3, &kv, &nkv, &cap) == -1,
	    "mct_index: not an object is -1");
	ok(mct_index("{\"a\"1}", 6, &kv, &nkv, &cap) == -1,
	    "mct_index: a key without ':' is -1");
	/* Kineto's long args: nested values skipped eight bytes at a time */
	t = "{\"args\":{\"Input Dims\":[[],[2,3],[]],\"s\":\"]}[{\\\"\",\"x\":"
	    "{\"y\":[{\"z\":\"}\"}]}},\"ts\":5}";
	n = mct_index(t, strlen(t), &kv, &nkv, &cap);
	ok(n == 2 && kv[0].klen == 4 && t[kv[0].voff] == '{' &&
	    t[kv[0].voff + kv[0].vlen - 1] == '}' && kv[1].klen == 2 &&
	    kv[1].vlen == 1 && t[kv[1].voff] == '5',
	    "mct_index: brackets and quotes inside nested strings are skipped");
	t = "{\"a\":[[1,2],{\"b\":\"c\"}],\"d\":[0123456789abcdef}";
	ok(mct_index(t, strlen(t), &kv, &nkv, &cap) == -1,
	    "mct_index: a nested value that does not close is -1");
	free(kv);
	index_blocks_bytes();

#define JSTR(text, want, wantlen) do {					\
	v.type = MCT_J_STRING;						\
	v.p = (text);							\
	v.len = sizeof(text) - 1;					\
	b.len = 0;							\
	mct_jstr(&v, &b);						\
	ok(b.len == (wantlen) && memcmp(b.p, (want), (wantlen)) == 0,	\
	    "mct_jstr \"%s\" -> \"%s\" (got \"%s\")", ESC(text),	\
	    esc((want), (wantlen)), esc(b.p, b.len));			\
} while (0)
	JSTR("\"plain\"", "plain", 5);
	JSTR("\"\"", "", 0);
	JSTR("\"a\\nb\\tc\\rd\\be\\ff\"", "a\nb\tc\rd\be\ff", 11);
	JSTR("\"\\\"\\\\\\/\"", "\"\\/", 3);
	JSTR("\"\\u0041\\u00e9\\u20AC\"", "A\xc3\xa9\xe2\x82\xac", 6);
	JSTR("\"\\ud83d\\ude00\"", "\xf0\x9f\x98\x80", 4);
	JSTR("\"\\uDBFF\\uDFFF\"", "\xf4\x8f\xbf\xbf", 4);
	JSTR("\"\\ud800\"", "\xef\xbf\xbd", 3);
	JSTR("\"\\udc00x\"", "\xef\xbf\xbdx", 4);
	JSTR("\"\\ud800\\u0041\"", "\xef\xbf\xbd" "A", 4);
	JSTR("\"\\ud800\\ud800\\udc00\"", "\xef\xbf\xbd\xf0\x90\x80\x80", 7);
	JSTR("\"\\ud800\\n\"", "\xef\xbf\xbd\n", 4);
	JSTR("\"\\u0000a\"", "\0a", 2);
	JSTR("\"\xc3\xa9 raw\"", "\xc3\xa9 raw", 6);
	JSTR("\"\\\\q\"", "\\q", 2);
	/* mct_jcanon: one spelling of a value, the key it is grouped by */
#define JCANON(text, want, changed) do {				\
	b.len = 0;							\
	r = mct_jcanon((text), sizeof(text) - 1, &b);			\
	ok(r == (changed) && b.len == sizeof(want) - 1 &&		\
	    memcmp(b.p, (want), b.len) == 0,				\
	    "mct_jcanon %s -> %s (got %s, %d)", ESC(text), ESC(want),	\
	    esc(b.p, b.len), r);					\
} while (0)
	JCANON("\"gemm_kernel\"", "\"gemm_kernel\"", 0);
	JCANON("\"gemm\\u005fkernel\"", "\"gemm_kernel\"", 1);
	JCANON("\"a\\/b\"", "\"a/b\"", 1);
	JCANON("\"\"", "\"\"", 0);
	JCANON("12.50", "12.50", 0);
	JCANON("\"q\\\"\\u0022\\\\\\u005C\"", "\"q\\\"\\\"\\\\\\\\\"", 1);
	JCANON("\"\\b\\f\\n\\r\\t\"", "\"\\b\\f\\n\\r\\t\"", 0);
	JCANON("\"\\u0008\\u000C\\u000a\\u000d\\u0009\\u000b\\u001F\\u0000\"",
	    "\"\\b\\f\\n\\r\\t\\u000b\\u001f\\u0000\"", 1);
	JCANON("\"\\u00e9\\u00E9\xc3\xa9\\u20ac\\u007f\"",
	    "\"\xc3\xa9\xc3\xa9\xc3\xa9\xe2\x82\xac\x7f\"", 1);
	JCANON("\"\\ud83d\\uDE00\"", "\"\xf0\x9f\x98\x80\"", 1);
	JCANON("\"\\uD800x\\udc00\\ud800\\u0041\"",
	    "\"\\ud800x\\udc00\\ud800A\"", 1);
	JCANON("\"\\ud800x\\udc00\"", "\"\\ud800x\\udc00\"", 0);
	JCANON("{\"a\\u0062\":[\"c\\/d\",1]}", "{\"ab\":[\"c/d\",1]}", 1);
	JCANON("\"a\\u-,b\"", "\"a\\u-,b\"", 0);	/* not an escape */
	b.len = 0;
	mct_jcanon("\"a\\u005f\\/\"", 11, &b);
	memcpy(once, b.p, b.len);	/* "a_/" */
	ok(b.len == 5 && mct_jcanon(once, 5, &b) == 0 && b.len == 10 &&
	    memcmp(b.p + 5, once, 5) == 0,
	    "mct_jcanon: the canonical spelling is its own, appended");
	/* mct_jstr_prefix: the decoded text begins with a prefix */
	v.type = MCT_J_STRING;
	v.p = "\"nn.Module: A\"";
	v.len = strlen(v.p);
	ok(mct_jstr_prefix(&v, "nn.Module: ", 11) &&
	    !mct_jstr_prefix(&v, "nn.Modulo", 9),
	    "mct_jstr_prefix: a plain name");
	v.p = "\"\\u006En\\u002eModule: A\"";
	v.len = strlen(v.p);
	ok(mct_jstr_prefix(&v, "nn.Module: ", 11) &&
	    !mct_jstr_prefix(&v, "nn.Modulo", 9),
	    "mct_jstr_prefix: a name spelt with escapes");
	v.p = "\"nn.Mod\"";
	v.len = strlen(v.p);
	ok(!mct_jstr_prefix(&v, "nn.Module: ", 11) &&
	    mct_jstr_prefix(&v, "nn.", 3), "mct_jstr_prefix: a short name");
	/* An invalid \u escape (stream lines are not checked token by token) */
	v.type = MCT_J_STRING;
	v.p = "\"a\\u-,.!b\"";
	v.len = strlen(v.p);
	b.len = 0;
	mct_jstr(&v, &b);
	ok(utf8_valid(b.p, b.len), "mct_jstr \"%s\" gives valid UTF-8 (got "
	    "\"%s\")", ESC(v.p), esc(b.p, b.len));
	v.type = MCT_J_NUMBER;
	v.p = "1.50";
	v.len = 4;
	b.len = 0;
	mct_jstr(&v, &b);
	ok(b.len == 4 && memcmp(b.p, "1.50", 4) == 0, "mct_jstr on a number: "
	    "its text");
	v.type = MCT_J_ARRAY;
	v.p = "[1,\"a\"]";
	v.len = 7;
	b.len = 0;
	mct_jstr(&v, &b);
	ok(b.len == 7 && memcmp(b.p, "[1,\"a\"]", 7) == 0, "mct_jstr on an array: "
	    "its text");
	b.len = 0;
	mct_buf_adds(&b, "x");
	v.type = MCT_J_STRING;
	v.p = "\"y\"";
	v.len = 3;
	mct_jstr(&v, &b);
	ok(b.len == 2 && strcmp(b.p, "xy") == 0, "mct_jstr appends");
#undef JSTR

	v.type = MCT_J_STRING;
	v.p = "\"abc\"";
	v.len = 5;
	ok(mct_jstr_eq(&v, "abc", 3) && !mct_jstr_eq(&v, "ab", 2) &&
	    !mct_jstr_eq(&v, "abcd", 4), "mct_jstr_eq on a plain string");
	v.p = "\"a\\u0062c\"";
	v.len = 10;
	ok(mct_jstr_eq(&v, "abc", 3) && !mct_jstr_eq(&v, "a\\u0062c", 8),
	    "mct_jstr_eq compares the unescaped text");
	/* one character (a ph), as it is or escaped */
	v.p = "\"X\"";
	v.len = 3;
	ok(mct_jstr_eq(&v, "X", 1) && !mct_jstr_eq(&v, "B", 1) &&
	    !mct_jstr_eq(&v, "\\", 1) && !mct_jstr_eq(&v, "", 0),
	    "mct_jstr_eq of one character");
	v.p = "\"\\u0058\"";
	v.len = 8;
	ok(mct_jstr_eq(&v, "X", 1) && !mct_jstr_eq(&v, "B", 1),
	    "mct_jstr_eq of one character escaped");
	v.p = "\"\\\\\"";
	v.len = 4;
	ok(mct_jstr_eq(&v, "\\", 1) && !mct_jstr_eq(&v, "X", 1),
	    "mct_jstr_eq of a backslash");
	v.type = MCT_J_NUMBER;
	v.p = "1";
	v.len = 1;
	ok(!mct_jstr_eq(&v, "1", 1), "mct_jstr_eq: a number is not a string");

	/* mct_buf_addjstr round trip through json-c */
	{
		static const char raw[] = "q\"b\\s\x01\n\x1f\xc3\xa9 end";
		json_object *o;

		b.len = 0;
		mct_buf_addjstr(&b, raw, sizeof(raw) - 1);
		o = json_tokener_parse(b.p);
		ok(o && json_object_get_type(o) == json_type_string &&
		    json_object_get_string_len(o) == (int)sizeof(raw) - 1 &&
		    memcmp(json_object_get_string(o), raw, sizeof(raw) - 1) == 0,
		    "mct_buf_addjstr writes a JSON string json-c reads back (\"%s\")",
		    esc(b.p, b.len));
		json_object_put(o);
	}
	mct_buf_free(&b);
}

/*
 * The ts/dur spans mct_scan() notes for the reader, the index that stops
 * at them, and six-digit fractions in the scan's one pass (the decimal
 * fast path of mct_dec_ns() is test_dec_fast() of unit-time.c).
 */
void
test_times(void)
{
	static const struct { const char *in, *ts, *dur; int n; } sp[] = {
		{ "{\"ts\":1661203462601978,\"dur\":7}", "1661203462601978", "7", 2 },
		{ "{\"ts\": 1712195480123456.789, \"dur\" : 2.5}",
		    "1712195480123456.789", "2.5", 2 },
		{ "{\"dur\":\"12\",\"x\":[1],\"ts\":\"3.25\"}", "12", "3.25", 2 },
		{ "{\"ts\":1.2345678,\"dur\":-0.5}", "1.2345678", "-0.5", 2 },
		{ "{\"ts\":\"x\",\"dur\":[1],\"args\":{\"ts\":1}}", NULL, NULL, 0 },
		{ "{\"ts\":1,\"dur\":2,\"ts\":3}", "1", "2", 3 },
		{ "{\"ts\":12345678901234567890123,\"dur\":1e3}",
		    "12345678901234567890123", "1e3", 2 },
	};
	struct mct_kv *kv = NULL;
	struct mct_buf out = { 0 };
	struct mct_scan s = { 0 };
	const char *t;
	size_t i;
	int nkv, cap = 0, n;

	for (i = 0; i < sizeof(sp) / sizeof(sp[0]); i++) {
		out.len = 0;
		s.p = sp[i].in;
		s.end = sp[i].in + strlen(sp[i].in) + 1;	/* the NUL ends it */
		s.out = &out;
		s.event = 1;
		ok(mct_scan(&s) == MCT_SCAN_OK && s.ntimes == sp[i].n &&
		    (sp[i].n == 0 || (s.time_len[0] == strlen(sp[i].ts) &&
		    memcmp(out.p + s.time_off[0], sp[i].ts, s.time_len[0]) == 0 &&
		    s.time_len[1] == strlen(sp[i].dur) &&
		    memcmp(out.p + s.time_off[1], sp[i].dur, s.time_len[1]) == 0)),
		    "mct_scan .event: the ts/dur numbers of %s are where they are "
		    "in the copy (%d)", sp[i].in, s.ntimes);
	}
	/* the fraction in the scan's one pass: the same e6 as mct_dec_e6 */
	t = "{\"ts\":1712195480123456.789}";
	s.p = t;
	s.end = t + strlen(t) + 1;
	ok(mct_scan(&s) == MCT_SCAN_OK && s.ts_kind == MCT_TS_FRAC &&
	    s.ts_e6 == (mct_i128)1712195480123456789LL * 1000,
	    "mct_scan .event: a fraction of three digits, exactly at 1e-6");
	t = "{\"ts\":99.000001,\"dur\":1.1234567}";
	s.p = t;
	s.end = t + strlen(t) + 1;
	ok(mct_scan(&s) == MCT_SCAN_OK && s.ts_kind == MCT_TS_FRAC &&
	    s.ts_e6 == 99000001 && s.dur_kind == MCT_TS_FRAC,
	    "mct_scan .event: six digits after the point, and seven");
	free(s.kv);
	mct_buf_free(&out);

	/*
	 * mct_index_times: the ts and dur numbers, up to the first of each,
	 * the rest unlooked at; the same below 64 bytes (a byte at a time)
	 * and above (64 at a time), so each text also goes padded to 200
	 * bytes with a first key "p" first.
	 */
	{
		static const char *const tt[] = {
			"\"ph\":\"X\",\"ts\":5,\"dur\":6,\"args\":{broken",
			"\"ts\":\"x\",\"dur\":2,\"ts\":1,\"a\":0}",
			"\"ts\":1,\"a\":{\"dur\":2},\"b\":0}",
			"\"a\":\"\\\"ts\\\":1,{\\\"dur\\\"\",\"b\":[{\"ts\":3}],"
			    "\"ts\":-1.5e3,\"dur\":7}",
			"\"x\\\\\":{\"dur\":1},\"dur\":2,\"ts\":3}",
		};
		/* per text: n, then the (klen, first digit) of each */
		static const char *const want[] = {
			"2 2:5 3:6", "2 3:2 2:1", "1 2:1", "2 2:- 3:7",
			"2 3:2 2:3",
		};
		struct mct_buf tb = { 0 };
		char got[64];
		size_t ti, pad;
		int j, w;

		for (pad = 0; pad < 2; pad++)
			for (ti = 0; ti < sizeof(tt) / sizeof(tt[0]); ti++) {
				tb.len = 0;
				mct_buf_add(&tb, "{", 1);
				if (pad) {
					mct_buf_add(&tb, "\"p\":\"", 5);
					while (tb.len < 190)
						mct_buf_add(&tb, "y", 1);
					mct_buf_add(&tb, "\",", 2);
				}
				mct_buf_add(&tb, tt[ti], strlen(tt[ti]));
				n = mct_index_times(tb.p, tb.len, &kv, &nkv,
				    &cap);
				w = snprintf(got, sizeof(got), "%d", n);
				for (j = 0; j < n && w < 50; j++)
					w += snprintf(got + w, sizeof(got) -
					    (size_t)w, " %u:%c", kv[j].klen,
					    tb.p[kv[j].voff]);
				ok(strcmp(got, want[ti]) == 0 && (n < 1 ||
				    memcmp(tb.p + kv[0].koff, kv[0].klen == 2 ?
				    "ts\"" : "dur\"", kv[0].klen + 1) == 0),
				    "mct_index_times %s (%s bytes): %s",
				    tt[ti], pad ? "200" : "few", got);
			}
		mct_buf_free(&tb);
	}
	{
		/* every place of the keys in and across the 64-byte blocks */
		struct mct_buf tb = { 0 };
		int pad, bad = -1;

		for (pad = 0; pad < 200 && bad < 0; pad++) {
			tb.len = 0;
			mct_buf_add(&tb, "{\"p\":\"", 6);
			while (tb.len < (size_t)pad + 6)
				mct_buf_add(&tb, tb.len % 7 ? "y" : "\\\\",
				    tb.len % 7 ? 1 : 2);
			t = "\",\"q\":{\"ts\":1},\"ts\":12,\"dur\":3.5,\"r\":0}";
			mct_buf_add(&tb, t, strlen(t));
			n = mct_index_times(tb.p, tb.len, &kv, &nkv, &cap);
			if (n != 2 || kv[0].klen != 2 || kv[0].vlen != 2 ||
			    memcmp(tb.p + kv[0].voff, "12,", 3) != 0 ||
			    kv[1].klen != 3 || kv[1].vlen != 3 ||
			    memcmp(tb.p + kv[1].voff, "3.5,", 4) != 0)
				bad = pad;
		}
		ok(bad < 0, "mct_index_times: the keys at every place of a "
		    "block (first wrong at %d)", bad);
		mct_buf_free(&tb);
	}
	t = "{\"ph\":\"X\",\"ts\":5,\"dur\":6,\"args\":{broken";
	ok(mct_index(t, strlen(t), &kv, &nkv, &cap) == -1,
	    "mct_index: the object above is broken after dur");
	n = mct_index_times(t, strlen(t), &kv, &nkv, &cap);
	ok(n == 2 && kv[0].vlen == 1 && kv[1].vlen == 1,
	    "mct_index_times: each number's length");
	free(kv);
}
