/*
 * cut.c - the cells of a column cut to a width, and kept distinct.
 *
 * A table for people cuts a cell wider than its width w (in UTF-8
 * characters) to its first w - 1 characters and an ellipsis.  Kernel
 * names share long prefixes (void at::native::vectorized_elementwise_
 * kernel<4, at::native::...), so that cut can make two different values
 * of a column look the same.  Those values are cut in the middle instead:
 * their start, an ellipsis, the word where the value first differs from
 * the nearest other one (the functor, the template argument) and an
 * ellipsis if more follows, still w characters.  Should two still look
 * the same, they are widened a character at a time until they do not
 * (whole values are distinct).  A value that collides with no other is
 * cut as it always was.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "mct.h"

struct val {
	const char	*p;		/* the value */
	size_t		 n;		/* its bytes */
	size_t		*at;		/* byte offset of each character, and n */
	size_t		 nch;		/* its characters */
	size_t		 w;		/* its width now */
	size_t		 d;		/* the character where it differs, or
					   SIZE_MAX: cut at the end */
	size_t		 voff, vlen;	/* its visible text in the buffer */
	int		 clash;
};

static const char ellipsis[] = "\xe2\x80\xa6";	/* … */

static int
word(int c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	    (c >= '0' && c <= '9') || c == '_';
}

/* The characters of the value: where each starts. */
static void
chars(struct val *v)
{
	size_t i, k = 0;

	v->at = mct_xmalloc((v->n + 1) * sizeof(*v->at));
	for (i = 0; i < v->n; i++)
		if (((unsigned char)v->p[i] & 0xc0) != 0x80)
			v->at[k++] = i;
	v->nch = k;
	v->at[k] = v->n;
}

/* Characters [a, b) of the value into b. */
static void
span(struct mct_buf *b, const struct val *v, size_t from, size_t to)
{
	mct_buf_add(b, v->p + v->at[from], v->at[to] - v->at[from]);
}

/*
 * The word that holds character d: back to its start (at most w/4
 * characters before d, then from the first _ of those on), on to its end
 * (at most w/2 from its start), and at least w/5 characters when more
 * text follows.
 */
static void
middle(const struct val *v, size_t w, size_t *t0, size_t *t1)
{
	size_t d = v->d, a = d, z = d + 1, k;

	if (word((unsigned char)v->p[v->at[d]])) {
		while (a > 0 && d - a < w / 4 && word((unsigned char)v->p[v->at[a - 1]]))
			a--;
		if (a > 0 && word((unsigned char)v->p[v->at[a - 1]]))
			for (k = a; k < d; k++)	/* mid-word: from a _ on */
				if (v->p[v->at[k]] == '_') {
					a = k + 1;
					break;
				}
		while (z < v->nch && z - a < w / 2 && word((unsigned char)v->p[v->at[z]]))
			z++;
	}
	if (z - a < w / 5)
		z = a + w / 5 < v->nch ? a + w / 5 : v->nch;
	*t0 = a;
	*t1 = z;
}

/* The visible text of the value at its width, appended to b. */
static void
visible(struct val *v, struct mct_buf *b)
{
	size_t w = v->w, t0, t1, len, head, trail;

	v->voff = b->len;
	if (v->at == NULL || v->nch <= w) {
		mct_buf_add(b, v->p, v->n);
	} else if (v->d == SIZE_MAX || v->d >= v->nch) {
		span(b, v, 0, w - 1);
		mct_buf_adds(b, ellipsis);
	} else {
		middle(v, w, &t0, &t1);
		if (t1 - t0 > w - 2)
			t1 = t0 + (w - 2);
		trail = t1 < v->nch;
		if (!trail) {		/* the end shown: as much of it as fits */
			len = t1 - t0 > w / 3 ? t1 - t0 : w / 3;
			t0 = v->nch - len;
		}
		len = t1 - t0;
		head = w - 1 - len - trail;
		if (head >= t0) {	/* no gap: the tail takes the room */
			head = t0 > 0 ? t0 - 1 : 0;
			t1 = t0 + (w - 1 - head - trail);
			if (t1 > v->nch)
				t1 = v->nch;
		}
		span(b, v, 0, head);
		mct_buf_adds(b, ellipsis);
		span(b, v, t0, t1);
		if (t1 < v->nch)
			mct_buf_adds(b, ellipsis);
	}
	v->vlen = b->len - v->voff;
}

