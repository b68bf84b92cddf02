/*
 * unit-field.c - field.c: field names, access to an event's fields, the
 * table of virtual fields.
 */
#include "config.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "mct.h"
#include "unit.h"

static void
t_field(const char *text, int want_rc, const char *vf, int time, int nseg,
    const char *seg0, const char *seg1)
{
	struct mct_field f;
	int rc = mct_field_parse(text, &f), pass;

	if (want_rc != 0) {
		ok(rc == -1 && f.nseg == 0 && f.text == NULL,
		    "mct_field_parse(\"%s\") is -1, the field cleared", ESC(text));
		if (rc == 0)
			mct_field_free(&f);
		return;
	}
	pass = rc == 0 && f.vf == (vf ? mct_vfield(vf) : NULL) &&
	    mct_field_time(&f) == time && f.nseg == nseg &&
	    f.text && strcmp(f.text, text) == 0;
	if (pass && nseg > 0)
		pass = strcmp(f.seg[0], seg0) == 0 && f.seglen[0] == strlen(seg0);
	if (pass && nseg > 1)
		pass = strcmp(f.seg[1], seg1) == 0 && f.seglen[1] == strlen(seg1);
	ok(pass, "mct_field_parse(\"%s\"): entry %s, time %d, %d segments "
	    "%s%s%s", ESC(text), vf ? vf : "none", time, nseg,
	    seg0 ? ESC(seg0) : "", seg1 ? " " : "", seg1 ? ESC(seg1) : "");
	if (!pass && rc == 0)
		diag("got entry %s, time %d, %d segments, first \"%s\"",
		    f.vf ? f.vf->name : "none", mct_field_time(&f), f.nseg,
		    f.nseg ? ESC(f.seg[0]) : "");
	if (rc == 0)
		mct_field_free(&f);
}

static void
t_get(struct mct_event *ev, const char *field, int want_rc, int type,
    const char *text)
{
	struct mct_field f;
	struct mct_val v;
	int rc;

	if (mct_field_parse(field, &f) != 0) {
		ok(0, "mct_get %s: the field parses", ESC(field));
		return;
	}
	rc = mct_get(ev, &f, &v);
	if (want_rc == 0)
		ok(rc == 0 && (int)v.type == type && v.len == strlen(text) &&
		    memcmp(v.p, text, v.len) == 0,
		    "mct_get %s -> type %d \"%s\" (got rc %d, type %d, \"%s\")",
		    ESC(field), type, ESC(text), rc, v.type,
		    rc == 0 ? esc(v.p, v.len) : "");
	else
		ok(rc == -1 && v.type == MCT_J_NONE && v.p == NULL,
		    "mct_get %s is missing (got rc %d)", ESC(field), rc);
	mct_field_free(&f);
}

static void
t_field_ns(struct mct_event *ev, const char *field,
    const struct mct_header *h, int want_rc, int64_t want)
{
	struct mct_field f;
	int64_t ns = 0;
	int rc;

	mct_field_parse(field, &f);
	rc = mct_field_ns(ev, &f, h, &ns);
	ok(rc == want_rc && (rc != 0 || ns == want), "mct_field_ns %s -> %d %"
	    PRId64 " (got %d %" PRId64 ")", field, want_rc, want, rc, ns);
	mct_field_free(&f);
}

