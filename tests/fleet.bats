#!/usr/bin/env bats
# fleet.bats - the recipe of mct(7) "Many machines", for real: a throw-away
# sshd on 127.0.0.1, reached as two ssh "hosts" (two aliases of one ssh
# config), and examples/fleet.sh running each trace's pipeline through GNU
# parallel --sshlogin on the host named for it.  The merged table must be
# byte for byte the table of one local mct-group over every trace.
#
# Skips, saying why, only where sshd cannot be started.

load helpers

setup_file() {
	light_trace
	local d=$BATS_FILE_TMPDIR/ssh sshd port i

	export SSHD_SKIP=
	sshd=$(command -v sshd || echo /usr/sbin/sshd)
	if [ ! -x "$sshd" ] || ! command -v ssh > /dev/null ||
	    ! command -v ssh-keygen > /dev/null; then
		SSHD_SKIP="no sshd, ssh or ssh-keygen (Debian: openssh-server openssh-client)"
		return 0
	fi
	mkdir -p "$d"
	ssh-keygen -q -t ed25519 -N '' -f "$d/host_key"
	ssh-keygen -q -t ed25519 -N '' -f "$d/user_key"
	cp "$d/user_key.pub" "$d/authorized_keys"
	chmod 600 "$d/authorized_keys" "$d/host_key" "$d/user_key"
	port=$("$PYTHON3" -c 'import socket; s = socket.socket();
s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
	cat > "$d/sshd_config" <<-EOF
	Port $port
	ListenAddress 127.0.0.1
	HostKey $d/host_key
	AuthorizedKeysFile $d/authorized_keys
	StrictModes no
	UsePAM no
	PidFile $d/sshd.pid
	PubkeyAuthentication yes
	PasswordAuthentication no
	KbdInteractiveAuthentication no
	PermitRootLogin prohibit-password
	AcceptEnv ASAN_OPTIONS UBSAN_OPTIONS
	EOF
	cat > "$d/ssh_config" <<-EOF
	Host host1 host2
		HostName 127.0.0.1
		Port $port
		User $(id -un)
		IdentityFile $d/user_key
		IdentitiesOnly yes
		StrictHostKeyChecking no
		UserKnownHostsFile /dev/null
		BatchMode yes
		LogLevel ERROR
		SendEnv ASAN_OPTIONS UBSAN_OPTIONS
	EOF
	# (the sanitizer build's options reach the remote tools: SendEnv)
	# sshd wants its privilege separation directory (root only)
	if [ "$(id -u)" = 0 ] && [ ! -d /run/sshd ]; then
		mkdir -p /run/sshd && chmod 755 /run/sshd
	fi
	if ! "$sshd" -f "$d/sshd_config" -E "$d/sshd.log"; then
		SSHD_SKIP="sshd did not start: $(tail -1 "$d/sshd.log" 2>/dev/null)"
		return 0
	fi
	for i in $(seq 25); do
		ssh -F "$d/ssh_config" host1 true 2> "$d/ssh.err" && break
		sleep 0.2
	done
	if [ "$i" -eq 25 ]; then
		SSHD_SKIP="cannot log in to the test sshd: $(tail -1 "$d/ssh.err")"
		return 0
	fi

	# The traces: two ranks of a real job (when the fixtures are there)
	# and two generated ones.
	genf "$BATS_FILE_TMPDIR/rank-2.json" --scale 0.02 --seed 2
	genf "$BATS_FILE_TMPDIR/rank-3.json" --scale 0.02 --seed 3 --unit us
	# and a job of 4 ranks, rank 1 slow, clocks apart (fleet.sh -r)
	mkdir "$BATS_FILE_TMPDIR/job"
	gen --scale 0.02 --ranks 4 --slow-rank 1 --slow-factor 1.1 \
	    --clock-offset 2000000000 --out "$BATS_FILE_TMPDIR/job"
}

teardown_file() {
	local p=$BATS_FILE_TMPDIR/ssh/sshd.pid

	[ -f "$p" ] && kill "$(cat "$p")" 2> /dev/null || true
}

setup() {
	light_trace
	[ -z "$SSHD_SKIP" ] || skip "$SSHD_SKIP"
	command -v parallel > /dev/null ||
	    fail_with "GNU parallel is not installed (Debian: parallel)"
	cd "$BATS_TEST_TMPDIR"
	export MCT_SSH="ssh -F $BATS_FILE_TMPDIR/ssh/ssh_config"
	export MCT_REMOTE_PATH="$MCT_BUILDDIR/tools"
	export MCT_JOBS=2
	fleet=$MCT_SRCDIR/examples/fleet.sh
	traces=()
	if [ -d "$fixtures" ]; then
		traces+=("$fixtures/kineto-rank0-of-2-nccl.json.gz"
		    "$fixtures/kineto-rank1-of-2-nccl.json.gz")
	fi
	traces+=("$BATS_FILE_TMPDIR/rank-2.json" "$BATS_FILE_TMPDIR/rank-3.json")
}

fail_with() {
	echo "$1"
	return 1
}

@test "fleet.sh over two ssh hosts: the merged table is one local mct-group's, byte for byte; the job log shows both hosts" {
	local a=count,total,mean,median,min,max,p90,stddev,first,last i=0 t
	local args=()

	for t in "${traces[@]}"; do
		args+=("host$((i % 2 + 1)):$t")
		i=$((i + 1))
	done
	run --separate-stderr sh "$fleet" -a "$a" -f '--ph X' -J joblog \
	    -P partials "${args[@]}"
	echo "$stderr"
	[ "$status" -eq 0 ]
	got=$output
	# the job log, in the test's log: which host ran which trace
	sed 's/^/# /' joblog >&3
	[ "$(awk -F'\t' 'NR > 1 { print $2 }' joblog | sort -u | tr '\n' ' ')" = "host1 host2 " ]
	[ "$(awk -F'\t' 'NR > 1 && $7 != 0' joblog | wc -l)" -eq 0 ]
	# every trace ran on the host named for it
	i=0
	for t in "${traces[@]}"; do
		awk -F'\t' -v t="$t" 'index($9, t) { print $2 }' joblog |
		    grep -qx "host$((i % 2 + 1))"
		i=$((i + 1))
	done
	# one partial came back per trace
	[ "$(grep -c '"mct_partial":1' partials)" -eq "${#traces[@]}" ]

	want=$(mct-cat "${traces[@]}" | mct-filter --ph X |
	    mct-group -o tsv -a "$a")
	same "$got" "$want"
	[ "$(printf '%s\n' "$got" | wc -l)" -gt 20 ]
}

@test "fleet.sh: a trace missing on its host fails its job (exit 1, the job log says which), the others are merged" {
	run --separate-stderr sh "$fleet" -J joblog "host1:${traces[0]}" \
	    "host2:$BATS_TEST_TMPDIR/no-such-rank.json"
	echo "$stderr"
	[ "$status" -eq 1 ]
	[[ "$stderr" == *no-such-rank.json* ]]
	awk -F'\t' 'NR > 1 && $7 != 0 { print $2 }' joblog | grep -qx host2
	want=$(mct-cat "${traces[0]}" | mct-group -o tsv -a count,total,mean,median,min,max)
	same "$output" "$want"
}

@test "fleet.sh -c -A over two ssh hosts: mct-ranks' collectives (clocks aligned), and (from the partials it kept) its table, merged from per-rank partials, are one local mct-ranks' byte for byte" {
	local j=$BATS_FILE_TMPDIR/job args=() i

	for i in 0 1 2 3; do
		args+=("host$((i % 2 + 1)):$j/rank-$i.json")
	done
	run --separate-stderr sh "$fleet" -c -A -J joblog -P partials "${args[@]}"
	echo "$stderr"
	[ "$status" -eq 0 ]
	[ "$(printf '%s\n' "$stderr" | grep -c '^mct-ranks: --align start: rank [0-3] (.*) shifted by ')" -eq 4 ]
	[ "$(awk -F'\t' 'NR > 1 { print $2 }' joblog | sort -u | tr '\n' ' ')" = "host1 host2 " ]
	sed 's/^/# /' joblog >&3
	same "$output" "$(mct-cat --align start "$j"/rank-[0-3].json 2> /dev/null |
	    mct-ranks --collectives -o tsv)"
	[ "$(printf '%s\n' "$output" | wc -l)" -gt 6 ]
	# one partial a rank, each of its own rank (by distributedInfo)
	[ "$(grep -c '"mct_ranks_partial":1' partials)" -eq 4 ]
	[ "$(grep -o '^{"rank":[0-9]*,"start"' partials | sort | tr -d '\n')" = \
	    '{"rank":0,"start"{"rank":1,"start"{"rank":2,"start"{"rank":3,"start"' ]
	# what fleet.sh -r prints: the rank table, rank 1 the straggler
	run mct-ranks --merge -o tsv partials
	same "$output" "$(mct-ranks -o tsv "$j"/rank-[0-3].json)"
	[[ "$output" == *$'\n1\t'*$'\ttrue\t'*$'\n2\t'* ]]
}

