#!/usr/bin/env python3
"""readme_samples.py - run the sample sessions of README.md and compare
what each command prints with the output shown under it.

  readme_samples.py [--update] README BUILDDIR

A sample is an indented block (four spaces) whose first line starts with
"$ ": each "$ COMMAND" line is run by sh, in the order of the file, and
the lines under it, up to the next "$ " line or the end of the block, are
its output as a terminal shows it (a blank line followed by an indented
line that is no command is part of it).  The commands run in a scratch
directory holding examples/ (the example traces: BUILDDIR's
seed-small.json.gz, README's directory's pytorch-small.pt.trace.json) and
tests/gentrace and tests/genmem.py, with BUILDDIR/tools first on PATH and standard output a
terminal (a pseudo-terminal with no output processing), so the tools
write tables as they do for a user.  Standard error must be empty but
for mct-flow's summary line.

Without --update: a unified diff of every difference on stdout, exit 1
if there is one.  With --update: README rewritten with what the commands
print now (after a change of output, then read the diff).
"""
import difflib
import os
import pty
import shutil
import subprocess
import sys
import tempfile
import termios


def continued(lines, i):
    """Whether the blank line I is inside an output: the next line is
    indented and no command."""
    return (lines[i].strip() == "" and i + 1 < len(lines) and
            lines[i + 1].startswith("    ") and
            not lines[i + 1].startswith("    $ "))


def parse(lines):
    """The samples: a list of (index of the $ line, command, [index of
    each output line])."""
    out, i, n = [], 0, len(lines)
    while i < n:
        prev_blank = i == 0 or lines[i - 1].strip() == ""
        if prev_blank and lines[i].startswith("    $ "):
            while i < n and (lines[i].startswith("    ") or
                             continued(lines, i)):
                if lines[i].startswith("    $ "):
                    out.append((i, lines[i][6:].rstrip("\n"), []))
                else:
                    out[-1][2].append(i)
                i += 1
        else:
            i += 1
    return out


def run(cmd, cwd, env):
    """COMMAND's standard output (to a terminal) and standard error."""
    master, slave = pty.openpty()
    attr = termios.tcgetattr(slave)
    attr[1] &= ~termios.OPOST          # no \n to \r\n
    termios.tcsetattr(slave, termios.TCSANOW, attr)
    p = subprocess.Popen(["sh", "-c", cmd], cwd=cwd, env=env,
                         stdin=subprocess.DEVNULL, stdout=slave,
                         stderr=subprocess.PIPE)
    os.close(slave)
    chunks = []
    while True:
        try:
            b = os.read(master, 65536)
        except OSError:                 # EIO: the terminal's last writer left
            break
        if not b:
            break
        chunks.append(b)
    os.close(master)
    err = p.stderr.read()
    p.wait()
    return b"".join(chunks).decode(), err.decode(), p.returncode


def main():
    args = sys.argv[1:]
    update = args[:1] == ["--update"]
    if update:
        args = args[1:]
    if len(args) != 2:
        sys.exit(__doc__)
    readme, build = os.path.abspath(args[0]), os.path.abspath(args[1])
    src = os.path.dirname(readme)
    with open(readme) as f:
        lines = f.readlines()
    samples = parse(lines)
    if not samples:
        sys.exit("%s: no sample sessions" % readme)

    tmp = tempfile.mkdtemp(prefix="mct-readme.")
    try:
        os.mkdir(os.path.join(tmp, "examples"))
        os.mkdir(os.path.join(tmp, "tests"))
        for d, name in ((build, "examples/seed-small.json.gz"),
                        (src, "examples/pytorch-small.pt.trace.json"),
                        (build, "tests/gentrace"),
                        (src, "tests/genmem.py")):
            os.symlink(os.path.join(d, name), os.path.join(tmp, name))
        env = dict(os.environ)
        env["PATH"] = os.path.join(build, "tools") + os.pathsep + \
            env.get("PATH", "")
        new, bad = list(lines), 0
        for at, cmd, outl in samples:
            out, err, st = run(cmd, tmp, env)
            errs = [e for e in err.splitlines()
                    if not e.startswith("mct-flow: ")]
            if st != 0 or errs:
                print("README.md:%d: %s: exit %d\n%s" % (at + 1, cmd, st,
                                                         err), end="")
                bad = 1
            got = ["    " + l if l else "" for l in out.split("\n")]
            if got and got[-1] == "":
                got.pop()
            want = [lines[i].rstrip("\n") for i in outl]
            # blank lines inside a block are written empty
            want = [w if w.strip() else "" for w in want]
            if got != want:
                bad = 1
                if not update:
                    sys.stdout.writelines(difflib.unified_diff(
                        [w + "\n" for w in want], [g + "\n" for g in got],
                        "README.md:%d: $ %s" % (at + 1, cmd),
                        "what it prints now", lineterm="\n"))
            for i in outl:
                new[i] = None
            new[at] = lines[at] + "".join(g + "\n" for g in got)
        if update:
            with open(readme, "w") as f:
                f.writelines(l for l in new if l is not None)
            return 0
        return bad
    finally:
        shutil.rmtree(tmp)


if __name__ == "__main__":
    sys.exit(main())
