/*
 * fuzz-reader.c - a libFuzzer target for the input side of libmct: the
 * scanner, the time and field syntax, field access on compact text, and
 * the reader end to end.  tests/fuzz.sh builds and runs it.
 *
 * Every input goes to:
 *   - mct_scan() in compact and event mode, top-level or not, with and
 *     without .out, on an exact-size heap copy (ASan sees any read past
 *     the end).  Invariants: positions stay inside the text; an ERROR has
 *     a message; without .out the verdict is the same; on OK the copy is
 *     valid compact JSON that scans again to itself with no repair; event
 *     mode differs from compact mode only by string ts/dur made numbers,
 *     which must be JSON numbers; a complete object never says MORE.
 *   - mct_parse_dur(), mct_parse_time(), mct_field_parse(),
 *     mct_fields_parse(), mct_int(), mct_dec_ns() on a NUL-terminated
 *     copy.  Invariants: an integer mct_int() reads is the same number of
 *     ns for mct_dec_ns() and mct_parse_dur(); mct_fmt_dec() text reads
 *     back exactly.
 *   - mct_skip(), mct_index(), mct_get_key(), mct_get(), mct_field_ns(),
 *     mct_jstr() on the text as an event (stream lines get only the
 *     structure check of mct_index() before field access).
 *   - the reader: the input written to a temporary file (made once per
 *     process), mct_open(), every event through mct_next() with field
 *     access, mct_close().  Events of a trace (not a stream) must be
 *     valid compact JSON objects.  The file is read three ways (twice,
 *     the plain file's way; once through the spool, MCT_SPOOL; in parts
 *     of 16 bytes by threads, MCT_SPLIT): the header, the events and the
 *     status must be the same (in parts, pass 2 too is framed in chunks
 *     by threads).  The input gzipped, in members, must read the same
 *     once more through the inflating thread and a ring of small buffers
 *     (MCT_GZSLOT), its spooled lines converted in chunks by threads
 *     (MCT_SPLIT); cut inside its last member it is damage
 *     (exit 1, or 2 if what is left is no trace).  Through the spool and
 *     gzipped, it is read once more as mct-cat writes NDJSON: the
 *     spool's final lines sent to a file by the kernel (MCT_WANT_COPY),
 *     the rest handed out; the file's lines must be the events.
 *
 * A failed invariant prints what failed and abort()s, so that libFuzzer
 * keeps the input.  Every finding stops the run: the bugs the first runs
 * found are fixed, and their inputs are unit tests (tests/unit-*.c).
 */
#include "config.h"

#include <sys/types.h>

#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "mct_private.h"

#define FUZZ_NAME "fuzz-reader.c"
#include "fuzz.h"

/* A bug of lib/ once let through; none is now: every finding stops. */
static int
known(const char *bug)
{
	(void)bug;
	return 0;
}

/* Is t[0..n) a JSON number (RFC 8259)?  Independent of lib/. */
static int
json_number(const char *t, size_t n)
{
	size_t i = 0;

	if (i < n && t[i] == '-')
		i++;
	if (i < n && t[i] == '0')
		i++;
	else if (i < n && t[i] >= '1' && t[i] <= '9')
		while (i < n && t[i] >= '0' && t[i] <= '9')
			i++;
	else
		return 0;
	if (i < n && t[i] == '.') {
		i++;
		if (i >= n || t[i] < '0' || t[i] > '9')
			return 0;
		while (i < n && t[i] >= '0' && t[i] <= '9')
			i++;
	}
	if (i < n && (t[i] == 'e' || t[i] == 'E')) {
		i++;
		if (i < n && (t[i] == '+' || t[i] == '-'))
			i++;
		if (i >= n || t[i] < '0' || t[i] > '9')
			return 0;
		while (i < n && t[i] >= '0' && t[i] <= '9')
			i++;
	}
	return i == n;
}

