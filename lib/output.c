/*
 * output.c - writing events in the formats every tool offers.
 *
 *   ndjson  the header line, then each event as it came (the stream)
 *   tsv     a header line of field names, then one row per event; strings
 *           unescaped with \t \n \r \\ escaped; times raw ns unless
 *           --time-unit; arrays and objects as compact JSON; null and
 *           missing values empty
 *   csv     the same, quoted as RFC 4180 says
 *   table   aligned columns for people; widths from the first rows
 *   md      a Markdown table, for reports
 *   trace   a Chrome trace JSON: the source's top-level keys around
 *           "traceEvents", ts/dur back in the source's unit
 */
#include "config.h"

#include <err.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include <unistd.h>

#include "mct_private.h"

#define TABLE_ROWS	1000	/* rows read before the column widths are fixed */

/* What a struct mct_out holds while it writes (o->st). */
struct mct_outstate {
	int		 tdefault;	/* no --time-unit: a human table's
					   lengths of time in a unit each */
	int		 quiet;		/* nothing could be read: write nothing */
	struct mct_wrap	*wrap;		/* a trace of several ranks (wrap.c) */
	struct mct_buf	 wline;
	struct mct_event wev;
	long long	 n;		/* events written */
	struct mct_buf	 line;
	struct mct_buf	 cell;
	struct mct_buf	 cut;		/* a cell cut to width */
	struct mct_buf	 rows;		/* table rows held to size columns */
	struct mct_buf	 held;		/* mct_out_row's rows for people, whole
					   till the end: cut column by column */
	size_t		*heldrow;	/* where each held row starts */
	size_t		 nheld;
	int		 nrows;
	size_t		*width;
	int		 ncols;
};

/* The output's state, made zero when first needed. */
static struct mct_outstate *
state(struct mct_out *o)
{
	if (o->st == NULL) {
		o->st = mct_xmalloc(sizeof(*o->st));
		memset(o->st, 0, sizeof(*o->st));
	}
	return o->st;
}

int
mct_out_parse(const char *s, enum mct_ofmt *f)
{
	static const char *const names[] = { "ndjson", "tsv", "csv", "table", "trace",
	    "md" };
	int i;

	for (i = 0; i < 6; i++)
		if (strcmp(s, names[i]) == 0) {
			*f = (enum mct_ofmt)i;
			return 0;
		}
	return -1;
}

/* Is the output for people (numbers with units and separators)? */
int
mct_out_human(const struct mct_out *o)
{
	return o->fmt == MCT_O_TABLE || o->fmt == MCT_O_MD;
}

/* "key":value, a comma before it (after) or after it (before). */
static void
top_pair(struct mct_buf *b, int before, const char *k, size_t klen,
    const char *v, size_t vlen)
{
	if (!before)
		mct_buf_addc(b, ',');
	mct_buf_add(b, k, klen);
	mct_buf_addc(b, ':');
	mct_buf_add(b, v, vlen);
	if (before)
		mct_buf_addc(b, ',');
}

/*
 * A stream's header that says top-level values were left out upstream
 * (over mct-cat's --top-max), which this process does not have: say so,
 * for the trace written lacks them.
 */
static void
dropped_keys(const struct mct_header *h)
{
	struct mct_event hev, d;
	struct mct_field f;
	struct mct_val v;
	int i;

	if (h->facts.nbig > 0 || h->line == NULL)
		return;
	mct_event_init(&hev, h->line, h->linelen, h);
	mct_field_parse("args.top_dropped", &f);
	if (mct_get(&hev, &f, &v) == 0 && v.type == MCT_J_OBJECT) {
		mct_event_init(&d, v.p, v.len, h);
		mct_event_index(&d);
		for (i = 0; i < d.nkv; i++)
			warnx("top-level key \"%.*s\" (%.*s bytes) was left out "
			    "of the stream (mct-cat --top-max): not in this trace",
			    (int)d.kv[i].klen, d.json + d.kv[i].koff,
			    (int)d.kv[i].vlen, d.json + d.kv[i].voff);
		mct_event_free(&d);
	}
	mct_field_free(&f);
	mct_event_free(&hev);
}

/*
 * The top-level keys of the source: those before traceEvents, or after;
 * the values too big for the header back in their places, from the
 * reader's spool.
 */
