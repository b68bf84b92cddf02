/*
 * unit-input.c - input.c: reading a plain file again and in parts, gzip's
 * buffers traded, and its errors kept as data.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mct.h"
#include "unit.h"

/* Read all of a source into buf (at most cap - 1 bytes, NUL-terminated). */
static size_t
src_all(struct mct_src *s, char *buf, size_t cap)
{
	size_t n = 0;
	ssize_t r;

	while (n + 1 < cap && (r = mct_src_read(s, buf + n, 3)) > 0)
		n += (size_t)r;	/* three bytes a read: limits are exact */
	buf[n] = '\0';
	return n;
}

/*
 * mct_src_swap() of gzip: whole buffers of the inflating thread traded,
 * a read that starts inside one ends where it does, and the bytes are
 * all there in order, as mct_src_read() gives them.
 */
static void
test_input_swap(void)
{
	enum { SLOTSZ = 4096, N = 300000 };
	char *text = mct_xmalloc(N + 1), *buf, *was, path[512];
	struct mct_src *s;
	size_t got = 0, i;
	ssize_t n;
	int traded = 0, short_ok = 1, same = 1;

	for (i = 0; i < N; i++)
		text[i] = (char)('a' + (i * 7 + i / 1000) % 26);
	text[N] = '\0';
	snprintf(path, sizeof(path), "%s/swap.gz", tmpdir);
	write_gz(path, "wb", text);
	setenv("MCT_GZSLOT", "4096", 1);
	s = mct_src_open(path);
	unsetenv("MCT_GZSLOT");
	buf = mct_src_buf(SLOTSZ);
	/* three bytes read: the next swap ends where the buffer does */
	n = mct_src_read(s, buf, 3);
	same = n == 3 && memcmp(buf, text, 3) == 0;
	got = 3;
	for (was = buf; (n = mct_src_swap(s, &buf, SLOTSZ)) > 0; was = buf) {
		if (got < SLOTSZ)
			short_ok = got + (size_t)n == SLOTSZ;
		traded += buf != was;
		if (memcmp(buf, text + got, (size_t)n) != 0)
			same = 0;
		got += (size_t)n;
		/* its room is there to write in (ASan says if not) */
		memset(buf - MCT_SRC_BEFORE, 0, MCT_SRC_BEFORE);
		memset(buf + SLOTSZ, 0, MCT_SRC_AFTER);
	}
	ok(n == 0 && got == N && same, "input: gzip read by swaps: every "
	    "byte in order, to the end");
	ok(short_ok, "input: a swap inside a buffer ends where it does");
	ok(traded == (N + SLOTSZ - 1) / SLOTSZ - 1, "input: every buffer but "
	    "the first is traded, not copied (%d)", traded);
	mct_src_buf_free(buf);
	ok(mct_src_close(s) == 0, "input: closed with its traded buffers");
	free(text);
}

void
test_input(void)
{
	const char *p, *gz;
	struct mct_src *s, *c;
	char buf[256];

	p = TFILE("in.txt", "0123456789abcdefghij");
	gz = tfile("in.gz", "\x1f\x8b", 2);
	s = mct_src_open(p);
	ok(s != NULL && mct_src_rewindable(s), "input: a plain file can be "
	    "read again");
	src_all(s, buf, sizeof(buf));
	ok(strcmp(buf, "0123456789abcdefghij") == 0 && mct_src_pos(s) == 20,
	    "input: read to the end");
	mct_src_rewind(s, 12);
	src_all(s, buf, sizeof(buf));
	ok(strcmp(buf, "0123456789ab") == 0 && mct_src_pos(s) == 12,
	    "input: rewound, it gives the first n bytes, no more");
	c = mct_src_clone(s, 5, 15);
	src_all(c, buf, sizeof(buf));
	ok(c != NULL && strcmp(buf, "56789abcde") == 0 && mct_src_pos(c) == 15,
	    "input: a clone reads from its offset to its limit");
	mct_src_close(c);
	c = mct_src_clone(s, 18, -1);
	src_all(c, buf, sizeof(buf));
	ok(c != NULL && strcmp(buf, "ij") == 0, "input: a clone without a "
	    "limit reads to the end");
	mct_src_close(c);
	mct_src_rewind(s, -1);
	src_all(s, buf, sizeof(buf));
	ok(strcmp(buf, "0123456789abcdefghij") == 0, "input: rewound again, "
	    "without a limit, all of it (the clones did not move it)");
	mct_src_close(s);
	s = mct_src_open(gz);
	ok(s != NULL && !mct_src_rewindable(s), "input: gzip is not read again");
	mct_src_close(s);
	test_input_swap();
}

