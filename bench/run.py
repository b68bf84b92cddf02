#!/usr/bin/env python3
"""bench/run.py: the benchmark of speed and memory of the mct tools, each job measured
beside the same job done by jq and by a plain python3 json script in the same run.

Usage:  python3 bench/run.py [-h] [SECTION...]   (from the build directory, or with MCT_BUILDDIR set)
        make bench                               (runs it from the build directory)

Sections: cat, filter, group, flow, phases, report, merge, ranks, metrics, real (the default sections);
          big (2 GB constant-memory run: a pipe, a file, its .json.gz),
          slice (2 GB cat | filter --from --to | cat --wrap), huge (> 4 GiB run).
  cat     mct-cat, trace -> stream, beside jq and python3 json
  filter  mct-filter on the stream (a time window, and --pid 2 --name 'kernel_kernel*'), beside
          jq and python3 doing the same selection on the trace
  group   mct-group on the stream (--by name; --by category on the pid 2/3 stream) beside jq, mlr
          and python3; and the kernel table (kernel_kernel* by name and grid), mct-cat | mct-filter |
          mct-group, on the trace
  flow    mct-flow on the stream and on a sections-layout stream, beside a python3 join by co_id;
          mct-flow --stack beside plain mct-flow (within 1.3x)
  phases  mct-phases --gaps on the stream, beside a python3 busy-union-and-gaps script
  report  mct-report on the trace beside mct-cat on it (wall time, target <= 3x mct-cat; its output
          must hold the seed's 91.14%), and on the largest Kineto fixture and kineto-bert-h100
  merge   mct-group --merge of 1,000 partials of the seed's kernel table (target: <= 1 s), and the
          stream split four ways, partials with --exact-limit 100, merged: median and p90 of every
          group within 1% of the exact ones (tests/partial_oracle.py)
  ranks   8 seed-sized compact ranks (gentrace --ranks 8, rank 3 slower by 8%) merged in time order
          (mct-cat --merge; without it, mct-ranks reads the 8 files itself) and summed up by
          mct-ranks, beside a python3 json script doing the same
  diff    mct-diff of two full-scale seed traces (the second with kernel_kernel 10% slower), beside
          one mct-cat | mct-group over one of them (target: <= 2x) and a python3 json diff script
  metrics mct-metrics --join of the compact trace and a 1 kHz metric log of its span (gentrace
          --metrics), beside mct-cat over the trace (target: <= 1.5x) and a python3 bisect join
  path    mct-path -o table (the critical path) on the indented trace (the seed's file as written,
          SPEC 7) and on the compact one, beside mct-cat over each (target on the indented: <= 3x;
          the compact ratio shown beside it) and tests/path_oracle.py, the same graph in python3
          (same length); mct-path --steps all on ProfilerStep#N rounds (gentrace --profiler-steps,
          ndjson) in time order and written backwards (target: backwards <= 2x)
  real    mct-cat on the largest real Kineto trace of MCT_FIXTURES (default ../shared/fixtures
          beside the source tree), plain and .json.gz, beside jq, python3 and the inflate floor
          (igzip -dc, zcat); skipped with a note when the fixtures are absent
The analysis sections read streams made once by mct-cat and kept in BENCH_DIR beside the traces.
  pathsteps  mct-path --steps all on a ~200 MB and a ~2 GB trace of ProfilerStep#N rounds
          (gentrace --profiler-steps --scale 7 and 70, made in TMPDIR and removed after): the rows
          (one a step) and peak RSS of both (target: the same within 8 MB); and the peak RSS of
          --step of the middle step and of --steps median --events (target: <= 64 MB each)
  reportbig  mct-report on a ~2 GB trace of ProfilerStep#N rounds (gentrace --profiler-steps --scale
          70, made in TMPDIR and removed after) beside mct-cat on it, one run each (target: <= 3x;
          peak RSS, the largest of its processes, <= 64 MB)
With no SECTION the default sections run, plus big, slice, pathsteps and reportbig if BENCH_BIG=1 and huge if
BENCH_HUGE=1.
Naming a section on the command line runs it whatever BENCH_BIG/BENCH_HUGE say.

Environment:
  MCT_BUILDDIR    build directory holding tools/ and tests/gentrace (default: $PWD)
  BENCH_BASE      another build directory (say, of the code before a change): every mct job also
                  runs with its tools, as "TOOL (base)", interleaved in the same round-robin; the
                  summary gives both medians and their difference
  BENCH_RUNS      runs per job, the median is reported (default 5)
  BENCH_DIR       where generated traces are kept and reused (default /tmp/mct-bench); where
                  the kernel pages cold memory out (DAMON's pageout action), traces on disk
                  are read from disk now and then: keep the small sections' in a tmpfs
                  (BENCH_DIR=/dev/shm/mct-bench) for figures that compare
  BENCH_SCALE     scale of the seed-shaped traces (default 1 = full scale, 225,852 events)
  BENCH_INDENTED, BENCH_COMPACT   use these trace files instead of generating them
  BENCH_BIG=1     run the 2 GB sections (big, slice); BENCH_BIG_SCALE (default 40), BENCH_BIG_RUNS
                  (default 3), BENCH_BIG_CMD (a shell command writing the trace to stdout, instead of
                  gentrace), BENCH_BIG_EVENTS (its event count, when BENCH_BIG_CMD is used)
  BENCH_HUGE=1    run the > 4 GiB section; BENCH_HUGE_SCALE (default: the scale 5% over 2^32
                  bytes by gentrace --stats), BENCH_HUGE_RUNS (default 1), BENCH_HUGE_CMD and
                  BENCH_HUGE_EVENTS as above
  BENCH_MIN_FREE_GB   free space needed in $TMPDIR for big/huge (default 6)
  BENCH_STRICT=1  exit 1 if a target FAILs (otherwise only errors and wrong counts fail the run)
  BENCH_VERBOSE=1 print every run's time
  PYTHON3, JQ, MLR   the reference programs (default: the python3 running this, jq, mlr)
  MCT_RULES       the rules file for category (default: data/default.rules of the source tree);
                  given to mct-group and read by the python3, jq and mlr references alike (through
                  tests/filter_oracle.py, see bench/ref/rules.py)

Each job is a shell pipeline (bash, the built tools' directory first on PATH) or one command. Wall
time: from its start to os.wait4. Peak RSS: of the command of a one-command job, or of the command
marked `rss CMD` in a pipeline, taken by GNU time (else bench/rss.py, os.wait4 in a small python):
a process forked by this python would carry python's own high-water mark. The RSS is taken in a
round of its own before the timed ones, whose jobs run bare: the wrapper's fork, exec and wait
cost ~9 ms of wall on the 2-CPU VM, a sixth of a 50 ms mct-cat.
The reference programs are files in bench/ref/, each runnable by itself.

Adding a section: write section_NAME and add NAME to SECTIONS_ALL (and SECTIONS_DEFAULT), e.g.

    def section_filter():
        need_seed()             # S.f_ind S.f_cmp ($F_IND $F_CMP), S.b_ind bytes, S.ev_ind events
        t = Table("filter --name kernel_kernel, the indented trace", S.b_ind, S.ev_ind)
        t.sh("mct-filter", 'mct-cat "$F_IND" | rss mct-filter --name kernel_kernel >/dev/null', mct=True)
        t.sh("jq", "jq -c '.traceEvents[] | select(.name == \\"kernel_kernel\\")' \\"$F_IND\\" >/dev/null")
        t.run()                 # round-robin; t.median[tool] t.rss_kb[tool] t.out[tool]
        target("mct-filter speed", mbs(t, "mct-filter", S.b_ind), ">=", 300, "MB/s")
"""

import glob
import gzip
import hashlib
import math
import os
import re
import shlex
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from types import SimpleNamespace

SECTIONS_ALL = ("cat filter group flow phases report merge ranks diff metrics path real big slice "
                "pathsteps reportbig huge").split()
SECTIONS_DEFAULT = "cat filter group flow phases report merge ranks diff metrics path real".split()

BENCH = os.path.dirname(os.path.abspath(__file__))
SRCDIR = os.path.dirname(BENCH)
REF = os.path.join(BENCH, "ref")

FULL_EVENTS = 225852	# the seed's event count: the trace is full scale
# jq's speed on this machine when the targets were set (MB/s), to express targets as jq ratios.
SPEC_JQ_IND_MBS = 39
SPEC_JQ_CMP_MBS = 24
# A few words per value a tool must keep: the allowance above 16 MB of the memory targets (8 words of 8 bytes)
WORD_BYTES = 64
WIN_FROM, WIN_TO, WIN_FROM_NS, WIN_TO_NS = "26.57s", "68.41s", 26570000000, 68410000000

S = SimpleNamespace()		# what the sections learn: files, sizes, counts
ERRORS = 0
FAILS = 0
TARGETS = []			# the verdict lines, for the summary
BASE_ROWS = []			# (table, tool, median, base median) with BENCH_BASE
PARTIAL = []			# generated files being written; removed if we are interrupted


def die(msg):
    sys.stderr.write("bench/run.py: %s\n" % msg)
    sys.exit(2)


def note(msg):
    print(msg, flush=True)


def say(fmt, *args):
    print(fmt % args if args else fmt, flush=True)


def env_flag(name):
    return os.environ.get(name, "0") == "1"


# ---------------------------------------------------------------- tools, environment, work directory

def find_built(builddir, rel):
    """The built program rel, in builddir or the source dir, or None."""
    for d in (builddir, SRCDIR):
        p = os.path.join(d, rel)
        if os.access(p, os.X_OK) and not os.path.isdir(p):
            return p
    return None


def setup():
    S.builddir = os.path.abspath(os.environ.get("MCT_BUILDDIR") or os.getcwd())
    runs = os.environ.get("BENCH_RUNS", "5")
    if not runs.isdigit() or int(runs) == 0:
        die("BENCH_RUNS must be a positive integer (got '%s')" % runs)
    S.runs = int(runs)
    S.bench_dir = os.environ.get("BENCH_DIR") or "/tmp/mct-bench"
    S.scale = os.environ.get("BENCH_SCALE") or "1"
    S.tmpdir = os.environ.get("TMPDIR") or "/tmp"
    S.jq = os.environ.get("JQ") or "jq"
    S.python3 = os.environ.get("PYTHON3") or sys.executable or "python3"
    S.mlr = os.environ.get("MLR") or "mlr"
    S.mct_cat = find_built(S.builddir, "tools/mct-cat")
    if S.mct_cat is None:
        die("no tools/mct-cat in %s: run from the build directory (after make) or set MCT_BUILDDIR"
            % S.builddir)
    S.bindir = os.path.dirname(S.mct_cat)
    S.gentrace = find_built(S.builddir, "tests/gentrace")
    S.mct_report = find_built(S.builddir, "tools/mct-report")
    S.timebin = None
    if os.access("/usr/bin/time", os.X_OK) and subprocess.call(
            ["/usr/bin/time", "-f", "%M", "-o", "/dev/null", "true"], stderr=subprocess.DEVNULL) == 0:
        S.timebin = "/usr/bin/time"
    S.have_jq = shutil.which(S.jq) is not None
    S.have_py = shutil.which(S.python3) is not None
    S.have_mlr = shutil.which(S.mlr) is not None
    S.rules = os.environ.get("MCT_RULES") or os.path.join(SRCDIR, "data", "default.rules")
    S.base = None
    if os.environ.get("BENCH_BASE"):
        bdir = os.path.abspath(os.environ["BENCH_BASE"])
        cat = os.path.join(bdir, "tools", "mct-cat")
        if not os.access(cat, os.X_OK):
            die("BENCH_BASE: no tools/mct-cat in %s" % bdir)
        S.base = SimpleNamespace(dir=bdir, bindir=os.path.dirname(cat), mct_cat=cat,
                                 mct_report=os.path.join(bdir, "tools", "mct-report"))
    S.work = tempfile.mkdtemp(prefix="mct-bench-run.", dir=S.tmpdir)
    # the environment of every job: the built tools first on PATH, the references and files named
    path = S.bindir + os.pathsep + os.environ.get("PATH", "")
    os.environ["PATH"] = path		# posix_spawnp looks commands up in our own PATH
    S.env = dict(os.environ, LC_ALL="C", TMPDIR=S.tmpdir, PATH=path, MCT_CAT=S.mct_cat,
                 GENTRACE=S.gentrace or "", TIMEBIN=S.timebin or "", JQ=S.jq, PYTHON3=S.python3,
                 MLR=S.mlr, MCT_REPORT=S.mct_report or "", RULES=S.rules, REF=REF, WORK=S.work)
    # The peak RSS of one command is taken by a small process that forks it: a child of this
    # python inherits python's own high-water mark (Linux keeps the larger of the pre-exec image's
    # and its own), so os.wait4 here would report no tool under python's size.
    if S.timebin:
        S.rss_argv = [S.timebin, "-o", "$RSS_FILE", "-f", "%M"]
    else:
        S.rss_argv = [sys.executable, "-S", "-I", os.path.join(BENCH, "rss.py"), "$RSS_FILE"]
    S.prelude = "rss() { %s \"$@\"; }" % " ".join(
        '"$RSS_FILE"' if a == "$RSS_FILE" else q(a) for a in S.rss_argv)
    S.no_rss = 'rss() { "$@"; }'	# the timed runs