static void
top_keys(const struct mct_header *h, int before, struct mct_buf *b)
{
	struct mct_buf obj = { 0 }, v = { 0 };
	struct mct_kv *kv = NULL;
	int nkv = 0, cap = 0, i, j = 0;

	mct_buf_addc(&obj, '{');
	if (h->facts.top)
		mct_buf_adds(&obj, h->facts.top);
	mct_buf_addc(&obj, '}');
	mct_index(obj.p, obj.len, &kv, &nkv, &cap);
	for (i = 0; i <= nkv; i++) {
		/* the big ones that came before key i of the header */
		for (; j < h->facts.nbig && h->facts.big[j].pos <= i + j; j++)
			if (h->facts.big[j].before == before &&
			    mct_bigtop_value(h, j, &v) == 0)
				top_pair(b, before, h->facts.big[j].key,
				    h->facts.big[j].keylen, v.p, v.len);
		if (i < nkv && (i < h->facts.ntop_before) == before)
			top_pair(b, before, obj.p + kv[i].koff - 1,
			    kv[i].klen + 2, obj.p + kv[i].voff, kv[i].vlen);
	}
	free(kv);
	mct_buf_free(&obj);
	mct_buf_free(&v);
}

static char
sep(const struct mct_out *o)
{
	return o->fmt == MCT_O_CSV ? ',' : o->fmt == MCT_O_TSV ? '\t' : '\037';
}

static void put_cell(struct mct_out *, const char *, size_t);

/*
 * A cell of a human table (table, md) wider than --width is cut to
 * width - 1 characters and an ellipsis; characters, not bytes, so a
 * UTF-8 name is never cut inside a character.  tsv, csv, ndjson: never.
 */
static void
put_cut(struct mct_out *o, const char *s, size_t n)
{
	size_t w = o->maxwidth > 0 ? (size_t)o->maxwidth : MCT_WIDTH, i, chars = 0,
	    keep = 0;

	if (o->maxwidth >= 0 && mct_out_human(o))
		for (i = 0; i < n; i++)
			if (((unsigned char)s[i] & 0xc0) != 0x80 && chars++ == w - 1)
				keep = i;	/* where character w starts */
	if (chars <= w) {
		put_cell(o, s, n);
		return;
	}
	o->st->cut.len = 0;
	mct_buf_add(&o->st->cut, s, keep);
	mct_buf_adds(&o->st->cut, "\xe2\x80\xa6");	/* … */
	put_cell(o, o->st->cut.p, o->st->cut.len);
}

static void
put_cell(struct mct_out *o, const char *s, size_t n)
{
	struct mct_buf *b = &o->st->line;
	size_t i;

	if (o->fmt == MCT_O_CSV) {
		int quote = 0;

		for (i = 0; i < n; i++)
			if (s[i] == ',' || s[i] == '"' || s[i] == '\n' ||
			    s[i] == '\r')
				quote = 1;
		if (!quote) {
			mct_buf_add(b, s, n);
			return;
		}
		mct_buf_addc(b, '"');
		for (i = 0; i < n; i++) {
			if (s[i] == '"')
				mct_buf_addc(b, '"');
			mct_buf_addc(b, s[i]);
		}
		mct_buf_addc(b, '"');
		return;
	}
	if (o->fmt == MCT_O_MD) {
		for (i = 0; i < n; i++)
			if (s[i] == '|')
				mct_buf_add(b, "\\|", 2);
			else if (s[i] == '\n' || s[i] == '\r' || s[i] == '\t')
				mct_buf_addc(b, ' ');
			else
				mct_buf_addc(b, s[i]);
		return;
	}
	for (i = 0; i < n; i++)
		switch (s[i]) {
		case '\t': mct_buf_add(b, "\\t", 2); break;
		case '\n': mct_buf_add(b, "\\n", 2); break;
		case '\r': mct_buf_add(b, "\\r", 2); break;
		case '\\': mct_buf_add(b, "\\\\", 2); break;
		default: mct_buf_addc(b, s[i]);
		}
}

/*
 * A time field in a human table (table, md) is a length (dur, latency)
 * in a unit of its own, as in mct-group's tables (2.59 us, 253.99 ms);
 * a point in time (ts, rel), or any time under --time-unit, a number in
 * the unit that its column's header names: "ts (ns)"; but rel, where the
 * tool asks (o->rel_human), a length from the origin as any other
 * (4.78 ms).  tsv, csv: numbers, the header bare.
 */
