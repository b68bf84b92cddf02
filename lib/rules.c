/*
 * rules.c - the rules file: LABEL<TAB>PREDICATE, one rule a line, first
 * match wins, # comments.  It gives every event the virtual field
 * `category`.
 *
 * A rule whose label is - gives the events it matches no category.
 *
 * The rules are loaded once, on first use, from --rules FILE, else
 * $MCT_RULES, else $(pkgdatadir)/default.rules, else data/default.rules
 * beside the tools of a build tree, else in the source tree they were
 * built from.  mct_rules_reset() forgets them (a program that loads
 * several rules files, such as the fuzz target, calls it between).
 *
 * An event's label depends only on the fields the rules read, so labels
 * are cached under the values of those fields, virtual ones included (a
 * field the rules only test for, !args.co_id, under whether the event
 * has it): classifying 225,852 events costs a few hundred regexec()
 * calls.
 *
 * The getter of category, and its stand-in (other) in a group key, are
 * registered in field.c's table when rules are loaded, so field.c never
 * calls up here.  Nothing here exits: a
 * rules file that cannot be loaded is a message and -1, and a tool that
 * reads category calls mct_rules_need() first and exits on its failure.
 */
#include "config.h"

#include <err.h>
#include <limits.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mct.h"

#ifndef MCT_PKGDATADIR
#define MCT_PKGDATADIR "/usr/local/share/mct"
#endif

#define CACHE_MAX	(1 << 16)	/* distinct keys remembered */

struct rule {
	char		*label;		/* as a JSON string, quotes included */
	struct mct_expr	*e;
};

static const char category[] = "category";

static struct {
	const char	*path;		/* --rules */
	int		 loaded;
	int		 failed;	/* said why it could not load */
	struct rule	*r;
	int		 n;
	struct mct_field *keys;		/* fields the rules read */
	char		*has;		/* per key: read only for whether an
					   event has it (then keyed by that) */
	int		 nkeys;
	struct mct_map	 cache;		/* key text -> rule index, -1: none */
	struct mct_buf	 kbuf;
	unsigned	 gen;		/* mct_rules_reset()s so far */
} rules;

static int rule_of(struct mct_event *, const struct mct_header *);
static int rule_of_locked(struct mct_event *, const struct mct_header *);

void
mct_rules_path(const char *path)
{
	rules.path = path;
}

static void
add_key(const struct mct_field *f, void *arg)
{
	int i;

	(void)arg;
	for (i = 0; i < rules.nkeys; i++)
		if (strcmp(rules.keys[i].text, f->text) == 0)
			return;
	rules.keys = mct_xrealloc(rules.keys,
	    (size_t)(rules.nkeys + 1) * sizeof(*rules.keys));
	if (mct_field_parse(f->text, &rules.keys[rules.nkeys]) == 0)
		rules.nkeys++;
}

/*
 * Forget the rules loaded and the labels cached: the next lookup loads
 * again (from --rules, $MCT_RULES or the default, as on first use).
 */
void
mct_rules_reset(void)
{
	int j;

	for (j = 0; j < rules.n; j++) {
		free(rules.r[j].label);
		mct_expr_free(rules.r[j].e);
	}
	free(rules.r);
	rules.r = NULL;
	rules.n = 0;
	for (j = 0; j < rules.nkeys; j++)
		mct_field_free(&rules.keys[j]);
	free(rules.keys);
	rules.keys = NULL;
	free(rules.has);
	rules.has = NULL;
	rules.nkeys = 0;
	mct_map_free(&rules.cache);
	mct_buf_free(&rules.kbuf);
	rules.loaded = 0;
	rules.failed = 0;
	rules.gen++;	/* (the rules each event knows are the old ones) */
}

/* The getter of category in field.c's table. */
static int
get_category(struct mct_event *ev, const struct mct_header *h,
    struct mct_buf *b, struct mct_val *v, int64_t *ns)
{
	const char *label;

	(void)b;
	(void)ns;
	if ((label = mct_category(ev, h)) == NULL)
		return -1;
	v->type = MCT_J_STRING;
	v->p = label;
	v->len = strlen(label);
	return 0;
}

