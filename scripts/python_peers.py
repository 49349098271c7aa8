"""python_peers.py: xpose's production GPU transpose against PyTorch (`x.t().contiguous()`) and CuPy
(`cupy.ascontiguousarray(x.T)`), all as % of a device-to-device copy of the same bytes timed in the same run.

Timed the way `xpose bench` times its GPU rows (cli/gpu_bench.c): every round runs each job once, in a shuffled
order, each after a read of a buffer twice the L2 and between two CUDA events on one stream; a job's time is the mean
of the middle half of its rounds. Every job's output is checked, bit for bit, against PyTorch's `x.t()` read
element by element (xpose's into a poisoned destination) before any timing; a mismatch ends the run with status 1.
Needs PyTorch with a CUDA device; CuPy is optional (its column says n/a where it is missing).

Usage: python3 scripts/python_peers.py [--lib build/libxpose.so] [--reps 30] [--cases all|quick] [--csv FILE]
"""
import argparse
import gc
import os
import random
import sys
import warnings

# The package from this source tree (its libxpose.so: --lib, $XPOSE_LIB, else build/libxpose.so) unless pip installed
# it; imported in main(), once --lib is known.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
xpose = None
try:
    import torch
except ImportError:
    torch = None
try:
    import cupy
except ImportError:
    cupy = None

# The shapes of the H200 results table (docs/results.md): (rows, cols, element bytes, batch, ld_src).
BIG = [(r, c, es, 1, 0) for r, c in ((16384, 16384), (32768, 8192)) for es in (1, 2, 4, 8, 16)]
AWKWARD = [(8191, 8193, 4, 1, 0), (8191, 8193, 1, 1, 0), (4000, 4000, 4, 1, 0), (1024, 1024, 4, 64, 0),
           (16384, 16384, 4, 1, 16400), (16384, 16384, 1, 1, 16400), (2048, 2048, 8, 1, 0)]
QUICK = [(4096, 4096, es, 1, 0) for es in (1, 4, 16)] + [(1000, 1003, 2, 3, 1011)]


def dtype_of(es):
    return {1: torch.uint8, 2: torch.int16, 4: torch.float32, 8: torch.float64, 16: torch.complex128}[es]


def bits(t):
    """A view of t as integers of its element size, so that equality is bit for bit (16 bytes: two int64)."""
    return t.view({1: torch.uint8, 2: torch.int16, 4: torch.int32, 8: torch.int64, 16: torch.int64}[t.element_size()])


def random_tensor(shape, es, gen):
    dt = dtype_of(es)
    if dt.is_floating_point or dt.is_complex:
        return torch.randn(shape, dtype=dt, device="cuda", generator=gen)
    return torch.randint(-128 if es == 2 else 0, 128, shape, dtype=dt, device="cuda", generator=gen)


def cupy_stream_of(stream):
    """CuPy's handle on a PyTorch stream: Stream.from_external (CuPy 14 on, through the __cuda_stream__ protocol)
    where both sides have it, else ExternalStream (deprecated in CuPy 14, the only way before)."""
    try:
        return cupy.cuda.Stream.from_external(stream)
    except Exception:  # no from_external, or a PyTorch stream without the protocol
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)
            return cupy.cuda.ExternalStream(stream.cuda_stream)


class Case:
    """Buffers and jobs for one shape: src (batch x rows x ld_src, of which rows x cols are read), dst dense."""

    def __init__(self, rows, cols, es, batch, ld, stream, gen):
        self.rows, self.cols, self.es, self.batch = rows, cols, es, batch
        self.ld = ld or cols
        base = random_tensor((batch, rows, self.ld), es, gen)
        self.x = base[:, :, :cols] if batch > 1 else base[0, :, :cols]  # the (sub-)matrix, as PyTorch sees it
        self.out = torch.empty((batch, cols, rows) if batch > 1 else (cols, rows), dtype=self.x.dtype, device="cuda")
        nbytes = rows * cols * es * batch
        self.copy_src = torch.empty(nbytes, dtype=torch.uint8, device="cuda")
        self.copy_dst = torch.empty_like(self.copy_src)
        self.stream = stream
        self.jobs = {"memcpy": self.copy, "xpose fast": self.xpose, "torch": self.torch_t}
        if cupy is not None:
            self.xc = cupy.from_dlpack(self.x)
            self.cupy_stream = cupy_stream_of(stream)
            self.jobs["cupy"] = self.cupy_t
        self.keep = {}  # each allocating job's last result, freed when the next replaces it

    def copy(self):
        self.copy_dst.copy_(self.copy_src)

    def xpose(self):
        xpose.matrix_transpose(self.x, out=self.out, stream=self.stream)

    def torch_t(self):
        self.keep["torch"] = self.x.transpose(-2, -1).contiguous()

    def cupy_t(self):
        with self.cupy_stream:
            self.keep["cupy"] = cupy.ascontiguousarray(self.xc.swapaxes(-2, -1))

    def verify(self):
        """Each job's output against x.t() bit for bit; xpose's written into a poisoned buffer."""
        want = bits(self.x.transpose(-2, -1).contiguous())
        bits(self.out).view(torch.uint8).fill_(0xA5)
        self.xpose()
        self.torch_t()
        if cupy is not None:
            self.cupy_t()
        self.stream.synchronize()
        bad = [name for name, got in (("xpose fast", self.out), ("torch", self.keep["torch"]),
                                      ("cupy", torch.from_dlpack(self.keep["cupy"]) if cupy is not None else None))
               if got is not None and not torch.equal(bits(got), want)]
        self.copy()
        self.stream.synchronize()
        if not torch.equal(self.copy_dst, self.copy_src):
            bad.append("memcpy")
        return bad


