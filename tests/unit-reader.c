/*
 * unit-reader.c - reader.c end to end on small temporary files: pairbe.c's
 * B/E pairs, top-level values over the limit, every operand's facts in the
 * header, two readers at once, runs of lines (MCT_WANT_LINE), mct_edit()'s
 * contexts of each thread; and rd_readv(), by which the tests of other
 * areas read too.
 */
#include "config.h"

#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <json-c/json.h>

#include "mct.h"
#include "unit.h"

static int rd_pair_be;		/* rd_readv() reads with --pair-be */

void
rd_free(struct rd *r)
{
	mct_buf_free(&r->events);
	mct_buf_free(&r->err);
	free(r->top);
	free(r->line);
	free(r->why);
	memset(r, 0, sizeof(*r));
}

/* Read operands with the reader, collecting events and stderr. */
void
rd_readv(int argc, const char **argv, enum mct_unit unit, struct rd *r)
{
	struct mct_opts o = { .unit = unit, .pair_be = rd_pair_be };
	struct mct_reader *rr;
	struct mct_event *ev;
	const struct mct_header *h;
	FILE *ef = tmpfile();
	int saved;
	char buf[4096];
	size_t n;

	memset(r, 0, sizeof(*r));
	fflush(stderr);
	saved = dup(2);
	if (getenv("MCT_UNIT_STDERR") == NULL)	/* to see a sanitizer's report */
		dup2(fileno(ef), 2);
	rr = mct_open(argc, (char **)argv, &o);
	h = mct_header(rr);
	r->h = *h;
	r->top = h->facts.top ? mct_xstrdup(h->facts.top) : NULL;
	r->line = h->line ? mct_xstrdup(h->line) : NULL;
	r->h.facts.top = r->h.line = NULL;
	/* the header's strings are the reader's: keep copies past mct_close() */
	r->why = h->facts.why ? strdup(h->facts.why) : NULL;
	r->h.facts.why = r->why;
	while (mct_next(rr, &ev)) {
		struct mct_val v;
		json_object *jo;

		mct_buf_add(&r->events, ev->json, ev->len);
		mct_buf_addc(&r->events, '\n');
		r->nev++;
		/* every event is one valid JSON object */
		mct_buf_grow(&r->err, ev->len + 1);
		memcpy(r->err.p, ev->json, ev->len);
		r->err.p[ev->len] = '\0';
		jo = json_tokener_parse(r->err.p);
		if (jo == NULL || json_object_get_type(jo) != json_type_object)
			r->badjson++;
		json_object_put(jo);
		if (mct_get_key(ev, "ts", &v) == 0 && v.type == MCT_J_NONE)
			r->badkey++;
	}
	r->status = mct_close(rr);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	r->err.len = 0;
	if (r->err.p)
		r->err.p[0] = '\0';
	rewind(ef);
	while ((n = fread(buf, 1, sizeof(buf), ef)) > 0)
		mct_buf_add(&r->err, buf, n);
	if (r->err.p == NULL)
		mct_buf_adds(&r->err, "");
	fclose(ef);
}

void
rd_readf(const char *path, enum mct_unit unit, struct rd *r)
{
	const char *argv[] = { path, NULL };

	rd_readv(1, argv, unit, r);
}

static int
events_are(const struct rd *r, const char *want)
{
	return r->events.len == strlen(want) && (r->events.len == 0 ||
	    memcmp(r->events.p, want, r->events.len) == 0);
}

void
t_read(const char *what, const struct rd *r, const char *events, int status,
    const char *errsub)
{
	int pass = events_are(r, events) && r->status == status &&
	    r->badjson == 0 && r->badkey == 0 &&
	    (errsub ? strstr(r->err.p, errsub) != NULL : r->err.len == 0);

	ok(pass, "reader: %s", what);
	if (!pass)
		diag("want status %d, events:\n%s  got status %d, events:\n%s"
		    "  stderr: %s", status, events, r->status,
		    r->events.p ? r->events.p : "", r->err.p);
}

/* pairbe.c: B/E pairs of a thread as X events. */
void
test_pairbe(void)
{
	struct rd r;
	const char *p;

	rd_pair_be = 1;
	p = TFILE("be.json", "{\"traceEvents\":["
	    "{\"ph\":\"B\",\"name\":\"o\",\"pid\":1,\"tid\":1,\"ts\":10,"
	    "\"args\":{\"a\":1,\"b\":2}},"
	    "{\"ph\":\"B\",\"name\":\"i\",\"pid\":1,\"tid\":1,\"ts\":12,\"dur\":9},"
	    "{\"ph\":\"B\",\"name\":\"t\",\"pid\":1,\"tid\":\"1\",\"ts\":13},"
	    "{\"ph\":\"E\",\"pid\":1,\"tid\":1,\"ts\":15,\"args\":{\"c\":3}},"
	    "{\"ph\":\"X\",\"name\":\"x\",\"pid\":1,\"tid\":1,\"ts\":16,\"dur\":1},"
	    "{\"ph\":\"E\",\"pid\":1,\"tid\":1,\"ts\":20,\"args\":{\"b\":5}},"
	    "{\"ph\":\"E\",\"pid\":1,\"tid\":1,\"ts\":21},"
	    "{\"ph\":\"B\",\"name\":\"late\",\"pid\":2,\"ts\":30},"
	    "{\"ph\":\"E\",\"pid\":2,\"ts\":29}"
	    "]}");
	rd_readf(p, MCT_UNIT_NS, &r);
	t_read("pairbe: nesting, E's args merged (E wins), dur replaced, "
	    "threads by their JSON text, the unpaired passed on and counted",
	    &r,
	    "{\"ph\":\"X\",\"name\":\"i\",\"pid\":1,\"tid\":1,\"ts\":12,"
	    "\"dur\":3,\"args\":{\"c\":3}}\n"
	    "{\"ph\":\"X\",\"name\":\"x\",\"pid\":1,\"tid\":1,\"ts\":16,\"dur\":1}\n"
	    "{\"ph\":\"X\",\"name\":\"o\",\"pid\":1,\"tid\":1,\"ts\":10,"
	    "\"dur\":10,\"args\":{\"a\":1,\"b\":5}}\n"
	    "{\"ph\":\"E\",\"pid\":1,\"tid\":1,\"ts\":21}\n"
	    "{\"ph\":\"B\",\"name\":\"late\",\"pid\":2,\"ts\":30}\n"
	    "{\"ph\":\"E\",\"pid\":2,\"ts\":29}\n"
	    "{\"ph\":\"B\",\"name\":\"t\",\"pid\":1,\"tid\":\"1\",\"ts\":13}\n",
	    0, "--pair-be: 2 B/E pairs made X events; passed on unchanged: "
	    "1 E with no open B on its thread, 1 B never closed, 1 E before "
	    "its B\n");
	ok(!r.h.facts.sorted && strstr(r.line, ",\"sorted\":false,") != NULL,
	    "pairbe: the header says sorted false");
	rd_free(&r);
	p = TFILE("nobe.json", "[{\"ph\":\"X\",\"ts\":1,\"dur\":2}]");
	rd_readf(p, MCT_UNIT_NS, &r);
	t_read("pairbe: no B/E, nothing said", &r,
	    "{\"ph\":\"X\",\"ts\":1,\"dur\":2}\n", 0, NULL);
	rd_free(&r);
	rd_pair_be = 0;
}

