/*
 * field.c - field paths and their values in one event.
 *
 * A field is a dotted path into the event (name, args.grid, launch.name),
 * where a segment with spaces or dots is quoted (args."registers per
 * thread"), or a virtual field: rel (ts - origin), end (ts + dur),
 * category (the label the rules give the event) and rank (the event's
 * rank: mct_event_rank()).
 *
 * One table, vfields[], says what is special about a field: the virtual
 * fields with their getters, and the event's keys that hold times (ts
 * and dur).  The layers above add to it and name nothing here: rules.c
 * registers the getter of category (and its stand-in in a group key),
 * the tools the keys of their own records that hold times, or bytes and
 * counts (mct_field_times()), so this file calls nothing above it.
 */
#include "config.h"

#include <err.h>
#include <stdlib.h>
#include <string.h>

#include "mct_private.h"

static mct_getter get_rel, get_end, get_none, get_rank, get_short;

/*
 * The fields with a meaning beyond their path.  An entry with a getter is
 * a virtual field, written exactly as its name; one without is a path
 * into the record (ts, launch.ts), matched segment by segment.  A new
 * virtual field is one line here and its getter.  category's getter and
 * stand-in are rules.c's, registered; short is the name, readable.
 */
static struct mct_vfield vfields[] = {
	/* name		time	point		getter		stand-in  between look */
	{ "ts",		1,	MCT_P_ABS,	NULL,		NULL,	  0,	  0 },
	{ "dur",	1,	MCT_P_NONE,	NULL,		NULL,	  0,	  0 },
	{ "rel",	1,	MCT_P_REL,	get_rel,	NULL,	  0,	  0 },
	{ "end",	1,	MCT_P_ABS,	get_end,	NULL,	  0,	  0 },
	{ "category",	0,	MCT_P_NONE,	get_none,	NULL,	  0,	  0 },
	{ "rank",	0,	MCT_P_NONE,	get_rank,	NULL,	  0,	  0 },
	{ "short",	0,	MCT_P_NONE,	get_short,	NULL,	  0,	  0 },
};

#define NVFIELDS	(sizeof(vfields) / sizeof(vfields[0]))

/* Then the keys of records that hold times, as the tools register them. */
static const struct mct_vfield **times;
static size_t ntimes;

/* The virtual field of that name, or NULL. */
static struct mct_vfield *
find_virtual(const char *name)
{
	size_t i;

	for (i = 0; i < NVFIELDS; i++)
		if (vfields[i].get != NULL && strcmp(vfields[i].name, name) == 0)
			return &vfields[i];
	return NULL;
}

/* Entry i of the table: vfields[], then the keys registered; or NULL. */
const struct mct_vfield *
mct_vfield_at(size_t i)
{
	if (i < NVFIELDS)
		return &vfields[i];
	return i - NVFIELDS < ntimes ? times[i - NVFIELDS] : NULL;
}

/* The table's entry of that name, or NULL. */
const struct mct_vfield *
mct_vfield(const char *name)
{
	const struct mct_vfield *vf;
	size_t i;

	for (i = 0; (vf = mct_vfield_at(i)) != NULL; i++)
		if (strcmp(vf->name, name) == 0)
			return vf;
	return NULL;
}

/*
 * Give a virtual field of the table its getter (the layer that computes
 * it calls this before it is read), and the stand-in a group key holds
 * for an event without the field (other, or NULL: none).  Returns 0, or
 * -1 if there is no such virtual field.
 */
int
mct_field_register(const char *name, mct_getter *get, mct_getter *other)
{
	struct mct_vfield *vf;

	if ((vf = find_virtual(name)) == NULL)
		return -1;
	vf->get = get;
	vf->other = other;
	return 0;
}

/*
 * Add the n keys of v to the table: paths into a tool's records that hold
 * times, so that they take units on the command line and --time-unit
 * scales them in every tool that reads those records; or that hold
 * bytes or counts (look), written for people in a human table by the tool
 * that registers them.  A tool registers them at start-up, before it
 * parses a field; v is its for good.  A name already in the table is left
 * as it is.
 */
void
mct_field_times(const struct mct_vfield *v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (mct_vfield(v[i].name) != NULL)
			continue;
		times = mct_xrealloc(times, (ntimes + 1) * sizeof(*times));
		times[ntimes++] = &v[i];
	}
}

/* Is the field a time in ns? */
int
mct_field_time(const struct mct_field *f)
{
	return f->vf != NULL && f->vf->time;
}

/* Is the field a time between two events (a latency), not busy time? */
int
mct_field_between(const struct mct_field *f)
{
	return f->vf != NULL && f->vf->between;
}