struct src_case {
	const char	*path;
	long long	 got, off;
	int		 failed, last;
	char		 msg[256];
	int		 again;		/* a second mct_src_error() had one */
};

static void
src_case_run(void *arg)
{
	struct src_case *c = arg;
	struct mct_src *s = mct_src_open(c->path);
	const char *e;
	char buf[64];
	long long off;
	ssize_t n;

	c->failed = mct_src_failed(s);
	c->got = 0;
	while ((n = mct_src_read(s, buf, sizeof(buf))) > 0)
		c->got += n;
	c->last = (int)n;
	e = mct_src_error(s, &c->off);
	snprintf(c->msg, sizeof(c->msg), "%s", e ? e : "");
	c->again = mct_src_error(s, &off) != NULL;
	mct_src_close(s);
}

/* input.c keeps its errors as data: message and offset, said by no one. */
void
test_src_errors(void)
{
	struct src_case c = { 0 };
	char said[1024], path[512], gz[4096];
	const char *p;
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "%s/err.json.gz", tmpdir);
	write_gz(path, "wb", "[{\"ts\":1},{\"ts\":2},{\"ts\":3}]");
	f = fopen(path, "rb");
	n = fread(gz, 1, sizeof(gz), f);
	fclose(f);
	p = tfile("err-cut.json.gz", gz, n - 8);	/* no CRC, no length */
	c.path = p;
	quietly(src_case_run, &c, said, sizeof(said));
	ok(!c.failed && c.last == -1 && c.got == 28 &&
	    strcmp(c.msg, "gzip stream cut off") == 0 && said[0] == '\0',
	    "input: a cut gzip stream: -1, the error kept, nothing said");
	if (strcmp(c.msg, "gzip stream cut off") != 0 || said[0])
		diag("got '%s', said '%s'", c.msg, said);
	/* the offset is that of the plain bytes, as the reader says it */
	ok(c.off == 28 && !c.again,
	    "input: the error's offset (28), and it is taken once");
	memcpy(gz + n, "junk", 4);
	p = tfile("err-garbage.json.gz", gz, n + 4);
	c.path = p;
	quietly(src_case_run, &c, said, sizeof(said));
	ok(c.last == -1 && c.got == 28 &&
	    strcmp(c.msg, "garbage after the gzip data") == 0 && said[0] == '\0',
	    "input: garbage after the gzip data, kept as data");
	snprintf(path, sizeof(path), "%s/nope/none.json", tmpdir);
	c.path = path;
	quietly(src_case_run, &c, said, sizeof(said));
	ok(c.failed && c.last == -1 && c.got == 0 &&
	    strcmp(c.msg, strerror(ENOENT)) == 0 && said[0] == '\0',
	    "input: a file that cannot be opened: failed, why kept, nothing said");
	c.path = tmpdir;
	quietly(src_case_run, &c, said, sizeof(said));
	ok(c.failed && strcmp(c.msg, "is a directory") == 0 && said[0] == '\0',
	    "input: a directory: failed, 'is a directory' kept");
}

/*
 * mct_src_kind(): every kind by its first bytes, space before a partial's
 * tag but not before a stream's header, and more bytes asked for while
 * they could still be either.
 */
