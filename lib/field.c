/*
 * field.c - field paths and their values in one event.
 *
 * A field is a dotted path into the event (name, args.grid, launch.name),
 * where a segment with spaces or dots is quoted (args."registers per
 * thread"), or one of the virtual fields rel (ts - origin) and end
 * (ts + dur), and category (the label the rules give the event).
 */
#include "config.h"

#include <err.h>
#include <stdlib.h>
#include <string.h>

#include "mct.h"

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
	struct mct_buf b = { 0 };
	const char *p = text;

	memset(f, 0, sizeof(*f));
	f->text = mct_xstrdup(text);
	if (strcmp(text, "rel") == 0)
		f->kind = MCT_F_REL;
	else if (strcmp(text, "end") == 0)
		f->kind = MCT_F_END;
	else if (strcmp(text, "category") == 0) {
		f->kind = MCT_F_CATEGORY;
		return 0;
	}
	if (f->kind != MCT_F_PATH) {
		f->time = 1;
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
	/* times in ns: the event's own, and those mct-flow computes */
	f->time = (f->nseg == 1 && (strcmp(f->seg[0], "ts") == 0 ||
	    strcmp(f->seg[0], "dur") == 0 || strcmp(f->seg[0], "latency") == 0 ||
	    strcmp(f->seg[0], "queue") == 0)) || (f->nseg == 2 &&
	    strcmp(f->seg[0], "launch") == 0 && (strcmp(f->seg[1], "ts") == 0 ||
	    strcmp(f->seg[1], "dur") == 0));
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

static void
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
	if (ev->indexed)
		return;
	mct_index(ev->json, ev->len, &ev->kv, &ev->nkv, &ev->kvcap);
	ev->indexed = 1;
	ev->wkdone = 0;
}

/* The well-known keys, which get a slot each. */
static int
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
		break;
	}
	return -1;
}

/* A first-level key of the event.  Returns 0, or -1 if it is missing. */
int
mct_get_key(struct mct_event *ev, const char *key, struct mct_val *v)
{
	size_t n = strlen(key);
	int i, w;

	mct_event_index(ev);
	if (!ev->wkdone) {
		/* one pass to place the well-known keys; the last one wins */
		memset(ev->wk, -1, sizeof(ev->wk));
		for (i = 0; i < ev->nkv; i++)
			if ((w = wk_slot(ev->json + ev->kv[i].koff,
			    ev->kv[i].klen)) >= 0)
				ev->wk[w] = (int8_t)(i < 127 ? i : -1);
		ev->wkdone = 1;
	}
	if ((w = wk_slot(key, n)) >= 0 && ev->wk[w] >= 0) {
		struct mct_kv *kv = &ev->kv[ev->wk[w]];

		setval(v, ev->json + kv->voff, kv->vlen);
		return 0;
	}
	for (i = ev->nkv - 1; i >= 0; i--) {
		struct mct_kv *kv = &ev->kv[i];

		if (keyeq(ev->json + kv->koff, kv->klen, key, n)) {
			setval(v, ev->json + kv->voff, kv->vlen);
			return 0;
		}
	}
	v->type = MCT_J_NONE;
	v->p = NULL;
	v->len = 0;
	return -1;
}

/* The value of a path field.  Returns 0, or -1 if it is missing. */
int
mct_get(struct mct_event *ev, const struct mct_field *f, struct mct_val *v)
{
	const char *label;
	int i;

	if (f->kind == MCT_F_CATEGORY) {
		if ((label = mct_category(ev, ev->hdr)) == NULL)
			goto missing;
		setval(v, label, strlen(label));
		return 0;
	}
	if (f->kind != MCT_F_PATH || mct_get_key(ev, f->seg[0], v) != 0)
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

/* A time field in ns: ts, dur, rel or end.  Returns 0, or -1 if missing. */
int
mct_field_ns(struct mct_event *ev, const struct mct_field *f,
    const struct mct_header *h, int64_t *ns)
{
	struct mct_val v;
	int64_t ts, dur;

	switch (f->kind) {
	case MCT_F_REL:
		if (mct_get_ns(ev, "ts", &ts) != 0 || !h->has_origin ||
		    __builtin_sub_overflow(ts, h->origin, ns))
			return -1;
		return 0;
	case MCT_F_END:
		if (mct_get_ns(ev, "ts", &ts) != 0)
			return -1;
		if (mct_get_ns(ev, "dur", &dur) != 0)
			dur = 0;
		return __builtin_add_overflow(ts, dur, ns) ? -1 : 0;
	default:
		if (mct_get(ev, f, &v) != 0 || v.type != MCT_J_NUMBER)
			return -1;
		return mct_int(v.p, v.len, ns);
	}
}

/* Is this event an mct header line? */
int
mct_is_header(struct mct_event *ev)
{
	struct mct_val v;

	return mct_get_key(ev, "name", &v) == 0 &&
	    mct_jstr_eq(&v, MCT_HEADER_NAME, sizeof(MCT_HEADER_NAME) - 1);
}
