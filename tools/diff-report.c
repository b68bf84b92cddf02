/*
 * diff-report.c - mct-diff's output: the rows of the two tables, written
 * as a table or records, the runs' summary, and --fail-if's gate.
 */
#include "config.h"

#include <err.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "mct.h"
#include "mct-diff.h"

#define SUMMARY_NAME	"mct_diff_summary"

/* what a column's numbers are: K_PP a change of a percentage, in points */
enum { K_COUNT, K_VALUE, K_PCT, K_PP };

static const struct {
	const char	*name;
	int		 kind;
} col[NCOL] = {
	{ "count_a", K_COUNT }, { "count_b", K_COUNT },
	{ "total_a", K_VALUE }, { "total_b", K_VALUE },
	{ "total_delta", K_VALUE }, { "total_pct", K_PCT },
	{ "median_a", K_VALUE }, { "median_b", K_VALUE },
	{ "median_delta", K_VALUE }, { "median_pct", K_PCT }
};

/*
 * The rows.
 */

static double
val(const struct num *x)
{
	return x->isint ? (double)x->i : x->d;
}

/* A group's total; a run without the key has 0. */
static void
total(const struct mct_group *g, struct num *x)
{
	if (g == NULL || g->val.n == 0) {
		x->isint = 1;
		return;
	}
	x->d = mct_stats_sum(&g->val);
	if (!g->val.isfloat && g->val.isum <= INT64_MAX &&
	    g->val.isum >= -INT64_MAX) {
		x->isint = 1;
		x->i = (int64_t)g->val.isum;
	}
}

/* A group's median: none without values; an integer when it is one. */
static void
median(struct mct_group *g, struct num *x)
{
	if (g == NULL || g->val.n == 0) {
		x->null = 1;
		return;
	}
	x->d = mct_stats_quantile(&g->val, 1, 2);
	if (!g->val.isfloat && fabs(x->d) < 9e18 &&
	    x->d == (double)(int64_t)x->d) {
		x->isint = 1;
		x->i = (int64_t)x->d;
	}
}

/* b - a, and its % of a (none when a is 0 or either is none). */
static void
delta(const struct num *a, const struct num *b, struct num *d,
    struct num *pct)
{
	mct_i128 x;

	if (a->null || b->null) {
		d->null = pct->null = 1;
		return;
	}
	if (a->isint && b->isint) {
		x = (mct_i128)b->i - a->i;
		d->d = (double)x;
		if (x <= INT64_MAX && x >= -INT64_MAX) {
			d->isint = 1;
			d->i = (int64_t)x;
		}
	} else
		d->d = val(b) - val(a);
	if (val(a) == 0) {
		pct->null = 1;
		return;
	}
	pct->d = (double)((long double)d->d * 100 / (long double)val(a));
}

static void
cells(struct row *w)
{
	struct num *c = w->c;

	c[C_COUNT_A].isint = c[C_COUNT_B].isint = 1;
	c[C_COUNT_A].i = w->g[0] ? w->g[0]->count : 0;
	c[C_COUNT_B].i = w->g[1] ? w->g[1]->count : 0;
	total(w->g[0], &c[C_TOTAL_A]);
	total(w->g[1], &c[C_TOTAL_B]);
	delta(&c[C_TOTAL_A], &c[C_TOTAL_B], &c[C_TOTAL_DELTA], &c[C_TOTAL_PCT]);
	median(w->g[0], &c[C_MEDIAN_A]);
	median(w->g[1], &c[C_MEDIAN_B]);
	delta(&c[C_MEDIAN_A], &c[C_MEDIAN_B], &c[C_MEDIAN_DELTA],
	    &c[C_MEDIAN_PCT]);
	w->only = w->g[1] == NULL ? 'a' : w->g[0] == NULL ? 'b' : 0;
}

static const struct mct_group *
key_of(const struct row *w)
{
	return w->g[0] ? w->g[0] : w->g[1];
}

/* Keys as bytes: the order of strcmp(3) on keys without NUL. */
static int
keycmp(const struct row *a, const struct row *b)
{
	const struct mct_group *x = key_of(a), *y = key_of(b);
	int r = memcmp(x->key, y->key, x->klen < y->klen ? x->klen : y->klen);

	return r ? r : (x->klen > y->klen) - (x->klen < y->klen);
}

