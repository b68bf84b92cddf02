"""batch.py - many questions of the tests' oracles answered in one process.

Each line of a file is one question (shell words); answer(words) prints
its answer and returns its exit status (None: 0), or exits.  Each answer
is written after a line "@@ N STATUS" (N from 1; STATUS the exit status,
its message in the answer), so that a test reads one input once for all
it asks of it (tests/helpers.bash: answer FILE N).
"""
import io
import shlex
import sys


def run(path, answer):
    with open(path) as f:
        lines = [l for l in f.read().split("\n") if l.strip()]
    out = sys.stdout
    for n, line in enumerate(lines, 1):
        buf = io.StringIO()
        sys.stdout = sys.stderr = buf
        try:
            rc = answer(shlex.split(line))
        except SystemExit as e:
            rc = e.code if isinstance(e.code, int) else 1
        finally:
            sys.stdout, sys.stderr = out, sys.__stderr__
        out.write("@@ %d %d\n%s" % (n, 0 if rc is None else rc, buf.getvalue()))
