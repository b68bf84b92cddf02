/*
 * cell.c - a group table's rows for the writers: its aggregates as the
 * text of cells (for people on a table and in Markdown, else exact for
 * programs), its key parts as text, and its key as JSON members for an
 * NDJSON record.  group.c aggregates; what the numbers look like is
 * decided here.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mct.h"

/* A number for people: times, bytes, counts and shares (mct-group(1)). */
static void
human(const struct mct_agg *a, double d, int64_t iv, int isint, char *num,
    size_t size)
{
	if (a->kind == MCT_A_COUNT)
		mct_fmt_count(num, iv);
	else if (a->kind == MCT_A_SHARE)
		snprintf(num, size, "%.2f%%", d);
	else if (a->kind == MCT_A_FIRST || a->kind == MCT_A_LAST)
		snprintf(num, size, "%.3f s", d / 1e9);
	else if (a->time)
		mct_fmt_human(num, d);
	else if (a->bytes)
		mct_fmt_bytes(num, size, d, isint ? &iv : NULL);
	else if (isint)
		mct_fmt_count(num, iv);
	else
		snprintf(num, size, "%.2f", d);
}

/* The text of one aggregate cell, for people or for programs. */
void
mct_cell_agg(const struct mct_gtab *t, struct mct_group *g,
    const struct mct_agg *a, const struct mct_out *out, struct mct_buf *b)
{
	char num[96];
	int64_t iv = 0;
	int nan_, isint;
	double d = mct_agg_value(t, g, a, &nan_, &iv, &isint);
	int64_t unit = mct_unit_ns(out->tunit);

	if (nan_)
		mct_buf_adds(b, mct_out_human(out) ? "-" :
		    out->fmt == MCT_O_NDJSON ? "null" : "");
	else if (mct_out_human(out)) {
		human(a, d, iv, isint, num, sizeof(num));
		mct_buf_adds(b, num);
	} else {
		if (a->time && unit > 1) {
			if (isint)
				mct_fmt_dec(num, iv, unit);
			else
				mct_fmt_double(num, d / (double)unit);
		} else if (isint)
			snprintf(num, sizeof(num), "%lld", (long long)iv);
		else
			mct_fmt_double(num, d);
		mct_buf_adds(b, num);
	}
}

/* Add the text of a key part: a string's unquoted, else the JSON text. */
void
mct_cell_text(const struct mct_group *g, int i, struct mct_buf *b)
{
	struct mct_val v;

	if ((v.p = mct_group_part(g, i, &v.len)) == NULL || v.len == 0)
		return;
	v.type = *v.p == '"' ? MCT_J_STRING : MCT_J_NUMBER;
	mct_jstr(&v, b);
}

/*
 * The fields by[idx[0..n)] that share their first `depth` segments, as
 * JSON members at that depth, their values the key parts of the same
 * index: "name":..,"args":{"grid":..}.
 */
static void
members(const struct mct_group *g, const struct mct_field *by, const int *idx,
    int n, int depth, struct mct_buf *b)
{
	int i, j, m, first = 1, *sub;

	sub = mct_xmalloc((size_t)(n + 1) * sizeof(*sub));
	for (i = 0; i < n; i++) {
		const struct mct_field *f = &by[idx[i]];
		int seen = 0;

		for (j = 0; j < i && !seen; j++)	/* this name done? */
			seen = strcmp(by[idx[j]].seg[depth], f->seg[depth]) == 0;
		if (seen)
			continue;
		if (!first)
			mct_buf_addc(b, ',');
		first = 0;
		mct_buf_addjstr(b, f->seg[depth], f->seglen[depth]);
		mct_buf_addc(b, ':');
		if (f->nseg == depth + 1) {
			size_t len;
			const char *p = mct_group_part(g, idx[i], &len);

			mct_buf_add(b, len ? p : "null", len ? len : 4);
			continue;
		}
		for (m = 0, j = i; j < n; j++)	/* the deeper ones here */
			if (by[idx[j]].nseg > depth + 1 &&
			    strcmp(by[idx[j]].seg[depth], f->seg[depth]) == 0)
				sub[m++] = idx[j];
		mct_buf_addc(b, '{');
		members(g, by, sub, m, depth + 1, b);
		mct_buf_addc(b, '}');
	}
	free(sub);
}

/*
 * A group's key as JSON members (no braces): the paths nested back, the
 * virtual fields flat under their names.
 */
void
mct_cell_json(const struct mct_group *g, const struct mct_field *by,
    int nby, struct mct_buf *b)
{
	int i, n = 0, *idx;
	size_t len, start = b->len;
	const char *p;

	idx = mct_xmalloc((size_t)(nby + 1) * sizeof(*idx));
	for (i = 0; i < nby; i++)
		if (!mct_field_virtual(&by[i]))
			idx[n++] = i;
	members(g, by, idx, n, 0, b);
	free(idx);
	for (i = 0; i < nby; i++) {
		if (!mct_field_virtual(&by[i]))
			continue;
		p = mct_group_part(g, i, &len);
		if (b->len > start)
			mct_buf_addc(b, ',');
		mct_buf_addjstr(b, by[i].text, strlen(by[i].text));
		mct_buf_addc(b, ':');
		mct_buf_add(b, len ? p : "null", len ? len : 4);
	}
}
