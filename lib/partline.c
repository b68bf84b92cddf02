/*
 * partline.c - the reading of any partial's lines (mct-group's, partial.c;
 * mct-ranks', rankpart.c): one file, one partial after another, each a
 * header, its lines and an end line that counts them.  A partial is input
 * from another machine: each line is checked whole before the kind's
 * reader has it, a cut partial is told from the next one's header, and
 * what is wrong is said as FILE:OFFSET with the partial's strings escaped.
 */
#include "config.h"

#include <err.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mct_private.h"

/* An integer value k of the line: 0, or -1 if it has none. */
int
mct_pline_int(struct mct_pline *pr, const char *k, int64_t *out)
{
	struct mct_val v;

	return mct_get_key(&pr->ev, k, &v) == 0 && v.type == MCT_J_NUMBER &&
	    mct_int(v.p, v.len, out) == 0 ? 0 : -1;
}

/*
 * A partial's digest: FNV-1a of its header and lines as written (and, as
 * written, of its host), a running value from d (0 to start).
 */
uint64_t
mct_pline_digest(uint64_t d, const char *p, size_t n)
{
	size_t i;

	if (d == 0)
		d = UINT64_C(14695981039346656037);
	for (i = 0; i < n; i++)
		d = (d ^ (unsigned char)p[i]) * UINT64_C(1099511628211);
	return d;
}

/*
 * A string from a partial in a message: as it is, but a control
 * character (and a backslash) written as its escape.
 */
void
mct_pline_msgstr(struct mct_buf *b, const char *p, size_t n)
{
	char esc[8];
	size_t i;
	unsigned char c;

	for (i = 0; i < n; i++) {
		c = (unsigned char)p[i];
		if (c >= 0x20 && c != 0x7f && c != '\\') {
			mct_buf_addc(b, (char)c);
			continue;
		}
		if (c == '\n')
			mct_buf_adds(b, "\\n");
		else if (c == '\t')
			mct_buf_adds(b, "\\t");
		else if (c == '\\')
			mct_buf_adds(b, "\\\\");
		else {
			snprintf(esc, sizeof(esc), "\\x%02x", c);
			mct_buf_adds(b, esc);
		}
	}
	mct_buf_addc(b, '\0');
	b->len--;
}

/* What is wrong with a damaged line, for its message. */
void
mct_pline_why(struct mct_pline *pr, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(pr->why, sizeof(pr->why), fmt, ap);
	va_end(ap);
}

/*
 * Is text[0..n) one complete JSON object (and nothing after it), as mct
 * writes it: one the scanner would have to repair (invalid UTF-8, a raw
 * control character, NaN) was not written by mct, and is damaged.
 */
static int
whole(const char *p, size_t n)
{
	struct mct_scan sc = { 0 };

	sc.p = p;
	sc.end = p + n;
	if (n == 0 || *p != '{' || mct_scan(&sc) != MCT_SCAN_OK ||
	    sc.fixes != 0)
		return 0;
	while (sc.p < sc.end && (*sc.p == ' ' || *sc.p == '\r' || *sc.p == '\t'))
		sc.p++;
	return sc.p == sc.end;
}

/* The kinds of partial, by their header's key: to say which one it is. */
static const struct {
	const char	*key, *what;
} kinds[] = {
	{ "mct_partial",	"mct-group -o partial" },
	{ "mct_ranks_partial",	"mct-ranks -o partial" },
};

