/*
 * unit-device.c - device.c: the device lanes.
 */
#include "config.h"

#include <string.h>

#include "mct.h"
#include "unit.h"

static int
dev_of(const char *json, int host)
{
	struct mct_event ev;
	int r;

	mct_event_init(&ev, json, strlen(json), NULL);
	r = host ? mct_host_call(&ev) : mct_device(&ev);
	mct_event_free(&ev);
	return r;
}

void
test_device(void)
{
	static const struct {
		const char	*json;
		int		 dev, host;
	} c[] = {
		{ "{\"ph\":\"X\",\"cat\":\"kernel\",\"pid\":0}", 1, 0 },
		{ "{\"ph\":\"X\",\"cat\":\"Kernel\"}", 1, 0 },
		{ "{\"ph\":\"X\",\"cat\":\"gpu_memcpy\"}", 1, 0 },
		{ "{\"ph\":\"X\",\"cat\":\"Memset\"}", 1, 0 },
		{ "{\"ph\":\"X\",\"cat\":\"mtia_ccp_events\"}", 1, 0 },
		{ "{\"ph\":\"i\",\"cat\":\"kernel\"}", 0, 0 },
		{ "{\"ph\":\"X\",\"pid\":2}", 1, 0 },
		{ "{\"ph\":\"X\",\"pid\":\"3\"}", 1, 0 },
		{ "{\"ph\":\"X\",\"pid\":23}", 0, 0 },
		{ "{\"ph\":\"X\",\"pid\":1}", 0, 1 },
		{ "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"args\":"
		    "{\"correlation\":5}}", 0, 1 },
		{ "{\"ph\":\"X\",\"cat\":\"CUDA Driver\"}", 0, 1 },
		{ "{\"ph\":\"X\",\"cat\":\"cuda_sync\",\"args\":"
		    "{\"correlation\":5}}", 0, 0 },
		{ "{\"ph\":\"X\",\"cat\":\"npu_op\",\"args\":"
		    "{\"correlation\":5}}", 1, 0 },
		{ "{\"ph\":\"X\",\"cat\":\"npu_op\",\"args\":"
		    "{\"co_id\":5}}", 1, 0 },
		{ "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"args\":"
		    "{\"x\":{\"correlation\":5}}}", 0, 0 },
		{ "{\"ph\":\"X\",\"cat\":7,\"pid\":2}", 0, 0 },
	};
	size_t i;

	for (i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		ok(dev_of(c[i].json, 0) == c[i].dev, "device: %s is%s device "
		    "work", c[i].json, c[i].dev ? "" : " not");
		ok(dev_of(c[i].json, 1) == c[i].host, "device: %s is%s a host "
		    "call", c[i].json, c[i].host ? "" : " not");
	}
}
