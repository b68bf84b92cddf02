/*
 * expr.c - the --where language, shared by mct-filter's options and the
 * rules file.
 *
 *   expr  := and ( "||" and )*
 *   and   := cond ( "&&" cond )*
 *   cond  := FIELD | !FIELD | FIELD OP VALUE | ( expr ) | !( expr )
 *                                               OP: == != < <= > >= ~ !~
 *
 * VALUE is a number, a time with a unit for time fields (dur>=1ms,
 * rel<26.57s, ts>=@1712195480123456789), a JSON string or array, or bare
 * text up to the next &&, || or a ) that closes nothing inside the text
 * (a group's end).  Numbers compare as numbers, also with a
 * string field that holds one ("pid":"2"); a bare FIELD holds when the
 * event has it, !FIELD when it has not; an array also matches a string
 * listing the same items in parentheses ("(2056, 32, 1)"), as tracers
 * write dim3 values; ~ and !~ match a POSIX extended regular expression
 * against the field's text.  A missing field makes every comparison
 * false except !=, and !~.
 */
#include "config.h"

#include <ctype.h>
#include <err.h>
#include <regex.h>
#include <stdlib.h>
#include <string.h>

#include "mct.h"

enum { OP_EXISTS, OP_MISSING, OP_EQ, OP_NE, OP_LT, OP_LE, OP_GT, OP_GE,
    OP_RE, OP_NRE, OP_GROUP, OP_NOTGROUP };

struct mct_cond {
	struct mct_field f;
	int		 op;
	char		*text;		/* the value, unquoted */
	size_t		 len;
	int		 isnum;		/* the value is a number */
	mct_i128	 num;		/* ... times 10^6 */
	int		 istime;	/* the field is a time; value in ns */
	int64_t		 ns;
	int		 abs;		/* @: an absolute time */
	char		*tuple;		/* an array value, as "a,b,c" */
	struct mct_re	 re;
	int		 hasre;
	struct mct_expr	*sub;		/* ( expr ): a group */
};

struct mct_and {
	struct mct_cond	*c;
	int		 n;
};

struct mct_expr {
	struct mct_and	*a;
	int		 n;
	char		*text;
	struct mct_buf	*tmp;		/* scratch of mct_expr_eval() */
};

/* "[2056, 32, 1]" or "(2056, 32, 1)" as "2056,32,1"; NULL if not a tuple. */
static char *
tuple(const char *s, size_t n)
{
	char *t, *w;
	size_t i;

	if (n < 2 || !((s[0] == '[' && s[n - 1] == ']') ||
	    (s[0] == '(' && s[n - 1] == ')')))
		return NULL;
	t = w = mct_xmalloc(n + 1);
	for (i = 1; i + 1 < n; i++)
		if (!isspace((unsigned char)s[i]))
			*w++ = s[i];
	*w = '\0';
	return t;
}

static const char *
skipsp(const char *p)
{
	while (*p == ' ' || *p == '\t')
		p++;
	return p;
}

/* Where a bare word or value ends: &&, ||, or a ) that closes nothing. */
static int
word_end(const char *q, int *depth)
{
	if (strncmp(q, "&&", 2) == 0 || strncmp(q, "||", 2) == 0)
		return 1;
	if (*q == '(')
		++*depth;
	else if (*q == ')' && (*depth)-- == 0)
		return 1;
	return 0;
}

#define MAXDEPTH	64	/* groups inside groups */

static struct mct_expr *parse_or(const char **, const char *, int, int,
    char *, size_t, size_t *);
static void re_free(struct mct_re *);

static void
free_cond(struct mct_cond *c)
{
	mct_expr_free(c->sub);
	mct_field_free(&c->f);
	free(c->text);
	free(c->tuple);
	if (c->hasre)
		re_free(&c->re);
}

/*
 * Parse one condition at *pp (of the text s); on error return -1 with a
 * message in err and in *at the offset in s where it goes wrong.
 */
