# helpers.bash - loaded by every .bats file of mct.
#
# make check sets MCT_SRCDIR, MCT_BUILDDIR, PYTHON3 and PATH (builddir/tools
# and builddir/tests first); run by hand, the defaults below assume an
# in-tree build.  Temporary files go only under $BATS_TEST_TMPDIR (or
# $BATS_FILE_TMPDIR for what setup_file makes once per file).

bats_require_minimum_version 1.5.0

: "${MCT_SRCDIR:=$(cd "$BATS_TEST_DIRNAME/.." && pwd)}"
: "${MCT_BUILDDIR:=$MCT_SRCDIR}"
: "${PYTHON3:=python3}"
export MCT_SRCDIR MCT_BUILDDIR PYTHON3
export LC_ALL=C
PATH="$MCT_BUILDDIR/tools:$MCT_BUILDDIR/tests:$PATH"

# Real traces written by other tools sit beside the checkout, in
# ../shared/fixtures (a CI clone has a copy of shared/ beside it).
fixtures="${MCT_FIXTURES:-$MCT_SRCDIR/../shared/fixtures}"

# The longest tests (full-scale seed layouts, oracle loops over every
# fixture) repeat code paths that shorter tests also run.  A second pass
# of the suite (CI's sanitizer build) may leave them out with
# MCT_TEST_SLOW=0; they are then reported as skipped, never silently gone.
slow() {
	[ "${MCT_TEST_SLOW:-1}" != 0 ] ||
	    skip "a long test, left out of this pass (MCT_TEST_SLOW=0)"
}

need_fixtures() {
	[ -d "$fixtures" ] || skip "../shared/fixtures not present"
}

# The seed-shaped trace generator (tests/gentrace.c).
gen() {
	"$MCT_BUILDDIR/tests/gentrace" "$@"
}

# The independent python3 json oracle.
py() {
	"$PYTHON3" "$MCT_SRCDIR/tests/oracle.py" "$@"
}

# Every tool that has been built.
tools() {
	local t

	for t in "$MCT_BUILDDIR"/tools/mct-*; do
		[ -f "$t" ] && [ -x "$t" ] && printf '%s\n' "${t##*/}"
	done
}

# Fail, showing the difference, unless "$1" (what we got) equals "$2" (what
# we want).
same() {
	[ "$1" = "$2" ] && return 0
	diff -u --label want --label got <(printf '%s\n' "$2") \
	    <(printf '%s\n' "$1") | cat -A | head -40
	return 1
}