/* Is the field computed by a getter, not a path into the event? */
int
mct_field_virtual(const struct mct_field *f)
{
	return f->vf != NULL && f->vf->get != NULL;
}

/* Do the path's segments spell the name (a.b.c), one part each? */
static int
spells(const struct mct_field *f, const char *name)
{
	size_t n;
	int i;

	for (i = 0; i < f->nseg; i++) {
		n = strcspn(name, ".");
		if (n != f->seglen[i] || memcmp(name, f->seg[i], n) != 0 ||
		    (name[n] == '\0') != (i + 1 == f->nseg))
			return 0;
		name += n + 1;
	}
	return 1;
}

static void
add_seg(struct mct_field *f, const char *s, size_t n)
{
	f->seg = mct_xrealloc(f->seg, (size_t)(f->nseg + 1) * sizeof(*f->seg));
	f->seglen = mct_xrealloc(f->seglen,
	    (size_t)(f->nseg + 1) * sizeof(*f->seglen));
	f->seg[f->nseg] = mct_xmalloc(n + 1);
	memcpy(f->seg[f->nseg], s, n);
	f->seg[f->nseg][n] = '\0';
	f->seglen[f->nseg] = n;
	f->nseg++;
}

/* Parse one field.  Returns 0, or -1 (with f cleared) if malformed. */
int
mct_field_parse(const char *text, struct mct_field *f)
{
	const struct mct_vfield *vf;
	struct mct_buf b = { 0 };
	const char *p = text;
	size_t i;

	memset(f, 0, sizeof(*f));
	f->text = mct_xstrdup(text);
	if ((f->vf = find_virtual(text)) != NULL) {
		f->scratch = mct_xmalloc(sizeof(*f->scratch));
		memset(f->scratch, 0, sizeof(*f->scratch));
		return 0;
	}
	while (*p) {
		b.len = 0;
		if (*p == '"') {
			for (p++; *p && *p != '"'; p++) {
				if (*p == '\\' && p[1])
					p++;
				mct_buf_addc(&b, *p);
			}
			if (*p != '"')
				goto bad;
			p++;
		} else
			for (; *p && *p != '.'; p++)
				mct_buf_addc(&b, *p);
		if (b.len == 0)
			goto bad;
		add_seg(f, b.p, b.len);
		if (*p == '.') {
			p++;
			if (*p == '\0')
				goto bad;
		} else if (*p)
			goto bad;
	}
	mct_buf_free(&b);
	if (f->nseg == 0)
		goto bad2;
	for (i = 0; (vf = mct_vfield_at(i)) != NULL; i++)
		if (vf->get == NULL && spells(f, vf->name)) {
			f->vf = vf;
			break;
		}
	return 0;
bad:
	mct_buf_free(&b);
bad2:
	mct_field_free(f);
	return -1;
}

/* A comma-separated list of fields (commas inside quotes do not split). */
int
mct_fields_parse(const char *list, struct mct_field **fp, int *np)
{
	struct mct_buf one = { 0 };
	const char *p = list;
	int q = 0;

	*fp = NULL;
	*np = 0;
	for (;;) {
		if (*p == '"')
			q = !q;
		else if (*p == '\\' && q && p[1] != '\0') {
			mct_buf_addc(&one, *p++);	/* an escaped character */
			mct_buf_addc(&one, *p++);
			continue;
		}
		if ((*p == ',' && !q) || *p == '\0') {
			*fp = mct_xrealloc(*fp, (size_t)(*np + 1) * sizeof(**fp));
			if (mct_field_parse(one.p ? one.p : "", &(*fp)[*np]) != 0) {
				mct_buf_free(&one);
				return -1;
			}
			(*np)++;
			one.len = 0;
			if (one.p)
				one.p[0] = '\0';
			if (*p == '\0')
				break;
		} else
			mct_buf_addc(&one, *p);
		p++;
	}
	mct_buf_free(&one);
	return 0;
}

void
mct_field_free(struct mct_field *f)
{
	int i;

	for (i = 0; i < f->nseg; i++)
		free(f->seg[i]);
	free(f->seg);
	free(f->seglen);
	free(f->text);
	if (f->scratch != NULL) {
		mct_buf_free(f->scratch);
		free(f->scratch);
	}
	memset(f, 0, sizeof(*f));
}

static int
keyeq(const char *k, size_t klen, const char *want, size_t n)
{
	struct mct_val v;

	if (klen == n && memcmp(k, want, n) == 0)
		return 1;
	if (klen <= n || memchr(k, '\\', klen) == NULL)
		return 0;
	v.type = MCT_J_STRING;
	v.p = k - 1;
	v.len = klen + 2;
	return mct_jstr_eq(&v, want, n);
}