static int
parse_cond(const char **pp, const char *s, struct mct_cond *c, char *err,
    size_t errlen, size_t *at, int cflags, int level)
{
	static const struct { const char *s; int op; } ops[] = {
		{ "==", OP_EQ }, { "!=", OP_NE }, { "<=", OP_LE }, { ">=", OP_GE },
		{ "!~", OP_NRE }, { "<", OP_LT }, { ">", OP_GT }, { "~", OP_RE },
		{ "=", OP_EQ },
	};
	const char *p = skipsp(*pp), *q;
	struct mct_buf b = { 0 };
	size_t i;
	int rc, inq = 0, not = 0, depth = 0;

	memset(c, 0, sizeof(*c));
	if (*p == '!') {
		not = 1;	/* !FIELD: the event lacks it */
		p = skipsp(p + 1);
	}
	if (*p == '(') {	/* a group */
		c->op = not ? OP_NOTGROUP : OP_GROUP;
		if (level >= MAXDEPTH) {
			snprintf(err, errlen, "groups nested deeper than %d",
			    MAXDEPTH);
			*at = (size_t)(p - s);
			return -1;
		}
		p++;
		if ((c->sub = parse_or(&p, s, level + 1, cflags, err, errlen,
		    at)) == NULL)
			return -1;
		if (*(p = skipsp(p)) != ')') {
			snprintf(err, errlen, "a ')' is missing");
			*at = (size_t)(p - s);
			mct_expr_free(c->sub);
			c->sub = NULL;
			return -1;
		}
		*pp = p + 1;
		return 0;
	}
	/* the field: up to an operator, && or || (quotes may hold anything) */
	for (q = p; *q; q++) {
		/* a quote opens a segment only at its start, as in a field;
		 * inside, \" is a quote of the key (as mct_field_parse reads it) */
		if (inq && *q == '\\' && q[1] != '\0') {
			q++;
			continue;
		}
		if (*q == '"' && (inq || q == p || q[-1] == '.'))
			inq = !inq;
		if (!inq && (strchr("=!<>~ \t", *q) || word_end(q, &depth)))
			break;
	}
	mct_buf_add(&b, p, (size_t)(q - p));
	*at = (size_t)(p - s);
	if (b.len == 0) {
		snprintf(err, errlen, "a field is missing");
		goto bad;
	}
	if (mct_field_parse(b.p, &c->f) != 0) {
		snprintf(err, errlen, "invalid field '%s'", b.p);
		goto bad;
	}
	p = skipsp(q);
	c->op = OP_EXISTS;
	for (i = 0; i < sizeof(ops) / sizeof(ops[0]); i++)
		if (strncmp(p, ops[i].s, strlen(ops[i].s)) == 0) {
			c->op = ops[i].op;
			p += strlen(ops[i].s);
			break;
		}
	if (not && c->op != OP_EXISTS) {
		snprintf(err, errlen, "! goes only before a bare field");
		goto bad;
	}
	if (c->op == OP_EXISTS) {
		depth = 0;
		if (*p && !word_end(p, &depth)) {
			snprintf(err, errlen, "unknown operator at '%s' (want "
			    "== != < <= > >= ~ !~)", p);
			*at = (size_t)(p - s);
			goto bad;
		}
		if (not)
			c->op = OP_MISSING;
		*pp = p;
		mct_buf_free(&b);
		return 0;
	}
	/* the value */
	p = skipsp(p);
	*at = (size_t)(p - s);
	b.len = 0;
	if (*p == '"') {
		struct mct_val v = { MCT_J_STRING, p, 0 };

		for (q = p + 1; *q && *q != '"'; q++)
			if (*q == '\\' && q[1])
				q++;
		if (*q != '"') {
			snprintf(err, errlen, "unterminated string");
			goto bad;
		}
		v.len = (size_t)(q + 1 - p);
		mct_jstr(&v, &b);
		q++;
	} else {
		depth = 0;
		for (q = p; *q && !word_end(q, &depth); q++)
			;
		while (q > p && (q[-1] == ' ' || q[-1] == '\t'))
			q--;
		mct_buf_add(&b, p, (size_t)(q - p));
		if (b.len == 0) {
			snprintf(err, errlen, "a value is missing after the "
			    "operator");
			goto bad;
		}
		if (*p == '>' || *p == '<' || *p == '=' || *p == '~') {
			snprintf(err, errlen, "invalid operator before '%s'", p);
			goto bad;
		}
		c->isnum = mct_dec_e6(b.p, b.len, &c->num) == 0;
		c->tuple = tuple(b.p, b.len);
		if (mct_field_time(&c->f) && c->op != OP_RE && c->op != OP_NRE) {
			int abs = 0, point = c->f.vf->point != MCT_P_NONE;

			if (mct_parse_time(b.p, &c->ns, &abs) != 0 ||
			    (abs && !point)) {
				snprintf(err, errlen, "invalid time '%s' for %s "
				    "(want e.g. 26.5s, 300us, 1.5ms%s)", b.p,
				    c->f.text, point ? ", @123" : "");
				goto bad;
			}
			c->istime = 1;
			c->abs = abs;
		}
	}
	if (c->op == OP_RE || c->op == OP_NRE) {
		if ((rc = mct_regcomp(&c->re, b.p ? b.p : "",
		    REG_EXTENDED | REG_NOSUB | cflags)) != 0) {
			char msg[256];

			regerror(rc, &c->re.re, msg, sizeof(msg));
			snprintf(err, errlen, "invalid regular expression '%s': %s",
			    b.p ? b.p : "", msg);
			goto bad;
		}
		c->hasre = 1;
	} else if (c->op >= OP_LT && c->op <= OP_GE && !c->isnum && !c->istime) {
		/* strings compare by bytes; allowed, but say nothing */
	}
	c->text = b.p ? b.p : mct_xstrdup("");
	c->len = b.len;
	*pp = q;
	return 0;
bad:
	mct_buf_free(&b);
	free_cond(c);
	memset(c, 0, sizeof(*c));
	return -1;
}

