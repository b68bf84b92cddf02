/*
 * phases-report.c - mct-phases' output: a record per phase and per gap.
 */
#include "config.h"

#include <err.h>
#include <stdlib.h>
#include <string.h>

#include "mct.h"
#include "mct-phases.h"

#define TRACK_PID	1000000		/* the phases' own track */

/*
 * The output: report() writes a record per phase and per gap, as an event
 * (-o ndjson; -o trace, on a track of its own) or as a table row.
 */

static const char *
kind_name(enum mct_pkind k)
{
	static const char *n[] = { "init", "warmup", "steady", "switch", "tail" };

	return n[k];
}

static int
cmp_anc(const void *a, const void *b)
{
	const struct mct_anchor *x = a, *y = b;

	return x->total > y->total ? -1 : x->total < y->total;
}

/* Busy time (the union of device intervals) and events within [a, b). */
static void
busy_in(struct opts *o, int64_t a, int64_t b, int64_t *busy, long *events)
{
	int64_t cur0 = 0, cur1 = 0;
	size_t i;
	int open = 0;

	*busy = 0;
	*events = 0;
	for (i = 0; i < o->ndev; i++) {
		struct mct_call *d = &o->dev[i];
		int64_t s = d->ts, e = d->ts + d->dur;

		if (d->ts >= a && d->ts < b)
			(*events)++;
		if (e <= a || s >= b)
			continue;
		if (s < a)
			s = a;
		if (e > b)
			e = b;
		if (open && s <= cur1) {
			if (e > cur1)
				cur1 = e;
			continue;
		}
		if (open)
			*busy += cur1 - cur0;
		cur0 = s;
		cur1 = e;
		open = 1;
	}
	if (open)
		*busy += cur1 - cur0;
}

/* The signatures that dominate [a, b), by device time in it. */
static void
dominant(struct opts *o, int64_t a, int64_t b, struct mct_anchor *top,
    int *ntop)
{
	struct mct_anchor *all;
	size_t i;
	int n = 0, k;

	all = mct_xmalloc(((size_t)o->st.n + 1) * sizeof(*all));
	memset(all, 0, ((size_t)o->st.n + 1) * sizeof(*all));
	for (i = 0; i < o->ndev; i++) {
		struct mct_call *d = &o->dev[i];

		if (d->ts < a || d->ts >= b)
			continue;
		all[d->sig].sig = d->sig;
		all[d->sig].calls++;
		all[d->sig].total = mct_sat_add(all[d->sig].total, d->dur);
	}
	mct_sort(all, (size_t)o->st.n, sizeof(*all), cmp_anc);
	for (k = 0; k < NTOP && k < o->st.n && all[k].calls > 0; k++)
		top[n++] = all[k];
	*ntop = n;
	free(all);
}

/*
 * What every record begins with: the kind, start, end and span, as the
 * fields of an event (json) or as the first cells of a table row.
 */
static void
put_place(struct opts *o, struct mct_buf *line, const char *kind,
    int64_t start, int64_t end, int json)
{
	static const char *const before[2][4] = {
		{ "", "\037", "\037", "\037" },
		{ "\"phase\":\"", "\",\"start\":", ",\"end\":", ",\"span\":" }
	};

	if (!json && o->rk.any) {	/* a table's first column */
		mct_buf_addi(line, o->rk.rank[o->rk.cur]);
		mct_buf_addc(line, '\037');
	}
	mct_buf_adds(line, before[json][0]);
	mct_buf_adds(line, kind);
	mct_buf_adds(line, before[json][1]);
	mct_out_at(&o->out, line, start);
	mct_buf_adds(line, before[json][2]);
	mct_out_at(&o->out, line, end);
	mct_buf_adds(line, before[json][3]);
	mct_out_time(&o->out, line, mct_sat_sub(end, start));
}

/*
 * The start of a record as an event on the phases' own track, lane tid:
 * the event's name and place, then the fields every record has (in args
 * with -o trace).  The caller adds its own and ends it with end_event().
 */
static void
begin_event(struct opts *o, struct mct_buf *line, const char *name,
    size_t len, const char *kind, int64_t start, int64_t end, int tid)
{
	mct_buf_adds(line, "{\"name\":");
	mct_buf_addjstr(line, name, len);
	mct_buf_adds(line, ",\"ph\":\"X\",\"ts\":");
	mct_buf_addi(line, start);
	mct_buf_adds(line, ",\"dur\":");
	mct_buf_addi(line, mct_sat_sub(end, start));
	mct_buf_adds(line, ",\"pid\":");
	mct_buf_addi(line, TRACK_PID);
	mct_buf_adds(line, ",\"tid\":");
	mct_buf_addi(line, tid);
	mct_buf_addc(line, ',');
	if (o->rk.any) {
		mct_buf_adds(line, "\"rank\":");
		mct_buf_addi(line, o->rk.rank[o->rk.cur]);
		mct_buf_addc(line, ',');
	}
	if (o->track)
		mct_buf_adds(line, "\"args\":{");
	put_place(o, line, kind, start, end, 1);
}

