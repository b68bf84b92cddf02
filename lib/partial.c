/*
 * partial.c - a group table's mergeable state, written as NDJSON and read
 * back (mct-group -o partial and --merge; mct(7), Many machines).
 *
 * Three kinds of line, in this order:
 *
 *   {"mct_partial":1,"by":[..],"value":"dur","x":[..],"missing":false,
 *    "meta":false,"limit":L,"unit":"us","origin":N,"sources":[..]}
 *   {"key":"..","count":N,"n":N,"float":false,"sum":S,"sumsq":Q,"min":..,
 *    "max":..,"first":T,"last":T,"x":[[n,float,isum,dsum,min,max],..],
 *    "values":[..]}                       one per group; "sketch" instead
 *                                          of "values" past the limit
 *   {"mct_partial_end":G,"alltotal":S,"alltotalf":D,"allfloat":false}
 *
 * A group's key is the table's key (JSON texts joined by \037) as one
 * JSON string, so it comes back byte for byte.  Integers are exact (sums
 * and sums of squares in 128 bits, as decimal numbers); doubles are
 * written in the shortest text that reads back to the same bits.  The
 * end line makes a partial cut at a line boundary known as truncated.
 *
 * The reading of lines, headers and end lines (mct_partial_lines()) and
 * the traces a header covers (mct_partial_cover()) serve every kind of
 * partial: mct-ranks' (rankpart.c) too.  A file is read as any input is:
 * a byte source of input.c, told a partial by mct_src_kind(), its lines
 * from mct_lines_next().
 */
#include "config.h"

#include <err.h>
#include <stdlib.h>
#include <string.h>

#include "mct_private.h"

/* A 128-bit integer in decimal. */
static void
addi128(struct mct_buf *b, mct_i128 v)
{
	char d[48], *p = d + sizeof(d);
	unsigned __int128 u = v < 0 ? -(unsigned __int128)v : (unsigned __int128)v;

	do {
		*--p = (char)('0' + (int)(u % 10));
		u /= 10;
	} while (u);
	if (v < 0)
		*--p = '-';
	mct_buf_add(b, p, (size_t)(d + sizeof(d) - p));
}

static void
addd(struct mct_buf *b, double d)
{
	char num[40];

	mct_buf_add(b, num, mct_fmt_double(num, d));
}

static void
addkey(struct mct_buf *b, const char *k)
{
	mct_buf_addc(b, b->len && b->p[b->len - 1] != '{' &&
	    b->p[b->len - 1] != '[' ? ',' : ' ');
	if (b->p[b->len - 1] == ' ')
		b->len--;
	mct_buf_addjstr(b, k, strlen(k));
	mct_buf_addc(b, ':');
}

static void
addbool(struct mct_buf *b, const char *k, int v)
{
	addkey(b, k);
	mct_buf_adds(b, v ? "true" : "false");
}

/* A JSON array of strings. */
static void
addstrs(struct mct_buf *b, char *const *v, int n)
{
	int i;

	mct_buf_addc(b, '[');
	for (i = 0; i < n; i++) {
		if (i)
			mct_buf_addc(b, ',');
		mct_buf_addjstr(b, v[i], strlen(v[i]));
	}
	mct_buf_addc(b, ']');
}

/*
 * The end of any partial's header: the traces it covers (unit, origin,
 * sources), as mct_partial_cover() reads them back.
 */
void
mct_partial_cover_write(struct mct_buf *b, const struct mct_pspec *ps)
{
	addkey(b, "unit");
	mct_buf_addc(b, '"');
	mct_buf_adds(b, mct_unit_name(ps->unit ? ps->unit : MCT_UNIT_NS));
	mct_buf_addc(b, '"');
	addkey(b, "origin");
	if (ps->has_origin)
		mct_buf_addi(b, ps->origin);
	else
		mct_buf_adds(b, "null");
	addkey(b, "sources");
	addstrs(b, ps->src, ps->nsrc);
}

/* The traces a run read (its header h), as its partial covers them. */
void
mct_partial_cover_of(struct mct_pspec *ps, const struct mct_header *h)
{
	int i;

	ps->unit = h->facts.unit;
	ps->has_origin = h->facts.has_origin;
	ps->origin = h->facts.origin;
	ps->src = mct_xmalloc((size_t)(h->nsrc + 1) * sizeof(*ps->src));
	for (i = 0; i < h->nsrc; i++)
		ps->src[i] = mct_xstrdup(h->src[i].path);
	ps->nsrc = h->nsrc;
}