/* Does the text key (k bytes) stand quoted in p[0..n), p[0] not a quote? */
static int
quoted_in(const char *p, size_t n, const char *key, size_t k)
{
	const char *q, *end = p + n;

	if (k == 0)
		return 1;
	for (q = p + 1; (q = memmem(q, (size_t)(end - q), key, k)) != NULL;
	    q += k)
		if (q[-1] == '"' && q + k < end && q[k] == '"')
			return 1;
	return 0;
}

/* Might the compact object p[0..n) hold a key of names twice? */
static int
maybe_twice(const char *p, size_t n, const char *const *names)
{
	const char *q, *end = p + n;
	size_t k;
	int seen;

	if (memchr(p, '\\', n) != NULL)	/* a key may be spelt with escapes */
		return 1;
	for (; *names != NULL; names++) {
		k = strlen(*names);
		seen = 0;
		for (q = p + 1; (q = memmem(q, (size_t)(end - q), *names, k)) != NULL;
		    q += k)
			if (q[-1] == '"' && q + k < end && q[k] == '"' &&
			    ++seen == 2)
				return 1;
	}
	return 0;
}

/* Does a later key of kv[0..nkv) stand for kv[i], one of names? */
static int
overruled(const char *p, const struct mct_kv *kv, int nkv, int i,
    const char *const *names)
{
	int j, w;

	for (w = 0; names[w] != NULL; w++)
		if (keyeq(p + kv[i].koff, kv[i].klen, names[w],
		    strlen(names[w])))
			break;
	for (j = i + 1; names[w] != NULL && j < nkv; j++)
		if (keyeq(p + kv[j].koff, kv[j].klen, names[w],
		    strlen(names[w])))
			return 1;
	return 0;
}

/*
 * b->p[from..b->len): one compact object, an event's own keys and after
 * them the keys a tool added.  A first-level key of names (NULL-ended)
 * that it holds more than once is kept once: the last, the tool's (its
 * value, where it stands), the value jq and mct_get_key() read.  The
 * other keys are left as they were; an object with no such key twice is
 * not written again.
 */
void
mct_keep_last(struct mct_buf *b, size_t from, const char *const *names)
{
	struct mct_kv *kv = NULL;
	struct mct_buf out = { 0 };
	const char *p = b->p + from;
	size_t n = b->len - from;
	int nkv = 0, cap = 0, i, first = 1;

	if (!maybe_twice(p, n, names) || mct_index(p, n, &kv, &nkv, &cap) < 0)
		goto done;
	for (i = 0; i < nkv && !overruled(p, kv, nkv, i, names); i++)
		;
	if (i == nkv)
		goto done;	/* (an escape, or a name in a value, only) */
	mct_buf_addc(&out, '{');
	for (i = 0; i < nkv; i++) {
		if (overruled(p, kv, nkv, i, names))
			continue;	/* a later one stands for it */
		if (!first)
			mct_buf_addc(&out, ',');
		first = 0;
		mct_buf_add(&out, p + kv[i].koff - 1,
		    kv[i].voff + kv[i].vlen - (kv[i].koff - 1));
	}
	mct_buf_addc(&out, '}');
	b->len = from;
	mct_buf_add(b, out.p, out.len);
	mct_buf_free(&out);
done:
	free(kv);
}

static inline void
setval(struct mct_val *v, const char *p, size_t n)
{
	v->p = p;
	v->len = n;
	switch (n ? *p : 0) {
	case '"': v->type = MCT_J_STRING; break;
	case '{': v->type = MCT_J_OBJECT; break;
	case '[': v->type = MCT_J_ARRAY; break;
	case 't': case 'f': v->type = MCT_J_BOOL; break;
	case 'n': v->type = MCT_J_NULL; break;
	case 0: v->type = MCT_J_NONE; break;
	default: v->type = MCT_J_NUMBER;
	}
}

/* Find key in the compact object text p[0..n). */
static int
obj_get(const char *p, size_t n, const char *key, size_t klen,
    struct mct_val *v)
{
	const char *end = p + n, *k, *vp;

	if (n < 2 || *p != '{')
		return -1;
	p++;
	while (p < end && *p == '"') {
		k = p + 1;
		mct_skip(p, end, &p);
		if (p >= end || *p != ':')
			return -1;
		vp = ++p;
		mct_skip(p, end, &p);
		if (keyeq(k, (size_t)(vp - 2 - k), key, klen)) {
			setval(v, vp, (size_t)(p - vp));
			return 0;
		}
		if (p < end && *p == ',')
			p++;
	}
	return -1;
}