/* Largest change of total first (either way), then key order. */
static int
cmp_row(const void *pa, const void *pb)
{
	const struct row *a = pa, *b = pb;
	const struct num *x = &a->c[C_TOTAL_DELTA], *y = &b->c[C_TOTAL_DELTA];
	uint64_t ux, uy;
	double dx, dy;

	if (x->isint && y->isint) {
		ux = x->i < 0 ? 0 - (uint64_t)x->i : (uint64_t)x->i;
		uy = y->i < 0 ? 0 - (uint64_t)y->i : (uint64_t)y->i;
		if (ux != uy)
			return ux > uy ? -1 : 1;
	} else if ((dx = fabs(val(x))) != (dy = fabs(val(y))))
		return dx > dy ? -1 : 1;
	return keycmp(a, b);
}

static void
add_row(struct opts *o, struct mct_group *a, struct mct_group *b)
{
	struct row *w;

	o->row = mct_xgrow(o->row, o->nrow, sizeof(*o->row));
	w = &o->row[o->nrow++];
	memset(w, 0, sizeof(*w));
	w->g[0] = a;
	w->g[1] = b;
	cells(w);
}

/* A row per key of either run, in order. */
void
rows(struct opts *o)
{
	struct mct_gtab *ta = &o->run[0].t, *tb = &o->run[1].t;
	size_t i;

	for (i = 0; i < ta->n; i++)
		add_row(o, &ta->g[i], mct_gtab_find(tb, ta->g[i].key,
		    ta->g[i].klen));
	for (i = 0; i < tb->n; i++)
		if (mct_gtab_find(ta, tb->g[i].key, tb->g[i].klen) == NULL)
			add_row(o, NULL, &tb->g[i]);
	mct_sort(o->row, o->nrow, sizeof(*o->row), cmp_row);
}

/*
 * Writing.
 */

/* A number for programs: raw, times scaled by --time-unit. */
static void
put_raw(struct mct_buf *b, const struct num *x, int time, enum mct_unit tu,
    int json)
{
	char num[64];
	int64_t unit = time ? mct_unit_ns(tu) : 1;

	if (x->null) {
		mct_buf_adds(b, json ? "null" : "");
		return;
	}
	if (x->isint && unit > 1)
		mct_fmt_dec(num, x->i, unit);
	else if (x->isint)
		snprintf(num, sizeof(num), "%lld", (long long)x->i);
	else
		mct_fmt_double(num, x->d / (double)unit);
	mct_buf_adds(b, num);
}

/*
 * A number for people: times as 1.23 ms, changes with a sign, a change of
 * a percentage in percentage points (-3.26 pp: not a change of -3.26%).
 */
static void
put_human(struct mct_buf *b, const struct num *x, int kind, int time,
    int sign)
{
	char num[64];
	size_t n = 0;

	if (x->null) {
		mct_buf_adds(b, "-");
		return;
	}
	if (sign && val(x) > 0)
		num[n++] = '+';
	if (kind == K_PCT)
		snprintf(num + n, sizeof(num) - n, "%.2f%%", x->d);
	else if (kind == K_PP)
		snprintf(num + n, sizeof(num) - n, "%.2f pp", x->d);
	else if (kind == K_COUNT || (x->isint && !time))
		mct_fmt_count(num + n, x->i);
	else if (time)
		mct_fmt_human(num + n, val(x));
	else
		snprintf(num + n, sizeof(num) - n, "%.2f", x->d);
	mct_buf_adds(b, num);
}

static int
is_change(int c)
{
	return c == C_TOTAL_DELTA || c == C_TOTAL_PCT || c == C_MEDIAN_DELTA ||
	    c == C_MEDIAN_PCT;
}

/*
 * The row as an NDJSON record; tu scales its times.  For --fail-if (gate
 * set) in ns, and a column without a number is left out: a missing field
 * meets no comparison, where null would compare as the text "null".
 */
static void
row_json(struct opts *o, const struct row *w, enum mct_unit tu, int gate,
    struct mct_buf *b)
{
	int c;

	b->len = 0;
	mct_buf_addc(b, '{');
	mct_cell_json(key_of(w), o->by, o->nby, b);
	for (c = 0; c < NCOL; c++) {
		if (gate && w->c[c].null)
			continue;
		if (b->len > 1)
			mct_buf_addc(b, ',');
		mct_buf_addc(b, '"');
		mct_buf_adds(b, col[c].name);
		mct_buf_adds(b, "\":");
		put_raw(b, &w->c[c], col[c].kind == K_VALUE && o->vtime, tu, 1);
	}
	mct_buf_adds(b, w->only == 'a' ? ",\"only\":\"a\"" :
	    w->only == 'b' ? ",\"only\":\"b\"" : gate ? "" :
	    ",\"only\":null");
	/* for --fail-if a flag is there when true: a bare new holds */
	if (!gate || w->only == 'b')
		mct_buf_adds(b, w->only == 'b' ? ",\"new\":true" :
		    ",\"new\":false");
	if (!gate || w->only == 'a')
		mct_buf_adds(b, w->only == 'a' ? ",\"gone\":true" :
		    ",\"gone\":false");
	mct_buf_addc(b, '}');
}

