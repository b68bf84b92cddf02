/*
 * path-sort.c - mct-path's sorts of the graph's arrays, which come
 * nearly in order (a trace mostly is in time order): by insertion, and
 * by lane with a count.  Both keep equal elements in the order they
 * came, as qsort(3) (glibc's merge sort) does, so the graph is the same.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "mct.h"
#include "mct-path.h"

/*
 * mct_sort() for arrays that come nearly in order (by time, as a trace
 * mostly is): an insertion sort while it moves few elements (a budget
 * of eight an element), else mct_sort() of what it left, which is the
 * same order: insertion keeps equal elements as they came.
 */
void
path_sort_near(void *base, size_t n, size_t size,
    int (*cmp)(const void *, const void *))
{
	char *b = base, *t;
	size_t i, j, budget = 8 * n;

	if (n < 2)
		return;
	t = mct_xmalloc(size);
	for (i = 1; i < n; i++) {
		for (j = i; j > 0 && cmp(b + (j - 1) * size, b + i * size) > 0;
		    j--)
			;
		if (j == i)
			continue;
		if (i - j > budget) {
			mct_sort(base, n, size, cmp);
			break;
		}
		budget -= i - j;
		memcpy(t, b + i * size, size);
		memmove(b + (j + 1) * size, b + j * size, (i - j) * size);
		memcpy(b + j * size, t, size);
	}
	free(t);
}

/*
 * A stable count of the n elements of size sz at base by lane (lane()
 * of each): their order kept within a lane.  Returns where each lane's
 * run ends (o->lanes.n of them), to free.
 */
size_t *
path_by_lane(const struct opts *o, void *base, size_t n, size_t sz,
    int32_t (*lane)(const struct opts *, const void *))
{
	size_t nl = (size_t)o->lanes.n, *at, i;
	char *b = base, *out;

	at = mct_xmalloc((nl + 1) * sizeof(*at));
	memset(at, 0, (nl + 1) * sizeof(*at));
	for (i = 0; i < n; i++)
		at[lane(o, b + i * sz) + 1]++;
	for (i = 0; i < nl; i++)
		at[i + 1] += at[i];
	out = mct_xmalloc(n * sz + 1);
	for (i = 0; i < n; i++)
		memcpy(out + at[lane(o, b + i * sz)]++ * sz, b + i * sz, sz);
	memcpy(base, out, n * sz);
	free(out);
	return at;
}