/*
 * expr at *pp, up to the end of the text or a ) or whatever else no
 * condition takes: the caller says what may follow.
 */
static struct mct_expr *
parse_or(const char **pp, const char *s, int level, int cflags, char *err,
    size_t errlen, size_t *at)
{
	struct mct_expr *e;
	const char *p = *pp;
	struct mct_and *a;

	e = mct_xmalloc(sizeof(*e));
	memset(e, 0, sizeof(*e));
	for (;;) {
		e->a = mct_xrealloc(e->a, (size_t)(e->n + 1) * sizeof(*e->a));
		a = &e->a[e->n++];
		memset(a, 0, sizeof(*a));
		for (;;) {
			a->c = mct_xrealloc(a->c, (size_t)(a->n + 1) * sizeof(*a->c));
			*at = (size_t)(skipsp(p) - s);
			if (parse_cond(&p, s, &a->c[a->n], err, errlen, at,
			    cflags, level) != 0) {
				mct_expr_free(e);
				return NULL;
			}
			a->n++;
			p = skipsp(p);
			if (strncmp(p, "&&", 2) != 0)
				break;
			p += 2;
		}
		if (strncmp(p, "||", 2) != 0)
			break;
		p += 2;
	}
	*pp = p;
	return e;
}

/*
 * Parse an expression.  Returns it, or NULL with a message in err.
 * cflags are extra regcomp(3) flags (REG_ICASE).
 */
struct mct_expr *
mct_expr_parse(const char *s, int cflags, char *err, size_t errlen)
{
	size_t at;

	return mct_expr_parse_at(s, cflags, err, errlen, &at);
}

/*
 * The same, and on an error in *at the offset in s of the condition (or
 * the text) that could not be read: the place to show the user.
 */
struct mct_expr *
mct_expr_parse_at(const char *s, int cflags, char *err, size_t errlen,
    size_t *at)
{
	struct mct_expr *e;
	const char *p = s;

	if ((e = parse_or(&p, s, 0, cflags, err, errlen, at)) == NULL)
		return NULL;
	if (*(p = skipsp(p)) != '\0') {
		*at = (size_t)(p - s);
		snprintf(err, errlen, *p == ')' ? "a ')' without its '('" :
		    "unexpected text '%s'", p);
		mct_expr_free(e);
		return NULL;
	}
	e->text = mct_xstrdup(s);
	e->tmp = mct_xmalloc(sizeof(*e->tmp));
	memset(e->tmp, 0, sizeof(*e->tmp));
	return e;
}

void
mct_expr_free(struct mct_expr *e)
{
	int i, j;

	if (e == NULL)
		return;
	for (i = 0; i < e->n; i++) {
		for (j = 0; j < e->a[i].n; j++)
			free_cond(&e->a[i].c[j]);
		free(e->a[i].c);
	}
	free(e->a);
	free(e->text);
	if (e->tmp)		/* a group's is its expression's */
		mct_buf_free(e->tmp);
	free(e->tmp);
	free(e);
}

/*
 * The text every match of the ERE pat begins with, when pat is anchored
 * at the start and begins with plain characters ("^ProfilerStep#[0-9]":
 * "ProfilerStep#"; its last one left out where a duplication symbol or
 * a bound follows it, "^ab*": "a"), in *n; NULL when there is none to
 * be sure of: no ^ first, an alternation (alt: a | outside brackets and
 * escapes, as mct_regcomp() reads them), case ignored, or a line mode.
 * Plain is printable ASCII outside .[]()*+?{}|\^$: a byte of a string
 * is then that character.
 */
