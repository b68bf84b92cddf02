/*
 * unit-group.c - group.c: the group table, and an event's key.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mct.h"
#include "unit.h"

/* A table over dur and sum:args.b, keyed by name. */
static void
g_table(struct mct_gtab *t, struct mct_field *value, struct mct_agg *sum)
{
	memset(t, 0, sizeof(*t));
	mct_field_parse("dur", value);
	t->value = value;
	mct_agg_parse(t, "sum:args.b", sum);
}

static void
g_add(struct mct_gtab *t, const char *json)
{
	struct mct_event ev;
	struct mct_number x;
	struct mct_val v;
	int has;

	mct_event_init(&ev, json, strlen(json), NULL);
	has = mct_gtab_value(t, &ev, &x) == 0;
	if (mct_get_key(&ev, "name", &v) == 0)
		mct_gtab_add(t, &ev, v.p, v.len, has ? &x : NULL);
	else
		mct_gtab_add(t, &ev, NULL, 0, has ? &x : NULL);
	mct_event_free(&ev);
}

struct g_rows {
	struct mct_buf	 b;
	const struct mct_gtab *t;
	struct mct_agg	*sum;
};

static void
g_row(void *arg, struct mct_group *g, const char *label)
{
	struct g_rows *r = arg;
	struct mct_out out = { .fmt = MCT_O_TSV };
	struct mct_agg count = { .kind = MCT_A_COUNT };

	mct_buf_adds(&r->b, label ? label : g->key);
	mct_buf_addc(&r->b, '=');
	mct_cell_agg(r->t, g, &count, &out, &r->b);
	mct_buf_addc(&r->b, '/');
	mct_cell_agg(r->t, g, r->sum, &out, &r->b);
	mct_buf_addc(&r->b, ' ');
}

/* Two groups agree on count, values, extra sums and span. */
static int
g_same(const struct mct_gtab *ta, struct mct_group *a,
    const struct mct_gtab *tb, struct mct_group *b, struct mct_agg *sum)
{
	static const struct mct_agg aggs[] = { { .kind = MCT_A_TOTAL },
	    { .kind = MCT_A_MEDIAN }, { .kind = MCT_A_MEAN },
	    { .kind = MCT_A_MIN }, { .kind = MCT_A_MAX },
	    { .kind = MCT_A_SHARE }, { .kind = MCT_A_PCT, .qn = 90, .qd = 100 } };
	int i, na, nb, ia, ib;
	int64_t xa = 0, xb = 0;
	double da, db;

	if (a == NULL || b == NULL || a->count != b->count ||
	    a->val.n != b->val.n || a->span != b->span ||
	    a->first != b->first || a->last != b->last)
		return 0;
	for (i = 0; i < (int)(sizeof(aggs) / sizeof(aggs[0])) + 1; i++) {
		const struct mct_agg *g = i < 7 ? &aggs[i] : sum;

		da = mct_agg_value(ta, a, g, &na, &xa, &ia);
		db = mct_agg_value(tb, b, g, &nb, &xb, &ib);
		if (na != nb || ia != ib || (!na && (da != db || xa != xb)))
			return 0;
	}
	return 1;
}