/* Is the line a header of kind k, of its version?  0, or -1 (said). */
static int
kind_header(struct mct_pline *pr, const struct mct_partkind *k)
{
	struct mct_val v;
	int64_t ver;
	size_t i;

	if (mct_pline_int(pr, k->key, &ver) != 0) {
		for (i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
			if (mct_get_key(&pr->ev, kinds[i].key, &v) == 0) {
				warnx("%s:%llu: a partial of %s, not of %s",
				    pr->name, pr->line, kinds[i].what, k->what);
				return -1;
			}
		warnx("%s:%llu: not a partial of %s (no header line)",
		    pr->name, pr->line, k->what);
		return -1;
	}
	if (ver != k->version) {
		warnx("%s:%llu: a partial of format version %lld; this "
		    "%s reads version %d", pr->name, pr->line, (long long)ver,
		    k->tool, k->version);
		return -1;
	}
	return 0;
}

/*
 * Where in a line that is not whole the header of a partial of kind k
 * begins, if a whole one does (a partial cut, then the next): else 0.
 */
static size_t
glued(const char *p, size_t n, const struct mct_partkind *k)
{
	size_t klen = strlen(k->key), i;
	int tries = 0;

	for (i = 1; i + klen + 4 <= n && tries < 4; i++)
		if (p[i] == '{' && p[i + 1] == '"' &&
		    memcmp(p + i + 2, k->key, klen) == 0 &&
		    p[i + 2 + klen] == '"' && (tries++, whole(p + i, n - i)))
			return i;
	return 0;
}

/*
 * The end line of a partial of n lines (read or damaged): its own
 * figures (k->end), then its count of lines.  A status.
 */
static int
kind_end(struct mct_pline *pr, const struct mct_partkind *k, void *arg,
    long long n)
{
	int64_t said;
	int status;

	mct_pline_int(pr, k->endkey, &said);
	if ((status = k->end ? k->end(pr, arg) : MCT_EXIT_OK) != MCT_EXIT_OK)
		return status;
	if (said != n) {
		warnx("%s:%llu: the partial has %lld %ss, its end line says "
		    "%lld", pr->name, pr->line, n, k->item, (long long)said);
		return MCT_EXIT_DAMAGED;
	}
	return MCT_EXIT_OK;
}

/*
 * Read the partials of kind k in one file (path; "-" is standard input),
 * one after another: each a header line, its lines, an end line that
 * counts them.  Returns MCT_EXIT_OK; MCT_EXIT_DAMAGED for a damaged or
 * truncated partial, whose intact lines are read; MCT_EXIT_USAGE for a
 * file that cannot be read, a header of another kind or version or that
 * k->header refuses, or a line k->line refuses (-2: said; the reading
 * stops).  Each problem is said as FILE:LINE: what (from 1).
 */
int
mct_pline_read(const char *path, const struct mct_partkind *k, void *arg)
{
	struct mct_pline pr = { 0 };
	struct mct_buf why = { 0 };
	struct mct_val v;
	struct mct_src *src;
	struct mct_lines *li;
	const char *p, *e;
	size_t n, want, at;
	unsigned long long pos;		/* a line's byte offset (unused) */
	long long off, nlines = 0, nbad = 0;	/* lines read, damaged */
	int status = MCT_EXIT_OK, r, kind, cut = 0;
	int state = 0;		/* 0: want a header, 1: lines, 2: ended */

	pr.name = strcmp(path, "-") == 0 ? "(stdin)" : path;
	src = mct_src_open(path);
	if (mct_src_failed(src)) {
		e = mct_src_error(src, &off);
		warnx("%s: %s", mct_src_name(src), e ? e : "cannot be read");
		mct_src_close(src);
		return MCT_EXIT_USAGE;
	}
	li = mct_lines_open(src);
	/* a trace given by mistake is read no further than its beginning */
	for (want = MCT_KIND_BYTES;; want *= 2) {
		p = mct_lines_peek(li, want, &n);
		if ((kind = mct_src_kind(p, n, n < want)) != MCT_KIND_MORE)
			break;
	}
	if (kind != MCT_KIND_PARTIAL && kind != MCT_KIND_RANKS_PARTIAL &&
	    kind != MCT_KIND_EMPTY) {
		for (at = 0, pr.line = 1; at < n && strchr(" \t\r\n", p[at]) !=
		    NULL; at++)
			pr.line += p[at] == '\n';
		warnx("%s:%llu: not a partial of %s (no header line)", pr.name,
		    pr.line, k->what);
		pr.line = 0;
		status = MCT_EXIT_USAGE;
	}
	mct_event_init(&pr.ev, "{}", 2, NULL);
	while (status != MCT_EXIT_USAGE &&
	    (r = mct_lines_next(li, &p, &n, &pos)) > 0) {
		pr.line++;
		if (n == 0)
			continue;
		if (state != 0 && !whole(p, n) &&
		    (at = glued(p, n, k)) != 0) {
			/* a cut line, then the next partial's header */
			warnx("%s:%llu: truncated partial: its last line is cut",
			    pr.name, pr.line);
			status = mct_status(status, MCT_EXIT_DAMAGED);
			p += at;
			n -= at;
			state = 2;
		}
		if (!whole(p, n)) {
			cut = r == MCT_LINE_CUT;
			if (state == 0 && !cut)		/* a trace, say */
				warnx("%s:%llu: not a partial of %s (no header "
				    "line)", pr.name, pr.line, k->what);
			else
				warnx("%s:%llu: %s", pr.name, pr.line, cut ?
				    "truncated partial: its last line is cut" :
				    "damaged partial line");
			status = mct_status(status, MCT_EXIT_DAMAGED);
			if (state == 0)
				status = MCT_EXIT_USAGE;
			nbad++;
			continue;
		}
		mct_event_set(&pr.ev, p, n);
		if (state == 1 && mct_get_key(&pr.ev, k->key, &v) == 0) {
			/* the next partial: this one was cut */
			warnx("%s:%llu: truncated partial: no end line after "
			    "%lld %ss", pr.name, pr.line, nlines, k->item);
			status = mct_status(status, MCT_EXIT_DAMAGED);
			state = 2;
		}
		if (state != 1) {
			if (kind_header(&pr, k) != 0 || k->header(&pr, arg) != 0)
				status = MCT_EXIT_USAGE;
			state = 1;
			nlines = nbad = 0;
			pr.digest = mct_pline_digest(0, p, n);
			pr.digest = mct_pline_digest(pr.digest, "\n", 1);
			continue;
		}
		if (mct_pline_int(&pr, k->endkey, &(int64_t){ 0 }) == 0) {
			status = mct_status(status,
			    kind_end(&pr, k, arg, nlines + nbad));
			state = 2;
			continue;
		}
		pr.digest = mct_pline_digest(pr.digest, p, n);
		pr.digest = mct_pline_digest(pr.digest, "\n", 1);
		pr.why[0] = '\0';
		if ((r = k->line(&pr, arg)) == -2)
			status = MCT_EXIT_USAGE;
		else if (r != 0) {
			if (pr.why[0] != '\0') {
				why.len = 0;
				mct_pline_msgstr(&why, pr.why, strlen(pr.why));
			}
			warnx("%s:%llu: damaged partial %s%s%s", pr.name, pr.line,
			    k->item, pr.why[0] ? ": " : "",
			    pr.why[0] ? why.p : "");
			status = mct_status(status, MCT_EXIT_DAMAGED);
			nbad++;
		} else
			nlines++;
	}
	mct_buf_free(&why);
	if ((e = mct_src_error(src, &off)) != NULL) {
		warnx("%s:%lld: %s", mct_src_name(src), off, e);
		status = mct_status(status, MCT_EXIT_DAMAGED);
	}
	if (state == 0 && status == MCT_EXIT_OK) {
		warnx("%s: empty: not a partial of %s", pr.name, k->what);
		status = MCT_EXIT_USAGE;
	} else if (state == 1 && !cut && status != MCT_EXIT_USAGE) {
		warnx("%s:%llu: truncated partial: no end line after %lld "
		    "%ss", pr.name, pr.line, nlines, k->item);
		status = mct_status(status, MCT_EXIT_DAMAGED);
	}
	mct_event_free(&pr.ev);
	mct_lines_free(li);
	mct_src_close(src);
	return status;
}