static void
header(struct mct_buf *b, const struct mct_gtab *t, const struct mct_pspec *ps,
    size_t limit)
{
	char **x = mct_xmalloc((size_t)(t->nx + 1) * sizeof(*x));
	int i;

	mct_buf_adds(b, "{\"mct_partial\":");
	mct_buf_addi(b, MCT_PARTIAL_VERSION);
	addkey(b, "by");
	addstrs(b, ps->by, ps->nby);
	addkey(b, "value");
	mct_buf_addjstr(b, ps->value, strlen(ps->value));
	addkey(b, "x");
	for (i = 0; i < t->nx; i++)
		x[i] = t->xf[i].text;
	addstrs(b, x, t->nx);
	free(x);
	addbool(b, "missing", ps->missing);
	addbool(b, "meta", ps->meta);
	addkey(b, "limit");
	mct_buf_addi(b, (int64_t)limit);
	mct_partial_cover_write(b, ps);
	mct_buf_adds(b, "}\n");
}

static void
sketch(struct mct_buf *b, const struct mct_sketch *sk)
{
	const struct mct_skside *k;
	int32_t i;
	int side, first;

	addkey(b, "sketch");
	mct_buf_adds(b, "{\"zero\":");
	mct_buf_addi(b, sk->zero);
	for (side = 0; side < 2; side++) {
		k = side ? &sk->neg : &sk->pos;
		addkey(b, side ? "neg" : "pos");
		mct_buf_addc(b, '[');
		for (first = 1, i = 0; i < k->n; i++) {
			if (k->c[i] == 0)
				continue;
			if (!first)
				mct_buf_addc(b, ',');
			first = 0;
			mct_buf_addi(b, k->lo + i);
			mct_buf_addc(b, ',');
			mct_buf_addi(b, k->c[i]);
		}
		mct_buf_addc(b, ']');
	}
	mct_buf_addc(b, '}');
}

static void
stats(struct mct_buf *b, const struct mct_stats *s)
{
	size_t i;

	addkey(b, "n");
	mct_buf_addi(b, (int64_t)s->n);
	addbool(b, "float", s->isfloat);
	if (s->n == 0)
		return;
	addkey(b, "sum");
	addi128(b, s->isum);
	addkey(b, "sumsq");
	if (s->sqover)
		mct_buf_adds(b, "null");
	else
		addi128(b, s->isumsq);
	addkey(b, "min");
	mct_buf_addi(b, s->imin);
	addkey(b, "max");
	mct_buf_addi(b, s->imax);
	if (s->sk != NULL) {
		addkey(b, "fsum");
		addd(b, s->fsum);
		addkey(b, "fsumsq");
		addd(b, s->fsumsq);
		addkey(b, "fmin");
		addd(b, s->fmin);
		addkey(b, "fmax");
		addd(b, s->fmax);
		sketch(b, s->sk);
		return;
	}
	addkey(b, "values");
	mct_buf_addc(b, '[');
	for (i = 0; i < s->n; i++) {
		if (i)
			mct_buf_addc(b, ',');
		if (s->isfloat)
			addd(b, s->v[i].d);
		else
			mct_buf_addi(b, s->v[i].i);
	}
	mct_buf_addc(b, ']');
}

static void
group(struct mct_buf *b, const struct mct_gtab *t, const struct mct_group *g)
{
	const struct mct_run *r;
	int i;

	mct_buf_adds(b, "{\"key\":");
	mct_buf_addjstr(b, g->key, g->klen);
	addkey(b, "count");
	mct_buf_addi(b, g->count);
	stats(b, &g->val);
	if (g->span) {
		addkey(b, "first");
		mct_buf_addi(b, g->first);
		addkey(b, "last");
		mct_buf_addi(b, g->last);
	}
	addkey(b, "x");
	mct_buf_addc(b, '[');
	for (i = 0; i < t->nx; i++) {
		r = &g->x[i];
		mct_buf_adds(b, i ? ",[" : "[");
		mct_buf_addi(b, r->n);
		mct_buf_adds(b, r->isfloat ? ",true," : ",false,");
		addi128(b, r->isum);
		mct_buf_addc(b, ',');
		addd(b, r->dsum);
		mct_buf_addc(b, ',');
		addd(b, r->n ? r->min : 0);
		mct_buf_addc(b, ',');
		addd(b, r->n ? r->max : 0);
		mct_buf_addc(b, ']');
	}
	mct_buf_adds(b, "]}\n");
}

