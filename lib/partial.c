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
 *   {"mct_partial_end":G,"alltotal":S,"alltotalf":D,"allfloat":false,
 *    "parts":[{"host":H,"digest":D,"sources":[..]},..]}
 *
 * A group's key is the table's key (JSON texts joined by \037) as one
 * JSON string, so it comes back byte for byte.  Integers are exact (sums
 * and sums of squares in 128 bits, as decimal numbers); doubles are
 * written in the shortest text that reads back to the same bits.  The
 * end line makes a partial cut at a line boundary known as truncated.
 *
 * A partial comes from another host: each group line is checked against
 * the header (a key part per --by field, each one JSON value; figures
 * that hold together; counts that merge below 2^63) and skipped, said, if
 * it is not.  The parts of the end line are what the partial summarises
 * (mct_partial_ident()): a partial or a source met twice is refused.
 *
 * The reading of lines, headers and end lines (partline.c's
 * mct_pline_read()), the traces a header covers (mct_partial_cover())
 * and the identities serve every kind of partial: mct-ranks' (rankpart.c)
 * too.  A file is read as any input is: a byte source of input.c, told a
 * partial by mct_src_kind(), its lines from mct_lines_next().
 */
#include "config.h"

#include <err.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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

static void
addid(struct mct_buf *b, const char *host, const char *digest,
    char *const *src, int nsrc)
{
	mct_buf_adds(b, "{\"host\":");
	mct_buf_addjstr(b, host, strlen(host));
	mct_buf_adds(b, ",\"digest\":\"");
	mct_buf_adds(b, digest);
	mct_buf_adds(b, "\",\"sources\":");
	addstrs(b, src, nsrc);
	mct_buf_addc(b, '}');
}

/*
 * The end of any partial's end line: what it summarises.  A partial of
 * partials has theirs; one made of traces has one identity: its host,
 * the digest d of what it wrote before its end line, its sources.
 */
