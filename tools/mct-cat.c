/*
 * mct-cat - trace in, stream out; and, with --wrap, back.
 */
#include "config.h"

#include <err.h>
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mct.h"

#define DEFAULT_FIELDS	"ts,dur,ph,pid,tid,name"

enum { OPT_TOP_MAX = MCT_OPT_TOOL };

static const struct option longopts[] = {
	MCT_LONGOPT_ALIGN,
	MCT_LONGOPT_FIELDS,
	MCT_LONGOPT_HELP,
	MCT_LONGOPT_MERGE,
	MCT_LONGOPT_META,
	MCT_LONGOPT_NO_HEADER,
	MCT_LONGOPT_NO_PROGRESS,
	MCT_LONGOPT_OUTPUT,
	MCT_LONGOPT_PAIR_BE,
	MCT_LONGOPT_PROGRESS,
	MCT_LONGOPT_RANK,
	MCT_LONGOPT_RULES,
	MCT_LONGOPT_TIME_UNIT,
	{ "top-max",	required_argument,	NULL, OPT_TOP_MAX },
	MCT_LONGOPT_UNIT,
	MCT_LONGOPT_VERSION,
	{ "wrap",	no_argument,		NULL, 'w' },
	MCT_LONGOPT_WIDTH,
	{ NULL,		0,			NULL, 0 }
};

static void
usage(int status)
{
	if (status != 0) {
		fprintf(stderr, "usage: mct-cat [-hVw] [-F fields] [-o format] "
		    "[-u unit] [--align how] [--merge] [--rank how] "
		    "[file ...]\n");
		mct_usage_hint();
	}
	printf("usage: mct-cat [-hVw] [-F fields] [-o format] [-u unit] "
	    "[--align how] [--merge]\n               [--rank how] [file ...]\n"
	    "Read traces (Chrome trace JSON in Object or Array form, NDJSON, "
	    "gzip) and\nwrite the mct stream: a header line, then one event "
	    "per line, ts/dur in ns.\n\n"
	    "      --align HOW       shift each rank's ts: none (default), "
	    "start (its first\n"
	    "                        event to the earliest rank's), or NAME "
	    "(a glob: its\n"
	    "                        first event of that name to the "
	    "earliest rank's)\n"
	    "  -F, --fields LIST     columns for tsv, csv, table (default "
	    DEFAULT_FIELDS ")\n"
	    "  -h, --help            show this help and exit\n"
	    "      --merge           all operands' events in one ts order "
	    "(ties: rank, then\n"
	    "                        input order), in bounded memory\n"
	    "      --meta            rows of metadata (ph M) events in tsv, csv, "
	    "table, md\n"
	    "      --no-header       no header line in tsv and csv output\n"
	    "      --no-progress     never show progress on stderr\n"
	    "  -o, --output FORMAT   ndjson (default), tsv, csv, table, md, trace\n"
	    "      --pair-be         each matched B/E pair of a thread as one X "
	    "event\n"
	    "      --progress        show progress even if stderr is no terminal\n"
	    "      --rank HOW        a rank key on every event: auto (by "
	    "distributedInfo,\n"
	    "                        file name, position), order (the "
	    "position), or N\n"
	    "                        (one operand); the default is auto "
	    "with two or more\n"
	    "                        trace operands\n"
	    "      --rules FILE      the rules file for the field category\n"
	    "      --width N         cut table and md cells wider than N "
	    "characters\n"
	    "                        (default 60; 0: never)\n"
	    "      --time-unit UNIT  times in tsv/csv/table: ns (default), us, "
	    "ms, s\n"
	    "      --top-max SIZE    a top-level key's value in the header up to "
	    "SIZE bytes\n"
	    "                        (K, M; default 64K; 0: no limit); bigger "
	    "ones are\n"
	    "                        named in top_dropped, and -o trace restores "
	    "them\n"
	    "  -u, --unit UNIT       the source's unit: auto (default), ns, "
	    "us, ms, s\n"
	    "  -V, --version         show the version and exit\n"
	    "  -w, --wrap            the same as -o trace: a trace JSON the "
	    "viewer opens\n\n"
	    "With no file, or when file is -, read standard input.\n"
	    "Exit status: 0 success, 1 damaged input (intact events written), "
	    "2 usage or\nunreadable file.  See mct-cat(1) and mct(7).\n");
	exit(mct_finish(MCT_EXIT_OK));
}

/* --top-max: bytes, K or M; 0 is no limit (the reader's -1). */
static long long
top_max(const char *arg)
{
	char *end;
	long long n;

	errno = 0;
	n = strtoll(arg, &end, 10);
	if (*end == 'K' || *end == 'k') {
		n *= 1024;
		end++;
	} else if (*end == 'M' || *end == 'm') {
		n *= 1024 * 1024;
		end++;
	}
	if (errno || end == arg || *end != '\0' || n < 0 ||
	    n > (1LL << 40)) {
		warnx("--top-max: invalid size '%s' (want bytes, e.g. 65536, "
		    "64K, 8M, or 0 for no limit)", arg);
		mct_usage_hint();
	}
	return n == 0 ? -1 : n;
}

static int
options(int argc, char *argv[], struct mct_out *o, struct mct_opts *mo)
{
	struct mct_cli c = { .usage = usage, .out = o, .mo = mo,
	    .fields = DEFAULT_FIELDS, .rules_now = 1, .progress = -1 };
	int ch;

	while ((ch = mct_cli_getopt(&c, argc, argv, "F:ho:u:Vw",
	    longopts)) != -1) {
		switch (ch) {
		case 'w':
			o->fmt = MCT_O_TRACE;
			break;
		case OPT_TOP_MAX:
			mo->top_max = top_max(optarg);
			break;
		default:
			usage(2);
		}
	}
	return optind;
}

/* --align: the shift of every rank, on stderr (the header has them too). */
static void
say_shifts(const struct mct_header *h, const struct mct_opts *mo)
{
	int i;

	for (i = 0; i < h->nsrc && h->nread > 0; i++) {
		const struct mct_source *s = &h->src[i];

		if (!s->ok)
			continue;
		if (s->rank >= 0)
			warnx("--align %s: rank %lld (%s) shifted by %lld ns",
			    mo->align_name ? mo->align_name : "start",
			    (long long)s->rank, s->name, (long long)s->shift);
		else
			warnx("--align %s: %s shifted by %lld ns",
			    mo->align_name ? mo->align_name : "start", s->name,
			    (long long)s->shift);
	}
}

int
main(int argc, char *argv[])
{
	struct mct_opts mo = { .unit = MCT_UNIT_AUTO };
	struct mct_out o = { .fmt = MCT_O_NDJSON, .header = 1 };
	struct mct_reader *r;
	struct mct_event *ev;
	int n;

	mct_records_register();	/* the times of the tools' records */
	n = options(argc, argv, &o, &mo);
	argc -= n;
	argv += n;
	/* NDJSON: the events' lines, as they are */
	mo.want = o.fmt == MCT_O_NDJSON ? MCT_WANT_COPY : MCT_WANT_EVENT;

	r = mct_open(argc, argv, &mo);
	if (mo.align != MCT_ALIGN_NONE)
		say_shifts(mct_header(r), &mo);
	mct_out_begin(&o, mct_header(r));
	while (mct_next(r, &ev))
		mct_out_event(&o, ev);
	mct_out_end(&o);
	return mct_finish(mct_close(r));
}