static int
time_human(const struct mct_out *o, const struct mct_field *f)
{
	return mct_out_human(o) && o->st->tdefault &&
	    (f->vf->point == MCT_P_NONE ||
	    (f->vf->point == MCT_P_REL && o->rel_human));
}

/* One field of an event as text for a cell. */
static void
cell(struct mct_out *o, struct mct_event *ev, const struct mct_field *f,
    struct mct_buf *tmp)
{
	struct mct_val v;
	char num[64];
	int64_t ns, i;
	size_t n;

	tmp->len = 0;
	if (mct_field_time(f) && mct_field_ns(ev, f, o->hdr, &ns) == 0) {
		n = time_human(o, f) ? mct_fmt_human(num, (double)ns) :
		    mct_fmt_dec(num, ns, mct_unit_ns(o->tunit));
		put_cell(o, num, n);
		return;
	}
	if (mct_get(ev, f, &v) != 0 || v.type == MCT_J_NULL)
		return;
	/* bytes and counts a tool registered, for people */
	if (f->vf != NULL && f->vf->look != MCT_L_PLAIN && mct_out_human(o) &&
	    v.type == MCT_J_NUMBER && mct_int(v.p, v.len, &i) == 0) {
		n = f->vf->look == MCT_L_BYTES ?
		    mct_fmt_bytes(num, sizeof(num), (double)i, &i) :
		    mct_fmt_count(num, i);
		put_cell(o, num, n);
		return;
	}
	mct_jstr(&v, tmp);
	put_cut(o, tmp->p, tmp->len);
}

static void
table_flush(struct mct_out *o)
{
	const char *p = o->st->rows.p, *end = o->st->rows.p + o->st->rows.len;

	/* cells are separated by \037, rows by \n */
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		int col = 0;

		while (p < nl) {
			const char *c = memchr(p, '\037', (size_t)(nl - p));
			size_t n, w;

			if (c == NULL)
				c = nl;
			n = (size_t)(c - p);
			mct_write(p, n);
			if (c < nl) {
				size_t chars = 0, i;

				for (i = 0; i < n; i++)
					chars += ((unsigned char)p[i] & 0xc0) != 0x80;
				for (w = chars; col < o->st->ncols &&
				    w < o->st->width[col] + 2; w++)
					mct_write(" ", 1);
				c++;
			}
			col++;
			p = c;
		}
		mct_write("\n", 1);
		p = nl + 1;
	}
	o->st->rows.len = 0;
}

/* A Markdown row from cells separated by \037; a rule under the first. */
static void
md_row(struct mct_out *o, const char *row, size_t n)
{
	const char *p = row, *end = row + n, *c;
	int cols = 0;

	mct_write("|", 1);
	for (;;) {
		c = memchr(p, '\037', (size_t)(end - p));
		mct_write(" ", 1);
		mct_write(p, (size_t)((c ? c : end) - p));
		mct_write(" |", 2);
		cols++;
		if (c == NULL)
			break;
		p = c + 1;
	}
	mct_write("\n", 1);
	if (o->st->nrows++ == 0) {
		mct_write("|", 1);
		while (cols-- > 0)
			mct_write("---|", 4);
		mct_write("\n", 1);
	}
}

/* Add a row (cells separated by \037) to a table: held, or printed. */
static void
table_row(struct mct_out *o, const char *row, size_t n)
{
	const char *p = row, *end = row + n;
	int col = 0;

	if (o->st->nrows < TABLE_ROWS)
		for (;; col++) {
			const char *c = memchr(p, '\037', (size_t)(end - p));
			size_t w = (size_t)((c ? c : end) - p), i, chars = 0;

			if (col >= o->st->ncols) {
				o->st->width = mct_xrealloc(o->st->width,
				    (size_t)(col + 1) * sizeof(*o->st->width));
				o->st->width[col] = 0;
				o->st->ncols = col + 1;
			}
			for (i = 0; i < w; i++)	/* count UTF-8 characters */
				chars += ((unsigned char)p[i] & 0xc0) != 0x80;
			if (chars > o->st->width[col])
				o->st->width[col] = chars;
			if (c == NULL)
				break;
			p = c + 1;
		}
	mct_buf_add(&o->st->rows, row, n);
	mct_buf_addc(&o->st->rows, '\n');
	if (++o->st->nrows >= TABLE_ROWS)
		table_flush(o);
}