/* The end of a record begun by begin_event(), after a list; out it goes. */
static void
end_event(struct opts *o, struct mct_buf *line)
{
	mct_buf_adds(line, o->track ? "]}}" : "]}");
	mct_out_json(&o->out, line->p, line->len);
}

/* A list of signatures, each with its calls and their total or mean time. */
static void
put_sigs(struct opts *o, struct mct_buf *line, const struct mct_anchor *a,
    int n, int mean)
{
	int k;

	for (k = 0; k < n; k++) {
		if (k)
			mct_buf_addc(line, ',');
		mct_buf_adds(line, "{\"key\":");
		mct_buf_addjstr(line, o->st.str[a[k].sig],
		    strlen(o->st.str[a[k].sig]));
		mct_buf_adds(line, ",\"calls\":");
		mct_buf_addi(line, a[k].calls);
		mct_buf_adds(line, mean ? ",\"mean\":" : ",\"total\":");
		mct_out_time(&o->out, line, mean ? a[k].total / a[k].calls :
		    a[k].total);
		mct_buf_addc(line, '}');
	}
}

/* What a phase's record says besides its place. */
struct phase_facts {
	int64_t		 busy;		/* device busy time in it */
	long		 events;	/* device events that start in it */
	double		 busy_pct;
	struct mct_anchor	 top[NTOP];	/* its dominant signatures */
	int		 ntop;
};

/* Phase p as an event (-o ndjson, -o trace). */
static void
phase_event(struct opts *o, struct mct_phase *p, struct phase_facts *f)
{
	struct mct_buf line = { 0 }, lbl = { 0 };
	char num[64];

	/* "steady: <heaviest anchor>", " +" if there are more */
	mct_buf_adds(&lbl, kind_name(p->kind));
	if ((p->kind == MCT_PH_STEADY || p->kind == MCT_PH_WARMUP) && p->nanc > 0) {
		mct_buf_adds(&lbl, ": ");
		mct_buf_adds(&lbl, o->st.str[p->anc[0].sig]);
		if (p->nanc > 1)
			mct_buf_adds(&lbl, " +");
	}
	begin_event(o, &line, lbl.p, lbl.len, kind_name(p->kind), p->start,
	    p->end, 1);
	mct_buf_adds(&line, ",\"events\":");
	mct_buf_addi(&line, f->events);
	mct_buf_adds(&line, ",\"busy\":");
	mct_out_time(&o->out, &line, f->busy);
	mct_buf_adds(&line, ",\"busy_pct\":");
	mct_fmt_double(num, f->busy_pct);
	mct_buf_adds(&line, num);
	mct_buf_adds(&line, ",\"rounds\":");
	mct_buf_addi(&line, p->rounds);
	mct_buf_adds(&line, ",\"round\":");
	if (p->rounds > 0)
		mct_out_time(&o->out, &line, (p->end - p->start) / p->rounds);
	else
		mct_buf_adds(&line, "null");
	mct_buf_adds(&line, ",\"anchors\":[");
	put_sigs(o, &line, p->anc, p->nanc, 1);
	mct_buf_adds(&line, "],\"top\":[");
	put_sigs(o, &line, f->top, f->ntop, 0);
	end_event(o, &line);
	mct_buf_free(&line);
	mct_buf_free(&lbl);
}

/* Phase p as a table row (-o table, md, tsv, csv). */
static void
phase_row(struct opts *o, struct mct_phase *p, struct phase_facts *f)
{
	struct mct_buf line = { 0 };
	const char *sig;
	char num[64];
	int human = mct_out_human(&o->out), k;

	put_place(o, &line, kind_name(p->kind), p->start, p->end, 0);
	mct_buf_addc(&line, '\037');
	if (human)
		mct_fmt_count(num, f->events);
	else
		snprintf(num, sizeof(num), "%ld", f->events);
	mct_buf_adds(&line, num);
	mct_buf_addc(&line, '\037');
	snprintf(num, sizeof(num), human ? "%.1f%%" : "%.2f", f->busy_pct);
	mct_buf_adds(&line, num);
	mct_buf_addc(&line, '\037');
	if (p->rounds > 0) {
		mct_buf_addi(&line, p->rounds);
		mct_buf_addc(&line, '\037');
		mct_out_time(&o->out, &line, (p->end - p->start) / p->rounds);
	} else
		mct_buf_addc(&line, '\037');
	mct_buf_addc(&line, '\037');
	for (k = 0; k < f->ntop; k++) {
		sig = o->st.str[f->top[k].sig];
		if (k)
			mct_buf_adds(&line, "; ");
		if (human && strlen(sig) > 48) {
			/* keep the table readable: cut long names */
			mct_buf_add(&line, sig, 45);
			mct_buf_adds(&line, "...");
		} else
			mct_buf_adds(&line, sig);
		snprintf(num, sizeof(num), " x%ld", f->top[k].calls);
		mct_buf_adds(&line, num);
	}
	mct_out_row(&o->out, line.p, line.len);
	mct_buf_free(&line);
}