void
test_group(void)
{
	static const char *ev[] = {
		"{\"name\":\"a\",\"ts\":100,\"dur\":10,\"args\":{\"b\":1}}",
		"{\"name\":\"b\",\"ts\":50,\"dur\":7}",
		"{\"name\":\"a\",\"ts\":300,\"dur\":30,\"args\":{\"b\":\"2\"}}",
		"{\"name\":\"c\",\"ts\":10,\"dur\":1,\"args\":{\"b\":2.5}}",
		"{\"name\":\"a\",\"ts\":200,\"dur\":20}",
		"{\"ts\":5,\"dur\":1000}",
		"{\"name\":\"b\",\"ts\":400,\"args\":{\"b\":4}}",
		"{\"name\":\"c\",\"ts\":20,\"dur\":3}",
		"{\"name\":\"d\",\"dur\":5}",
	};
	enum { NEV = sizeof(ev) / sizeof(ev[0]) };
	struct mct_field va, vb, vc;
	struct mct_agg sa, sb, sc;
	struct mct_gtab a, b, c;
	struct mct_group *g, *h;
	struct mct_order by_count = { .by = -1, .agg = { .kind = MCT_A_COUNT } };
	struct mct_order by_key = { .by = 0 };
	struct g_rows rows = { { 0 }, NULL, NULL };
	struct mct_group *v[8];
	size_t i, k;
	int bad;

	g_table(&a, &va, &sa);
	g_table(&b, &vb, &sb);
	g_table(&c, &vc, &sc);
	for (i = 0; i < NEV; i++) {
		g_add(i < 4 ? &a : &b, ev[i]);
		g_add(&c, ev[i]);
	}
	g = mct_gtab_find(&c, "\"a\"", 3);
	ok(c.n == 4 && g != NULL && g->count == 3 && g->val.n == 3 &&
	    g->val.isum == 60 && g->first == 100 && g->last == 330 &&
	    g->x[0].n == 2 && g->x[0].isum == 3 && g->x[0].min == 1,
	    "group: add: count, values, extra field, span of a group");
	g = mct_gtab_find(&c, "\"b\"", 3);
	h = mct_gtab_find(&c, "\"d\"", 3);
	ok(g != NULL && g->count == 2 && g->val.n == 1 && g->last == 400 &&
	    h != NULL && !h->span && c.alltotal == 1076,
	    "group: add: an event without a value is counted, its value "
	    "missing; share's total has the ungrouped event's");
	ok(mct_gtab_find(&c, "\"e\"", 3) == NULL &&
	    mct_gtab_find(&c, "a", 1) == NULL, "group: find: no such key");
	g = mct_gtab_find(&c, "\"c\"", 3);
	ok(g != NULL && g->x[0].isfloat && g->x[0].dsum == 2.5,
	    "group: a fraction makes the extra field's figures doubles");

	mct_gtab_merge(&a, &b);
	for (bad = 0, i = 0; i < c.n; i++)
		bad += !g_same(&a, mct_gtab_find(&a, c.g[i].key, c.g[i].klen),
		    &c, &c.g[i], &sc);
	ok(a.n == c.n && bad == 0 && a.alltotal == c.alltotal &&
	    a.alltotalf == c.alltotalf, "group: merge: two tables merged equal "
	    "one table over all events (%d groups differ)", bad);

	/* sort */
	for (i = 0; i < c.n; i++)
		v[i] = &c.g[i];
	mct_gtab_sort(&c, v, c.n, &by_count);
	ok(strcmp(v[0]->key, "\"a\"") == 0 && strcmp(v[1]->key, "\"b\"") == 0 &&
	    strcmp(v[2]->key, "\"c\"") == 0 && strcmp(v[3]->key, "\"d\"") == 0,
	    "group: sort by count: largest first, equal counts by key");
	by_count.reverse = 1;
	mct_gtab_sort(&c, v, c.n, &by_count);
	ok(strcmp(v[0]->key, "\"d\"") == 0 && strcmp(v[3]->key, "\"a\"") == 0,
	    "group: sort reversed");
	mct_gtab_sort(&c, v, c.n, &by_key);
	for (bad = 0, k = 1; k < c.n; k++)
		bad += strcmp(v[k - 1]->key, v[k]->key) >= 0;
	ok(bad == 0, "group: sort by a key part: A to Z");

	/* the rows of a report: top 2, others, total */
	rows.t = &c;
	rows.sum = &sc;
	mct_gtab_report(&c, &by_key, 2, 1, g_row, &rows);
	ok(rows.b.p && strcmp(rows.b.p, "\"a\"=3/3 \"b\"=2/4 (others)=3/2.5 "
	    "(total)=8/9.5 ") == 0, "group: report: top rows, others, total (%s)",
	    rows.b.p ? rows.b.p : "");
	mct_buf_free(&rows.b);

	mct_gtab_free(&a);
	mct_gtab_free(&b);
	mct_gtab_free(&c);
	ok(c.n == 0 && mct_gtab_find(&c, "\"a\"", 3) == NULL,
	    "group: freed, the table is empty");
	free(sa.text);
	free(sb.text);
	free(sc.text);
	mct_field_free(&va);
	mct_field_free(&vb);
	mct_field_free(&vc);
}

/* An event's key: its --by fields' JSON texts, \037 apart; none without one. */
void
test_group_key(void)
{
	struct mct_field by[2];
	struct mct_buf k = { 0 };
	struct mct_event ev;
	char json[128];

	mct_field_parse("name", &by[0]);
	mct_field_parse("args.grid", &by[1]);
	snprintf(json, sizeof(json), "{\"name\":\"k\",\"args\":{\"grid\":"
	    "[1,2]}}");
	mct_event_init(&ev, json, strlen(json), NULL);
	ok(mct_group_key(&ev, by, 2, 0, NULL, &k) == 0 && k.len == 9 &&
	    memcmp(k.p, "\"k\"\037[1,2]", 9) == 0, "group: an event's key");
	mct_event_free(&ev);
	mct_event_init(&ev, "{\"name\":\"k\"}", 12, NULL);
	ok(mct_group_key(&ev, by, 2, 0, NULL, &k) == -1 &&
	    mct_group_key(&ev, by, 2, 1, NULL, &k) == 0 && k.len == 4,
	    "group: no key without a field, unless missing is set");
	mct_event_free(&ev);
	mct_field_free(&by[0]);
	mct_field_free(&by[1]);
	mct_buf_free(&k);
}