def export(**kw):
    """Names files for the jobs ($F_IND, $STREAM, ...)."""
    S.env.update({k: str(v) for k, v in kw.items()})


def base_env():
    """The environment of a "(base)" job: BENCH_BASE's tools in place of ours."""
    return {"PATH": S.base.bindir + os.pathsep + S.env["PATH"], "MCT_CAT": S.base.mct_cat,
            "MCT_REPORT": S.base.mct_report}


# ---------------------------------------------------------------- arithmetic and formatting

def commas(n):
    return "{:,}".format(int(n))


def mb(nbytes):
    return "%.1f" % (nbytes / 1e6)


def file_bytes(path):
    return os.stat(path).st_size


def free_kb(path):
    st = os.statvfs(path)
    return st.f_bavail * st.f_frsize // 1024


def q(*args):
    """The arguments as shell text."""
    return " ".join(shlex.quote(str(a)) for a in args)


def sh_lines(cmd):
    """The number of lines the shell pipeline cmd writes (an error if it fails)."""
    p = subprocess.Popen(["bash", "-c", "set -o pipefail; " + cmd], stdout=subprocess.PIPE,
                         env=S.env)
    n = 0
    for chunk in iter(lambda: p.stdout.read(1 << 20), b""):
        n += chunk.count(b"\n")
    if p.wait() != 0:
        die("%s failed" % cmd)
    return n


def warm(path):
    """Reads path once, into the page cache."""
    with open(path, "rb") as f:
        while f.read(1 << 22):
            pass


# ---------------------------------------------------------------- measuring jobs

class Job:
    def __init__(self, tool, argv=None, text=None, env=None, pipe=None, rss_at=None):
        self.tool = tool
        self.argv = argv	# one command: its stdout to /dev/null, its own peak RSS
        self.text = text	# a bash pipeline: `rss CMD` marks the command whose RSS is taken
        self.pipe = pipe	# commands piped one into the next, as a shell runs them
        self.rss_at = rss_at	# and the one whose RSS is taken
        self.env = env or {}
        self.times = []
        self.cpu = []		# user + system time of its whole process tree, from os.wait4
        self.rss = None
        self.failed = 0
        self.base_of = None	# the job this "(base)" job doubles


def exit_code(status):
    """A job's exit status from os.wait4's, 128 + N if signal N ended it."""
    code = os.waitstatus_to_exitcode(status)
    return 128 - code if code < 0 else code


def rss_read(rss_file):
    """The peak RSS (KB) the wrapper wrote, or None (GNU time may write a line before it)."""
    with open(rss_file) as f:
        last = ([x for x in f.read().split("\n") if x.strip()] or [""])[-1]
    return int(last) if last.isdigit() else None


class Table:
    """One table: jobs run RUNS times round-robin (so each tool sees the same load on a noisy
    machine), one row per job. The first job is the reference of the ratio column. After run():
    median[tool] (s, None if it failed), rss_kb[tool] (max over the runs, None if not measured),
    out[tool] (first stdout line of a pipeline job, blanks removed)."""

    def __init__(self, title, nbytes=None, events=None, runs=None):
        self.nbytes = nbytes
        self.events = events
        self.runs = runs or S.runs
        self.title = title
        self.jobs = []
        self.median, self.rss_kb, self.out = {}, {}, {}
        line = "\n" + title
        if nbytes:
            line += " — %s MB" % mb(nbytes)
        if events:
            line += ", %s events" % commas(events)
        say("%s — median of %d run(s), jobs interleaved", line, self.runs)

    def _add(self, job, mct):
        self.jobs.append(job)
        if mct and S.base:
            twin = Job(job.tool + " (base)", job.argv, job.text, base_env(), job.pipe, job.rss_at)
            if job.argv and os.path.dirname(job.argv[0]) == S.bindir:
                twin.argv = [os.path.join(S.base.bindir, os.path.basename(job.argv[0]))] + job.argv[1:]
            if job.pipe:
                twin.pipe = [[os.path.join(S.base.bindir, os.path.basename(a[0]))] + a[1:]
                             if os.path.dirname(a[0]) == S.bindir else a for a in job.pipe]
            twin.base_of = job
            self.jobs.append(twin)

    def cmd(self, tool, *argv, mct=False):
        """A job: the command argv, stdin /dev/null, stdout /dev/null; its peak RSS."""
        self._add(Job(tool, argv=list(argv)), mct)

    def sh(self, tool, text, mct=False):
        """A job: the bash pipeline text; mct: it runs mct tools (doubled with BENCH_BASE)."""
        self._add(Job(tool, text=text), mct)

    def pipe(self, tool, stages, rss_at, mct=False):
        """A job: the commands of stages (argv lists; a bare name is one of our tools) piped
        one into the next, as an interactive shell starts them, without a shell of its own
        (bash's own start costs ~10 ms on the 2-CPU VM); its out is the number of lines the
        last writes; the peak RSS is of stages[rss_at]."""
        stages = [[os.path.join(S.bindir, a[0]) if os.sep not in a[0] else a[0]] + list(a[1:])
                  for a in stages]
        self._add(Job(tool, pipe=stages, rss_at=rss_at), mct)

    def _run_pipe(self, job, rss, rss_file, out, err, env):
        """The stages of job.pipe, each stdout into the next's stdin; (status, wall, cpu)."""
        n = len(job.pipe)
        fds = [os.pipe() for _ in range(n - 1)]	# not inherited: only the dup2'd ends are
        wr = os.O_WRONLY | os.O_CREAT | os.O_TRUNC
        pids = []
        t0 = time.perf_counter()
        for k, argv in enumerate(job.pipe):
            if rss and k == job.rss_at:
                argv = [rss_file if a == "$RSS_FILE" else a for a in S.rss_argv] + argv
            actions = [(os.POSIX_SPAWN_OPEN, 0, os.devnull, os.O_RDONLY, 0) if k == 0 else
                       (os.POSIX_SPAWN_DUP2, fds[k - 1][0], 0),
                       (os.POSIX_SPAWN_OPEN, 1, out, wr, 0o644) if k == n - 1 else
                       (os.POSIX_SPAWN_DUP2, fds[k][1], 1),
                       (os.POSIX_SPAWN_OPEN, 2, err, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)]
            pids.append(os.posix_spawn(argv[0], argv, env, file_actions=actions, setpgroup=0))
        for r, w in fds:
            os.close(r)
            os.close(w)
        code, cpu = 0, 0.0
        for pid in pids:
            _, status, usage = os.wait4(pid, 0)
            cpu += usage.ru_utime + usage.ru_stime
            code = code or exit_code(status)
        return code, time.perf_counter() - t0, cpu

    def _run1(self, i, job, rss=False):
        """One run of job; rss: under the RSS wrapper (that run's time is not one to keep)."""
        rss_file = os.path.join(S.work, "rss.%d" % i)
        out = os.path.join(S.work, "out.%d" % i) if job.text or job.pipe else os.devnull
        err = os.path.join(S.work, "err.%d" % i)
        open(rss_file, "w").close()
        env = dict(S.env, RSS_FILE=rss_file, **job.env)
        if job.pipe:
            open(err, "w").close()
            code, t, cpu = self._run_pipe(job, rss, rss_file, out, err, env)
            return code, t, cpu, rss_read(rss_file)
        if job.argv:
            argv = ([rss_file if a == "$RSS_FILE" else a for a in S.rss_argv] if rss else []) + job.argv
        else:
            argv = ["bash", "-c", "set -o pipefail; %s; %s" % (S.prelude if rss else S.no_rss,
                                                                job.text)]
        wr = os.O_WRONLY | os.O_CREAT | os.O_TRUNC
        actions = [(os.POSIX_SPAWN_OPEN, 0, os.devnull, os.O_RDONLY, 0),
                   (os.POSIX_SPAWN_OPEN, 1, out, wr, 0o644),
                   (os.POSIX_SPAWN_OPEN, 2, err, wr, 0o644)]
        t0 = time.perf_counter()
        try:			# a process group of its own, ended with us if we are stopped
            pid = os.posix_spawnp(argv[0], argv, env, file_actions=actions, setpgroup=0)
        except OSError as e:
            with open(err, "w") as f:
                f.write("%s: %s\n" % (argv[0], e.strerror))
            return 127, None, None, None
        try:
            _, status, usage = os.wait4(pid, 0)
        except BaseException:	# interrupted (INT, TERM): the job goes too
            os.killpg(pid, signal.SIGTERM)
            os.waitpid(pid, 0)
            raise
        t = time.perf_counter() - t0
        cpu = usage.ru_utime + usage.ru_stime
        return exit_code(status), t, cpu, rss_read(rss_file)

    def run(self):
        """Round 0 takes each job's peak RSS under the wrapper (its time is not kept: GNU time's
        fork, exec and wait cost ~9 ms of wall here, a sixth of a 50 ms job); then RUNS timed
        rounds, each job run bare, round-robin."""
        tty = sys.stderr.isatty()
        for r in range(0, self.runs + 1):
            for i, job in enumerate(self.jobs):
                if job.failed:
                    continue
                if tty:
                    sys.stderr.write("  [run %d/%d] %-40.40s\r" % (r, self.runs, job.tool))
                    sys.stderr.flush()
                code, t, cpu, rss = self._run1(i, job, rss=r == 0)
                if code:
                    job.failed = code
                    continue
                if r == 0:
                    job.rss = rss
                    continue
                job.times.append(t)
                job.cpu.append(cpu)
        if tty:
            sys.stderr.write("%60s\r" % "")
        self._print()

    def _print(self):
        global ERRORS
        width = max([26] + [len(job.tool) for job in self.jobs])
        row = "  %%-%ds %%9s %%8s %%8s %%10s %%8s %%8s" % width
        say(row, "tool", "median s", "spread", "MB/s", "events/s", "RSS MB", "x ref")
        ref = None
        for i, job in enumerate(self.jobs):
            self.out[job.tool] = ""
            outf = os.path.join(S.work, "out.%d" % i)
            if job.text and os.path.getsize(outf) > 0:
                with open(outf, "rb") as f:
                    first = f.readline().decode("utf-8", "replace")
                self.out[job.tool] = re.sub(r"[ \t\n]", "", first)
            elif job.pipe and os.path.exists(outf):
                with open(outf, "rb") as f:
                    self.out[job.tool] = str(f.read().count(b"\n"))
            self.rss_kb[job.tool] = job.rss
            if job.failed:
                self.median[job.tool] = None
                say("  %-*s FAILED (exit %d):", width, job.tool, job.failed)
                with open(os.path.join(S.work, "err.%d" % i), errors="replace") as f:
                    for line in f.read().split("\n")[:5]:
                        if line:
                            say("      %s", line)
                ERRORS += 1
                continue
            med = statistics.median(job.times)
            self.median[job.tool] = med
            if i == 0:
                ref = med
            spread = "-"
            if len(job.times) >= 2 and med > 0:
                spread = "%.0f%%" % (100 * (max(job.times) - min(job.times)) / med)
            say(row, job.tool, "%.4f" % med, spread,
                "%.1f" % (self.nbytes / 1e6 / med) if self.nbytes else "-",
                "%.0f" % (self.events / med) if self.events else "-",
                "%.1f" % (job.rss / 1024) if job.rss is not None else "-",
                "%.2f" % (med / ref) if ref else "-")
            if env_flag("BENCH_VERBOSE"):
                say("      runs:%s  (cpu:%s)", "".join(" %.4f" % t for t in job.times),
                    "".join(" %.4f" % t for t in job.cpu))
        self._base_lines()

    def _base_lines(self):
        """With BENCH_BASE: each mct job beside its base twin, and their outputs compared."""
        for job in self.jobs:
            mine = job.base_of
            if mine is None:
                continue
            a, b = self.median.get(mine.tool), self.median.get(job.tool)
            if a is not None and b is not None:
                ca, cb = statistics.median(mine.cpu), statistics.median(job.cpu)
                BASE_ROWS.append((self.title, mine.tool, a, b, ca, cb))
                say("  base: %s: %.4f s, base %.4f s (%+.1f%%); cpu %.4f s, base %.4f s (%+.1f%%)",
                    mine.tool, a, b, pct(a, b), ca, cb, pct(ca, cb))
            if self.out.get(mine.tool) and a is not None and b is not None:
                check("%s: same output as base" % mine.tool, self.out[job.tool], self.out[mine.tool])