void
test_field(void)
{
	static const char json[] = "{\"name\":\"k\\u0031\",\"ph\":\"X\",\"ts\":100,"
	    "\"dur\":50,\"args\":{\"grid\":[2056,32,1],\"registers per thread\":64,"
	    "\"a.b\":\"dot\",\"nested\":{\"deep\":true,\"n\":null},"
	    "\"esc\\\"key\":1,\"sp\\u0020ace\":2,\"ts\":\"x\"},\"big\":"
	    "12345678901234567890,\"neg\":-5,\"f\":1.5}";
	struct mct_event ev = { 0 }, ev2 = { 0 };
	struct mct_header h = { 0 };
	struct mct_field *fs = NULL;
	struct mct_val v;
	int nf = 0, i, rc;
	int64_t ns;

	t_field("name", 0, NULL, 0, 1, "name", NULL);
	t_field("ts", 0, "ts", 1, 1, "ts", NULL);
	t_field("dur", 0, "dur", 1, 1, "dur", NULL);
	t_field("\"ts\"", 0, "ts", 1, 1, "ts", NULL);
	t_field("rel", 0, "rel", 1, 0, NULL, NULL);
	t_field("end", 0, "end", 1, 0, NULL, NULL);
	t_field("args.ts", 0, NULL, 0, 2, "args", "ts");
	t_field("args.grid", 0, NULL, 0, 2, "args", "grid");
	t_field("args.\"registers per thread\"", 0, NULL, 0, 2, "args",
	    "registers per thread");
	t_field("args.\"a.b\"", 0, NULL, 0, 2, "args", "a.b");
	t_field("args.\"esc\\\"key\"", 0, NULL, 0, 2, "args", "esc\"key");
	t_field("\"a b\".c", 0, NULL, 0, 2, "a b", "c");
	t_field("a.b.c.d", 0, NULL, 0, 4, "a", "b");
	t_field("", -1, 0, 0, 0, NULL, NULL);
	t_field(".", -1, 0, 0, 0, NULL, NULL);
	t_field("a.", -1, 0, 0, 0, NULL, NULL);
	t_field(".a", -1, 0, 0, 0, NULL, NULL);
	t_field("a..b", -1, 0, 0, 0, NULL, NULL);
	t_field("\"a", -1, 0, 0, 0, NULL, NULL);
	t_field("\"a\"b", -1, 0, 0, 0, NULL, NULL);
	t_field("\"\"", -1, 0, 0, 0, NULL, NULL);
	t_field("a.\"\"", -1, 0, 0, 0, NULL, NULL);
	t_field("args.\"x", -1, 0, 0, 0, NULL, NULL);

	rc = mct_fields_parse("ts,dur,ph,pid,tid,name", &fs, &nf);
	ok(rc == 0 && nf == 6 && strcmp(fs[5].seg[0], "name") == 0 &&
	    mct_field_time(&fs[0]) && mct_field_time(&fs[1]) &&
	    !mct_field_time(&fs[2]), "mct_fields_parse: the default columns");
	for (i = 0; i < nf; i++)
		mct_field_free(&fs[i]);
	free(fs);
	rc = mct_fields_parse("name,args.\"a,b\",rel", &fs, &nf);
	ok(rc == 0 && nf == 3 && fs[1].nseg == 2 && strcmp(fs[1].seg[1], "a,b") == 0 &&
	    fs[2].vf == mct_vfield("rel"), "mct_fields_parse: a comma inside quotes "
	    "does not split");
	for (i = 0; i < nf; i++)
		mct_field_free(&fs[i]);
	free(fs);
	rc = mct_fields_parse("name,args.\"a\\\"b\",ph", &fs, &nf);
	ok(rc == 0 && nf == 3 && fs[1].nseg == 2 &&
	    strcmp(fs[1].seg[1], "a\"b") == 0, "mct_fields_parse: an escaped "
	    "quote inside quotes (name,args.\"a\\\"b\",ph)");
	for (i = 0; i < nf; i++)
		mct_field_free(&fs[i]);
	free(fs);
	ok(mct_fields_parse("a,,b", &fs, &nf) == -1, "mct_fields_parse "
	    "\"a,,b\" is -1");
	for (i = 0; i < nf; i++)
		mct_field_free(&fs[i]);
	free(fs);
	ok(mct_fields_parse("", &fs, &nf) == -1, "mct_fields_parse \"\" is -1");
	for (i = 0; i < nf; i++)
		mct_field_free(&fs[i]);
	free(fs);
	ok(mct_fields_parse("a,", &fs, &nf) == -1, "mct_fields_parse \"a,\" is -1");
	for (i = 0; i < nf; i++)
		mct_field_free(&fs[i]);
	free(fs);

	ev.json = json;
	ev.len = sizeof(json) - 1;
	t_get(&ev, "name", 0, MCT_J_STRING, "\"k\\u0031\"");
	t_get(&ev, "ph", 0, MCT_J_STRING, "\"X\"");
	t_get(&ev, "ts", 0, MCT_J_NUMBER, "100");
	t_get(&ev, "args.grid", 0, MCT_J_ARRAY, "[2056,32,1]");
	t_get(&ev, "args.\"registers per thread\"", 0, MCT_J_NUMBER, "64");
	t_get(&ev, "args.\"a.b\"", 0, MCT_J_STRING, "\"dot\"");
	t_get(&ev, "args.nested", 0, MCT_J_OBJECT, "{\"deep\":true,\"n\":null}");
	t_get(&ev, "args.nested.deep", 0, MCT_J_BOOL, "true");
	t_get(&ev, "args.nested.n", 0, MCT_J_NULL, "null");
	t_get(&ev, "args.\"esc\\\"key\"", 0, MCT_J_NUMBER, "1");
	t_get(&ev, "args.\"sp ace\"", 0, MCT_J_NUMBER, "2");
	t_get(&ev, "args.ts", 0, MCT_J_STRING, "\"x\"");
	t_get(&ev, "big", 0, MCT_J_NUMBER, "12345678901234567890");
	t_get(&ev, "args.missing", -1, 0, NULL);
	t_get(&ev, "args.nested.deep.x", -1, 0, NULL);
	t_get(&ev, "name.x", -1, 0, NULL);
	t_get(&ev, "args.grid.0", -1, 0, NULL);
	t_get(&ev, "missing", -1, 0, NULL);
	t_get(&ev, "args.\"registers\"", -1, 0, NULL);
	ok(mct_get_key(&ev, "dur", &v) == 0 && v.type == MCT_J_NUMBER &&
	    v.len == 2 && memcmp(v.p, "50", 2) == 0 && ev.indexed && ev.nkv == 8,
	    "mct_get_key indexes the event once (%d keys)", ev.nkv);
	ok(mct_get_key(&ev, "nope", &v) == -1 && v.type == MCT_J_NONE &&
	    v.p == NULL && v.len == 0, "mct_get_key: a missing key");
	ok(mct_get_key(&ev, "registers per thread", &v) == -1,
	    "mct_get_key looks at first-level keys only");
	{
		/* a well-known key without a slot: missing, or spelt with escapes */
		struct mct_event e2;
		struct mct_buf many = { 0 };
		int k, found;

#define T2(t)	mct_event_set(&e2, (t), strlen(t))
		mct_event_init(&e2, NULL, 0, NULL);
		T2("{\"a\":1,\"c\\u0061t\":\"x\"}");
		found = mct_get_key(&e2, "cat", &v) == 0 && v.len == 3;
		/* an escape in a value: the keys are as they look */
		T2("{\"a\":1,\"b\":\"\\u0061\"}");
		found = found && mct_get_key(&e2, "cat", &v) == -1 &&
		    mct_get_key(&e2, "dur", &v) == -1 && e2.wkdone == 2;
		/* an escape in a key: any key may be spelt so */
		T2("{\"\\u0061\":1,\"b\":2}");
		found = found && mct_get_key(&e2, "cat", &v) == -1 &&
		    mct_get_key(&e2, "dur", &v) == -1 && e2.wkdone == 3;
		/* 64 bytes and more, indexed a block at a time: no backslash
		   seen (indexed 2), one in a value, one in a key */
		T2("{\"name\":\"a kernel with a rather long name, surely long enough\",\"b\":2}");
		found = found && mct_get_key(&e2, "cat", &v) == -1 &&
		    e2.indexed == 2 && e2.wkdone == 2;
		T2("{\"name\":\"a kernel with a rather long name, surely long \\u0065nough\",\"b\":2}");
		found = found && mct_get_key(&e2, "cat", &v) == -1 &&
		    e2.indexed == 1 && e2.wkdone == 2;
		T2("{\"name\":\"a kernel with a rather long name, surely long enough\",\"c\\u0061t\":2}");
		found = found && mct_get_key(&e2, "cat", &v) == 0 &&
		    e2.indexed == 1 && e2.wkdone == 3;
		T2("{\"a\":1,\"b\":2}");
		found = found && mct_get_key(&e2, "cat", &v) == -1 &&
		    e2.wkdone == 2 && mct_get_key(&e2, "b", &v) == 0;
		mct_buf_addc(&many, '{');
		for (k = 0; k < 130; k++)
			mct_buf_adds(&many, "\"k\":0,");
		mct_buf_adds(&many, "\"cat\":\"y\"}");
		mct_event_set(&e2, many.p, many.len);
		found = found && mct_get_key(&e2, "cat", &v) == 0 && v.len == 3 &&
		    e2.nkv == 131;
		ok(found, "mct_get_key: a well-known key with no slot is missing, "
		    "unless spelt with escapes or past slot 127");
#undef T2
		mct_event_free(&e2);
		mct_buf_free(&many);
	}
	{
		struct mct_field rel, end;

		mct_field_parse("rel", &rel);
		mct_field_parse("end", &end);
		ok(mct_get(&ev, &rel, &v) == -1 && mct_get(&ev, &end, &v) == -1,
		    "mct_get on a virtual field is missing (use mct_field_ns)");
		mct_field_free(&rel);
		mct_field_free(&end);
	}
	ok(mct_get_ns(&ev, "ts", &ns) == 0 && ns == 100, "mct_get_ns ts");
	ok(mct_get_ns(&ev, "f", &ns) == -1 && mct_get_ns(&ev, "name", &ns) == -1 &&
	    mct_get_ns(&ev, "big", &ns) == -1 && mct_get_ns(&ev, "x", &ns) == -1,
	    "mct_get_ns: a fraction, a string, beyond int64, missing are -1");
	h.facts.has_origin = 1;
	h.facts.origin = 40;
	t_field_ns(&ev, "ts", &h, 0, 100);
	t_field_ns(&ev, "dur", &h, 0, 50);
	t_field_ns(&ev, "rel", &h, 0, 60);
	t_field_ns(&ev, "end", &h, 0, 150);
	t_field_ns(&ev, "neg", &h, 0, -5);
	t_field_ns(&ev, "args.\"registers per thread\"", &h, 0, 64);
	t_field_ns(&ev, "name", &h, -1, 0);
	t_field_ns(&ev, "f", &h, -1, 0);
	t_field_ns(&ev, "missing", &h, -1, 0);
	h.facts.has_origin = 0;
	t_field_ns(&ev, "rel", &h, -1, 0);
	ok(!mct_is_header(&ev), "mct_is_header: an event is not the header");
	{
		struct mct_event m;

		/* a metadata event's ts (0) is no point on the timeline */
		h.facts.has_origin = 1;
		mct_event_init(&m, "{\"ph\":\"M\",\"ts\":100}", 19, &h);
		t_field_ns(&m, "rel", &h, -1, 0);
		t_field_ns(&m, "ts", &h, 0, 100);
		h.facts.has_origin = 0;
		mct_event_free(&m);
	}
	free(ev.kv);

	ev2.json = "{\"ts\":7,\"name\":\"n\"}";
	ev2.len = strlen(ev2.json);
	t_field_ns(&ev2, "end", &h, 0, 7);
	t_field_ns(&ev2, "dur", &h, -1, 0);
	free(ev2.kv);
	memset(&ev2, 0, sizeof(ev2));
	ev2.json = "{\"name\":\"mct_header\",\"ph\":\"M\",\"args\":{}}";
	ev2.len = strlen(ev2.json);
	ok(mct_is_header(&ev2), "mct_is_header: the header line");
	free(ev2.kv);
	memset(&ev2, 0, sizeof(ev2));
	ev2.json = "{\"name\":\"mct\\u005fheader\"}";
	ev2.len = strlen(ev2.json);
	ok(mct_is_header(&ev2), "mct_is_header: an escaped name");
	free(ev2.kv);
	/* an event whose key index is reused for another event */
	memset(&ev2, 0, sizeof(ev2));
	ev2.json = "{\"a\":1,\"b\":2,\"c\":3}";
	ev2.len = strlen(ev2.json);
	mct_get_key(&ev2, "c", &v);
	ev2.json = "{\"x\":\"y\"}";
	ev2.len = strlen(ev2.json);
	ev2.indexed = 0;
	ok(mct_get_key(&ev2, "c", &v) == -1 && mct_get_key(&ev2, "x", &v) == 0 &&
	    v.len == 3 && ev2.nkv == 1, "mct_get_key: a reset event is indexed "
	    "again (kv kept)");
	free(ev2.kv);
}