void
mct_partial_ident_write(struct mct_buf *b, const struct mct_pspec *ps,
    uint64_t d)
{
	char host[256] = "", hex[17];
	int i;

	addkey(b, "parts");
	mct_buf_addc(b, '[');
	for (i = 0; i < ps->nid; i++) {
		if (i)
			mct_buf_addc(b, ',');
		addid(b, ps->id[i].host, ps->id[i].digest, ps->id[i].src,
		    ps->id[i].nsrc);
	}
	if (ps->nid == 0) {
		if (gethostname(host, sizeof(host) - 1) != 0)
			host[0] = '\0';
		d = mct_pline_digest(d, host, strlen(host));
		snprintf(hex, sizeof(hex), "%016llx", (unsigned long long)d);
		addid(b, host, hex, ps->src, ps->nsrc);
	}
	mct_buf_addc(b, ']');
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
	int32_t i, idx;
	int64_t c;
	int side, first;

	addkey(b, "sketch");
	mct_buf_adds(b, "{\"zero\":");
	mct_buf_addi(b, sk->zero);
	for (side = 0; side < 2; side++) {
		k = side ? &sk->neg : &sk->pos;
		addkey(b, side ? "neg" : "pos");
		mct_buf_addc(b, '[');
		for (first = 1, i = 0; i < k->n; i++) {
			if (!mct_sketch_at(k, i, &idx, &c))
				continue;
			if (!first)
				mct_buf_addc(b, ',');
			first = 0;
			mct_buf_addi(b, idx);
			mct_buf_addc(b, ',');
			mct_buf_addi(b, c);
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
	uint64_t d;
	size_t i;

	header(&b, t, ps, limit);
	d = mct_pline_digest(0, b.p, b.len);
	mct_write(b.p, b.len);
	b.len = 0;
	for (i = 0; i < t->n; i++) {
		if (t->g[i].val.n > limit)
			mct_stats_sketch(&t->g[i].val);
		group(&b, t, &t->g[i]);
		d = mct_pline_digest(d, b.p, b.len);
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
	mct_partial_ident_write(&b, ps, d);
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
	unsigned char	*seen;		/* the table's groups this partial has */
	size_t		 nseen;
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
	return *end == '\0' && isfinite(*out) ? 0 : -1;
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

static void
free_list(char **v, int n)
{
	int i;

	for (i = 0; i < n; i++)
		free(v[i]);
	free(v);
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
	if (r != 0) {
		free_list(*out, *n);
		*out = NULL;
		*n = 0;
		return -1;
	}
	return 0;
}

/* Does each of the n texts parse as a field (a header's --by)? */
static int
fields_ok(char *const *v, int n)
{
	struct mct_field f;
	int i;

	for (i = 0; i < n; i++) {
		if (mct_field_parse(v[i], &f) != 0)
			return 0;
		mct_field_free(&f);
	}
	return 1;
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
		    pr->name, pr->line);
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
		    "differ from the first partial's", pr->name, pr->line);
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
 * sources (all, in order).  Counts the header in ps->nhdr.  0 (an
 * origin is any int64, as a trace's is).
 */
int
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
	return 0;
}

/* The part of a partial's identity that a repeat shares with q, or NULL. */
static const char *
repeat_of(const struct mct_pid *p, const struct mct_pid *q, int *same)
{
	int i, j;

	*same = strcmp(p->digest, q->digest) == 0;
	if (*same)
		return p->digest;
	if (p->host[0] == '\0' || strcmp(p->host, q->host) != 0)
		return NULL;
	for (i = 0; i < p->nsrc; i++)
		for (j = 0; j < q->nsrc; j++)
			if (strcmp(p->src[i], "-") != 0 &&
			    strcmp(p->src[i], q->src[j]) == 0)
				return p->src[i];
	return NULL;
}

/*
 * A partial's identity p, newly read from pr's file: refused (said,
 * MCT_EXIT_USAGE) if it repeats one read before, a partial or a source
 * of its host, unless ps->repeat_ok (then said).  Kept in ps.
 */
static int
ident_add(struct mct_pspec *ps, struct mct_pline *pr, struct mct_pid *p)
{
	struct mct_buf m = { 0 };
	const char *what;
	int i, same, status = MCT_EXIT_OK;

	for (i = 0; i < ps->nid; i++)
		if ((what = repeat_of(p, &ps->id[i], &same)) != NULL)
			break;
	if (i < ps->nid) {
		if (same)
			mct_buf_adds(&m, "the same partial as one in ");
		else {
			mct_buf_adds(&m, "source ");
			mct_pline_msgstr(&m, p->host, strlen(p->host));
			mct_buf_addc(&m, ':');
			mct_pline_msgstr(&m, what, strlen(what));
			mct_buf_adds(&m, " is also in ");
		}
		mct_buf_adds(&m, ps->id[i].file);
		if (ps->repeat_ok)
			warnx("%s:%llu: %s: merged again (--allow-repeat)",
			    pr->name, pr->line, m.p);
		else {
			warnx("%s:%llu: %s: its figures would count twice%s",
			    pr->name, pr->line, m.p, ps->repeat_opt ?
			    " (--allow-repeat merges it)" : "");
			status = MCT_EXIT_USAGE;
		}
		mct_buf_free(&m);
	}
	p->file = mct_xstrdup(pr->name);
	ps->id = mct_xrealloc(ps->id, (size_t)(ps->nid + 1) * sizeof(*ps->id));
	ps->id[ps->nid++] = *p;
	return status;
}

/* Is s 16 lowercase hex digits? */
static int
hex16(const char *s)
{
	int i;

	for (i = 0; i < 16; i++)
		if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
			return 0;
	return s[16] == '\0';
}

/* One identity of an end line's parts: 0, or -1 if damaged. */
static int
ident_read(struct mct_pline *pr, const struct mct_val *obj, struct mct_pid *p)
{
	struct mct_pline sub = { .name = pr->name, .line = pr->line };
	struct mct_val v;
	struct mct_buf s = { 0 };
	int r = -1;

	memset(p, 0, sizeof(*p));
	if (obj->type != MCT_J_OBJECT)
		return -1;
	mct_event_init(&sub.ev, obj->p, obj->len, NULL);
	if (mct_get_key(&sub.ev, "host", &v) == 0 && v.type == MCT_J_STRING &&
	    mct_jstr(&v, &s) == 0 && memchr(s.p ? s.p : "", '\0', s.len) == NULL) {
		mct_buf_addc(&s, '\0');
		p->host = mct_xstrdup(s.p);
		s.len = 0;
		if (mct_get_key(&sub.ev, "digest", &v) == 0 &&
		    v.type == MCT_J_STRING && mct_jstr(&v, &s) == 0) {
			mct_buf_addc(&s, '\0');
			if (hex16(s.p) &&
			    str_list(&sub, "sources", &p->src, &p->nsrc) == 0) {
				p->digest = mct_xstrdup(s.p);
				r = 0;
			}
		}
	}
	mct_event_free(&sub.ev);
	mct_buf_free(&s);
	return r;
}

static void
pid_free(struct mct_pid *p)
{
	free(p->host);
	free(p->digest);
	free(p->file);
	free_list(p->src, p->nsrc);
}

/*
 * What the partial whose end line pr is summarises: its end line's
 * parts, checked against those read before (ident_add).  A partial of
 * an mct before identities is known by the digest of its lines as read,
 * and said to be one.  A status.
 */
int
mct_partial_ident(struct mct_pspec *ps, struct mct_pline *pr)
{
	struct mct_val v, e;
	struct mct_pid p;
	const char *q;
	char hex[17];
	int r, status = MCT_EXIT_OK;

	if (mct_get_key(&pr->ev, "parts", &v) != 0) {
		warnx("%s:%llu: a partial of an older mct, without its "
		    "identity: a repeat of its sources cannot be told",
		    pr->name, pr->line);
		memset(&p, 0, sizeof(p));
		snprintf(hex, sizeof(hex), "%016llx",
		    (unsigned long long)pr->digest);
		p.host = mct_xstrdup("");
		p.digest = mct_xstrdup(hex);
		return ident_add(ps, pr, &p);
	}
	if (arr_open(&v, &q) != 0) {
		warnx("%s:%llu: damaged partial end line: parts", pr->name,
		    pr->line);
		return MCT_EXIT_DAMAGED;
	}
	while ((r = arr_next(&v, &q, &e)) == 1) {
		if (ident_read(pr, &e, &p) != 0) {
			pid_free(&p);
			break;
		}
		status = mct_status(status, ident_add(ps, pr, &p));
	}
	if (r != 0) {
		warnx("%s:%llu: damaged partial end line: parts", pr->name,
		    pr->line);
		status = mct_status(status, MCT_EXIT_DAMAGED);
	}
	return status;
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
		warnx("%s:%llu: damaged partial header", pr->name, pr->line);
		return -1;
	}
	mct_jstr(&v, &s);
	mct_buf_addc(&s, '\0');
	if (!ps->set) {
		if (str_list(pr, "by", &ps->by, &ps->nby) != 0 ||
		    !fields_ok(ps->by, ps->nby)) {
			warnx("%s:%llu: damaged partial header", pr->name,
			    pr->line);
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
		    "--missing or --meta differ)", pr->name, pr->line);
		mct_buf_free(&s);
		return -1;
	}
	mct_buf_free(&s);
	ps->missing = missing;
	ps->meta = meta;
	if (xfields(g, pr, ps->nhdr == 0) != 0)
		return -1;
	if (g->nseen)
		memset(g->seen, 0, g->nseen);
	return mct_partial_cover(ps, pr);
}

/* A sketch's buckets, {"zero":Z,"pos":[i,c,..],"neg":[i,c,..]}, into sk. */
static int
read_sketch(const struct mct_val *obj, struct mct_sketch *sk, int64_t *sum)
{
	struct mct_event sev;
	struct mct_val v, e;
	const char *p;
	int64_t idx, c;
	int side, bad = 0;

	mct_event_init(&sev, obj->p, obj->len, NULL);
	if (mct_get_key(&sev, "zero", &e) != 0 || e.type != MCT_J_NUMBER ||
	    mct_int(e.p, e.len, &sk->zero) != 0 || sk->zero < 0)
		bad = 1;
	*sum = sk->zero;
	for (side = 0; side < 2 && !bad; side++) {
		if (mct_get_key(&sev, side ? "neg" : "pos", &v) != 0 ||
		    arr_open(&v, &p) != 0) {
			bad = 1;
			break;
		}
		while (!bad && p < v.p + v.len - 1) {
			/* a bucket of finite values, counted */
			if (arr_int(&v, &p, &idx) != 0 ||
			    arr_int(&v, &p, &c) != 0 || idx < 0 ||
			    idx >= (INT64_C(0x7ff) << (MCT_SKETCH_BITS - 11)) ||
			    c < 0 || __builtin_add_overflow(*sum, c, sum))
				bad = 1;
			else
				mct_sketch_put(sk, side, (int32_t)idx, c);
		}
	}
	mct_event_free(&sev);
	return bad ? -1 : 0;
}

/* Is the 128-bit sum of n int64 values between n * lo and n * hi? */
static int
sum_in(mct_i128 sum, int64_t n, int64_t lo, int64_t hi)
{
	return sum >= (mct_i128)n * lo && sum <= (mct_i128)n * hi;
}

/* The summary and values (or sketch) of a group's line into s. */
static int
read_stats(struct mct_pline *pr, struct mct_stats *s)
{
	struct mct_val v, sk, e;
	int64_t n, i, c, nsk;
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
		if (arr_next(&v, &p, &e) != 0) {
			mct_pline_why(pr, "n is %lld, values has more",
			    (long long)n);
			return -1;
		}
		return 0;
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
	if (read_sketch(&sk, s->sk, &nsk) != 0)
		return -1;
	if (nsk != n) {
		mct_pline_why(pr, "n is %lld, the sketch's buckets count %lld",
		    (long long)n, (long long)nsk);
		return -1;
	}
	if ((!isfloat && s->imin > s->imax) || s->fmin > s->fmax) {
		mct_pline_why(pr, "min is above max");
		return -1;
	}
	if (isfloat ? !sum_in(s->isum, n, INT64_MIN, INT64_MAX) :
	    !sum_in(s->isum, n, s->imin, s->imax) ||
	    (!s->sqover && s->isumsq < 0)) {
		mct_pline_why(pr, "sum is not within n times min and max");
		return -1;
	}
	return 0;
}

/* Is d an integer an int64 holds? */
static int
int64ish(double d)
{
	return d >= -9223372036854775808.0 && d < 9223372036854775808.0 &&
	    d == (double)(int64_t)d;
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
		if (n < 0 || (n > 0 && a->min > a->max) ||
		    !sum_in(a->isum, n, INT64_MIN, INT64_MAX) ||
		    (!a->isfloat && (!int64ish(a->min) || !int64ish(a->max)))) {
			mct_pline_why(pr, "the figures of x[%d] do not hold "
			    "together", i - 1);
			return -1;
		}
	}
	return r == 0 && i == g->nxmap ? 0 : -1;
}

/*
 * Is p[0..n) one JSON value, strictly (nothing repaired)?  Scanned in
 * brackets, where a number ends, and one value long: "a","b" is two.
 */
static int
json_value(const char *p, size_t n, struct mct_buf *tmp)
{
	struct mct_scan sc = { 0 };
	const char *next;

	tmp->len = 0;
	mct_buf_addc(tmp, '[');
	mct_buf_add(tmp, p, n);
	mct_buf_addc(tmp, ']');
	sc.p = tmp->p;
	sc.end = tmp->p + tmp->len;
	if (mct_scan(&sc) != MCT_SCAN_OK || sc.fixes != 0 || sc.p != sc.end)
		return 0;
	(void)mct_skip(p, p + n, &next);
	return next == p + n;
}

/*
 * Is a group's key one of the header's: a part for each --by field, each
 * one JSON value (empty, a missing field, only with --missing)?
 */
static int
key_ok(struct mct_pline *pr, const struct mct_pspec *ps, const char *k,
    size_t n)
{
	struct mct_buf tmp = { 0 };
	const char *end = k + n, *q;
	int i = 0, ok = 1;

	for (;; k = q + 1) {
		q = memchr(k, '\037', (size_t)(end - k));
		if (q == NULL)
			q = end;
		if (ok && i < ps->nby && (q == k ? !ps->missing :
		    !json_value(k, (size_t)(q - k), &tmp))) {
			mct_pline_why(pr, "part %d of the key is not a JSON "
			    "value", i + 1);
			ok = 0;
		}
		i++;
		if (q == end)
			break;
	}
	mct_buf_free(&tmp);
	if (ok && i != ps->nby) {
		mct_pline_why(pr, "the key has %d part%s, --by %d field%s", i,
		    i == 1 ? "" : "s", ps->nby, ps->nby == 1 ? "" : "s");
		ok = 0;
	}
	return ok;
}

/* Can g be merged into into without a count past 2^63? */
static int
merge_fits(const struct mct_gtab *t, const struct mct_group *into,
    const struct mct_group *g)
{
	long long c;
	int64_t n;
	int i;

	if (__builtin_add_overflow(into->count, g->count, &c) ||
	    __builtin_add_overflow((int64_t)into->val.n, (int64_t)g->val.n, &n))
		return 0;
	for (i = 0; i < t->nx; i++)
		if (__builtin_add_overflow(into->x[i].n, g->x[i].n, &c))
			return 0;
	return 1;
}

/*
 * Its figures together: count the events, n of them with a value; a span
 * as mct_gtab_add() makes one.  first is the smallest ts, a sane time;
 * last the largest ts + dur of sane ts and dur: up to 2^63 - 2 (an end
 * past 2^62 is kept, mct(7)), and as early as 2^62 - 1 before first (a
 * negative dur is kept as written), so it may come before first.
 */
static int
group_ok(struct mct_pline *pr, const struct mct_gtab *t,
    const struct mct_group *g, int hasfirst, int haslast)
{
	int i;

	if ((int64_t)g->val.n > g->count) {
		mct_pline_why(pr, "n is %lld, count %lld: more values than "
		    "events", (long long)g->val.n, g->count);
		return 0;
	}
	for (i = 0; i < t->nx; i++)
		if (g->x[i].n > g->count) {
			mct_pline_why(pr, "x[%d] has more values than events",
			    i);
			return 0;
		}
	if (hasfirst != haslast || (g->span &&
	    (!MCT_SANE_NS(g->first) || g->last == INT64_MAX ||
	    g->last <= g->first - (INT64_C(1) << 62)))) {
		mct_pline_why(pr, "first and last are not a span of time");
		return 0;
	}
	return 1;
}

/*
 * A group's line: merged into its group of t.  0, or -1 if damaged (its
 * figures do not hold together, it is the partial's second of its key,
 * or its counts would overflow).
 */
static int
read_group(struct mct_pline *pr, void *arg)
{
	struct gread *gr = arg;
	struct mct_gtab *t = gr->t;
	struct mct_group g = { 0 }, *into;
	struct mct_val v;
	struct mct_buf key = { 0 }, one = { 0 };
	int64_t count;
	size_t at;
	int r = -1, hasfirst, haslast, respelt;

	g.x = t->nx ? mct_xmalloc((size_t)t->nx * sizeof(*g.x)) : NULL;
	if (t->nx)
		memset(g.x, 0, (size_t)t->nx * sizeof(*g.x));
	if (mct_get_key(&pr->ev, "key", &v) != 0 || v.type != MCT_J_STRING ||
	    mct_pline_int(pr, "count", &count) != 0 || count < 0 ||
	    read_stats(pr, &g.val) != 0 || read_runs(gr, pr, g.x) != 0)
		goto out;
	g.count = count;
	hasfirst = mct_pline_int(pr, "first", &g.first) == 0;
	haslast = mct_pline_int(pr, "last", &g.last) == 0;
	g.span = hasfirst && haslast;
	if (!group_ok(pr, t, &g, hasfirst, haslast) ||
	    mct_jstr(&v, &key) != 0 ||
	    !key_ok(pr, gr->ps, key.p ? key.p : "", key.len))
		goto out;
	/*
	 * The key in its one spelling (mct_jcanon(): the parts are valid
	 * JSON, \037 apart).  An older mct kept each spelling apart: a key
	 * respelt is merged into its group, and its group may come twice.
	 */
	respelt = mct_jcanon(key.p ? key.p : "", key.len, &one);
	if ((into = mct_gtab_find(t, one.p ? one.p : "", one.len)) != NULL) {
		at = (size_t)(into - t->g);
		if (!respelt && at < gr->nseen && gr->seen[at]) {
			mct_pline_why(pr, "a second group of the same key");
			goto out;
		}
		if (!merge_fits(t, into, &g)) {
			mct_pline_why(pr, "its counts and the merged ones pass "
			    "2^63");
			goto out;
		}
	} else
		into = mct_gtab_group(t, one.p ? one.p : "", one.len);
	if ((at = (size_t)(into - t->g)) >= gr->nseen) {
		gr->seen = mct_xrealloc(gr->seen, 2 * t->n + 64);
		memset(gr->seen + gr->nseen, 0, 2 * t->n + 64 - gr->nseen);
		gr->nseen = 2 * t->n + 64;
	}
	if (!respelt)
		gr->seen[at] = 1;
	mct_group_merge(t, into, &g);
	if (into->val.n > gr->limit)
		mct_stats_sketch(&into->val);
	r = 0;
out:
	mct_stats_free(&g.val);
	free(g.x);
	mct_buf_free(&key);
	mct_buf_free(&one);
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
	    getbool(pr, "allfloat", &allfloat) != 0 ||
	    __builtin_add_overflow(t->alltotal, total, &total)) {
		warnx("%s:%llu: damaged partial end line", pr->name, pr->line);
		return MCT_EXIT_DAMAGED;
	}
	t->alltotal = total;
	t->alltotalf += totalf;
	t->allfloat |= allfloat;
	return mct_partial_ident(((struct gread *)arg)->ps, pr);
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

	status = mct_pline_read(path, &group, &gr);
	free(gr.xmap);
	free(gr.seen);
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
	int i;

	free_list(ps->by, ps->nby);
	free_list(ps->src, ps->nsrc);
	for (i = 0; i < ps->nid; i++)
		pid_free(&ps->id[i]);
	free(ps->id);
	free(ps->value);
	memset(ps, 0, sizeof(*ps));
}
