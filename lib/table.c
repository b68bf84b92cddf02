/*
 * table.c - the one hash map of mct, and interned strings on it.
 *
 * A map's keys are byte strings (any bytes, NUL included), copied into
 * the map; each has a value: a pointer, an integer or two counts.  The
 * entries are kept in one array, in the order their keys came, and found
 * through an index of slots (open addressing, linear probing, never more
 * than half full), each slot holding 32 bits of the key's hash and the
 * entry's place.  A lookup reads a slot or two and one entry; a walk goes
 * over the entries in the order the keys came, whatever the hash, so a
 * tool that prints what it walks prints it in an order that means
 * something.
 *
 * A removed key leaves a hole in the entries and a mark in its slot.  When
 * the entries are full they are compacted (holes gone, order kept) and
 * the slots built again, twice as many if more than half the entries
 * were live: every key is hashed again, which costs less than keeping
 * its hash in the entry.
 */
#include "config.h"

#include <err.h>
#include <stdlib.h>
#include <string.h>

#include "mct.h"

#define EMPTY	0		/* a slot never used */
#define DEAD	UINT32_MAX	/* a slot whose key was removed */

struct mct_mapslot {
	uint32_t	tag;		/* the low 32 bits of the key's hash */
	uint32_t	ix;		/* the entry's place + 1, EMPTY or DEAD */
};

/* The high bits of FNV-1a are mixed from every byte; the low ones less. */
static size_t
home(const struct mct_map *m, uint64_t h)
{
	return (size_t)(h >> 32) & (m->nslot - 1);
}

/* The slot of the key, or the empty slot where it would go. */
static struct mct_mapslot *
probe(const struct mct_map *m, const void *key, size_t n, uint64_t h)
{
	struct mct_mapslot *s;
	const struct mct_mapent *e;
	size_t i;

	for (i = home(m, h);; i = (i + 1) & (m->nslot - 1)) {
		s = &m->slot[i];
		if (s->ix == EMPTY)
			return s;
		if (s->ix != DEAD && s->tag == (uint32_t)h) {
			e = &m->ent[s->ix - 1];
			if (e->len == n && memcmp(e->key, key, n) == 0)
				return s;
		}
	}
}

/* The entries are full: compact them, and grow if they were mostly live. */
static void
rebuild(struct mct_map *m)
{
	size_t i, j, k, nslot = m->nslot ? m->nslot : 16;
	uint64_t h;

	if (m->n >= nslot / 4)
		nslot *= 2;
	if (nslot / 2 >= DEAD)
		errx(MCT_EXIT_USAGE, "hash map: too many keys");
	for (i = j = 0; i < m->nent; i++)
		if (m->ent[i].key != NULL)
			m->ent[j++] = m->ent[i];
	m->nent = j;
	m->ent = mct_xrealloc(m->ent, nslot / 2 * sizeof(*m->ent));
	free(m->slot);
	m->slot = mct_xmalloc(nslot * sizeof(*m->slot));
	memset(m->slot, 0, nslot * sizeof(*m->slot));
	m->nslot = nslot;
	for (i = 0; i < m->nent; i++) {
		h = mct_hash(m->ent[i].key, m->ent[i].len);
		for (k = home(m, h); m->slot[k].ix != EMPTY;
		    k = (k + 1) & (nslot - 1))
			;
		m->slot[k].tag = (uint32_t)h;
		m->slot[k].ix = (uint32_t)(i + 1);
	}
}

/* The entry of a key, or NULL. */
struct mct_mapent *
mct_map_find(const struct mct_map *m, const void *key, size_t n)
{
	struct mct_mapslot *s;

	if (m->n == 0)
		return NULL;
	s = probe(m, key, n, mct_hash(key, n));
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
	uint64_t h = mct_hash(key, n);
	struct mct_mapslot *s = NULL;
	struct mct_mapent *e;

	if (m->nslot != 0 && (s = probe(m, key, n, h))->ix != EMPTY) {
		if (isnew)
			*isnew = 0;
		return &m->ent[s->ix - 1];
	}
	if (m->nent == m->nslot / 2) {
		rebuild(m);
		s = probe(m, key, n, h);
	}
	e = &m->ent[m->nent++];
	memset(e, 0, sizeof(*e));
	e->key = mct_xmalloc(n + 1);
	memcpy(e->key, key, n);
	e->key[n] = '\0';
	e->len = n;
	s->tag = (uint32_t)h;
	s->ix = (uint32_t)m->nent;
	m->n++;
	if (isnew)
		*isnew = 1;
	return e;
}

/*
 * Remove an entry's key (and free it).  Entries stay where they are until
 * the next mct_map_add(), so a walk may remove the entry it is at.
 */
void
mct_map_del(struct mct_map *m, struct mct_mapent *e)
{
	size_t i, ix = (size_t)(e - m->ent) + 1;

	for (i = home(m, mct_hash(e->key, e->len)); m->slot[i].ix != ix;
	    i = (i + 1) & (m->nslot - 1))
		;
	m->slot[i].ix = DEAD;
	free(e->key);
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
	size_t i;

	for (i = 0; i < m->nent; i++)
		free(m->ent[i].key);
	free(m->ent);
	free(m->slot);
	memset(m, 0, sizeof(*m));
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

void
mct_strtab_free(struct mct_strtab *t)
{
	mct_map_free(&t->map);
	free(t->str);
	memset(t, 0, sizeof(*t));
}