/*
 * A getter for the tests: the event's args.n as a time, or as text made
 * in the scratch buffer.
 */
int
get_args_n(struct mct_event *ev, const struct mct_header *h,
    struct mct_buf *b, struct mct_val *v, int64_t *ns)
{
	struct mct_field f;
	int rc;

	mct_field_parse("args.n", &f);
	rc = ns ? mct_field_ns(ev, &f, h, ns) : mct_get(ev, &f, v);
	mct_field_free(&f);
	if (rc == 0 && v != NULL) {
		b->len = 0;
		mct_buf_add(b, v->p, v->len);
		v->p = b->p;
	}
	return rc;
}

static mct_getter get_missing;

/* The table of virtual fields: its entries, their flags, a getter. */
void
test_vfields(void)
{
	static const struct {
		const char	*name;
		int		 time, point, virt;
	} want[] = {
		{ "ts", 1, MCT_P_ABS, 0 }, { "dur", 1, MCT_P_NONE, 0 },
		{ "rel", 1, MCT_P_REL, 1 }, { "end", 1, MCT_P_ABS, 1 },
		{ "category", 0, MCT_P_NONE, 1 },
		/* the tools' records' (records.c: main() registers them) */
		{ "latency", 1, MCT_P_NONE, 0 }, { "queue", 1, MCT_P_NONE, 0 },
		{ "launch.ts", 1, MCT_P_ABS, 0 }, { "launch.dur", 1, MCT_P_NONE, 0 },
		{ "span", 1, MCT_P_NONE, 0 }, { "busy", 1, MCT_P_NONE, 0 },
		{ "round", 1, MCT_P_NONE, 0 }, { "tdur", 1, MCT_P_NONE, 0 },
		{ "compute", 1, MCT_P_NONE, 0 }, { "skew", 1, MCT_P_NONE, 0 },
		{ "median.compute", 1, MCT_P_NONE, 0 },
		{ "wait", 1, MCT_P_NONE, 0 },
	};
	static const struct mct_vfield mine[] = {
		{ .name = "unit.rtime", .time = 1 },
		{ .name = "ts", .time = 0 },
	};
	static const char json[] = "{\"name\":\"k\",\"ts\":100,\"dur\":50,"
	    "\"args\":{\"n\":7}}";
	const struct mct_vfield *vf, *cat;
	struct mct_header h = { .facts.has_origin = 1, .facts.origin = 40 };
	struct mct_field f, g;
	struct mct_event ev;
	struct mct_buf k = { 0 };
	struct mct_val v;
	mct_getter *saved, *saved_other;
	int64_t ns;
	size_t i;

	for (i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		vf = mct_vfield(want[i].name);
		ok(vf != NULL && strcmp(vf->name, want[i].name) == 0 &&
		    vf->time == want[i].time && (int)vf->point == want[i].point &&
		    (vf->get != NULL) == want[i].virt, "vfields: %s is an "
		    "entry: time %d, point %d, %s", want[i].name, want[i].time,
		    want[i].point, want[i].virt ? "virtual" : "a path");
		mct_field_parse(want[i].name, &f);
		ok(f.vf == vf && mct_field_time(&f) == want[i].time &&
		    mct_field_virtual(&f) == want[i].virt &&
		    (f.nseg == 0) == want[i].virt, "vfields: the field %s "
		    "parses to its entry", want[i].name);
		mct_field_free(&f);
	}
	ok(mct_vfield("name") == NULL && mct_vfield("args.ts") == NULL &&
	    mct_vfield("launch") == NULL, "vfields: other names are no entry");
	/* times between two events: mct-group's default -a of them */
	for (i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		int between = strcmp(want[i].name, "latency") == 0 ||
		    strcmp(want[i].name, "queue") == 0 ||
		    strcmp(want[i].name, "skew") == 0;

		mct_field_parse(want[i].name, &f);
		ok(mct_field_between(&f) == between, "vfields: %s is %sa time "
		    "between events", want[i].name, between ? "" : "not ");
		mct_field_free(&f);
	}
	/* the walk over the table: every entry once, then NULL */
	for (i = 0; (vf = mct_vfield_at(i)) != NULL; i++)
		if (mct_vfield(vf->name) != vf)
			break;
	ok(vf == NULL && i >= sizeof(want) / sizeof(want[0]) &&
	    mct_vfield_at(0) == mct_vfield("ts"), "vfields: mct_vfield_at() "
	    "walks the table, %zu entries", i);

	mct_field_parse("launch.\"ts\"", &f);
	ok(f.vf == mct_vfield("launch.ts") && f.nseg == 2,
	    "vfields: launch.\"ts\" is the entry launch.ts");
	mct_field_free(&f);
	mct_field_parse("\"launch.ts\"", &f);
	ok(f.vf == NULL && f.nseg == 1, "vfields: \"launch.ts\" is one key "
	    "with a dot, no entry");
	mct_field_free(&f);
	mct_field_parse("\"rel\"", &f);
	ok(f.vf == NULL && f.nseg == 1 && !mct_field_virtual(&f),
	    "vfields: \"rel\" is the key rel, not the virtual field");
	mct_field_free(&f);
	mct_field_parse("launch.ts.x", &f);
	ok(f.vf == NULL && !mct_field_time(&f), "vfields: launch.ts.x is no "
	    "entry");
	mct_field_free(&f);

	ok(mct_field_register("ts", get_args_n, NULL) == -1 &&
	    mct_field_register("nope", get_args_n, NULL) == -1 &&
	    mct_vfield("ts")->get == NULL, "vfields: only a virtual field "
	    "takes a getter");

	/* a getter registered after the field was parsed is the one used */
	mct_event_init(&ev, json, sizeof(json) - 1, &h);
	cat = mct_vfield("category");
	saved = cat->get;
	saved_other = cat->other;
	mct_field_parse("category", &f);
	ok(mct_field_register("category", get_args_n, NULL) == 0 &&
	    mct_get(&ev, &f, &v) == 0 && v.type == MCT_J_NUMBER &&
	    v.len == 1 && v.p[0] == '7' && v.p == f.scratch->p,
	    "vfields: a registered getter gives category's value, made in "
	    "the field's scratch");
	ok(mct_field_key(&ev, &f, &h, &k) == 0 && k.len == 1 && k.p[0] == '7' &&
	    mct_field_ns(&ev, &f, &h, &ns) == 0 && ns == 7, "vfields: its "
	    "value as a key and as a number");
	k.len = 0;
	ok(mct_field_other(&ev, &f, &h, &k) == -1 && k.len == 0,
	    "vfields: no stand-in registered, none added to a key");
	/* a stand-in: what a group key holds for an event without the field */
	mct_field_register("category", get_missing, get_args_n);
	ok(mct_get(&ev, &f, &v) == -1 && mct_field_key(&ev, &f, &h, &k) == -1 &&
	    mct_field_other(&ev, &f, &h, &k) == 0 && k.len == 1 &&
	    k.p[0] == '7', "vfields: a registered stand-in goes to a key, the "
	    "field itself stays missing");
	mct_field_register("category", saved, saved_other);

	/* a virtual time: mct_field_ns and mct_field_key, not mct_get */
	mct_field_parse("end", &g);
	k.len = 0;
	ok(mct_field_ns(&ev, &g, &h, &ns) == 0 && ns == 150 &&
	    mct_get(&ev, &g, &v) == -1 && mct_field_key(&ev, &g, &h, &k) == 0 &&
	    k.len == 3 && memcmp(k.p, "150", 3) == 0, "vfields: end is 150 "
	    "as a time and as a key, missing for mct_get");
	mct_field_free(&g);
	mct_field_parse("rel", &g);
	ok(mct_field_ns(&ev, &g, &h, &ns) == 0 && ns == 60, "vfields: rel is "
	    "ts - origin");
	mct_field_free(&g);
	mct_field_parse("args.none", &g);
	k.len = 0;
	ok(mct_field_key(&ev, &g, &h, &k) == -1 && k.len == 0, "vfields: a "
	    "missing field adds nothing to a key");
	mct_field_free(&g);
	mct_field_free(&f);
	mct_event_free(&ev);
	mct_buf_free(&k);

	/* keys of a tool's records that hold times, registered */
	ok(mct_vfield("unit.rtime") == NULL, "vfields: a record's key is no "
	    "entry before it is registered");
	mct_field_times(mine, sizeof(mine) / sizeof(mine[0]));
	mct_field_times(mine, sizeof(mine) / sizeof(mine[0]));
	mct_field_parse("unit.\"rtime\"", &f);
	ok(mct_vfield("unit.rtime") == &mine[0] && f.vf == &mine[0] &&
	    mct_field_time(&f) && !mct_field_virtual(&f) && f.nseg == 2,
	    "vfields: a registered key is a time, a path matched segment by "
	    "segment");
	mct_field_free(&f);
	ok(mct_vfield("ts") != &mine[1] && mct_vfield("ts")->time == 1,
	    "vfields: a name already in the table stays as it is");
}

