/*
 * path-cset.c - mct-path's sets of correlation ids (path-steps.c's ids of
 * the calls let go, or in a step done): the ids are interned texts
 * "RANK\036TEXT", mostly integers that come in runs, so a set keeps runs
 * of integers per rank, and other texts in a map.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "mct.h"
#include "mct-path.h"

/*
 * An interned id "RANK\036TEXT": its rank and, if TEXT is an integer, it.
 * Mostly both are plain digits (18 at most in TEXT): read here, as
 * strtol() and strtoll() read them, without their cost (a set is asked of
 * each op let go).
 */
static int
cset_key(const char *s, int32_t *rk, int64_t *x)
{
	const char *t;
	char *end;
	int64_t v = 0;
	int32_t r = 0;
	size_t n;

	for (t = s; *t >= '0' && *t <= '9' && t - s < 9; t++)
		r = r * 10 + (*t - '0');
	if (t > s && *t == '\036') {
		for (t++, n = 0; n < 18 && t[n] >= '0' && t[n] <= '9'; n++)
			v = v * 10 + (t[n] - '0');
		if (n >= 1 && t[n] == '\0') {
			*rk = r;
			*x = v;
			return 1;
		}
	}
	t = strchr(s, '\036');
	*rk = (int32_t)strtol(s, NULL, 10);
	if (t == NULL || t[1] == '\0' || strlen(t + 1) > 18)
		return 0;
	errno = 0;
	*x = strtoll(t + 1, &end, 10);
	return *end == '\0' && errno == 0 && t[1] != '+' && t[1] != ' ';
}

/* The first run at or after (rk, x). */
static size_t
cset_at(const struct cset *c, int32_t rk, int64_t x)
{
	size_t a = 0, b = c->n, m;

	while (a < b) {
		m = (a + b) / 2;
		if (c->v[m].rk < rk || (c->v[m].rk == rk && c->v[m].hi < x))
			a = m + 1;
		else
			b = m;
	}
	return a;
}

int
cset_has(const struct cset *c, const char *s)
{
	int32_t rk;
	int64_t x;
	size_t i;

	if (!cset_key(s, &rk, &x))
		return mct_map_find(&c->other, s, strlen(s)) != NULL;
	i = cset_at(c, rk, x);
	return i < c->n && c->v[i].rk == rk && c->v[i].lo <= x;
}

void
cset_add(struct cset *c, const char *s)
{
	int32_t rk;
	int64_t x;
	size_t i;
	int isnew;

	if (!cset_key(s, &rk, &x)) {
		mct_map_add(&c->other, s, strlen(s), &isnew);
		return;
	}
	i = cset_at(c, rk, x);
	if (i < c->n && c->v[i].rk == rk && c->v[i].lo <= x)
		return;
	if (i > 0 && c->v[i - 1].rk == rk && c->v[i - 1].hi == x - 1) {
		c->v[i - 1].hi = x;
		if (i < c->n && c->v[i].rk == rk && c->v[i].lo == x + 1) {
			c->v[i - 1].hi = c->v[i].hi;
			memmove(&c->v[i], &c->v[i + 1], (c->n - i - 1) *
			    sizeof(*c->v));
			c->n--;
		}
		return;
	}
	if (i < c->n && c->v[i].rk == rk && c->v[i].lo == x + 1) {
		c->v[i].lo = x;
		return;
	}
	if (c->n == c->cap) {
		c->cap = c->cap ? 2 * c->cap : 64;
		c->v = mct_xrealloc(c->v, c->cap * sizeof(*c->v));
	}
	memmove(&c->v[i + 1], &c->v[i], (c->n - i) * sizeof(*c->v));
	c->v[i] = (struct ival){ rk, x, x };
	c->n++;
}

void
cset_free(struct cset *c)
{
	free(c->v);
	mct_map_free(&c->other);
	memset(c, 0, sizeof(*c));
}