/* reader.c: top-level values over the limit leave the header. */
void
test_bigtop(void)
{
	struct mct_buf b = { 0 };
	struct rd r;
	const char *p;
	int i;

	mct_buf_adds(&b, "{\"a\":1,\"big\":\"");
	for (i = 0; i < MCT_TOP_MAX; i++)
		mct_buf_addc(&b, 'x');
	mct_buf_adds(&b, "\",\"traceEvents\":[{\"ts\":1}],\"z\":[1]}");
	p = tfile("bigtop.json", b.p, b.len);
	rd_readf(p, MCT_UNIT_NS, &r);
	t_read("a top-level value over 64 KB", &r, "{\"ts\":1}\n", 0, NULL);
	ok(r.top && strcmp(r.top, "\"a\":1,\"z\":[1]") == 0 &&
	    strstr(r.line, "\"top_before\":1,") != NULL &&
	    strstr(r.line, ",\"top_dropped\":{\"big\":65538},") != NULL,
	    "reader: a top-level value over 64 KB is named in top_dropped, "
	    "with its size, not in top");
	rd_free(&r);
	/* 65534 x and the quotes: 64 KB exactly */
	b.len -= strlen("\",\"traceEvents\":[{\"ts\":1}],\"z\":[1]}") + 2;
	mct_buf_adds(&b, "\",\"traceEvents\":[{\"ts\":1}],\"z\":[1]}");
	p = tfile("edgetop.json", b.p, b.len);
	rd_readf(p, MCT_UNIT_NS, &r);
	ok(r.top && strncmp(r.top, "\"a\":1,\"big\":\"xxx", 13) == 0 &&
	    strstr(r.line, "top_dropped") == NULL,
	    "reader: a top-level value of 64 KB stays in the header");
	rd_free(&r);
	mct_buf_free(&b);
}