/* A getter for the tests: always missing. */
static int
get_missing(struct mct_event *ev, const struct mct_header *h,
    struct mct_buf *b, struct mct_val *v, int64_t *ns)
{
	(void)ev;
	(void)h;
	(void)b;
	(void)v;
	(void)ns;
	return -1;
}

/*
 * mct_get_times(): the walk of an event without an index gives what
 * mct_get_key() gives (the last of a key, escapes, values that are not
 * numbers), and is-meta as mct_is_meta().
 */
void
test_get_times(void)
{
	static const char *ev[] = {
		"{\"name\":\"k\",\"ph\":\"X\",\"ts\":10,\"dur\":5,\"args\":{\"ts\":1}}",
		"{\"ph\":\"M\",\"name\":\"process_name\",\"args\":{\"name\":\"a\"}}",
		"{\"ts\":1,\"dur\":2,\"ph\":\"X\",\"ts\":3}",
		"{\"ts\":1,\"ph\":\"X\",\"dur\":2,\"args\":{},\"t\\u0073\":9}",
		"{\"ph\":\"\\u004d\",\"ts\":\"7\",\"dur\":null}",
		"{\"ph\":\"C\",\"ts\":-4,\"dur\":1.5,\"name\":\"a\\\"b\"}",
		"{\"ph\":\"X\",\"dur\":2,\"ts\":99999999999999999999}",
		"{}",
		"{\"ph\":[\"M\"],\"ts\":1}",
	};
	struct mct_event a, b;
	struct mct_tdp x, y;
	size_t i;
	int bad = 0;

	for (i = 0; i < sizeof(ev) / sizeof(ev[0]); i++) {
		mct_event_init(&a, ev[i], strlen(ev[i]), NULL);
		mct_event_init(&b, ev[i], strlen(ev[i]), NULL);
		mct_get_times(&a, &x);		/* walked (the first, surely) */
		mct_event_index(&b);
		mct_get_times(&b, &y);		/* from the index */
		if (x.hasts != y.hasts || (x.hasts && x.ts != y.ts) ||
		    x.hasdur != y.hasdur || (x.hasdur && x.dur != y.dur) ||
		    x.ph.type != y.ph.type || x.meta != y.meta ||
		    x.meta != mct_is_meta(&b) || (i == 0 && a.indexed)) {
			diag("%s: walked ts %d %lld dur %d %lld ph %d meta %d; "
			    "indexed ts %d %lld dur %d %lld ph %d meta %d",
			    ESC(ev[i]), x.hasts, (long long)x.ts, x.hasdur,
			    (long long)x.dur, x.ph.type, x.meta, y.hasts,
			    (long long)y.ts, y.hasdur, (long long)y.dur,
			    y.ph.type, y.meta);
			bad++;
		}
		mct_event_free(&a);
		mct_event_free(&b);
	}
	ok(bad == 0, "field: mct_get_times() walked, without an index, as "
	    "mct_get_key() and mct_is_meta() answer (%zu events)",
	    sizeof(ev) / sizeof(ev[0]));
}

