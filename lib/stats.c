/*
 * stats.c - exact statistics of a set of numbers: count, sum, min, max,
 * mean, sample standard deviation, and quantiles.
 *
 * Integers (ns) are kept as int64 and summed in 128 bits, so totals are
 * exact to the ns; the first value with a fraction turns the set into
 * doubles.  Every value is kept (8 bytes) for exact medians.  Quantiles
 * interpolate linearly between the closest ranks, so the median of an
 * even count is the mean of the two middle values.
 *
 * The integers' sum of squares is kept exactly too, so the standard
 * deviation comes from (n, sum, sum of squares) alone and a merge of
 * partial sets gives it to the last bit, in any order.  A set past its
 * exact limit turns into a sketch (lib/sketch.c): its values go, and
 * quantiles come from the sketch within its bound.
 *
 * A set that no quantile or deviation is asked of keeps no value at all
 * (nokeep, set before the first): its count, exact integer sums, min and
 * max, and the running doubles, which add the values in the order they
 * came as the sum of kept values does.
 *
 * A set of integers that may be counted (compact, set before the first)
 * folds its values, once they are many, into a sorted list of distinct
 * values and their counts: the same quantiles in the memory of the
 * distinct values (a trace's durations repeat: 1.7 million runtime calls
 * took 4,253 distinct durations).  Where they do not repeat enough to
 * halve the memory, the set goes back to its plain values for good.  A
 * fraction coming into a counted set unfolds it first (the doubles are
 * then summed in sorted order, not in the order they came).  A set that
 * is written out as a partial is never counted.
 */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "mct.h"

#define COUNT_MIN	4096	/* values a set holds before it is counted */

static void
grow(struct mct_stats *s)
{
	if (s->nv == s->cap) {
		s->cap = s->cap ? s->cap * 2 : 4;
		s->v = mct_xrealloc(s->v, s->cap * sizeof(*s->v));
	}
}

/* The counted values back among the plain ones: nv is n again. */
static void
unfold(struct mct_stats *s)
{
	size_t i;
	int64_t c;

	if (s->vc == NULL)
		return;
	if (s->cap < s->n) {
		s->cap = s->n;
		s->v = mct_xrealloc(s->v, s->cap * sizeof(*s->v));
	}
	for (i = 0; i < s->nvc; i++)
		for (c = 0; c < s->vc[i].c; c++)
			s->v[s->nv++].i = s->vc[i].v;
	free(s->vc);
	s->vc = NULL;
	s->nvc = 0;
	s->sorted = 0;
}

/*
 * The plain values folded into the counted ones (both sorted, merged);
 * unfolded for good if that does not halve their memory.
 */
static void
fold(struct mct_stats *s)
{
	struct mct_vcount *m;
	size_t i = 0, j = 0, k = 0, need = s->nvc + s->nv;

	mct_sort_i64(&s->v[0].i, s->nv);
	m = mct_xmalloc((need ? need : 1) * sizeof(*m));
	while (i < s->nv || j < s->nvc) {
		if (j == s->nvc || (i < s->nv && s->v[i].i < s->vc[j].v)) {
			if (k > 0 && m[k - 1].v == s->v[i].i)
				m[k - 1].c++;
			else
				m[k].v = s->v[i].i, m[k++].c = 1;
			i++;
		} else {
			if (k > 0 && m[k - 1].v == s->vc[j].v)
				m[k - 1].c += s->vc[j].c;
			else
				m[k++] = s->vc[j];
			j++;
		}
	}
	free(s->vc);
	s->vc = mct_xrealloc(m, (k ? k : 1) * sizeof(*m));
	s->nvc = k;
	s->nv = 0;
	if (2 * k * sizeof(*m) > s->n * sizeof(*s->v)) {
		s->compact = 0;
		unfold(s);
		s->sorted = 1;	/* (merged in order) */
	}
}

/* A value into the running doubles (a set sketched, or keeping none). */
static void
unkept(struct mct_stats *s, double d)
{
	s->fsum += d;
	s->fsumsq += d * d;
	if (s->n == 0 || d < s->fmin)
		s->fmin = d;
	if (s->n == 0 || d > s->fmax)
		s->fmax = d;
}

/* A value into a sketched set: its bucket and the running doubles. */
static void
running(struct mct_stats *s, double d)
{
	mct_sketch_add(s->sk, d, 1);
	unkept(s, d);
}

static double at(const struct mct_stats *, size_t);

/*
 * From now on a sketch: the values go into its buckets and are freed;
 * n, the sums, min and max stay.  The doubles' running figures start
 * from the values, so a float set keeps its sum, min and max.
 */
