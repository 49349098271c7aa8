"""python_bench.py: the Python package's speed figures (issue 37): the host cost of one xpose.transpose call on a
16x16 float32 array (with the C call alone beside it), NumPy 8192^2 float32 against np.ascontiguousarray(a.T) (xpose's
result cache on, then off, each run interleaved with NumPy's), and, where PyTorch sees a GPU, PyTorch 16384^2 float32
and uint8 CUDA tensors against x.t().contiguous(). Every result is checked against the peer's before it is timed; the
figures are medians of the runs, each side in the same process and the same sitting. A report, not a test: no figure
is asserted.

Usage: python3 scripts/python_bench.py [--size 8192] [--gpu-size 16384] [--reps 10] [--no-gpu]
"""
import argparse
import statistics
import sys
import time

import numpy as np

import xpose


def median_us(fn, reps, inner=1):
    """Median over `reps` runs of the mean of `inner` back-to-back calls, in microseconds."""
    times = []
    for _ in range(reps):
        t0 = time.perf_counter()
        for _ in range(inner):
            fn()
        times.append((time.perf_counter() - t0) / inner * 1e6)
    return statistics.median(times)


def overhead(reps):
    a = np.random.default_rng(1).standard_normal((16, 16)).astype(np.float32)
    out = np.empty_like(a)
    assert (xpose.transpose(a) == a.T).all()
    xpose.transpose(a, out=out)
    plan = xpose._np_plans[(4, a.shape, None, a.strides, None)]
    src, dst = a.__array_interface__["data"][0], out.__array_interface__["data"][0]
    run = xpose._execute
    c_call = median_us(lambda: run(plan.handle, src, dst), reps, 20000)
    call = median_us(lambda: xpose.transpose(a), reps, 20000)
    call_out = median_us(lambda: xpose.transpose(a, out=out), reps, 20000)
    peer = median_us(lambda: np.ascontiguousarray(a.T), reps, 20000)
    print("16x16 float32 on the CPU, us per call (median of means):")
    print(f"  xpose.transpose(a)           {call:7.2f}   of which the C call through ctypes {c_call:.2f}: "
          f"Python overhead {call - c_call:.2f}")
    print(f"  xpose.transpose(a, out=o)    {call_out:7.2f}   Python overhead {call_out - c_call:.2f}")
    print(f"  np.ascontiguousarray(a.T)    {peer:7.2f}")


def alternating_ms(fns, reps):
    """Medians in ms of each of fns, timed in turn within each round (A/B/C, A/B/C, ...) so that a neighbour's load
    falls on all of them alike. Each call's result is kept until the next call of that function replaces it, as in
    `b = f(a)` in a loop: the old result is freed after the new one is made."""
    times, keep = [[] for _ in fns], [None] * len(fns)
    for _ in range(reps):
        for i, fn in enumerate(fns):
            t0 = time.perf_counter()
            keep[i] = fn()
            times[i].append((time.perf_counter() - t0) * 1e3)
    return [statistics.median(t) for t in times]


