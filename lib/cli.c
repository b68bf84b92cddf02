/*
 * cli.c - the command line: -h and -V, and strict parsers of option
 * values.
 *
 * A value that does not parse is one message that names the option and
 * quotes the text, then "Try 'mct-x --help' for more information." and
 * exit 2.  Ending the process from lib is the command line's (and
 * util.c's, at the end of main()): so a tool's option loop stays a list
 * of cases.
 */
#include "config.h"

#include <err.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "mct.h"

void
mct_usage_hint(void)
{
	fprintf(stderr, "Try '%s --help' for more information.\n",
	    program_invocation_short_name);
	exit(MCT_EXIT_USAGE);
}

void
mct_version(void)
{
	printf("%s (%s) %s\n", program_invocation_short_name, PACKAGE_NAME,
	    PACKAGE_VERSION);
	exit(mct_finish(MCT_EXIT_OK));
}

/* --unit's argument (auto ns us ms s), or exit with a message. */
void
mct_opt_unit(const char *arg, enum mct_unit *u)
{
	if (mct_parse_unit(arg, u) != 0) {
		warnx("--unit: unknown unit '%s' (want auto, ns, us, ms or s)",
		    arg);
		mct_usage_hint();
	}
}

/* --time-unit's argument (ns us ms s), or exit with a message. */
void
mct_opt_time_unit(const char *arg, enum mct_unit *u)
{
	if (mct_parse_unit(arg, u) != 0 || *u == MCT_UNIT_AUTO) {
		warnx("--time-unit: unknown unit '%s' (want ns, us, ms or s)",
		    arg);
		mct_usage_hint();
	}
}

/* A number option's argument, from lo to hi, or exit with a message. */
double
mct_opt_num(const char *opt, const char *arg, double lo, double hi)
{
	char *end;
	double d = strtod(arg, &end);

	if (*arg == '\0' || *end != '\0' || !(d >= lo && d <= hi)) {
		warnx("%s: invalid number '%s' (want %g to %g)", opt, arg, lo, hi);
		mct_usage_hint();
	}
	return d;
}

/* --width's argument: cells in human tables; 0 is "never cut" (-1). */
void
mct_opt_width(const char *arg, int *w)
{
	char *end;
	long n;

	errno = 0;
	n = strtol(arg, &end, 10);
	if (end == arg || *end != '\0' || errno != 0 || n < 0 || n > 100000 ||
	    (n > 0 && n < 2)) {
		warnx("--width: invalid width '%s' (want a number of characters "
		    "from 2, or 0 for no limit)", arg);
		mct_usage_hint();
	}
	*w = n == 0 ? -1 : (int)n;
}

/*
 * A time option's argument (see mct_parse_time()), or exit with a
 * message naming it.  absolute NULL: a time from the origin only.
 */
int
mct_opt_time(const char *opt, const char *arg, int64_t *ns, int *absolute)
{
	int abs0 = 0;

	if ((absolute ? mct_parse_time(arg, ns, absolute) :
	    mct_parse_time(arg, ns, &abs0)) != 0 || (!absolute && abs0)) {
		warnx("%s: invalid time '%s' (want e.g. 26.5s, 300us, 1.5ms%s)",
		    opt, arg, absolute ? ", @123" : "");
		mct_usage_hint();
	}
	return 0;
}