static void
phase_record(struct opts *o, int i)
{
	struct mct_phase *p = &o->ph[i];
	struct phase_facts f;

	busy_in(o, p->start, p->end, &f.busy, &f.events);
	f.busy_pct = p->end > p->start ? 100.0 * (double)f.busy /
	    (double)mct_sat_sub(p->end, p->start) : 0;
	dominant(o, p->start, p->end, f.top, &f.ntop);
	/* anchors heaviest first: the label names the first */
	mct_sort(p->anc, (size_t)p->nanc, sizeof(*p->anc), cmp_anc);
	if (o->out.fmt == MCT_O_NDJSON || o->track)
		phase_event(o, p, &f);
	else
		phase_row(o, p, &f);
}

static void
gap_record(struct opts *o, size_t i)
{
	struct gap *g = &o->gap[i];
	struct mct_buf line = { 0 };
	int k;

	if (o->out.fmt == MCT_O_NDJSON || o->track) {
		begin_event(o, &line, "gap", 3, "gap", g->start, g->end, 2);
		mct_buf_adds(&line, ",\"host\":[");
		for (k = 0; k < NTOP && g->top[k] >= 0; k++) {
			if (k)
				mct_buf_addc(&line, ',');
			mct_buf_adds(&line, "{\"name\":");
			mct_buf_addjstr(&line, o->st.str[g->top[k]],
			    strlen(o->st.str[g->top[k]]));
			mct_buf_adds(&line, ",\"overlap\":");
			mct_out_time(&o->out, &line, g->over[k]);
			mct_buf_addc(&line, '}');
		}
		end_event(o, &line);
	} else {
		put_place(o, &line, "gap", g->start, g->end, 0);
		mct_buf_adds(&line, "\037\037\037\037\037");
		if (g->top[0] < 0)
			mct_buf_adds(&line, "host: nothing");
		for (k = 0; k < NTOP && g->top[k] >= 0; k++) {
			mct_buf_adds(&line, k ? "; " : "host: ");
			mct_buf_adds(&line, o->st.str[g->top[k]]);
			mct_buf_addc(&line, ' ');
			mct_out_time(&o->out, &line, g->over[k]);
		}
		mct_out_row(&o->out, line.p, line.len);
	}
	mct_buf_free(&line);
}

/* A metadata event that names the phases' track (tid 0) or a lane of it. */
static void
track_name(struct opts *o, const char *what, int tid, const char *name)
{
	struct mct_buf m = { 0 };

	mct_buf_adds(&m, "{\"name\":\"");
	mct_buf_adds(&m, what);
	mct_buf_adds(&m, "\",\"ph\":\"M\",\"pid\":");
	mct_buf_addi(&m, TRACK_PID);
	mct_buf_adds(&m, ",\"tid\":");
	mct_buf_addi(&m, tid);
	mct_buf_adds(&m, ",\"args\":{\"name\":\"");
	mct_buf_adds(&m, name);
	mct_buf_adds(&m, "\"}");
	if (o->rk.any) {
		mct_buf_adds(&m, ",\"rank\":");
		mct_buf_addi(&m, o->rk.rank[o->rk.cur]);
	}
	mct_buf_addc(&m, '}');
	mct_out_json(&o->out, m.p, m.len);
	mct_buf_free(&m);
}

void
report(struct opts *o)
{
	static const char h[] = "rank\037phase\037start\037end\037span\037events"
	    "\037busy_pct\037rounds\037round\037top";
	size_t i;
	int p;

	if (o->track) {
		track_name(o, "process_name", 0, "mct phases");
		track_name(o, "thread_name", 1, "phases");
		track_name(o, "thread_name", 2, "idle gaps");
	} else if (o->out.fmt != MCT_O_NDJSON && o->rk.reported++ == 0 &&
	    (o->out.header || mct_out_human(&o->out)))
		mct_out_row(&o->out, o->rk.any ? h : h + 5, o->rk.any ?
		    sizeof(h) - 1 : sizeof(h) - 6);
	if (!o->only_gaps)
		for (p = 0; p < o->nph; p++)
			phase_record(o, p);
	if (o->gaps)
		for (i = 0; i < o->ngap; i++)
			gap_record(o, i);
}
