#!/bin/sh
# fleet.sh - mct where the traces are: each trace's pipeline runs, through
# GNU parallel over ssh, on the host that holds it, and only the partial
# tables (a few kB each) come back to be merged here (mct(7), "Many
# machines").
#
#   fleet.sh [-a AGGREGATES] [-k FIELDS] [-f 'MCT-FILTER OPTIONS']
#            [-o FORMAT] [-J JOBLOG] [-P PARTIALS] HOST:FILE ...
#   fleet.sh -r|-c [-A] [-k FIELDS] [-f ...] [-o FORMAT] [-J ...] [-P ...]
#            HOST:FILE ...
#
# e.g.  fleet.sh -k name -f '--pid 2' node1:/scratch/rank-0.json.gz \
#           node1:/scratch/rank-1.json.gz node2:/scratch/rank-2.json.gz
#       fleet.sh -r node1:/scratch/rank-0.json.gz node2:/scratch/rank-1.json.gz
#
# On HOST:  mct-cat FILE | mct-filter OPTIONS | mct-group -o partial ...
# Here:     mct-group --merge -o FORMAT ... (the table one mct-group over
#           every trace would print, byte for byte)
#
# -r, the ranks of one job (one trace a rank): mct-ranks' table instead
# (-c: its --collectives; -A: the hosts' clocks aligned by the merge, as
# mct-cat --align start would); -k is then mct-ranks' --key, -a is unused.
# On HOST:  mct-cat --rank=auto FILE | mct-filter OPTIONS | mct-ranks -o partial
# Here:     mct-ranks --merge -o FORMAT (mct-ranks over every trace, byte
#           for byte).  Each trace's rank is its distributedInfo.rank,
#           else the number after "rank" in its file name.
#
# Each FILE runs only on its HOST (GNU parallel's host groups: FILE@HOST);
# a host runs as many pipelines at once as MCT_JOBS (default 1) says.
# MCT_SSH is the ssh command (default ssh; e.g. 'ssh -F my_config');
# MCT_REMOTE_PATH is where the mct tools are on the hosts (put first on
# their PATH in the remote command; default: the PATH a login shell gets
# there).  -J writes GNU parallel's job log (which host ran what, its
# exit status); -P keeps the partials.  FILE may not contain '@' or a
# newline, HOST no blank, '@' or leading '-'.  -a, -k, -f and
# MCT_REMOTE_PATH reach the hosts as data (environment variables that
# parallel --env carries), never as shell text: -f is split into words
# there, without globbing.
#
# Exit status: 0; 1 when a pipeline failed or its trace was damaged (the
# others are merged, the job log names it); 2 on a usage error.
set -eu

aggs=count,total,mean,median,min,max
by=
filter=
fmt=tsv
joblog=
keep=
ranks=
align=
while getopts Aa:cf:J:k:o:P:r opt; do
	case $opt in
	A) align="--align start" ;;
	a) aggs=$OPTARG ;;
	c) ranks=--collectives ;;
	f) filter=$OPTARG ;;
	J) joblog=$OPTARG ;;
	k) by=$OPTARG ;;
	o) fmt=$OPTARG ;;
	P) keep=$OPTARG ;;
	r) ranks=${ranks:-" "} ;;
	*) echo "usage: fleet.sh [-Acr] [-a aggregates] [-k fields] [-f filter] [-o format] [-J joblog] [-P partials] host:file ..." >&2
	   exit 2 ;;
	esac
done
shift $((OPTIND - 1))
[ $# -gt 0 ] || { echo "fleet.sh: no host:file given" >&2; exit 2; }

nl='
'
for o in "$aggs" "$by" "$filter" "${MCT_REMOTE_PATH:-}"; do
	case $o in
	*"$nl"*) echo "fleet.sh: a newline in an option" >&2; exit 2 ;;
	esac
done