void
test_reader(void)
{
	struct rd r;
	const char *p, *q;
	char want[1024], path[512];

	/* Object form */
	p = TFILE("obj.json", "{\"otherData\":{\"v\":1},\"traceEvents\":[\n"
	    "{\"name\":\"a\",\"ph\":\"X\",\"ts\":1.5,\"dur\":2,\"pid\":1},\n"
	    "{\"name\":\"b\",\"ph\":\"M\",\"ts\":0,\"args\":{\"name\":\"x\"}}\n"
	    "],\"displayTimeUnit\":\"ns\"}\n");
	rd_readf(p, MCT_UNIT_AUTO, &r);
	t_read("object form: ts/dur from us to ns", &r,
	    "{\"name\":\"a\",\"ph\":\"X\",\"ts\":1500,\"dur\":2000,\"pid\":1}\n"
	    "{\"name\":\"b\",\"ph\":\"M\",\"ts\":0,\"args\":{\"name\":\"x\"}}\n",
	    0, NULL);
	ok(r.h.facts.unit == MCT_UNIT_US &&
	    strcmp(r.h.facts.why, "a ts or dur has a fraction") == 0 &&
	    r.h.facts.has_origin && r.h.facts.origin == 1500 &&
	    r.h.facts.form == 'o' && r.top &&
	    strcmp(r.top, "\"otherData\":{\"v\":1},"
	    "\"displayTimeUnit\":\"ns\"") == 0 && r.h.facts.ntop_before == 1,
	    "reader: object form header: unit, why, origin (M aside), form, top");
	snprintf(want, sizeof(want), "{\"name\":\"mct_header\",\"ph\":\"M\","
	    "\"args\":{\"version\":1,\"unit\":\"us\",\"unit_from\":\"a ts or dur "
	    "has a fraction\",\"origin\":1500,\"form\":\"object\",\"sorted\":true,\"top_before\""
	    ":1,\"top\":{\"otherData\":{\"v\":1},\"displayTimeUnit\":\"ns\"},"
	    "\"sources\":[\"%s\"]}}", p);
	ok(r.line && strcmp(r.line, want) == 0 && r.h.linelen == strlen(want),
	    "reader: the header line");
	if (r.line && strcmp(r.line, want) != 0)
		diag("got %s", r.line);
	rd_free(&r);

	/* Array form, indented, integer ts: the Chrome default unit */
	p = TFILE("arr.json", "[\n  {\"ts\": 10, \"dur\": 5, \"ph\": \"X\"},\n"
	    "  {\"ts\": 3, \"ph\": \"B\"}\n]\n");
	rd_readf(p, MCT_UNIT_AUTO, &r);
	t_read("array form, indented", &r, "{\"ts\":10000,\"dur\":5000,\"ph\":\"X\"}\n"
	    "{\"ts\":3000,\"ph\":\"B\"}\n", 0, NULL);
	ok(r.h.facts.unit == MCT_UNIT_US &&
	    strcmp(r.h.facts.why, "Chrome trace format default") == 0 &&
	    r.h.facts.origin == 3000 && r.h.facts.form == 'a' &&
	    r.top == NULL && r.h.facts.ntop_before == 0,
	    "reader: array form header");
	rd_free(&r);
	rd_readf(p, MCT_UNIT_NS, &r);
	t_read("--unit ns keeps ts", &r, "{\"ts\":10,\"dur\":5,\"ph\":\"X\"}\n"
	    "{\"ts\":3,\"ph\":\"B\"}\n", 0, NULL);
	ok(r.h.facts.unit == MCT_UNIT_NS &&
	    strcmp(r.h.facts.why, "given by --unit") == 0 &&
	    r.h.facts.origin == 3, "reader: --unit ns header");
	rd_free(&r);
	rd_readf(p, MCT_UNIT_MS, &r);
	t_read("--unit ms", &r, "{\"ts\":10000000,\"dur\":5000000,\"ph\":\"X\"}\n"
	    "{\"ts\":3000000,\"ph\":\"B\"}\n", 0, NULL);
	rd_free(&r);

	/* NDJSON with args.co_id: ns */
	p = TFILE("nd.json", "{\"ts\":100,\"dur\":7,\"args\":{\"co_id\":1}}\n"
	    "{\"ts\":50,\"ph\":\"X\"}\n");
	rd_readf(p, MCT_UNIT_AUTO, &r);
	t_read("NDJSON with args.co_id is ns", &r,
	    "{\"ts\":100,\"dur\":7,\"args\":{\"co_id\":1}}\n"
	    "{\"ts\":50,\"ph\":\"X\"}\n", 0, NULL);
	ok(r.h.facts.unit == MCT_UNIT_NS &&
	    strcmp(r.h.facts.why, "events carry args.co_id (mcTracer)") == 0 &&
	    r.h.facts.origin == 50 && r.h.facts.form == 'n',
	    "reader: NDJSON header");
	rd_free(&r);

	/* Cut off inside an event */
	p = TFILE("cut.json", "{\"traceEvents\":[{\"ts\":1},{\"ts\":2},{\"ts\":3");
	rd_readf(p, MCT_UNIT_AUTO, &r);
	t_read("cut off inside an event: the events before it", &r,
	    "{\"ts\":1000}\n{\"ts\":2000}\n", 1,
	    ":34: cut off inside an event at the end of the input");
	rd_free(&r);
	/* Cut after a complete event: not damage */
	p = TFILE("cut2.json", "[{\"ts\":1},\n{\"ts\":2},\n");
	rd_readf(p, MCT_UNIT_AUTO, &r);
	t_read("no closing ] after a trailing comma is fine", &r,
	    "{\"ts\":1000}\n{\"ts\":2000}\n", 0, NULL);
	rd_free(&r);
	p = TFILE("cut3.json", "{\"a\":1,\"traceEvents\":[{\"ts\":1}");
	rd_readf(p, MCT_UNIT_AUTO, &r);
	t_read("no closing ]} is fine", &r, "{\"ts\":1000}\n", 0, NULL);
	ok(r.h.facts.form == 'o' && r.top && strcmp(r.top, "\"a\":1") == 0,
	    "reader: the keys before traceEvents of a cut trace");
	rd_free(&r);

	/* gzip, two members */
	snprintf(path, sizeof(path), "%s/t.json.gz", tmpdir);
	write_gz(path, "wb", "[{\"ts\":1,\"ph\":\"X\"},\n");
	write_gz(path, "ab", "{\"ts\":2.5,\"ph\":\"X\"}]\n");
	rd_readf(path, MCT_UNIT_AUTO, &r);
	t_read("gzip with two members", &r, "{\"ts\":1000,\"ph\":\"X\"}\n"
	    "{\"ts\":2500,\"ph\":\"X\"}\n", 0, NULL);
	rd_free(&r);
	/* gzip cut off: the events before it, then the message */
	{
		FILE *f;
		char gz[4096];
		size_t n;

		write_gz(path, "wb", "[{\"ts\":1},{\"ts\":2},{\"ts\":3}]");
		f = fopen(path, "rb");
		n = fread(gz, 1, sizeof(gz), f);
		fclose(f);
		p = tfile("cutgz.json.gz", gz, n - 8);
		rd_readf(p, MCT_UNIT_AUTO, &r);
		t_read("gzip cut off", &r, "{\"ts\":1000}\n{\"ts\":2000}\n"
		    "{\"ts\":3000}\n", 1, "gzip stream cut off");
		rd_free(&r);
	}

	/*
	 * gzip framed in blocks that convert their times as they go (the
	 * fuzzer's find: the spans of a block's first give-up were read
	 * before they were made): a co_id after integer times gives the
	 * guess up (ns after all); three times after a fraction are each
	 * converted (us for sure)
	 */
	{
		static const char *const in[] = {
			"[{\"ts\":0},\n{\"ts\":1,\"dur\":2},{\"ts\":3,\"dur\":4},"
			"{\"ts\":5,\"args\":{\"co_id\":1}},{\"ts\":6,\"dur\":1}]",
			"[{\"ts\":0.5},\n{\"ts\":1,\"dur\":2.5},"
			"{\"ts\":3,\"ts\":4,\"dur\":5},{\"ts\":6}]"
		}, *const out[] = {
			"{\"ts\":0}\n{\"ts\":1,\"dur\":2}\n{\"ts\":3,\"dur\":4}\n"
			"{\"ts\":5,\"args\":{\"co_id\":1}}\n{\"ts\":6,\"dur\":1}\n",
			"{\"ts\":500}\n{\"ts\":1000,\"dur\":2500}\n"
			"{\"ts\":3000,\"ts\":4000,\"dur\":5000}\n{\"ts\":6000}\n"
		};
		static const char *const split[] = { "16", "40", "64" };
		char what[128];
		size_t i, j;

		for (i = 0; i < 2; i++)
			for (j = 0; j < 3; j++) {
				write_gz(path, "wb", in[i]);
				setenv("MCT_SPLIT", split[j], 1);
				setenv("MCT_GZSLOT", "16", 1);
				rd_readf(path, MCT_UNIT_AUTO, &r);
				unsetenv("MCT_SPLIT");
				unsetenv("MCT_GZSLOT");
				snprintf(what, sizeof(what), "gzip in blocks "
				    "of %s, times converted as framed (%s)",
				    split[j], i ? "us" : "ns after all");
				t_read(what, &r, out[i], 0, NULL);
				rd_free(&r);
			}
	}

	/* string ts and dur (rocmProfileData) */
	p = TFILE("str.json", "{\"traceEvents\":[{},{\"ts\":\"123\",\"dur\":\"4\","
	    "\"ph\":\"X\"},{\"ts\":\"5.5\",\"ph\":\"X\"}]}");
	rd_readf(p, MCT_UNIT_AUTO, &r);
	t_read("string ts and dur become numbers", &r, "{}\n{\"ts\":123000,"
	    "\"dur\":4000,\"ph\":\"X\"}\n{\"ts\":5500,\"ph\":\"X\"}\n", 0, NULL);
	ok(r.h.facts.origin == 5500, "reader: the origin from string ts");
	rd_free(&r);

	/* exact decimal conversion of big µs values */
	p = TFILE("big.json", "[{\"ts\":1712195495519689.047,\"dur\":0.0005},"
	    "{\"ts\":1712195495519689.0475,\"dur\":-0.0015}]");
	rd_readf(p, MCT_UNIT_AUTO, &r);
	t_read("big µs values to exact ns, rounded half away from zero (a "
	    "negative dur kept, and told)", &r,
	    "{\"ts\":1712195495519689047,\"dur\":1}\n"
	    "{\"ts\":1712195495519689048,\"dur\":-2}\n", 1,
	    "big.json:42: dur -0.0015 is negative; the event is kept as "
	    "written");
	ok(r.h.facts.origin == 1712195495519689047LL, "reader: an origin beyond 2^53 "
	    "is exact");
	rd_free(&r);

	/* a syntax error: the event is dropped, reading resumes */
	p = TFILE("err.json", "[{\"ts\":1},\n{\"ts\":2 x},\n{\"ts\":3}]\n");
	rd_readf(p, MCT_UNIT_AUTO, &r);
	t_read("a syntax error drops one event", &r, "{\"ts\":1000}\n"
	    "{\"ts\":3000}\n", 1, ":19: expected ',' or '}'; the event at "
	    "offset 11 is dropped");
	rd_free(&r);
	p = TFILE("err2.json", "[{\"ts\":1},{\"ts\":2,\"a\":[1 2]},{\"ts\":3},"
	    "{\"ts\":4}]");
	rd_readf(p, MCT_UNIT_AUTO, &r);
	t_read("resync after \"},\" on one line", &r, "{\"ts\":1000}\n"
	    "{\"ts\":3000}\n{\"ts\":4000}\n", 1, "expected ',' or ']'");
	rd_free(&r);

	/* repairs keep the event */
	p = TFILE("fix.json", "[{\"name\":\"a\\qb\",\"ts\":1},{\"n\":NaN,\"ts\":2,}]");
	rd_readf(p, MCT_UNIT_AUTO, &r);
	t_read("repairs keep the event", &r, "{\"name\":\"a\\\\qb\",\"ts\":1000}\n"
	    "{\"n\":null,\"ts\":2000}\n", 1, "invalid escape kept as a backslash");
	ok(strstr(r.err.p, "NaN or Infinity written as null") &&
	    strstr(r.err.p, "trailing comma dropped"), "reader: every kind of "
	    "repair is reported");
	rd_free(&r);

	/* A non-object element is skipped even with a trailing comma inside. */
	p = TFILE("nonobj2.json", "[[1,],{\"ts\":1}]");
	rd_readf(p, MCT_UNIT_AUTO, &r);
	ok(events_are(&r, "{\"ts\":1000}\n") && r.status == 1 &&
	    strstr(r.err.p, "not an event"), "reader: [[1,],{\"ts\":1}] keeps the event (got %d "
	    "events)", r.nev);
	rd_free(&r);

	/* not events */
	p = TFILE("nonobj.json", "[1,{\"ts\":1},\"x\"]");
	rd_readf(p, MCT_UNIT_AUTO, &r);
	t_read("array elements that are not objects are skipped", &r,
	    "{\"ts\":1000}\n", 1, ":1: not an event (not a JSON object); skipped");
	rd_free(&r);
	p = TFILE("nottrace.json", "hello\n");
	rd_readf(p, MCT_UNIT_AUTO, &r);
	t_read("not a trace: a usage error, not damage", &r, "", 2,
	    ":0: not a trace: expected '{' or '[', found 'h'");
	rd_free(&r);
	p = TFILE("empty.json", "");
	rd_readf(p, MCT_UNIT_AUTO, &r);
	t_read("an empty file: a warning", &r, "", 0,
	    ": empty input: no events");
	ok(!r.h.facts.has_origin && strcmp(r.h.facts.why, "no events") == 0,
	    "reader: an empty file has no origin, \"no events\"");
	rd_free(&r);
	p = TFILE("bom.json", "\xef\xbb\xbf[{\"ts\":1}]");
	rd_readf(p, MCT_UNIT_AUTO, &r);
	t_read("a UTF-8 BOM is skipped", &r, "{\"ts\":1000}\n", 0, NULL);
	rd_free(&r);
	p = TFILE("crlf.json", "{\"ts\":1}\r\n{\"ts\":2}\r\n");
	rd_readf(p, MCT_UNIT_AUTO, &r);
	t_read("NDJSON with CRLF", &r, "{\"ts\":1000}\n{\"ts\":2000}\n", 0, NULL);
	rd_free(&r);

	/* unreadable operands */
	snprintf(path, sizeof(path), "%s/nope.json", tmpdir);
	rd_readf(path, MCT_UNIT_AUTO, &r);
	t_read("a missing file", &r, "", 2, "nope.json: No such file or directory");
	rd_free(&r);
	rd_readf(tmpdir, MCT_UNIT_AUTO, &r);
	t_read("a directory", &r, "", 2, ": is a directory");
	rd_free(&r);

	/* an mct stream is read directly */
	p = TFILE("stream.ndjson", "{\"name\":\"mct_header\",\"ph\":\"M\",\"args\":"
	    "{\"version\":1,\"unit\":\"us\",\"unit_from\":\"given by --unit\","
	    "\"origin\":5,\"form\":\"array\",\"top_before\":0,\"top\":{},"
	    "\"sources\":[\"x\"]}}\n{\"ts\":5,\"ph\":\"X\"}\n\n{\"ts\":7,\"ph\":"
	    "\"X\"}\n");
	rd_readf(p, MCT_UNIT_AUTO, &r);
	t_read("a stream: events as they are", &r, "{\"ts\":5,\"ph\":\"X\"}\n"
	    "{\"ts\":7,\"ph\":\"X\"}\n", 0, NULL);
	ok(r.h.facts.unit == MCT_UNIT_US && r.h.facts.has_origin &&
	    r.h.facts.origin == 5 && r.h.facts.form == 'a' &&
	    strcmp(r.h.facts.why, "given by --unit") == 0 &&
	    r.line && strncmp(r.line, "{\"name\":\"mct_header\"", 20) == 0 &&
	    strchr(r.line, '\n') == NULL, "reader: a stream's own header");
	rd_free(&r);
	/* (stream lines are checked for structure only, and not repaired) */
	p = TFILE("stream2.ndjson", "{\"name\":\"mct_header\",\"ph\":\"M\",\"args\":"
	    "{\"version\":1,\"unit\":\"ns\",\"origin\":1}}\n{\"ts\":1,\n"
	    "{\"ts\":2}\n{\"ts\":3} x\n[1]\n{\"ts\":5,\"ph\":\"X\",}\n{\"ts\":6}");
	rd_readf(p, MCT_UNIT_AUTO, &r);
	t_read("a stream's damaged lines are skipped", &r,
	    "{\"ts\":2}\n{\"ts\":6}\n", 1,
	    ":2: not a complete JSON object; line skipped");
	ok(strstr(r.err.p, ":4: not a complete JSON object; line skipped") &&
	    strstr(r.err.p, ":5: not a complete JSON object; line skipped") &&
	    strstr(r.err.p, ":6: not a complete JSON object; line skipped"),
	    "reader: stream messages name the line");
	rd_free(&r);

	/* two operands: one header, the smallest origin */
	{
		const char *argv[3];

		argv[0] = TFILE("two1.json", "[{\"ts\":5.5}]");
		argv[1] = TFILE("two2.json", "[{\"ts\":2}]");
		argv[2] = NULL;
		rd_readv(2, argv, MCT_UNIT_AUTO, &r);
		t_read("two operands, in order", &r, "{\"ts\":5500,\"rank\":0}\n{\"ts\":2000,\"rank\":1}\n",
		    0, NULL);
		ok(r.h.facts.origin == 2000 && r.line && strstr(r.line, "\"sources\":["),
		    "reader: two operands: the smallest origin (got %" PRId64 ")",
		    r.h.facts.origin);
		rd_free(&r);
	}

	/* big input: events across the 1 MB read buffer */
	{
		struct mct_buf big = { 0 };
		int i, nbad = 0;
		char line[128];

		mct_buf_adds(&big, "{\"traceEvents\":[\n");
		for (i = 0; i < 30000; i++) {
			snprintf(line, sizeof(line), "%s{\"name\":\"kernel %d\",\"ph\":"
			    "\"X\",\"ts\":%d.%03d,\"dur\":1}", i ? ",\n" : "", i, i, i % 1000);
			mct_buf_adds(&big, line);
		}
		mct_buf_adds(&big, "\n]}\n");
		p = tfile("big2.json", big.p, big.len);
		rd_readf(p, MCT_UNIT_AUTO, &r);
		for (q = r.events.p, i = 0; q && i < r.nev; i++) {
			const char *tsp = strstr(q, "\"ts\":");
			long long ts = tsp ? strtoll(tsp + 5, NULL, 10) : -1;

			snprintf(line, sizeof(line), "{\"name\":\"kernel %d\",", i);
			if (strncmp(q, line, strlen(line)) != 0 ||
			    ts != (long long)i * 1000 + i % 1000)
				nbad++;
			q = strchr(q, '\n');
			q = q ? q + 1 : NULL;
		}
		ok(r.nev == 30000 && nbad == 0 && r.status == 0 && r.err.len == 0,
		    "reader: 30000 events (%zu bytes) across buffer refills (%d "
		    "events, %d wrong)", big.len, r.nev, nbad);
		rd_free(&r);
		mct_buf_free(&big);
	}

	/* A string ts that is not a JSON number does not become one. */
	p = TFILE("badts.json", "[{\"ts\":\"+5\",\"ph\":\"X\"},{\"ts\":\".5\"},"
	    "{\"ts\":1}]");
	rd_readf(p, MCT_UNIT_AUTO, &r);
	t_read("\"ts\":\"+5\" and \"ts\":\".5\" stay strings", &r,
	    "{\"ts\":\"+5\",\"ph\":\"X\"}\n{\"ts\":\".5\"}\n{\"ts\":1000}\n", 0,
	    NULL);
	ok(r.h.facts.origin == 1000, "reader: strings that are not numbers "
	    "give no origin (got %" PRId64 ")", r.h.facts.origin);
	rd_free(&r);
	/* An exponent in an ns source is rewritten as an integer. */
	p = TFILE("expts.json", "{\"ts\":1e3,\"dur\":\"25E0\",\"args\":"
	    "{\"co_id\":1}}\n{\"ts\":1500}\n");
	rd_readf(p, MCT_UNIT_AUTO, &r);
	t_read("an exponent in an ns source becomes an integer", &r,
	    "{\"ts\":1000,\"dur\":25,\"args\":{\"co_id\":1}}\n{\"ts\":1500}\n",
	    0, NULL);
	rd_free(&r);

}