/* The key's cells: missing and null are empty. */
static void
key_cells(struct opts *o, const struct row *w, struct mct_buf *b)
{
	const struct mct_group *g = key_of(w);
	const char *p;
	size_t n;
	int i;

	for (i = 0; i < o->nby; i++) {
		if (i)
			mct_buf_addc(b, '\037');
		if ((p = mct_group_part(g, i, &n)) != NULL &&
		    (n != 4 || memcmp(p, "null", 4) != 0))
			mct_cell_text(g, i, b);
	}
}

static void
write_row(struct opts *o, const struct row *w)
{
	struct mct_buf *b = &o->line;
	struct mct_event ev;
	int c, time;

	if (o->out.fmt == MCT_O_NDJSON) {
		row_json(o, w, o->out.tunit, 0, b);
		mct_event_init(&ev, b->p, b->len, NULL);
		mct_out_event(&o->out, &ev);
		mct_event_free(&ev);
		return;
	}
	b->len = 0;
	key_cells(o, w, b);
	for (c = 0; c < NCOL; c++) {
		mct_buf_addc(b, '\037');
		time = col[c].kind == K_VALUE && o->vtime;
		if (mct_out_human(&o->out))
			put_human(b, &w->c[c], col[c].kind, time, is_change(c));
		else
			put_raw(b, &w->c[c], time, o->out.tunit, 0);
	}
	mct_buf_addc(b, '\037');
	if (w->only)
		mct_buf_addc(b, w->only);
	else if (mct_out_human(&o->out))
		mct_buf_adds(b, "-");
	for (c = 'b'; c >= 'a'; c--) {		/* new, gone */
		mct_buf_addc(b, '\037');
		mct_buf_adds(b, mct_out_human(&o->out) ? (w->only == c ?
		    "yes" : "no") : w->only == c ? "true" : "false");
	}
	mct_out_row(&o->out, b->p, b->len);
}

/* Is the row hidden by --min-delta? */
static int
small(const struct opts *o, const struct row *w)
{
	const struct num *d = &w->c[C_TOTAL_DELTA];

	if (o->min_delta < 0)
		return 0;
	if (d->isint)
		return (d->i < 0 ? 0 - (uint64_t)d->i : (uint64_t)d->i) <
		    (uint64_t)o->min_delta;
	return fabs(d->d) < (double)o->min_delta;
}

void
table(struct opts *o)
{
	struct mct_buf h = { 0 };
	size_t i, shown = 0;
	int c;

	if (o->out.fmt != MCT_O_NDJSON && (o->out.header ||
	    mct_out_human(&o->out))) {
		for (c = 0; c < o->nby; c++) {
			if (c)
				mct_buf_addc(&h, '\037');
			mct_buf_adds(&h, o->by[c].text);
		}
		for (c = 0; c < NCOL; c++) {
			mct_buf_addc(&h, '\037');
			mct_buf_adds(&h, col[c].name);
		}
		mct_buf_adds(&h, "\037only\037new\037gone");
		mct_out_row(&o->out, h.p, h.len);
		mct_buf_free(&h);
	}
	for (i = 0; i < o->nrow; i++) {
		if (small(o, &o->row[i]))
			continue;
		if (o->top > 0 && shown >= (size_t)o->top)
			break;
		write_row(o, &o->row[i]);
		shown++;
	}
}

/*
 * The summary: each run's device figures.
 */
enum { S_SPAN, S_BUSY, S_BUSYPCT, S_ROUNDS, S_ROUND, NSUM };

static const struct {
	const char	*key;		/* in the NDJSON record, _a and _b */
	const char	*label;		/* in the human table */
	int		 time;
} sumrow[NSUM] = {
	{ "span", "span", 1 }, { "busy", "device busy", 1 },
	{ "busy_pct", "busy %", 0 }, { "rounds", "steady rounds", 0 },
	{ "round", "median round", 1 }
};