void
mct_stats_sketch(struct mct_stats *s)
{
	size_t i, n = s->n;

	if (s->sk != NULL || s->nokeep)
		return;
	unfold(s);
	s->sk = mct_xmalloc(sizeof(*s->sk));
	memset(s->sk, 0, sizeof(*s->sk));
	s->fsum = s->fsumsq = 0;
	s->n = 0;
	for (i = 0; i < n; i++) {
		running(s, at(s, i));
		s->n++;
	}
	free(s->v);
	s->v = NULL;
	s->cap = s->nv = 0;
}

/* From now on a set that keeps no value: its running doubles from them. */
static void
forget(struct mct_stats *s)
{
	size_t n = s->n;

	if (s->nokeep)
		return;
	s->nokeep = 1;
	if (s->sk != NULL) {
		mct_sketch_free(s->sk);
		free(s->sk);
		s->sk = NULL;
		return;
	}
	unfold(s);
	s->fsum = s->fsumsq = 0;
	for (s->n = 0; s->n < n; s->n++)
		unkept(s, at(s, s->n));
	free(s->v);
	s->v = NULL;
	s->cap = s->nv = 0;
}

void
mct_stats_add(struct mct_stats *s, int64_t v)
{
	if (s->isfloat) {
		mct_stats_addf(s, (double)v);
		return;
	}
	if (!s->sqover && __builtin_add_overflow(s->isumsq,
	    (mct_i128)v * v, &s->isumsq))
		s->sqover = 1;
	if (s->nokeep)
		unkept(s, (double)v);
	else if (s->sk != NULL)
		running(s, (double)v);
	else {
		if (s->compact && s->nv == s->cap && s->nv >= COUNT_MIN &&
		    s->nv >= s->nvc)
			fold(s);
		grow(s);
		s->v[s->nv++].i = v;
	}
	s->n++;
	s->isum += v;
	if (s->n == 1 || v < s->imin)
		s->imin = v;
	if (s->n == 1 || v > s->imax)
		s->imax = v;
	s->sorted = 0;
}

void
mct_stats_addf(struct mct_stats *s, double d)
{
	size_t i;

	if (!s->isfloat) {
		/* from now on, doubles */
		unfold(s);
		if (s->sk == NULL && !s->nokeep)
			for (i = 0; i < s->n; i++)
				s->v[i].d = (double)s->v[i].i;
		s->isfloat = 1;
	}
	if (s->nokeep)
		unkept(s, d);
	else if (s->sk != NULL)
		running(s, d);
	else {
		grow(s);
		s->v[s->nv++].d = d;
	}
	s->n++;
	s->sorted = 0;
}

/* The summary of the set b into a, both sketched or keeping no value. */
static void
merge_sums(struct mct_stats *a, const struct mct_stats *b)
{
	if (b->n == 0)
		return;
	a->isfloat |= b->isfloat;
	if (!a->isfloat) {
		if (a->n == 0 || b->imin < a->imin)
			a->imin = b->imin;
		if (a->n == 0 || b->imax > a->imax)
			a->imax = b->imax;
	}
	a->isum += b->isum;
	a->sqover |= b->sqover || __builtin_add_overflow(a->isumsq, b->isumsq,
	    &a->isumsq);
	a->fsum += b->fsum;
	a->fsumsq += b->fsumsq;
	if (a->n == 0 || b->fmin < a->fmin)
		a->fmin = b->fmin;
	if (a->n == 0 || b->fmax > a->fmax)
		a->fmax = b->fmax;
	a->n += b->n;
}

/* Add the values b keeps, plain or counted, to a. */
static void
add_values(struct mct_stats *a, const struct mct_stats *b)
{
	size_t i;
	int64_t c;

	for (i = 0; i < b->nv; i++) {
		if (b->isfloat)
			mct_stats_addf(a, b->v[i].d);
		else
			mct_stats_add(a, b->v[i].i);
	}
	for (i = 0; i < b->nvc; i++)
		for (c = 0; c < b->vc[i].c; c++)
			mct_stats_add(a, b->vc[i].v);
}

/* Add every value of b to a (a counted b makes a counted a). */
void
mct_stats_merge(struct mct_stats *a, const struct mct_stats *b)
{
	if (a->nokeep || b->nokeep) {
		forget(a);
		if (b->nokeep || b->sk != NULL)
			merge_sums(a, b);
		else
			add_values(a, b);
		return;
	}
	if (b->sk != NULL) {
		mct_stats_sketch(a);
		merge_sums(a, b);
		mct_sketch_merge(a->sk, b->sk);
		return;
	}
	a->compact |= b->compact;
	add_values(a, b);
}

static int
cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static void
sort(struct mct_stats *s)
{
	if (s->sorted)
		return;
	if (s->vc != NULL)
		fold(s);	/* all counted, sorted (or plain, sorted) */
	if (s->vc != NULL || s->sorted)
		;
	else if (s->isfloat)
		mct_sort(s->v, s->n, sizeof(*s->v), cmp_d);
	else if (s->n > 0)
		mct_sort_i64(&s->v[0].i, s->n);
	s->sorted = 1;
}