/*
 * The keys (NULL-ended, at most 32) of the object value obj, each as
 * mct_get() finds the path obj.KEY (its first occurrence): in vals[i],
 * in one walk of obj instead of one a key.  The walk stops once all are
 * found, or with any, at the first one found.  Returns the set of those
 * found, key i as bit i.
 */
uint32_t
mct_obj_keys(const struct mct_val *obj, const char *const *keys, int any,
    struct mct_val *vals)
{
	const char *p = obj->p, *end = obj->p + obj->len, *k, *vp;
	uint32_t found = 0, all = 0;
	size_t klen[32];
	int i, n, plain;

	for (n = 0; n < 32 && keys[n] != NULL; n++) {	/* (past 32: unasked) */
		klen[n] = strlen(keys[n]);
		vals[n].type = MCT_J_NONE;
		vals[n].p = NULL;
		vals[n].len = 0;
	}
	if (obj->len < 2 || *p != '{')
		return 0;
	/*
	 * With no backslash in it a key stands in it as its text quoted:
	 * one whose text does not (a memmem() where the walk skips every
	 * value: worth it past a few keys, as Kineto's args of an op) is
	 * not looked for, and if none does, nothing is walked.
	 */
	plain = obj->len >= 128 && memchr(p, '\\', obj->len) == NULL;
	for (i = 0; i < n; i++)
		if (!plain || quoted_in(p, obj->len, keys[i], klen[i]))
			all |= (uint32_t)1 << i;
	if (all == 0)
		return 0;
	p++;
	while (p < end && *p == '"') {
		k = p + 1;
		mct_skip(p, end, &p);
		if (p >= end || *p != ':')
			return found;
		vp = ++p;
		mct_skip(p, end, &p);
		for (i = 0; i < n; i++)
			if ((all & ~found) >> i & 1 && keyeq(k,
			    (size_t)(vp - 2 - k), keys[i], klen[i])) {
				setval(&vals[i], vp, (size_t)(p - vp));
				found |= (uint32_t)1 << i;
				if (any || found == all)
					return found;
			}
		if (p < end && *p == ',')
			p++;
	}
	return found;
}

/*
 * An event over a text the caller owns (a record a tool built, a line it
 * kept): the only way to make one outside the reader.  mct_event_set()
 * points it at another text and keeps its index storage;
 * mct_event_free() releases that storage.
 */
void
mct_event_init(struct mct_event *ev, const char *json, size_t len,
    const struct mct_header *h)
{
	memset(ev, 0, sizeof(*ev));
	ev->json = json;
	ev->len = len;
	ev->hdr = h;
}

void
mct_event_set(struct mct_event *ev, const char *json, size_t len)
{
	ev->json = json;
	ev->len = len;
	ev->indexed = 0;
	ev->wkdone = 0;
}

void
mct_event_free(struct mct_event *ev)
{
	free(ev->kv);
	ev->kv = NULL;
	ev->kvcap = 0;
	ev->nkv = 0;
	ev->indexed = 0;
}

/* Index the event's first-level keys, unless done since it last changed. */
void
mct_event_index(struct mct_event *ev)
{
	int plain;

	if (ev->indexed)
		return;
	/* 2: no backslash in it; 3: not one complete object (the keys as
	 * far as they could be read) */
	ev->indexed = mct_index_plain(ev->json, ev->len, &ev->kv, &ev->nkv,
	    &ev->kvcap, &plain) < 0 ? 3 : plain ? 2 : 1;
	ev->wkdone = 0;
	ev->rulegen = 0;
}

/*
 * Does one of the event's first-level keys stand for one of names
 * (NULL-ended), as mct_keep_last() matches them?  1 also when its text is
 * not one complete object (unsure).  A tool that adds those keys to the
 * event's text calls mct_keep_last() only then: with no such key of the
 * event's own, none stands twice.
 */
int
mct_event_has_key(struct mct_event *ev, const char *const *names)
{
	const char *const *w, *k;
	size_t n;
	int i;

	mct_event_index(ev);
	if (ev->indexed == 3)
		return 1;
	for (w = names; *w != NULL; w++)
		for (n = strlen(*w), i = 0; i < ev->nkv; i++) {
			k = ev->json + ev->kv[i].koff;
			/* (no backslash in the text: no key spelt with one) */
			if (ev->indexed == 2 ? ev->kv[i].klen == n &&
			    memcmp(k, *w, n) == 0 : keyeq(k, ev->kv[i].klen,
			    *w, n))
				return 1;
		}
	return 0;
}