def pct(a, b):
    """How much a is over b, in percent."""
    return 100 * (a - b) / b if b else 0.0


def target(label, value, op, limit, unit):
    """Prints and records PASS/FAIL; value (text) None or empty: not measured."""
    global FAILS
    if value is None or value == "":
        verdict = "SKIP  %s: not measured" % label
    else:
        v, lim = float(value), float(limit)
        ok = {">=": v >= lim, "<=": v <= lim, ">": v > lim, "<": v < lim}[op]
        verdict = "%s  %s: %s %s (target %s %s %s)" % ("PASS" if ok else "FAIL", label, value, unit,
                                                     op, limit, unit)
        if not ok:
            FAILS += 1
    say("  %s", verdict)
    TARGETS.append(verdict)


def target_full(label, value, op, limit, unit):
    """A target set for the full-scale trace (a wall time); on another size shown, not judged."""
    if S.ev_ind == FULL_EVENTS:
        return target(label, value, op, limit, unit)
    verdict = "n/a   %s: %s %s (target %s %s %s is for the full-scale trace, %s events)" % (
        label, value or "not measured", unit, op, limit, unit, commas(FULL_EVENTS))
    say("  %s", verdict)
    TARGETS.append(verdict)


def check(label, got, want):
    """An exactness check (a wrong count is an error, not a missed target)."""
    global ERRORS
    if got is not None and str(got) == str(want):
        say("  ok    %s: %s", label, got)
    else:
        say("  ERROR %s: got %s, want %s", label, "nothing" if got in (None, "") else got, want)
        ERRORS += 1


def fmt_time(t):
    return "%.4f" % t


def mbs(t, tool, nbytes):
    """nbytes / median of tool in MB/s, or None."""
    m = t.median.get(tool)
    return "%.1f" % (nbytes / 1e6 / m) if m else None


def ratio(t, tool, ref):
    a, b = t.median.get(tool), t.median.get(ref)
    return "%.1f" % (a / b) if a and b else None


def ratios(t, ref, *tools):
    """One line: how many times longer than ref each tool took."""
    parts = ["%s %sx" % (tool, ratio(t, tool, ref)) for tool in tools if ratio(t, tool, ref)]
    if parts:
        say("  time / time of %s: %s", ref, "; ".join(parts))


def number(text):
    return int(text) if text and text.isdigit() else None


def agree(t, label, want, *pairs):
    """Every (tool, offset) of pairs that ran wrote want records (its out, a line count, minus
    offset: the header line mct passes on); a difference is an error."""
    if want is None:
        return
    for tool, off in pairs:
        got = number(t.out.get(tool))
        if got is None or t.median.get(tool) is None:
            continue
        check("%s: %s" % (label, tool), got - off, want)


def count_less_header(t, tool):
    """out[tool] minus the header line, if the job ran."""
    n = number(t.out.get(tool))
    return n - 1 if n is not None and t.median.get(tool) is not None else None


def have(name, flag):
    if not flag:
        say("  %-26s not installed: skipped", name)
    return flag


def rss_mb(kb):
    return "%.1f" % (kb / 1024) if kb is not None else None


def rss_allow(values):
    """16 MB plus WORD_BYTES per value, in MB."""
    return "%.1f" % (16 + values * WORD_BYTES / 1048576)


# ---------------------------------------------------------------- the generator

def fingerprint(*parts):
    h = hashlib.sha1()
    for p in parts:
        h.update(p if isinstance(p, bytes) else str(p).encode())
        h.update(b"\n")
    return h.hexdigest()


def read_bytes(path):
    try:
        with open(path, "rb") as f:
            return f.read()
    except OSError:
        return b""


def gen_fingerprint(*args):
    """The generator: its sources (or the binary when they are absent) and arguments."""
    srcs = sorted(glob.glob(os.path.join(SRCDIR, "tests", "gentrace*")))
    return fingerprint(*[read_bytes(p) for p in (srcs or [S.gentrace])], " ".join(args))


def gen_stats(*args):
    r = subprocess.run([S.gentrace] + list(args) + ["--stats"], stdout=subprocess.PIPE,
                       stderr=subprocess.DEVNULL)
    return r.stdout.decode("utf-8", "replace")


def gen_events(*args):
    """The event count printed by `gentrace ARGS --stats`: the first number on a line naming the
    total ("events 225852", "events: 225,852", "total events = 225852", {"events":225852})."""
    for line in gen_stats(*args).lower().split("\n"):
        m = (re.match(r'[ \t"{]*(?:total[ _]?)?events?"?[ \t]*[:=]?[ \t]*([0-9][0-9,]*)', line)
             or re.search(r'"events"[ \t]*:[ \t]*([0-9]+)', line))
        if m:
            return int(m.group(1).replace(",", ""))
    return None


def gen_stat(key, *args):
    """The value of key in `gentrace ARGS --stats` (key<TAB>value lines), or None."""
    for line in gen_stats(*args).split("\n"):
        k, _, v = line.partition("\t")
        if k == key:
            return v
    return None


def kept(out, stamp, fp):
    """True if out is there, not empty, and its stamp says fp: a file of an earlier run to reuse."""
    return bool(os.path.exists(out) and os.path.getsize(out) and read_bytes(stamp).decode().strip() == fp)


def make_file(out, stamp, fp, what, argv=None, cmd=None):
    """out from the command argv (or the bash cmd), unless its stamp says fp already."""
    if kept(out, stamp, fp):
        return
    os.makedirs(os.path.dirname(out), exist_ok=True)
    note(what)
    if os.path.exists(stamp):
        os.unlink(stamp)
    part = out + ".part"
    PARTIAL.append(part)
    with open(part, "wb") as f:
        r = subprocess.call(argv or ["bash", "-c", "set -o pipefail; " + cmd], stdout=f, env=S.env)
    if r != 0:
        die("%s failed" % (q(*argv) if argv else cmd))
    os.rename(part, out)
    PARTIAL.remove(part)
    with open(stamp, "w") as f:
        f.write(fp + "\n")


def generate(name, *args):
    """BENCH_DIR/name from `gentrace ARGS`, reused when the fingerprint matches."""
    out = os.path.join(S.bench_dir, name)
    make_file(out, out + ".stamp", gen_fingerprint(*args),
              "generating %s (gentrace %s)" % (out, " ".join(args)), argv=[S.gentrace] + list(args))
    return out


# ---------------------------------------------------------------- the seed-shaped traces

def count_events(path):
    r = subprocess.run([S.python3, os.path.join(REF, "count.py"), path], stdout=subprocess.PIPE)
    if r.returncode != 0:
        die("%s: python3 could not count its events" % path)
    return int(r.stdout)


def need_seed():
    """S.f_ind, S.f_cmp ($F_IND, $F_CMP), their sizes S.b_ind, S.b_cmp and events S.ev_ind, S.ev_cmp."""
    if getattr(S, "f_ind", None):
        return
    say("\n== seed-shaped traces")
    given_ind, given_cmp = os.environ.get("BENCH_INDENTED"), os.environ.get("BENCH_COMPACT")
    if given_ind or given_cmp:
        if not (given_ind and given_cmp):
            die("set both BENCH_INDENTED and BENCH_COMPACT")
        for f in (given_ind, given_cmp):
            if not os.access(f, os.R_OK):
                die("%s: cannot read" % f)
        note("using given files (BENCH_INDENTED, BENCH_COMPACT); events counted by python3 json")
        if not S.have_py:
            die("python3 is needed to count the events of given files")
        S.f_ind, S.f_cmp = given_ind, given_cmp
        S.ev_ind, S.ev_cmp = count_events(S.f_ind), count_events(S.f_cmp)
    else:
        if not S.gentrace:
            die("no tests/gentrace in %s (make it, or set BENCH_INDENTED and BENCH_COMPACT)" % S.builddir)
        S.f_ind = generate("seed-s%s-indented.json" % S.scale, "--scale", S.scale, "--indent")
        S.f_cmp = generate("seed-s%s-compact.json" % S.scale, "--scale", S.scale)
        S.ev_ind = gen_events("--scale", S.scale, "--indent")
        S.ev_cmp = gen_events("--scale", S.scale)
        if S.ev_ind is None or S.ev_cmp is None:
            note("gentrace --stats printed no event total I could read; counting with python3 json")
            S.ev_ind, S.ev_cmp = count_events(S.f_ind), count_events(S.f_cmp)
        else:
            note("events from gentrace --stats")
    S.b_ind, S.b_cmp = file_bytes(S.f_ind), file_bytes(S.f_cmp)
    export(F_IND=S.f_ind, F_CMP=S.f_cmp)
    for form, f, b, ev in (("indented", S.f_ind, S.b_ind, S.ev_ind), ("compact", S.f_cmp, S.b_cmp, S.ev_cmp)):
        say("  %-9s %-50s %12s bytes (%s MB)  %s events", form, f, commas(b), mb(b), commas(ev))
    # mct-cat must frame every event (one header line + one line per event), or its speed means nothing
    check("mct-cat events, indented", sh_lines(q(S.mct_cat, S.f_ind)) - 1, S.ev_ind)
    check("mct-cat events, compact", sh_lines(q(S.mct_cat, S.f_cmp)) - 1, S.ev_cmp)
    warm(S.f_ind)
    warm(S.f_cmp)


# ---------------------------------------------------------------- section: mct-cat

def section_cat():
    need_seed()
    say("\n== mct-cat: trace -> stream (targets: >= 400 MB/s indented, >= 2.5 M events/s compact, >= 10x jq)")
    jq_job, py_job = "jq -c '.traceEvents[]'", "python3 json"
    fig = {}
    for form, f, nbytes, ev in (("indented", S.f_ind, S.b_ind, S.ev_ind),
                                ("compact", S.f_cmp, S.b_cmp, S.ev_cmp)):
        t = Table("cat, %s: %s" % (form, os.path.basename(f)), nbytes, ev)
        t.cmd("mct-cat", S.mct_cat, f, mct=True)
        if S.have_jq:
            t.cmd(jq_job, S.jq, "-c", ".traceEvents[]", f)
        if S.have_py:
            t.cmd(py_job, S.python3, os.path.join(REF, "cat.py"), f)
        t.run()
        have("jq", S.have_jq)
        have("python3", S.have_py)
        mct_t, jq_t, py_t = t.median.get("mct-cat"), t.median.get(jq_job), t.median.get(py_job)
        if not mct_t:
            continue
        if form == "indented":
            fig["ind_mbs"] = "%.1f" % (nbytes / 1e6 / mct_t)
        else:
            fig["cmp_evs"] = "%.2f" % (ev / mct_t / 1e6)
        if jq_t:
            fig[form + "_jq"] = "%.2f" % (jq_t / mct_t)
        if py_t:
            fig[form + "_py"] = "%.1f" % (py_t / mct_t)
    # The absolute targets were set where jq did 39 MB/s (indented) and 24 MB/s (compact); the
    # same targets as multiples of jq still mean something on a slower or busier machine.
    jq_ind_need = "%.2f" % (400 / SPEC_JQ_IND_MBS)
    jq_cmp_need = "%.2f" % (2.5e6 / (SPEC_JQ_CMP_MBS * 1e6 / (S.b_cmp / S.ev_cmp)))
    say("\n  targets: absolute, then the same target as a multiple of jq in this run (the spec saw jq")
    say("  at %s MB/s indented, %s MB/s compact). python3 json / mct-cat: indented %sx, compact %sx",
        SPEC_JQ_IND_MBS, SPEC_JQ_CMP_MBS, fig.get("indented_py", "-"), fig.get("compact_py", "-"))
    target("mct-cat indented speed", fig.get("ind_mbs"), ">=", 400, "MB/s")
    target("mct-cat indented vs jq (400 MB/s = %sx the spec's jq)" % jq_ind_need,
           fig.get("indented_jq"), ">=", jq_ind_need, "x")
    target("mct-cat compact speed", fig.get("cmp_evs"), ">=", 2.5, "M events/s")
    target("mct-cat compact speed (raised target)", fig.get("cmp_evs"), ">=", 4, "M events/s")
    target("mct-cat compact vs jq (2.5 M ev/s = %sx the spec's jq)" % jq_cmp_need,
           fig.get("compact_jq"), ">=", jq_cmp_need, "x")
    target("mct-cat indented >= 10x jq", fig.get("indented_jq"), ">=", 10, "x")
    target("mct-cat compact >= 10x jq", fig.get("compact_jq"), ">=", 10, "x")