/*
 * A row of ready-made cells separated by \037 (tools that compute their
 * own records, like mct-group): escaped or quoted for tsv and csv.
 */
void
mct_out_row(struct mct_out *o, const char *cells, size_t n)
{
	const char *p = cells, *end = cells + n, *c;

	if (state(o)->quiet)
		return;
	if (mct_out_human(o)) {
		/* held whole: cut at the end, where all the column is known */
		if ((o->st->nheld & (o->st->nheld + 1)) == 0)	/* 0, 1, 3, 7, ... */
			o->st->heldrow = mct_xrealloc(o->st->heldrow,
			    (o->st->nheld + 1) * 2 * sizeof(*o->st->heldrow));
		o->st->heldrow[o->st->nheld++] = o->st->held.len;
		mct_buf_add(&o->st->held, cells, n);
		return;
	}
	for (;;) {
		c = memchr(p, '\037', (size_t)(end - p));
		put_cell(o, p, (size_t)((c ? c : end) - p));
		if (c == NULL)
			break;
		mct_buf_addc(&o->st->line, sep(o));
		p = c + 1;
	}
	mct_buf_addc(&o->st->line, '\n');
	mct_write(o->st->line.p, o->st->line.len);
	o->st->line.len = 0;
}

/*
 * The rows of mct_out_row for people, out: each column's cells cut to the
 * width so that two different values never look alike (cut.c), escaped,
 * then the rows written or sized as any table's.
 */
static void
held_flush(struct mct_out *o)
{
	struct mct_text *cell, *col, *vis;
	struct mct_buf cut = { 0 };
	size_t r, i, nc = 0, *ncell, *voff, w;
	int cutting = o->maxwidth >= 0;

	if (o->st == NULL || o->st->nheld == 0)
		return;
	w = o->maxwidth > 0 ? (size_t)o->maxwidth : MCT_WIDTH;
	ncell = mct_xmalloc(o->st->nheld * sizeof(*ncell));
	for (r = 0; r < o->st->nheld; r++) {	/* the widest row's cells */
		const char *p = o->st->held.p + o->st->heldrow[r],
		    *end = o->st->held.p + (r + 1 < o->st->nheld ? o->st->heldrow[r + 1] :
		    o->st->held.len);

		for (ncell[r] = 1; (p = memchr(p, '\037', (size_t)(end - p)));
		    p++)
			ncell[r]++;
		if (ncell[r] > nc)
			nc = ncell[r];
	}
	cell = mct_xmalloc(o->st->nheld * nc * sizeof(*cell));
	col = mct_xmalloc(o->st->nheld * sizeof(*col));
	vis = mct_xmalloc(o->st->nheld * sizeof(*vis));
	voff = mct_xmalloc(o->st->nheld * nc * sizeof(*voff));
	for (r = 0; r < o->st->nheld; r++) {
		const char *p = o->st->held.p + o->st->heldrow[r], *c,
		    *end = o->st->held.p + (r + 1 < o->st->nheld ? o->st->heldrow[r + 1] :
		    o->st->held.len);

		for (i = 0; i < ncell[r]; i++, p = c + 1) {
			if ((c = memchr(p, '\037', (size_t)(end - p))) == NULL)
				c = end;
			cell[r * nc + i].p = p;
			cell[r * nc + i].len = (size_t)(c - p);
		}
	}
	for (i = 0; i < nc && cutting; i++) {
		size_t k = 0;

		for (r = 0; r < o->st->nheld; r++)
			if (i < ncell[r])
				col[k++] = cell[r * nc + i];
		cut.len = 0;
		mct_cut_column(col, k, w, &cut, vis, o->endcut);
		/* the visible texts, kept past this column's buffer */
		for (r = k = 0; r < o->st->nheld; r++)
			if (i < ncell[r]) {
				voff[r * nc + i] = o->st->cut.len;
				cell[r * nc + i].len = vis[k].len;
				mct_buf_add(&o->st->cut, vis[k].p, vis[k].len);
				k++;
			}
	}
	for (r = 0; r < o->st->nheld; r++) {
		o->st->line.len = 0;
		for (i = 0; i < ncell[r]; i++) {
			const struct mct_text *t = &cell[r * nc + i];

			if (i)
				mct_buf_addc(&o->st->line, '\037');
			put_cell(o, cutting ? o->st->cut.p + voff[r * nc + i] : t->p,
			    t->len);
		}
		if (o->fmt == MCT_O_MD)
			md_row(o, o->st->line.p, o->st->line.len);
		else
			table_row(o, o->st->line.p, o->st->line.len);
	}
	o->st->line.len = 0;
	o->st->cut.len = 0;
	o->st->held.len = 0;
	o->st->nheld = 0;
	mct_buf_free(&cut);
	free(ncell);
	free(cell);
	free(col);
	free(vis);
	free(voff);
}

