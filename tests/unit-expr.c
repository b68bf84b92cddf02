/*
 * unit-expr.c - expr.c: where in its text an expression that does not
 * parse goes wrong; groups in parentheses.
 */
#include "config.h"

#include <regex.h>
#include <stdlib.h>
#include <string.h>

#include "mct.h"
#include "unit.h"

/* Does the expression hold for the event?  -1: it does not parse. */
static int
holds(const char *expr, const char *json)
{
	struct mct_expr *e;
	struct mct_event ev;
	struct mct_header h = { 0 };
	char err[256];
	int r;

	if ((e = mct_expr_parse(expr, 0, err, sizeof(err))) == NULL)
		return -1;
	mct_event_init(&ev, json, strlen(json), &h);
	r = mct_expr_eval(e, &ev, &h);
	mct_event_free(&ev);
	mct_expr_free(e);
	return r;
}

/* Where does the expression go wrong, and how is it said? */
static int
wrong(const char *expr, size_t want, const char *msg)
{
	struct mct_expr *e;
	char err[256];
	size_t at = 0;

	e = mct_expr_parse_at(expr, 0, err, sizeof(err), &at);
	if (e != NULL || at != want || strstr(err, msg) == NULL) {
		diag("'%s': at %zu (want %zu): %s", expr, at, want,
		    e ? "parsed" : err);
		mct_expr_free(e);
		return 0;
	}
	return 1;
}

/*
 * mct_regmatch() against regexec() alone, every pattern on every
 * string: the text a match must begin with decides nothing regexec()
 * would not.  Returns the disagreements; the pattern's text in *lit.
 */
static int
regmatch_differs(const char *pat, int cflags, const char *const *str,
    size_t *nlit)
{
	struct mct_re rx;
	regex_t plain;
	int i, bad = 0;

	*nlit = (size_t)-1;
	if (mct_regcomp(&rx, pat, REG_EXTENDED | REG_NOSUB | cflags) != 0 ||
	    regcomp(&plain, pat, REG_EXTENDED | REG_NOSUB | cflags) != 0)
		return -1;
	for (i = 0; str[i] != NULL; i++)
		if (mct_regmatch(&rx, str[i]) !=
		    (regexec(&plain, str[i], 0, NULL, 0) == 0)) {
			diag("'%s' on '%s': %d", pat, str[i],
			    mct_regmatch(&rx, str[i]));
			bad++;
		}
	*nlit = rx.nlit;
	regfree(&rx.re);
	free(rx.lit);
	regfree(&plain);
	return bad;
}

static void
test_regmatch(void)
{
	static const char *const str[] = { "", "a", "ab", "abc", "abbc",
	    "ac", "b", "xab", "ProfilerStep#1", "ProfilerStep#", "Profiler",
	    "profilerstep#1", "a.b", "aXb", "a|b", "|x", "x", "ab\nab",
	    "\u00e9t\u00e9", NULL };
	static const struct { const char *pat; int icase; size_t nlit; } t[] = {
		{ "^ProfilerStep#[0-9]", 0, 13 }, { "^ab*c", 0, 1 },
		{ "^abc$", 0, 3 }, { "^ab?", 0, 1 }, { "^ab+", 0, 1 },
		{ "^ab{2}", 0, 1 }, { "^a|b", 0, 0 }, { "^a(b|c)", 0, 0 },
		{ "^[|]x", 0, 0 }, { "^a[]|]b", 0, 1 }, { "^a\\.b", 0, 1 },
		{ "^(ab)", 0, 0 }, { "ab", 0, 0 }, { "x^ab", 0, 0 },
		{ "^profilerstep#", 1, 0 }, { "^a.b", 0, 1 }, { "^", 0, 0 },
		{ "^\xc3\xa9t", 0, 0 }, { "^ab\\|x", 0, 2 },
	};
	size_t i, nlit = 0;
	int bad = 0, lits = 0;

	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		bad += regmatch_differs(t[i].pat, t[i].icase ? REG_ICASE : 0,
		    str, &nlit) != 0;
		if (nlit != t[i].nlit) {
			diag("'%s': %zu plain characters (want %zu)", t[i].pat,
			    nlit, t[i].nlit);
			lits++;
		}
	}
	ok(bad == 0, "expr: a regex's leading text rules out only what "
	    "regexec() rules out (%d of %zu patterns differ)", bad,
	    sizeof(t) / sizeof(t[0]));
	ok(lits == 0, "expr: the leading text of an anchored regex: its plain "
	    "characters, not one a duplication symbol follows; none after an "
	    "alternation, a group, case ignored or no ^ (%d wrong)", lits);
}

