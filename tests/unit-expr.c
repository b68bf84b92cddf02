/*
 * unit-expr.c - expr.c: where in its text an expression that does not
 * parse goes wrong.
 */
#include "config.h"

#include "mct.h"
#include "unit.h"

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
	ok(e == NULL && at == 10, "expr: the place of the condition that "
	    "does not parse (%zu: %s)", at, err);
}