def time_jobs(jobs, stream, reps, flush, rng):
    """Each job's times in ms over `reps` shuffled rounds, each launch after an L2 flush (a read of `flush`). All
    rounds are queued before one wait on `stream`, so that the host stays ahead of the GPU and no event times a
    launch's host overhead."""
    names = list(jobs)
    for name in names:  # warm-ups (CuPy compiles its kernel on the first call)
        for _ in range(2):
            jobs[name]()
    events = []
    for _ in range(reps):
        order = names[:]
        rng.shuffle(order)
        for name in order:
            flush.sum()
            a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            a.record()
            jobs[name]()
            b.record()
            events.append((name, a, b))
    stream.synchronize()
    times = {n: [] for n in names}
    for name, a, b in events:
        times[name].append(a.elapsed_time(b))
    return times


def middle_half_mean(t):
    t = sorted(t)
    mid = t[len(t) // 4: len(t) - len(t) // 4]
    return sum(mid) / len(mid)


def time_case(case, reps, flush, rng):
    """Middle-half mean ms of each job of a case (time_jobs)."""
    return {n: middle_half_mean(t) for n, t in time_jobs(case.jobs, case.stream, reps, flush, rng).items()}


def peer_args(doc, reps):
    """The options every peer script takes: the library, repetitions, the case list and a CSV file."""
    ap = argparse.ArgumentParser(description=doc.split("\n\n")[0])
    ap.add_argument("--lib", help="path of libxpose.so (default: $XPOSE_LIB, else build/libxpose.so)")
    ap.add_argument("--reps", type=int, default=reps)
    ap.add_argument("--cases", choices=("all", "quick"), default="all")
    ap.add_argument("--csv", help="also write the rows as CSV to this file")
    return ap


def timing_setup():
    """The device's properties, a buffer twice the L2 whose read flushes it, one stream, a seeded generator for the
    data and the rounds' shuffle."""
    prop = torch.cuda.get_device_properties(0)
    l2 = getattr(prop, "L2_cache_size", 64 << 20) or (64 << 20)
    flush = torch.ones(2 * l2 // 4, dtype=torch.int32, device="cuda")
    torch.cuda.synchronize()
    stream, gen, rng = torch.cuda.Stream(), torch.Generator(device="cuda"), random.Random(2463534242)
    gen.manual_seed(1)
    return prop, flush, stream, gen, rng


def release_memory():
    """Frees what the last case held: its jobs are its bound methods, a cycle that only the collector frees, and both
    frameworks keep freed blocks in their pools."""
    gc.collect()
    torch.cuda.empty_cache()
    if cupy is not None:
        cupy.get_default_memory_pool().free_all_blocks()


def write_csv(path, header, rows):
    """The rows as CSV, one header line; cells that hold a comma quoted."""
    with open(path, "w") as f:
        f.write(",".join(header) + "\n")
        for r in rows:
            f.write(",".join(f'"{c}"' if "," in str(c) else str(c) for c in r) + "\n")


def main():
    ap = peer_args(__doc__, 30)
    args = ap.parse_args()
    if args.reps < 4:
        ap.error("--reps must be at least 4 (the mean of the middle half needs some)")
    if torch is None or not torch.cuda.is_available():
        print("python_peers: PyTorch with a CUDA device is needed; nothing was timed", file=sys.stderr)
        return 2
    global xpose
    if args.lib:
        os.environ["XPOSE_LIB"] = args.lib
    import xpose
    if not xpose.cuda_available():
        print(f"python_peers: {xpose._lib.path} cannot run on the GPU (no CUDA build, or no device)", file=sys.stderr)
        return 2
    prop, flush, stream, gen, rng = timing_setup()
    print(f"# {prop.name}, {prop.multi_processor_count} SMs; torch {torch.__version__}, "
          f"cupy {cupy.__version__ if cupy is not None else 'absent'}, xpose {xpose.__version__}; reps {args.reps}")
    cases = QUICK if args.cases == "quick" else BIG + AWKWARD
    header = ["rows", "cols", "elem", "batch", "ld_src", "memcpy_TBps", "xpose_pct", "torch_pct", "cupy_pct"]
    rows_out, failed = [], False
    print(f"{'shape':>22} {'elem':>4}  {'memcpy TB/s':>11}  {'xpose fast':>10}  {'torch':>6}  {'cupy':>6}"
          "   (% of memcpy)")
    for rows, cols, es, batch, ld in cases:
        with torch.cuda.stream(stream):  # everything on one stream: PyTorch's own streams do not wait for others
            case = Case(rows, cols, es, batch, ld, stream, gen)
            bad = case.verify()
            t = None if bad else time_case(case, args.reps, flush, rng)
        shape = f"{batch}x" * (batch > 1) + f"{rows}x{cols}" + (f" ld {ld}" if ld else "")
        if bad:
            print(f"{shape:>22} {es:>4}  WRONG RESULT from: {', '.join(bad)}")
            failed = True
            continue
        pct = {n: 100.0 * t["memcpy"] / t[n] for n in t}
        tbps = 2 * rows * cols * es * batch / (t["memcpy"] * 1e-3) / 1e12
        cu = f"{pct['cupy']:6.1f}" if "cupy" in pct else "   n/a"
        print(f"{shape:>22} {es:>4}  {tbps:11.2f}  {pct['xpose fast']:10.1f}  {pct['torch']:6.1f}  {cu}")
        rows_out.append([rows, cols, es, batch, ld, f"{tbps:.3f}", f"{pct['xpose fast']:.1f}", f"{pct['torch']:.1f}",
                         f"{pct['cupy']:.1f}" if "cupy" in pct else ""])
        del case
        release_memory()
    if args.csv:
        write_csv(args.csv, header, rows_out)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
