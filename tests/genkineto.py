#!/usr/bin/env python3
"""genkineto.py - write examples/pytorch-small.pt.trace.json, a small trace
in the shape the PyTorch profiler (Kineto, CUPTI) writes, for the README.

  python3 tests/genkineto.py > examples/pytorch-small.pt.trace.json

Four profiler steps of a two-layer MLP trained with SGD on one GPU (an
H100 in deviceProperties): ProfilerStep#N annotations, python_function
and cpu_op stacks above every launch, the backward pass on the autograd
thread, cudaLaunchKernel / cudaMemcpyAsync / cudaMemsetAsync with their
correlation ids and ac2g flows, kernels with grid and block, the input
copied in and the loss copied out each step, times in float us with
three decimals, as Kineto writes them.  The first step is slow: its
first launch loads the module (CUDA lazy loading).

Deterministic: the same bytes every run (tests/producers-tools.bats
checks the committed file against this script).
"""
import json
import sys

PID, MAIN, AUTOGRAD = 4242, 4242, 4251
T0 = 1419247330000000000          # ns; written as float us

GEMM = ("sm90_xmma_gemm_f32f32_tf32f32_f32_tn_n_tilesize128x128x32_"
        "warpgroupsize1x1x1_execute_segment_k_off_kernel__5x_cublas")
GEMM_NN = ("sm90_xmma_gemm_f32f32_tf32f32_f32_nn_n_tilesize128x256x32_"
           "warpgroupsize2x1x1_execute_segment_k_off_kernel__5x_cublas")
GEMM_NT = ("sm90_xmma_gemm_f32f32_tf32f32_f32_nt_n_tilesize128x128x32_"
           "warpgroupsize1x1x1_execute_segment_k_off_kernel__5x_cublas")
RELU = ("void at::native::vectorized_elementwise_kernel<4, "
        "at::native::(anonymous namespace)::launch_clamp_scalar("
        "at::TensorIteratorBase&, c10::Scalar, c10::Scalar, "
        "at::native::detail::ClampLimits)::{lambda()#1}::operator()() const"
        "::{lambda()#7}::operator()() const::{lambda(float)#1}, "
        "std::array<char*, 2ul> >(int, at::native::(anonymous namespace)::"
        "launch_clamp_scalar(at::TensorIteratorBase&, c10::Scalar, "
        "c10::Scalar, at::native::detail::ClampLimits)::{lambda()#1}::"
        "operator()() const::{lambda()#7}::operator()() const::"
        "{lambda(float)#1}, std::array<char*, 2ul>)")
RELU_BW = ("void at::native::vectorized_elementwise_kernel<4, "
           "at::native::(anonymous namespace)::threshold_kernel_impl<float>("
           "at::TensorIteratorBase&, float, float)::{lambda(float, float)#1},"
           " std::array<char*, 3ul> >(int, at::native::(anonymous namespace)"
           "::threshold_kernel_impl<float>(at::TensorIteratorBase&, float, "
           "float)::{lambda(float, float)#1}, std::array<char*, 3ul>)")
MSE = ("void at::native::reduce_kernel<512, 1, at::native::ReduceOp<float, "
       "at::native::MeanOps<float, float, float, float>, unsigned int, "
       "float, 4> >(at::native::ReduceOp<float, at::native::MeanOps<float, "
       "float, float, float>, unsigned int, float, 4>)")
SGD = ("void at::native::(anonymous namespace)::multi_tensor_apply_kernel<"
       "at::native::(anonymous namespace)::TensorListMetadata<2>, "
       "at::native::(anonymous namespace)::BinaryOpListAlphaFunctor<float, "
       "2, 2, 0>, std::plus<float>, float>(at::native::(anonymous namespace)"
       "::TensorListMetadata<2>, at::native::(anonymous namespace)::"
       "BinaryOpListAlphaFunctor<float, 2, 2, 0>, std::plus<float>, float)")

seed = 12345


def jitter(n):
    """A deterministic number in [0, n)."""
    global seed
    seed = (seed * 1103515245 + 12345) % 2147483648
    return seed % n if n > 0 else 0


def us(ns):
    """ns as Kineto's float us with three decimals."""
    return float("%d.%03d" % divmod(T0 + ns, 1000))


ev, flows = [], []
corr, ext = 1, 1
opext = []            # the External ids of the cpu_ops open now
gpu_free = 0          # the stream's next free time (ns, from T0)


def x(cat, name, tid, ts, dur, args=None, pid=PID):
    e = {"ph": "X", "cat": cat, "name": name, "pid": pid, "tid": tid,
         "ts": us(ts), "dur": dur / 1000.0}
    if args is not None:
        e["args"] = args
    ev.append(e)