/* Every operand's facts in the header; each event knows its operand. */
void
test_sources(void)
{
	const char *argv[3];
	struct mct_opts o = { .unit = MCT_UNIT_AUTO };
	struct mct_reader *r;
	struct mct_event *ev;
	const struct mct_header *h;
	const struct mct_source *s;
	int n[2] = { 0, 0 }, other = 0, order = 1, last = 0;

	argv[0] = TFILE("src-a.json", "{\"otherData\":{\"v\":1},\"traceEvents\":[\n"
	    "{\"name\":\"a\",\"ph\":\"X\",\"ts\":1.5,\"dur\":2},\n"
	    "{\"name\":\"b\",\"ph\":\"X\",\"ts\":0.5}\n],\"k\":2}\n");
	argv[1] = TFILE("src-b.json", "{\"ts\":100,\"args\":{\"co_id\":1}}\n"
	    "{\"ts\":150,\"ph\":\"X\"}\n{\"ts\":170,\"ph\":\"X\"}\n");
	argv[2] = NULL;
	r = mct_open(2, (char **)argv, &o);
	h = mct_header(r);
	ok(h->nsrc == 2 && h->src != NULL, "sources: two operands, two sources");
	s = &h->src[0];
	ok(h->nsrc == 2 && strcmp(s->path, argv[0]) == 0 &&
	    strcmp(s->name, argv[0]) == 0 && s->ok && !s->stream &&
	    s->facts.unit == MCT_UNIT_US &&
	    strcmp(s->facts.why, "a ts or dur has a fraction") == 0 &&
	    s->facts.has_origin && s->facts.origin == 500 &&
	    s->facts.form == 'o' && s->facts.top &&
	    strcmp(s->facts.top, "\"otherData\":{\"v\":1},\"k\":2") == 0 &&
	    s->facts.ntop_before == 1 && !s->facts.sorted &&
	    s->nevents == 2 && !s->damaged,
	    "sources: the first operand's facts (object, us, top-level keys)");
	s = &h->src[1];
	ok(h->nsrc == 2 && strcmp(s->path, argv[1]) == 0 && s->ok &&
	    s->facts.unit == MCT_UNIT_NS &&
	    strcmp(s->facts.why, "events carry args.co_id (mcTracer)") == 0 &&
	    s->facts.has_origin && s->facts.origin == 100 &&
	    s->facts.form == 'n' && s->facts.top == NULL &&
	    s->facts.ntop_before == 0 &&
	    s->facts.sorted && s->nevents == 3,
	    "sources: the second operand's facts (NDJSON, ns, no keys)");
	ok(h->facts.has_origin && h->facts.origin == 100 &&
	    h->facts.unit == MCT_UNIT_US && h->facts.form == 'o' &&
	    h->facts.top &&
	    strcmp(h->facts.top, "\"otherData\":{\"v\":1},\"k\":2") == 0 &&
	    !h->facts.sorted && h->nread == 2,
	    "sources: the header's own fields are as before (the first's)");
	while (mct_next(r, &ev)) {
		if (ev->source == 0 || ev->source == 1)
			n[ev->source]++;
		else
			other++;
		if (ev->source < last)
			order = 0;
		last = ev->source;
		if (ev->source >= 0 && ev->source < h->nsrc &&
		    strcmp(ev->file, h->src[ev->source].name) != 0)
			other++;
	}
	ok(n[0] == 2 && n[1] == 3 && other == 0 && order,
	    "sources: each event knows its operand (ev->source, ev->file)");
	ok(mct_close(r) == 0, "sources: status 0");

	/* an mct stream's facts come from its header line */
	argv[0] = TFILE("src-s.nd", "{\"name\":\"mct_header\",\"ph\":\"M\","
	    "\"args\":{\"version\":1,\"unit\":\"ms\",\"unit_from\":\"given\","
	    "\"origin\":7,\"form\":\"array\",\"sorted\":true,\"top_before\":0,"
	    "\"top\":{\"x\":1},\"sources\":[\"t.json\"]}}\n{\"ts\":7}\n");
	argv[1] = "/nonexistent/mct-unit";
	fflush(stderr);
	{
		int saved = dup(2), fd = open("/dev/null", O_WRONLY);

		dup2(fd, 2);
		r = mct_open(2, (char **)argv, &o);
		fflush(stderr);
		dup2(saved, 2);
		close(saved);
		close(fd);
	}
	h = mct_header(r);
	s = &h->src[0];
	ok(h->nsrc == 2 && s->ok && s->stream && s->facts.unit == MCT_UNIT_MS &&
	    strcmp(s->facts.why, "given") == 0 && s->facts.has_origin &&
	    s->facts.origin == 7 &&
	    s->facts.form == 'a' && s->facts.sorted && s->facts.top && strcmp(s->facts.top, "\"x\":1") == 0,
	    "sources: a stream operand's facts from its header");
	ok(h->nsrc == 2 && !h->src[1].ok && strcmp(h->src[1].path, argv[1]) == 0,
	    "sources: an operand that cannot be read is there, not ok");
	ok(mct_close(r) == MCT_EXIT_USAGE, "sources: status 2");
}