/* The well-known keys, which get a slot each (rank: asked of every event). */
static inline int
wk_slot(const char *k, size_t n)
{
	switch (n) {
	case 2:
		if (k[0] == 'p' && k[1] == 'h')
			return 0;
		if (k[0] == 't' && k[1] == 's')
			return 1;
		break;
	case 3:
		if (memcmp(k, "dur", 3) == 0)
			return 2;
		if (memcmp(k, "pid", 3) == 0)
			return 3;
		if (memcmp(k, "tid", 3) == 0)
			return 4;
		if (memcmp(k, "cat", 3) == 0)
			return 5;
		break;
	case 4:
		if (memcmp(k, "name", 4) == 0)
			return 6;
		if (memcmp(k, "args", 4) == 0)
			return 7;
		if (memcmp(k, "rank", 4) == 0)	/* mct_event_rank(), of each */
			return 8;
		break;
	}
	return -1;
}

/* Is one of the event's first-level keys spelt with an escape? */
static int
keys_escaped(const struct mct_event *ev)
{
	const char *k;
	uint32_t j;
	int i;

	for (i = 0; i < ev->nkv; i++)	/* (short: a loop beats memchr) */
		for (k = ev->json + ev->kv[i].koff, j = 0; j < ev->kv[i].klen;
		    j++)
			if (k[j] == '\\')
				return 1;
	return 0;
}

/*
 * mct_get_keyn() where the key has no slot filled: the slots placed (once
 * an index), the key looked for among all (or known missing).
 */
static __attribute__((noinline)) int
get_key_slow(struct mct_event *ev, const char *key, size_t n, int w,
    struct mct_val *v)
{
	int i;

	mct_event_index(ev);
	if (!ev->wkdone) {
		/* one pass to place the well-known keys; the last one wins */
		memset(ev->wk, -1, sizeof(ev->wk));
		for (i = 0; i < ev->nkv; i++)
			if ((w = wk_slot(ev->json + ev->kv[i].koff,
			    ev->kv[i].klen)) >= 0)
				ev->wk[w] = (int8_t)(i < 127 ? i : -1);
		ev->wkdone = 1;
		w = wk_slot(key, n);
	}
	if (w >= 0) {
		if (ev->wk[w] >= 0) {
			struct mct_kv *kv = &ev->kv[ev->wk[w]];

			setval(v, ev->json + kv->voff, kv->vlen);
			return 0;
		}
		/*
		 * No slot: missing, unless a key is spelt with escapes or
		 * lies past slot 127.  Known once (2: surely missing), it
		 * spares the search below for keys most events lack (cat).
		 */
		if (ev->wkdone == 1)
			ev->wkdone = ev->nkv <= 127 && (ev->indexed == 2 ||
			    !keys_escaped(ev)) ? 2 : 3;
		if (ev->wkdone == 2)
			goto missing;
	}
	for (i = ev->nkv - 1; i >= 0; i--) {
		struct mct_kv *kv = &ev->kv[i];

		if (keyeq(ev->json + kv->koff, kv->klen, key, n)) {
			setval(v, ev->json + kv->voff, kv->vlen);
			return 0;
		}
	}
missing:
	v->type = MCT_J_NONE;
	v->p = NULL;
	v->len = 0;
	return -1;
}

/*
 * A first-level key of the event.  Returns 0, or -1 if it is missing.
 * A well-known key in its slot, or known missing, is the short way.
 */
int
mct_get_keyn(struct mct_event *ev, const char *key, size_t n,
    struct mct_val *v)
{
	int w = wk_slot(key, n);

	if (w >= 0 && ev->indexed && ev->wkdone) {
		if (ev->wk[w] >= 0) {
			const struct mct_kv *kv = &ev->kv[ev->wk[w]];

			setval(v, ev->json + kv->voff, kv->vlen);
			return 0;
		}
		if (ev->wkdone == 2) {	/* surely missing (below) */
			v->type = MCT_J_NONE;
			v->p = NULL;
			v->len = 0;
			return -1;
		}
	}
	return get_key_slow(ev, key, n, w, v);
}

/*
 * The value of a field: a path, or a virtual field that is not a time
 * (for those, mct_field_ns).  Returns 0, or -1 if it is missing.
 */
int
mct_get(struct mct_event *ev, const struct mct_field *f, struct mct_val *v)
{
	int i;

	if (mct_field_virtual(f)) {
		if (f->vf->time ||
		    f->vf->get(ev, ev->hdr, f->scratch, v, NULL) != 0)
			goto missing;
		return 0;
	}
	if (mct_get_key(ev, f->seg[0], v) != 0)
		goto missing;
	for (i = 1; i < f->nseg; i++)
		if (obj_get(v->p, v->len, f->seg[i], f->seglen[i], v) != 0)
			goto missing;
	return 0;
missing:
	v->type = MCT_J_NONE;
	v->p = NULL;
	v->len = 0;
	return -1;
}