def launch(tid, t, api, cat, name, dur, args, host=4500):
    """A runtime call at t on thread tid and the device work it queues:
    returns the call's end."""
    global corr, gpu_free
    h = host + jitter(1500)
    e = opext[-1]       # the op that launches it
    x("cuda_runtime", api, tid, t, h,
      {"External id": e, "cbid": 211, "correlation": corr})
    start = max(gpu_free, t + h - 1000 + jitter(800))
    a = {"External id": e, "device": 0, "context": 1, "stream": 7,
         "correlation": corr}
    a.update(args)
    d = dur + jitter(dur // 20 + 1)
    x(cat, name, 7, start, d, a, pid=0)
    flows.append({"ph": "s", "id": corr, "pid": PID, "tid": tid,
                  "ts": us(t), "cat": "ac2g", "name": "ac2g"})
    flows.append({"ph": "f", "id": corr, "pid": 0, "tid": 7,
                  "ts": us(start), "cat": "ac2g", "name": "ac2g", "bp": "e"})
    gpu_free = start + d + 1500
    corr += 1
    return t + h


def kern(grid, block, regs, smem):
    return {"registers per thread": regs, "shared memory": smem,
            "grid": grid, "block": block}


def op(tid, t, stack, work):
    """cpu_ops nested as STACK (outermost first) around WORK(t) -> end."""
    global ext
    open_ = []
    for name in stack:
        open_.append((name, t, ext))
        opext.append(ext)
        ext += 1
        t += 2000 + jitter(2000)
    t = work(t)
    for name, ts, e in reversed(open_):
        opext.pop()
        t += 1000 + jitter(1000)
        x("cpu_op", name, tid, ts, t - ts, {"External id": e})
    return t


def pyfn(tid, t, name, body):
    t1 = body(t + 3000)
    end = t1 + 2000
    x("python_function", name, tid, t, end - t)
    return end


def step(k, t):
    """Profiler step k from t: returns its end."""
    global ext, corr
    first = k == 0
    s0 = t

    def fwd(t):
        # the input batch to the device
        t = op(MAIN, t, ["aten::to", "aten::_to_copy", "aten::copy_"],
               lambda t: launch(MAIN, t, "cudaMemcpyAsync", "gpu_memcpy",
                                "Memcpy HtoD (Pinned -> Device)", 84000,
                                {"bytes": 4194304}, host=9000))

        def layers(t):
            def fc1(t):
                def mm(t):
                    if first:   # lazy loading: the first launch is slow
                        x("cuda_driver", "cuModuleLoadData", MAIN, t + 800,
                          1450000)
                        t += 1452000
                    return launch(MAIN, t, "cudaLaunchKernel", "kernel",
                                  GEMM, 182000,
                                  kern([32, 64, 1], [384, 1, 1], 168, 213248))
                return op(MAIN, t, ["aten::linear", "aten::addmm"], mm)
            t = pyfn(MAIN, t, "nn.Module: Linear_0", fc1)
            t = pyfn(MAIN, t, "nn.Module: ReLU_0", lambda t: op(
                MAIN, t, ["aten::relu", "aten::clamp_min"],
                lambda t: launch(MAIN, t, "cudaLaunchKernel", "kernel", RELU,
                                 41000, kern([32768, 1, 1], [128, 1, 1],
                                             18, 0))))
            t = pyfn(MAIN, t, "nn.Module: Linear_1", lambda t: op(
                MAIN, t, ["aten::linear", "aten::addmm"],
                lambda t: launch(MAIN, t, "cudaLaunchKernel", "kernel", GEMM,
                                 176000, kern([8, 64, 1], [384, 1, 1],
                                              168, 213248))))
            return t
        t = pyfn(MAIN, t, "nn.Module: MLP_0", layers)
        return op(MAIN, t, ["aten::mse_loss", "aten::mean"],
                  lambda t: launch(MAIN, t, "cudaLaunchKernel", "kernel", MSE,
                                   21000, kern([1024, 1, 1], [512, 1, 1],
                                               32, 16)))

    t = pyfn(MAIN, t, "train.py(31): forward_loss", fwd)
    # zero_grad: the gradients set to 0
    t = op(MAIN, t, ["aten::zero_"], lambda t: launch(
        MAIN, t, "cudaMemsetAsync", "gpu_memset", "Memset (Device)", 17000,
        {"bytes": 33570816}, host=3500))
    # backward, on the autograd thread; the main thread waits
    b0 = t + 20000
    x("cpu_op", "autograd::engine::evaluate_function: MseLossBackward0",
      AUTOGRAD, b0, 9000, {"External id": ext})
    ext += 1
    b = b0 + 12000
    for fn, works in (
            ("AddmmBackward0", [("aten::mm", GEMM_NN, 171000, [8, 16, 1]),
                                ("aten::mm", GEMM_NT, 168000, [32, 8, 1])]),
            ("ReluBackward0", [("aten::threshold_backward", RELU_BW, 58000,
                                [32768, 1, 1])]),
            ("AddmmBackward0", [("aten::mm", GEMM_NT, 169000, [32, 8, 1])])):
        def body(t, works=works):
            for name, k_, d, g in works:
                t = op(AUTOGRAD, t, [name], lambda t, k_=k_, d=d, g=g: launch(
                    AUTOGRAD, t, "cudaLaunchKernel", "kernel", k_, d,
                    kern(g, [256, 1, 1], 154, 147456)))
            return t
        b = op(AUTOGRAD, b, ["autograd::engine::evaluate_function: " + fn,
                             fn], body)
    x("user_annotation", "## backward ##", MAIN, t, b - t + 5000,
      {"External id": ext})
    ext += 1
    t = b + 8000
    # the optimizer
    o0 = t
    t = op(MAIN, t + 3000, ["aten::_foreach_add_"], lambda t: launch(
        MAIN, t, "cudaLaunchKernel", "kernel", SGD, 33000,
        kern([40, 1, 1], [512, 1, 1], 38, 0)))
    x("user_annotation", "Optimizer.step#SGD.step", MAIN, o0, t - o0 + 2000,
      {"External id": ext})
    ext += 1
    t += 4000
    # loss.item(): the loss back to the host, which waits for it
    t = op(MAIN, t, ["aten::item", "aten::_local_scalar_dense"],
           lambda t: launch(MAIN, t, "cudaMemcpyAsync", "gpu_memcpy",
                            "Memcpy DtoH (Device -> Pageable)", 1500,
                            {"bytes": 4}, host=6000))
    w = max(t, gpu_free) - t + 2000
    x("cuda_runtime", "cudaStreamSynchronize", MAIN, t, w,
      {"cbid": 131, "correlation": corr})
    corr += 1
    t += w + 15000 + jitter(10000)
    x("user_annotation", "ProfilerStep#%d" % k, MAIN, s0, t - s0,
      {"External id": ext})
    return t


def main():
    global ext
    meta = [{"name": "process_name", "ph": "M", "ts": us(0), "pid": PID,
             "tid": 0, "args": {"name": "python3"}},
            {"name": "process_name", "ph": "M", "ts": us(0), "pid": 0,
             "tid": 0, "args": {"name": "python3"}},
            {"name": "process_labels", "ph": "M", "ts": us(0), "pid": 0,
             "tid": 0, "args": {"labels": "GPU 0"}},
            {"name": "thread_name", "ph": "M", "ts": us(0), "pid": 0,
             "tid": 7, "args": {"name": "stream 7"}},
            {"name": "thread_name", "ph": "M", "ts": us(0), "pid": PID,
             "tid": MAIN, "args": {"name": "thread 4242 (python3)"}},
            {"name": "thread_name", "ph": "M", "ts": us(0), "pid": PID,
             "tid": AUTOGRAD, "args": {"name": "thread 4251 (python3)"}}]
    t = 250000
    for k in range(4):
        t = step(k, t) + 4000
    ev.sort(key=lambda e: e["ts"])
    doc = {"schemaVersion": 1,
           "deviceProperties": [{
               "id": 0, "name": "NVIDIA H100 80GB HBM3",
               "totalGlobalMem": 85018279936, "computeMajor": 9,
               "computeMinor": 0, "maxThreadsPerBlock": 1024,
               "maxThreadsPerMultiprocessor": 2048, "regsPerBlock": 65536,
               "warpSize": 32, "sharedMemPerBlock": 49152, "numSms": 132,
               "regsPerMultiprocessor": 65536,
               "sharedMemPerBlockOptin": 232448,
               "sharedMemPerMultiprocessor": 233472}],
           "cupti_version": 22, "cuda_runtime_version": 12040,
           "with_stack": 1, "with_modules": 1, "record_shapes": 0,
           "displayTimeUnit": "ms",
           "traceEvents": meta + ev + flows}
    # one event a line, as Kineto writes them
    out = sys.stdout
    out.write("{\n")
    for k, v in doc.items():
        if k == "traceEvents":
            out.write('  "traceEvents": [\n')
            out.write(",\n".join("  " + json.dumps(e) for e in v))
            out.write("\n  ],\n")
        else:
            out.write("  %s: %s,\n" % (json.dumps(k), json.dumps(v)))
    out.write('  "traceName": "pytorch-small.pt.trace.json"\n}\n')


if __name__ == "__main__":
    main()