tmp=$(mktemp -d "${TMPDIR:-/tmp}/fleet.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM

# FILE@HOST for parallel's --hostgroups; one --sshlogin per distinct host
hosts=
for a; do
	case $a in
	*:*) ;;
	*) echo "fleet.sh: '$a' is not host:file" >&2; exit 2 ;;
	esac
	host=${a%%:*}
	case ${a#*:} in
	*@*|*"$nl"*|'')
		echo "fleet.sh: '${a#*:}': a file may not be empty or hold '@' or a newline" >&2
		exit 2 ;;
	esac
	case $host in
	''|-*|*@*|*[[:space:]]*)
		echo "fleet.sh: '$host': a host may not be empty, begin with '-', or hold '@' or a blank" >&2
		exit 2 ;;
	esac
	printf '%s@%s\n' "${a#*:}" "$host" >> "$tmp/args"
	case " $hosts " in
	*" $host "*) ;;
	*) hosts="$hosts $host" ;;
	esac
done
set --
for h in $hosts; do
	set -- "$@" --sshlogin "${MCT_JOBS:-1}/$h"
done

# The remote command: shell text run on the host, its PATH set there.
# Each program that fails says so on fd 3, whose text is the pipeline's
# verdict (sh has no pipefail): a trace that cannot be read fails its job
# instead of giving an empty partial.  -f, -k, -a and MCT_REMOTE_PATH go
# as environment variables (parallel --env), expanded there as data;
# GNU parallel quotes {}, after -- (a file may begin with '-').
MCT_FLEET_AGGS=$aggs
MCT_FLEET_BY=${by:-name}
MCT_FLEET_FILTER=$filter
MCT_FLEET_PATH=${MCT_REMOTE_PATH:-}
export MCT_FLEET_AGGS MCT_FLEET_BY MCT_FLEET_FILTER MCT_FLEET_PATH
# shellcheck disable=SC2016 # expanded there, not here
remote='set -f; [ -z "$MCT_FLEET_PATH" ] || { PATH=$MCT_FLEET_PATH:$PATH; export PATH; }; '
if [ -n "$ranks" ]; then
	[ -n "$by" ] || MCT_FLEET_BY=
	cat="mct-cat --rank=auto"
	name=mct-ranks
	# shellcheck disable=SC2016
	tool='mct-ranks -o partial ${MCT_FLEET_BY:+-k "$MCT_FLEET_BY"}'
else
	cat=mct-cat
	name=mct-group
	# shellcheck disable=SC2016
	tool='mct-group -o partial -k "$MCT_FLEET_BY" -a "$MCT_FLEET_AGGS"'
fi
remote="${remote}exec 4>&1; st=\$( { { $cat -- {} || echo mct-cat: \$? >&3; } | "
remote="$remote{ mct-filter \$MCT_FLEET_FILTER || echo mct-filter: \$? >&3; } | "
remote="$remote{ $tool >&4 || echo $name: \$? >&3; }; } 3>&1 ); "
remote="${remote}[ -z \"\$st\" ] || { echo {}: exit status \$st >&2; exit 1; }"

status=0
parallel --hostgroups --ssh "${MCT_SSH:-ssh}" "$@" \
    --env MCT_FLEET_AGGS --env MCT_FLEET_BY --env MCT_FLEET_FILTER \
    --env MCT_FLEET_PATH \
    ${joblog:+--joblog "$joblog"} --halt never \
    "$remote" :::: "$tmp/args" > "$tmp/partials" || status=1

[ -z "$keep" ] || cp -- "$tmp/partials" "$keep"
if [ -n "$ranks" ]; then
	# shellcheck disable=SC2086 # $ranks and $align: words, or blank
	mct-ranks --merge -o "$fmt" ${by:+-k "$by"} $ranks $align "$tmp/partials"
else
	mct-group --merge -o "$fmt" -k "${by:-name}" -a "$aggs" "$tmp/partials"
fi || {
	s=$?
	[ $s -gt $status ] && status=$s
}
exit $status