/* Events of a reader, one line each, up to max of them (0: all). */
static int
take(struct mct_reader *r, struct mct_buf *b, int max)
{
	struct mct_event *ev;
	int n = 0;

	while ((max == 0 || n < max) && mct_next(r, &ev)) {
		mct_buf_add(b, ev->json, ev->len);
		mct_buf_addc(b, ' ');
		mct_buf_addi(b, (int64_t)ev->where);
		mct_buf_addc(b, ' ');
		mct_buf_adds(b, ev->file);
		mct_buf_addc(b, '\n');
		n++;
	}
	return n;
}

static int
open_read(const char *path, int spool, struct mct_buf *b)
{
	const char *argv[] = { path, NULL };
	struct mct_opts o = { .unit = MCT_UNIT_AUTO };
	struct mct_reader *r;

	if (spool)
		setenv("MCT_SPOOL", "1", 1);
	r = mct_open(1, (char **)argv, &o);
	unsetenv("MCT_SPOOL");
	take(r, b, 0);
	return mct_close(r);
}

/* Two readers at once, their calls interleaved: each as if alone. */
void
test_two_readers(void)
{
	struct mct_buf ta = { 0 }, tb = { 0 }, a1 = { 0 }, b1 = { 0 };
	struct mct_buf a2 = { 0 }, b2 = { 0 };
	const char *pa, *pb, *argv[2] = { NULL, NULL };
	struct mct_opts o = { .unit = MCT_UNIT_AUTO };
	struct mct_reader *ra, *rb;
	int i, na, nb, sa, sb, more;

	/* a: an indented Object form in us, b: NDJSON in ns, spooled */
	mct_buf_adds(&ta, "{\"traceEvents\": [\n");
	for (i = 0; i < 3000; i++) {
		char ev[128];

		snprintf(ev, sizeof(ev), "%s  {\"name\": \"a%d\", \"ph\": \"X\", "
		    "\"ts\": %d.5, \"dur\": %d}", i ? ",\n" : "", i, i * 3, i % 7);
		mct_buf_adds(&ta, ev);
	}
	mct_buf_adds(&ta, "\n], \"displayTimeUnit\": \"ns\"}\n");
	for (i = 0; i < 2000; i++) {
		char ev[128];

		snprintf(ev, sizeof(ev), "{\"name\":\"b%d\",\"ts\":%d,\"dur\":1,"
		    "\"args\":{\"co_id\":%d}}\n", i, 5000 - i, i);
		mct_buf_adds(&tb, ev);
	}
	pa = tfile("two-a.json", ta.p, ta.len);
	pb = tfile("two-b.json", tb.p, tb.len);
	sa = open_read(pa, 0, &a1);
	sb = open_read(pb, 1, &b1);
	argv[0] = pa;
	setenv("MCT_SPLIT", "16384", 1);	/* a framed by threads in pass 1 */
	ra = mct_open(1, (char **)argv, &o);
	unsetenv("MCT_SPLIT");
	argv[0] = pb;
	setenv("MCT_SPOOL", "1", 1);
	rb = mct_open(1, (char **)argv, &o);
	unsetenv("MCT_SPOOL");
	for (more = 1; more; ) {
		na = take(ra, &a2, 1);
		nb = take(rb, &b2, 3);
		more = na > 0 || nb > 0;
	}
	ok(a1.len > 0 && a1.len == a2.len && memcmp(a1.p, a2.p, a1.len) == 0 &&
	    b1.len > 0 && b1.len == b2.len && memcmp(b1.p, b2.p, b1.len) == 0,
	    "two readers: interleaved, each gives the events it gives alone");
	ok(mct_header(ra)->facts.unit == MCT_UNIT_US &&
	    mct_header(rb)->facts.unit == MCT_UNIT_NS &&
	    strcmp(mct_header(ra)->src[0].path, pa) == 0 &&
	    strcmp(mct_header(rb)->src[0].path, pb) == 0,
	    "two readers: each its own header and sources");
	ok(mct_close(ra) == sa && mct_close(rb) == sb && sa == 0 && sb == 0,
	    "two readers: the statuses of each alone");
	mct_buf_free(&ta);
	mct_buf_free(&tb);
	mct_buf_free(&a1);
	mct_buf_free(&b1);
	mct_buf_free(&a2);
	mct_buf_free(&b2);
}

