/*
 * sketch.c - a mergeable quantile sketch with a relative-error bound.
 *
 * Log-spaced buckets taken from the bits of an IEEE double: the sign
 * aside, its top MCT_SKETCH_BITS bits below the sign (the exponent and the
 * first 7 bits of the fraction) are the bucket's index.  So each power of
 * two is cut into 128 buckets, a bucket [lo, hi) has hi - lo <= lo / 128,
 * and its midpoint is within 1/256 (0.39%) of every value in it.  No libm
 * call is involved: the same value falls in the same bucket on every
 * machine, and a sketch is the same whatever order its values came in
 * and however they were split and merged (counts add).
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "mct.h"

#define SHIFT	(63 - MCT_SKETCH_BITS)	/* bits of |d| below the index */

static int32_t
bucket(double d)
{
	uint64_t u;

	memcpy(&u, &d, sizeof(u));
	return (int32_t)((u & ~(UINT64_C(1) << 63)) >> SHIFT);
}

/* The midpoint of a bucket (positive), exactly as bits say it. */
static double
sketch_value(int32_t idx)
{
	uint64_t a = (uint64_t)idx << SHIFT, b = (uint64_t)(idx + 1) << SHIFT;
	double lo, hi;

	memcpy(&lo, &a, sizeof(lo));
	memcpy(&hi, &b, sizeof(hi));
	return lo + (hi - lo) / 2;
}

/*
 * A side is dense while its buckets span at most DENSE buckets or SPREAD
 * times the buckets in use, else sparse: the memory of a sketch stays a
 * small multiple of its buckets in use (of the text of a partial's
 * buckets), whichever buckets a partial from another machine names, and
 * a sketch of many values (its buckets close together) is dense again.
 */
#define DENSE	64
#define SPREAD	4

/* The i-th bucket of a side (0 <= i < k->n): its index and count. */
int
mct_sketch_at(const struct mct_skside *k, int32_t i, int32_t *idx,
    int64_t *count)
{
	*idx = k->idx != NULL ? k->idx[i] : k->lo + i;
	*count = k->c[i];
	return *count != 0;
}

/* A dense side made sparse: its buckets in use, smallest first. */
static void
sparse(struct mct_skside *k)
{
	int64_t *c;
	int32_t i, m = 0;

	/* room as mct_xgrow keeps it: more than the n in use */
	k->idx = mct_xgrow(NULL, (size_t)k->n, sizeof(*k->idx));
	c = mct_xgrow(NULL, (size_t)k->n, sizeof(*c));
	for (i = 0; i < k->n; i++)
		if (k->c[i] != 0) {
			k->idx[m] = k->lo + i;
			c[m++] = k->c[i];
		}
	free(k->c);
	k->c = c;
	k->n = m;
}

/* A sparse side made dense again. */
static void
dense(struct mct_skside *k)
{
	int32_t lo = k->idx[0], n = k->idx[k->n - 1] - lo + 1, i;
	int64_t *c;

	c = mct_xmalloc((size_t)n * sizeof(*c));
	memset(c, 0, (size_t)n * sizeof(*c));
	for (i = 0; i < k->n; i++)
		c[k->idx[i] - lo] = k->c[i];
	free(k->c);
	free(k->idx);
	k->c = c;
	k->idx = NULL;
	k->lo = lo;
	k->n = n;
}

/* count more values in the sparse bucket idx of k. */
static void
sparse_put(struct mct_skside *k, int32_t idx, int64_t count)
{
	int32_t lo = 0, hi = k->n, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (k->idx[mid] < idx)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == k->n || k->idx[lo] != idx) {
		k->idx = mct_xgrow(k->idx, (size_t)k->n, sizeof(*k->idx));
		k->c = mct_xgrow(k->c, (size_t)k->n, sizeof(*k->c));
		memmove(k->idx + lo + 1, k->idx + lo,
		    (size_t)(k->n - lo) * sizeof(*k->idx));
		memmove(k->c + lo + 1, k->c + lo,
		    (size_t)(k->n - lo) * sizeof(*k->c));
		k->idx[lo] = idx;
		k->c[lo] = count;
		k->n++;
		if ((int64_t)SPREAD * k->n >= k->idx[k->n - 1] - k->idx[0] + 1)
			dense(k);
		return;
	}
	k->c[lo] += count;
}