@test "fleet.sh: -k, -a and -f reach the hosts as data: a --by of '; touch X; ' runs nothing on either host and groups by that literal field" {
	local k="'; touch X; '" home_x=0
	local ka="'; touch $BATS_TEST_TMPDIR/X; '"

	# the hosts' shell starts in the home directory; X there, or here,
	# would be the command run
	[ ! -e "$HOME/X" ] || home_x=1
	run --separate-stderr sh "$fleet" -k "$k" "host1:${traces[0]}" \
	    "host2:${traces[1]}"
	echo "$stderr"
	[ "$status" -eq 0 ]
	[ ! -e X ] && [ ! -e "$BATS_TEST_TMPDIR/X" ]
	[ "$home_x" -eq 1 ] || [ ! -e "$HOME/X" ]
	same "$output" "$(mct-cat "${traces[0]}" "${traces[1]}" |
	    mct-group -o tsv -k "$k" -a count,total,mean,median,min,max 2> /dev/null)"
	# the same quotes in -a and -f: refused by the tools there (exit 1,
	# the job log says so), never run
	run --separate-stderr sh "$fleet" -J joblog -a "count$ka" "host1:${traces[0]}"
	[ "$status" -ne 0 ]
	[ ! -e "$BATS_TEST_TMPDIR/X" ]
	run --separate-stderr sh "$fleet" -f "--ph X$ka" "host2:${traces[0]}"
	[ "$status" -ne 0 ]
	[ ! -e "$BATS_TEST_TMPDIR/X" ]
	# -f is split into words there, not globbed: '--ph *' is the phase
	# '*' (a warning: no event has it), not the names of files
	run --separate-stderr sh "$fleet" -f '--ph *' "host1:${traces[0]}"
	[ "$status" -eq 0 ]
	[[ "$stderr" == *"mct-filter: --ph: '*' is not a Chrome trace phase"* ]]
	[ "$home_x" -eq 1 ] || [ ! -e "$HOME/X" ]
}

