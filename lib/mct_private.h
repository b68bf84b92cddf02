/*
 * mct_private.h - what the files of lib give one another and no tool
 * sees: the reader's helpers from other files (merge.c, pairbe.c, rank.c),
 * output.c's from wrap.c, and the like.  Laid out as lib/mct.h is, under
 * the heading of the file that defines each.  A lib file that needs it
 * includes it in place of lib/mct.h; the tools include lib/mct.h only
 * (the unit tests may include this one too).
 */
#ifndef MCT_PRIVATE_H
#define MCT_PRIVATE_H

#include <string.h>

#include "mct.h"

/*
 * field.c - an event's first-level keys.
 */
/* The index of the last first-level key of an indexed event, or -1. */
static inline int
mct_key_at(const struct mct_event *ev, const char *key)
{
	size_t n = strlen(key);
	int i;

	for (i = ev->nkv - 1; i >= 0; i--)
		if (ev->kv[i].klen == n &&
		    memcmp(ev->json + ev->kv[i].koff, key, n) == 0)
			return i;
	return -1;
}

/*
 * demangle.cc - a C++ name demangled by the C++ runtime, for short.c
 * (which has a stand-in that demangles nothing when configure found no
 * C++ runtime).
 */
char	*mct_demangle(const char *);

/*
 * wrap.c - a multi-rank stream made one trace (mct-cat --wrap), for
 * output.c.
 */
struct mct_wrap;

struct mct_wrap *mct_wrap_new(void);
int	 mct_wrap_event(struct mct_wrap *, struct mct_event *, struct mct_buf *);
void	 mct_wrap_end(struct mct_wrap *, struct mct_buf *);
void	 mct_wrap_free(struct mct_wrap *);

#endif /* MCT_PRIVATE_H */
