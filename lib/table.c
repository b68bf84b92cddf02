/*
 * table.c - the one hash map of mct, and interned strings on it.
 *
 * A map's keys are byte strings (any bytes, NUL included), copied into
 * the map; each has a value: a pointer, an integer or two counts.  The
 * entries are kept in one array, in the order their keys came, and found
 * through an index of slots (open addressing, linear probing, never more
 * than 3/4 full), each slot holding the high 32 bits of the key's hash
 * and the entry's place.  A lookup reads a slot or two and one entry; a
 * walk goes over the entries in the order the keys came, whatever the
 * hash, so a tool that prints what it walks prints it in an order that
 * means something.
 *
 * A removed key leaves a hole in the entries and a mark in its slot.  When
 * the entries are full they are compacted (holes gone, order kept) and
 * the slots built again, twice as many only if more than 7/8 of the
 * entries were live.
 *
 * The copies of the keys are cut from chunks of the map's own, and a
 * removed key's room is kept for the next key of its size (to 256
 * bytes; longer keys are malloc'd): tables that forget as they go, such
 * as mct-flow's, make no malloc call per key and stay the same size.  A
 * map may keep a small record of the caller's (map.extra bytes) in the
 * same room, just before the key: found with it, in the same cache line.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "mct.h"

/* Entries for nslot slots: the slots are at most 3/4 full. */
#define ENTCAP(nslot)	((nslot) / 4 * 3)

#define EMPTY	0		/* a slot never used */
#define DEAD	UINT32_MAX	/* a slot whose key was removed */

#define KSTEP	8		/* key rooms: multiples of 8 bytes */
#define KBIG	(KSTEP * MCT_MAP_NFREE)	/* rooms larger are malloc'd */

struct mct_mapslot {
	uint32_t	hash;		/* the high 32 bits of the key's hash */
	uint32_t	ix;		/* the entry's place + 1, EMPTY or DEAD */
};

/*
 * The hash of every table in mct: eight bytes a step, each step a
 * bijection of the state (multiply by an odd constant, fold the high
 * half down), then murmur3's finalizer so that every bit of the result
 * depends on every bit of the key.  A key's last word is read whole,
 * overlapping the one before; keys under 8 bytes are read in two 4-byte
 * halves or three bytes, as wyhash does (the length, in the seed, tells
 * them apart).  Several times faster than FNV-1a (byte by byte) on
 * kernel names, which was 4% of mct-group's instructions.
 */
uint64_t
mct_hash(const void *s, size_t n)
{
	const unsigned char *p = s;
	uint64_t h = UINT64_C(0x9e3779b97f4a7c15) ^ n, w = 0;
	size_t i;

	if (n >= 8) {
		for (i = 0; i + 8 < n; i += 8) {
			memcpy(&w, p + i, 8);
			h = (h ^ w) * UINT64_C(0xff51afd7ed558ccd);
			h ^= h >> 32;
		}
		memcpy(&w, p + n - 8, 8);	/* the last 8, maybe again */
	} else if (n >= 4) {
		uint32_t a, b;

		memcpy(&a, p, 4);
		memcpy(&b, p + n - 4, 4);
		w = (uint64_t)a << 32 | b;
	} else if (n > 0)
		w = (uint64_t)p[0] << 16 | (uint64_t)p[n / 2] << 8 | p[n - 1];
	h ^= w;
	h ^= h >> 33;
	h *= UINT64_C(0xff51afd7ed558ccd);
	h ^= h >> 33;
	h *= UINT64_C(0xc4ceb9fe1a85ec53);
	h ^= h >> 33;
	return h;
}

/* The room of a key of n bytes and its NUL: its size class, KBIG and up. */
static size_t
room(size_t n)
{
	return (n + KSTEP) & ~(size_t)(KSTEP - 1);
}

/* The caller's bytes before each key, a multiple of 8. */
static size_t
extra(const struct mct_map *m)
{
	return (m->extra + KSTEP - 1) & ~(size_t)(KSTEP - 1);
}

/*
 * A copy of the key, NUL-terminated, in room of the map's, after the
 * caller's bytes (zeroed).
 */
