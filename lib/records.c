/*
 * records.c - the keys of the tools' own records that hold times.
 *
 * A tool's records are read by the others (mct-flow | mct-group --value
 * latency, mct-phases | mct-filter --where 'span > 5s'), so every tool
 * knows every record's times: they take units on the command line and
 * --time-unit scales them, whichever tool reads them (mct(7)).  Each
 * tool registers them in field.c's table at start-up, before it parses
 * a field: field.c names no tool.
 */
#include "config.h"

#include <stddef.h>

#include "mct.h"

#define TIME(k)		{ .name = (k), .time = 1 }
/* a time between two events, not busy time (mct-group's default -a) */
#define BETWEEN(k)	{ .name = (k), .time = 1, .between = 1 }

static const struct mct_vfield times[] = {
	/* mct-flow's pairs */
	BETWEEN("latency"),
	BETWEEN("queue"),
	{ .name = "launch.ts", .time = 1, .point = MCT_P_ABS },
	TIME("launch.dur"),
	/* mct-flow's --idle and --queue tables (idle as below) */
	TIME("host_wait"),
	TIME("kernel_wait"),
	TIME("other_wait"),
	TIME("at_limit"),
	/* mct-phases' phases and rounds */
	TIME("span"),
	TIME("busy"),
	TIME("round"),
	TIME("tdur"),
	/* mct-ranks' ranks (span, busy, round as above) */
	TIME("compute"),
	TIME("comm"),
	TIME("exposed"),
	TIME("idle"),
	TIME("kernel"),
	TIME("memory"),
	TIME("median.span"),
	TIME("median.busy"),
	TIME("median.compute"),
	TIME("median.comm"),
	TIME("median.exposed"),
	TIME("median.idle"),
	TIME("median.round"),
	TIME("median.kernel"),
	TIME("median.memory"),
	BETWEEN("skew"),
	TIME("spread"),
	TIME("wait"),
	/* mct-diff's rows and summary (with a time as --value) */
	TIME("total_a"),
	TIME("total_b"),
	TIME("total_delta"),
	TIME("median_a"),
	TIME("median_b"),
	TIME("median_delta"),
	TIME("span_a"),
	TIME("span_b"),
	TIME("busy_a"),
	TIME("busy_b"),
	TIME("round_a"),
	TIME("round_b"),
	/* mct-path's segments and breakdown */
	TIME("crit"),
	TIME("crit_host"),
	TIME("crit_kernel"),
	TIME("crit_comm"),
	TIME("crit_launch"),
	TIME("crit_wait"),
	TIME("crit_sync"),
};

/* Register the times of the tools' records (again: no change). */
void
mct_records_register(void)
{
	mct_field_times(times, sizeof(times) / sizeof(times[0]));
}
