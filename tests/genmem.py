#!/usr/bin/env python3
"""genmem.py - a small Kineto-shaped trace with the allocator's [memory]
events, for the tests of mct-mem.

  python3 tests/genmem.py [--plain] [STEPS] > mem.json

STEPS ProfilerStep#N slices (default 3) on the main thread, each with
nn.Module python_function slices, nested cpu_op slices (some starting at
the same time as their parent), allocations and frees on cuda:0 and
cuda:1 inside them, on the autograd thread too, and on the CPU (Device
Id -1); an allocation outside every op, one at the very end of an op
(not inside it), one without Total Allocated (an older profiler), one
without Bytes (left out), and a gpu_user_annotation ProfilerStep#N on the
device's lane (--plain: none of the odd events after the steps).  Times
in float us with three decimals, as Kineto writes
them; the events are not in time order.  Deterministic.
"""
import json
import random
import sys

PID, MAIN, BWD = 3100, 3100, 3107


def main(argv):
    plain = "--plain" in argv
    argv = [a for a in argv if a != "--plain"]
    steps = int(argv[1]) if len(argv) > 1 else 3
    rnd = random.Random(7)
    ev = [{"name": "process_name", "ph": "M", "pid": PID, "tid": 0,
           "args": {"name": "python3"}}]
    total = {0: 0, 1: 0, -1: 0}
    t = 1000000.0

    def x(name, cat, tid, ts, dur):
        ev.append({"ph": "X", "cat": cat, "name": name, "pid": PID,
                   "tid": tid, "ts": round(ts, 3), "dur": round(dur, 3),
                   "args": {}})

    def mem(tid, ts, dev, nbytes, keep_total=True, keep_bytes=True):
        did = dev if dev >= 0 else -1
        total[did] += nbytes
        a = {"Total Reserved": 1 << 30, "Total Allocated": total[did],
             "Bytes": nbytes, "Addr": rnd.randrange(1 << 40),
             "Device Id": did, "Device Type": 1 if dev >= 0 else 0}
        if not keep_total:
            del a["Total Allocated"]
        if not keep_bytes:
            del a["Bytes"]
            total[did] -= nbytes
        ev.append({"ph": "i", "cat": "cpu_instant_event", "s": "t",
                   "name": "[memory]", "pid": PID, "tid": tid,
                   "ts": round(ts, 3), "args": a})

    live = {0: [], 1: []}
    for s in range(steps):
        x("ProfilerStep#%d" % (s + 10), "user_annotation", MAIN, t, 900.0)
        ev.append({"ph": "X", "cat": "gpu_user_annotation",
                   "name": "ProfilerStep#%d" % (s + 10), "pid": 0, "tid": 7,
                   "ts": round(t + 50.5, 3), "dur": 800.0, "args": {}})
        u = t + 10.25
        for layer in range(3):
            mod = "nn.Module: Linear_%d" % (s * 3 + layer)
            x(mod, "python_function", MAIN, u, 200.0)
            x("aten::linear", "cpu_op", MAIN, u + 5.125, 150.0)
            x("aten::addmm", "cpu_op", MAIN, u + 5.125, 100.0)
            x("aten::empty", "cpu_op", MAIN, u + 20.5, 10.0)
            dev = layer % 2
            size = rnd.choice([512, 4096, 1 << 20, 3 << 20]) * (s + 1)
            mem(MAIN, u + 25.0, dev, size)          # in aten::empty
            live[dev].append(size)
            mem(MAIN, u + 30.5, dev, 2048)          # in aten::addmm
            live[dev].append(2048)
            mem(MAIN, u + 105.125, dev, 1024)       # at addmm's end: linear
            live[dev].append(1024)
            if len(live[dev]) > 3:
                mem(MAIN, u + 140.0, dev, -live[dev].pop(0))
            u += 210.0
        # backward thread: its own ops, no step on this thread
        x("autograd::engine::evaluate_function: AddmmBackward0", "cpu_op",
          BWD, t + 700.0, 150.0)
        x("aten::mm", "cpu_op", BWD, t + 710.0, 50.0)
        mem(BWD, t + 720.0, 0, 8192 * (s + 1))
        live[0].append(8192 * (s + 1))
        mem(BWD, t + 800.0, 1, -live[1].pop(0))
        mem(MAIN, t + 880.0, -1, 64)                # the CPU, outside ops
        mem(MAIN, t + 881.0, -1, -64)
        t += 1000.0
    if not plain:
        mem(MAIN, t + 10.0, 0, 4096)                # after every step
        mem(MAIN, t + 20.0, 1, 256, keep_total=False)
        mem(MAIN, t + 30.0, 1, 999, keep_bytes=False)
    rnd.shuffle(ev)
    json.dump({"schemaVersion": 1, "traceEvents": ev}, sys.stdout)
    print()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