/*
 * mct_event_has_key(): where it says 0, mct_keep_last() of the event with
 * the keys added leaves the line as it is (so a tool may skip it).
 */
void
test_has_key(void)
{
	static const char *const names[] = { "launch", "op", NULL };
	static const struct {
		const char	*json;
		int		 want;
	} ev[] = {
		{ "{\"name\":\"k\",\"ts\":1}", 0 },
		{ "{\"name\":\"launch\",\"args\":{\"op\":1,\"launch\":2}}", 0 },
		{ "{\"launch\":1,\"ts\":1}", 1 },
		{ "{\"ts\":1,\"op\":null}", 1 },
		{ "{\"l\\u0061unch\":1}", 1 },		/* spelt with an escape */
		{ "{\"\\\"op\":1,\"x\":\"\\\"op\\\"\"}", 0 },
		{ "{\"op\":1", 1 },			/* not one object */
		{ "{\"a\":1,}", 1 },
		{ "{}", 0 },
	};
	struct mct_buf all = { 0 }, some = { 0 };
	struct mct_event e;
	size_t i, n;
	int bad = 0, got;

	for (i = 0; i < sizeof(ev) / sizeof(ev[0]); i++) {
		n = strlen(ev[i].json);
		mct_event_init(&e, ev[i].json, n, NULL);
		got = mct_event_has_key(&e, names);
		mct_event_free(&e);
		all.len = 0;
		mct_buf_add(&all, ev[i].json, n - 1);
		mct_buf_adds(&all, ",\"launch\":{\"name\":\"l\"},\"op\":\"o\"}");
		some.len = 0;
		mct_buf_add(&some, all.p, all.len);
		mct_keep_last(&all, 0, names);
		if (got)
			mct_keep_last(&some, 0, names);
		if (got != ev[i].want || all.len != some.len ||
		    memcmp(all.p, some.p, all.len) != 0) {
			diag("%s: has_key %d (want %d); %.*s against %.*s",
			    ESC(ev[i].json), got, ev[i].want, (int)all.len,
			    all.p, (int)some.len, some.p);
			bad++;
		}
	}
	ok(bad == 0, "field: mct_event_has_key() finds an own key of the names "
	    "(escaped too; 1 on a text not one object), and where it finds "
	    "none mct_keep_last() changes nothing (%zu events)",
	    sizeof(ev) / sizeof(ev[0]));
	mct_buf_free(&all);
	mct_buf_free(&some);
}