/*
 * category's stand-in in a group key: (other) where no rule matched (as
 * opposed to a rule whose label is -), so that the shares of a category
 * table add up.
 */
static int
get_other(struct mct_event *ev, const struct mct_header *h,
    struct mct_buf *b, struct mct_val *v, int64_t *ns)
{
	static const char other[] = "\"" MCT_OTHER "\"";

	(void)b;
	(void)ns;
	if (rule_of(ev, h) != -1)
		return -1;
	v->type = MCT_J_STRING;
	v->p = other;
	v->len = sizeof(other) - 1;
	return 0;
}

/* Do the fields read category (and so need the rules)? */
int
mct_rules_fields(const struct mct_field *f, int n)
{
	const struct mct_vfield *cat = mct_vfield(category);
	int i;

	for (i = 0; i < n; i++)
		if (f[i].vf == cat)
			return 1;
	return 0;
}

static void
expr_field(const struct mct_field *f, void *arg)
{
	if (mct_rules_fields(f, 1))
		*(int *)arg = 1;
}

/* Does the expression (or NULL) read category? */
int
mct_rules_expr(const struct mct_expr *e)
{
	int uses = 0;

	if (e != NULL)
		mct_expr_fields(e, expr_field, &uses);
	return uses;
}

/*
 * Load a rules file in place of any rules loaded before.  Returns 0, or
 * -1 after a message naming the file and line (the caller exits with
 * MCT_EXIT_USAGE); then no rules are loaded.
 */
int
mct_rules_load(const char *path)
{
	struct mct_buf lbl = { 0 };
	char *line = NULL, err[512], *tab;
	size_t cap = 0;
	ssize_t n;
	FILE *f;
	int lineno = 0, rv = 0, i, j;

	mct_rules_reset();
	mct_field_register(category, get_category, get_other);
	if ((f = fopen(path, "r")) == NULL) {
		warn("rules file %s", path);
		return -1;
	}
	while ((n = getline(&line, &cap, f)) != -1) {
		lineno++;
		while (n > 0 && (line[n - 1] == '\n' || line[n - 1] == '\r'))
			line[--n] = '\0';
		if (n == 0 || line[strspn(line, " \t")] == '#' ||
		    line[strspn(line, " \t")] == '\0')
			continue;
		if ((tab = strchr(line, '\t')) == NULL || tab == line) {
			warnx("%s:%d: want LABEL<TAB>PREDICATE", path, lineno);
			rv = -1;
			break;
		}
		*tab++ = '\0';
		rules.r = mct_xrealloc(rules.r,
		    (size_t)(rules.n + 1) * sizeof(*rules.r));
		if ((rules.r[rules.n].e = mct_expr_parse(tab + strspn(tab, "\t"),
		    0, err, sizeof(err))) == NULL) {
			warnx("%s:%d: %s", path, lineno, err);
			rv = -1;
			break;
		}
		lbl.len = 0;
		mct_buf_addjstr(&lbl, line, strlen(line));
		rules.r[rules.n].label = strcmp(line, "-") == 0 ? NULL :
		    mct_xstrdup(lbl.p);
		mct_expr_fields(rules.r[rules.n].e, add_key, NULL);
		rules.n++;
	}
	if (ferror(f)) {
		warn("rules file %s", path);
		rv = -1;
	}
	if (mct_rules_fields(rules.keys, rules.nkeys)) {
		warnx("%s: a rule cannot use the field category", path);
		rv = -1;
	}
	fclose(f);
	free(line);
	mct_buf_free(&lbl);
	if (rv != 0) {
		mct_rules_reset();
		return rv;
	}
	/*
	 * A field the rules test only for presence (!args.co_id) keys the
	 * cache by that alone: its values may be as many as the events.
	 */
	rules.has = mct_xmalloc((size_t)rules.nkeys + 1);
	for (i = 0; i < rules.nkeys; i++)
		for (rules.has[i] = 1, j = 0; j < rules.n && rules.has[i]; j++)
			rules.has[i] = (char)mct_expr_presence_only(rules.r[j].e,
			    rules.keys[i].text);
	rules.loaded = 1;
	return 0;
}

/*
 * Find and load the rules in use.  Returns 0, or -1 after a message if
 * there are none (said once: a failure is remembered until a reset).
 */