/*
 * Do both runs have steady rounds, but not alike (mct_runsum_alike(): of
 * other kernels, or steps in one run only)?  Then their number and
 * median time are each run's own, but their changes mean nothing.
 */
static int
rounds_unlike(const struct opts *o)
{
	const struct run *a = &o->run[0], *b = &o->run[1];

	return !a->partial && !b->partial && a->rs.hasround &&
	    b->rs.hasround && !mct_runsum_alike(&a->rs, &b->rs);
}

/* Has run rs a kind of rounds as kind k of run of? */
static int
has_kind(const struct mct_runsum *rs, const struct mct_runsum *of,
    const struct mct_roundof *k)
{
	size_t i;

	for (i = 0; i < rs->nof; i++)
		if (mct_roundof_cmp(rs, &rs->of[i], of, k) == 0)
			return 1;
	return 0;
}

/*
 * The kind of run rs's rounds to name: of those run other has not, else
 * of all, the one of the most rounds (the first of them).
 */
static const struct mct_roundof *
named_kind(const struct mct_runsum *rs, const struct mct_runsum *other)
{
	const struct mct_roundof *k = NULL;
	size_t i;
	int pass;

	for (pass = 0; pass < 2 && k == NULL; pass++)
		for (i = 0; i < rs->nof; i++)
			if ((pass || !has_kind(other, rs, &rs->of[i])) &&
			    (k == NULL || rs->of[i].rounds > k->rounds))
				k = &rs->of[i];
	return k;
}

/*
 * A signature in the note, on one line (a tab, CR or LF a space); in md a
 * code span.
 */
static void
put_sig(struct mct_buf *b, const char *s, size_t n, int md)
{
	size_t i, run = 0, most = 0;

	for (i = 0; i < n; i++) {	/* a fence longer than any ` run */
		run = s[i] == '`' ? run + 1 : 0;
		if (run > most)
			most = run;
	}
	for (i = 0; md && i <= most; i++)
		mct_buf_addc(b, '`');
	if (md && most)
		mct_buf_addc(b, ' ');
	for (i = 0; i < n; i++)
		mct_buf_addc(b, s[i] == '\n' || s[i] == '\r' || s[i] == '\t' ?
		    ' ' : s[i]);
	if (md && most)
		mct_buf_addc(b, ' ');
	for (i = 0; md && i <= most; i++)
		mct_buf_addc(b, '`');
}

/*
 * Where the runs' rounds are not alike, a line under the summary that
 * says what each run's rounds are (a kind each, its signature cut to
 * --width as a cell, the two never alike) and that their changes are
 * not compared.
 */
static void
rounds_note(struct opts *o)
{
	const struct mct_runsum *rs[2] = { &o->run[0].rs, &o->run[1].rs };
	const struct mct_roundof *k[2];
	struct mct_text in[2], vis[2];
	struct mct_buf b = { 0 }, cut = { 0 };
	size_t i, n = 0, at[2] = { 0, 0 }, more;
	int md = o->out.fmt == MCT_O_MD;

	for (i = 0; i < 2; i++) {
		k[i] = named_kind(rs[i], rs[1 - i]);
		if (k[i]->sig < 0)
			continue;
		at[i] = n;
		in[n].p = rs[i]->st.str[k[i]->sig];
		in[n++].len = mct_strtab_len(&rs[i]->st, k[i]->sig);
	}
	if (o->out.maxwidth >= 0 && n > 0)
		mct_cut_column(in, n, o->out.maxwidth > 0 ?
		    (size_t)o->out.maxwidth : MCT_WIDTH, &cut, vis, 0);
	else
		memcpy(vis, in, sizeof(in));
	mct_buf_adds(&b, "steady rounds, median round: ");
	for (i = 0; i < 2; i++) {
		mct_buf_adds(&b, i ? ", B's " : "A's rounds are ");
		if (k[i]->sig < 0)
			mct_buf_adds(&b, "profiler steps");
		else {
			mct_buf_adds(&b, "calls of ");
			put_sig(&b, vis[at[i]].p, vis[at[i]].len, md);
		}
		if ((more = rs[i]->nof - 1) > 0) {
			mct_buf_adds(&b, " and ");
			mct_buf_addi(&b, (int64_t)more);
			mct_buf_adds(&b, more > 1 ? " other kinds" :
			    " other kind");
		}
	}
	mct_buf_adds(&b, ": not compared\n\n");
	mct_write(b.p, b.len);
	mct_buf_free(&b);
	mct_buf_free(&cut);
}