void
test_expr(void)
{
	struct mct_expr *e;
	char err[256];
	size_t at = 0;

	e = mct_expr_parse_at("dur > 5 && ", 0, err, sizeof(err), &at);
	ok(e == NULL && at == 11, "expr: the place of a missing field (%zu)",
	    at);
	e = mct_expr_parse_at("a == 1 && b ?? 2", 0, err, sizeof(err), &at);
	ok(e == NULL && at == 12, "expr: the place of the operator it does "
	    "not know (%zu: %s)", at, err);

	ok(wrong("dur >", 5, "a value is missing") &&
	    wrong("total_pct >  ", 13, "a value is missing") &&
	    wrong("a == \"x", 5, "unterminated string") &&
	    wrong("a == 1 && b ?? 2", 12, "unknown operator"),
	    "expr: the place of a missing value is the end, of a bad "
	    "operator the operator");
	ok(wrong("(a == 1", 7, "a ')' is missing") &&
	    wrong("a == 1)", 6, "a ')' without its '('") &&
	    wrong("(a == 1) b", 9, "unexpected text 'b'") &&
	    wrong("()", 1, "a field is missing") &&
	    wrong("((a > 1) && (b >))", 16, "a value is missing"),
	    "expr: the place of an unbalanced parenthesis");
	{
		char deep[200];

		memset(deep, '(', 100);
		strcpy(deep + 100, "a");
		ok(wrong(deep, 64, "nested deeper than 64"),
		    "expr: groups nest at most 64 deep");
	}
	ok(holds("(a == 1 || b == 2) && c == 3", "{\"b\":2,\"c\":3}") == 1 &&
	    holds("(a == 1 || b == 2) && c == 3", "{\"b\":2,\"c\":4}") == 0 &&
	    holds("a == 1 || b == 2 && c == 3", "{\"a\":1,\"c\":4}") == 1 &&
	    holds("(a == 1 || b == 2) && c == 3", "{\"a\":1,\"c\":4}") == 0,
	    "expr: a group binds before && and ||");
	ok(holds("!(a > 1)", "{\"a\":1}") == 1 &&
	    holds("!(a > 1)", "{\"a\":2}") == 0 &&
	    holds("!(a)", "{\"b\":2}") == 1 &&
	    holds("((a))", "{\"a\":false}") == 1,
	    "expr: !( ) negates a group; a bare field in one");
	ok(holds("(g == (1, 2, 3))", "{\"g\":[1,2,3]}") == 1 &&
	    holds("g == (1, 2, 3)", "{\"g\":[1,2,3]}") == 1 &&
	    holds("(name == f(x))", "{\"name\":\"f(x)\"}") == 1 &&
	    holds("(name ~ ^(f|g)\\()", "{\"name\":\"g(x)\"}") == -1 &&
	    holds("(name ~ \"^(f|g)\\\\(\")", "{\"name\":\"g(x)\"}") == 1 &&
	    holds("name == x)", "{\"name\":\"x)\"}") == -1 &&
	    holds("name == \"x)\"", "{\"name\":\"x)\"}") == 1,
	    "expr: a value holds parentheses that pair up; quoted, any");
	test_regmatch();
}
