/*
 * device.c - which events are device work and which host calls launch
 * it: the one definition of the device lanes, for every producer.
 *
 * A producer says what ran on the device in one of three ways, and mct
 * knows them all here, so that mct-filter --device, mct-phases and
 * mct-report agree (mct(7), "Device lanes"):
 *
 * 1. A device category: Kineto's kernel, gpu_memcpy and gpu_memset
 *    (CUDA and HIP alike), early Kineto's Kernel, Memcpy and Memset, and
 *    MTIA's mtia_ccp_events.
 * 2. No cat at all and pid 2 (kernels) or 3 (copies): mcTracer's lanes,
 *    which rocmProfileData's GPU lanes share.
 * 3. Any other cat, on an event with a correlation id (args.correlation
 *    or args.co_id) that is not a host call: the paired side of the
 *    correlation, the device work mct-flow joins to its launch.  Kineto's
 *    cuda_sync is a wait with a correlation id, not work, and is left out.
 *
 * A host call (the launching side) is a cat ending in "runtime" or
 * "driver", or, with no cat, pid 1 (mcTracer).
 */
#include "config.h"

#include <string.h>
#include <strings.h>

#include "mct.h"

static const char *devcats[] = { "kernel", "gpu_memcpy", "gpu_memset",
    "memcpy", "memset", "mtia_ccp_events", NULL };

/* Does the string value end with suffix, in any case? */
static int
ends(const struct mct_val *v, const char *suffix)
{
	size_t n = v->len - 2, k = strlen(suffix);

	return n >= k && strncasecmp(v->p + 1 + n - k, suffix, k) == 0;
}

/* Is the string value word, in any case? */
static int
is(const struct mct_val *v, const char *word)
{
	size_t k = strlen(word);

	return v->len - 2 == k && strncasecmp(v->p + 1, word, k) == 0;
}

/* Is pid (a number or a string) the one digit c? */
static int
pid_is(struct mct_event *ev, char c)
{
	struct mct_val pid;

	if (mct_get_key(ev, "pid", &pid) != 0)
		return 0;
	return (pid.len == 1 && pid.p[0] == c) ||
	    (pid.len == 3 && pid.p[0] == '"' && pid.p[1] == c &&
	    pid.p[2] == '"');
}

static int
host_cat(const struct mct_val *cat)
{
	return ends(cat, "runtime") || ends(cat, "driver");
}

/* A host call that launches device work (not only X events). */
int
mct_host_call(struct mct_event *ev)
{
	struct mct_val cat;

	if (mct_get_key(ev, "cat", &cat) == 0 && cat.type == MCT_J_STRING)
		return host_cat(&cat);
	return pid_is(ev, '1');
}

/* An X event of device work (see the top of this file). */
int
mct_device(struct mct_event *ev)
{
	static const char *const corr[] = { "correlation", "co_id", NULL };
	struct mct_val ph, cat, args, v[2];
	int i;

	if (mct_get_key(ev, "ph", &ph) != 0 || !mct_jstr_eq(&ph, "X", 1))
		return 0;
	if (mct_get_key(ev, "cat", &cat) != 0)
		return pid_is(ev, '2') || pid_is(ev, '3');
	if (cat.type != MCT_J_STRING)
		return 0;
	for (i = 0; devcats[i]; i++)
		if (is(&cat, devcats[i]))
			return 1;
	if (host_cat(&cat) || is(&cat, "cuda_sync"))
		return 0;
	/* args.correlation or args.co_id: one walk of args, to the first */
	return mct_get_key(ev, "args", &args) == 0 &&
	    mct_obj_keys(&args, corr, 1, v) != 0;
}

/*
 * Is the device work a copy or a memset: a cat of Kineto's gpu_memcpy or
 * gpu_memset (early Kineto's Memcpy, Memset), or no cat and mcTracer's
 * copy lane (pid 3)?  A memset kernel (mcTracer's, on pid 2) is a kernel.
 */
int
mct_device_memory(struct mct_event *ev)
{
	static const char *memcats[] = { "gpu_memcpy", "gpu_memset",
	    "memcpy", "memset", NULL };
	struct mct_val cat;
	int i;

	if (mct_get_key(ev, "cat", &cat) != 0)
		return pid_is(ev, '3');
	if (cat.type != MCT_J_STRING)
		return 0;
	for (i = 0; memcats[i]; i++)
		if (is(&cat, memcats[i]))
			return 1;
	return 0;
}