/*
 * Write the partial of table t on stdout.  A group with more values than
 * limit is turned into a sketch first.
 */
void
mct_partial_write(struct mct_gtab *t, const struct mct_pspec *ps, size_t limit)
{
	struct mct_buf b = { 0 };
	size_t i;

	header(&b, t, ps, limit);
	for (i = 0; i < t->n; i++) {
		if (t->g[i].val.n > limit)
			mct_stats_sketch(&t->g[i].val);
		group(&b, t, &t->g[i]);
		mct_write(b.p, b.len);
		b.len = 0;
	}
	mct_buf_adds(&b, "{\"mct_partial_end\":");
	mct_buf_addi(&b, (int64_t)t->n);
	addkey(&b, "alltotal");
	addi128(&b, t->alltotal);
	addkey(&b, "alltotalf");
	addd(&b, t->alltotalf);
	addbool(&b, "allfloat", t->allfloat);
	mct_buf_adds(&b, "}\n");
	mct_write(b.p, b.len);
	mct_buf_free(&b);
}

/* Reading back. */

/* What mct_partial_read() merges into, and how a partial's x maps to it. */
struct gread {
	struct mct_gtab	*t;
	struct mct_pspec *ps;
	size_t		 limit;
	int		*xmap;		/* a partial's x index -> the table's */
	int		 nxmap;
};

/* A JSON integer, up to 128 bits.  0, or -1 if not one. */
static int
i128(const struct mct_val *v, mct_i128 *out)
{
	const char *p = v->p, *end = v->p + v->len;
	unsigned __int128 u = 0, lim = ~(unsigned __int128)0 >> 1;
	int neg = 0;

	if (v->type != MCT_J_NUMBER)
		return -1;
	if (p < end && *p == '-')
		neg = 1, p++;
	if (p == end)
		return -1;
	for (; p < end; p++) {
		if (*p < '0' || *p > '9' || u > (lim - (unsigned)(*p - '0')) / 10)
			return -1;
		u = u * 10 + (unsigned)(*p - '0');
	}
	*out = neg ? -(mct_i128)u : (mct_i128)u;
	return 0;
}

int
mct_pline_int(struct mct_pline *pr, const char *k, int64_t *out)
{
	struct mct_val v;

	return mct_get_key(&pr->ev, k, &v) == 0 && v.type == MCT_J_NUMBER &&
	    mct_int(v.p, v.len, out) == 0 ? 0 : -1;
}

static int
get128(struct mct_pline *pr, const char *k, mct_i128 *out)
{
	struct mct_val v;

	return mct_get_key(&pr->ev, k, &v) == 0 ? i128(&v, out) : -1;
}

/* A JSON number as a double (written by addd): 0, or -1. */
static int
dbl(const char *p, size_t n, double *out)
{
	char buf[64], *end;

	if (n == 0 || n >= sizeof(buf))
		return -1;
	memcpy(buf, p, n);
	buf[n] = '\0';
	*out = strtod(buf, &end);
	return *end == '\0' ? 0 : -1;
}

static int
getdbl(struct mct_pline *pr, const char *k, double *out)
{
	struct mct_val v;

	return mct_get_key(&pr->ev, k, &v) == 0 && v.type == MCT_J_NUMBER ?
	    dbl(v.p, v.len, out) : -1;
}

static int
getbool(struct mct_pline *pr, const char *k, int *out)
{
	struct mct_val v;

	if (mct_get_key(&pr->ev, k, &v) != 0 || v.type != MCT_J_BOOL)
		return -1;
	*out = *v.p == 't';
	return 0;
}

/*
 * The elements of a JSON array, one at a time: *p starts after the '['
 * (set it with arr_open).  1 and the element in *e, 0 at the end, -1 on
 * damage.
 */
static int
arr_open(const struct mct_val *v, const char **p)
{
	if (v->type != MCT_J_ARRAY)
		return -1;
	*p = v->p + 1;
	return 0;
}

static int
arr_next(const struct mct_val *v, const char **p, struct mct_val *e)
{
	const char *end = v->p + v->len - 1, *next;

	if (*p >= end)
		return 0;
	if (**p == ',')
		(*p)++;
	e->p = *p;
	e->type = (enum mct_jtype)mct_skip(*p, end, &next);
	if (next > end || next == *p)
		return -1;
	e->len = (size_t)(next - *p);
	*p = next;
	return 1;
}

