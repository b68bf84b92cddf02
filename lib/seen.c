/*
 * seen.c - the fields a user named that no event had: a misspelled
 * --by nmae gives an empty table and exit 0, so say it on stderr at the
 * end, with the nearest field the input did have.
 *
 * The cost stays off the hot path: once every watched field has been
 * found, mct_seen_event() is one comparison.  Until then it looks the
 * missing fields up, and notes the paths the event has (its keys and
 * their keys one level down) in a map, for the first MAXSAMPLE events
 * that lack one, so a misspelling costs a bounded amount.
 */
#include "config.h"

#include <err.h>
#include <stdlib.h>
#include <string.h>

#include "mct_private.h"

#define MAXSAMPLE	4096	/* events whose paths are noted */
#define MAXPATHS	4096	/* distinct paths kept */
#define DEPTH		3	/* levels of an event's paths noted */

/*
 * Watch field f, named by option what (a string that outlives s); virtual
 * fields, which every event has, are not watched.
 */
void
mct_seen_add(struct mct_seen *s, const struct mct_field *f, const char *what)
{
	if (mct_field_virtual(f) || f->nseg == 0)
		return;
	s->f = mct_xrealloc(s->f, (size_t)(s->nf + 1) * sizeof(*s->f));
	s->what = mct_xrealloc(s->what, (size_t)(s->nf + 1) * sizeof(*s->what));
	s->found = mct_xrealloc(s->found, (size_t)(s->nf + 1));
	s->what[s->nf] = what;
	s->f[s->nf] = f;
	s->found[s->nf++] = 0;
	s->nleft++;
}

struct where_watch {
	struct mct_seen	*s, *own;
	const char	*what;
};

static void
where_field(const struct mct_field *f, void *arg)
{
	static const char *const own[] = { "name", "cat", "ph", "ts", "tts",
	    "dur", "tdur", "pid", "tid", "id", "id2", "bp", "s", "scope",
	    "cname", "args", "rank", NULL };
	struct where_watch *w = arg;
	int i;

	for (i = 0; own[i] != NULL; i++)
		if (f->nseg == 1 && strcmp(f->text, own[i]) == 0)
			break;
	mct_seen_add(own[i] != NULL ? w->own : w->s, f, w->what);
}

/*
 * Watch the fields of a --where expression e, named by option what.  One
 * that no event has made a selection that was not meant (a misspelling:
 * args.grd), so it goes to s, whose misses the tool makes an error (exit
 * 2); a key of the trace format's own that no event has (dur in a trace
 * of instants) goes to own, only warned of.
 */
void
mct_seen_where(struct mct_seen *s, struct mct_seen *own,
    const struct mct_expr *e, const char *what)
{
	struct where_watch w = { s, own, what };

	mct_expr_fields(e, where_field, &w);
}

/* A key as a path segment: quoted unless it is a plain word. */
static void
segment(struct mct_buf *b, const char *k, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!(k[i] == '_' || (k[i] >= '0' && k[i] <= '9') ||
		    (k[i] >= 'a' && k[i] <= 'z') ||
		    (k[i] >= 'A' && k[i] <= 'Z')))
			break;
	if (i == n && n > 0) {
		mct_buf_add(b, k, n);
		return;
	}
	mct_buf_addc(b, '"');
	mct_buf_add(b, k, n);
	mct_buf_addc(b, '"');
}

static void
note(struct mct_seen *s, const char *p, size_t n)
{
	int isnew;

	if (s->paths.n < MAXPATHS)
		mct_map_add(&s->paths, p, n, &isnew);
}

/*
 * Note the paths of the object json (under the path in s->tmp, of
 * prefix bytes): its keys, and its objects' keys to DEPTH levels in all
 * (metrics."utilization.gpu".mean).
 */
static void
walk(struct mct_seen *s, size_t prefix, const char *json, size_t len,
    int depth)
{
	struct mct_kv *kv = NULL;
	int nkv, cap = 0, i;

	if (mct_index(json, len, &kv, &nkv, &cap) < 0)
		nkv = 0;
	for (i = 0; i < nkv; i++) {
		s->tmp.len = prefix;
		if (prefix > 0)
			mct_buf_addc(&s->tmp, '.');
		segment(&s->tmp, json + kv[i].koff, kv[i].klen);
		note(s, s->tmp.p, s->tmp.len);
		if (depth > 1 && json[kv[i].voff] == '{')
			walk(s, s->tmp.len, json + kv[i].voff, kv[i].vlen,
			    depth - 1);
	}
	free(kv);
}

