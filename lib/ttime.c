/*
 * ttime.c - trace times: the text of an event's ts or dur, a JSON number
 * in its source's unit, read as the framer meets it: its value times
 * 10^6, exactly, and its kind (an integer, or digits after a point).
 *
 * The framer reads times before it knows their unit (it guesses the unit
 * from them), so a value here is still in the source's unit, kept times
 * 10^6 as an integer: exact to six digits after the point (a time of µs
 * to the ps).  time.c turns it into int64 ns once the unit is known
 * (mct_e6_ns()).  The common form, digits with at most six after a point,
 * is read by mct_ttime_plain(), inline in mct.h.
 */
#include "config.h"

#include <string.h>

#include "mct_private.h"

/*
 * The ts or dur v[0..n), one valid JSON number: its value times 10^6 in
 * *e6 (rounded half away from zero past six digits after the point), and
 * *exp set if it is written with an exponent (its text is then no time's
 * as it stands).  Returns its kind, MCT_TS_FRAC if it has a point, else
 * MCT_TS_INT; -1 if it is too large.
 */
int
mct_ttime_e6(const char *v, size_t n, mct_i128 *e6, int *exp)
{
	*exp = 0;
	if (n <= 19 && n > 0 && *v != '-' && *v != '0') {
		/* the common case: a plain integer */
		uint64_t u = 0;
		size_t i;

		for (i = 0; i < n && v[i] >= '0' && v[i] <= '9'; i++)
			u = u * 10 + (uint64_t)(v[i] - '0');
		if (i == n) {
			*e6 = (mct_i128)u * 1000000;
			return MCT_TS_INT;
		}
	}
	if (mct_dec_e6(v, n, e6) != 0)
		return -1;
	*exp = memchr(v, 'e', n) != NULL || memchr(v, 'E', n) != NULL;
	return memchr(v, '.', n) ? MCT_TS_FRAC : MCT_TS_INT;
}
