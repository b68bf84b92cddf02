/*
 * unit-table.c - table.c: the one hash map, interned strings.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mct.h"
#include "unit.h"

struct hkey {
	uint64_t	code;		/* the hash bits a map keeps */
	uint32_t	i;
};

static int
cmp_hkey(const void *a, const void *b)
{
	const struct hkey *x = a, *y = b;

	return x->code < y->code ? -1 : x->code > y->code;
}

static uint64_t
hkey(const char *s)
{
	return mct_hash(s, strlen(s)) >> 32;
}

/*
 * Two keys whose entries and slots hold the same 32 bits of hash:
 * a pair found before (a search is slow under valgrind), else one
 * found again.
 */
static int
same_hash(char *a, char *b, size_t size)
{
	enum { N = 1 << 20 };
	struct hkey *k;
	uint32_t i;
	int found = 0;

	snprintf(a, size, "c4087866197");
	snprintf(b, size, "c2280561250");
	if (hkey(a) == hkey(b))
		return 1;
	k = malloc(N * sizeof(*k));

	/* numbers scrambled: FNV-1a's low bits of "c0".."cN" hardly collide */
	for (i = 0; i < N; i++) {
		snprintf(a, size, "c%u", i * 2654435761u);
		k[i].code = hkey(a);
		k[i].i = i;
	}
	qsort(k, N, sizeof(*k), cmp_hkey);
	for (i = 1; i < N && !found; i++)
		if (k[i].code == k[i - 1].code) {
			snprintf(a, size, "c%u", k[i - 1].i * 2654435761u);
			snprintf(b, size, "c%u", k[i].i * 2654435761u);
			found = 1;
		}
	free(k);
	return found;
}

