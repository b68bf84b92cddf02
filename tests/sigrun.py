#!/usr/bin/env python3
"""sigrun.py SIGNAL TMPDIR NAME CMD...: CMD (a report) interrupted while
a process NAME it started runs, and what it leaves.

CMD runs in a session of its own (so that every process it starts is in
its process group: a shell without job control makes none), with TMPDIR
set and SIGNAL at its default action.  Once a process of that group has
the command name NAME, SIGNAL goes to CMD's pid alone, as kill(1) sends
it.  Then: CMD must end within 5 s;
1 s after the signal no process of the group may be left; TMPDIR must
be empty (the temporary directory gone).  Prints CMD's status as a shell
shows it (128 + N when a signal N ended it) and what went wrong; exits
0 when nothing did, 1 otherwise, 77 where /proc is not there to look.
"""
import os
import signal
import subprocess
import sys
import time


def group(pgid):
    """The live processes of the group pgid: (pid, command name)."""
    out = []
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            with open("/proc/%s/stat" % d) as f:
                st = f.read()
        except OSError:
            continue
        # pid (comm) state ppid pgrp ...: comm may hold spaces
        comm = st[st.index("(") + 1:st.rindex(")")]
        rest = st[st.rindex(")") + 2:].split()
        if rest[0] != "Z" and int(rest[2]) == pgid:
            out.append((int(d), comm))
    return out


def main():
    if not os.path.isdir("/proc/self"):
        print("no /proc to look for processes in")
        return 77
    sig = getattr(signal, "SIG" + sys.argv[1])
    tmpdir, name = sys.argv[2], sys.argv[3]
    os.makedirs(tmpdir, exist_ok=True)
    env = dict(os.environ, TMPDIR=tmpdir)

    def child():
        for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
            signal.signal(s, signal.SIG_DFL)

    p = subprocess.Popen(sys.argv[4:], env=env, stdout=subprocess.DEVNULL,
                         stderr=subprocess.PIPE, start_new_session=True,
                         preexec_fn=child)
    bad = []
    end = time.monotonic() + 30
    while time.monotonic() < end and p.poll() is None:
        if any(c == name for _, c in group(p.pid)):
            break
        time.sleep(0.02)
    if p.poll() is not None:
        print("the command ended before %s ran (status %d)"
              % (name, p.returncode))
        return 1
    running = sorted(c for _, c in group(p.pid))
    t0 = time.monotonic()
    p.send_signal(sig)
    try:
        p.wait(timeout=5)
    except subprocess.TimeoutExpired:
        bad.append("still running 5 s after the signal")
    took = time.monotonic() - t0
    left = group(p.pid)
    while left and time.monotonic() < t0 + 1:
        time.sleep(0.02)
        left = group(p.pid)
    if left:
        bad.append("left running 1 s after the signal: %s"
                   % " ".join("%d:%s" % x for x in sorted(left)))
        try:
            os.killpg(p.pid, signal.SIGKILL)
        except OSError:
            pass
        p.wait()
    if os.listdir(tmpdir):
        bad.append("left in TMPDIR: %s" % " ".join(sorted(os.listdir(tmpdir))))
    err = p.stderr.read().decode("utf-8", "replace")
    rc = p.returncode
    print("status %d" % (128 - rc if rc < 0 else rc))
    print("running at the signal: %s" % " ".join(running))
    print("ended %.2f s after it" % took)
    if err:
        print("stderr: %s" % err.rstrip("\n"))
    for b in bad:
        print(b)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