static double
at(const struct mct_stats *s, size_t i)
{
	return s->isfloat ? s->v[i].d : (double)s->v[i].i;
}

double
mct_stats_sum(const struct mct_stats *s)
{
	double d = 0;
	size_t i;

	if (!s->isfloat)
		return (double)s->isum;
	if (s->sk != NULL || s->nokeep)
		return s->fsum;
	for (i = 0; i < s->n; i++)
		d += s->v[i].d;
	return d;
}

double
mct_stats_min(struct mct_stats *s)
{
	if (!s->isfloat)
		return (double)s->imin;
	if (s->sk != NULL || s->nokeep)
		return s->fmin;
	sort(s);
	return s->n ? s->v[0].d : NAN;
}

double
mct_stats_max(struct mct_stats *s)
{
	if (!s->isfloat)
		return (double)s->imax;
	if (s->sk != NULL || s->nokeep)
		return s->fmax;
	sort(s);
	return s->n ? s->v[s->n - 1].d : NAN;
}

double
mct_stats_mean(const struct mct_stats *s)
{
	if (s->n == 0)
		return NAN;
	if (!s->isfloat)
		return (double)s->isum / (double)s->n;
	return mct_stats_sum(s) / (double)s->n;
}

/*
 * Sample standard deviation (n - 1); 0 for one value.  Integers: from
 * the exact sums, sum of squares less sum^2/n, with sum = q n + r split
 * so that only r^2/n (< n) is not an integer; the same bits whatever
 * the order the values came in.
 */
double
mct_stats_stddev(const struct mct_stats *s)
{
	double m = mct_stats_mean(s), acc = 0, d;
	mct_i128 q, r, m2;
	size_t i;

	if (s->n == 0)
		return NAN;
	if (s->n == 1)
		return 0;
	if (!s->isfloat && !s->sqover) {
		q = s->isum / (mct_i128)s->n;
		r = s->isum % (mct_i128)s->n;
		m2 = s->isumsq - q * q * (mct_i128)s->n - 2 * q * r;
		d = (double)m2 - (double)r * (double)r / (double)s->n;
		return d > 0 ? sqrt(d / (double)(s->n - 1)) : 0;
	}
	if (s->sk != NULL || s->nokeep) {
		d = s->fsumsq - s->fsum * s->fsum / (double)s->n;
		return d > 0 ? sqrt(d / (double)(s->n - 1)) : 0;
	}
	for (i = 0; i < s->n; i++) {
		d = at(s, i) - m;
		acc += d * d;
	}
	return sqrt(acc / (double)(s->n - 1));
}

/* The values of rank i and i + 1 (the last, past it) of a counted set. */
static void
counted_at(const struct mct_stats *s, size_t i, mct_i128 *lo, mct_i128 *hi)
{
	size_t j, seen = 0;

	for (j = 0; j < s->nvc; j++) {
		seen += (size_t)s->vc[j].c;
		if (i < seen)
			break;
	}
	if (j == s->nvc)
		j = s->nvc - 1;
	*lo = s->vc[j].v;
	*hi = i + 1 < seen || j + 1 == s->nvc ? s->vc[j].v : s->vc[j + 1].v;
}

/*
 * The quantile num/den (0 <= num/den <= 1), linear between the closest
 * ranks.  Exact for integers: the rank is num * (n - 1) / den in integer
 * arithmetic, and the only rounding is the last division.
 */
double
mct_stats_quantile(struct mct_stats *s, int64_t num, int64_t den)
{
	mct_i128 pn, rem, lo, hi;
	size_t i;

	if (s->n == 0 || den <= 0 || s->nokeep)
		return NAN;	/* (nokeep: never asked) */
	if (s->sk != NULL)
		return mct_sketch_quantile(s->sk, num, den, s->n,
		    mct_stats_min(s), mct_stats_max(s));
	sort(s);
	pn = (mct_i128)num * (mct_i128)(s->n - 1);
	i = (size_t)(pn / den);
	rem = pn % den;
	if (s->vc != NULL) {
		counted_at(s, i, &lo, &hi);
		if (rem == 0 || i + 1 >= s->n)
			return (double)lo;
		return (double)(lo * den + (hi - lo) * rem) / (double)den;
	}
	if (i + 1 >= s->n)
		return at(s, s->n - 1);
	if (s->isfloat)
		return s->v[i].d + (s->v[i + 1].d - s->v[i].d) *
		    ((double)rem / (double)den);
	lo = s->v[i].i;
	hi = s->v[i + 1].i;
	if (rem == 0)
		return (double)lo;
	return (double)(lo * den + (hi - lo) * rem) / (double)den;
}

void
mct_stats_free(struct mct_stats *s)
{
	mct_sketch_free(s->sk);
	free(s->sk);
	free(s->v);
	free(s->vc);
	memset(s, 0, sizeof(*s));
}