static char *
key_copy(struct mct_map *m, const void *key, size_t n)
{
	size_t x = extra(m), r = room(n + x), sz;
	char *p, *c;

	if (r >= KBIG)
		p = mct_xmalloc(r);
	else if ((p = m->kfree[r / KSTEP]) != NULL)
		m->kfree[r / KSTEP] = *(char **)(void *)p;
	else {
		if ((size_t)(m->cutend - m->cut) < r) {
			/* a new chunk, linked to the one before */
			sz = m->chunk ? 1 << 16 : 1 << 10;
			c = mct_xmalloc(sz);
			*(char **)(void *)c = m->chunk;
			m->chunk = c;
			m->cut = c + KSTEP;
			m->cutend = c + sz;
		}
		p = m->cut;
		m->cut += r;
	}
	memset(p, 0, x);
	p += x;
	memcpy(p, key, n);
	p[n] = '\0';
	return p;
}

static void
key_free(struct mct_map *m, char *key, size_t n)
{
	size_t x = extra(m), r = room(n + x);
	char *p = key - x;

	if (r >= KBIG)
		free(p);
	else {
		*(char **)(void *)p = m->kfree[r / KSTEP];
		m->kfree[r / KSTEP] = p;
	}
}

static size_t
home(const struct mct_map *m, uint32_t h)
{
	return h & (m->nslot - 1);
}

/* The slot of the key, or the empty slot where it would go. */
static inline struct mct_mapslot *
probe(const struct mct_map *m, const void *key, size_t n, uint32_t h)
{
	struct mct_mapslot *s;
	const struct mct_mapent *e;
	size_t i;

	for (i = home(m, h);; i = (i + 1) & (m->nslot - 1)) {
		s = &m->slot[i];
		if (s->ix == EMPTY)
			return s;
		if (s->hash == h && s->ix != DEAD) {
			e = &m->ent[s->ix - 1];
			if (e->len == n && memcmp(e->key, key, n) == 0)
				return s;
		}
	}
}

/*
 * The entries are full: compact them, and grow only if more than 7/8 of
 * them were live.  A table that forgets as fast as it learns (mct-flow's)
 * then stays the size its live keys need, the holes taken back every
 * eighth of a fill at the worst: a rebuild is a pass over memory already
 * in the cache's reach, a bigger table is memory touched anew.
 */
static void
rebuild(struct mct_map *m)
{
	size_t i, j, k, nslot = m->nslot ? m->nslot : 16;

	if (m->n >= ENTCAP(nslot) / 8 * 7)
		nslot *= 2;
	if (ENTCAP(nslot) >= DEAD) {
		errno = ENOMEM;
		mct_nomem("hash map: too many keys");
	}
	for (i = j = 0; i < m->nent; i++)
		if (m->ent[i].key != NULL)
			m->ent[j++] = m->ent[i];
	m->nent = j;
	if (nslot != m->nslot) {
		m->ent = mct_xrealloc(m->ent, ENTCAP(nslot) * sizeof(*m->ent));
		free(m->slot);
		m->slot = mct_xmalloc(nslot * sizeof(*m->slot));
	}
	memset(m->slot, 0, nslot * sizeof(*m->slot));
	m->nslot = nslot;
	for (i = 0; i < m->nent; i++) {
		for (k = home(m, m->ent[i].hash); m->slot[k].ix != EMPTY;
		    k = (k + 1) & (nslot - 1))
			;
		m->slot[k].hash = m->ent[i].hash;
		m->slot[k].ix = (uint32_t)(i + 1);
	}
}

/* A new key, at slot s (or wherever it goes after a rebuild). */
static __attribute__((noinline)) struct mct_mapent *
insert(struct mct_map *m, struct mct_mapslot *s, const void *key, size_t n,
    uint32_t h)
{
	struct mct_mapent *e;

	if (n > UINT32_MAX) {
		errno = EOVERFLOW;
		mct_nomem("hash map: a key of 4 GiB");
	}
	if (m->nent == ENTCAP(m->nslot)) {
		rebuild(m);
		s = probe(m, key, n, h);
	}
	e = &m->ent[m->nent++];
	e->key = key_copy(m, key, n);
	e->val.i = 0;
	if (m->extra)
		e->val.p = e->key - extra(m);
	e->len = (uint32_t)n;
	e->hash = h;
	s->hash = h;
	s->ix = (uint32_t)m->nent;
	m->n++;
	return e;
}