static int
load(void)
{
	char exe[PATH_MAX], *slash;
	const char *path = rules.path, *env;
	struct mct_buf b = { 0 };
	ssize_t n;
	int rv;

	if (rules.loaded)	/* every event asks: nothing before this */
		return 0;
	if (rules.failed)
		return -1;
	env = getenv("MCT_RULES");
	if (path == NULL && env != NULL && *env != '\0')
		path = env;
	if (path == NULL) {
		mct_buf_adds(&b, MCT_PKGDATADIR "/default.rules");
		if (access(b.p, R_OK) != 0 &&
		    (n = readlink("/proc/self/exe", exe, sizeof(exe) - 1)) > 0) {
			exe[n] = '\0';
			if ((slash = strrchr(exe, '/')) != NULL)
				*slash = '\0';
			b.len = 0;
			mct_buf_adds(&b, exe);
			mct_buf_adds(&b, "/../data/default.rules");
#ifdef MCT_SRCDATADIR
			if (access(b.p, R_OK) != 0) {
				b.len = 0;
				mct_buf_adds(&b, MCT_SRCDATADIR "/default.rules");
			}
#endif
			if (access(b.p, R_OK) != 0) {
				warnx("no rules file: not in " MCT_PKGDATADIR
				    " nor beside %s (use --rules FILE)", exe);
				mct_buf_free(&b);
				rules.failed = 1;
				return -1;
			}
		}
		path = b.p;
	}
	rv = mct_rules_load(path);
	mct_buf_free(&b);
	rules.failed = rv != 0;
	return rv;
}

/*
 * Load the rules now, so that a bad rules file is an error before any
 * output.  Returns 0, or -1 after a message (the tool exits with
 * MCT_EXIT_USAGE).
 */
int
mct_rules_need(void)
{
	return load();
}

static int
classify(struct mct_event *ev, const struct mct_header *h)
{
	int i;

	for (i = 0; i < rules.n; i++)
		if (mct_expr_eval(rules.r[i].e, ev, h))
			return i;
	return -1;
}

/*
 * The index of the rule the event matches, -1 for none, -2 if no rules.
 * The rules' scratch and cache are shared: one thread at a time (a tool
 * may ask in the reader's threads, mct_edit()).
 */
static int
rule_of(struct mct_event *ev, const struct mct_header *h)
{
	static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
	int r;

	/*
	 * Once an event: its --where tests, tables and filters ask again
	 * (the event's own, as its index: nothing shared to lock).
	 */
	if (ev->indexed && ev->hdr == h && ev->rulegen == rules.gen + 1)
		return ev->rule;
	pthread_mutex_lock(&mu);
	r = rule_of_locked(ev, h);
	pthread_mutex_unlock(&mu);
	if (ev->indexed) {
		ev->rule = r;
		ev->rulegen = rules.gen + 1;
	}
	return r;
}

static int
rule_of_locked(struct mct_event *ev, const struct mct_header *h)
{
	struct mct_buf *k = &rules.kbuf;
	struct mct_mapent *c;
	int i, r;

	if (load() != 0)
		return -2;
	k->len = 0;
	for (i = 0; i < rules.nkeys; i++) {
		if (rules.has[i])
			mct_buf_addc(k, mct_expr_has(ev, &rules.keys[i], h) ?
			    '1' : '0');
		else
			mct_field_key(ev, &rules.keys[i], h, k);
		mct_buf_addc(k, '\037');
	}
	if (k->p == NULL)	/* the rules read no field */
		mct_buf_addc(k, '\037');
	if ((c = mct_map_find(&rules.cache, k->p, k->len)) != NULL)
		return (int)c->val.i;
	/* not seen: classify, and remember */
	r = classify(ev, h);
	if (rules.cache.n < CACHE_MAX)
		mct_map_add(&rules.cache, k->p, k->len, NULL)->val.i = r;
	return r;
}

/*
 * The category of an event, as a JSON string with its quotes, or NULL if
 * no rule matches (or no rules could be loaded).
 */
const char *
mct_category(struct mct_event *ev, const struct mct_header *h)
{
	int r = rule_of(ev, h);

	return r < 0 ? NULL : rules.r[r].label;
}