/* An edit that changes nothing. */
static void
edit_same(void *arg, void *ctx, const char *text, size_t len,
    struct mct_buf *out)
{
	(void)arg;
	(void)ctx;
	out->len = 0;
	mct_buf_add(out, text, len);
}

static const struct mct_editor same_editor = { NULL, edit_same, NULL,
    NULL };

/*
 * MCT_WANT_LINE: mct_next() hands out the whole lines of pass 2's chunks
 * as one event each, for a tool that reads lines only (the first event
 * of an operand alone, then the rest of its chunk, then whole chunks).
 * The lines are those of the events one at a time, and the events' line
 * numbers (ev->where: a run's last) count the lines handed out either
 * way.  A tool whose edit the reader refuses gets events one at a time.
 */
void
test_next_lines(void)
{
	struct mct_buf t = { 0 }, alone = { 0 }, mixed = { 0 };
	struct mct_opts o = { .unit = MCT_UNIT_AUTO };
	struct mct_reader *r;
	struct mct_event *ev;
	const char *argv[1], *us = NULL;
	unsigned long long nlines, n = 0;
	size_t k;
	int i, pass, form, blocks, badwhere, refused = 0;

	for (form = 0; form < 2; form++) {
		/* indented in fractional us (compacted, converted); compact ns */
		t.len = 0;
		mct_buf_adds(&t, "[\n");
		for (i = 0; i < 3000; i++) {
			char e[160];

			snprintf(e, sizeof(e), form == 0 ? "%s  {\"name\": \"k%d\", "
			    "\"ph\": \"X\", \"ts\": %d.5, \"dur\": 2.25}" :
			    "%s{\"name\":\"k%d\",\"ph\":\"X\",\"ts\":%d,\"dur\":2,"
			    "\"args\":{\"co_id\":1}}", i ? ",\n" : "", i, 1000 + i);
			mct_buf_adds(&t, e);
		}
		mct_buf_adds(&t, "\n]\n");
		argv[0] = tfile("next-lines.json", t.p, t.len);
		if (form == 0)
			us = tfile("next-lines-us.json", t.p, t.len);
		alone.len = mixed.len = 0;
		setenv("MCT_SPLIT", "4096", 1);	/* pass 2 by threads, chunks */
		for (pass = 0; pass < 2; pass++) {
			o.want = pass ? MCT_WANT_LINE : MCT_WANT_EVENT;
			r = mct_open(1, (char **)argv, &o);
			blocks = badwhere = 0;
			nlines = 0;
			while (mct_next(r, &ev)) {
				for (n = 1, k = 0; k < ev->len; k++)
					n += ev->json[k] == '\n';
				blocks += n > 1;
				badwhere += ev->where != (nlines += n);
				mct_buf_add(pass ? &mixed : &alone, ev->json, ev->len);
				mct_buf_addc(pass ? &mixed : &alone, '\n');
			}
			(void)mct_close(r);
		}
		unsetenv("MCT_SPLIT");
		ok(alone.len > 0 && alone.len == mixed.len && memcmp(alone.p,
		    mixed.p, alone.len) == 0 && blocks > 10 && badwhere == 0 &&
		    nlines == 3000, "MCT_WANT_LINE, %s: the lines of the events "
		    "one at a time, %d runs of lines, every line counted (%d "
		    "wrong, %llu lines)", form == 0 ? "indented us" :
		    "compact ns", blocks, badwhere, nlines);
	}
	/*
	 * An edit refused (the spool's lines began to be handed out): the
	 * tool does the edit's work, the events come one by one.
	 */
	setenv("MCT_SPOOL", "1", 1);
	setenv("MCT_SPLIT", "4096", 1);
	argv[0] = us;
	o.want = MCT_WANT_LINE;
	for (pass = 0; pass < 2; pass++) {
		r = mct_open(1, (char **)argv, &o);
		nlines = blocks = 0;
		while (mct_next(r, &ev)) {
			if (nlines++ == 0 && pass == 1)
				refused = mct_edit(r, &same_editor, NULL);
			blocks += memchr(ev->json, '\n', ev->len) != NULL;
		}
		(void)mct_close(r);
		if (pass == 0)
			n = (unsigned long long)blocks;
	}
	unsetenv("MCT_SPLIT");
	unsetenv("MCT_SPOOL");
	ok(n > 10 && refused == -1 && blocks == 0, "MCT_WANT_LINE, the "
	    "tool's edit refused: every event alone (%llu events, %d runs; "
	    "%llu without the edit)", nlines, blocks, n);
	mct_buf_free(&t);
	mct_buf_free(&alone);
	mct_buf_free(&mixed);
}