static void
row_end(struct mct_out *o)
{
	if (o->fmt == MCT_O_MD)
		md_row(o, o->st->line.p, o->st->line.len);
	else if (o->fmt == MCT_O_TABLE)
		table_row(o, o->st->line.p, o->st->line.len);
	else {
		mct_buf_addc(&o->st->line, '\n');
		mct_write(o->st->line.p, o->st->line.len);
	}
	o->st->line.len = 0;
}

/*
 * The buffer of stdout.  A process has one stdout, so this is the one
 * piece of process-wide state here, not a struct mct_out's: it is set
 * once, by whichever output begins first (setvbuf after a write is
 * undefined), and must outlive every struct mct_out (stdout is flushed
 * at exit).
 */
static char obuf[1 << 16];
static pthread_once_t obuf_once = PTHREAD_ONCE_INIT;

/*
 * The output begun and not ended, if any: a program that ends on an
 * error (err(3), memory) before mct_out_end() leaves what it wrote with
 * the line that says it is cut.
 */
static const struct mct_out *live;

#define CUT_ROW	"# cut: the output stops short of its end (an error, said on " \
		"standard error)\n"

/* The line that ends a cut output: a stream's, or a table's. */
static const char *
cut_text(const struct mct_out *o)
{
	switch (o->fmt) {
	case MCT_O_NDJSON:
		return MCT_CUT_LINE "\n";
	case MCT_O_TRACE:
		return NULL;	/* it lacks its closing bracket */
	default:
		return CUT_ROW;
	}
}

static void
cut_at_exit(void)
{
	const char *t;
	sigset_t pipe;

	if (live == NULL || (t = cut_text(live)) == NULL)
		return;
	live = NULL;
	/* a reader gone: EPIPE, not a signal */
	sigemptyset(&pipe);
	sigaddset(&pipe, SIGPIPE);
	pthread_sigmask(SIG_BLOCK, &pipe, NULL);
	if (fflush(stdout) == 0 && !ferror(stdout))
		(void)!write(STDOUT_FILENO, t, strlen(t));
}

static void
obuf_set(void)
{
	atexit(cut_at_exit);
	/* to a pipe or a file, 64 KB a write(2), not stdio's 4 KB */
	if (!isatty(STDOUT_FILENO))
		setvbuf(stdout, obuf, _IOFBF, sizeof(obuf));
	mct_pipe_size(STDOUT_FILENO);
}

/* Start the output: the header line of a stream, of a TSV, of a trace. */
void
mct_out_begin(struct mct_out *o, const struct mct_header *h)
{
	int i;

	pthread_once(&obuf_once, obuf_set);
	o->hdr = h;
	state(o)->n = 0;
	if ((o->st->quiet = h->nread == 0))
		return;
	live = o;
	if (o->tunit == MCT_UNIT_AUTO) {
		o->tunit = MCT_UNIT_NS;
		o->st->tdefault = 1;
	}
	switch (o->fmt) {
	case MCT_O_NDJSON:
		mct_write(h->line, h->linelen);
		mct_write("\n", 1);
		break;
	case MCT_O_TRACE:
		if (h->ranked) {
			o->st->wrap = mct_wrap_new();
			mct_event_init(&o->st->wev, "", 0, h);
		}
		break;		/* written with the first event or at the end */
	default:
		if ((!o->header && !mct_out_human(o)) || o->nfields == 0)
			break;
		for (i = 0; i < o->nfields; i++) {
			const struct mct_field *f = &o->fields[i];

			if (i)
				mct_buf_addc(&o->st->line, sep(o));
			o->st->cell.len = 0;
			mct_buf_adds(&o->st->cell, f->text);
			if (mct_out_human(o) && mct_field_time(f) &&
			    !time_human(o, f)) {
				mct_buf_adds(&o->st->cell, " (");
				mct_buf_adds(&o->st->cell, mct_unit_name(o->tunit));
				mct_buf_addc(&o->st->cell, ')');
			}
			put_cell(o, o->st->cell.p, o->st->cell.len);
		}
		row_end(o);
	}
}

