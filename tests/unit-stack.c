/*
 * unit-stack.c - stack.c: a pair waits for its stack; on a sorted input
 * until an event starts after its launch ended, on another until the end.
 */
#include "config.h"

#include <string.h>

#include "mct.h"
#include "unit.h"

static void
stack_feed(struct mct_stack *s, const char *json, const struct mct_header *h)
{
	struct mct_event ev;

	mct_event_init(&ev, json, strlen(json), h);
	mct_stack_event(s, &ev);
	mct_event_free(&ev);
}

void
test_stack(void)
{
	static const char pairline[] = "{\"name\":\"k\",\"ts\":20}";
	static const char want[] = "{\"name\":\"k\",\"ts\":20,\"stack\":"
	    "[\"step\",\"aten::mm\",\"cudaLaunchKernel\"],\"op\":\"aten::mm\","
	    "\"annotation\":\"step\"}";
	struct mct_launch l = { "\"cudaLaunchKernel\"", "1", "1", 10, 5, 0, 0,
	    NULL };
	struct mct_header h = { .facts.has_origin = 1, .facts.origin = 0 };
	struct mct_buf line = { 0 }, fold = { 0 };
	struct mct_stack_counts c;
	struct mct_stack *s;
	int sorted, r0, r1;

	for (sorted = 1; sorted >= 0; sorted--) {
		s = mct_stack_open(sorted, 0);
		stack_feed(s, "{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":"
		    "\"step\",\"pid\":1,\"tid\":1,\"ts\":0,\"dur\":1000}", &h);
		stack_feed(s, "{\"ph\":\"B\",\"cat\":\"cpu_op\",\"name\":"
		    "\"aten::mm\",\"pid\":1,\"tid\":1,\"ts\":5}", &h);
		mct_stack_pair(s, pairline, sizeof(pairline) - 1, &l);
		r0 = mct_stack_next(s, &line, &fold);
		stack_feed(s, "{\"ph\":\"E\",\"pid\":1,\"tid\":1,\"ts\":30}", &h);
		stack_feed(s, "{\"ph\":\"E\",\"pid\":1,\"tid\":1,\"ts\":31}", &h);
		r1 = mct_stack_next(s, &line, &fold);
		if (!sorted) {
			ok(r1 == 0, "stack: unsorted, nothing before the end");
			mct_stack_end(s);
			r1 = mct_stack_next(s, &line, &fold);
		}
		ok(r0 == 0 && r1 == 1 && line.len == strlen(want) &&
		    memcmp(line.p, want, line.len) == 0,
		    "stack: %s input: the pair waits, then has its stack, op "
		    "and annotation", sorted ? "a sorted" : "an unsorted");
		ok(fold.len == 30 &&
		    memcmp(fold.p, "step;aten::mm;cudaLaunchKernel", 30) == 0,
		    "stack: the folded frames, outermost first");
		ok(mct_stack_next(s, &line, &fold) == 0, "stack: one pair, once");
		if (sorted)
			mct_stack_end(s);
		mct_stack_close(s, &c);
		ok(c.unbalanced == 1 && c.nowhere == 0 && c.deep == 0,
		    "stack: an E without its B is counted");
	}
	mct_buf_free(&line);
	mct_buf_free(&fold);
}