static char *
re_prefix(const char *pat, int cflags, int alt, size_t *n)
{
	char *lit;
	size_t k;

	*n = 0;
	if (alt || (cflags & (REG_ICASE | REG_NEWLINE)) || pat[0] != '^')
		return NULL;
	for (k = 1; pat[k] >= 0x20 && pat[k] < 0x7f &&
	    strchr(".[]()*+?{}|\\^$", pat[k]) == NULL; k++)
		;
	if (pat[k] != '\0' && strchr("*+?{", pat[k]) != NULL)
		k--;
	if (k <= 1)
		return NULL;
	*n = k - 1;
	lit = mct_xmalloc(k);
	memcpy(lit, pat + 1, k - 1);
	lit[k - 1] = '\0';
	return lit;
}

/* Does s match re?  (A string not beginning with its text cannot.) */
int
mct_regmatch(const struct mct_re *re, const char *s)
{
	if (re->nlit > 0 && strncmp(s, re->lit, re->nlit) != 0)
		return 0;
	return regexec(&re->re, s, 0, NULL, 0) == 0;
}

static void
re_free(struct mct_re *re)
{
	regfree(&re->re);
	free(re->lit);
	re->lit = NULL;
	re->nlit = 0;
}

/*
 * regcomp(3) for POSIX extended regular expressions, with one defence:
 * runs of duplication symbols (a+++, a**, a+?*), which POSIX leaves
 * undefined and glibc expands into trees that grow exponentially, are
 * cut to their first symbol.  Returns regcomp's code; on success the
 * text a match begins with, if any, is known (mct_regmatch()).
 */
int
mct_regcomp(struct mct_re *rx, const char *pat, int cflags)
{
	regex_t *re = &rx->re;
	struct mct_buf b = { 0 };
	const char *p;
	int rc, inbr = 0, alt = 0;

	for (p = pat; *p; p++) {
		if (*p == '\\' && p[1] && !inbr) {
			mct_buf_addc(&b, *p++);
			mct_buf_addc(&b, *p);
			continue;
		}
		if (*p == '[' && !inbr) {
			inbr = 1;
			mct_buf_addc(&b, *p);
			if (p[1] == '^')
				mct_buf_addc(&b, *++p);
			if (p[1] == ']')
				mct_buf_addc(&b, *++p);
			continue;
		}
		if (*p == ']' && inbr)
			inbr = 0;
		else if (*p == '|' && !inbr)
			alt = 1;
		if (!inbr && strchr("*+?", *p) && b.len > 0 &&
		    strchr("*+?", b.p[b.len - 1]) &&
		    !(b.len > 1 && b.p[b.len - 2] == '\\'))
			continue;	/* a second duplication symbol */
		mct_buf_addc(&b, *p);
	}
	rc = regcomp(re, b.p ? b.p : "", cflags);
	mct_buf_free(&b);
	rx->nlit = 0;
	rx->lit = rc == 0 ? re_prefix(pat, cflags, alt, &rx->nlit) : NULL;
	return rc;
}

/* Visit every field an expression reads (for the rules' cache). */
void
mct_expr_fields(const struct mct_expr *e,
    void (*fn)(const struct mct_field *, void *), void *arg)
{
	int i, j;

	for (i = 0; i < e->n; i++)
		for (j = 0; j < e->a[i].n; j++)
			if (e->a[i].c[j].sub)
				mct_expr_fields(e->a[i].c[j].sub, fn, arg);
			else
				fn(&e->a[i].c[j].f, arg);
}

/*
 * Does e read the field of this text only for whether an event has it
 * (FIELD, !FIELD), never for its value?  1 if so, or if e never reads it.
 */
int
mct_expr_presence_only(const struct mct_expr *e, const char *text)
{
	const struct mct_cond *c;
	int i, j;

	for (i = 0; i < e->n; i++)
		for (j = 0; j < e->a[i].n; j++) {
			c = &e->a[i].c[j];
			if (c->sub) {
				if (!mct_expr_presence_only(c->sub, text))
					return 0;
			} else if (strcmp(c->f.text, text) == 0 &&
			    c->op != OP_EXISTS && c->op != OP_MISSING)
				return 0;
		}
	return 1;
}

/* Has the event the field, as FIELD in an expression asks? */
int
mct_expr_has(struct mct_event *ev, const struct mct_field *f,
    const struct mct_header *h)
{
	struct mct_val v;
	int64_t ns;

	return mct_field_time(f) ? mct_field_ns(ev, f, h, &ns) == 0 :
	    mct_get(ev, f, &v) == 0;
}

static int
cmp_i128(mct_i128 a, mct_i128 b)
{
	return a < b ? -1 : a > b;
}

static int
cmp_bytes(const char *a, size_t an, const char *b, size_t bn)
{
	int r = memcmp(a, b, an < bn ? an : bn);

	if (r)
		return r < 0 ? -1 : 1;
	return an < bn ? -1 : an > bn;
}