static int
arr_int(const struct mct_val *v, const char **p, int64_t *out)
{
	struct mct_val e;

	return arr_next(v, p, &e) == 1 && e.type == MCT_J_NUMBER &&
	    mct_int(e.p, e.len, out) == 0 ? 0 : -1;
}

static int
arr_dbl(const struct mct_val *v, const char **p, double *out)
{
	struct mct_val e;

	return arr_next(v, p, &e) == 1 && e.type == MCT_J_NUMBER ?
	    dbl(e.p, e.len, out) : -1;
}

/* Does the header's array of strings k equal want[0..n)? */
static int
same_list(struct mct_pline *pr, const char *k, char **want, int n)
{
	struct mct_val v, e;
	struct mct_buf s = { 0 };
	const char *p;
	int i = 0, r, ok = 1;

	if (mct_get_key(&pr->ev, k, &v) != 0 || arr_open(&v, &p) != 0)
		return 0;
	while (ok && (r = arr_next(&v, &p, &e)) == 1) {
		s.len = 0;
		ok = i < n && e.type == MCT_J_STRING && mct_jstr(&e, &s) == 0 &&
		    strlen(want[i]) == s.len && memcmp(want[i], s.p, s.len) == 0;
		i++;
	}
	mct_buf_free(&s);
	return ok && r == 0 && i == n;
}

/* The strings of the header's array k, newly allocated; -1 if not one. */
static int
str_list(struct mct_pline *pr, const char *k, char ***out, int *n)
{
	struct mct_val v, e;
	struct mct_buf s = { 0 };
	const char *p;
	int r;

	*out = NULL;
	*n = 0;
	if (mct_get_key(&pr->ev, k, &v) != 0 || arr_open(&v, &p) != 0)
		return -1;
	while ((r = arr_next(&v, &p, &e)) == 1 && e.type == MCT_J_STRING) {
		s.len = 0;
		mct_jstr(&e, &s);
		mct_buf_addc(&s, '\0');
		*out = mct_xrealloc(*out, (size_t)(*n + 1) * sizeof(**out));
		(*out)[(*n)++] = mct_xstrdup(s.p);
	}
	mct_buf_free(&s);
	return r == 0 ? 0 : -1;
}