/* A first-level integer (ts, dur).  Returns 0, or -1 if missing or not one. */
int
mct_get_ns(struct mct_event *ev, const char *key, int64_t *ns)
{
	struct mct_val v;

	if (mct_get_key(ev, key, &v) != 0 || v.type != MCT_J_NUMBER)
		return -1;
	return mct_int(v.p, v.len, ns);
}

/*
 * A time field in ns (ts, dur, rel, end...), or any field holding an
 * integer.  Returns 0, or -1 if missing.
 */
int
mct_field_ns(struct mct_event *ev, const struct mct_field *f,
    const struct mct_header *h, int64_t *ns)
{
	struct mct_val v;

	if (mct_field_virtual(f) && f->vf->time)
		return f->vf->get(ev, h, f->scratch, NULL, ns);
	if (mct_get(ev, f, &v) != 0 || v.type != MCT_J_NUMBER)
		return -1;
	return mct_int(v.p, v.len, ns);
}

/*
 * Append the field's value to a key: a path's JSON text in its one
 * spelling (mct_jcanon(): "a\u005fb" and "a_b" are one key), a virtual
 * time in ns.  Returns 0, or -1 (nothing appended) if it is missing.
 */
int
mct_field_key(struct mct_event *ev, const struct mct_field *f,
    const struct mct_header *h, struct mct_buf *k)
{
	struct mct_val v;
	int64_t ns;

	if (mct_field_virtual(f) && f->vf->time) {
		if (f->vf->get(ev, h, f->scratch, NULL, &ns) != 0)
			return -1;
		mct_buf_addi(k, ns);
		return 0;
	}
	if (mct_get(ev, f, &v) != 0)
		return -1;
	if (ev->indexed == 2 && !mct_field_virtual(f))
		mct_buf_add(k, v.p, v.len);	/* no backslash in the event */
	else
		mct_jcanon(v.p, v.len, k);
	return 0;
}

/*
 * Append what a group key holds for an event without the field: its
 * virtual field's stand-in, if it has one (category's (other), so that
 * shares add up).  Returns 0, or -1 (nothing appended) if there is none.
 */
int
mct_field_other(struct mct_event *ev, const struct mct_field *f,
    const struct mct_header *h, struct mct_buf *k)
{
	struct mct_val v;

	if (f->vf == NULL || f->vf->other == NULL ||
	    f->vf->other(ev, h, f->scratch, &v, NULL) != 0)
		return -1;
	mct_buf_add(k, v.p, v.len);
	return 0;
}

/*
 * rel: ts - origin.  A metadata event (ph M) has none: its ts (often 0)
 * is no point on the timeline the origin was taken from.
 */
static int
get_rel(struct mct_event *ev, const struct mct_header *h, struct mct_buf *b,
    struct mct_val *v, int64_t *ns)
{
	int64_t ts;

	(void)b;
	(void)v;
	if (mct_is_meta(ev))
		return -1;
	if (mct_get_ns(ev, "ts", &ts) != 0 || !h->facts.has_origin ||
	    __builtin_sub_overflow(ts, h->facts.origin, ns))
		return -1;
	return 0;
}

/* end: ts + dur, where a missing dur is 0 */
static int
get_end(struct mct_event *ev, const struct mct_header *h, struct mct_buf *b,
    struct mct_val *v, int64_t *ns)
{
	int64_t ts, dur;

	(void)h;
	(void)b;
	(void)v;
	if (mct_get_ns(ev, "ts", &ts) != 0)
		return -1;
	if (mct_get_ns(ev, "dur", &dur) != 0)
		dur = 0;
	return __builtin_add_overflow(ts, dur, ns) ? -1 : 0;
}

/*
 * The rank of an event.  Every tool takes it from here, by one
 * precedence (mct(7)): an explicit --rank, then the line's own rank key,
 * then its source's rank: the source's distributedInfo.rank, else a rank
 * in its file name, else its place among the operands.  lib/rank.c gives
 * a source its rank (when the run has ranks), and the reader writes it
 * on each of the source's lines as their last rank key, the one
 * mct_get_key() finds: so --rank's comes first, and a source's rank is
 * the line's.  h: the header of the event's stream (NULL: ev->hdr).
 *
 * Returns 0 if the event has an integer rank (*rank), 1 if its rank is
 * another value (a string, a fraction), -1 if it has none (a null rank
 * key is none).  v, if not NULL, gets the line's text of the rank, or
 * v->p NULL where the rank is its source's.
 */