static void
trace_open(struct mct_out *o)
{
	struct mct_buf b = { 0 };

	dropped_keys(o->hdr);
	if (o->hdr->facts.form == 'a')
		mct_buf_adds(&b, "[\n");
	else {
		mct_buf_addc(&b, '{');
		top_keys(o->hdr, 1, &b);
		mct_buf_adds(&b, "\"traceEvents\":[\n");
	}
	mct_write(b.p, b.len);
	mct_buf_free(&b);
}

/*
 * An event of a stream of ranks, for a trace: its pid and flow ids its
 * rank's own (wrap.c).  NULL if it is not written (a sort index: they are
 * given at the end).
 */
static struct mct_event *
wrap_event(struct mct_out *o, struct mct_event *ev)
{
	switch (mct_wrap_event(o->st->wrap, ev, &o->st->wline)) {
	case -1:
		return NULL;
	case 1:
		mct_event_set(&o->st->wev, o->st->wline.p, o->st->wline.len);
		return &o->st->wev;
	}
	return ev;
}

/* An event, in the source's unit, for a trace. */
static void
trace_event(struct mct_out *o, struct mct_event *ev)
{
	int64_t unit = mct_unit_ns(o->hdr->facts.unit);
	struct mct_buf *b = &o->st->line;
	size_t last = 0;
	char num[64];
	int i;

	if (o->st->n++ > 0)
		mct_write(",\n", 2);
	if (unit == 1) {
		mct_write(ev->json, ev->len);
		return;
	}
	mct_event_index(ev);
	b->len = 0;
	for (i = 0; i < ev->nkv; i++) {
		struct mct_kv *kv = &ev->kv[i];
		const char *k = ev->json + kv->koff;
		int64_t ns;

		if (!((kv->klen == 2 && memcmp(k, "ts", 2) == 0) ||
		    (kv->klen == 3 && memcmp(k, "dur", 3) == 0)))
			continue;
		if (mct_int(ev->json + kv->voff, kv->vlen, &ns) != 0)
			continue;
		mct_buf_add(b, ev->json + last, kv->voff - last);
		mct_buf_add(b, num, mct_fmt_dec(num, ns, unit));
		last = kv->voff + kv->vlen;
	}
	mct_buf_add(b, ev->json + last, ev->len - last);
	mct_write(b->p, b->len);
}

void
mct_out_event(struct mct_out *o, struct mct_event *ev)
{
	int i;

	if (state(o)->quiet)
		return;
	switch (o->fmt) {
	case MCT_O_NDJSON:
		/* as lines come from the spool, and runs of lines */
		if (ev->json[ev->len] == '\n')
			mct_write(ev->json, ev->len + 1);
		else {
			mct_write(ev->json, ev->len);
			mct_write("\n", 1);
		}
		return;
	case MCT_O_TRACE:
		if (o->st->wrap != NULL && (ev = wrap_event(o, ev)) == NULL)
			return;
		if (o->st->n == 0)
			trace_open(o);
		trace_event(o, ev);
		return;
	default:
		/* a metadata event as a row is noise to awk and gnuplot
		   (ts 0, no dur): left out unless asked (o->meta) */
		if (!o->meta && mct_is_meta(ev))
			return;
		for (i = 0; i < o->nfields; i++) {
			if (i)
				mct_buf_addc(&o->st->line, sep(o));
			cell(o, ev, &o->fields[i], &o->st->cell);
		}
		row_end(o);
	}
}

/* A record the tool made (a JSON object) as an event of the output. */
void
mct_out_json(struct mct_out *o, const char *json, size_t len)
{
	struct mct_event ev;

	mct_event_init(&ev, json, len, o->hdr);
	mct_out_event(o, &ev);
	mct_event_free(&ev);
}

/*
 * A length of time for a cell or a value: for people on a table, else
 * ns scaled by --time-unit.
 */
void
mct_out_time(const struct mct_out *o, struct mct_buf *b, int64_t ns)
{
	char num[64];

	if (mct_out_human(o))
		mct_fmt_human(num, (double)ns);
	else
		mct_fmt_dec(num, ns, mct_unit_ns(o->tunit));
	mct_buf_adds(b, num);
}