def numpy_big(n, reps):
    a = np.random.default_rng(2).standard_normal((n, n)).astype(np.float32)
    out = np.empty_like(a)
    want = np.ascontiguousarray(a.T)
    assert np.array_equal(xpose.transpose(a), want)
    xpose.transpose(a, out=out)
    assert np.array_equal(out, want)
    # Cache on and off in runs of their own (turning it off releases what it holds), each interleaved with the peer
    limit = xpose.result_cache_info()["limit"]
    ours, peer = alternating_ms([lambda: xpose.transpose(a), lambda: np.ascontiguousarray(a.T)], reps)
    xpose.set_result_cache(0)
    # np.empty_like(a).fill(0): fresh memory's first touch alone, which every uncached allocating call pays
    ours_off, peer_off, fill = alternating_ms(
        [lambda: xpose.transpose(a), lambda: np.ascontiguousarray(a.T), lambda: np.empty_like(a).fill(0)], reps)
    xpose.set_result_cache(limit)
    ours_out, peer_out = alternating_ms([lambda: xpose.transpose(a, out=out), lambda: np.copyto(out, a.T)], reps)
    gb = 2 * a.nbytes / 1e9
    print(f"NumPy {n}x{n} float32 on the CPU ({xpose.get_threads()} threads), ms (median of {reps}, interleaved; "
          f"result cache limit {limit >> 20} MiB):")
    print(f"  xpose.transpose(a)           {ours:8.2f}  {gb / (ours / 1e3):6.1f} GB/s   "
          f"np.ascontiguousarray(a.T) {peer:8.2f}  {gb / (peer / 1e3):6.1f} GB/s   speedup {peer / ours:5.1f}x")
    print(f"  ... result cache off         {ours_off:8.2f}  {gb / (ours_off / 1e3):6.1f} GB/s   "
          f"np.ascontiguousarray(a.T) {peer_off:8.2f}  {gb / (peer_off / 1e3):6.1f} GB/s   "
          f"speedup {peer_off / ours_off:5.1f}x")
    print(f"  xpose.transpose(a, out=o)    {ours_out:8.2f}  {gb / (ours_out / 1e3):6.1f} GB/s   "
          f"np.copyto(o, a.T)         {peer_out:8.2f}  {gb / (peer_out / 1e3):6.1f} GB/s   "
          f"speedup {peer_out / ours_out:5.1f}x")
    print(f"  np.empty_like(a).fill(0)     {fill:8.2f}  (fresh memory's first touch, one thread: page faults and the "
          "kernel's zeroing)")


def torch_gpu(n, reps):
    try:
        import torch
    except ImportError:
        print("PyTorch: not installed; GPU figures skipped")
        return
    if not torch.cuda.is_available() or not xpose.cuda_available():
        print("PyTorch CUDA: no GPU, or libxpose built without CUDA; GPU figures skipped")
        return
    print(f"PyTorch {n}x{n} CUDA tensors on {torch.cuda.get_device_name()}, ms (median of {reps}, CUDA events, "
          "each call after an L2 flush):")
    flush = torch.empty(256 << 20, dtype=torch.uint8, device="cuda")
    for dtype in (torch.float32, torch.uint8):
        x = torch.randint(0, 100, (n, n), device="cuda").to(dtype)
        assert torch.equal(xpose.transpose(x), x.t().contiguous())

        def timed(fn):
            ts = []
            for _ in range(reps):
                flush.zero_()
                a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
                a.record()
                fn()
                b.record()
                b.synchronize()
                ts.append(a.elapsed_time(b))
            return statistics.median(ts)

        ours = timed(lambda: xpose.transpose(x))  # noqa: B023 (timed now, in this iteration)
        peer = timed(lambda: x.t().contiguous())  # noqa: B023
        gb = 2 * x.numel() * x.element_size() / 1e9
        print(f"  {str(dtype)[6:]:8} xpose.transpose(x) {ours:7.3f} ({gb / (ours / 1e3):6.0f} GB/s)   x.t().contiguous() "
              f"{peer:7.3f} ({gb / (peer / 1e3):6.0f} GB/s)   speedup {peer / ours:5.1f}x")
        x = None  # free it before the next dtype's
        torch.cuda.empty_cache()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--size", type=int, default=8192)
    ap.add_argument("--gpu-size", type=int, default=16384)
    ap.add_argument("--reps", type=int, default=10)
    ap.add_argument("--no-gpu", action="store_true")
    args = ap.parse_args()
    print(f"xpose {xpose.__version__} ({xpose._lib.path}), NumPy {np.__version__}, Python {sys.version.split()[0]}")
    overhead(max(args.reps, 5))
    numpy_big(args.size, args.reps)
    if not args.no_gpu:
        torch_gpu(args.gpu_size, max(args.reps, 20))
    return 0


if __name__ == "__main__":
    sys.exit(main())
