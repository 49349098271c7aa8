"""permute_peers.py: the N-d permutation suite (issue 36, `xpose bench --preset permute`) in PyTorch
(`x.permute(p).contiguous()`), CuPy (`cupy.ascontiguousarray(x.transpose(p))`) and, where the library has it, xpose's
`xpose_permute_execute_cuda`, each as % of a device-to-device copy of the same bytes timed in the same run.

Timed as scripts/python_peers.py times its jobs (time_jobs): every round runs each job once, in a shuffled order, each
after a read of a buffer twice the L2 and between two CUDA events on one stream; a job's figure is the median of its
rounds (default 20). Before any timing every job's output is compared bit for bit with PyTorch's permuted view; a
mismatch ends the run with status 1. Needs PyTorch with a CUDA device; a peer that is not installed (CuPy, or a
libxpose without the permutation API) shows n/a.

Usage: python3 scripts/permute_peers.py [--lib build/libxpose.so] [--reps 20] [--cases all|quick] [--csv FILE]
       [--md FILE]
"""
import ctypes
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import python_peers as pp  # noqa: E402

torch, cupy = pp.torch, pp.cupy

# The suite: name, shape, perm, element type.
SUITE = [
    ("NCHW->NHWC", (64, 256, 56, 56), (0, 2, 3, 1), "float"),
    ("NCHW->NHWC", (64, 256, 56, 56), (0, 2, 3, 1), "bf16"),
    ("NCHW->NHWC", (64, 256, 56, 56), (0, 2, 3, 1), "u8"),
    ("NHWC->NCHW", (64, 56, 56, 256), (0, 3, 1, 2), "float"),
    ("attention", (16, 4096, 32, 128), (0, 2, 1, 3), "bf16"),
    ("packed QKV", (8, 2048, 3, 32, 128), (2, 0, 3, 1, 4), "bf16"),
    ("512^3", (512, 512, 512), (2, 1, 0), "float"),
    ("512^3", (512, 512, 512), (1, 2, 0), "float"),
    ("(1024,1024,64)", (1024, 1024, 64), (1, 0, 2), "float"),
    ("128^4 reversed", (128, 128, 128, 128), (3, 2, 1, 0), "float"),
    ("(32,32,32,32,64)", (32, 32, 32, 32, 64), (4, 1, 3, 0, 2), "float"),
    ("16^6 reversed", (16,) * 6, (5, 4, 3, 2, 1, 0), "double"),
    ("(96,75,96,75)", (96, 75, 96, 75), (2, 1, 3, 0), "double"),
    ("(48,28,48,28,28)", (48, 28, 48, 28, 28), (2, 0, 4, 1, 3), "float"),
    ("HWC->CHW", (8192, 8192, 3), (2, 0, 1), "u8"),
    ("(2^26,2)", (1 << 26, 2), (1, 0), "float"),
    ("(64,128,256,64)", (64, 128, 256, 64), (0, 2, 1, 3), "float"),
]
QUICK = [SUITE[0], SUITE[4], SUITE[9], SUITE[14]]

TYPES = {"u8": ("uint8", 1), "bf16": ("bfloat16", 2), "float": ("float32", 4), "double": ("float64", 8)}
BITS = {1: "uint8", 2: "int16", 4: "int32", 8: "int64"}


def xpose_permute_api(path):
    """libxpose's permutation calls through ctypes, or None where the library has none (an older build)."""
    lib = ctypes.CDLL(path)
    try:
        create, run = lib.xpose_permute_plan_create, lib.xpose_permute_execute_cuda
        describe, destroy = lib.xpose_permute_plan_describe, lib.xpose_permute_plan_destroy
    except AttributeError:
        return None
    vp = ctypes.c_void_p
    create.restype, run.restype, describe.restype, destroy.restype = ctypes.c_int, ctypes.c_int, ctypes.c_int, None
    create.argtypes = [ctypes.POINTER(vp), ctypes.c_int, ctypes.c_size_t, ctypes.c_int, ctypes.POINTER(ctypes.c_size_t),
                       ctypes.POINTER(ctypes.c_int), vp, vp]
    run.argtypes = [vp, vp, vp, vp]
    describe.argtypes = [vp, ctypes.c_int, ctypes.c_char_p, ctypes.c_size_t]
    destroy.argtypes = [vp]
    return create, run, describe, destroy