/* An editor's counts, over the contexts of every thread (test_editor()). */
struct edits {
	pthread_mutex_t	 mu;
	pthread_t	 main;		/* the reader's thread */
	int		 begun, ended, wrong;	/* wrong: a context elsewhere */
	int		 off;		/* contexts of other threads */
	long long	 lines;
};

struct ectx {
	pthread_t	 self;
	long long	 lines;
};

static void *
ed_begin(void *arg)
{
	struct edits *e = arg;
	struct ectx *c = mct_xmalloc(sizeof(*c));

	c->self = pthread_self();
	c->lines = 0;
	pthread_mutex_lock(&e->mu);
	e->begun++;
	e->off += !pthread_equal(c->self, e->main);
	pthread_mutex_unlock(&e->mu);
	return c;
}

/* Each line with "e":1 first; counted in the thread's own context. */
static void
ed_line(void *arg, void *ctx, const char *text, size_t len,
    struct mct_buf *out)
{
	struct ectx *c = ctx;

	(void)arg;
	c->lines++;
	if (!pthread_equal(c->self, pthread_self()))
		c->lines = -1000000;
	out->len = 0;
	mct_buf_adds(out, "{\"e\":1,");
	mct_buf_add(out, text + 1, len - 1);
}

static void
ed_end(void *arg, void *ctx)
{
	struct edits *e = arg;
	struct ectx *c = ctx;

	pthread_mutex_lock(&e->mu);
	e->ended++;
	e->lines += c->lines;
	e->wrong += !pthread_equal(c->self, pthread_self());
	pthread_mutex_unlock(&e->mu);
	free(c);
}

/*
 * mct_edit(): every line edited once, each thread with a context of its
 * own, made in it and ended in it; all of them ended when mct_next()
 * finds the end (or at mct_close(), for a tool that stops before): by
 * threads of pass 2, and by the reader's thread alone.
 */
