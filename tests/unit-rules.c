/*
 * unit-rules.c - rules.c: loading, replacing, failing, resetting; rules and
 * the table of virtual fields.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mct.h"
#include "unit.h"

/* Call fn(arg) with stderr caught; its message in msg. */
struct call {
	int		(*fn)(const char *);
	const char	*arg;
	int		 rc;
};

static void
call_run(void *arg)
{
	struct call *c = arg;

	c->rc = c->fn(c->arg);
}

static int
caught(int (*fn)(const char *), const char *arg, char *msg, size_t cap)
{
	struct call c = { fn, arg, 0 };

	quietly(call_run, &c, msg, cap);
	return c.rc;
}

/* Load a rules file with stderr caught; its message in msg. */
static int
rules_load(const char *path, char *msg, size_t cap)
{
	return caught(mct_rules_load, path, msg, cap);
}

/* The category of a compact event under an empty header, or "(none)". */
static const char *
cat_of(const char *json)
{
	static struct mct_header h;
	struct mct_event ev = { 0 };
	static char out[128];
	const char *c;

	ev.json = json;
	ev.len = strlen(json);
	ev.file = "unit";
	ev.hdr = &h;
	ev.byline = 1;
	c = mct_category(&ev, &h);
	snprintf(out, sizeof(out), "%s", c ? c : "(none)");
	free(ev.kv);
	return out;
}

void
test_rules(void)
{
	static const char a[] = "{\"name\":\"a\",\"ph\":\"X\",\"ts\":1,\"dur\":5}";
	static const char b[] = "{\"name\":\"b\",\"ph\":\"X\",\"ts\":1,\"dur\":2000}";
	static const char m[] = "{\"name\":\"a\",\"ph\":\"M\",\"ts\":0}";
	const char *p1, *p2, *bad, *cat;
	char msg[1024];
	int rc;

	p1 = TFILE("one.rules", "# first match wins\n"
	    "\n-\tph==M\nA\tname==a\nlong one\tdur>=1us\n");
	p2 = TFILE("two.rules", "B\tname==b\n");
	bad = TFILE("bad.rules", "A\tname==a\nB\tdur>>3\n");
	cat = TFILE("cat.rules", "A\tcategory==x\n");

	rc = rules_load(p1, msg, sizeof(msg));
	ok(rc == 0 && msg[0] == '\0', "rules: a file loads");
	ok(strcmp(cat_of(a), "\"A\"") == 0, "rules: the first rule that "
	    "matches gives the label");
	ok(strcmp(cat_of(b), "\"long one\"") == 0, "rules: a label with a "
	    "blank; a duration in a predicate");
	ok(strcmp(cat_of(m), "(none)") == 0, "rules: the label - gives no "
	    "category, before a later rule that matches");
	ok(strcmp(cat_of(a), "\"A\"") == 0, "rules: the cached label is the "
	    "same");

	rc = rules_load(p2, msg, sizeof(msg));
	ok(rc == 0 && strcmp(cat_of(b), "\"B\"") == 0 &&
	    strcmp(cat_of(a), "(none)") == 0, "rules: a second file replaces "
	    "the first (cached labels too)");

	rc = rules_load(bad, msg, sizeof(msg));
	ok(rc == -1 && strstr(msg, "bad.rules:2: ") != NULL, "rules: a bad "
	    "predicate is reported with its file and line (%s)", msg);
	rc = rules_load(p2, msg, sizeof(msg));
	ok(rc == 0 && strcmp(cat_of(b), "\"B\"") == 0 &&
	    strcmp(cat_of(a), "(none)") == 0, "rules: after a failed load, "
	    "nothing of it is left and a good file loads");

	rc = rules_load(cat, msg, sizeof(msg));
	ok(rc == -1 && strstr(msg, "cannot use the field category") != NULL,
	    "rules: a rule on category is refused (%s)", msg);
	rc = rules_load(p1, msg, sizeof(msg));
	ok(rc == 0 && strcmp(cat_of(a), "\"A\"") == 0, "rules: and the next "
	    "load works");

	rc = rules_load("/nonexistent/x.rules", msg, sizeof(msg));
	ok(rc == -1 && strstr(msg, "/nonexistent/x.rules") != NULL,
	    "rules: a missing file is named (%s)", msg);

	/*
	 * A field tested only for presence keys the cache by presence (its
	 * values may be one an event); one also compared, by its value.
	 */
	rc = rules_load(TFILE("has.rules", "G\tname==k && !args.co\n"
	    "H\tname==k\nY\targs.v == 3\nX\targs.v\n"), msg, sizeof(msg));
	ok(rc == 0 &&
	    strcmp(cat_of("{\"name\":\"k\",\"args\":{\"co\":1}}"), "\"H\"") == 0 &&
	    strcmp(cat_of("{\"name\":\"k\"}"), "\"G\"") == 0 &&
	    strcmp(cat_of("{\"name\":\"k\",\"args\":{\"co\":2}}"), "\"H\"") == 0 &&
	    strcmp(cat_of("{\"name\":\"k\",\"args\":{\"co\":null}}"), "\"H\"") == 0,
	    "rules: !FIELD: the label by whether the event has the field");
	ok(strcmp(cat_of("{\"name\":\"j\",\"args\":{\"v\":3}}"), "\"Y\"") == 0 &&
	    strcmp(cat_of("{\"name\":\"j\",\"args\":{\"v\":4}}"), "\"X\"") == 0 &&
	    strcmp(cat_of("{\"name\":\"j\",\"args\":{\"v\":3}}"), "\"Y\"") == 0,
	    "rules: a field both tested and compared: the label by its value");

	/* mct_rules_reset(): the next lookup loads $MCT_RULES again */
	rc = rules_load(p1, msg, sizeof(msg));
	mct_rules_reset();
	setenv("MCT_RULES", p2, 1);
	ok(rc == 0 && strcmp(cat_of(b), "\"B\"") == 0, "rules: after "
	    "mct_rules_reset() the next lookup loads $MCT_RULES");
	unsetenv("MCT_RULES");
	mct_rules_reset();
}