#define PAD	"0123456789012345678901234567890123456789" \
		"0123456789012345678901234567890123456789" \
		"0123456789012345678901234567890123456789"

/*
 * mct_obj_keys(): each key as mct_get() finds args.KEY, in one walk; with
 * any, the first one found alone.
 */
void
test_obj_keys(void)
{
	static const char *const keys[] = { "co_id", "correlation",
	    "External id", NULL };
	static const char *const ev[] = {
		"{\"args\":{\"co_id\":1}}",
		"{\"args\":{\"correlation\":2,\"co_id\":3,\"co_id\":4}}",
		"{\"args\":{\"x\":[1,{\"co_id\":9}],\"External id\":5,"
		    "\"correlation\":null}}",
		"{\"args\":{\"c\\u006f_id\":6,\"correlation\":\"a\\\"b\"}}",
		"{\"args\":{\"a\":1,\"co_id\"}}",	/* cut short */
		"{\"args\":{\"correlation\":7 \"co_id\":8}}",
		"{\"args\":\"{\\\"co_id\\\":1}\"}",
		"{\"args\":{}}",
		"{\"args\":[1]}",
		/* past 128 bytes: keys not quoted in the text are not walked
		 * for (the text without a backslash) */
		"{\"args\":{\"pad\":\"" PAD "\",\"x\":\"co_id\","
		    "\"External id\":5,\"correlation\":6,\"co_id\":7}}",
		"{\"args\":{\"pad\":\"" PAD "\",\"co_ids\":1,\"xco_id\":2,"
		    "\"y\":[\"co_id\",\"correlation\"]}}",
		"{\"args\":{\"pad\":\"" PAD "\",\"c\\u006f_id\":8}}",
		"{\"args\":{\"pad\":\"" PAD "\",\"co_id\":\"\\\"\"}}",
		"{\"args\":{\"pad\":\"" PAD "\"}}",
	};
	struct mct_field f[3];
	struct mct_val args, v[3], w;
	struct mct_event e;
	uint32_t m, one;
	size_t i;
	int k, bad = 0, rc;

	for (k = 0; k < 3; k++) {
		char path[64];

		snprintf(path, sizeof(path), "args.\"%s\"", keys[k]);
		mct_field_parse(path, &f[k]);
	}
	for (i = 0; i < sizeof(ev) / sizeof(ev[0]); i++) {
		mct_event_init(&e, ev[i], strlen(ev[i]), NULL);
		if (mct_get_key(&e, "args", &args) != 0) {
			bad++;
			continue;
		}
		m = mct_obj_keys(&args, keys, 0, v);
		for (k = 0; k < 3; k++) {
			rc = mct_get(&e, &f[k], &w);
			if ((rc == 0) != (int)(m >> k & 1) || (rc == 0 &&
			    (w.type != v[k].type || w.len != v[k].len ||
			    w.p != v[k].p)) || (rc != 0 &&
			    v[k].type != MCT_J_NONE)) {
				diag("%s: %s: mct_get %d, mct_obj_keys %d",
				    ESC(ev[i]), keys[k], rc, (int)(m >> k & 1));
				bad++;
			}
		}
		/* any: one of those found, the first in the object */
		one = mct_obj_keys(&args, keys, 1, v);
		if ((one == 0) != (m == 0) || (one & (one - 1)) != 0 ||
		    (one & ~m) != 0) {
			diag("%s: any gave %#x of %#x", ESC(ev[i]), one, m);
			bad++;
		}
		mct_event_free(&e);
	}
	for (k = 0; k < 3; k++)
		mct_field_free(&f[k]);
	ok(bad == 0, "field: mct_obj_keys() finds each key where mct_get() "
	    "of args.KEY does, in one walk (%zu objects)",
	    sizeof(ev) / sizeof(ev[0]));
}