/* A heap copy of p[0..n) with room for extra bytes after it, no more. */
static char *
dup_room(const void *p, size_t n, size_t extra)
{
	char *b = malloc(n + extra ? n + extra : 1);

	if (b == NULL)
		abort();
	if (n)
		memcpy(b, p, n);
	return b;
}

#define dup_exact(p, n)	dup_room((p), (n), 0)

/*
 * Is t[0..n) compact JSON that mct_scan() reads back to itself with no
 * repair?  (A newline after it ends a bare number, as in a stream.)
 */
static int
valid_compact(const char *t, size_t n)
{
	char *b = dup_room(t, n, 1);
	struct mct_buf out = { 0 };
	struct mct_scan s = { 0 };
	int good;

	b[n] = '\n';
	s.p = b;
	s.end = b + n + 1;
	s.out = &out;
	good = mct_scan(&s) == MCT_SCAN_OK && s.fixes == 0 && s.p == b + n &&
	    out.len == n && memcmp(out.p, t, n) == 0;
	free(b);
	free(s.kv);
	mct_buf_free(&out);
	return good;
}

static int
is_ws(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

static int
kv_is(const char *base, const struct mct_kv *kv, const char *k)
{
	return kv->klen == strlen(k) && memcmp(base + kv->koff, k, kv->klen) == 0;
}

static void
check_kv(const struct mct_scan *s, const char *base, size_t len)
{
	int i;

	CHECK(s->nkv >= 0 && (s->nkv == 0 || s->kv != NULL), "kv count");
	for (i = 0; i < s->nkv; i++) {
		const struct mct_kv *kv = &s->kv[i];

		CHECK(kv->koff >= 1 && (size_t)kv->koff + kv->klen < len,
		    "a key inside the text");
		CHECK(base[kv->koff - 1] == '"' && base[kv->koff + kv->klen] == '"',
		    "a key between quotes");
		CHECK((size_t)kv->voff + kv->vlen <= len, "a value inside the text");
	}
}

/* mct_scan on data[0..n) in one mode; the result for the other checks. */
static int
scan1(const char *b, size_t n, int toplevel, int event, struct mct_buf *out,
    struct mct_scan *s)
{
	struct mct_kv *kv = s->kv;
	int kvcap = s->kvcap, rc, i;

	memset(s, 0, sizeof(*s));
	s->kv = kv;		/* kept: the caller frees it */
	s->kvcap = kvcap;
	s->p = b;
	s->end = b + n;
	s->out = out;
	s->toplevel = toplevel;
	s->event = event;
	s->index = 1;
	if (out)
		out->len = 0;
	rc = mct_scan(s);
	CHECK(rc == MCT_SCAN_OK || rc == MCT_SCAN_MORE || rc == MCT_SCAN_ERROR ||
	    (rc == MCT_SCAN_TRACE && toplevel), "a known result");
	CHECK(s->p >= b && s->p <= b + n, "p inside the text");
	if (rc == MCT_SCAN_OK)
		CHECK(s->p > b, "OK after a value");
	if (rc == MCT_SCAN_ERROR)
		CHECK(s->errmsg != NULL && s->errpos >= b && s->errpos <= b + n,
		    "an error has a message and a position");
	if (s->fixes) {
		CHECK(s->fixpos >= b && s->fixpos < b + n, "fixpos inside the text");
		for (i = 0; i < MCT_NFIX; i++)
			if (s->fixes & (1u << i))
				CHECK(s->fixat[i] >= b && s->fixat[i] < b + n,
				    "fixat inside the text");
	}
	if (event)
		CHECK(s->ts_kind >= MCT_TS_NONE && s->ts_kind <= MCT_TS_FRAC &&
		    s->dur_kind >= MCT_TS_NONE && s->dur_kind <= MCT_TS_FRAC,
		    "ts and dur kinds");
	if (rc == MCT_SCAN_OK || rc == MCT_SCAN_TRACE) {
		if (out)
			check_kv(s, out->p, out->len);
		else
			check_kv(s, b, n);
	}
	return rc;
}

static void
fuzz_scan(const uint8_t *data, size_t n)
{
	char *b = dup_exact(data, n);
	struct mct_buf out = { 0 }, oute = { 0 };
	struct mct_scan s = { 0 }, c = { 0 }, e = { 0 };
	int top, rc, rc0, rce, i;

	for (top = 0; top <= 1; top++) {
		rc = scan1(b, n, top, 0, &out, &s);
		if (rc == MCT_SCAN_OK)
			CHECK(valid_compact(out.p, out.len),
			    "the copy is valid compact JSON, scanned again unchanged");

		/* without .out: the same verdict */
		rc0 = scan1(b, n, top, 0, NULL, &c);
		if (rc0 != rc || (rc == MCT_SCAN_ERROR && c.errpos != s.errpos)) {
			/* known: without .out a trailing comma is an error */
			if (!((s.fixes & MCT_FIX_COMMA) && rc0 == MCT_SCAN_ERROR &&
			    known("check-only trailing comma")))
				fail(__LINE__, "the same verdict without .out");
		} else if (rc == MCT_SCAN_OK || rc == MCT_SCAN_TRACE)
			CHECK(c.fixes == s.fixes && c.p == s.p && c.nkv == s.nkv,
			    "the same fixes, end and keys without .out");

		/* event mode: the same but for string ts/dur made numbers */
		rce = scan1(b, n, top, 1, &oute, &e);
		CHECK(rce == rc, "the same verdict in event mode");
		if (rc == MCT_SCAN_OK) {
			CHECK(e.fixes == s.fixes && e.nkv == s.nkv,
			    "the same fixes and keys in event mode");
			for (i = 0; i < e.nkv; i++) {
				const struct mct_kv *a = &s.kv[i], *k = &e.kv[i];
				const char *va = out.p + a->voff, *vb = oute.p + k->voff;

				CHECK(a->klen == k->klen && memcmp(out.p + a->koff,
				    oute.p + k->koff, a->klen) == 0,
				    "the same keys in event mode");
				if (a->vlen == k->vlen && memcmp(va, vb, a->vlen) == 0)
					continue;
				CHECK((kv_is(out.p, a, "ts") || kv_is(out.p, a, "dur")) &&
				    a->vlen == k->vlen + 2 && va[0] == '"' &&
				    memcmp(va + 1, vb, k->vlen) == 0,
				    "event mode changes only string ts/dur");
				CHECK(json_number(vb, k->vlen), "a string ts/dur made "
				    "a number is a JSON number");
			}
			CHECK(valid_compact(oute.p, oute.len),
			    "the event-mode copy is valid compact JSON");
		}

		/* a complete object or array never says MORE */
		if (rc == MCT_SCAN_MORE) {
			size_t k = 0;

			while (k < n && is_ws(b[k]))
				k++;
			if (k < n && (b[k] == '{' || b[k] == '[')) {
				char *b2 = dup_room(b, n, 1);

				b2[n] = ' ';
				rc0 = scan1(b2, n + 1, 0, 0, NULL, &c);
				/* known: "\u1"} at the very end says MORE */
				if (rc0 == MCT_SCAN_OK && !((c.fixes &
				    MCT_FIX_ESCAPE) && known("\\u at the end")))
					fail(__LINE__, "MORE for a complete value");
				free(b2);
			}
		}
	}
	free(s.kv);
	free(c.kv);
	free(e.kv);
	mct_buf_free(&out);
	mct_buf_free(&oute);
	free(b);
}

static void
fuzz_text(const uint8_t *data, size_t n)
{
	static const enum mct_unit units[] = {
		MCT_UNIT_NS, MCT_UNIT_US, MCT_UNIT_MS, MCT_UNIT_S,
	};
	char *str, buf[64];
	size_t len, i;
	int64_t v, w, x;
	int a, nf, k;
	struct mct_field f, *fs;
	enum mct_unit u;

	len = n < 4096 ? n : 4096;
	str = dup_room(data, len, 1);
	str[len] = '\0';
	len = strlen(str);

	if (mct_parse_dur(str, &v) == 0 && mct_int(str, len, &w) == 0)
		CHECK(v == w, "a bare integer is that many ns");
	mct_parse_time(str, &v, &a);
	mct_parse_unit(str, &u);
	if (mct_field_parse(str, &f) == 0) {
		CHECK(f.text != NULL && strcmp(f.text, str) == 0, "the field text");
		CHECK(mct_field_virtual(&f) || f.nseg > 0, "a path has segments");
		mct_field_free(&f);
	} else
		CHECK(f.nseg == 0 && f.text == NULL, "a bad field is cleared");
	fs = NULL;
	nf = 0;
	mct_fields_parse(str, &fs, &nf);
	for (k = 0; k < nf; k++)
		mct_field_free(&fs[k]);
	free(fs);

	for (i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		char *exact = dup_exact(data, n);

		if (mct_dec_ns(exact, n, units[i], &x) == 0 && units[i] ==
		    MCT_UNIT_NS && mct_int(exact, n, &w) == 0)
			CHECK(x == w, "an integer in ns is itself");
		free(exact);
	}
	{
		char *exact = dup_exact(data, n);
		mct_i128 e6;

		mct_dec_e6(exact, n, &e6);
		if (mct_int(exact, n, &w) == 0 && w > INT64_MIN) {
			/* exact decimal text reads back (INT64_MIN is no ns) */
			len = mct_fmt_dec(buf, w, 1000);
			CHECK(mct_dec_ns(buf, len, MCT_UNIT_US, &x) == 0 && x == w,
			    "mct_fmt_dec(v, 1000) is v ns in us");
			len = mct_fmt_dec(buf, w, 1000000000);
			CHECK(mct_dec_ns(buf, len, MCT_UNIT_S, &x) == 0 && x == w,
			    "mct_fmt_dec(v, 10^9) is v ns in s");
			mct_fmt_count(buf, w);
		} else if (mct_int(exact, n, &w) == 0 && !known("mct_fmt_count(INT64_MIN)"))
			mct_fmt_count(buf, w);
		free(exact);
	}
	free(str);
}

/* Field access on the text as a compact event (as a stream line is). */
static void
fuzz_event(const uint8_t *data, size_t n)
{
	static const char *const paths[] = {
		"ts", "dur", "name", "args", "args.x", "args.\"a b\"",
		"args.x.y.z", "ph", "rel", "end",
	};
	char *b = dup_exact(data, n);
	struct mct_event ev = { 0 };
	struct mct_header h = { 0 };
	struct mct_buf sb = { 0 };
	struct mct_val v;
	struct mct_kv *kv = NULL;
	const char *next;
	int nkv = 0, cap = 0, i;
	size_t k;
	int64_t ns;

	mct_skip(b, b + n, &next);
	CHECK(next >= b && next <= b + n, "mct_skip stays in the text");
	if (mct_index(b, n, &kv, &nkv, &cap) >= 0)
		for (i = 0; i < nkv; i++)
			CHECK(kv[i].koff + kv[i].klen <= n &&
			    kv[i].voff + kv[i].vlen <= n, "mct_index in the text");
	free(kv);

	ev.json = b;
	ev.len = n;
	ev.hdr = &h;
	h.facts.has_origin = 1;
	for (k = 0; k < sizeof(paths) / sizeof(paths[0]); k++) {
		struct mct_field f;

		if (mct_field_parse(paths[k], &f) != 0)
			abort();
		if (mct_get(&ev, &f, &v) == 0) {
			CHECK(v.p >= b && v.p + v.len <= b + n, "a value in the event");
			sb.len = 0;
			mct_jstr(&v, &sb);
			if (v.type == MCT_J_STRING && sb.len < 64)
				mct_jstr_eq(&v, sb.p ? sb.p : "", sb.len);
		}
		mct_field_ns(&ev, &f, &h, &ns);
		mct_field_free(&f);
	}
	mct_get_ns(&ev, "ts", &ns);
	mct_is_header(&ev);
	/* the whole text as a string value */
	if (n >= 2 && b[0] == '"' && b[n - 1] == '"') {
		v.type = MCT_J_STRING;
		v.p = b;
		v.len = n;
		sb.len = 0;
		mct_jstr(&v, &sb);
	}
	mct_buf_free(&sb);
	free(ev.kv);
	free(b);
}

static char tmppath[256];
static int tmpfd = -1;

static void
rm_tmp(void)
{
	if (tmppath[0])
		unlink(tmppath);
}

/* The temporary file holds p[0..n) and nothing else. */
static void
put_tmp(const void *p, size_t n)
{
	size_t off;

	if (ftruncate(tmpfd, 0) != 0)
		abort();
	for (off = 0; off < n; ) {
		ssize_t w = pwrite(tmpfd, (const char *)p + off, n - off,
		    (off_t)off);

		if (w <= 0)
			abort();
		off += (size_t)w;
	}
}

/* Read the temporary file: the header and the events, as all holds them. */
static int
read_all(struct mct_opts *o, struct mct_buf *all)
{
	struct mct_reader *r;
	struct mct_event *ev;
	const struct mct_header *h;
	char *argv[2];

	argv[0] = tmppath;
	argv[1] = NULL;
	r = mct_open(1, argv, o);
	h = mct_header(r);
	mct_buf_add(all, h->line, h->linelen);
	while (mct_next(r, &ev)) {
		mct_buf_addc(all, '\n');
		mct_buf_add(all, ev->json, ev->len);
	}
	return mct_close(r);
}

/*
 * Read the temporary file as mct-cat writes NDJSON: the spool's final
 * lines sent to stdout by the kernel (MCT_WANT_COPY), the rest handed
 * out by mct_next(), a run of lines or an event at a time; stdout is a
 * file of its own meanwhile.  all gets the header and the events as from
 * read_all().
 */
static int
read_sent(struct mct_opts *o, struct mct_buf *all)
{
	static char outpath[256];
	static int outfd = -1;
	struct mct_opts so = *o;
	struct mct_reader *r;
	struct mct_event *ev;
	const struct mct_header *h;
	char *argv[2];
	off_t size;
	int saved, st;

	if (outfd == -1) {
		snprintf(outpath, sizeof(outpath), "%s.out", tmppath);
		if ((outfd = open(outpath, O_RDWR | O_CREAT | O_TRUNC,
		    0600)) == -1) {
			perror(outpath);
			abort();
		}
		unlink(outpath);
	}
	if (ftruncate(outfd, 0) != 0 || lseek(outfd, 0, SEEK_SET) != 0)
		abort();
	argv[0] = tmppath;
	argv[1] = NULL;
	so.want = MCT_WANT_COPY;
	r = mct_open(1, argv, &so);
	h = mct_header(r);
	mct_buf_add(all, h->line, h->linelen);
	fflush(stdout);
	if ((saved = dup(STDOUT_FILENO)) == -1 ||
	    dup2(outfd, STDOUT_FILENO) == -1)
		abort();
	while (mct_next(r, &ev)) {
		mct_write(ev->json, ev->len);
		mct_write("\n", 1);
	}
	if (fflush(stdout) != 0 || dup2(saved, STDOUT_FILENO) == -1)
		abort();
	close(saved);
	st = mct_close(r);
	/* its lines, each with its line end, as "\nEVENT" each */
	if ((size = lseek(outfd, 0, SEEK_END)) > 0) {
		size_t at = all->len + 1;

		mct_buf_grow(all, (size_t)size + 1);
		all->p[all->len] = '\n';
		if (pread(outfd, all->p + at, (size_t)size - 1, 0) !=
		    size - 1)
			abort();
		all->len = at + (size_t)size - 1;
		all->p[all->len] = '\0';
	}
	return st;
}

/* Append p[0..n) to b as one gzip member. */
static void
gz_member(struct mct_buf *b, const uint8_t *p, size_t n)
{
	z_stream z;
	unsigned char out[4096];
	int zr;

	memset(&z, 0, sizeof(z));
	if (deflateInit2(&z, n % 10, Z_DEFLATED, 31, 8,
	    Z_DEFAULT_STRATEGY) != Z_OK)
		abort();
	z.next_in = (unsigned char *)(uintptr_t)p;
	z.avail_in = (unsigned int)n;
	do {
		z.next_out = out;
		z.avail_out = sizeof(out);
		zr = deflate(&z, Z_FINISH);
		if (zr == Z_STREAM_ERROR)
			abort();
		mct_buf_add(b, (char *)out, sizeof(out) - z.avail_out);
	} while (zr != Z_STREAM_END);
	deflateEnd(&z);
}

/*
 * The input gzipped, in up to three members, read by the inflating
 * thread through a ring of small buffers (MCT_GZSLOT): the header, the
 * events and the status must be those of the plain file (want).  Then
 * the same cut short inside its last member: damaged (exit 1), and no
 * crash, race or leak on the way.
 */
static void
fuzz_gzip(const uint8_t *data, size_t n, struct mct_opts *o,
    const struct mct_buf *want, int wantst)
{
	struct mct_buf gz = { 0 }, got = { 0 };
	size_t a, b, last;
	char slot[16];
	int st;

	a = n > 0 ? data[0] % (n + 1) : 0;
	b = a + (n > 1 ? data[1] % (n - a + 1) : 0);
	if (a > 0)
		gz_member(&gz, data, a);
	if (b > a)
		gz_member(&gz, data + a, b - a);
	last = gz.len;
	gz_member(&gz, data + b, n - b);
	put_tmp(gz.p, gz.len);
	snprintf(slot, sizeof(slot), "%d", 16 << (n > 2 ? data[2] % 8 : 0));
	setenv("MCT_GZSLOT", slot, 1);
	/* the spool's lines converted in chunks of 16 bytes by threads */
	setenv("MCT_SPLIT", "16", 1);
	st = read_all(o, &got);
	CHECK(got.len == want->len && st == wantst &&
	    memcmp(got.p, want->p, want->len) == 0,
	    "the same read gzipped, in members, through the ring");
	/* its final lines sent from the spool by the kernel */
	got.len = 0;
	st = read_sent(o, &got);
	unsetenv("MCT_SPLIT");
	CHECK(got.len == want->len && st == wantst &&
	    memcmp(got.p, want->p, want->len) == 0,
	    "the same read gzipped and sent from the spool");
	/* cut inside the last member (after its magic, before its end) */
	put_tmp(gz.p, last + 2 + (n > 3 ? data[3] : 0) % (gz.len - last - 2));
	got.len = 0;
	st = read_all(o, &got);
	CHECK(st >= MCT_EXIT_DAMAGED, "a cut gzip member is damage");
	unsetenv("MCT_GZSLOT");
	mct_buf_free(&gz);
	mct_buf_free(&got);
}

static void
fuzz_reader(const uint8_t *data, size_t n)
{
	static const char pre[] = "{\"name\":\"" MCT_HEADER_NAME "\"";
	struct mct_opts o = { .unit = MCT_UNIT_AUTO };
	struct mct_reader *r;
	struct mct_event *ev;
	const struct mct_header *h;
	static const char *const how[][2] = {
		{ "MCT_SPOOL", "1" }, { "MCT_SPLIT", "16" },
		{ "MCT_SPLIT", "256" }	/* chunks mct_unspace() takes by blocks */
	};
	struct mct_buf all[4] = { { 0 }, { 0 }, { 0 }, { 0 } };
	char *argv[2];
	int stream, status[4], i;

	if (tmpfd == -1) {
		const char *dir = getenv("TMPDIR");

		snprintf(tmppath, sizeof(tmppath), "%s/mct-fuzz-input.XXXXXX",
		    dir && *dir ? dir : "/tmp");
		if ((tmpfd = mkstemp(tmppath)) == -1) {
			perror(tmppath);
			abort();
		}
		atexit(rm_tmp);
	}
	put_tmp(data, n);
	/* (the reader reads the stream's lines as they are) */
	stream = n >= sizeof(pre) - 1 && memcmp(data, pre, sizeof(pre) - 1) == 0;
	if (n > 0)
		o.unit = (enum mct_unit)(data[n - 1] % 5);
	argv[0] = tmppath;
	argv[1] = NULL;
	r = mct_open(1, argv, &o);
	h = mct_header(r);
	CHECK(h->line != NULL, "a header line");
	/* (a stream's own header line is passed on as it is) */
	if (!stream)
		CHECK(h->linelen == strlen(h->line) &&
		    valid_compact(h->line, h->linelen), "a valid header line");
	mct_buf_add(&all[0], h->line, h->linelen);
	while (mct_next(r, &ev)) {
		struct mct_val v;
		int64_t ns;

		CHECK(ev->len > 0 && ev->json[0] == '{', "an event is an object");
		if (!stream)
			CHECK(valid_compact(ev->json, ev->len),
			    "an event of a trace is valid compact JSON");
		mct_buf_addc(&all[0], '\n');
		mct_buf_add(&all[0], ev->json, ev->len);
		mct_get_key(ev, "ts", &v);
		mct_get_key(ev, "name", &v);
		mct_get_key(ev, "args", &v);
		mct_get_ns(ev, "dur", &ns);
	}
	status[0] = mct_close(r);
	/*
	 * The file was read twice (pass 1 checks, pass 2 frames again, or
	 * takes the lines of a chunk of flat or plain events); it must read
	 * the same through the spool (as a pipe is read) and in parts and
	 * chunks by threads (MCT_SPLIT): the header, every event, the status.
	 */
	for (i = 1; i <= 3; i++) {
		setenv(how[i - 1][0], how[i - 1][1], 1);
		status[i] = read_all(&o, &all[i]);
		unsetenv(how[i - 1][0]);
		CHECK(all[i].len == all[0].len && status[i] == status[0] &&
		    memcmp(all[i].p, all[0].p, all[0].len) == 0,
		    i == 1 ? "the same read through the spool" :
		    "the same read in parts by threads");
	}
	/* through the spool in chunks, the final ones sent (mct-cat's way) */
	setenv("MCT_SPOOL", "1", 1);
	setenv("MCT_SPLIT", "16", 1);
	all[1].len = 0;
	status[1] = read_sent(&o, &all[1]);
	unsetenv("MCT_SPOOL");
	unsetenv("MCT_SPLIT");
	CHECK(all[1].len == all[0].len && status[1] == status[0] &&
	    memcmp(all[1].p, all[0].p, all[0].len) == 0,
	    "the same read through the spool and sent");
	/* (an input that is gzip already is read through the ring above) */
	if (!(n >= 2 && data[0] == 0x1f && data[1] == 0x8b))
		fuzz_gzip(data, n, &o, &all[0], status[0]);
	for (i = 0; i < 4; i++)
		mct_buf_free(&all[i]);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size > 1 << 20)
		return 0;
	fuzz_scan(data, size);
	fuzz_text(data, size);
	fuzz_event(data, size);
	fuzz_reader(data, size);
	return 0;
}
