/*
 * unit-rank.c - rank.c: the rank of each source, lines with ranks, one
 * trace of ranks; read end to end by rd_readv() of unit-reader.c.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "mct.h"
#include "unit.h"

static void
set_text(struct mct_event *e, const char *s)
{
	mct_event_set(e, s, strlen(s));
}

void
test_ranks(void)
{
	const char *argv[3];
	struct mct_opts o = { .unit = MCT_UNIT_AUTO, .rank = MCT_RANK_RULES };
	struct mct_reader *rr;
	struct mct_event *ev, e;
	struct mct_field f;
	struct mct_val v;
	struct mct_buf b = { 0 };
	struct mct_wrap *w;
	struct rd r;
	int64_t n = -1;
	int good = 1, nev = 0;

	ok(mct_rank_in_name("d/job.rank-3.json", &n) == 0 && n == 3 &&
	    mct_rank_in_name("x_rank_12.json.gz", &n) == 0 && n == 12 &&
	    mct_rank_in_name("RANK7", &n) == 0 && n == 7 &&
	    mct_rank_in_name("ranks.json", &n) != 0 &&
	    mct_rank_in_name("rank2/t.json", &n) != 0,
	    "ranks: the number after rank in a file name, not a folder's");
	ok(mct_rank_in_top("\"a\":1,\"distributedInfo\":{\"backend\":\"nccl\","
	    "\"rank\":4,\"world_size\":8}", &n) == 0 && n == 4 &&
	    mct_rank_in_top("\"distributedInfo\":{\"rank\":\"4\"}", &n) != 0 &&
	    mct_rank_in_top(NULL, &n) != 0,
	    "ranks: distributedInfo.rank of the top-level keys");

	argv[0] = TFILE("r-a.json", "{\"distributedInfo\":{\"rank\":1},"
	    "\"traceEvents\":[{\"ts\":3},{}]}");
	argv[1] = TFILE("rank_0.json", "[{\"ts\":1,\"name\":\"x\"}]");
	argv[2] = NULL;
	rd_readv(2, argv, MCT_UNIT_AUTO, &r);
	t_read("ranks: two operands, by distributedInfo and by file name", &r,
	    "{\"ts\":3000,\"rank\":1}\n{\"rank\":1}\n"
	    "{\"ts\":1000,\"name\":\"x\",\"rank\":0}\n", 0, NULL);
	ok(r.line && strstr(r.line, "\"ranks\":[{\"path\":") &&
	    strstr(r.line, "\"rank\":1,\"rank_from\":\"distributedInfo\"") &&
	    strstr(r.line, "\"rank\":0,\"rank_from\":\"file name\""),
	    "ranks: the header lists each source's rank and rule");
	rd_free(&r);

	argv[1] = TFILE("r-b.json", "{\"distributedInfo\":{\"rank\":1},"
	    "\"traceEvents\":[{\"ts\":5}]}");
	rd_readv(2, argv, MCT_UNIT_AUTO, &r);
	t_read("ranks: two sources of one rank: nothing read, status 2", &r,
	    "", 2, "r-a.json and ");
	rd_free(&r);

	/* one operand with --rank=auto: the field rank from the source */
	argv[0] = TFILE("rank3.json", "[{\"ts\":1}]");
	mct_field_parse("rank", &f);
	rr = mct_open(1, (char **)argv, &o);
	while (mct_next(rr, &ev)) {
		nev++;
		good = good && mct_get(ev, &f, &v) == 0 &&
		    v.len == 1 && v.p[0] == '3' && ev->json[ev->len - 2] == '3';
		mct_event_init(&e, "{\"ts\":1}", 8, ev->hdr);
		good = good && mct_get(&e, &f, &v) == 0 && v.p[0] == '3';
		mct_event_free(&e);
	}
	ok(mct_close(rr) == 0 && nev == 1 && good,
	    "ranks: --rank=auto on one operand; the field rank of an event "
	    "without the key is its source's");

	mct_event_init(&e, "{\"ts\":10,\"a\":1}", 15, NULL);
	ok(mct_rank_line(&e, 2, -4, &b) == 0 &&
	    strcmp(b.p, "{\"ts\":6,\"a\":1,\"rank\":2}\n") == 0,
	    "ranks: a line shifted and ranked (%s)", b.p);
	set_text(&e, "{}");
	ok(mct_rank_line(&e, 0, 7, &b) == 0 && strcmp(b.p, "{\"rank\":0}\n") == 0,
	    "ranks: {} ranked");
	/* no shift: no index; whether a comma goes before rank is seen */
	set_text(&e, "{ \t}");
	ok(mct_rank_line(&e, 3, 0, &b) == 0 &&
	    strcmp(b.p, "{ \t\"rank\":3}\n") == 0, "ranks: { } ranked, no shift");
	set_text(&e, "{\"a\":{}}");
	ok(mct_rank_line(&e, 3, 0, &b) == 0 && !e.indexed &&
	    strcmp(b.p, "{\"a\":{},\"rank\":3}\n") == 0,
	    "ranks: a line ranked, no shift, not indexed (%s)", b.p);
	set_text(&e, "[1]");
	ok(mct_rank_line(&e, 0, 0, &b) != 0, "ranks: not an object: left");

	w = mct_wrap_new();
	set_text(&e, "{\"ph\":\"s\",\"pid\":12,\"id\":3,\"rank\":1}");
	ok(mct_wrap_event(w, &e, &b) == 1 && strncmp(b.p, "{\"ph\":\"s\","
	    "\"pid\":10000012,\"id\":1000000000003,\"rank\":1}", b.len) == 0,
	    "wrap: a rank's pid and flow id its own (%.*s)", (int)b.len, b.p);
	set_text(&e, "{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":\"p\","
	    "\"args\":{\"name\":\"gpu\"},\"rank\":2}");
	ok(mct_wrap_event(w, &e, &b) == 1 && strncmp(b.p, "{\"ph\":\"M\","
	    "\"name\":\"process_name\",\"pid\":\"rank 2 p\",\"args\":{\"name\":"
	    "\"rank 2 \xc2\xb7 gpu\"},\"rank\":2}", b.len) == 0,
	    "wrap: a process name says its rank (%.*s)", (int)b.len, b.p);
	set_text(&e, "{\"ph\":\"X\"}");
	ok(mct_wrap_event(w, &e, &b) == 0, "wrap: an event with no rank: as it is");
	set_text(&e, "{\"ph\":\"M\",\"name\":\"process_sort_index\",\"pid\":7,"
	    "\"args\":{\"sort_index\":536870912},\"rank\":1}");
	ok(mct_wrap_event(w, &e, &b) == -1, "wrap: a sort index is kept for the end");
	b.len = 0;
	mct_wrap_end(w, &b);
	mct_buf_addc(&b, '\0');
	ok(strstr(b.p, "\"pid\":10000012,\"args\":{\"name\":\"rank 1 \xc2\xb7 "
	    "pid 12\"}") && strstr(b.p, "\"pid\":10000007,\"args\":{\"sort_index\":"
	    "10000000}") && strstr(b.p, "\"pid\":10000012,\"args\":{\"sort_index\":"
	    "10000001}") && strstr(b.p, "\"pid\":\"rank 2 p\",\"args\":"
	    "{\"sort_index\":20000000}") && !strstr(b.p, "rank 2 \xc2\xb7 pid"),
	    "wrap: names for the processes that had none, sort indexes by rank, "
	    "then by their own (%s)", b.p);
	mct_wrap_free(w);
	mct_event_free(&e);
	mct_field_free(&f);
	mct_buf_free(&b);

	/* merge.c: two operands, one unsorted, in one ts order */
	argv[0] = TFILE("m-a.json", "[{\"ph\":\"M\",\"name\":\"a0\"},"
	    "{\"ts\":5,\"name\":\"a1\"},{\"ts\":1,\"name\":\"a2\"},"
	    "{\"ph\":\"M\",\"name\":\"a3\"},{\"ts\":3,\"name\":\"a4\"}]");
	argv[1] = TFILE("m-b.json", "[{\"ts\":1,\"name\":\"b0\"},"
	    "{\"ts\":4,\"name\":\"b1\"},{\"name\":\"b2\"}]");
	{
		struct mct_opts mo = { .unit = MCT_UNIT_AUTO,
		    .order = MCT_ORDER_TS };
		struct mct_buf names = { 0 };

		rr = mct_open(2, (char **)argv, &mo);
		while (mct_next(rr, &ev)) {
			if (mct_get_key(ev, "name", &v) == 0)
				mct_buf_add(&names, v.p + 1, v.len - 2);
			mct_buf_addc(&names, ev->source == 0 ? ' ' : ';');
		}
		mct_buf_addc(&names, '\0');
		ok(mct_header(rr)->facts.sorted && mct_close(rr) == 0 &&
		    strcmp(names.p, "a0 a2 a3 b0;a4 b1;b2;a1 ") == 0,
		    "merge: ts order, ties by rank, M events and events without "
		    "ts after the event before them (%s)", names.p);
		mct_buf_free(&names);
	}
	/*
	 * In ns a merge reads the framer's index of each event, kept when a
	 * rank is appended (b is sorted: read in turns with a, which is
	 * not): the events in ts order, each with its operand's rank.  Where
	 * only an unsorted header asks for it (MCT_ORDER_TS_UNSORTED), the
	 * same order, the header as it was; one sorted operand is read as
	 * it comes.
	 */
	{
		struct mct_opts mo = { .unit = MCT_UNIT_NS, .order = MCT_ORDER_TS,
		    .rank = MCT_RANK_ORDER };
		struct mct_buf names = { 0 };
		int64_t rank;
		int k, got = 0, ranked = 0, sorted[3];

		for (k = 0; k < 3; k++) {
			if (k > 0)
				mo.order = MCT_ORDER_TS_UNSORTED;
			rr = mct_open(k < 2 ? 2 : 1, (char **)argv + (k == 2),
			    &mo);
			sorted[k] = mct_header(rr)->facts.sorted;
			while (mct_next(rr, &ev)) {
				got++;
				ranked += mct_get_key(ev, "rank", &v) == 0 &&
				    mct_int(v.p, v.len, &rank) == 0 &&
				    rank == ev->source + (k == 2);
				if (mct_get_key(ev, "name", &v) == 0)
					mct_buf_add(&names, v.p + 1, v.len - 2);
				mct_buf_addc(&names, ' ');
			}
			mct_close(rr);
			if (k == 1) {
				mo.rank = MCT_RANK_GIVEN;
				mo.rank_n = 1;
			}
		}
		mct_buf_addc(&names, '\0');
		ok(got == 19 && ranked == 19 && sorted[0] && !sorted[1] &&
		    sorted[2] && strcmp(names.p, "a0 a2 a3 b0 a4 b1 b2 a1 "
		    "a0 a2 a3 b0 a4 b1 b2 a1 b0 b1 b2 ") == 0,
		    "merge: in ns, each event with its operand's rank, in ts "
		    "order; only an unsorted header's (%d events, %d ranked: %s)",
		    got, ranked, names.p);
		mct_buf_free(&names);
	}
}
