/*
 * unit-flow.c - flow.c: a device event paired with its launch by
 * correlation id, the one that comes first waiting; host calls forgotten
 * on a sorted input.
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "mct.h"
#include "unit.h"

struct flow_got {
	struct mct_buf	 out;		/* the pairs, a line each */
	int		 nodev;
};

static void
flow_write(void *arg, struct mct_event *ev)
{
	struct flow_got *g = arg;

	mct_buf_add(&g->out, ev->json, ev->len);
	mct_buf_addc(&g->out, '\n');
}

static void
flow_nodev(void *arg, const struct mct_corr *c, const struct mct_mapent *e)
{
	struct flow_got *g = arg;

	g->nodev += c->ndev == 0 && e->len == 1 && e->key[0] == '9';
}

static int
flow_feed(struct mct_flow *f, const char *json, struct mct_buf *k)
{
	struct mct_event ev;
	int rc;

	mct_event_init(&ev, json, strlen(json), f->hdr);
	rc = mct_flow_add(f, &ev, k);
	mct_event_free(&ev);
	return rc;
}

void
test_flow(void)
{
	static const char dev[] = "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":"
	    "\"k\",\"ts\":100,\"dur\":10,\"args\":{\"correlation\":7}}";
	static const char want[] = "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":"
	    "\"k\",\"ts\":100,\"dur\":10,\"args\":{\"correlation\":7},"
	    "\"launch\":{\"name\":\"cudaLaunchKernel\",\"ts\":90,\"dur\":5,"
	    "\"pid\":1,\"tid\":2},\"latency\":10,\"queue\":5}\n";
	struct mct_header h = {
		.facts.has_origin = 1, .facts.origin = 0, .facts.sorted = 1
	};
	struct mct_flow f = { .window = 1000 };
	struct flow_got g = { { 0 }, 0 };
	struct mct_buf k = { 0 };
	struct mct_event ev;
	char line[160], big[400];
	int i, rc[4];

	mct_flow_init(&f, &h);
	f.write = flow_write;
	f.nodev = flow_nodev;
	f.arg = &g;
	rc[0] = flow_feed(&f, dev, &k);		/* before its launch: waits */
	ok(rc[0] == MCT_FLOW_KEYED && g.out.len == 0 && f.pairs == 0,
	    "flow: a device event before its launch waits");
	rc[1] = flow_feed(&f, "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":"
	    "\"cudaLaunchKernel\",\"pid\":1,\"tid\":2,\"ts\":90,\"dur\":5,"
	    "\"args\":{\"correlation\":7}}", &k);
	ok(rc[1] == MCT_FLOW_KEYED && f.pairs == 1 &&
	    g.out.len == strlen(want) && memcmp(g.out.p, want, g.out.len) == 0,
	    "flow: its launch comes, and the pair is written with launch, "
	    "latency and queue");
	g.out.len = 0;
	rc[2] = flow_feed(&f, dev, &k);		/* after: at once */
	ok(rc[2] == MCT_FLOW_KEYED && f.pairs == 2 &&
	    g.out.len == strlen(want) && memcmp(g.out.p, want, g.out.len) == 0,
	    "flow: a device event after its launch is paired at once");
	rc[0] = flow_feed(&f, "{\"ph\":\"B\",\"name\":\"b\",\"ts\":1}", &k);
	rc[1] = flow_feed(&f, "{\"ph\":\"X\",\"name\":\"x\",\"ts\":1}", &k);
	snprintf(big, sizeof(big), "{\"ph\":\"X\",\"name\":\"x\",\"ts\":1,"
	    "\"args\":{\"correlation\":\"%0256d\"}}", 0);
	rc[2] = flow_feed(&f, big, &k);
	ok(rc[0] == 0 && rc[1] == MCT_FLOW_NOKEY && rc[2] == MCT_FLOW_NOKEY,
	    "flow: B is no X; an X without id, or with one over 255 bytes, "
	    "is a slice");
	/* a launch of nothing, then time passes on a sorted input */
	flow_feed(&f, "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"c\","
	    "\"ts\":200,\"dur\":1,\"args\":{\"correlation\":9}}", &k);
	for (i = 0; i < 65536 && g.nodev == 0; i++) {
		snprintf(line, sizeof(line), "{\"ph\":\"X\",\"name\":\"x\","
		    "\"ts\":%d}", 2000 + i);
		flow_feed(&f, line, &k);
	}
	ok(g.nodev == 1 && mct_map_find(&f.corrs, "9", 1) == NULL,
	    "flow: a launch without device work is forgotten --window after "
	    "it ended (sorted), and said");
	/* ids are a rank's own; ids over 255 bytes are not ids */
	h.ranked = 1;
	snprintf(line, sizeof(line), "{\"ph\":\"X\",\"rank\":3,\"ts\":1,"
	    "\"args\":{\"co_id\":\"7\"}}");
	mct_event_init(&ev, line, strlen(line), &h);
	rc[3] = mct_flow_key(&f, &ev, &k);
	ok(rc[3] == 0 && k.len == 3 && memcmp(k.p, "3\0367", 3) == 0,
	    "flow: the key is the rank, \\036, then the id (strings unquoted)");
	mct_event_free(&ev);
	mct_flow_free(&f);
	mct_buf_free(&g.out);
	mct_buf_free(&k);
}