# ---------------------------------------------------------------- real Kineto traces

def real_trace():
    """The largest Kineto fixture (by its plain size) as BENCH_DIR/real.json and real.json.gz (the
    fixture's own bytes), or None with a note. Fixtures are read where they are, never copied into
    the source tree."""
    fdir = os.environ.get("MCT_FIXTURES") or os.path.join(SRCDIR, "..", "shared", "fixtures")
    if not os.path.isdir(fdir):
        say("  skipped: no fixtures folder %s (set MCT_FIXTURES)", fdir)
        return None
    best = None
    for name in sorted(os.listdir(fdir)):
        if not name.startswith(("kineto", "hta")) or not name.endswith((".json", ".json.gz")):
            continue
        path = os.path.join(fdir, name)
        opener = gzip.open if name.endswith(".gz") else open
        with opener(path, "rb") as f:
            size = sum(len(b) for b in iter(lambda: f.read(1 << 20), b""))
        if best is None or size > best[0]:
            best = (size, path)
    if best is None:
        say("  skipped: no kineto*.json or kineto*.json.gz in %s", fdir)
        return None
    src = S.real_src = best[1]
    os.makedirs(S.bench_dir, exist_ok=True)
    plain, gz = os.path.join(S.bench_dir, "real.json"), os.path.join(S.bench_dir, "real.json.gz")
    stamp = "%s %d" % (os.path.realpath(src), os.stat(src).st_mtime)
    sfile = os.path.join(S.bench_dir, "real.stamp")
    if not (os.path.exists(sfile) and open(sfile).read() == stamp and os.path.exists(plain)
            and os.path.exists(gz)):
        if src.endswith(".gz"):
            shutil.copyfile(src, gz)
            with gzip.open(src, "rb") as f, open(plain, "wb") as o:
                shutil.copyfileobj(f, o, 1 << 20)
        else:
            shutil.copyfile(src, plain)
            with open(src, "rb") as f, gzip.open(gz, "wb", 6) as o:
                shutil.copyfileobj(f, o, 1 << 20)
        with open(sfile, "w") as f:
            f.write(stamp)
    say("  %s: %s bytes plain, %s gzipped", os.path.basename(src), commas(file_bytes(plain)),
        commas(file_bytes(gz)))
    return plain, gz


def section_real():
    say("\n== real: mct-cat on a real Kineto trace (targets: >= 500 MB/s, >= 0.8x the seed's indented"
        " shape per byte; .json.gz >= 85% of the plain speed)")
    files = real_trace()
    if files is None:
        return
    plain, gz = files
    nbytes = file_bytes(plain)
    events = count_events(plain) if S.have_py else None
    export(F_REAL=plain, F_REALGZ=gz)
    if events is not None:
        check("mct-cat events, real", sh_lines(q(S.mct_cat, plain)) - 1, events)
        check("mct-cat events, real gzip", sh_lines(q(S.mct_cat, gz)) - 1, events)
    warm(plain)
    warm(gz)
    need_seed()
    igzip = shutil.which("igzip")
    zcat = shutil.which("zcat")
    # one table, so that every figure and ratio below comes from the same round-robin
    t = Table("cat, real Kineto trace %s (MB/s of its plain JSON)" % os.path.basename(plain),
              nbytes, events)
    t.cmd("mct-cat", S.mct_cat, plain, mct=True)
    t.cmd("mct-cat .gz", S.mct_cat, gz, mct=True)
    t.cmd("mct-cat seed indented*", S.mct_cat, S.f_ind, mct=True)
    if igzip:
        t.cmd("igzip -dc (floor)", igzip, "-dc", gz)
    if zcat:
        t.cmd("zcat (floor)", zcat, gz)
    if S.have_jq:
        t.cmd("jq -c", S.jq, "-c", ".traceEvents[]", plain)
    if S.have_py:
        t.cmd("python3 json", S.python3, os.path.join(REF, "cat.py"), plain)
    t.run()
    have("igzip", igzip)
    have("zcat", zcat)
    have("jq", S.have_jq)
    have("python3", S.have_py)
    real_mbs, gz_mbs = mbs(t, "mct-cat", nbytes), mbs(t, "mct-cat .gz", nbytes)
    seed_mbs = mbs(t, "mct-cat seed indented*", S.b_ind)
    say("  * the seed-shaped indented trace, %s MB: %s MB/s in the same run (the table's MB/s"
        " column counts the real trace's bytes)", mb(S.b_ind), seed_mbs or "-")
    ratios(t, "mct-cat", "mct-cat .gz", "igzip -dc (floor)", "zcat (floor)", "jq -c", "python3 json")
    target("mct-cat on the real Kineto trace", real_mbs, ">=", 500, "MB/s")
    target("real Kineto MB/s / seed indented MB/s",
           "%.2f" % (float(real_mbs) / float(seed_mbs)) if real_mbs and seed_mbs else None,
           ">=", 0.8, "x")
    target("mct-cat .json.gz / plain speed",
           "%.2f" % (float(gz_mbs) / float(real_mbs)) if real_mbs and gz_mbs else None,
           ">=", 0.85, "x")


# ---------------------------------------------------------------- big and huge traces through a pipe

def enough_space(d, need_kb, what):
    """True if d has need_kb free, else says why the section is skipped."""
    free = free_kb(d)
    if free < need_kb:
        say("  skipped: %s needs %.1f GB free in %s, only %.1f GB free", what, need_kb / 1048576, d,
            free / 1048576)
        return False
    return True


def big_source(scale, override):
    """The generator command as shell text, or None."""
    if override:
        return override
    if not S.gentrace:
        return None
    return q(S.gentrace, "--scale", scale, "--indent")


def big_events(scale, events_override, cmd_override):
    if events_override:
        return int(events_override)
    if not cmd_override:
        return gen_events("--scale", scale, "--indent")
    return None


def count_check(title, lines, events):
    """mct-cat wrote a header and one line per event."""
    if lines is None:
        return
    if events is not None:
        check("%s: events out of mct-cat (lines - header)" % title, lines - 1, events)
    else:
        say("  events out of mct-cat: %s (no expected count known)", commas(lines - 1))


def gen_size(title, cmd, events, runs):
    """Times the generator alone; its size in bytes, or None if it failed."""
    t = Table("%s: the generator alone (its size; the baseline of the pipe jobs)" % title, None, events, runs)
    t.sh("generator | wc -c", "%s | wc -c" % cmd)
    t.run()
    nbytes = number(t.out.get("generator | wc -c"))
    if nbytes:
        say("  trace: %s bytes (%s MB)", commas(nbytes), mb(nbytes))
    else:
        global ERRORS
        say("  ERROR: the generator wrote nothing")
        ERRORS += 1
    return nbytes


