/*
 * rank.c - many ranks of one job (mct(7), Ranks).
 *
 * The rank of each source: given (--rank=N), its position (--rank=order),
 * or by the rules: the source's distributedInfo.rank (Kineto), else the
 * number after "rank" in its file name (rank-3, rank_3, rank3), else its
 * position.  Two sources of one rank are an error: their correlation ids
 * and pids would mix.  The reader calls mct_rank_decide() once pass 1
 * has learnt every source's top-level keys, then mct_rank_align() for the
 * ts shift of --align, and mct_rank_line() on each event line.
 */
#include "config.h"

#include <err.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "mct_private.h"

/* The number after "rank" in the last part of a path.  Returns 0 if any. */
int
mct_rank_in_name(const char *path, int64_t *rank)
{
	const char *base = strrchr(path, '/'), *p, *d;

	base = base ? base + 1 : path;
	for (p = base; (p = strcasestr(p, "rank")) != NULL; p += 4) {
		d = p + 4;
		if (*d == '-' || *d == '_')
			d++;
		if (*d >= '0' && *d <= '9') {
			size_t n = strspn(d, "0123456789");

			if (n <= 9 && mct_int(d, n, rank) == 0)
				return 0;
		}
	}
	return -1;
}

/* distributedInfo.rank in a source's top-level keys.  Returns 0 if set. */
int
mct_rank_in_top(const char *top, int64_t *rank)
{
	struct mct_buf obj = { 0 };
	struct mct_event ev;
	struct mct_field f;
	struct mct_val v;
	int rc = -1;

	if (top == NULL || mct_field_parse("distributedInfo.rank", &f) != 0)
		return -1;
	mct_buf_addc(&obj, '{');
	mct_buf_adds(&obj, top);
	mct_buf_addc(&obj, '}');
	mct_event_init(&ev, obj.p, obj.len, NULL);
	if (mct_get(&ev, &f, &v) == 0 && v.type == MCT_J_NUMBER &&
	    mct_int(v.p, v.len, rank) == 0 && *rank >= 0)
		rc = 0;
	mct_event_free(&ev);
	mct_field_free(&f);
	mct_buf_free(&obj);
	return rc;
}

/* The rank of source i by the rules. */
static void
by_rules(struct mct_source *s, int i)
{
	if (mct_rank_in_top(s->facts.top, &s->rank) == 0)
		s->rank_from = "distributedInfo";
	else if (strcmp(s->path, "-") != 0 &&
	    mct_rank_in_name(s->path, &s->rank) == 0)
		s->rank_from = "file name";
	else {
		s->rank = i;
		s->rank_from = "order";
	}
}

/*
 * Give every source its rank, if the run has ranks: with --rank every
 * operand, else every trace operand when more than one is read (streams
 * are not ranks by themselves: `mct-cat --wrap t.nd phases.nd` is one
 * trace and its track).  A stream that already carries ranks keeps them.
 * One trace read alone has the rank it says (distributedInfo.rank: one
 * rank of a job), its lines left as they are: the header says it.
 * Returns 1 if the event lines get rank keys, 0 if not, -1 (said) if two
 * sources have one rank.
 */
int
mct_rank_decide(struct mct_source *src, int n, const struct mct_opts *o)
{
	int i, j, ranked = 0, ntrace = 0, alone, said = 0;
	int64_t rank;

	for (i = 0; i < n; i++) {
		if (src[i].ranks_inside)
			ranked = 1;
		if (src[i].ok && !src[i].stream && !src[i].notrace)
			ntrace++;
	}
	alone = o->rank == MCT_RANK_AUTO && ntrace < 2;
	for (i = 0; i < n; i++) {
		struct mct_source *s = &src[i];

		if (!s->ok || s->ranks_inside || s->notrace ||
		    (s->stream && o->rank == MCT_RANK_AUTO))
			continue;
		if (alone) {
			if (mct_rank_in_top(s->facts.top, &rank) == 0) {
				s->rank = rank;
				s->rank_from = "distributedInfo";
				said = 1;
			}
		} else if (o->rank == MCT_RANK_GIVEN) {
			s->rank = o->rank_n;
			s->rank_from = "option";
		} else if (o->rank == MCT_RANK_ORDER) {
			s->rank = i;
			s->rank_from = "order";
		} else
			by_rules(s, i);
	}
	if (alone && !said)
		return ranked;
	for (i = 0; i < n; i++)
		for (j = i + 1; j < n; j++)
			if (src[i].ok && src[j].ok && src[i].rank >= 0 &&
			    src[i].rank == src[j].rank) {
				warnx("%s and %s both have rank %lld (by %s and "
				    "by %s); --rank=order numbers the operands "
				    "0, 1, ...", src[i].name, src[j].name,
				    (long long)src[i].rank, src[i].rank_from,
				    src[j].rank_from);
				return -1;
			}
	return alone ? ranked : 1;
}

