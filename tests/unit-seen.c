/*
 * unit-seen.c - seen.c: fields no event had; the name a misspelling
 * meant.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "mct.h"
#include "unit.h"

struct seen_case {
	const char	*field;		/* watched, by --by */
	const char	*ev[3];
	const char	*want;		/* what is said */
};

static void
seen_run(void *arg)
{
	struct seen_case *c = arg;
	struct mct_seen s;
	struct mct_field f;
	struct mct_event ev;
	int i;

	memset(&s, 0, sizeof(s));
	mct_field_parse(c->field, &f);
	mct_seen_add(&s, &f, "--by");
	for (i = 0; i < 3 && c->ev[i]; i++) {
		mct_event_init(&ev, c->ev[i], strlen(c->ev[i]), NULL);
		mct_seen_event(&s, &ev);
		mct_event_free(&ev);
	}
	mct_seen_end(&s);
	mct_field_free(&f);
}

void
test_seen(void)
{
	static struct seen_case c[] = {
		{ "nmae", { "{\"name\":\"a\",\"ts\":1}", NULL },
		    "--by: no event has the field 'nmae' (did you mean "
		    "'name'?)" },
		{ "name", { "{\"ts\":1}", "{\"name\":\"a\"}", NULL }, "" },
		{ "args.corelation", { "{\"args\":{\"correlation\":1}}",
		    NULL }, "--by: no event has the field 'args.corelation' "
		    "(did you mean 'args.correlation'?)" },
		{ "args.regs", { "{\"args\":{\"registers per thread\":1,"
		    "\"reg\":2}}", NULL }, "--by: no event has the field "
		    "'args.regs' (did you mean 'args.reg'?)" },
		{ "args.registers_per_thread", { "{\"args\":{\"registers "
		    "per thread\":1}}", NULL }, "--by: no event has the field "
		    "'args.registers_per_thread' (did you mean "
		    "'args.\"registers per thread\"'?)" },
		{ "zzzzzzzz", { "{\"name\":\"a\"}", NULL },
		    "--by: no event has the field 'zzzzzzzz'" },
		{ "nmae", { NULL }, "" },	/* no events: nothing to say */
		{ "rel", { "{\"name\":\"a\"}", NULL }, "" },	/* virtual */
	};
	char msg[512], none[1] = "", *p;
	size_t i;

	for (i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		quietly(seen_run, &c[i], msg, sizeof(msg));
		/* drop "unit: " and the newline */
		p = strchr(msg, ':');
		p = p && *c[i].want ? p + 2 : msg;
		if ((p = strtok(p, "\n")) == NULL)
			p = none;
		ok(strcmp(p, c[i].want) == 0, "seen: %s -> \"%s\"",
		    c[i].field, p);
	}
	{
		static const char *const col[] = { "name", "total_a",
		    "total_pct", "median_pct", "new" };
		const char *a = mct_nearest("totl_pct", col, 5),
		    *b = mct_nearest("mediam_pct", col, 5),
		    *z = mct_nearest("zzzzzz", col, 5);

		ok(a && strcmp(a, "total_pct") == 0 && b &&
		    strcmp(b, "median_pct") == 0 && z == NULL &&
		    mct_nearest("x", col, 0) == NULL,
		    "seen: the nearest name to a misspelled one, none when "
		    "none is near");
	}
}