/* What the run's rounds are, for the summary record: [{key, rounds}]. */
static void
rounds_json(struct mct_buf *b, const struct mct_runsum *rs)
{
	size_t i;

	mct_buf_addc(b, '[');
	for (i = 0; i < rs->nof; i++) {
		mct_buf_adds(b, i ? ",{\"key\":" : "{\"key\":");
		if (rs->of[i].sig < 0)
			mct_buf_adds(b, "null");
		else
			mct_buf_addjstr(b, rs->st.str[rs->of[i].sig],
			    mct_strtab_len(&rs->st, rs->of[i].sig));
		mct_buf_adds(b, ",\"rounds\":");
		mct_buf_addi(b, rs->of[i].rounds);
		mct_buf_addc(b, '}');
	}
	mct_buf_addc(b, ']');
}

static void
sum_num(const struct run *r, int s, struct num *x)
{
	const struct mct_runsum *rs = &r->rs;

	memset(x, 0, sizeof(*x));
	x->isint = 1;
	if (r->partial || (rs->n == 0 && s != S_ROUNDS) ||
	    (s == S_ROUND && !rs->hasround)) {
		x->null = 1;
		return;
	}
	switch (s) {
	case S_SPAN:
		x->i = mct_sat_sub(rs->end, rs->start);
		break;
	case S_BUSY:
		x->i = rs->busy;
		break;
	case S_BUSYPCT:
		x->isint = 0;
		if (rs->end == rs->start)
			x->null = 1;
		else
			x->d = 100.0 * (double)rs->busy /
			    (double)mct_sat_sub(rs->end, rs->start);
		break;
	case S_ROUNDS:
		x->i = rs->rounds;
		break;
	default:
		x->i = rs->round;
	}
}

void
summary_json(struct opts *o)
{
	struct mct_buf *b = &o->line;
	struct mct_event ev;
	struct num x;
	int s, k;

	b->len = 0;
	mct_buf_adds(b, "{\"name\":\"" SUMMARY_NAME "\"");
	for (s = 0; s < NSUM; s++)
		for (k = 0; k < 2; k++) {
			sum_num(&o->run[k], s, &x);
			mct_buf_addc(b, ',');
			mct_buf_addc(b, '"');
			mct_buf_adds(b, sumrow[s].key);
			mct_buf_adds(b, k ? "_b\":" : "_a\":");
			put_raw(b, &x, sumrow[s].time, o->out.tunit, 1);
		}
	if (rounds_unlike(o)) {		/* what each run's rounds are */
		mct_buf_adds(b, ",\"rounds_of_a\":");
		rounds_json(b, &o->run[0].rs);
		mct_buf_adds(b, ",\"rounds_of_b\":");
		rounds_json(b, &o->run[1].rs);
	}
	mct_buf_addc(b, '}');
	mct_event_init(&ev, b->p, b->len, NULL);
	mct_out_event(&o->out, &ev);
	mct_event_free(&ev);
}

/* The summary as a table of its own: a figure a line, A, B, the change. */
void
summary_table(struct opts *o)
{
	struct mct_out out;
	struct mct_buf b = { 0 };
	struct num x[2], d, pct;
	int s, unlike = rounds_unlike(o);

	memset(&out, 0, sizeof(out));
	out.fmt = o->out.fmt;
	out.maxwidth = o->out.maxwidth;
	mct_out_begin(&out, &o->hdr);
	mct_buf_adds(&b, "summary\037a\037b\037delta\037delta_pct");
	mct_out_row(&out, b.p, b.len);
	for (s = 0; s < NSUM; s++) {
		sum_num(&o->run[0], s, &x[0]);
		sum_num(&o->run[1], s, &x[1]);
		memset(&d, 0, sizeof(d));
		memset(&pct, 0, sizeof(pct));
		delta(&x[0], &x[1], &d, &pct);
		if (unlike && (s == S_ROUNDS || s == S_ROUND))
			d.null = pct.null = 1;	/* not alike: not compared */
		b.len = 0;
		mct_buf_adds(&b, sumrow[s].label);
		mct_buf_addc(&b, '\037');
		put_human(&b, &x[0], s == S_BUSYPCT ? K_PCT : K_VALUE,
		    sumrow[s].time, 0);
		mct_buf_addc(&b, '\037');
		put_human(&b, &x[1], s == S_BUSYPCT ? K_PCT : K_VALUE,
		    sumrow[s].time, 0);
		mct_buf_addc(&b, '\037');
		/* a change of a % is in points, and has no % of its own */
		put_human(&b, &d, s == S_BUSYPCT ? K_PP : K_VALUE,
		    sumrow[s].time, 1);
		mct_buf_addc(&b, '\037');
		if (s == S_BUSYPCT)
			pct.null = 1;
		put_human(&b, &pct, K_PCT, 0, 1);
		mct_out_row(&out, b.p, b.len);
	}
	mct_out_end(&out);
	mct_buf_free(&b);
	mct_write("\n", 1);
	if (unlike)
		rounds_note(o);
}

