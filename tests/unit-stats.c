/*
 * unit-stats.c - stats.c and sketch.c: exact sums of squares, the sketch's
 * bound.
 */
#include "config.h"

#include <math.h>
#include <string.h>

#include "mct.h"
#include "unit.h"

/* A small deterministic generator (xorshift), so failures repeat. */
static uint64_t
sk_rand(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

/* Do two sides hold the same buckets in use, whatever their form? */
static int
same_side(const struct mct_skside *a, const struct mct_skside *b)
{
	int32_t i = 0, j = 0, ia, ib;
	int64_t ca, cb;

	for (;;) {
		while (i < a->n && !mct_sketch_at(a, i, &ia, &ca))
			i++;
		while (j < b->n && !mct_sketch_at(b, j, &ib, &cb))
			j++;
		if (i == a->n || j == b->n)
			return i == a->n && j == b->n;
		if (ia != ib || ca != cb)
			return 0;
		i++, j++;
	}
}

/*
 * Buckets far apart (a partial can name any) cost memory by the buckets
 * in use, not by their span; filled in, they are dense again; the
 * quantiles are the same in both forms.
 */
static void
test_sketch_sparse(void)
{
	struct mct_sketch s = { 0 }, d = { 0 };
	double q1, q2, q3;
	int32_t i;
	int same = 1;

	for (i = 0; i < 1000; i++)
		mct_sketch_put(&s, 0, i * 250, 1 + i % 3);
	ok(s.pos.idx != NULL && s.pos.n == 1000,
	    "sketch: 1,000 buckets 250 apart held sparse (%d held)", s.pos.n);
	for (i = 0; i < 1000; i++)
		mct_sketch_put(&d, 0, i * 250, 1 + i % 3);
	mct_sketch_put(&d, 0, 1, 0);	/* a count 0 is no bucket in use */
	ok(same_side(&s.pos, &d.pos), "sketch: a count of 0 adds no bucket");
	q1 = mct_sketch_quantile(&s, 1, 2, 2000, 0, 1e300);
	q2 = mct_sketch_quantile(&s, 9, 10, 2000, 0, 1e300);
	/* fill the span in: dense again, the same quantiles */
	for (i = 0; i < 250 * 999; i++)
		if (i % 250 != 0) {
			mct_sketch_put(&s, 0, i, 1);
			mct_sketch_put(&s, 0, i, -1);
		}
	ok(s.pos.idx == NULL && s.pos.n == 250 * 999 + 1,
	    "sketch: the span filled in, dense again (%d buckets)", s.pos.n);
	q3 = mct_sketch_quantile(&s, 1, 2, 2000, 0, 1e300);
	same = q3 == q1 && mct_sketch_quantile(&s, 9, 10, 2000, 0, 1e300) == q2;
	ok(same && q1 < q2, "sketch: sparse and dense give the same quantiles");
	mct_sketch_free(&s);
	mct_sketch_free(&d);
}

/*
 * A set that keeps no value (no quantile asked): nothing held, and its
 * count, sum, min, max and mean are those of the same values kept, in
 * integers and once a fraction came; merged into a kept set, or a kept
 * one into it, the same again.
 */
static void
test_nokeep(void)
{
	struct mct_stats k = { 0 }, n = { 0 }, k2 = { 0 }, n2 = { 0 };
	uint64_t x = 7;
	int64_t v;
	int i, same = 1;

	n.nokeep = 1;
	for (i = 0; i < 100000; i++) {
		v = (int64_t)(sk_rand(&x) % 1000000) - 1000;
		mct_stats_add(&k, v);
		mct_stats_add(&n, v);
		same &= mct_stats_sum(&k) == mct_stats_sum(&n) &&
		    mct_stats_min(&k) == mct_stats_min(&n) &&
		    mct_stats_max(&k) == mct_stats_max(&n);
	}
	ok(same && n.v == NULL && n.cap == 0 && n.n == 100000 &&
	    mct_stats_mean(&k) == mct_stats_mean(&n) &&
	    mct_stats_stddev(&k) == mct_stats_stddev(&n),
	    "stats: a set keeping no value has the kept set's figures");
	for (i = 0; i < 1000; i++) {
		mct_stats_addf(&k, (double)i / 3 - 7.25);
		mct_stats_addf(&n, (double)i / 3 - 7.25);
	}
	ok(n.v == NULL && n.isfloat && mct_stats_sum(&k) == mct_stats_sum(&n) &&
	    mct_stats_min(&k) == mct_stats_min(&n) &&
	    mct_stats_max(&k) == mct_stats_max(&n) &&
	    mct_stats_mean(&k) == mct_stats_mean(&n),
	    "stats: ... and after a fraction, the same doubles in the same order");
	for (i = 0; i < 500; i++)
		mct_stats_add(&k2, i * 3);
	mct_stats_merge(&n2, &k2);	/* a kept set into a new one */
	mct_stats_merge(&k2, &n);	/* a set of no value into a kept one */
	ok(n2.v != NULL && n2.n == 500 && !n2.nokeep &&
	    k2.nokeep && k2.v == NULL && k2.n == 101500 &&
	    mct_stats_max(&k2) == mct_stats_max(&n) &&
	    mct_stats_min(&k2) == mct_stats_min(&n),
	    "stats: merged with a set of no value, a kept set keeps none");
	mct_stats_free(&k);
	mct_stats_free(&n);
	mct_stats_free(&k2);
	mct_stats_free(&n2);
}

/*
 * A set that may be counted: values that repeat are held as distinct
 * values and counts, with the quantiles of the plain set; values that do
 * not repeat go back to plain; merged, the same again.
 */
static void
test_counted(void)
{
	static const int64_t q[][2] = { { 0, 1 }, { 1, 10 }, { 1, 2 },
	    { 9, 10 }, { 999, 1000 }, { 1, 1 }, { 1, 3 } };
	struct mct_stats p = { 0 }, c = { 0 }, d = { 0 }, m = { 0 }, pm = { 0 };
	uint64_t x = 11;
	size_t i, k;
	int64_t v;
	int same = 1, msame = 1;

	c.compact = d.compact = 1;
	for (i = 0; i < 200000; i++) {
		v = (int64_t)(sk_rand(&x) % 57) * 1000 - 3000;
		mct_stats_add(&p, v);
		mct_stats_add(&c, v);
		mct_stats_add(&d, (int64_t)i * 7);	/* no repeat */
		if (i % 50000 == 49999)
			for (k = 0; k < sizeof(q) / sizeof(q[0]); k++)
				same &= mct_stats_quantile(&p, q[k][0],
				    q[k][1]) == mct_stats_quantile(&c, q[k][0],
				    q[k][1]);
	}
	ok(same && c.vc != NULL && c.nvc <= 57 && c.cap <= 8192 &&
	    mct_stats_sum(&c) == mct_stats_sum(&p) && c.n == p.n,
	    "stats: repeated values counted (%zu distinct), the plain set's "
	    "quantiles", c.nvc);
	ok(d.vc == NULL && !d.compact && d.nv == d.n &&
	    mct_stats_quantile(&d, 1, 2) == 699996.5,
	    "stats: values that do not repeat go back to plain");
	mct_stats_merge(&m, &c);
	mct_stats_merge(&m, &p);
	mct_stats_merge(&pm, &p);
	mct_stats_merge(&pm, &p);
	for (k = 0; k < sizeof(q) / sizeof(q[0]); k++)
		msame &= mct_stats_quantile(&m, q[k][0], q[k][1]) ==
		    mct_stats_quantile(&pm, q[k][0], q[k][1]);
	ok(msame && m.compact && m.vc != NULL && m.n == 2 * p.n,
	    "stats: a counted set merged makes a counted set, the same "
	    "quantiles");
	mct_stats_addf(&c, 0.5);
	mct_stats_addf(&p, 0.5);
	ok(c.vc == NULL && c.isfloat && c.n == p.n &&
	    mct_stats_quantile(&c, 1, 2) == mct_stats_quantile(&p, 1, 2) &&
	    mct_stats_max(&c) == mct_stats_max(&p),
	    "stats: a fraction into a counted set: plain doubles, the same "
	    "quantiles");
	mct_stats_free(&p);
	mct_stats_free(&c);
	mct_stats_free(&d);
	mct_stats_free(&m);
	mct_stats_free(&pm);
}

void
test_sketch(void)
{
	struct mct_stats a = { 0 }, b = { 0 }, c = { 0 }, w = { 0 }, z = { 0 };
	struct mct_sketch s1 = { 0 }, s2 = { 0 };
	uint64_t x = 88172645463325252ULL;
	double worst = 0, d, m, acc = 0, q, e;
	int64_t v[3000];
	size_t i;
	int bad = 0;

	/* every value within 1/256 of its bucket's midpoint */
	for (i = 0; i < 100000; i++) {
		d = (double)(sk_rand(&x) >> (sk_rand(&x) % 60)) + 1;
		if (i % 3 == 0)
			d = d / 1024;
		memset(&s1, 0, sizeof(s1));
		mct_sketch_add(&s1, i % 2 ? d : -d, 3);
		q = mct_sketch_quantile(&s1, 1, 2, 3, -1e300, 1e300);
		e = fabs(fabs(q) - d) / d;
		if (e > worst)
			worst = e;
		bad |= (q < 0) != (i % 2 == 0);
		mct_sketch_free(&s1);
	}
	ok(worst <= MCT_SKETCH_BOUND && !bad,
	    "sketch: every value within 1/256 of its bucket's midpoint, "
	    "sign kept (worst %.6f)", worst);

	/* exact sums: stddev the same bits in any order and any split */
	for (i = 0; i < 3000; i++) {
		v[i] = (int64_t)(sk_rand(&x) % 1000000000) - (i % 7 ? 0 : 5000);
		mct_stats_add(&w, v[i]);
		mct_stats_add(i % 3 ? &a : &b, v[i]);
	}
	for (i = 3000; i-- > 0;)
		mct_stats_add(&c, v[i]);
	mct_stats_merge(&b, &a);
	m = (double)w.isum / 3000.0;
	for (i = 0; i < 3000; i++)
		acc += ((double)v[i] - m) * ((double)v[i] - m);
	d = sqrt(acc / 2999);
	ok(mct_stats_stddev(&w) == mct_stats_stddev(&b) &&
	    mct_stats_stddev(&w) == mct_stats_stddev(&c) &&
	    fabs(mct_stats_stddev(&w) - d) <= 1e-9 * d && !w.sqover,
	    "stats: stddev from the exact sums: the same bits in any order "
	    "and split, the two-pass value to 1e-9");
	mct_stats_add(&z, INT64_MAX);
	mct_stats_add(&z, INT64_MAX);
	mct_stats_add(&z, INT64_MAX);
	ok(z.sqover && mct_stats_stddev(&z) == 0,
	    "stats: a sum of squares past 128 bits is known, stddev from the "
	    "values then");

	/* past the limit: a split's halves, sketched or not, merged any
	 * way round, give the same quantiles, within the bound */
	{
		struct mct_stats r[3], P = { 0 }, Q = { 0 };
		int k;

		memset(r, 0, sizeof(r));
		for (i = 0; i < 3000; i++) {
			mct_stats_add(i < 1500 ? &r[0] : &r[1], v[i]);
			mct_stats_add(i < 1500 ? &P : &Q, v[i]);
			if (i < 1500)
				mct_stats_add(&r[2], v[i]);
		}
		mct_stats_sketch(&P);
		mct_stats_sketch(&Q);
		mct_stats_merge(&r[0], &Q);	/* a sketch into values */
		mct_stats_merge(&Q, &r[2]);	/* values into a sketch */
		mct_stats_merge(&P, &r[1]);	/* the other half likewise */
		bad = r[0].sk == NULL || Q.sk == NULL || P.sk == NULL ||
		    r[0].n != 3000 || Q.n != 3000 || P.n != 3000;
		for (i = 0; i <= 100; i += 5)
			for (k = 0; k < 2; k++) {
				double e1 = mct_stats_quantile(&r[0], (int64_t)i, 100);
				double e2 = mct_stats_quantile(k ? &Q : &P,
				    (int64_t)i, 100);
				double ex = mct_stats_quantile(&w, (int64_t)i, 100);

				bad |= e1 != e2 || (fabs(ex) > 1e6 &&
				    fabs(e1 - ex) > MCT_SKETCH_BOUND * fabs(ex));
			}
		ok(!bad, "stats: a split's halves, sketched or not, merged "
		    "either way round give the same quantiles, within the "
		    "bound of the exact ones");
		ok(mct_stats_min(&r[0]) == mct_stats_min(&w) &&
		    mct_stats_max(&Q) == mct_stats_max(&w) &&
		    mct_stats_stddev(&r[0]) == mct_stats_stddev(&w) &&
		    mct_stats_stddev(&P) == mct_stats_stddev(&w) &&
		    mct_stats_mean(&Q) == mct_stats_mean(&w),
		    "stats: a sketched set keeps min, max, mean and stddev exact");
		for (k = 0; k < 3; k++)
			mct_stats_free(&r[k]);
		mct_stats_free(&P);
		mct_stats_free(&Q);
	}

	/* two sketches of one set made in different orders are equal */
	for (i = 0; i < 3000; i++) {
		mct_sketch_add(&s1, (double)v[i], 1);
		mct_sketch_add(&s1, -(double)v[i] / 3, 1);
	}
	for (i = 3000; i-- > 0;) {
		mct_sketch_add(&s2, -(double)v[i] / 3, 1);
		mct_sketch_add(&s2, (double)v[i], 1);
	}
	ok(s1.pos.n > 0 && s1.neg.n > 0 && s1.zero == s2.zero &&
	    same_side(&s1.pos, &s2.pos) && same_side(&s1.neg, &s2.neg),
	    "sketch: the same buckets in any order");
	mct_sketch_free(&s1);
	mct_sketch_free(&s2);
	mct_stats_free(&a);
	mct_stats_free(&b);
	mct_stats_free(&c);
	mct_stats_free(&w);
	mct_stats_free(&z);
	test_sketch_sparse();
	test_nokeep();
	test_counted();
}