static int
need(const char *unused)
{
	(void)unused;
	return mct_rules_need();
}

static const char *
label_of(struct mct_event *ev, const struct mct_field *f, const char *json)
{
	static char out[128];
	struct mct_val v;

	mct_event_set(ev, json, strlen(json));
	if (mct_get(ev, f, &v) != 0)
		return "(none)";
	snprintf(out, sizeof(out), "%.*s", (int)v.len, v.p);
	return out;
}

/* Rules and the table of virtual fields. */
void
test_rules_vfields(void)
{
	static const struct mct_header h = {
		.facts.has_origin = 1, .facts.origin = 1000
	};
	const char *rel, *end, *p1;
	struct mct_field cat, endf;
	struct mct_expr *e;
	struct mct_event ev;
	mct_getter *saved;
	char msg[1024], err[256];
	int rc;

	p1 = TFILE("vf1.rules", "A\tname==a\n");
	rel = TFILE("rel.rules", "early\trel<10\nlate\trel>=10\n");
	end = TFILE("end.rules", "short\tend<10\nlong\tend>=10\n");
	mct_event_init(&ev, "{}", 2, &h);

	/* a field parsed before any rules are loaded works once they are */
	mct_rules_reset();
	mct_field_parse("category", &cat);
	rc = rules_load(p1, msg, sizeof(msg));
	ok(rc == 0 && strcmp(label_of(&ev, &cat, "{\"name\":\"a\"}"),
	    "\"A\"") == 0 && strcmp(label_of(&ev, &cat, "{\"name\":\"b\"}"),
	    "(none)") == 0, "rules: category parsed before the rules loaded "
	    "reads their label");

	/*
	 * An event keeps its label once asked (rule_of()): asked again it
	 * is the same, of the rules now loaded and of the event's text now.
	 */
	{
		struct mct_event k;
		struct mct_val v1, v2, v3;
		const char *p2 = TFILE("vf2.rules",
		    "Y\tname==q\nZ\tname==a\n");

		mct_event_init(&k, "{\"name\":\"a\"}", 12, &h);
		rc = mct_get(&k, &cat, &v1) != 0 || mct_get(&k, &cat, &v2) != 0 ||
		    v1.len != 3 || memcmp(v1.p, "\"A\"", 3) != 0 ||
		    v2.p != v1.p;
		rc |= rules_load(p2, msg, sizeof(msg)) != 0 ||
		    mct_get(&k, &cat, &v3) != 0 || v3.len != 3 ||
		    memcmp(v3.p, "\"Z\"", 3) != 0;
		mct_event_set(&k, "{\"name\":\"b\"}", 12);
		rc |= mct_get(&k, &cat, &v3) == 0;
		ok(rc == 0, "rules: an event's label asked twice is the same; "
		    "after another rules file, that file's; after its text "
		    "changed, of the new text");
		mct_event_free(&k);
		rc = rules_load(p1, msg, sizeof(msg));
	}

	/* a rule on a virtual field: a label per value, not one cached */
	rc = rules_load(rel, msg, sizeof(msg));
	ok(rc == 0 &&
	    strcmp(label_of(&ev, &cat, "{\"name\":\"k\",\"ts\":1005}"),
	    "\"early\"") == 0 &&
	    strcmp(label_of(&ev, &cat, "{\"name\":\"k\",\"ts\":1050}"),
	    "\"late\"") == 0 &&
	    strcmp(label_of(&ev, &cat, "{\"name\":\"k\",\"ts\":1005}"),
	    "\"early\"") == 0, "rules: a rule on rel caches a label per "
	    "value of rel");
	rc = rules_load(end, msg, sizeof(msg));
	mct_field_parse("end", &endf);
	saved = endf.vf->get;
	/* end's getter replaced: args.n, so ts and dur stay the same
	 * (end<10 is end < origin + 10, 1010) */
	mct_field_register("end", get_args_n, NULL);
	ok(rc == 0 &&
	    strcmp(label_of(&ev, &cat, "{\"ts\":1,\"args\":{\"n\":5}}"),
	    "\"short\"") == 0 &&
	    strcmp(label_of(&ev, &cat, "{\"ts\":1,\"args\":{\"n\":5000}}"),
	    "\"long\"") == 0 &&
	    strcmp(label_of(&ev, &cat, "{\"ts\":1,\"args\":{\"n\":5}}"),
	    "\"short\"") == 0, "rules: the cache keys a virtual field "
	    "through its getter");
	mct_field_register("end", saved, NULL);
	mct_field_free(&endf);

	/* which fields and expressions need the rules */
	e = mct_expr_parse("name==a || category==x", 0, err, sizeof(err));
	ok(mct_rules_fields(&cat, 1) && e && mct_rules_expr(e) &&
	    !mct_rules_expr(NULL), "rules: category and an expression on it "
	    "need the rules");
	mct_expr_free(e);
	e = mct_expr_parse("name==a && rel>1s", 0, err, sizeof(err));
	ok(e && !mct_rules_expr(e), "rules: an expression without category "
	    "does not");
	mct_expr_free(e);

	/* no exit: mct_rules_need() says why and returns -1, once */
	mct_rules_reset();
	setenv("MCT_RULES", "/nonexistent/z.rules", 1);
	rc = caught(need, NULL, msg, sizeof(msg));
	ok(rc == -1 && strstr(msg, "rules file /nonexistent/z.rules") != NULL,
	    "rules: mct_rules_need() returns -1 after the message (%s)", msg);
	rc = caught(need, NULL, msg, sizeof(msg));
	ok(rc == -1 && msg[0] == '\0' &&
	    strcmp(label_of(&ev, &cat, "{\"name\":\"a\"}"), "(none)") == 0,
	    "rules: then no second message, and no category");
	unsetenv("MCT_RULES");
	mct_rules_reset();
	mct_field_free(&cat);
	mct_event_free(&ev);
}