int
mct_event_rank(struct mct_event *ev, const struct mct_header *h,
    int64_t *rank, struct mct_val *v)
{
	const struct mct_source *s;
	struct mct_val own;

	if (v == NULL)
		v = &own;
	if (h == NULL)
		h = ev->hdr;
	if (mct_get_key(ev, "rank", v) == 0 && v->type != MCT_J_NULL)
		return v->type == MCT_J_NUMBER &&
		    mct_int(v->p, v->len, rank) == 0 ? 0 : 1;
	if (h == NULL || ev->source < 0 || ev->source >= h->nsrc ||
	    (s = &h->src[ev->source])->rank < 0)
		return -1;
	v->type = MCT_J_NUMBER;
	v->p = NULL;
	v->len = 0;
	*rank = s->rank;
	return 0;
}

/* rank: the event's rank (mct_event_rank()) */
static int
get_rank(struct mct_event *ev, const struct mct_header *h, struct mct_buf *b,
    struct mct_val *v, int64_t *ns)
{
	int64_t rank;

	(void)ns;
	if (mct_event_rank(ev, h, &rank, v) < 0)
		return -1;
	if (v->p == NULL) {
		b->len = 0;
		mct_buf_addi(b, rank);
		v->p = b->p;
		v->len = b->len;
	}
	return 0;
}

/* short: the name without templates and parameters (short.c) */
static int
get_short(struct mct_event *ev, const struct mct_header *h, struct mct_buf *b,
    struct mct_val *v, int64_t *ns)
{
	/* scratch within one call: one per thread, none shared between them */
	static _Thread_local struct mct_buf name, sh;
	struct mct_val n;

	(void)h;
	(void)ns;
	if (mct_get_key(ev, "name", &n) != 0 || n.type != MCT_J_STRING)
		return -1;
	name.len = sh.len = 0;
	mct_jstr(&n, &name);
	mct_short(name.p ? name.p : "", name.len, &sh);
	b->len = 0;
	mct_buf_addjstr(b, sh.p ? sh.p : "", sh.len);
	v->type = MCT_J_STRING;
	v->p = b->p;
	v->len = b->len;
	return 0;
}

/* A virtual field whose getter is not registered yet: missing. */
static int
get_none(struct mct_event *ev, const struct mct_header *h, struct mct_buf *b,
    struct mct_val *v, int64_t *ns)
{
	(void)ev;
	(void)h;
	(void)b;
	(void)v;
	(void)ns;
	return -1;
}

/*
 * Is this a metadata event (ph M)?  The one test of it: such an event
 * names processes and threads for a viewer, its ts (often 0) is no point
 * on the timeline, and tools pass it on or leave it out, never count it.
 * The framer notes the same of each event it scans, for the origin
 * (mct_scan()'s is_meta, where the key and its value are written plainly).
 */
static int
ph_meta(const struct mct_val *ph)
{
	if (ph->type == MCT_J_STRING && ph->len == 3)	/* most: "X" */
		return ph->p[1] == 'M';
	return mct_jstr_eq(ph, "M", 1);
}

int
mct_is_meta(struct mct_event *ev)
{
	struct mct_val ph;

	return mct_get_key(ev, "ph", &ph) == 0 && ph_meta(&ph);
}

/* Is the key "ts" (0), "dur" (1) or "ph" (2)?  -1 if none of them. */
static inline int
tdp_slot(const char *k, size_t klen)
{
	if (klen == 2 && k[0] == 't' && k[1] == 's')
		return 0;
	if (klen == 3 && k[0] == 'd' && k[1] == 'u' && k[2] == 'r')
		return 1;
	if (klen == 2 && k[0] == 'p' && k[1] == 'h')
		return 2;
	return -1;
}

/*
 * Might the rest of an object, p[0..end), have a key "ts", "dur" or "ph"
 * again, or an escape that spells one?
 */
static int
tdp_again(const char *p, const char *end)
{
	for (; p < end; p++) {
		if (*p == '\\')
			return 1;
		if (*p == '"' && end - p >= 4 &&
		    ((p[1] == 't' && p[2] == 's' && p[3] == '"') ||
		    (p[1] == 'p' && p[2] == 'h' && p[3] == '"') ||
		    (p[1] == 'd' && p[2] == 'u' && end - p >= 5 &&
		    p[3] == 'r' && p[4] == '"')))
			return 1;
	}
	return 0;
}