/* Note the event's paths. */
static void
sample(struct mct_seen *s, struct mct_event *ev)
{
	walk(s, 0, ev->json, ev->len, DEPTH);
}

/* An event the tool read: are the watched fields in it? */
void
mct_seen_event(struct mct_seen *s, struct mct_event *ev)
{
	struct mct_val v;
	int i;

	s->events++;
	if (s->nleft == 0)
		return;
	for (i = 0; i < s->nf; i++)
		if (!s->found[i] && mct_get(ev, s->f[i], &v) == 0) {
			s->found[i] = 1;
			s->nleft--;
		}
	if (s->nleft > 0 && s->sampled < MAXSAMPLE) {
		s->sampled++;
		sample(s, ev);
	}
}

/* Levenshtein distance, two rows. */
static size_t
distance(const char *a, size_t n, const char *b, size_t m)
{
	size_t *row, i, j, prev, cur, d;

	row = mct_xmalloc((m + 1) * sizeof(*row));
	for (j = 0; j <= m; j++)
		row[j] = j;
	for (i = 1; i <= n; i++) {
		prev = row[0];
		row[0] = i;
		for (j = 1; j <= m; j++) {
			cur = row[j];
			d = prev + (a[i - 1] != b[j - 1]);
			if (row[j] + 1 < d)
				d = row[j] + 1;
			if (row[j - 1] + 1 < d)
				d = row[j - 1] + 1;
			row[j] = d;
			prev = cur;
		}
	}
	d = row[m];
	free(row);
	return d;
}

/* Is a distance d from a name of n bytes a misspelling of it? */
static int
near(size_t d, size_t n)
{
	return d <= (n / 3 > 2 ? n / 3 : 2);
}

/*
 * Of the n names in cand, the nearest to name if it is near enough to be
 * a misspelling, else NULL.
 */
const char *
mct_nearest(const char *name, const char *const *cand, int n)
{
	size_t d, bd = 0, len = strlen(name);
	int i, best = -1;

	for (i = 0; i < n; i++) {
		d = distance(name, len, cand[i], strlen(cand[i]));
		if (best < 0 || d < bd) {
			best = i;
			bd = d;
		}
	}
	return best >= 0 && near(bd, len) ? cand[best] : NULL;
}

/*
 * The end of the input: warn of each watched field no event had (when
 * there were events), naming its option and the nearest path seen or
 * virtual field.  Returns how many were said (a tool for which a missing
 * field is an error exits 2 on it).
 * Frees what s holds.
 */
int
mct_seen_end(struct mct_seen *s)
{
	const struct mct_mapent *e;
	const struct mct_vfield *vf;
	const char *best;
	size_t it, d, bd, n;
	int i, missing = 0;

	for (i = 0; i < s->nf && s->events > 0; i++) {
		if (s->found[i])
			continue;
		missing++;
		n = strlen(s->f[i]->text);
		best = NULL;
		bd = 0;
		for (it = 0; (e = mct_map_next(&s->paths, &it)) != NULL; ) {
			d = distance(s->f[i]->text, n, e->key, e->len);
			if (best == NULL || d < bd) {
				best = e->key;
				bd = d;
			}
		}
		/* then the virtual fields, which every event has */
		for (it = 0; (vf = mct_vfield_at(it)) != NULL; it++) {
			if (vf->get == NULL)
				continue;
			d = distance(s->f[i]->text, n, vf->name, strlen(vf->name));
			if (best == NULL || d < bd) {
				best = vf->name;
				bd = d;
			}
		}
		if (best != NULL && near(bd, n))
			warnx("%s: no event has the field '%s' (did you mean "
			    "'%s'?)", s->what[i], s->f[i]->text, best);
		else
			warnx("%s: no event has the field '%s'", s->what[i],
			    s->f[i]->text);
	}
	free(s->f);
	free(s->what);
	free(s->found);
	mct_map_free(&s->paths);
	mct_buf_free(&s->tmp);
	memset(s, 0, sizeof(*s));
	return missing;
}