/* count more values in the bucket idx of one side (neg: of -value). */
void
mct_sketch_put(struct mct_sketch *s, int neg, int32_t idx, int64_t count)
{
	struct mct_skside *k = neg ? &s->neg : &s->pos;
	int32_t lo, hi, i, used;

	if (k->idx != NULL) {
		sparse_put(k, idx, count);
		return;
	}
	if (k->n == 0) {
		k->c = mct_xmalloc(sizeof(*k->c));
		k->c[0] = 0;
		k->lo = idx;
		k->n = 1;
	} else if (idx < k->lo || idx >= k->lo + k->n) {
		lo = idx < k->lo ? idx : k->lo;
		hi = idx >= k->lo + k->n ? idx + 1 : k->lo + k->n;
		if (hi - lo > DENSE) {
			for (used = 1, i = 0; i < k->n; i++)
				used += k->c[i] != 0;
			if (hi - lo > SPREAD * used) {
				sparse(k);
				sparse_put(k, idx, count);
				return;
			}
		}
		k->c = mct_xrealloc(k->c, (size_t)(hi - lo) * sizeof(*k->c));
		memmove(k->c + (k->lo - lo), k->c, (size_t)k->n * sizeof(*k->c));
		memset(k->c, 0, (size_t)(k->lo - lo) * sizeof(*k->c));
		memset(k->c + (k->lo - lo) + k->n, 0,
		    (size_t)(hi - lo - (k->lo - lo) - k->n) * sizeof(*k->c));
		k->lo = lo;
		k->n = hi - lo;
	}
	k->c[idx - k->lo] += count;
}

void
mct_sketch_add(struct mct_sketch *s, double d, int64_t count)
{
	if (d == 0)
		s->zero += count;
	else
		mct_sketch_put(s, d < 0, bucket(d), count);
}

void
mct_sketch_merge(struct mct_sketch *a, const struct mct_sketch *b)
{
	int32_t i, idx;
	int64_t c;

	a->zero += b->zero;
	for (i = 0; i < b->pos.n; i++)
		if (mct_sketch_at(&b->pos, i, &idx, &c))
			mct_sketch_put(a, 0, idx, c);
	for (i = 0; i < b->neg.n; i++)
		if (mct_sketch_at(&b->neg, i, &idx, &c))
			mct_sketch_put(a, 1, idx, c);
}

/* The value of rank r (from 0), smallest first: a bucket's midpoint. */
static double
rank(const struct mct_sketch *s, mct_i128 r)
{
	int32_t i, idx;
	int64_t c;

	for (i = s->neg.n - 1; i >= 0; i--)
		if (mct_sketch_at(&s->neg, i, &idx, &c) && (r -= c) < 0)
			return -sketch_value(idx);
	if ((r -= s->zero) < 0)
		return 0;
	for (i = 0; i < s->pos.n; i++)
		if (mct_sketch_at(&s->pos, i, &idx, &c) && (r -= c) < 0)
			return sketch_value(idx);
	return 0;
}

static double
clamp(double d, double min, double max)
{
	return d < min ? min : d > max ? max : d;
}

/*
 * The quantile num/den of the n values, interpolated between the two
 * closest ranks as lib/stats.c does; the smallest and largest values are
 * the exact min and max.  Each rank's value is within the bound, so is a
 * point between two of the same sign.
 */
double
mct_sketch_quantile(const struct mct_sketch *s, int64_t num, int64_t den,
    size_t n, double min, double max)
{
	mct_i128 pn = (mct_i128)num * (mct_i128)(n - 1), i = pn / den;
	mct_i128 rem = pn % den;
	double lo, hi;

	lo = i == 0 ? min : i + 1 >= (mct_i128)n ? max :
	    clamp(rank(s, i), min, max);
	if (rem == 0 || i + 1 >= (mct_i128)n)
		return lo;
	hi = i + 2 >= (mct_i128)n ? max : clamp(rank(s, i + 1), min, max);
	return lo + (hi - lo) * ((double)rem / (double)den);
}

void
mct_sketch_free(struct mct_sketch *s)
{
	if (s == NULL)
		return;
	free(s->pos.c);
	free(s->neg.c);
	free(s->pos.idx);
	free(s->neg.idx);
	memset(s, 0, sizeof(*s));
}
