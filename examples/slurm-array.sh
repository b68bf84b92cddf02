#!/bin/sh
# slurm-array.sh - the recipe of fleet.sh on a Slurm cluster: one array task
# per trace runs the pipeline on the node Slurm gives it (where the trace's
# file system is), writes its partial table, and a last job, run after
# every task has ended, merges the partials (mct(7), "Many machines").
#
#   sbatch --array=0-$((N - 1)) examples/slurm-array.sh LIST OUTDIR
#   sbatch --dependency=afterok:JOBID --wrap \
#       'examples/slurm-array.sh --merge LIST OUTDIR > table.tsv'
#
# LIST has one trace path a line (the last counted with or without its
# newline); task i takes line i + 1.  OUTDIR (on a file system every node
# sees) gets partial-$i.nd from each task, written first under a name
# mktemp makes there (never one another user could have made beforehand).  The
# commands are fleet.sh's; set MCT_FILTER (mct-filter options), MCT_BY
# (default name) and MCT_AGGS (default count,total,mean,median,min,max)
# the same for both jobs.
#SBATCH --job-name=mct-partial
#SBATCH --ntasks=1
#SBATCH --cpus-per-task=1
#SBATCH --output=mct-%A_%a.log
set -eu

by=${MCT_BY:-name}
aggs=${MCT_AGGS:-count,total,mean,median,min,max}

if [ "${1:-}" = --merge ]; then
	[ $# -eq 3 ] || { echo "usage: slurm-array.sh --merge LIST OUTDIR" >&2; exit 2; }
	# lines, the last one even without its newline (wc -l skips it)
	n=$(awk 'END { print NR }' "$2")
	i=0
	set -- "$3"
	dir=$1
	shift
	while [ "$i" -lt "$n" ]; do
		set -- "$@" "$dir/partial-$i.nd"
		i=$((i + 1))
	done
	# every task's partial must be there: a missing one is exit 2
	exec mct-group --merge -o "${MCT_FORMAT:-tsv}" -k "$by" -a "$aggs" "$@"
fi

[ $# -eq 2 ] || { echo "usage: slurm-array.sh LIST OUTDIR (as an array job)" >&2; exit 2; }
: "${SLURM_ARRAY_TASK_ID:?run it with sbatch --array}"
trace=$(sed -n "$((SLURM_ARRAY_TASK_ID + 1))p" "$1")
[ -n "$trace" ] || { echo "slurm-array.sh: no line $((SLURM_ARRAY_TASK_ID + 1)) in $1" >&2; exit 2; }
out=$2/partial-$SLURM_ARRAY_TASK_ID.nd
tmp=$(mktemp "$2/.partial-$SLURM_ARRAY_TASK_ID.XXXXXX")
trap 'rm -f "$tmp"' EXIT INT TERM

# Written beside and then renamed: a task whose pipeline fails leaves no
# partial, and the merge says which one is missing.  Each program that
# fails says so on fd 3 (sh has no pipefail).  MCT_FILTER is split into
# words, not globbed; the trace comes after -- (it may begin with '-').
set -f
# shellcheck disable=SC2086
st=$( { { mct-cat -- "$trace" || echo "mct-cat: $?" >&3; } |
    { mct-filter ${MCT_FILTER:-} || echo "mct-filter: $?" >&3; } |
    { mct-group -o partial -k "$by" -a "$aggs" > "$tmp" ||
    echo "mct-group: $?" >&3; }; } 3>&1 )
if [ -n "$st" ]; then
	echo "slurm-array.sh: $trace: exit status $st" >&2
	exit 1
fi
chmod "$(umask -S | tr -d x)" "$tmp"	# as a file the shell made (mktemp's is 600)
mv -- "$tmp" "$out"