@test "fleet.sh: a FILE with '@' or a newline, a HOST with '-' first: refused (exit 2); a FILE beginning with '-' is a file" {
	run --separate-stderr sh "$fleet" "host1:$BATS_TEST_TMPDIR/a@b.json"
	[ "$status" -eq 2 ]
	same "$stderr" "fleet.sh: '$BATS_TEST_TMPDIR/a@b.json': a file may not be empty or hold '@' or a newline"
	run --separate-stderr sh "$fleet" "host1:${traces[0]}
x"
	[ "$status" -eq 2 ]
	run --separate-stderr sh "$fleet" "host1:${traces[0]}" \
	    "-oProxyCommand=touch_X:${traces[0]}"
	[ "$status" -eq 2 ]
	[[ "$stderr" == *"a host may not be empty, begin with '-', or hold '@' or a blank" ]]
	run --separate-stderr sh "$fleet" -k "$(printf 'name\nx')" "host1:${traces[0]}"
	[ "$status" -eq 2 ]
	same "$stderr" "fleet.sh: a newline in an option"
	# a path relative to the hosts' home that begins with '-'
	local d="-mct-fleet.$$"
	mkdir "$HOME/$d"
	cp "${traces[0]}" "$HOME/$d/t.json"
	run --separate-stderr sh "$fleet" "host1:$d/t.json"
	rm -rf "${HOME:?}/$d"
	echo "$stderr"
	[ "$status" -eq 0 ]
	same "$output" "$(mct-cat "${traces[0]}" | mct-group -o tsv -a count,total,mean,median,min,max)"
}