/*
 * --fail-if: every row (whatever --top and --min-delta hide) as a record
 * in ns; the ones that meet it are named on stderr.
 */
int
gate(struct opts *o)
{
	struct mct_buf b = { 0 }, k = { 0 };
	struct mct_event ev;
	char num[2][64];
	size_t i;
	int met = 0, j;

	if (o->fail == NULL)
		return MCT_EXIT_OK;
	for (i = 0; i < o->nrow; i++) {
		row_json(o, &o->row[i], MCT_UNIT_NS, 1, &b);
		mct_event_init(&ev, b.p, b.len, &o->hdr);
		if (mct_expr_eval(o->fail, &ev, &o->hdr)) {
			met++;
			k.len = 0;
			for (j = 0; j < o->nby; j++) {
				if (j)
					mct_buf_addc(&k, ' ');
				mct_cell_text(key_of(&o->row[i]), j, &k);
			}
			mct_buf_addc(&k, '\0');
			b.len = 0;
			put_human(&b, &o->row[i].c[C_TOTAL_DELTA], K_VALUE,
			    o->vtime, 1);
			mct_buf_addc(&b, '\0');
			snprintf(num[0], sizeof(num[0]), "%s", b.p);
			b.len = 0;
			put_human(&b, &o->row[i].c[C_TOTAL_PCT], K_PCT, 0, 1);
			mct_buf_addc(&b, '\0');
			snprintf(num[1], sizeof(num[1]), "%s", b.p);
			warnx("--fail-if: %s (total %s, %s%s)", k.p, num[0],
			    num[1], o->row[i].only == 'a' ? ", only in A" :
			    o->row[i].only == 'b' ? ", only in B" : "");
		}
		mct_event_free(&ev);
	}
	mct_buf_free(&b);
	mct_buf_free(&k);
	return met ? EXIT_FAIL : MCT_EXIT_OK;
}


/* A field of --fail-if: a column of the rows, or a usage error. */
void
known(const struct mct_field *f, void *arg)
{
	const struct opts *o = arg;
	const char **name, *near;
	struct mct_buf b = { 0 };
	size_t n;
	int i, k = 0, found = 0;

	name = mct_xmalloc((size_t)(o->nby + NCOL + 3) * sizeof(*name));
	for (i = 0; i < o->nby; i++) {	/* a --by field, or a path in it */
		n = strlen(o->by[i].text);
		found |= strncmp(f->text, o->by[i].text, n) == 0 &&
		    (f->text[n] == '\0' || f->text[n] == '.');
		name[k++] = o->by[i].text;
	}
	for (i = 0; i < NCOL; i++)
		name[k++] = col[i].name;
	name[k++] = "only";
	name[k++] = "new";
	name[k++] = "gone";
	for (i = o->nby; i < k; i++)
		found |= strcmp(f->text, name[i]) == 0;
	if (found) {
		free(name);
		return;
	}
	if ((near = mct_nearest(f->text, name, k)) != NULL)
		warnx("--fail-if: no column '%s' (did you mean '%s'?)",
		    f->text, near);
	else {
		for (i = 0; i < k; i++) {
			mct_buf_adds(&b, i ? ", " : "");
			mct_buf_adds(&b, name[i]);
		}
		warnx("--fail-if: no column '%s' (the columns: %s)", f->text,
		    b.p);
	}
	mct_usage_hint();
}
/*
 * The output's header line: a stream of the comparison, in ns, at A's
 * origin, with both runs as its sources.
 */
void
out_header(struct opts *o)
{
	struct mct_header *h = &o->hdr;
	const char *src[2] = { o->run[0].path, o->run[1].path };

	h->facts.unit = MCT_UNIT_NS;
	h->facts.why = "mct-diff";
	h->facts.has_origin = o->run[0].has_origin;
	h->facts.origin = o->run[0].origin;
	h->nread = 1;
	mct_out_header(h, src, 2);
}