/*
 * The first-level "ts", "dur" and "ph" of an event without an index, the
 * last of each (as mct_get_key() finds them), their values in v[0..2]
 * (NULL where missing, length in len[]): a walk of the keys alone, each
 * value skipped whole, that stops once it has all three and the rest
 * spells none of them again.  Returns 0, or -1 on what the walk does not
 * know (an escape in a key, a string value that ends in one, a space, an
 * object cut short): mct_get_key() answers then.
 */
static inline int
walk_tdp(const char *text, size_t n, const char *v[3], size_t len[3])
{
	static const char stop[256] = { [','] = 1, ['}'] = 1 };
	const char *p = text, *end = text + n, *k, *val, *q;
	size_t klen;
	int w;

	v[0] = v[1] = v[2] = NULL;
	if (n < 2 || *p != '{')
		return -1;
	if (n == 2 && p[1] == '}')
		return 0;
	for (p++;; p++) {
		if (p >= end || *p != '"')
			return -1;
		k = p + 1;
		if ((q = memchr(k, '"', (size_t)(end - k))) == NULL)
			return -1;
		klen = (size_t)(q - k);
		/*
		 * An escaped quote ends the key early; an escape spells ts,
		 * ph or dur only in 7 bytes or more ("\u0074s").
		 */
		if (q[-1] == '\\' || (klen >= 7 && memchr(k, '\\', klen)))
			return -1;
		if (q + 1 >= end || q[1] != ':')
			return -1;
		p = val = q + 2;
		if (p >= end)
			return -1;
		switch (*p) {
		case '"':
			if ((q = memchr(p + 1, '"', (size_t)(end - p - 1))) ==
			    NULL || q[-1] == '\\')
				return -1;
			p = q + 1;
			break;
		case '{':
		case '[':
			mct_skip(p, end, &p);
			break;
		default:
			while (p < end && !stop[(unsigned char)*p])
				p++;
		}
		if (p == val || p >= end)
			return -1;
		if ((w = tdp_slot(k, klen)) >= 0) {
			v[w] = val;
			len[w] = (size_t)(p - val);
		}
		if (*p == '}')
			return p + 1 == end ? 0 : -1;
		if (*p != ',')
			return -1;
		/* all three, and the rest spells none of them again */
		if (v[0] && v[1] && v[2] && !tdp_again(p, end))
			return 0;
	}
}

/* A value's integer, if it is a number (its type by its first byte). */
static inline int
time_of(const char *v, size_t n, int64_t *ns)
{
	if (v == NULL)
		return 0;
	switch (*v) {
	case '"': case '{': case '[': case 't': case 'f': case 'n':
		return 0;
	}
	return mct_int(v, n, ns) == 0;
}

/*
 * An event's ts, dur and ph at once, and whether it is metadata, for a
 * tool that wants them of every event: from its index if it has one, else
 * by a walk of its first level that keeps only them: the lines the
 * reader's threads hand out have no index, and to make one of each costs
 * more than the rest of such a tool's work on it.
 */
void
mct_get_times(struct mct_event *ev, struct mct_tdp *t)
{
	const char *v[3];
	size_t len[3];

	if (!ev->indexed && walk_tdp(ev->json, ev->len, v, len) == 0) {
		t->hasts = time_of(v[0], len[0], &t->ts);
		t->hasdur = time_of(v[1], len[1], &t->dur);
		setval(&t->ph, v[2], v[2] ? len[2] : 0);
	} else {
		t->hasts = mct_get_ns(ev, "ts", &t->ts) == 0;
		t->hasdur = mct_get_ns(ev, "dur", &t->dur) == 0;
		if (mct_get_key(ev, "ph", &t->ph) != 0)
			t->ph.type = MCT_J_NONE;
	}
	t->meta = ph_meta(&t->ph);
}

/* Is this event an mct header line? */
int
mct_is_header(struct mct_event *ev)
{
	struct mct_val v;

	return mct_get_key(ev, "name", &v) == 0 &&
	    mct_jstr_eq(&v, MCT_HEADER_NAME, sizeof(MCT_HEADER_NAME) - 1);
}

/* The texts of fields of the event, a space apart, interned. */
int32_t
mct_fields_intern(struct mct_strtab *st, struct mct_event *ev,
    const struct mct_field *f, int nf, struct mct_buf *b)
{
	struct mct_val v;
	int i;

	b->len = 0;
	for (i = 0; i < nf; i++) {
		if (mct_get(ev, &f[i], &v) != 0)
			continue;
		if (b->len)
			mct_buf_addc(b, ' ');
		mct_jstr(&v, b);
	}
	return mct_intern(st, b->p ? b->p : "", b->len);
}
