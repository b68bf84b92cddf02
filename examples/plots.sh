#!/bin/sh
# plots.sh STREAM DIR - draw the four pictures of a trace with gnuplot.
#
#   timeline.png    kernel duration against time, one colour for each of the
#                   eight kernels with the most device time
#   categories.png  device time by category
#   latency.png     launch latency distribution (mct-flow)
#   busy.png        device busy % over time, in bins
#
# STREAM is an mct stream (mct-cat trace.json > trace.ndjson) or a trace.
# The mct tools come from PATH; the .gp scripts from beside this script.
set -eu
[ $# -eq 2 ] || { echo "usage: plots.sh stream dir" >&2; exit 2; }
s=$1 dir=$2 here=$(dirname "$0")
command -v gnuplot >/dev/null || { echo "plots.sh: gnuplot is not installed" >&2; exit 2; }
mkdir -p "$dir"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/mct-plots.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

# Draw NAME.png from DATA with NAME.gp; with no data, say so and draw
# nothing (gnuplot would fail and leave an empty picture).
draw() {
	if [ -s "$2" ]; then
		gnuplot -e "data='$2'; out='$dir/$1.png'" "$here/$1.gp"
	else
		rm -f "$dir/$1.png"
		echo "plots.sh: $1: nothing to draw" >&2
	fi
}

# the device lanes of every producer (mct(7), "Device lanes")
mct-filter --device "$s" >"$tmp/dev"
if [ "$(mct-filter --ph X -c "$tmp/dev")" = 0 ]; then
	echo "plots.sh: no device events: no pictures" >&2
	exit 0
fi

# timeline: the eight kernels with the most device time get a colour
# each; the rest is "other kernels".  Their legend is their names as a
# table cuts them to 40 characters (no two alike: mct-group(1) --width),
# the same rows in the same order.
mct-group -a total -n 8 -o tsv --no-header "$tmp/dev" |
    awk -F'\t' '$1 != "(others)" { print $1 }' >"$tmp/top"
mct-group -a total -n 8 -o md --width 40 "$tmp/dev" | awk 'NR > 2 {
	gsub(/\\\|/, "\001"); sub(/^\| /, ""); sub(/ \|.*/, ""); gsub(/\001/, "|")
	print }' >"$tmp/labels"
mct-cat -o tsv --no-header --time-unit s -F rel,dur,name "$tmp/dev" |
    awk -F'\t' -v top="$tmp/top" -v labels="$tmp/labels" '
	BEGIN { while ((getline l < top) > 0) heavy[l] = ++nh
		while ((getline l < labels) > 0 && nl < nh) label[++nl] = l }
	{
		i = ($3 in heavy) ? heavy[$3] : 0
		printf "%s\t%s\t%d\t%s\t%s\n", $1, $2 * 1000, i,
		    i ? $3 : "other kernels", i ? label[i] : "other kernels"
	}' >"$tmp/timeline.tsv"
draw timeline "$tmp/timeline.tsv"

# device time by category
mct-group --by category -a total -o tsv --no-header --time-unit s "$tmp/dev" \
    >"$tmp/categories.tsv"
draw categories "$tmp/categories.tsv"

# launch latency, in us
mct-flow -q "$s" | mct-cat -o tsv --no-header -F latency --time-unit us \
    >"$tmp/latency.tsv"
draw latency "$tmp/latency.tsv"

# busy % per bin: the union of device intervals, binned (1/200 of the span)
mct-cat -o tsv --no-header -F rel,dur "$tmp/dev" | sort -n -k1,1 |
    awk -F'\t' '
	function add(a, b,   i, lo, hi) {	# add busy [a, b) to the bins
		for (i = int(a / w); i <= int((b - 1) / w) && i < nb; i++) {
			lo = i * w > a ? i * w : a; hi = (i + 1) * w < b ? (i + 1) * w : b
			if (hi > lo) busy[i] += hi - lo
		}
	}
	{ s[NR] = $1 + 0; e[NR] = $1 + $2; if (e[NR] > m) m = e[NR] }
	END {
		nb = 200; w = (m > 0 ? m : 1) / nb
		for (j = 1; j <= NR; j++) {	# merge overlaps: busy is the union
			if (j > 1 && s[j] <= ce) { if (e[j] > ce) ce = e[j]; continue }
			if (j > 1) add(cs, ce)
			cs = s[j]; ce = e[j]
		}
		if (NR) add(cs, ce)
		for (i = 0; i < nb; i++) printf "%.6f\t%.2f\n", (i + 0.5) * w / 1e9, 100 * busy[i] / w
	}' >"$tmp/busy.tsv"
draw busy "$tmp/busy.tsv"