void
test_src_kind(void)
{
	static const struct {
		const char	*text;
		int		 all, kind;
	} c[] = {
		{ "", 1, MCT_KIND_EMPTY },
		{ " \n\t\r\n", 1, MCT_KIND_EMPTY },
		{ " \n", 0, MCT_KIND_MORE },
		{ "{\"traceEvents\":[", 0, MCT_KIND_OBJECT },
		{ "{\"ph\":\"X\"}\n", 1, MCT_KIND_OBJECT },
		{ "\n  [{\"ph\":\"X\"}", 0, MCT_KIND_ARRAY },
		{ "\xef\xbb\xbf{}", 1, MCT_KIND_OBJECT },
		{ "\xef\xbb", 0, MCT_KIND_MORE },
		{ "{\"name\":\"mct_header\",\"ph\":\"M\"}", 0, MCT_KIND_STREAM },
		{ "{\"name\":\"mct_hea", 0, MCT_KIND_MORE },
		{ "{\"name\":\"mct_hea", 1, MCT_KIND_OBJECT },
		{ " {\"name\":\"mct_header\"}", 1, MCT_KIND_OBJECT },
		{ "{\"name\":\"kernel\"}", 0, MCT_KIND_OBJECT },
		{ "{\"mct_partial\":1,\"by\":[]}", 0, MCT_KIND_PARTIAL },
		{ "\n\n {\"mct_partial\":1}", 1, MCT_KIND_PARTIAL },
		{ "{\"mct_ranks_partial\":1}", 0, MCT_KIND_RANKS_PARTIAL },
		{ "{\"mct_ra", 0, MCT_KIND_MORE },
		{ "{\"mct_partial_end\":3}", 1, MCT_KIND_OBJECT },
		{ "timestamp, index, utilization.gpu [%]\n", 0, MCT_KIND_LOG },
		{ "  time\tclocks.sm", 1, MCT_KIND_LOG },
	};
	size_t i;
	int k, bad = 0;

	for (i = 0; i < sizeof(c) / sizeof(c[0]); i++)
		if ((k = mct_src_kind(c[i].text, strlen(c[i].text),
		    c[i].all)) != c[i].kind) {
			diag("'%s' (all %d): kind %d, want %d", ESC(c[i].text),
			    c[i].all, k, c[i].kind);
			bad++;
		}
	ok(bad == 0, "input: mct_src_kind() tells every kind by its first "
	    "bytes (%zu cases)", sizeof(c) / sizeof(c[0]));
}

/*
 * mct_lines_next(): lines of a plain and of a gzip file, each with its
 * offset, a last line without a line end said cut, and the bytes peeked
 * at first handed out again as lines.
 */
void
test_lines(void)
{
	static const char text[] = "a,b\n\n1,2\r\nlast";
	const char *want[] = { "a,b", "", "1,2\r", "last" };
	const unsigned long long woff[] = { 0, 4, 5, 10 };
	char path[512];
	struct mct_src *s;
	struct mct_lines *li;
	const char *p, *paths[2];
	unsigned long long off;
	size_t n, i;
	int j, r, bad = 0, cut = 0;

	paths[0] = TFILE("lines.csv", text);
	snprintf(path, sizeof(path), "%s/lines.csv.gz", tmpdir);
	write_gz(path, "wb", text);
	paths[1] = path;
	for (j = 0; j < 2; j++) {
		s = mct_src_open(paths[j]);
		li = mct_lines_open(s);
		p = mct_lines_peek(li, 5, &n);
		if (n < 5 || memcmp(p, text, 5) != 0)
			bad++;
		for (i = 0; (r = mct_lines_next(li, &p, &n, &off)) > 0; i++)
			if (i >= 4 || n != strlen(want[i]) ||
			    memcmp(p, want[i], n) != 0 || off != woff[i])
				bad++;
			else if (i == 3)
				cut += r == MCT_LINE_CUT;
			else
				bad += r != MCT_LINE;
		bad += i != 4;
		mct_lines_free(li);
		mct_src_close(s);
	}
	ok(bad == 0 && cut == 2, "input: mct_lines_next(): the lines of a "
	    "plain and a gzip file, offsets, the last one cut, a peek read "
	    "again");
	/* a source that cannot be opened has no lines */
	snprintf(path, sizeof(path), "%s/nope/none.csv", tmpdir);
	s = mct_src_open(path);
	li = mct_lines_open(s);
	ok(mct_lines_next(li, &p, &n, &off) == 0 &&
	    mct_lines_peek(li, 10, &n) != NULL && n == 0,
	    "input: no lines of a source that cannot be opened");
	mct_lines_free(li);
	mct_src_close(s);
}
