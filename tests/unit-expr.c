/*
 * unit-expr.c - expr.c: where in its text an expression that does not
 * parse goes wrong; groups in parentheses.
 */
#include "config.h"

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
}