class Case:
    """One suite case: x (dense), the jobs, and the bytes a copy of x moves."""

    def __init__(self, shape, perm, tname, stream, gen, api):
        self.shape, self.perm, self.stream = shape, perm, stream
        dt, self.es = getattr(torch, TYPES[tname][0]), TYPES[tname][1]
        if dt.is_floating_point:
            self.x = torch.randn(shape, dtype=dt, device="cuda", generator=gen)
        else:
            self.x = torch.randint(0, 256, shape, dtype=dt, device="cuda", generator=gen)
        self.bits = self.x.view(getattr(torch, BITS[self.es]))  # CuPy has no bfloat16: it moves the same bits
        self.copy_dst = torch.empty_like(self.x)
        self.jobs = {"memcpy": self.copy, "torch": self.torch_p}
        self.keep, self.plan, self.plan_text = {}, None, ""
        if cupy is not None:
            self.xc = cupy.from_dlpack(self.bits)
            self.cupy_stream = pp.cupy_stream_of(stream)
            self.jobs["cupy"] = self.cupy_p
        if api is not None:
            self.api = api
            create, _, describe, _ = api
            plan = ctypes.c_void_p()
            ext = (ctypes.c_size_t * len(shape))(*shape)
            prm = (ctypes.c_int * len(perm))(*perm)
            st = create(ctypes.byref(plan), 2, self.es, len(shape), ext, prm, None, None)  # 2: XPOSE_BACKEND_CUDA
            if st == 0:
                self.plan = plan
                buf = ctypes.create_string_buffer(256)
                describe(plan, 2, buf, len(buf))
                self.plan_text = buf.value.decode()
                self.out = torch.empty([shape[p] for p in perm], dtype=dt, device="cuda")
                self.jobs["xpose"] = self.xpose_p

    def copy(self):
        self.copy_dst.copy_(self.x)

    def torch_p(self):
        self.keep["torch"] = self.x.permute(self.perm).contiguous()

    def cupy_p(self):
        with self.cupy_stream:
            self.keep["cupy"] = cupy.ascontiguousarray(self.xc.transpose(self.perm))

    def xpose_p(self):
        self.api[1](self.plan, self.x.data_ptr(), self.out.data_ptr(), self.stream.cuda_stream)

    def verify(self):
        """Each job's output against the permuted view, bit for bit; xpose's written into a poisoned buffer."""
        want = self.bits.permute(self.perm).contiguous()
        if self.plan is not None:
            self.out.view(torch.uint8).fill_(0xA7)
        for name, job in self.jobs.items():
            job()
        self.stream.synchronize()
        got = {"torch": self.keep["torch"].view(want.dtype)}
        if cupy is not None:
            got["cupy"] = torch.from_dlpack(self.keep["cupy"])
        if self.plan is not None:
            got["xpose"] = self.out.view(want.dtype)
        bad = [n for n, g in got.items() if not torch.equal(g, want)]
        if not torch.equal(self.copy_dst, self.x):
            bad.append("memcpy")
        return bad

    def close(self):
        if self.plan is not None:
            self.api[3](self.plan)
            self.plan = None


def main():
    ap = pp.peer_args(__doc__, 20)
    ap.add_argument("--md", help="also write the table as markdown to this file")
    args = ap.parse_args()
    if args.reps < 3:
        ap.error("--reps must be at least 3")
    if torch is None or not torch.cuda.is_available():
        print("permute_peers: PyTorch with a CUDA device is needed; nothing was timed", file=sys.stderr)
        return 2
    api = None
    here = os.path.dirname(os.path.abspath(__file__))
    path = args.lib or os.environ.get("XPOSE_LIB") or os.path.join(here, "..", "build", "libxpose.so")
    try:
        api = xpose_permute_api(path) if ctypes.CDLL(path).xpose_cuda_status() == 0 else None
    except OSError as e:
        print(f"permute_peers: no libxpose ({e}); xpose shows n/a", file=sys.stderr)
    prop, flush, stream, gen, rng = pp.timing_setup()
    print(f"# {prop.name}, {prop.multi_processor_count} SMs; torch {torch.__version__}, "
          f"cupy {cupy.__version__ if cupy is not None else 'absent'}, xpose permute "
          f"{'present' if api else 'absent'}; median of {args.reps}")
    peers = ["torch", "cupy", "xpose"]
    header = ["case", "shape", "perm", "type", "memcpy_TBps"] + [f"{p}_pct" for p in peers] + ["xpose_plan"]
    rows, failed = [], False
    print(f"{'case':>18} {'type':>6} {'memcpy TB/s':>11} {'torch':>7} {'cupy':>7} {'xpose':>7}   (% of memcpy)")
    for name, shape, perm, tname in (QUICK if args.cases == "quick" else SUITE):
        with torch.cuda.stream(stream):  # everything on one stream: PyTorch's own streams do not wait for others
            case = Case(shape, perm, tname, stream, gen, api)
            bad = case.verify()
            t = None if bad else pp.time_jobs(case.jobs, stream, args.reps, flush, rng)
        case.close()
        if bad:
            print(f"{name:>18} {tname:>6}  WRONG RESULT from: {', '.join(bad)}")
            failed = True
        else:
            med = {n: statistics.median(v) for n, v in t.items()}
            pct = {n: 100.0 * med["memcpy"] / med[n] for n in med}
            tbps = 2 * case.x.numel() * case.es / (med["memcpy"] * 1e-3) / 1e12
            cells = [f"{pct[p]:.1f}" if p in pct else "n/a" for p in peers]
            print(f"{name:>18} {tname:>6} {tbps:11.2f} " + " ".join(f"{c:>7}" for c in cells) +
                  (f"   {case.plan_text}" if case.plan_text else ""))
            rows.append([name, "x".join(map(str, shape)), ",".join(map(str, perm)), tname, f"{tbps:.3f}"] + cells +
                        [case.plan_text])
        del case, t
        pp.release_memory()
    if args.csv:
        pp.write_csv(args.csv, header, rows)
    if args.md:
        with open(args.md, "w") as f:
            f.write(f"{prop.name}; % of a device-to-device copy of the same bytes, same run, median of {args.reps}\n\n")
            f.write("| case | shape | perm | type | memcpy TB/s | PyTorch | CuPy | xpose | xpose plan |\n")
            f.write("|---|---|---|---|--:|--:|--:|--:|---|\n")
            for r in rows:
                f.write("| " + " | ".join(r[:5] + [c + " %" if c != "n/a" else c for c in r[5:8]] + [r[8]]) + " |\n")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