/* The entry of a key, or NULL. */
struct mct_mapent *
mct_map_find(const struct mct_map *m, const void *key, size_t n)
{
	struct mct_mapslot *s;

	if (m->n == 0)
		return NULL;
	s = probe(m, key, n, (uint32_t)(mct_hash(key, n) >> 32));
	return s->ix == EMPTY ? NULL : &m->ent[s->ix - 1];
}

/*
 * The entry of a key, made with a zero value if the key is new (then
 * *isnew is 1, if isnew is not NULL).  The entry lives until the next
 * mct_map_add(); its key until the key is removed.
 */
struct mct_mapent *
mct_map_add(struct mct_map *m, const void *key, size_t n, int *isnew)
{
	uint32_t h = (uint32_t)(mct_hash(key, n) >> 32);
	struct mct_mapslot *s = NULL;
	int found;

	if (m->nslot != 0)
		s = probe(m, key, n, h);
	found = s != NULL && s->ix != EMPTY;
	if (isnew)
		*isnew = !found;
	return found ? &m->ent[s->ix - 1] : insert(m, s, key, n, h);
}

/*
 * Remove an entry's key.  Entries stay where they are until the next
 * mct_map_add(), so a walk may remove the entry it is at.
 */
void
mct_map_del(struct mct_map *m, struct mct_mapent *e)
{
	size_t i, ix = (size_t)(e - m->ent) + 1;

	for (i = home(m, e->hash); m->slot[i].ix != ix;
	    i = (i + 1) & (m->nslot - 1))
		;
	m->slot[i].ix = DEAD;
	key_free(m, e->key, e->len);
	e->key = NULL;
	m->n--;
}

/*
 * Walk the entries in the order their keys came: *it starts at 0; NULL
 * at the end.  Adding a key during a walk ends it.
 */
struct mct_mapent *
mct_map_next(const struct mct_map *m, size_t *it)
{
	while (*it < m->nent)
		if (m->ent[(*it)++].key != NULL)
			return &m->ent[*it - 1];
	return NULL;
}

void
mct_map_free(struct mct_map *m)
{
	size_t i, x;
	char *c;

	for (i = 0; i < m->nent; i++)
		if (m->ent[i].key != NULL)
			key_free(m, m->ent[i].key, m->ent[i].len);
	while ((c = m->chunk) != NULL) {
		m->chunk = *(char **)(void *)c;
		free(c);
	}
	free(m->ent);
	free(m->slot);
	x = m->extra;
	memset(m, 0, sizeof(*m));
	m->extra = x;
}

/*
 * A table of interned strings: the same text gets the same index, so
 * tools keep an int32 where a name, pid or signature repeats.  The
 * strings are the map's copies of its keys.
 */
int32_t
mct_intern(struct mct_strtab *t, const char *s, size_t n)
{
	struct mct_mapent *e;
	int isnew;

	e = mct_map_add(&t->map, s, n, &isnew);
	if (!isnew)
		return (int32_t)e->val.i;
	if (t->n == t->cap) {
		t->cap = t->cap ? t->cap * 2 : 256;
		t->str = mct_xrealloc(t->str, (size_t)t->cap * sizeof(*t->str));
	}
	t->str[t->n] = e->key;
	e->val.i = t->n;
	return t->n++;
}

/*
 * mct_intern() of a value's JSON text in its one spelling (mct_jcanon():
 * "a\u005fb" is "a_b"), for a table of names however a trace spells them.
 */
int32_t
mct_intern_one(struct mct_strtab *t, const char *s, size_t n)
{
	struct mct_buf one = { 0 };
	int32_t id;

	if (memchr(s, '\\', n) == NULL)
		return mct_intern(t, s, n);
	mct_jcanon(s, n, &one);
	id = mct_intern(t, one.p, one.len);
	mct_buf_free(&one);
	return id;
}

/*
 * The length of string i of the table: a string may hold a NUL (a JSON
 * text's \u0000), so strlen() of t->str[i] may fall short of it.  (The
 * table's entries are its strings in order: it removes none.)
 */
size_t
mct_strtab_len(const struct mct_strtab *t, int32_t i)
{
	return t->map.ent[i].len;
}

void
mct_strtab_free(struct mct_strtab *t)
{
	mct_map_free(&t->map);
	free(t->str);
	memset(t, 0, sizeof(*t));
}