void
test_editor(void)
{
	static const struct mct_editor ed = { ed_begin, ed_line, ed_end,
	    NULL };
	struct mct_opts o = { .unit = MCT_UNIT_AUTO };
	struct mct_buf t = { 0 };
	struct mct_reader *r;
	struct mct_event *ev;
	struct edits e;
	const char *argv[1], *how;
	int i, form, n, bad;

	for (form = 0; form < 2; form++) {
		/* indented us by pass 2's threads; an mct stream alone */
		how = form == 0 ? "pass 2 by threads" : "the reader's thread";
		t.len = 0;
		mct_buf_adds(&t, form == 0 ? "[\n" : "{\"name\":\"mct_header\","
		    "\"ph\":\"M\",\"args\":{\"version\":1,\"unit\":\"ns\"}}\n");
		for (i = 0; i < 3000; i++) {
			char l[128];

			if (form == 0)
				snprintf(l, sizeof(l), "%s  {\"name\": \"k%d\", "
				    "\"ph\": \"X\", \"ts\": %d.5, \"dur\": 2.25}",
				    i ? ",\n" : "", i, 1000 + i);
			else
				snprintf(l, sizeof(l), "{\"name\":\"k%d\",\"ph\":"
				    "\"X\",\"ts\":%d,\"dur\":2}\n", i, 1000 + i);
			mct_buf_adds(&t, l);
		}
		mct_buf_adds(&t, form == 0 ? "\n]\n" : "");
		argv[0] = tfile(form == 0 ? "editor.json" : "editor.nd", t.p,
		    t.len);
		setenv("MCT_SPLIT", "4096", 1);
		memset(&e, 0, sizeof(e));
		pthread_mutex_init(&e.mu, NULL);
		e.main = pthread_self();
		r = mct_open(1, (char **)argv, &o);
		n = bad = 0;
		if (mct_edit(r, &ed, &e) == 0)
			while (mct_next(r, &ev)) {
				n++;
				bad += ev->len < 7 || memcmp(ev->json, "{\"e\":1,", 7);
			}
		ok(n == 3000 && bad == 0 && e.lines == 3000 && e.begun > 0 &&
		    (form == 0 ? e.off > 0 : e.off == 0) &&
		    e.ended == e.begun && e.wrong == 0, "mct_edit(), %s: every "
		    "line edited in its thread's context, the contexts ended at "
		    "the end (%d events, %d not edited, %lld counted, %d begun, "
		    "%d of them off the reader's thread, %d ended, %d elsewhere)",
		    how, n, bad, e.lines, e.begun, e.off, e.ended, e.wrong);
		(void)mct_close(r);
		/* a tool that stops before the end: mct_close() ends them */
		memset(&e, 0, sizeof(e));
		pthread_mutex_init(&e.mu, NULL);
		e.main = pthread_self();
		r = mct_open(1, (char **)argv, &o);
		n = mct_edit(r, &ed, &e);
		for (i = 0; n == 0 && i < 10 && mct_next(r, &ev); i++)
			;
		(void)mct_close(r);
		unsetenv("MCT_SPLIT");
		ok(n == 0 && i == 10 && e.begun > 0 && e.ended == e.begun &&
		    e.wrong == 0 && e.lines >= 10, "mct_edit(), %s: mct_close() "
		    "after 10 events ends every context (%d begun, %d ended)",
		    how, e.begun, e.ended);
	}
	mct_buf_free(&t);
}

/* What an editor with event() was given (test_editor_event()). */
struct evcount {
	int		 line, event, keyed;
};

static void
ev_line(void *arg, void *ctx, const char *text, size_t len,
    struct mct_buf *out)
{
	struct evcount *c = arg;

	(void)ctx;
	__atomic_add_fetch(&c->line, 1, __ATOMIC_RELAXED);
	out->len = 0;
	mct_buf_adds(out, "{\"e\":1,");
	mct_buf_add(out, text + 1, len - 1);
}

/* The same edit of the reader's event; its keys there to be found. */
static void
ev_event(void *arg, void *ctx, struct mct_event *ev, struct mct_buf *out)
{
	struct evcount *c = arg;
	struct mct_val v;

	c->event++;
	c->keyed += ev->indexed && mct_get_key(ev, "name", &v) == 0 &&
	    v.type == MCT_J_STRING;
	ev_line(arg, ctx, ev->json, ev->len, out);
	c->line--;
}

/*
 * mct_editor's event(): an mct stream's lines, which the reader indexes
 * as they come, are edited as the reader's events, indexed; the lines of
 * a trace framed in pass 2's threads go to line().  Either way the same
 * edit of every line.
 */
void
test_editor_event(void)
{
	static const struct mct_editor ed = { NULL, ev_line, NULL, ev_event };
	struct mct_opts o = { .unit = MCT_UNIT_AUTO };
	struct mct_buf t = { 0 };
	struct mct_reader *r;
	struct mct_event *ev;
	struct evcount c;
	const char *argv[1];
	int i, form, n, bad;

	for (form = 0; form < 2; form++) {
		t.len = 0;
		mct_buf_adds(&t, form == 0 ? "[\n" : "{\"name\":\"mct_header\","
		    "\"ph\":\"M\",\"args\":{\"version\":1,\"unit\":\"ns\"}}\n");
		for (i = 0; i < 3000; i++) {
			char l[128];

			snprintf(l, sizeof(l), form == 0 ? "%s  {\"name\": \"k%d\", "
			    "\"ph\": \"X\", \"ts\": %d}" : "%s{\"name\":\"k%d\","
			    "\"ph\":\"X\",\"ts\":%d}\n", form == 0 && i ? ",\n" :
			    "", i, 1000 + i);
			mct_buf_adds(&t, l);
		}
		mct_buf_adds(&t, form == 0 ? "\n]\n" : "");
		argv[0] = tfile(form == 0 ? "edev.json" : "edev.nd", t.p, t.len);
		setenv("MCT_SPLIT", "4096", 1);
		memset(&c, 0, sizeof(c));
		r = mct_open(1, (char **)argv, &o);
		n = bad = 0;
		if (mct_edit(r, &ed, &c) == 0)
			while (mct_next(r, &ev)) {
				n++;
				bad += ev->len < 7 || memcmp(ev->json, "{\"e\":1,", 7);
			}
		(void)mct_close(r);
		unsetenv("MCT_SPLIT");
		ok(n == 3000 && bad == 0 && (form == 0 ? c.line == 3000 &&
		    c.event == 0 : c.event == 3000 && c.keyed == 3000 &&
		    c.line == 0), "mct_edit() with event(), %s: %d events, %d "
		    "not edited, %d by line(), %d by event() (%d indexed)",
		    form == 0 ? "a trace by pass 2's threads" : "an mct stream",
		    n, bad, c.line, c.event, c.keyed);
	}
	mct_buf_free(&t);
}