void
test_map(void)
{
	enum { N = 100000 };
	static const char nul[][3] = { "x\0y", "x\0z", "x\0\0" };
	struct mct_map m = { 0 };
	struct mct_mapent *e;
	char key[32], k2[32], big[600];
	size_t it, n;
	int isnew, i, bad, round;

	ok(mct_map_find(&m, "a", 1) == NULL, "map: an empty map finds nothing");
	e = mct_map_add(&m, "a", 1, &isnew);
	ok(isnew && e->val.i == 0 && e->len == 1 && strcmp(e->key, "a") == 0,
	    "map: a new key: value 0, the map's own copy");
	e->val.i = 42;
	e = mct_map_add(&m, "a", 1, &isnew);
	ok(!isnew && e->val.i == 42 && m.n == 1,
	    "map: the same key again is the same entry");
	ok(mct_map_find(&m, "a", 2) == NULL && mct_map_find(&m, "", 0) == NULL,
	    "map: a longer or empty key is another key");
	mct_map_add(&m, "", 0, NULL)->val.i = 7;
	ok(mct_map_find(&m, "", 0) != NULL && mct_map_find(&m, "", 0)->val.i == 7,
	    "map: the empty key is a key");
	mct_map_free(&m);

	/* keys with NUL bytes: all of their bytes count */
	for (i = 0; i < 3; i++)
		mct_map_add(&m, nul[i], 3, NULL)->val.i = i + 1;
	mct_map_add(&m, "x", 1, NULL)->val.i = 9;
	for (bad = 0, i = 0; i < 3; i++)
		bad += (e = mct_map_find(&m, nul[i], 3)) == NULL ||
		    e->val.i != i + 1 || memcmp(e->key, nul[i], 3) != 0;
	ok(bad == 0 && m.n == 4 && mct_map_find(&m, "x", 1)->val.i == 9 &&
	    mct_map_find(&m, "x\0", 2) == NULL,
	    "map: keys with NUL bytes are told apart by every byte");
	mct_map_free(&m);

	/* growth across many keys; a walk in the order keys came */
	for (i = 0; i < N; i++) {
		snprintf(key, sizeof(key), "k%d", i);
		e = mct_map_add(&m, key, strlen(key), &isnew);
		if (!isnew)
			break;
		e->val.i = i;
	}
	for (bad = 0, i = 0; i < N; i++) {
		snprintf(key, sizeof(key), "k%d", i);
		bad += (e = mct_map_find(&m, key, strlen(key))) == NULL ||
		    e->val.i != i;
	}
	ok(m.n == N && bad == 0, "map: %d keys, each found with its value "
	    "(%d wrong)", N, bad);
	for (it = 0, n = 0, bad = 0; (e = mct_map_next(&m, &it)) != NULL; n++)
		bad += e->val.i != (int64_t)n;
	ok(n == N && bad == 0, "map: a walk meets every key once, in the "
	    "order they came");

	/* removing during a walk; holes compacted later, order kept */
	for (it = 0; (e = mct_map_next(&m, &it)) != NULL;)
		if (e->val.i % 2)
			mct_map_del(&m, e);
	for (i = 0; i < N; i++) {
		snprintf(key, sizeof(key), "n%d", i);
		mct_map_add(&m, key, strlen(key), NULL)->val.i = N + i;
	}
	for (bad = 0, i = 0; i < N; i++) {
		snprintf(key, sizeof(key), "k%d", i);
		e = mct_map_find(&m, key, strlen(key));
		bad += i % 2 ? e != NULL : e == NULL || e->val.i != i;
	}
	ok(m.n == N / 2 + N && bad == 0, "map: removed keys are gone, the "
	    "others stay (%d wrong)", bad);
	for (it = 0, n = 0, bad = 0; (e = mct_map_next(&m, &it)) != NULL; n++)
		bad += e->val.i != (int64_t)(n < N / 2 ? 2 * n : n + N / 2);
	ok(n == N / 2 + N && bad == 0, "map: after removals the walk keeps "
	    "the order keys came");
	mct_map_free(&m);
	ok(m.n == 0 && mct_map_find(&m, "k0", 2) == NULL,
	    "map: freed, it is empty and usable");

	/* keys of every length to 600 bytes, removed and made again */
	memset(big, 'b', sizeof(big));
	for (round = 0; round < 3; round++) {
		for (i = 0; i < 600; i++) {
			big[0] = (char)('0' + round);
			e = mct_map_add(&m, big, (size_t)i, &isnew);
			e->val.i = i;
		}
		for (bad = 0, i = 0; i < 600; i++)
			bad += (e = mct_map_find(&m, big, (size_t)i)) == NULL ||
			    e->val.i != i || memcmp(e->key, big, (size_t)i) != 0 ||
			    e->key[i] != '\0';
		for (it = 0; (e = mct_map_next(&m, &it)) != NULL;)
			if (e->len % 3 != (size_t)round)
				mct_map_del(&m, e);
	}
	ok(bad == 0 && m.n == 200, "map: keys of every length to 600 "
	    "bytes, removed and made again (%d wrong)", bad);
	mct_map_free(&m);

	/* a record of the caller's beside each key */
	m.extra = 20;
	for (bad = 0, round = 0; round < 2; round++) {
		for (i = 0; i < 1000; i++) {
			snprintf(key, sizeof(key), "x%d", i);
			e = mct_map_add(&m, key, strlen(key), &isnew);
			bad += e->val.p == NULL || memcmp(e->val.p,
			    "\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0", 20) != 0;
			snprintf(e->val.p, 20, "rec %d", i);
		}
		for (it = 0; (e = mct_map_next(&m, &it)) != NULL;) {
			snprintf(k2, sizeof(k2), "rec %s", e->key + 1);
			bad += strcmp(e->val.p, k2) != 0;
			mct_map_del(&m, e);
		}
	}
	ok(bad == 0 && m.n == 0, "map: extra: a zeroed record beside each key, "
	    "kept with it, zeroed again when its room serves another");
	mct_map_free(&m);

	/* two keys whose hashes the slots cannot tell apart */
	if (!ok(same_hash(key, k2, sizeof(key)), "map: two keys with equal "
	    "hash bits found"))
		return;
	mct_map_add(&m, key, strlen(key), NULL)->val.i = 1;
	mct_map_add(&m, k2, strlen(k2), NULL)->val.i = 2;
	ok(m.n == 2 && mct_map_find(&m, key, strlen(key))->val.i == 1 &&
	    mct_map_find(&m, k2, strlen(k2))->val.i == 2,
	    "map: equal hashes (%s, %s): two keys, two values", key, k2);
	mct_map_del(&m, mct_map_find(&m, key, strlen(key)));
	ok(mct_map_find(&m, key, strlen(key)) == NULL &&
	    mct_map_find(&m, k2, strlen(k2))->val.i == 2,
	    "map: equal hashes: removing one leaves the other");
	mct_map_free(&m);
}

void
test_intern(void)
{
	struct mct_strtab st = { 0 };
	char key[32];
	int32_t a, b, c, d;
	int i, bad;

	a = mct_intern(&st, "\"kernel\"", 8);
	b = mct_intern(&st, "\"memcpy\"", 8);
	c = mct_intern(&st, "\"kernel\"", 8);
	d = mct_intern(&st, "a\0b", 3);
	ok(a == 0 && b == 1 && c == a && d == 2 && st.n == 3,
	    "intern: the same text, the same index; new texts, the next index");
	ok(strcmp(st.str[a], "\"kernel\"") == 0 && strcmp(st.str[b],
	    "\"memcpy\"") == 0 && memcmp(st.str[d], "a\0b", 4) == 0,
	    "intern: str[] holds the texts, NUL-terminated");
	ok(mct_intern(&st, "a", 1) == 3 && mct_intern(&st, "a\0b", 3) == 2,
	    "intern: a text with a NUL byte is not its prefix");
	for (i = 0; i < 5000; i++) {
		snprintf(key, sizeof(key), "s%d", i);
		mct_intern(&st, key, strlen(key));
	}
	for (bad = 0, i = 0; i < 5000; i++) {
		snprintf(key, sizeof(key), "s%d", i);
		bad += mct_intern(&st, key, strlen(key)) != i + 4 ||
		    strcmp(st.str[i + 4], key) != 0;
	}
	ok(bad == 0 && st.n == 5004, "intern: 5000 more texts keep their "
	    "indexes as the table grows");
	mct_strtab_free(&st);
}