static void
free_list(char **v, int n)
{
	int i;

	for (i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

/*
 * The extra fields of a partial: the first header adds them to the
 * table's; every later one must have the table's, in any order.  xmap
 * gives the table's index of each.  0, or -1 (said) on a mismatch.
 */
static int
xfields(struct gread *g, struct mct_pline *pr, int first)
{
	struct mct_gtab *t = g->t;
	char **x;
	int nx, i, j;

	if (str_list(pr, "x", &x, &nx) != 0) {
		warnx("%s:%llu: the partial's header has no list x",
		    pr->name, pr->off);
		return -1;
	}
	free(g->xmap);
	g->xmap = mct_xmalloc((size_t)(nx + 1) * sizeof(*g->xmap));
	g->nxmap = nx;
	for (i = 0; i < nx; i++) {
		for (j = 0; j < t->nx; j++)
			if (strcmp(t->xf[j].text, x[i]) == 0)
				break;
		if (j == t->nx && first && t->n == 0) {
			t->xf = mct_xrealloc(t->xf, (size_t)(t->nx + 1) *
			    sizeof(*t->xf));
			if (mct_field_parse(x[i], &t->xf[t->nx]) != 0)
				break;
			t->nx++;
		}
		if (j == t->nx)
			break;
		g->xmap[i] = j;
	}
	free_list(x, nx);
	if (i < nx || nx != t->nx) {
		warnx("%s:%llu: the partial's fields of sum:, min:, max:, mean: "
		    "differ from the first partial's", pr->name, pr->off);
		return -1;
	}
	return 0;
}

/* The traces a partial covers, after those of the partials before it. */
static void
sources(struct mct_pspec *ps, struct mct_pline *pr)
{
	char **v;
	int n, i;

	if (str_list(pr, "sources", &v, &n) != 0)
		return;
	ps->src = mct_xrealloc(ps->src, (size_t)(ps->nsrc + n + 1) *
	    sizeof(*ps->src));
	for (i = 0; i < n; i++)
		ps->src[ps->nsrc++] = v[i];
	free(v);
}

/*
 * What a partial's header says of the traces it covers, whatever its
 * kind: the unit (the first partial's), the origin (the smallest), the
 * sources (all, in order).  Counts the header in ps->nhdr.
 */
void
mct_partial_cover(struct mct_pspec *ps, struct mct_pline *pr)
{
	struct mct_val v;
	int64_t origin;

	if (mct_get_key(&pr->ev, "unit", &v) == 0 && v.type == MCT_J_STRING &&
	    ps->nhdr == 0) {
		char u[8] = { 0 };

		if (v.len - 2 < sizeof(u))
			memcpy(u, v.p + 1, v.len - 2);
		if (mct_parse_unit(u, &ps->unit) != 0)
			ps->unit = MCT_UNIT_NS;
	}
	sources(ps, pr);
	if (mct_pline_int(pr, "origin", &origin) == 0 &&
	    (!ps->has_origin || origin < ps->origin)) {
		ps->origin = origin;
		ps->has_origin = 1;
	}
	ps->nhdr++;
}

/* A header line: check it against spec (or set spec from it). */
static int
read_header(struct mct_pline *pr, void *arg)
{
	struct gread *g = arg;
	struct mct_pspec *ps = g->ps;
	struct mct_val v;
	struct mct_buf s = { 0 };
	int missing, meta;

	if (mct_get_key(&pr->ev, "value", &v) != 0 || v.type != MCT_J_STRING ||
	    getbool(pr, "missing", &missing) != 0 ||
	    getbool(pr, "meta", &meta) != 0) {
		warnx("%s:%llu: damaged partial header", pr->name, pr->off);
		return -1;
	}
	mct_jstr(&v, &s);
	mct_buf_addc(&s, '\0');
	if (!ps->set) {
		if (str_list(pr, "by", &ps->by, &ps->nby) != 0) {
			warnx("%s:%llu: damaged partial header", pr->name,
			    pr->off);
			mct_buf_free(&s);
			return -1;
		}
		ps->value = mct_xstrdup(s.p);
		ps->set = 1;
	}
	if (!same_list(pr, "by", ps->by, ps->nby) ||
	    strcmp(s.p, ps->value) != 0 || (ps->nhdr > 0 &&
	    (missing != ps->missing || meta != ps->meta))) {
		warnx("%s:%llu: a partial of another grouping (--by, --value, "
		    "--missing or --meta differ)", pr->name, pr->off);
		mct_buf_free(&s);
		return -1;
	}
	mct_buf_free(&s);
	ps->missing = missing;
	ps->meta = meta;
	if (xfields(g, pr, ps->nhdr == 0) != 0)
		return -1;
	mct_partial_cover(ps, pr);
	return 0;
}

/* A sketch's buckets, {"zero":Z,"pos":[i,c,..],"neg":[i,c,..]}, into sk. */
static int
read_sketch(const struct mct_val *obj, struct mct_sketch *sk)
{
	struct mct_event sev;
	struct mct_val v, e;
	const char *p;
	int64_t idx, c;
	int side, bad = 0;

	mct_event_init(&sev, obj->p, obj->len, NULL);
	if (mct_get_key(&sev, "zero", &e) != 0 || e.type != MCT_J_NUMBER ||
	    mct_int(e.p, e.len, &sk->zero) != 0)
		bad = 1;
	for (side = 0; side < 2 && !bad; side++) {
		if (mct_get_key(&sev, side ? "neg" : "pos", &v) != 0 ||
		    arr_open(&v, &p) != 0) {
			bad = 1;
			break;
		}
		while (!bad && p < v.p + v.len - 1) {
			if (arr_int(&v, &p, &idx) != 0 ||
			    arr_int(&v, &p, &c) != 0 || idx < 0 ||
			    idx >= (INT64_C(1) << MCT_SKETCH_BITS) || c < 0)
				bad = 1;
			else
				mct_sketch_put(sk, side, (int32_t)idx, c);
		}
	}
	mct_event_free(&sev);
	return bad ? -1 : 0;
}

/* The summary and values (or sketch) of a group's line into s. */
static int
read_stats(struct mct_pline *pr, struct mct_stats *s)
{
	struct mct_val v, sk, e;
	int64_t n, i, c;
	int isfloat;
	const char *p;
	double d;

	if (mct_pline_int(pr, "n", &n) != 0 || n < 0 ||
	    getbool(pr, "float", &isfloat) != 0)
		return -1;
	if (n == 0)
		return 0;
	if (mct_get_key(&pr->ev, "values", &v) == 0) {
		if (arr_open(&v, &p) != 0)
			return -1;
		for (i = 0; i < n; i++) {
			if (isfloat ? arr_dbl(&v, &p, &d) : arr_int(&v, &p, &c))
				return -1;
			if (isfloat)
				mct_stats_addf(s, d);
			else
				mct_stats_add(s, c);
		}
		return arr_next(&v, &p, &e) == 0 ? 0 : -1;
	}
	/* a sketch: the summary as written, then the buckets */
	mct_stats_sketch(s);
	s->isfloat = isfloat;
	s->n = (size_t)n;
	if (get128(pr, "sum", &s->isum) != 0 ||
	    mct_pline_int(pr, "min", &s->imin) != 0 ||
	    mct_pline_int(pr, "max", &s->imax) != 0 ||
	    getdbl(pr, "fsum", &s->fsum) != 0 ||
	    getdbl(pr, "fsumsq", &s->fsumsq) != 0 ||
	    getdbl(pr, "fmin", &s->fmin) != 0 ||
	    getdbl(pr, "fmax", &s->fmax) != 0 ||
	    mct_get_key(&pr->ev, "sketch", &sk) != 0 || sk.type != MCT_J_OBJECT)
		return -1;
	s->sqover = get128(pr, "sumsq", &s->isumsq) != 0;
	return read_sketch(&sk, s->sk);
}

/* A group's extra fields (sum:F and kin). */
static int
read_runs(struct gread *g, struct mct_pline *pr, struct mct_run *x)
{
	struct mct_val v, e;
	const char *p, *q;
	int i = 0, r;

	if (mct_get_key(&pr->ev, "x", &v) != 0 || arr_open(&v, &p) != 0)
		return -1;
	while ((r = arr_next(&v, &p, &e)) == 1) {
		struct mct_run *a;
		struct mct_val fl, sum;
		int64_t n;

		if (i >= g->nxmap || arr_open(&e, &q) != 0)
			return -1;
		a = &x[g->xmap[i++]];
		if (arr_int(&e, &q, &n) != 0 || arr_next(&e, &q, &fl) != 1 ||
		    fl.type != MCT_J_BOOL || arr_next(&e, &q, &sum) != 1 ||
		    i128(&sum, &a->isum) != 0 || arr_dbl(&e, &q, &a->dsum) ||
		    arr_dbl(&e, &q, &a->min) || arr_dbl(&e, &q, &a->max))
			return -1;
		a->n = n;
		a->isfloat = *fl.p == 't';
	}
	return r == 0 && i == g->nxmap ? 0 : -1;
}

/* A group's line: merged into its group of t.  0, or -1 if damaged. */
static int
read_group(struct mct_pline *pr, void *arg)
{
	struct gread *gr = arg;
	struct mct_gtab *t = gr->t;
	struct mct_group g = { 0 }, *into;
	struct mct_val v;
	struct mct_buf key = { 0 };
	int64_t count;
	int r = -1;

	g.x = t->nx ? mct_xmalloc((size_t)t->nx * sizeof(*g.x)) : NULL;
	if (t->nx)
		memset(g.x, 0, (size_t)t->nx * sizeof(*g.x));
	if (mct_get_key(&pr->ev, "key", &v) != 0 || v.type != MCT_J_STRING ||
	    mct_pline_int(pr, "count", &count) != 0 || count < 0 ||
	    read_stats(pr, &g.val) != 0 || read_runs(gr, pr, g.x) != 0)
		goto out;
	g.count = count;
	g.span = mct_pline_int(pr, "first", &g.first) == 0 &&
	    mct_pline_int(pr, "last", &g.last) == 0;
	mct_jstr(&v, &key);
	into = mct_gtab_group(t, key.p ? key.p : "", key.len);
	mct_group_merge(t, into, &g);
	if (into->val.n > gr->limit)
		mct_stats_sketch(&into->val);
	r = 0;
out:
	mct_stats_free(&g.val);
	free(g.x);
	mct_buf_free(&key);
	return r;
}

static int
read_end(struct mct_pline *pr, void *arg)
{
	struct mct_gtab *t = ((struct gread *)arg)->t;
	mct_i128 total;
	double totalf;
	int allfloat;

	if (get128(pr, "alltotal", &total) != 0 ||
	    getdbl(pr, "alltotalf", &totalf) != 0 ||
	    getbool(pr, "allfloat", &allfloat) != 0) {
		warnx("%s:%llu: damaged partial end line", pr->name, pr->off);
		return MCT_EXIT_DAMAGED;
	}
	t->alltotal += total;
	t->alltotalf += totalf;
	t->allfloat |= allfloat;
	return MCT_EXIT_OK;
}

/* Is text[0..n) one complete JSON object (and nothing after it)? */
static int
whole(const char *p, size_t n)
{
	struct mct_scan sc = { 0 };

	sc.p = p;
	sc.end = p + n;
	if (n == 0 || *p != '{' || mct_scan(&sc) != MCT_SCAN_OK)
		return 0;
	while (sc.p < sc.end && (*sc.p == ' ' || *sc.p == '\r' || *sc.p == '\t'))
		sc.p++;
	return sc.p == sc.end;
}

/* The kinds of partial, by their header's key: to say which one it is. */
static const struct {
	const char	*key, *what;
} kinds[] = {
	{ "mct_partial",	"mct-group -o partial" },
	{ "mct_ranks_partial",	"mct-ranks -o partial" },
};

/* Is the line a header of kind k, of its version?  0, or -1 (said). */
static int
kind_header(struct mct_pline *pr, const struct mct_partkind *k)
{
	struct mct_val v;
	int64_t ver;
	size_t i;

	if (mct_pline_int(pr, k->key, &ver) != 0) {
		for (i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
			if (mct_get_key(&pr->ev, kinds[i].key, &v) == 0) {
				warnx("%s:%llu: a partial of %s, not of %s",
				    pr->name, pr->off, kinds[i].what, k->what);
				return -1;
			}
		warnx("%s:%llu: not a partial of %s (no header line)",
		    pr->name, pr->off, k->what);
		return -1;
	}
	if (ver != k->version) {
		warnx("%s:%llu: a partial of format version %lld; this "
		    "%s reads version %d", pr->name, pr->off, (long long)ver,
		    k->tool, k->version);
		return -1;
	}
	return 0;
}

/*
 * The end line of a partial of n lines (read or damaged): its own
 * figures (k->end), then its count of lines.  A status.
 */
static int
kind_end(struct mct_pline *pr, const struct mct_partkind *k, void *arg,
    long long n)
{
	int64_t said;
	int status;

	mct_pline_int(pr, k->endkey, &said);
	if ((status = k->end ? k->end(pr, arg) : MCT_EXIT_OK) != MCT_EXIT_OK)
		return status;
	if (said != n) {
		warnx("%s:%llu: the partial has %lld %ss, its end line says "
		    "%lld", pr->name, pr->off, n, k->item, (long long)said);
		return MCT_EXIT_DAMAGED;
	}
	return MCT_EXIT_OK;
}

/*
 * Read the partials of kind k in one file (path; "-" is standard input),
 * one after another: each a header line, its lines, an end line that
 * counts them.  Returns MCT_EXIT_OK; MCT_EXIT_DAMAGED for a damaged or
 * truncated partial, whose intact lines are read; MCT_EXIT_USAGE for a
 * file that cannot be read, a header of another kind or version or that
 * k->header refuses, or a line k->line refuses (-2: said; the reading
 * stops).  Each problem is said as FILE:OFFSET: what.
 */
int
mct_partial_lines(const char *path, const struct mct_partkind *k, void *arg)
{
	struct mct_pline pr = { 0 };
	struct mct_src *src;
	struct mct_lines *li;
	const char *p, *e;
	size_t n, want, at;
	long long off, nlines = 0, nbad = 0;	/* lines read, damaged */
	int status = MCT_EXIT_OK, r, kind, cut = 0;
	int state = 0;		/* 0: want a header, 1: lines, 2: ended */

	pr.name = strcmp(path, "-") == 0 ? "(stdin)" : path;
	src = mct_src_open(path);
	if (mct_src_failed(src)) {
		e = mct_src_error(src, &off);
		warnx("%s: %s", mct_src_name(src), e ? e : "cannot be read");
		mct_src_close(src);
		return MCT_EXIT_USAGE;
	}
	li = mct_lines_open(src);
	/* a trace given by mistake is read no further than its beginning */
	for (want = MCT_KIND_BYTES;; want *= 2) {
		p = mct_lines_peek(li, want, &n);
		if ((kind = mct_src_kind(p, n, n < want)) != MCT_KIND_MORE)
			break;
	}
	if (kind != MCT_KIND_PARTIAL && kind != MCT_KIND_RANKS_PARTIAL &&
	    kind != MCT_KIND_EMPTY) {
		for (at = 0; at < n && strchr(" \t\r\n", p[at]) != NULL; at++)
			;
		warnx("%s:%zu: not a partial of %s (no header line)", pr.name,
		    at, k->what);
		status = MCT_EXIT_USAGE;
	}
	mct_event_init(&pr.ev, "{}", 2, NULL);
	while (status != MCT_EXIT_USAGE &&
	    (r = mct_lines_next(li, &p, &n, &pr.off)) > 0) {
		if (n == 0)
			continue;
		if (!whole(p, n)) {
			cut = r == MCT_LINE_CUT;
			if (state == 0 && !cut)		/* a trace, say */
				warnx("%s:%llu: not a partial of %s (no header "
				    "line)", pr.name, pr.off, k->what);
			else
				warnx("%s:%llu: %s", pr.name, pr.off, cut ?
				    "truncated partial: its last line is cut" :
				    "damaged partial line");
			status = mct_status(status, MCT_EXIT_DAMAGED);
			if (state == 0)
				status = MCT_EXIT_USAGE;
			nbad++;
			continue;
		}
		mct_event_set(&pr.ev, p, n);
		if (state != 1) {
			if (kind_header(&pr, k) != 0 || k->header(&pr, arg) != 0)
				status = MCT_EXIT_USAGE;
			state = 1;
			nlines = nbad = 0;
		} else if (mct_pline_int(&pr, k->endkey, &(int64_t){ 0 }) == 0) {
			status = mct_status(status,
			    kind_end(&pr, k, arg, nlines + nbad));
			state = 2;
		} else if ((r = k->line(&pr, arg)) == -2)
			status = MCT_EXIT_USAGE;
		else if (r != 0) {
			warnx("%s:%llu: damaged partial %s", pr.name, pr.off,
			    k->item);
			status = mct_status(status, MCT_EXIT_DAMAGED);
			nbad++;
		} else
			nlines++;
	}
	if ((e = mct_src_error(src, &off)) != NULL) {
		warnx("%s:%lld: %s", mct_src_name(src), off, e);
		status = mct_status(status, MCT_EXIT_DAMAGED);
	}
	if (state == 0 && status == MCT_EXIT_OK) {
		warnx("%s: empty: not a partial of %s", pr.name, k->what);
		status = MCT_EXIT_USAGE;
	} else if (state == 1 && !cut && status != MCT_EXIT_USAGE) {
		warnx("%s:%llu: truncated partial: no end line after %lld "
		    "%ss", pr.name, (unsigned long long)mct_src_pos(src),
		    nlines, k->item);
		status = mct_status(status, MCT_EXIT_DAMAGED);
	}
	mct_event_free(&pr.ev);
	mct_lines_free(li);
	mct_src_close(src);
	return status;
}

/*
 * Merge the partials of one file (path; "-" is standard input) into t.
 * Returns MCT_EXIT_OK; MCT_EXIT_DAMAGED for a damaged or truncated
 * partial, whose intact groups are merged; MCT_EXIT_USAGE for a file that
 * cannot be read or a partial that does not match spec (the table is then
 * unfit to print).
 */
int
mct_partial_read(struct mct_gtab *t, struct mct_pspec *ps, const char *path,
    size_t limit)
{
	static const struct mct_partkind group = {
		.key = "mct_partial", .version = MCT_PARTIAL_VERSION,
		.tool = "mct-group", .what = "mct-group -o partial",
		.endkey = "mct_partial_end", .item = "group",
		.header = read_header, .line = read_group, .end = read_end
	};
	struct gread gr = { .t = t, .ps = ps, .limit = limit };
	int status;

	status = mct_partial_lines(path, &group, &gr);
	free(gr.xmap);
	return status;
}

/*
 * The header of a merge's output: unit and origin from the partials,
 * the traces they cover as its sources.
 */
void
mct_partial_header(const struct mct_pspec *ps, struct mct_header *h)
{
	memset(h, 0, sizeof(*h));
	h->facts.unit = ps->unit ? ps->unit : MCT_UNIT_NS;
	h->facts.why = "the partials";
	h->facts.has_origin = ps->has_origin;
	h->facts.origin = ps->origin;
	h->nread = ps->nhdr > 0;
	mct_out_header(h, (const char *const *)ps->src, ps->nsrc);
}

void
mct_pspec_free(struct mct_pspec *ps)
{
	free_list(ps->by, ps->nby);
	free_list(ps->src, ps->nsrc);
	free(ps->value);
	memset(ps, 0, sizeof(*ps));
}