def big_file(scale, cmd, nbytes):
    """BENCH_DIR/big.json, the trace of cmd (nbytes long) as a file, kept for the next run; remade
    when its stamp does not match, if there is room. Sets $BIGFILE; returns it, or None."""
    path = os.path.join(S.bench_dir, "big.json")
    fp = fingerprint(cmd, "" if os.environ.get("BENCH_BIG_CMD") else
                     gen_fingerprint("--scale", scale, "--indent"))
    if not kept(path, path + ".stamp", fp):
        os.makedirs(S.bench_dir, exist_ok=True)
        for f in (path, path + ".stamp"):
            if os.path.exists(f):
                os.unlink(f)
        if enough_space(S.bench_dir, need_kb_free() + nbytes // 1024, "the 2 GB file plus the spool"):
            make_file(path, path + ".stamp", fp, "  writing %s" % path, cmd=cmd)
    S.bigfile = path if os.path.exists(path) and os.path.getsize(path) else None
    export(BIGFILE=S.bigfile or "")
    return S.bigfile


def need_kb_free():
    return int(os.environ.get("BENCH_MIN_FREE_GB") or 6) * 1048576


def pipe_source(prefix, scale, runs, title):
    """The trace of the big or huge section (prefix BENCH_BIG or BENCH_HUGE) and the generator
    timed alone: (cmd, events, bytes), or None after saying why the section cannot run."""
    global ERRORS
    cmd = big_source(scale, os.environ.get(prefix + "_CMD"))
    if cmd is None:
        return note("  skipped: no tests/gentrace and no %s_CMD" % prefix)
    if not enough_space(S.tmpdir, need_kb_free(), "the spool"):
        return None
    events = big_events(scale, os.environ.get(prefix + "_EVENTS"), os.environ.get(prefix + "_CMD"))
    if events is None and prefix == "BENCH_HUGE":
        say("  ERROR: no expected event count (gentrace --stats unreadable, or BENCH_HUGE_EVENTS unset)")
        ERRORS += 1
    note("  source: %s%s" % (cmd, " (%s events)" % commas(events) if events else ""))
    nbytes = gen_size(title, cmd, events, runs)
    return (cmd, events, nbytes) if nbytes else None


def pipe_result(t, job, title, events, what):
    """The event count and the RSS target of the mct-cat job of a big or huge table."""
    count_check(title, number(t.out.get(job)), events)
    target("mct-cat peak RSS, %s" % what, rss_mb(t.rss_kb.get(job)), "<=", 16, "MB")


def section_big():
    scale = os.environ.get("BENCH_BIG_SCALE") or "40"
    runs = int(os.environ.get("BENCH_BIG_RUNS") or 3)
    say("\n== constant memory: a ~2 GB trace, through a pipe and as a file (target: peak RSS <= 16 MB)")
    src = pipe_source("BENCH_BIG", scale, runs, "big trace")
    if src is None:
        return
    cmd, events, nbytes = src
    bigfile = big_file(scale, cmd, nbytes)
    pipe, onfile, ongz = "gen | mct-cat | wc -l", "mct-cat FILE | wc -l", "mct-cat FILE.gz | wc -l"
    gz = big_gzip(bigfile)
    t = Table("big trace: mct-cat through a pipe, on a file and on its gzip (RSS of mct-cat; spool in %s)"
              % S.tmpdir, nbytes, events, runs)
    t.sh(pipe, '%s | rss "$MCT_CAT" | wc -l' % cmd, mct=True)
    if bigfile:
        t.sh(onfile, 'rss "$MCT_CAT" "$BIGFILE" | wc -l', mct=True)
    if gz:
        t.sh(ongz, 'rss "$MCT_CAT" "$BIGFILE.gz" | wc -l', mct=True)
    t.run()
    pipe_result(t, pipe, "big trace, pipe", events, "big trace through a pipe")
    if bigfile:
        pipe_result(t, onfile, "big trace, file", events, "big trace as a file")
    if gz:
        # the ring of inflated buffers (input.c: 4 of 256 KiB) is inside these 16 MB
        pipe_result(t, ongz, "big trace, gzip", events, "big trace as a .json.gz, its ring included")
    if bigfile:
        note("  (%s is kept for the next run; remove %s to free the space)" % (bigfile, S.bench_dir))


def big_gzip(bigfile):
    """BIGFILE.gz, the big trace gzipped (igzip -1, else gzip -1), kept for the next run; None
    without the big file, a gzip program, or the room for the file."""
    if not bigfile:
        return None
    z = shutil.which("igzip") or shutil.which("gzip")
    if not z:
        return note("  no igzip or gzip: the .json.gz job is skipped")
    gz = bigfile + ".gz"
    fp = fingerprint(read_bytes(bigfile + ".stamp"), "gzip -1")
    # a generated trace gzips to under a tenth; a quarter leaves room for a BENCH_BIG_CMD's
    if not kept(gz, gz + ".stamp", fp) and not enough_space(
            S.bench_dir, need_kb_free() + os.path.getsize(bigfile) // 4096, "its .json.gz"):
        return None
    make_file(gz, gz + ".stamp", fp, "  writing %s (%s -1)" % (gz, os.path.basename(z)),
              argv=[z, "-1", "-c", bigfile])
    return gz


def huge_scale():
    """BENCH_HUGE_SCALE, or the smallest scale whose indented trace is 5% over 2^32 bytes."""
    if os.environ.get("BENCH_HUGE_SCALE"):
        return os.environ["BENCH_HUGE_SCALE"]
    scale = 90
    if S.gentrace:
        nbytes = number(gen_stat("bytes", "--scale", "1", "--indent"))
        if nbytes:
            scale = math.ceil(4294967296 * 1.05 / nbytes)
    return str(scale)


def section_huge():
    runs = int(os.environ.get("BENCH_HUGE_RUNS") or 1)
    say("\n== over 4 GiB: a trace of more than 2^32 bytes through a pipe (target: inputs over 4 GB work)")
    src = pipe_source("BENCH_HUGE", huge_scale(), runs, "4 GiB")
    if src is None:
        return
    cmd, events, nbytes = src
    target("4 GiB: trace size over 2^32 bytes", str(nbytes), ">", 4294967296, "bytes")
    pipe = "gen | mct-cat | wc -l"
    t = Table("4 GiB: generator | mct-cat | wc -l (RSS of mct-cat; spool in %s)" % S.tmpdir, nbytes, events, runs)
    t.sh(pipe, '%s | rss "$MCT_CAT" | wc -l' % cmd, mct=True)
    t.run()
    pipe_result(t, pipe, "4 GiB pipe", events, "> 4 GiB through a pipe")


# ---------------------------------------------------------------- streams for the analysis sections

def derive(name, cmd, *inputs):
    """BENCH_DIR/name from the output of the bash cmd, made once and reused while its stamp matches
    (cmd, the input files' size and time, the tools and the generator)."""
    out = os.path.join(S.bench_dir, name)
    facts = ["%s %d %d" % (p, os.stat(p).st_size, int(os.stat(p).st_mtime)) for p in inputs]
    tools = [read_bytes(p) for p in (S.mct_cat, os.path.join(S.bindir, "mct-filter"), S.gentrace) if p]
    make_file(out, out + ".stamp", fingerprint(cmd, *facts, *tools), "  making %s" % out, cmd=cmd)
    return out


def need_tool(name):
    """True if the built tools/name exists, else says the section is skipped."""
    if os.access(os.path.join(S.bindir, name), os.X_OK):
        return True
    say("  skipped: no tools/%s in %s", name, S.bindir)
    return False


def stream_facts(path, what, label):
    nbytes = file_bytes(path)
    say("  %-9s %-50s %12s bytes (%s MB)  %s", label, path, commas(nbytes), mb(nbytes), what)
    warm(path)
    return nbytes


def lines_of(path):
    with open(path, "rb") as f:
        return sum(chunk.count(b"\n") for chunk in iter(lambda: f.read(1 << 20), b""))


def count_lines(path, rx):
    """The lines of path matching the bytes regex rx (what grep -c would say)."""
    with open(path, "rb") as f:
        return sum(1 for line in f if re.search(rx, line))


def need_stream():
    """The stream of the indented seed-shaped trace (mct-cat F_IND): S.stream ($STREAM), S.b_stream."""
    if getattr(S, "stream", None):
        return
    need_seed()
    base = re.sub(r"\.json$", "", re.sub(r"\.gz$", "", os.path.basename(S.f_ind)))
    S.stream = derive(base + ".stream.ndjson", q("mct-cat", S.f_ind), S.f_ind)
    export(STREAM=S.stream)
    S.b_stream = stream_facts(S.stream, "mct-cat of the indented trace", "stream")


def need_events():
    """The events of the stream without its header line, for mlr (the events of the trace, one a
    line, with their number text kept: jq 1.6 -c would round the 19-digit ns timestamps): $EVENTS"""
    need_stream()
    name = os.path.basename(S.stream)[:-len(".stream.ndjson")] + ".events.ndjson"
    S.events = derive(name, q("tail", "-n", "+2", S.stream), S.stream)
    export(EVENTS=S.events)
    warm(S.events)


def need_devstream():
    """The device lanes of the stream (mct-filter --pid 2 --pid 3): $DEVSTREAM, S.b_dev, S.ev_dev."""
    need_stream()
    name = os.path.basename(S.stream)[:-len(".stream.ndjson")] + ".dev.ndjson"
    S.devstream = derive(name, q("mct-filter", "--pid", "2", "--pid", "3", S.stream), S.stream)
    S.ev_dev = lines_of(S.devstream) - 1
    export(DEVSTREAM=S.devstream)
    S.b_dev = stream_facts(S.devstream, "mct-filter --pid 2 --pid 3 of the stream", "pid 2, 3")


def need_secstream():
    """The stream of a sections-layout trace (host, then kernels, then copies): $SECSTREAM,
    S.b_sec, S.ev_sec; False (after a note) without gentrace."""
    need_stream()
    if not S.gentrace:
        note("  no tests/gentrace: no sections-layout stream")
        return False
    S.secstream = derive("seed-s%s-sections.stream.ndjson" % S.scale,
                         q(S.gentrace, "--scale", S.scale, "--layout", "sections") + " | mct-cat")
    S.ev_sec = lines_of(S.secstream) - 1
    export(SECSTREAM=S.secstream)
    S.b_sec = stream_facts(S.secstream, "gentrace --layout sections | mct-cat", "sections")
    return True


# ---------------------------------------------------------------- section: mct-filter

def section_filter():
    if not need_tool("mct-filter"):
        return
    need_stream()
    say("\n== mct-filter: selections on the stream (target: >= 300 MB/s of stream)")
    note("  mct-filter reads the stream; mct-cat | mct-filter, jq and python3 json read the trace;")
    note("  MB/s is of the stream (jq and python3 rows: the stream's bytes over their time)")
    window = "--from %s --to %s" % (WIN_FROM, WIN_TO)
    for sel in ("window", "name"):
        if sel == "window":
            label, opts = window, window
            jq_sh = 'rss "$JQ" -c --argjson from %d --argjson to %d -f "$REF/window.jq" "$F_IND" | wc -l' % (
                WIN_FROM_NS, WIN_TO_NS)
            py_args = "window %d %d" % (WIN_FROM_NS, WIN_TO_NS)
        else:
            label, opts = "--pid 2 --name 'kernel_kernel*'", '--pid 2 --name "kernel_kernel*"'
            jq_sh = 'rss "$JQ" -c --argjson pid 2 --arg prefix kernel_kernel -f "$REF/name.jq" "$F_IND" | wc -l'
            py_args = "name 2 kernel_kernel"
        jq_job = "jq select " + sel
        t = Table("filter " + label, S.b_stream, S.ev_ind)
        t.sh("mct-filter", 'rss mct-filter %s "$STREAM" | wc -l' % opts, mct=True)
        t.sh("mct-cat | mct-filter", 'mct-cat "$F_IND" | rss mct-filter %s | wc -l' % opts, mct=True)
        if S.have_jq:
            t.sh(jq_job, jq_sh)
        if S.have_py:
            t.sh("python3 json", 'rss "$PYTHON3" "$REF/filter.py" "$F_IND" %s | wc -l' % py_args)
        t.run()
        have("jq", S.have_jq)
        have("python3", S.have_py)
        # mct-filter writes the header line too; every line else is an event
        agree(t, "events kept, " + label, count_less_header(t, "mct-filter"),
              ("mct-cat | mct-filter", 1), (jq_job, 0), ("python3 json", 0))
        ratios(t, "mct-filter", "mct-cat | mct-filter", jq_job, "python3 json")
        target("mct-filter %s, speed" % label, mbs(t, "mct-filter", S.b_stream), ">=", 300, "MB/s of stream")
        jq_x = ratio(t, jq_job, "mct-filter")
        if jq_x:
            say("  mct-filter %s: %sx jq (jq on the trace)", label, jq_x)
        target("mct-filter %s, peak RSS" % label, rss_mb(t.rss_kb.get("mct-filter")), "<=", 16, "MB")


# ---------------------------------------------------------------- section: mct-group

MLR_STATS = ["stats1", "-a", "count,sum,mean,median,min,max", "-f", "dur"]


def mlr_job(*verbs):
    """An mlr job on $EVENTS, the verbs joined by then, its output lines counted."""
    args = ["--ijsonl", "--ojsonl"]
    for i, v in enumerate(verbs):
        args += (["then"] if i else []) + list(v)
    return 'rss "$MLR" %s "$EVENTS" | wc -l' % q(*args)


def category_refs():
    """The rules file translated for jq ($WORK/category.jq) and mlr ($WORK/category.mlr)."""
    if not (S.have_py and os.access(S.rules, os.R_OK)):
        return False
    ok = True
    for lang, name in (("jq", "category.jq"), ("mlr", "category.mlr")):
        with open(os.path.join(S.work, name), "w") as f:
            ok = ok and subprocess.call([S.python3, os.path.join(REF, "rules.py"), lang, S.rules],
                                        stdout=f) == 0
    if not ok:
        say("  the rules file %s could not be translated for jq and mlr: their category jobs skipped", S.rules)
    return ok


def section_group():
    if not (need_tool("mct-group") and need_tool("mct-filter")):
        return
    need_stream()
    need_devstream()
    if S.have_mlr:
        need_events()
    say("\n== mct-group: tables of the stream (targets: >= 300 MB/s of stream; the kernel table in <= 0.3 s)")
    note("  aggregates count,total,share,mean,median,min,max of dur; jq and python3 json read the trace,")
    note("  mlr (stats1) the events of the stream one a line; MB/s is of the stream")
    note("  mct-group runs bare, its table to /dev/null (bash and wc -l cost ~13 ms here, half of")
    note("  mct-group's time on the device stream); its rows are counted in a run of their own")
    cat_ok = category_refs()
    share = ["fraction", "-f", "dur_sum", "-p"]
    by_dur = ["sort", "-nr", "dur_sum"]

    # --by name
    t = Table("group --by name", S.b_stream, S.ev_ind)
    t.cmd("mct-group", os.path.join(S.bindir, "mct-group"), "--by", "name", S.stream, mct=True)
    t.sh("mct-cat | mct-group", 'mct-cat "$F_IND" | rss mct-group --by name | wc -l', mct=True)
    if S.have_jq:
        t.sh("jq group_by", 'rss "$JQ" -c -f "$REF/group-name.jq" "$F_IND" | wc -l')
    if S.have_mlr:
        t.sh("mlr stats1", mlr_job(["filter", '$ph != "M" && is_present($name)'], MLR_STATS + ["-g", "name"],
                                   share, by_dur))
    if S.have_py:
        t.sh("python3 json", 'rss "$PYTHON3" "$REF/group.py" "$F_IND" name | wc -l')
    t.run()
    have("jq", S.have_jq)
    have("mlr", S.have_mlr)
    have("python3", S.have_py)
    agree(t, "groups by name", sh_lines(q("mct-group", "--by", "name", S.stream)) - 1,
          ("mct-cat | mct-group", 1),
          ("jq group_by", 0), ("mlr stats1", 0), ("python3 json", 0))
    ratios(t, "mct-group", "mct-cat | mct-group", "jq group_by", "mlr stats1", "python3 json")
    target("mct-group --by name, speed", mbs(t, "mct-group", S.b_stream), ">=", 300, "MB/s of stream")
    nvals = count_lines(S.stream, rb'"dur":')
    target("mct-group --by name, peak RSS (%s values kept, 16 MB + %d B each)" % (commas(nvals), WORD_BYTES),
           rss_mb(t.rss_kb.get("mct-group")), "<=", rss_allow(nvals), "MB")

    # --by category, on the device lanes
    t = Table("group --by category, the pid 2 and 3 stream", S.b_dev, S.ev_dev)
    t.cmd("mct-group", os.path.join(S.bindir, "mct-group"), "--rules", S.rules, "--by", "category",
          S.devstream, mct=True)
    t.sh("cat | filter | group",
         'mct-cat "$F_IND" | mct-filter --pid 2 --pid 3 | rss mct-group --rules "$RULES" --by category | wc -l',
         mct=True)
    if S.have_jq and cat_ok:
        t.sh("jq group_by", 'rss "$JQ" -L "$WORK" -c -f "$REF/group-category.jq" "$F_IND" | wc -l')
    if S.have_mlr and cat_ok:
        t.sh("mlr stats1", mlr_job(["filter", '$ph != "M" && ($pid == 2 || $pid == 3)'],
                                   ["put", "-f", os.path.join(S.work, "category.mlr")],
                                   ["filter", 'is_present($category) && $category != "-"'],
                                   MLR_STATS + ["-g", "category"], share, by_dur))
    if S.have_py:
        t.sh("python3 json", 'rss "$PYTHON3" "$REF/group.py" "$F_IND" category "$RULES" | wc -l')
    t.run()
    agree(t, "groups by category",
          sh_lines(q("mct-group", "--rules", S.rules, "--by", "category", S.devstream)) - 1,
          ("cat | filter | group", 1),
          ("jq group_by", 0), ("mlr stats1", 0), ("python3 json", 0))
    ratios(t, "mct-group", "cat | filter | group", "jq group_by", "mlr stats1", "python3 json")
    target("mct-group --by category, speed", mbs(t, "mct-group", S.b_dev), ">=", 300, "MB/s of stream")

    # the kernel table (kernel_kernel* by name and grid), from the indented trace
    pipeline, mlr_ev = "mct pipeline", "mlr stats1 (events)"
    t = Table("the kernel table: mct-cat TRACE | mct-filter --pid 2 --name 'kernel_kernel*' | "
              "mct-group --by name,args.grid (RSS of mct-group)", S.b_ind, S.ev_ind)
    t.pipe(pipeline, [["mct-cat", S.f_ind], ["mct-filter", "--pid", "2", "--name", "kernel_kernel*"],
                      ["mct-group", "--by", "name,args.grid", "-a", "count,total,mean,median,min,max"]],
           2, mct=True)
    if S.have_jq:
        t.sh("jq group_by", 'rss "$JQ" -c -f "$REF/kernels.jq" "$F_IND" | wc -l')
    if S.have_mlr:
        t.sh(mlr_ev, mlr_job(["filter", '$ph != "M" && $pid == 2 && is_string($name) && '
                              '$name =~ "^kernel_kernel" && is_present($args["grid"])'],
                             ["put", '$grid = joinv($args["grid"], ",")'],
                             MLR_STATS + ["-g", "name,grid"], by_dur))
    if S.have_py:
        t.sh("python3 json", 'rss "$PYTHON3" "$REF/group.py" "$F_IND" kernels | wc -l')
    t.run()
    note("  (MB/s is of the indented trace; mlr reads the events NDJSON, made beforehand, not the trace;")
    note("  the mct pipeline's three commands are piped as a shell starts them, without a bash of its")
    note("  own or wc -l: the table's lines are counted after; the references run under bash)")
    rows = count_less_header(t, pipeline)
    if S.ev_ind == FULL_EVENTS:
        check("kernel table rows (the seed's: 4 grids x 2 kernels)", rows, 8)
    agree(t, "kernel table rows", rows, ("jq group_by", 0), (mlr_ev, 0), ("python3 json", 0))
    ratios(t, pipeline, "jq group_by", mlr_ev, "python3 json")
    m = t.median.get(pipeline)
    target_full("kernel table, mct-cat | mct-filter | mct-group wall time", m and fmt_time(m), "<=", 0.3, "s")
    target_full("kernel table wall time (raised target)", m and fmt_time(m), "<=", 0.1, "s")


# ---------------------------------------------------------------- section: mct-flow

def beside_python(t, tool, text, script, infile, label, speed, nbytes):
    """Runs table t: the mct job text beside the python3 reference script on infile, which prints
    "COUNT,MORE"; checks that tool wrote COUNT lines, and the speed target (>= 200 MB/s of the
    nbytes of the stream); (COUNT, MORE), or (None, None)."""
    t.sh(tool, text, mct=True)
    if S.have_py:
        t.sh("python3 json", 'rss "$PYTHON3" "$REF/%s" "%s" /dev/null' % (script, infile))
    t.run()
    have("python3", S.have_py)
    count = more = None
    if t.median.get("python3 json") is not None:
        c, _, m = t.out.get("python3 json", "").partition(",")
        count, more = number(c), number(m)
    agree(t, label, count, (tool, 0))
    ratios(t, tool, "python3 json")
    target(speed, mbs(t, tool, nbytes), ">=", 200, "MB/s of stream")
    return count, more


def section_flow():
    if not need_tool("mct-flow"):
        return
    need_stream()
    say("\n== mct-flow: host calls joined to device events by args.co_id (targets: >= 200 MB/s of stream;")
    say("   constant memory on a sorted trace, <= 16 MB; else 16 MB + a few words per waiting event)")
    note("  python3 json: the same join on the same stream (host = pid 1), pairs written out")
    sorted_rss = None
    for layout in ("time", "sections"):
        if layout == "time":
            s, nbytes, ev = S.stream, S.b_stream, S.ev_ind
            title = "flow, the stream (sorted by time)"
        else:
            if not need_secstream():
                continue
            s, nbytes, ev = S.secstream, S.b_sec, S.ev_sec
            title = "flow, the sections-layout stream (all host calls first: they wait)"
        t = Table(title, nbytes, ev)
        export(FLOW_IN=s)
        pairs, waiting = beside_python(t, "mct-flow", 'rss mct-flow -q "$FLOW_IN" | grep -c "\\"latency\\":"',
                                       "flow.py", "$FLOW_IN", "pairs, %s layout" % layout,
                                       "mct-flow, %s layout, speed" % layout, nbytes)
        if layout == "time" and S.ev_ind == FULL_EVENTS:
            check("pairs, full scale (the seed's: 18,391 flows)", t.out.get("mct-flow") or None, 18391)
        rss = rss_mb(t.rss_kb.get("mct-flow"))
        if layout == "time":
            sorted_rss = rss
            target("mct-flow peak RSS, sorted stream", rss, "<=", 16, "MB")
            continue
        if waiting is not None:
            say("  %s events wait at most (counted by python3)", commas(waiting))
        else:
            waiting = count_lines(s, rb'"pid":1,.*"co_id"')
            say("  %s events wait at most (the host calls with a co_id, counted by grep)", commas(waiting))
        if rss and sorted_rss and waiting > 0:
            per = round((float(rss) - float(sorted_rss)) * 1048576 / waiting)
            if per > 0:
                say("  peak RSS above the sorted run: %d bytes per waiting event", per)
            else:
                say("  peak RSS no higher than on the sorted run")
        target("mct-flow peak RSS, sections layout (%s waiting, 16 MB + %d B each)" % (commas(waiting), WORD_BYTES),
               rss, "<=", rss_allow(waiting), "MB")
    flow_stack()


def flow_stack():
    """mct-flow --stack beside plain mct-flow on the sorted stream (target: within 1.3x)."""
    flow = find_built(S.builddir, "tools/mct-flow")
    t = Table("flow --stack beside plain flow, the stream (sorted by time)", S.b_stream, S.ev_ind)
    t.cmd("mct-flow", flow, "-q", S.stream, mct=True)
    t.cmd("mct-flow --stack", flow, "-q", "--stack", S.stream, mct=True)
    t.run()
    a, b = t.median.get("mct-flow --stack"), t.median.get("mct-flow")
    target("mct-flow --stack time / plain mct-flow time", "%.2f" % (a / b) if a and b else None,
           "<=", 1.3, "x")
    target("mct-flow --stack peak RSS, sorted stream", rss_mb(t.rss_kb.get("mct-flow --stack")),
           "<=", 16, "MB")


# ---------------------------------------------------------------- section: mct-phases

def section_phases():
    if not need_tool("mct-phases"):
        return
    need_stream()
    say("\n== mct-phases --gaps: phases and idle gaps of the device (targets: >= 200 MB/s of stream;")
    say("   <= 16 MB + a few words per value kept)")
    note("  python3 json, on the same stream: sorts the device events, their busy union, the gaps over 1%")
    note("  of the device span with the host calls overlapping each, and the calls by signature")
    t = Table("phases --gaps, the stream", S.b_stream, S.ev_ind)
    gaps, ndev = beside_python(t, "mct-phases", 'rss mct-phases --gaps "$STREAM" | grep -c "\\"phase\\":\\"gap\\""',
                               "phases.py", "$STREAM", "gaps", "mct-phases --gaps, speed", S.b_stream)
    if ndev is None:
        ndev = count_lines(S.stream, rb'"ph":"X","pid":[23],')
    target("mct-phases peak RSS (%s device events, 16 MB + %d B each)" % (commas(ndev), WORD_BYTES),
           rss_mb(t.rss_kb.get("mct-phases")), "<=", rss_allow(ndev), "MB")


# ---------------------------------------------------------------- section: mct-report

def section_report():
    if not S.mct_report:
        return note("  skipped: no tools/mct-report")
    need_seed()
    say("\n== mct-report: the whole seed analysis of the trace (target: <= 1.5 s on the full-scale trace)")
    report = os.path.join(S.work, "report.md")
    export(REPORT_OUT=report)
    t = Table("report, the indented trace (RSS: its largest process)", S.b_ind, S.ev_ind)
    t.cmd("mct-cat", S.mct_cat, S.f_ind, mct=True)
    t.sh("mct-report", 'rss "$MCT_REPORT" "$F_IND" >"$REPORT_OUT" && { grep -c "91\\.14%" "$REPORT_OUT" || true; }',
         mct=True)
    # one of the report's sections alone, the critical path of the whole
    # trace (this trace has no steps): a floor under the report's time
    floor = need_tool("mct-path")
    if floor:
        t.sh("path section", 'rss mct-path -q -o md "$F_IND" | wc -l', mct=True)
    t.run()
    ratios(t, "mct-cat", "mct-report", *(["path section"] if floor else []))
    target("mct-report / mct-cat, the seed-shaped trace", ratio(t, "mct-report", "mct-cat"), "<=", 3, "x")
    found = number(t.out.get("mct-report")) or 0
    m = t.median.get("mct-report")
    if m is not None:
        say("  report: %d lines", lines_of(report))
        if S.ev_ind == FULL_EVENTS:
            check("report lines holding 91.14% (the seed's TileLang share), at least 1",
                  "yes" if found >= 1 else "no", "yes")
        else:
            say("  (91.14%% is the full-scale share: found on %d line(s) of this report, not judged)", found)
    target_full("mct-report wall time", m and fmt_time(m), "<=", 1.5, "s")
    # real traces: the largest Kineto fixture and a small one (where the report's own
    # processes, not the reading, take the time)
    files = real_trace()
    if files is None:
        return
    bert = os.path.join(os.path.dirname(os.path.realpath(S.real_src)), "kineto-bert-h100.json.gz")
    t = Table("report, real Kineto traces", None, None)
    t.cmd("mct-cat largest", S.mct_cat, files[0], mct=True)
    t.cmd("mct-report largest", S.mct_report, files[0], mct=True)
    # the report's critical path section alone, as it runs it (the trace
    # has steps: the median step's, which reads the trace twice)
    if floor:
        export(F_REAL=files[0])
        t.sh("path section largest", 'rss mct-path -q -o md --steps median "$F_REAL" | wc -l', mct=True)
    if os.path.exists(bert):
        t.cmd("mct-cat bert", S.mct_cat, bert, mct=True)
        t.cmd("mct-report bert", S.mct_report, bert, mct=True)
    t.run()
    ratios(t, "mct-cat largest", "mct-report largest",
           *(["path section largest"] if floor else []))
    target("mct-report / mct-cat, the largest Kineto fixture", ratio(t, "mct-report largest", "mct-cat largest"),
           "<=", 3, "x")
    if os.path.exists(bert):
        ratios(t, "mct-cat bert", "mct-report bert")
        target("mct-report / mct-cat, kineto-bert-h100", ratio(t, "mct-report bert", "mct-cat bert"), "<=", 3, "x")


# ---------------------------------------------------------------- section: partials merged

def section_merge():
    if not need_tool("mct-group"):
        return
    need_stream()
    say("\n== mct-group --merge: partial tables (target: 1,000 partials of the kernel table in <= 1 s)")
    d = os.path.join(S.work, "merge")
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(os.path.join(d, "k"))
    part = os.path.join(d, "kernel.partial")
    sh_lines("mct-filter --pid 2 --name 'kernel_kernel*' %s | mct-group -o partial > %s" % (q(S.stream), q(part)))
    with open(part, "rb") as f:
        text = f.read()
    for i in range(1000):
        with open(os.path.join(d, "k", "%04d.nd" % i), "wb") as f:
            f.write(text)
    export(MERGE_DIR=d)
    t = Table("merge 1,000 partials of the kernel table (%s bytes each)" % commas(len(text)),
              1000 * len(text), None)
    t.sh("mct-group --merge", 'rss mct-group --merge -o tsv -a count,total,median,p90 "$MERGE_DIR"/k/*.nd '
         '| wc -l', mct=True)
    t.run()
    check("rows of the merge (header and the two kernels)", number(t.out.get("mct-group --merge")), 3)
    m = t.median.get("mct-group --merge")
    target("mct-group --merge of 1,000 kernel-table partials", m and fmt_time(m), "<=", 1, "s")

    # the stream split four ways, partials past --exact-limit 100, merged: within 1%
    sh_lines("tail -n +2 %s | awk -v d=%s '{ print > (d \"/body\" (NR %% 4)) }'" % (q(S.stream), q(d)))
    for i in range(4):
        sh_lines("{ head -1 %s; cat %s/body%d; } | mct-group -o partial --exact-limit 100 > %s/L%d"
                 % (q(S.stream), q(d), i, q(d), i))
    sh_lines("mct-group --merge --exact-limit 100 -o tsv -a count,total,min,max,median,p90 %s/L? > %s/m.tsv"
             % (q(d), q(d)))
    p = subprocess.run([sys.executable, os.path.join(SRCDIR, "tests", "partial_oracle.py"), "within",
                        "0.01", S.stream, "--", os.path.join(d, "m.tsv")],
                       env=S.env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    worst = re.search(r"groups (\d+) worst ([0-9.]+)", p.stdout)
    check("merged count, total, min, max exact; median, p90 within 1% (partial_oracle.py)",
          "yes" if p.returncode == 0 else p.stderr.strip()[:200], "yes")
    if worst:
        say("  --exact-limit 100, 4 partials: %s groups, worst relative error of median and p90 %.4f%%",
            worst.group(1), 100 * float(worst.group(2)))
    target("--exact-limit 100: worst error of median and p90", worst and "%.4f" % (100 * float(worst.group(2))),
           "<=", 1, "%")
    shutil.rmtree(d, ignore_errors=True)
# ---------------------------------------------------------------- section: mct-ranks

NRANKS = 8


def need_ranks():
    """S.rank_dir ($RANK_DIR): NRANKS compact rank files of the seed's shape, rank 3 slower by 8%;
    S.b_ranks their bytes, S.ev_ranks their events."""
    if getattr(S, "rank_dir", None):
        return
    args = ["--scale", S.scale, "--ranks", str(NRANKS), "--slow-rank", "3", "--slow-factor", "1.08",
            "--clock-offset", "0"]
    d = os.path.join(S.bench_dir, "ranks-s%s" % S.scale)
    stamp, fp = d + ".stamp", gen_fingerprint(*args)
    if not (os.path.isdir(d) and read_bytes(stamp).decode().strip() == fp):
        note("generating %s (gentrace %s)" % (d, " ".join(args)))
        shutil.rmtree(d, ignore_errors=True)
        os.makedirs(d)
        if subprocess.call([S.gentrace] + args + ["--out", d]) != 0:
            die("gentrace --ranks failed")
        with open(stamp, "w") as f:
            f.write(fp + "\n")
    S.rank_dir = d
    S.rank_files = sorted(glob.glob(os.path.join(d, "rank-*.json")))
    S.b_ranks = sum(file_bytes(f) for f in S.rank_files)
    S.ev_ranks = None
    ev = gen_events("--scale", S.scale)
    if ev is not None:
        S.ev_ranks = NRANKS * ev            # and the collectives, 2 a round
    export(RANK_DIR=d)
    for f in S.rank_files:
        warm(f)
    say("  %d ranks in %s: %s bytes (%s MB)", NRANKS, d, commas(S.b_ranks), mb(S.b_ranks))


def section_ranks():
    if not need_tool("mct-ranks"):
        return
    if not S.gentrace:
        return note("  skipped: no tests/gentrace")
    need_ranks()
    merge = subprocess.run([S.mct_cat, "--help"], stdout=subprocess.PIPE,
                           stderr=subprocess.DEVNULL).stdout.find(b"--merge") >= 0
    say("\n== mct-ranks: %d seed-sized compact ranks merged and summed up (targets: <= 1.5 s wall,", NRANKS)
    say("   <= 64 MB peak RSS per process)")
    note("  python3 json: every rank file read whole, device unions, medians, stragglers")
    t = Table("ranks, %d compact rank files" % NRANKS, S.b_ranks, S.ev_ranks)
    if merge:
        t.sh("mct-cat --merge | mct-ranks",
             'mct-cat --merge "$RANK_DIR"/rank-*.json | rss mct-ranks -o tsv --no-header | '
             'grep -c "true$"', mct=True)
        t.sh("mct-cat --merge", 'rss mct-cat --merge "$RANK_DIR"/rank-*.json >/dev/null', mct=True)
    else:
        note("  mct-cat has no --merge here: mct-ranks reads the %d rank files itself" % NRANKS)
        t.sh("mct-ranks FILES", 'rss mct-ranks -o tsv --no-header "$RANK_DIR"/rank-*.json | '
             'grep -c "true$"', mct=True)
    if S.have_py:
        t.sh("python3 json", 'rss "$PYTHON3" "$REF/ranks.py" "$RANK_DIR"/rank-*.json')
    t.run()
    have("python3", S.have_py)
    job = "mct-cat --merge | mct-ranks" if merge else "mct-ranks FILES"
    if t.median.get("python3 json") is not None:
        agree(t, "stragglers", number(t.out.get("python3 json", "").partition(",")[0]), (job, 0))
    check("stragglers found by %s (rank 3 only)" % job, number(t.out.get(job)), 1)
    ratios(t, job, "python3 json")
    # the targets are for seed-sized ranks: judged at scale 1 only
    judge = target if float(S.scale) == 1 else target_full
    judge("%d ranks merged and summed up, wall" % NRANKS, t.median.get(job) and
          fmt_time(t.median.get(job)), "<=", 1.5, "s")
    for tool in ((job, "mct-cat --merge") if merge else (job,)):
        judge("%s peak RSS" % tool, rss_mb(t.rss_kb.get(tool)), "<=", 64, "MB")


# ---------------------------------------------------------------- section: mct-diff

def section_diff():
    if not (need_tool("mct-diff") and need_tool("mct-group")):
        return
    need_seed()
    f_slow = generate("seed-s%s-slow-kernel.json" % S.scale, "--scale", S.scale, "--slow-kernel",
                      "kernel_kernel", "--slow-factor-kernel", "1.10")
    export(F_SLOW=f_slow)
    warm(f_slow)
    say("\n== mct-diff: two compact seed traces compared, kernel_kernel 10% slower in the second")
    say("   (target: <= 2x the time of one mct-cat | mct-group over one of them)")
    note("  python3 json: both traces read whole, per name count, total, median and their changes")
    t = Table("diff of two compact traces", S.b_cmp + file_bytes(f_slow), 2 * S.ev_cmp)
    t.sh("mct-diff", 'rss mct-diff -o tsv --no-header "$F_CMP" "$F_SLOW" | head -1 | cut -f1', mct=True)
    t.sh("mct-cat | mct-group", 'mct-cat "$F_CMP" | rss mct-group --by name | wc -l', mct=True)
    if S.have_py:
        t.sh("python3 json", 'rss "$PYTHON3" "$REF/diff.py" "$F_CMP" "$F_SLOW"')
    t.run()
    have("python3", S.have_py)
    first = (t.out.get("mct-diff") or "").strip()
    check("first row of mct-diff is kernel_kernel", 1 if first == "kernel_kernel" else 0, 1)
    if t.median.get("python3 json") is not None:
        py_first = (t.out.get("python3 json") or "").strip().partition(",")[2]
        check("first row of the python3 diff is kernel_kernel", 1 if py_first == "kernel_kernel" else 0, 1)
    ratios(t, "mct-cat | mct-group", "mct-diff", "python3 json")
    a, b = t.median.get("mct-diff"), t.median.get("mct-cat | mct-group")
    target("mct-diff of two traces / one mct-cat | mct-group", a and b and "%.2f" % (a / b), "<=", 2,
           "x")
# ---------------------------------------------------------------- section: mct-path

def section_path():
    if not need_tool("mct-path"):
        return
    need_seed()
    say("\n== mct-path: the critical path of the seed trace, whole, in both its forms")
    say("   (target: <= 3x the time of mct-cat over the seed's full trace as its file is written,")
    say("   indented (SPEC 7); the compact form, mct-cat's own output, is shown beside it)")
    note("  python3: tests/path_oracle.py, the same graph and longest path in python3")
    export(PATH_ORACLE=os.path.join(SRCDIR, "tests", "path_oracle.py"))
    got = {}
    for form, var, nbytes, nev in (("indented", "F_IND", S.b_ind, S.ev_ind),
                                   ("compact", "F_CMP", S.b_cmp, S.ev_cmp)):
        t = Table("critical path of the %s trace" % form, nbytes, nev)
        t.sh("mct-path", 'rss mct-path -q -o tsv --no-header -F bound,crit "$%s" | '
             'grep "^total" | cut -f2' % var, mct=True)
        t.sh("mct-cat", 'rss mct-cat "$%s" | wc -l' % var, mct=True)
        if S.have_py:
            t.sh("python3 oracle", 'rss "$PYTHON3" "$PATH_ORACLE" "$%s" "" | '
                 'grep "^summary" | cut -d" " -f2' % var)
        t.run()
        have("python3", S.have_py)
        length = (t.out.get("mct-path") or "").strip()
        if t.median.get("python3 oracle") is not None:
            check("mct-path's length is the oracle's (%s)" % form,
                  1 if length and length == (t.out.get("python3 oracle") or "").strip() else 0, 1)
        ratios(t, "mct-cat", "mct-path", "python3 oracle")
        a, b = t.median.get("mct-path"), t.median.get("mct-cat")
        got[form] = a and b and "%.2f" % (a / b)
    target("mct-path / mct-cat, the seed's file as written (indented)", got["indented"], "<=", 3,
           "x")
    say("  (compact form: mct-path / mct-cat %s x)", got["compact"] or "not measured")
    path_backward()


def path_backward():
    """--steps all on a trace of steps in time order and on the same written backwards (its
    order broken: the whole input kept, each step's window found in it): near the same time."""
    if not S.gentrace:
        return note("  skipped: no tests/gentrace")
    say("\n== mct-path --steps all on ProfilerStep#N rounds in time order and written backwards")
    say("   (target: backwards <= 2x the time in order; each step's window is found in the whole")
    say("   input, not its graph made of it)")
    args = ("--profiler-steps", "--scale", S.scale, "--form", "ndjson")
    fwd = os.path.join(S.bench_dir, "steps-s%s.ndjson" % S.scale)
    back = os.path.join(S.bench_dir, "steps-s%s-back.ndjson" % S.scale)
    make_file(fwd, fwd + ".stamp", gen_fingerprint(*args), "generating %s (gentrace %s)"
              % (fwd, " ".join(args)), argv=[S.gentrace] + list(args))
    make_file(back, back + ".stamp", fingerprint(read_bytes(fwd + ".stamp"), "tac"),
              "making %s (its lines backwards)" % back, cmd="tac %s" % q(fwd))
    export(F_STEPS=fwd, F_BACK=back)
    t = Table("mct-path -q --steps all -o tsv --no-header", os.path.getsize(fwd), None)
    t.sh("in time order", 'rss mct-path -q --steps all -o tsv --no-header "$F_STEPS" | wc -l',
         mct=True)
    t.sh("backwards", 'rss mct-path -q --steps all -o tsv --no-header "$F_BACK" | wc -l', mct=True)
    t.run()
    rows = number((t.out.get("in time order") or "").strip())
    check("--steps all backwards: the rows in time order's", number((t.out.get("backwards") or
                                                                   "").strip()), rows)
    ratios(t, "in time order", "backwards")
    target("mct-path --steps all, backwards / in time order", ratio(t, "backwards", "in time order"),
           "<=", 2, "x")
# ---------------------------------------------------------------- section: metrics

def section_metrics():
    if not need_tool("mct-metrics"):
        return
    if not S.gentrace:
        return note("  skipped: no tests/gentrace")
    need_seed()
    say("\n== mct-metrics --join: the compact trace with a 1 kHz metric log of its span, two counters")
    say("   joined to every event with a dur (target: <= 1.5x the time of mct-cat over the trace)")
    log = os.path.join(S.bench_dir, "seed-s%s-metrics.csv" % S.scale)
    args = ("--scale", S.scale, "--metrics", "/dev/fd/3", "--metrics-form", "csv")
    make_file(log, log + ".stamp", gen_fingerprint(*args), "generating %s (gentrace %s)" % (log, " ".join(args)),
              cmd="%s 3>&1 >/dev/null" % q(S.gentrace, *args))
    nd = os.path.join(S.bench_dir, "seed-s%s-metrics.nd" % S.scale)
    make_file(nd, nd + ".stamp", fingerprint(read_bytes(log), "mct-metrics"), "making %s" % nd,
              cmd="mct-metrics %s" % q(log))
    export(MET_CSV=log, MET_ND=nd)
    note("  log: %s, %s samples" % (log, commas(sum(1 for _ in open(log)) - 1)))
    t = Table("--join hbm_bw,sm_clock, compact trace + 1 kHz log", S.b_cmp, S.ev_cmp)
    t.sh("mct-cat", 'rss mct-cat "$F_CMP" >/dev/null', mct=True)
    t.sh("mct-metrics --join TRACE LOG",
         'rss mct-metrics --join hbm_bw,sm_clock "$F_CMP" "$MET_CSV" >/dev/null', mct=True)
    t.sh("mct-cat --merge | --join",
         'mct-cat --merge "$F_CMP" "$MET_ND" | rss mct-metrics --join hbm_bw,sm_clock >/dev/null', mct=True)
    if S.have_py:
        t.sh("python3 json", 'rss "$PYTHON3" "$REF/metrics.py" "$F_CMP" "$MET_CSV"')
    t.run()
    have("python3", S.have_py)
    job = "mct-metrics --join TRACE LOG"
    if t.median.get("python3 json") is not None and t.median.get(job) is not None:
        # counted once, outside the timed job (grep over its output would be timed too)
        check("events joined: %s" % job, sh_lines('mct-metrics --join hbm_bw,sm_clock "$F_CMP" "$MET_CSV" | '
                                                  'grep -F \'"metrics":\''),
              number(t.out.get("python3 json")))
    ratios(t, "mct-cat", job, "mct-cat --merge | --join", "python3 json")
    judge = target if float(S.scale) == 1 else target_full
    r = ratio(t, job, "mct-cat")
    judge("--join TRACE LOG / mct-cat TRACE, wall", r, "<=", 1.5, "x")
    judge("--join peak RSS (memory constant on sorted input)", rss_mb(t.rss_kb.get(job)), "<=", 64, "MB")


# ---------------------------------------------------------------- section: the 2 GB slice

def section_slice():
    scale = os.environ.get("BENCH_BIG_SCALE") or "40"
    runs = int(os.environ.get("BENCH_BIG_RUNS") or 3)
    say("\n== slice: a ~2 GB trace, mct-cat | mct-filter --from %s --to %s | mct-cat --wrap > /dev/null",
        WIN_FROM, WIN_TO)
    say("   (targets: <= 5 s end to end; peak RSS of every stage <= 16 MB)")
    if not need_tool("mct-filter"):
        return
    cmd = big_source(scale, os.environ.get("BENCH_BIG_CMD"))
    if cmd is None:
        return note("  skipped: no tests/gentrace and no BENCH_BIG_CMD")
    nbytes = None
    if not os.environ.get("BENCH_BIG_CMD"):
        nbytes = number(gen_stat("bytes", "--scale", scale, "--indent"))
    bigfile = big_file(scale, cmd, nbytes or 2500000000)
    if not bigfile:
        return note("  skipped: no 2 GB trace file")
    nbytes = file_bytes(bigfile)
    events = big_events(scale, os.environ.get("BENCH_BIG_EVENTS"), os.environ.get("BENCH_BIG_CMD"))
    note("  trace: %s, %s bytes%s" % (bigfile, commas(nbytes), ", %s events" % commas(events) if events else ""))
    # the kernel may have dropped the file from its cache since it was made:
    # read it once, so that every job finds it in memory alike
    warm(bigfile)
    note("  read once before the jobs (page cache warm for every job)")
    note("  the pipeline runs three times a round, GNU time on a different stage each time")
    stages = ['mct-cat "$BIGFILE"', "mct-filter --from %s --to %s" % (WIN_FROM, WIN_TO), "mct-cat --wrap"]
    jobs = ("RSS of mct-cat", "RSS of mct-filter", "RSS of mct-cat --wrap")
    t = Table("slice of the 2 GB trace", nbytes, events, runs)
    for i, tool in enumerate(jobs):
        t.sh(tool, " | ".join(("rss " if j == i else "") + s for j, s in enumerate(stages)) + " >/dev/null",
             mct=True)
    t.run()
    meds = sorted(t.median[tool] for tool in jobs if t.median.get(tool) is not None)
    med = fmt_time(meds[(len(meds) + 1) // 2 - 1]) if meds else None
    target("2 GB slice wall time (median of the three jobs)", med, "<=", 5, "s")
    target("2 GB slice, peak RSS of mct-cat", rss_mb(t.rss_kb.get(jobs[0])), "<=", 16, "MB")
    target("2 GB slice, peak RSS of mct-filter --from --to", rss_mb(t.rss_kb.get(jobs[1])), "<=", 16, "MB")
    target("2 GB slice, peak RSS of mct-cat --wrap", rss_mb(t.rss_kb.get(jobs[2])), "<=", 16, "MB")


# ---------------------------------------------------------------- section: mct-path --steps all

def section_pathsteps():
    say("\n== mct-path --steps all (and --step, --steps median) on a ~200 MB and a ~2 GB trace of "
        "steps (target: the same peak RSS within 8 MB)")
    if not need_tool("mct-path"):
        return
    if not S.gentrace:
        return note("  skipped: no tests/gentrace")
    if not enough_space(S.tmpdir, need_kb_free() + 2200000, "the 2 GB trace"):
        return
    t = Table("mct-path -q --steps all -o tsv --no-header FILE | wc -l (RSS of mct-path; files in %s)"
              % S.tmpdir, None, None, 1)
    files, jobs = [], []
    try:
        for scale in ("7", "70"):
            path = os.path.join(S.tmpdir, "pathsteps-%s.json" % scale)
            files.append(path)
            note("  writing %s (gentrace --profiler-steps --scale %s)" % (path, scale))
            with open(path, "wb") as f:
                subprocess.run([S.gentrace, "--profiler-steps", "--scale", scale], stdout=f, check=True)
            job = "scale %s, %s MB" % (scale, mb(os.path.getsize(path)))
            jobs.append((job, scale))
            t.sh(job, 'rss mct-path -q --steps all -o tsv --no-header %s | wc -l' % q(path))
            # one step, and the median's table and events (mct-report's run)
            t.sh(job + ", --step", 'rss mct-path -q -o md --step ProfilerStep#%d %s | wc -l'
                 % (max(2, round(110 * float(scale))), q(path)))
            t.sh(job + ", --steps median", 'rss mct-path -q -o md --steps median --events /dev/null '
                 '%s | wc -l' % q(path))
        t.run()
    finally:
        for f in files:
            if os.path.exists(f):
                os.unlink(f)
    for job, scale in jobs:
        # the big and the small rounds: max(2, round(110 * S)) each
        check("%s: rows (one a step)" % job, number((t.out.get(job) or "").strip()), 2 * max(2, round(110 * float(scale))))
    rss = [t.rss_kb.get(job) for job, _ in jobs]
    for (job, _), kb in zip(jobs, rss):
        target("mct-path --steps all peak RSS, %s" % job, rss_mb(kb), "<=", 64, "MB")
        for how in ("--step", "--steps median"):
            target("mct-path %s peak RSS, %s" % (how, job),
                   rss_mb(t.rss_kb.get(job + ", " + how)), "<=", 64, "MB")
    target("mct-path --steps all, peak RSS of 2 GB less that of 200 MB",
           rss_mb(rss[1] - rss[0]) if None not in rss else None, "<=", 8, "MB")


def section_reportbig():
    say("\n== mct-report on a ~2 GB trace of steps (gentrace --profiler-steps --scale 70, made in TMPDIR"
        " and removed after), beside mct-cat on it (targets: <= 3x, peak RSS <= 64 MB)")
    if not S.mct_report:
        return note("  skipped: no tools/mct-report")
    if not S.gentrace:
        return note("  skipped: no tests/gentrace")
    # the trace, and the report's spool of it (a stream of about the same size)
    if not enough_space(S.tmpdir, need_kb_free() + 4400000, "the 2 GB trace and the report's spool"):
        return
    path = os.path.join(S.tmpdir, "reportbig-70.json")
    try:
        note("  writing %s (gentrace --profiler-steps --scale 70)" % path)
        with open(path, "wb") as f:
            subprocess.run([S.gentrace, "--profiler-steps", "--scale", "70"], stdout=f, check=True)
        export(F_BIGREP=path)
        t = Table("report of %s MB (RSS: the largest process of each)" % mb(os.path.getsize(path)),
                  os.path.getsize(path), None, 1)
        t.sh("mct-cat", 'rss mct-cat "$F_BIGREP" | wc -l', mct=True)
        t.sh("mct-report", 'rss "$MCT_REPORT" "$F_BIGREP" | wc -l', mct=True)
        t.run()
    finally:
        if os.path.exists(path):
            os.unlink(path)
    ratios(t, "mct-cat", "mct-report")
    target("mct-report / mct-cat, the 2 GB trace", ratio(t, "mct-report", "mct-cat"), "<=", 3, "x")
    target("mct-report peak RSS, the 2 GB trace", rss_mb(t.rss_kb.get("mct-report")), "<=", 64, "MB")


# ---------------------------------------------------------------- main

def first_line(argv):
    try:
        r = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    except OSError:
        return "?"
    return (r.stdout.decode("utf-8", "replace").split("\n") + [""])[0]


def machine():
    model, mem, load = "unknown", "?", "?"
    try:
        with open("/proc/cpuinfo") as f:
            model = next((l.split(":", 1)[1].strip() for l in f if l.startswith("model name")), model)
        with open("/proc/meminfo") as f:
            mem = next(("%d" % (int(l.split()[1]) // 1024) for l in f if l.startswith("MemTotal")), mem)
        with open("/proc/loadavg") as f:
            load = " ".join(f.read().split()[:3])
    except OSError:
        pass
    u = os.uname()
    return "%d CPU(s), %s; %s MB RAM; %s %s; load average %s" % (
        len(os.sched_getaffinity(0)), model, mem, u.sysname, u.release, load)


def print_header(sections):
    say("mct benchmark — %s", time.strftime("%Y-%m-%d %H:%M:%S %Z"))
    say("machine:  %s", machine())
    say("mct:      %s (%s)", first_line([S.mct_cat, "--version"]), S.mct_cat)
    if S.base:
        say("base:     %s (%s): every mct job also as \"TOOL (base)\"",
            first_line([S.base.mct_cat, "--version"]), S.base.mct_cat)
    say("gentrace: %s", S.gentrace or "not built")
    say("jq:       %s", first_line([S.jq, "--version"]) if S.have_jq else "not installed (jq columns skipped)")
    say("python3:  %s", "%s (%s)" % (first_line([S.python3, "--version"]), S.python3) if S.have_py
        else "not installed (python3 columns skipped)")
    say("RSS:      %s", "GNU time -f %%M (%s) on the measured command" % S.timebin if S.timebin else
        "bench/rss.py (os.wait4) on the measured command: GNU time is missing, and figures under"
        " python's own ~7 MB show as that")
    say("          (in a round of its own before the timed ones, which run the jobs bare)")
    say("runs:     %d per job (BENCH_RUNS), median wall time; spread = (max - min) / median;", S.runs)
    say("          MB = 10^6 bytes, RSS MB = MiB; x ref = job time / time of the first row of its table")
    say("sections: %s", " ".join(sections))


def print_summary():
    say("\n== summary")
    for v in TARGETS:
        say("  %s", v)
    if BASE_ROWS:
        say("\n  this build against BENCH_BASE (%s): medians of wall time and of cpu time (user +", S.base.dir)
        say("  system of the job's processes), difference (+ = slower than base)")
        say("    %-36s %-30s %8s %8s %7s %8s %8s %7s", "table", "job", "this s", "base s", "diff",
            "cpu s", "base", "diff")
        over = 0
        for title, tool, a, b, ca, cb in BASE_ROWS:
            over += pct(a, b) > 3
            say("    %-36.36s %-30s %8.4f %8.4f %+6.1f%% %8.4f %8.4f %+6.1f%%%s", title, tool, a, b, pct(a, b),
                ca, cb, pct(ca, cb), "  > 3%" if pct(a, b) > 3 else "")
        say("  %d of %d job(s) more than 3%% slower than base in wall time (one run's medians: noise"
            " included)", over, len(BASE_ROWS))
    say("  %d target(s) failed, %d error(s)", FAILS, ERRORS)


def main(argv):
    sections = argv[1:]
    if sections and sections[0] in ("-h", "--help"):
        sys.stdout.write(__doc__)
        return 0
    if not sections:
        sections = list(SECTIONS_DEFAULT)
        if env_flag("BENCH_BIG"):
            sections += ["big", "slice", "pathsteps", "reportbig"]
        if env_flag("BENCH_HUGE"):
            sections += ["huge"]
    for s in sections:
        if s not in SECTIONS_ALL:
            die("unknown section '%s' (known: %s)" % (s, " ".join(SECTIONS_ALL)))
    setup()
    S.ev_ind = None
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    try:
        print_header(sections)
        for s in sections:
            globals()["section_" + s]()
        print_summary()
    except KeyboardInterrupt:
        sys.exit(130)
    finally:
        shutil.rmtree(S.work, ignore_errors=True)
        for p in PARTIAL:
            if os.path.exists(p):
                os.unlink(p)
    if ERRORS:
        return 1
    if FAILS and env_flag("BENCH_STRICT"):
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