static int
cmp_vis(const void *x, const void *y, void *arg)
{
	const struct mct_buf *b = arg;
	const struct val *a = *(struct val *const *)x, *c = *(struct val *const *)y;
	size_t n = a->vlen < c->vlen ? a->vlen : c->vlen;
	int r = memcmp(b->p + a->voff, b->p + c->voff, n);

	if (r == 0 && a->vlen != c->vlen)
		r = a->vlen < c->vlen ? -1 : 1;
	if (r == 0) {
		n = a->n < c->n ? a->n : c->n;
		if ((r = memcmp(a->p, c->p, n)) == 0 && a->n != c->n)
			r = a->n < c->n ? -1 : 1;
	}
	return r;
}

static int
same_vis(const struct mct_buf *b, const struct val *a, const struct val *c)
{
	return a->vlen == c->vlen &&
	    memcmp(b->p + a->voff, b->p + c->voff, a->vlen) == 0;
}

/* The characters two values share at their start. */
static size_t
common(const struct val *a, const struct val *c)
{
	size_t i = 0, n = a->n < c->n ? a->n : c->n, k = 0;

	while (i < n && a->p[i] == c->p[i])
		i++;
	while (k < a->nch && a->at[k + 1] <= i)
		k++;
	return k;
}

/*
 * Mark the values whose visible text another value has (sorted by it,
 * neighbours); the first time, each one's d: where it differs from its
 * nearest such neighbour.  Returns how many clash.
 */
static size_t
clashes(struct val **s, size_t n, struct mct_buf *b, int first)
{
	size_t i, k = 0, c;

	mct_sort_r(s, n, sizeof(*s), cmp_vis, b);
	for (i = 0; i < n; i++)
		s[i]->clash = 0;
	for (i = 0; i + 1 < n; i++)
		if (same_vis(b, s[i], s[i + 1]))
			s[i]->clash = s[i + 1]->clash = 1;
	for (i = 0; i < n; i++) {
		if (!s[i]->clash)
			continue;
		k++;
		if (!first || s[i]->at == NULL)
			continue;
		s[i]->d = 0;
		if (i > 0 && same_vis(b, s[i - 1], s[i]) &&
		    (c = common(s[i], s[i - 1])) > s[i]->d)
			s[i]->d = c;
		if (i + 1 < n && same_vis(b, s[i], s[i + 1]) &&
		    (c = common(s[i], s[i + 1])) > s[i]->d)
			s[i]->d = c;
	}
	return k;
}

/*
 * The n cells in[] of a column, cut to w characters (w >= 2), two
 * different values never alike unless endcut (every value cut at its
 * end, as a column of lists wants): their visible texts appended to b and
 * out[i] pointing at them (valid until b changes again).
 */
void
mct_cut_column(const struct mct_text *in, size_t n, size_t w,
    struct mct_buf *b, struct mct_text *out, int endcut)
{
	struct mct_map m = { 0 };
	struct val *v, **s;
	size_t *id, i, nv = 0, round;
	struct mct_mapent *e;
	int isnew;

	v = mct_xmalloc((n + 1) * sizeof(*v));
	id = mct_xmalloc((n + 1) * sizeof(*id));
	for (i = 0; i < n; i++) {
		e = mct_map_add(&m, in[i].p, in[i].len, &isnew);
		if (isnew) {
			memset(&v[nv], 0, sizeof(v[nv]));
			v[nv].p = in[i].p;
			v[nv].n = in[i].len;
			v[nv].w = w;
			v[nv].d = SIZE_MAX;
			if (in[i].len > w)	/* more than w bytes: maybe cut */
				chars(&v[nv]);
			e->val.i = (int64_t)nv++;
		}
		id[i] = (size_t)e->val.i;
	}
	mct_map_free(&m);
	s = mct_xmalloc((nv + 1) * sizeof(*s));
	for (i = 0; i < nv; i++) {
		s[i] = &v[i];
		visible(&v[i], b);
	}
	for (round = 0; !endcut && clashes(s, nv, b, round == 0) > 0; round++)
		for (i = 0; i < nv; i++) {
			if (!v[i].clash || v[i].at == NULL)
				continue;
			if (round > 0 && v[i].w < v[i].nch)
				v[i].w++;
			visible(&v[i], b);
		}
	for (i = 0; i < n; i++) {
		out[i].p = b->p + v[id[i]].voff;
		out[i].len = v[id[i]].vlen;
	}
	for (i = 0; i < nv; i++)
		free(v[i].at);
	free(s);
	free(v);
	free(id);
}
