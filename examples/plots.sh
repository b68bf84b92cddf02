#!/bin/sh
# plots.sh STREAM DIR - draw the four pictures of a trace with gnuplot.
#
#   timeline.png    kernel duration against time, one colour per launch config
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

# the device lanes: mcTracer pid 2 and 3, Kineto kernel/memcpy/memset
mct-filter --ph X --where '!cat && pid==2' --where '!cat && pid==3' \
    --where 'cat~^(kernel|Kernel|gpu_memcpy|gpu_memset|Memcpy|Memset)$' \
    "$s" >"$tmp/dev"

# timeline: every launch config of the two heaviest kernel names gets a
# colour of its own (warmup configs included); the rest is "other kernels"
mct-group -a total -n 2 -o tsv --no-header "$tmp/dev" |
    awk -F'\t' '$1 != "(others)" { print $1 }' >"$tmp/top"
mct-cat -o tsv --no-header --time-unit s -F rel,dur,name,args.grid "$tmp/dev" |
    awk -F'\t' -v top="$tmp/top" '
	BEGIN { while ((getline l < top) > 0) heavy[l] = 1 }
	{
		key = ($3 in heavy) ? $3 " " $4 : "other kernels"
		if (!(key in k)) k[key] = key == "other kernels" ? 0 : ++n
		printf "%s\t%s\t%d\t%s\n", $1, $2 * 1000, k[key], key
	}' >"$tmp/timeline.tsv"
gnuplot -e "data='$tmp/timeline.tsv'; out='$dir/timeline.png'" "$here/timeline.gp"

# device time by category
mct-group --by category -a total -o tsv --no-header --time-unit s "$tmp/dev" \
    >"$tmp/categories.tsv"
gnuplot -e "data='$tmp/categories.tsv'; out='$dir/categories.png'" "$here/categories.gp"

# launch latency, in us
mct-flow -q "$s" | mct-cat -o tsv --no-header -F latency --time-unit us \
    >"$tmp/latency.tsv"
gnuplot -e "data='$tmp/latency.tsv'; out='$dir/latency.png'" "$here/latency.gp"

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
gnuplot -e "data='$tmp/busy.tsv'; out='$dir/busy.png'" "$here/busy.gp"