/*
 * The ts shift of every source (--align): to the earliest source's first
 * event (start), or so that each source's first event named NAME starts
 * with the earliest of them.  Returns 0, or -1 (said) if a source has no
 * such event.
 */
int
mct_rank_align(struct mct_source *src, int n, const struct mct_opts *o)
{
	int64_t target = 0;
	int i, have = 0;

	if (o->align == MCT_ALIGN_NONE)
		return 0;
	for (i = 0; i < n; i++) {
		struct mct_source *s = &src[i];
		int64_t t = o->align == MCT_ALIGN_START ? s->facts.origin :
		    s->mark;
		int set = o->align == MCT_ALIGN_START ? s->facts.has_origin :
		    s->has_mark;

		if (!s->ok)
			continue;
		if (!set && o->align == MCT_ALIGN_NAME) {
			warnx("%s: --align: no event named '%s'%s", s->name,
			    o->align_name, s->stream ? " (a stream is aligned "
			    "by name only when read as a trace file)" : "");
			return -1;
		}
		if (set && !MCT_SANE_NS(t)) {
			warnx("%s: --align: the time to align, %lld ns, is out "
			    "of range", s->name, (long long)t);
			return -1;
		}
		if (set && (!have || t < target))
			target = t;
		have |= set;
	}
	for (i = 0; i < n; i++) {
		struct mct_source *s = &src[i];

		if (s->ok && (o->align == MCT_ALIGN_START ?
		    s->facts.has_origin : s->has_mark))
			s->shift = target - (o->align == MCT_ALIGN_START ?
			    s->facts.origin : s->mark);
	}
	return 0;
}

/*
 * Has the object (len bytes, '}' last) a key?  Without an index, which
 * costs more than the rest of the line's work: the reader's lines are
 * whole objects, so anything but space between the braces is a key.
 */
static int
has_keys(const struct mct_event *ev, size_t len)
{
	size_t i;

	if (ev->indexed)
		return ev->nkv > 0;
	for (i = 1; i + 1 < len; i++)
		if (!(ev->json[i] == ' ' || ev->json[i] == '\t' ||
		    ev->json[i] == '\n' || ev->json[i] == '\r'))
			return 1;
	return 0;
}

/*
 * An event line with its ts shifted and, if rank >= 0, a rank key
 * appended, into out (a newline after it, not counted).  Returns 0, or
 * -1 if the line is not an object (nothing written).
 */
int
mct_rank_line(struct mct_event *ev, int64_t rank, int64_t shift,
    struct mct_buf *out)
{
	const char *j = ev->json;
	char tail[40], digits[20];
	size_t len = ev->len, from = 0, n, d;
	int64_t ts;
	int k;

	while (len > 0 && (j[len - 1] == ' ' || j[len - 1] == '\r'))
		len--;
	if (len < 2 || j[len - 1] != '}')
		return -1;
	out->len = 0;
	if (shift != 0)
		mct_event_index(ev);
	if (shift != 0 && (k = mct_key_at(ev, "ts")) >= 0 &&
	    mct_int(j + ev->kv[k].voff, ev->kv[k].vlen, &ts) == 0 &&
	    MCT_SANE_NS(ts)) {
		mct_buf_add(out, j, ev->kv[k].voff);
		mct_buf_addi(out, ts + shift);
		from = ev->kv[k].voff + ev->kv[k].vlen;
	}
	mct_buf_add(out, j + from, len - 1 - from);
	/* the tail made on the stack, added at once: this runs per event */
	n = 0;
	if (rank >= 0) {
		if (has_keys(ev, len))
			tail[n++] = ',';
		memcpy(tail + n, "\"rank\":", 7);
		n += 7;
		d = sizeof(digits);
		do
			digits[--d] = (char)('0' + rank % 10);
		while ((rank /= 10) > 0);
		memcpy(tail + n, digits + d, sizeof(digits) - d);
		n += sizeof(digits) - d;
	}
	tail[n++] = '}';
	tail[n++] = '\n';
	mct_buf_add(out, tail, n);
	out->len--;
	return 0;
}