/*
 * A moment (a ts, in ns) for a cell: from the header's origin, in seconds
 * for people on a table ("12.345 s"), else in ns scaled by --time-unit.
 */
void
mct_out_at(const struct mct_out *o, struct mct_buf *b, int64_t ts)
{
	char num[64];

	/* (a partial's origin may be far from its times: none past int64) */
	if (__builtin_sub_overflow(ts, o->hdr->facts.has_origin ?
	    o->hdr->facts.origin : 0, &ts))
		ts = ts > 0 ? INT64_MIN : INT64_MAX;	/* wrapped: the other side */
	if (!mct_out_human(o)) {
		mct_out_time(o, b, ts);
		return;
	}
	snprintf(num, sizeof(num), "%.3f s", (double)ts / 1e9);
	mct_buf_adds(b, num);
}

/*
 * The header line of a stream a tool makes of its own records (not the
 * reader's): h's unit, why (its unit_from), origin and sorted; ndjson,
 * no top-level keys; src[0..nsrc) its sources.  The line is h's to free.
 */
void
mct_out_header(struct mct_header *h, const char *const *src, int nsrc)
{
	struct mct_buf b = { 0 };
	int i;

	h->facts.form = 'n';
	mct_buf_adds(&b, "{\"name\":\"" MCT_HEADER_NAME "\",\"ph\":\"M\","
	    "\"args\":{\"version\":1,\"unit\":\"");
	mct_buf_adds(&b, mct_unit_name(h->facts.unit));
	mct_buf_adds(&b, "\",\"unit_from\":");
	mct_buf_addjstr(&b, h->facts.why, strlen(h->facts.why));
	mct_buf_adds(&b, ",\"origin\":");
	if (h->facts.has_origin)
		mct_buf_addi(&b, h->facts.origin);
	else
		mct_buf_adds(&b, "null");
	mct_buf_adds(&b, ",\"form\":\"ndjson\",\"sorted\":");
	mct_buf_adds(&b, h->facts.sorted ? "true" : "false");
	mct_buf_adds(&b, ",\"top_before\":0,\"top\":{},\"sources\":[");
	for (i = 0; i < nsrc; i++) {
		if (i)
			mct_buf_addc(&b, ',');
		mct_buf_addjstr(&b, src[i], strlen(src[i]));
	}
	mct_buf_adds(&b, "]}}");
	h->line = b.p;
	h->linelen = b.len;
}

void
mct_out_end(struct mct_out *o)
{
	struct mct_buf b = { 0 };

	if (mct_out_human(o))
		held_flush(o);
	switch (state(o)->quiet ? MCT_O_NDJSON : o->fmt) {
	case MCT_O_TRACE:
		if (o->st->n == 0)
			trace_open(o);
		if (o->st->wrap != NULL) {
			/* names and sort indexes of the ranks' processes */
			mct_wrap_end(o->st->wrap, &b);
			if (o->st->n == 0 && b.len > 2)
				memmove(b.p, b.p + 2, b.len -= 2);
		}
		if (o->hdr->facts.form == 'a')
			mct_buf_adds(&b, "\n]\n");
		else {
			mct_buf_adds(&b, "\n]");
			top_keys(o->hdr, 0, &b);
			mct_buf_adds(&b, "}\n");
		}
		mct_write(b.p, b.len);
		break;
	case MCT_O_TABLE:
		table_flush(o);
		break;
	default:
		break;
	}
	if (live == o) {
		live = NULL;
		if (mct_cutoff_armed() && cut_text(o) != NULL)
			mct_write(cut_text(o), strlen(cut_text(o)));
	}
	mct_buf_free(&b);
	mct_wrap_free(o->st->wrap);
	o->st->wrap = NULL;
	mct_buf_free(&o->st->wline);
	mct_event_free(&o->st->wev);
	mct_buf_free(&o->st->line);
	mct_buf_free(&o->st->rows);
	mct_buf_free(&o->st->cell);
	mct_buf_free(&o->st->cut);
	mct_buf_free(&o->st->held);
	free(o->st->heldrow);
	o->st->heldrow = NULL;
	o->st->nheld = 0;
	free(o->st->width);
	free(o->st);		/* the next table has its own header */
	o->st = NULL;
}