static int
test_cmp(int op, int r)
{
	switch (op) {
	case OP_EQ: return r == 0;
	case OP_NE: return r != 0;
	case OP_LT: return r < 0;
	case OP_LE: return r <= 0;
	case OP_GT: return r > 0;
	default: return r >= 0;
	}
}

static int eval_or(const struct mct_expr *, struct mct_event *,
    const struct mct_header *, struct mct_buf *);

static int
eval_cond(const struct mct_cond *c, struct mct_event *ev,
    const struct mct_header *h, struct mct_buf *tmp)
{
	struct mct_val v;
	mct_i128 num;
	int64_t ns, want, o;
	char *t;
	int r;

	if (c->sub)
		return eval_or(c->sub, ev, h, tmp) == (c->op == OP_GROUP);
	if (c->op == OP_EXISTS || c->op == OP_MISSING) {
		int has = mct_expr_has(ev, &c->f, h);

		return c->op == OP_EXISTS ? has : !has;
	}
	if (c->hasre && mct_field_time(&c->f)) {
		/* ~ on a time: the regex against its ns text */
		char buf[32];

		if (mct_field_ns(ev, &c->f, h, &ns) != 0)
			return c->op == OP_NRE;
		snprintf(buf, sizeof(buf), "%lld", (long long)ns);
		r = mct_regmatch(&c->re, buf);
		return c->op == OP_RE ? r : !r;
	}
	if (c->istime) {
		if (mct_field_ns(ev, &c->f, h, &ns) != 0)
			return c->op == OP_NE;
		want = c->ns;
		o = h->facts.has_origin ? h->facts.origin : 0;
		if (c->f.vf->point == MCT_P_ABS && !c->abs &&	/* ts<=5s: origin + 5s */
		    __builtin_add_overflow(want, o, &want))
			return c->op == OP_NE;
		if (c->f.vf->point == MCT_P_REL && c->abs &&	/* rel<=@T: T - origin */
		    __builtin_sub_overflow(want, o, &want))
			return c->op == OP_NE;
		return test_cmp(c->op, ns < want ? -1 : ns > want);
	}
	if (mct_get(ev, &c->f, &v) != 0)
		return c->op == OP_NE || c->op == OP_NRE;
	if (c->op == OP_EXISTS)
		return 1;
	tmp->len = 0;
	mct_jstr(&v, tmp);
	if (tmp->p == NULL)
		mct_buf_addc(tmp, '\0'), tmp->len = 0;
	if (c->hasre) {
		r = mct_regmatch(&c->re, tmp->p);
		return c->op == OP_RE ? r : !r;
	}
	if (c->isnum && (v.type == MCT_J_NUMBER || v.type == MCT_J_STRING) &&
	    mct_dec_e6(tmp->p, tmp->len, &num) == 0)
		return test_cmp(c->op, cmp_i128(num, c->num));
	if (c->tuple && (v.type == MCT_J_ARRAY || v.type == MCT_J_STRING) &&
	    (t = tuple(tmp->p, tmp->len)) != NULL) {
		r = strcmp(t, c->tuple);
		free(t);
		return test_cmp(c->op, r < 0 ? -1 : r > 0);
	}
	return test_cmp(c->op, cmp_bytes(tmp->p, tmp->len, c->text, c->len));
}

#define EXPR_TMP_KEEP	(1 << 20)	/* scratch an expression keeps */

/*
 * Does the event satisfy the expression?  The expression holds its own
 * scratch: two expressions evaluate at once, one expression once at a
 * time.
 */
int
mct_expr_eval(const struct mct_expr *e, struct mct_event *ev,
    const struct mct_header *h)
{
	int r = eval_or(e, ev, h, e->tmp);

	/*
	 * Scratch grown for a huge value goes back: a rules file is dozens
	 * of expressions, each with its own, and a name of 100 MB would
	 * otherwise stay in every one of them.
	 */
	if (e->tmp->cap > EXPR_TMP_KEEP)
		mct_buf_free(e->tmp);
	return r;
}

/* An expr or a group of one, with the scratch of its whole expression. */
static int
eval_or(const struct mct_expr *e, struct mct_event *ev,
    const struct mct_header *h, struct mct_buf *tmp)
{
	int i, j, r = 0;

	for (i = 0; i < e->n && !r; i++) {
		for (j = 0; j < e->a[i].n; j++)
			if (!eval_cond(&e->a[i].c[j], ev, h, tmp))
				break;
		r = j == e->a[i].n;
	}
	return r;
}
