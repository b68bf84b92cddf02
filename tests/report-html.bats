#!/usr/bin/env bats
# mct-report -o html: the Markdown report as one page that needs nothing
# beside it, each table with a chart of one mark a row; checked from
# outside by tests/html_check.py (python3's html.parser) and in a real
# browser (chromium, headless) when one is installed.

load helpers

setup_file() {
	light_trace
	bats_require_minimum_version 1.5.0
	d=$BATS_FILE_TMPDIR
	genf "$d/seed.json" --scale 0.05
	mct-report "$d/seed.json" > "$d/seed.md"
	mct-report -o html "$d/seed.json" > "$d/seed.html"
	# several ranks and a second run: the sections of their own
	genf "$d/slow.json" --scale 0.05 --slow-kernel kernel_kernel \
	    --slow-factor-kernel 1.10
	mct-report --against "$d/slow.json" "$d/seed.json" > "$d/diff.md"
	mct-report -o html --against "$d/slow.json" "$d/seed.json" > "$d/diff.html"
}

setup() {
	light_trace
}

# The page in chromium, with no network: its DOM, its console, a
# screenshot; then every answer of html_check.py about the page (one
# python3 process a page).
browse() {
	local page=$1 off=
	command -v chromium >/dev/null 2>&1 ||
	    skip "chromium is not installed (Debian's package chromium)"
	# no network: a namespace of its own where one can be made, and no
	# proxy or name that answers in any case
	unshare -rn true 2>/dev/null && off="unshare -rn"
	set -- --headless --no-sandbox --disable-gpu --hide-scrollbars \
	    --proxy-server=socks5://127.0.0.1:9 \
	    --host-resolver-rules="MAP * ~NOTFOUND" \
	    --user-data-dir="$BATS_TEST_TMPDIR/profile"
	$off chromium "$@" --enable-logging=stderr --v=0 \
	    --dump-dom "file://$page" > "$page.dom" 2> "$page.log"
	$off chromium "$@" --window-size=800,600 \
	    --screenshot="$page.png" "file://$page" 2>/dev/null
	[ -s "$page.dom" ] && [ -s "$page.png" ]
}

@test "-o html: one page, each table's text the Markdown report's, a chart of one mark a row beside it, no script, nothing fetched" {
	d=$BATS_FILE_TMPDIR
	for p in seed diff; do
		run -0 oracle html_check.py "$d/$p.md" "$d/$p.html"
		echo "$output"
		[[ "$output" == *'"parses": true'* ]]
		[[ "$output" == *'"same_text": true'* ]]
		[[ "$output" == *'"marks_ok": true'* ]]
		[[ "$output" == *'"outside": []'* ]]
		[[ "$output" == *'"scripts": 0'* ]]
	done
	# the sections are the Markdown's, in its order
	same "$(grep '^## ' "$d/diff.md" | sed 's/^## //')" \
	    "$(grep -o '<h2 id="s[0-9]*">[^<]*' "$d/diff.html" | sed 's/.*>//')"
	# long names are cut in the chart, whole in its <title>
	grep -q '<title>void at::native::' "$d/seed.html"
	grep -q '<text class="lab"[^>]*>void at::native::[^<]*…</text>' "$d/seed.html"
	# the phases on a timeline: a lane a kind of row
	grep -q '<desc>start to end of each row</desc>' "$d/seed.html"
}

@test "-o html of a trace of empty tables: each a line that says why, no table of a (total) row alone" {
	cd "$BATS_TEST_TMPDIR"
	printf '{"traceEvents":[{"ph":"X","cat":"cpu_op","name":"aten::mm","pid":1,"tid":1,"ts":10,"dur":5},{"ph":"X","cat":"cuda_runtime","name":"cudaGetDevice","pid":1,"tid":1,"ts":20,"dur":1}]}\n' > host.json
	mct-report host.json > host.md
	mct-report -o html host.json > host.html
	run -0 oracle html_check.py host.md host.html
	echo "$output"
	[[ "$output" == *'"same_text": true'* ]]
	[[ "$output" == *'"marks_ok": true'* ]]
	# the reason a paragraph of its own, where the tables were
	[ "$(grep -c '^<p>(none: no device work in this trace)$' host.html)" -ge 9 ]
	# every table has a row, not a (total) row alone
	"$PYTHON3" - host.html <<'PY'
import re, sys
page = open(sys.argv[1]).read()
for body in re.findall(r"<tbody>(.*?)</tbody>", page, re.S):
    rows = re.findall(r"<tr>(.*?)</tr>", body, re.S)
    assert rows, "a table of no row"
    assert not (len(rows) == 1 and rows[0].startswith("<td>(total)</td>")), rows
PY
	# the html of the same empty sections in chromium: the page's text
	browse "$BATS_TEST_TMPDIR/host.html"
	run -0 oracle html_check.py host.md host.html host.html.dom host.html.log host.html.png
	[[ "$output" == *'"console": []'* ]]
	[[ "$output" == *'"dom_same": true'* ]]
	grep -q '(none: no device work in this trace)' host.html.dom
}

@test "-o html in chromium, offline from a file:// URL: no console message, the tables and marks of the page, a screenshot that is not blank" {
	d=$BATS_FILE_TMPDIR
	browse "$d/diff.html"
	run -0 oracle html_check.py "$d/diff.md" "$d/diff.html" "$d/diff.html.dom" \
	    "$d/diff.html.log" "$d/diff.html.png"
	echo "$output"
	[[ "$output" == *'"console": []'* ]]
	[[ "$output" == *'"dom_same": true'* ]]
	[[ "$output" == *'"same_text": true'* ]]
	[[ "$output" == *'"marks_ok": true'* ]]
	# 800x600, not one colour: text and bars drawn
	[[ "$output" =~ \"height\":\ 600.*\"width\":\ 800 ]]
	[[ "$output" =~ \"ink\":\ 0\.0*[1-9] ]]
	ink=$(echo "$output" | sed 's/.*"ink": \([0-9.]*\).*/\1/')
	awk -v i="$ink" 'BEGIN { exit !(i > 0.02) }'
}

@test "-o html with -p: the pictures inside the page, as data: URLs; --output FILE" {
	command -v gnuplot >/dev/null 2>&1 || skip "gnuplot is not installed"
	cd "$BATS_TEST_TMPDIR"
	mct-report -o html -p pics --output r.html "$BATS_FILE_TMPDIR/seed.json"
	grep -q '<img alt="timeline" src="data:image/png;base64,iVBOR' r.html
	! grep -q 'src="pics/' r.html
	run -0 oracle html_check.py "$BATS_FILE_TMPDIR/seed.md" r.html
	[[ "$output" == *'"same_text": true'* ]]
	[[ "$output" == *'"outside": []'* ]]
}

@test "mct-report(1), its --help and the README say -o html" {
	docs
	grep -q 'Cm html' "$MCT_SRCDIR/man/mct-report.1"
	mct-report --help | grep -q 'md (Markdown, default), table or html'
	grep -q 'mct-report -o html' "$MCT_SRCDIR/README.md"
	grep -q 'chromium' "$MCT_SRCDIR/.ci/run"
}
