#!/usr/bin/env python3
"""results.py: the measured results as data. bench-data/<machine>/ holds each machine kind's latest full run as CSV
plus run.json (date, commit, device, commands, sources); this script writes docs/results.md and README.md's results
block from them, so that no figure in the docs is typed by hand. Python 3 standard library only.

Usage:
  python3 scripts/results.py            write docs/results.md and the README block between the results markers
  python3 scripts/results.py --check    exit 1 if either differs from what it would write, or if a CSV differs from
                                        what `import` makes of its source (where the source can still be read)
  python3 scripts/results.py import [MACHINE ...]
                                        (re)write bench-data/MACHINE/*.csv from the raw outputs run.json names
                                        ("PATH at commit REV": read with `git show REV:PATH`, else from the tree)
"""
import csv
import difflib
import io
import json
import os
import re
import shlex
import subprocess
import sys
import textwrap

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DATA = os.path.join(ROOT, "bench-data")
RESULTS_MD = os.path.join(ROOT, "docs", "results.md")
README = os.path.join(ROOT, "README.md")
BEGIN, END = "<!-- results:begin -->", "<!-- results:end -->"

# The bench's own CSV columns (cli/report.c), plus cmd (the command's number in run.json) and the leading dimensions.
BENCH_COLS = ["cmd", "variant", "params", "backend", "rows", "cols", "elem_size", "batch", "ld_src", "ld_dst",
              "threads", "reps", "ms", "gbps", "pct_memcpy", "speedup", "spread_pct", "verified"]
PY_COLS = ["rows", "cols", "elem_size", "batch", "ld_src", "memcpy_tbps", "xpose_pct", "torch_pct", "cupy_pct"]
ELEM = {1: "1 byte", 2: "2 bytes", 4: "4 bytes", 8: "8 bytes", 16: "16 bytes"}

# ---------------------------------------------------------------------------------------------------------------
# import: raw outputs -> CSV


def read_source(spec):
    """The text of a source named "PATH at commit REV": git's copy at REV first (the notes may have left the tree
    since), else the file in the tree; None where neither can be read."""
    path, _, rev = spec.partition(" at commit ")
    if rev:
        try:
            return subprocess.run(["git", "-C", ROOT, "show", f"{rev}:{path}"], capture_output=True, text=True,
                                  check=True).stdout
        except (OSError, subprocess.CalledProcessError):
            pass
    try:
        with open(os.path.join(ROOT, path)) as f:
            return f.read()
    except OSError:
        return None


def command_options(cmd):
    """--ld-src, --ld-dst and --reps of a bench command line (None where it does not give them)."""
    words, opts = shlex.split(cmd), {}
    for key in ("--ld-src", "--ld-dst", "--reps"):
        if key in words:
            opts[key] = words[words.index(key) + 1]
    return opts


# A row of the bench's text table: variant, params (may be empty), shape ("RxC" or "RxC xB"), elem, threads ("-" on
# a GPU), ms, GB/s, % memcpy, speedup, spread %, verified.
ROW = re.compile(r"^(\S+)\s+(?:(\S+)\s+)??(\d+)x(\d+)(?: x(\d+))?\s+(\d+)\s+(\S+)\s+(\S+)\s+(\S+)\s+(\S+)\s+(\S+)"
                 r"\s+(\S+)\s+(yes|NO|ERROR|true|false)$")


def import_bench_text(text, commands):
    """Rows of `xpose bench`'s text tables, one table per command, in the order the commands ran."""
    out, cmd = [], 0
    for line in text.splitlines():
        if line.startswith("variant "):
            cmd += 1
            continue
        m = ROW.match(line.strip())
        if not m:
            continue  # notes under a table, comments
        variant, params, rows, cols, batch, elem, thr, ms, gbps, pct, speedup, spread, verified = m.groups()
        opts = command_options(commands[cmd - 1])
        out.append({"cmd": cmd, "variant": variant, "params": params or "",
                    "backend": "cpu" if variant.startswith("cpu-") else "cuda", "rows": rows, "cols": cols,
                    "elem_size": elem, "batch": batch or "1", "ld_src": opts.get("--ld-src", cols),
                    "ld_dst": opts.get("--ld-dst", rows), "threads": "" if thr == "-" else thr,
                    "reps": opts.get("--reps", ""), "ms": ms, "gbps": gbps, "pct_memcpy": "" if pct == "-" else pct,
                    "speedup": "" if speedup == "-" else speedup, "spread_pct": spread, "verified": verified})
    if cmd != len(commands):
        raise ValueError(f"{cmd} tables for {len(commands)} commands")
    return out


def import_bench_csv(texts):
    """Rows of `xpose bench --format csv` files, one file per command."""
    out = []
    for cmd, text in enumerate(texts, 1):
        for r in csv.DictReader(line for line in text.splitlines() if not line.startswith("#")):
            pct = r["pct_memcpy"] if float(r["pct_memcpy"]) >= 0 else ""
            speedup = r["speedup"] if float(r["speedup"]) >= 0 else ""
            out.append(dict(r, cmd=cmd, ld_src=r["cols"], ld_dst=r["rows"], pct_memcpy=pct, speedup=speedup))
    return out


def import_sweep_summary(text):
    """scripts/sweep_compare.py's table (the first in the file): % of memcpy of fast and cublas-geam per run."""
    out, lines = [], text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("elem shape"))
    names = lines[start].split()[2:-4]  # "elem shape <names...> fast behind cuBLAS in"
    for line in lines[start + 1:]:
        m = re.match(r"^\s*(\d+) (\d+)x(\d+)\s+(.*?)\s+\d+/(\d+)$", line)
        if not m:
            break
        elem, rows, cols, cells, runs = m.group(1), m.group(2), m.group(3), m.group(4).split(), int(m.group(5))
        for i, name in enumerate(names):
            for run in range(runs):
                pct = cells[i * runs + run]
                if pct != "nan":
                    out.append({"cmd": run + 1, "variant": name, "backend": "cuda", "rows": rows, "cols": cols,
                                "elem_size": elem, "batch": "1", "ld_src": cols, "ld_dst": rows, "reps": "1000",
                                "pct_memcpy": pct})
    return out


def import_python_peers(text):
    """scripts/python_peers.py's table: shape (BxRxC, or RxC ld L), elem, memcpy TB/s, xpose, torch, cupy."""
    out = []
    for line in text.splitlines():
        m = re.match(r"^\s*(?:(\d+)x)?(\d+)x(\d+)(?: ld (\d+))?\s+(\d+)\s+(\S+)\s+(\S+)\s+(\S+)\s+(\S+)$", line)
        if m:
            batch, rows, cols, ld, elem, tbps, xp, torch, cupy = m.groups()
            out.append({"rows": rows, "cols": cols, "elem_size": elem, "batch": batch or "1", "ld_src": ld or cols,
                        "memcpy_tbps": tbps, "xpose_pct": xp, "torch_pct": torch, "cupy_pct": cupy})
    return out


def csv_text(rows, cols):
    buf = io.StringIO()
    w = csv.DictWriter(buf, cols, extrasaction="ignore", lineterminator="\n")
    w.writeheader()
    for r in rows:
        w.writerow({c: r.get(c, "") for c in cols})
    return buf.getvalue()


def is_native(entry):
    """A file the program wrote itself (format "xpose-csv" or "xpose-json"): it is the data, with nothing to import."""
    return entry["format"] in ("xpose-csv", "xpose-json")


def imported(entry):
    """The CSV text run.json's file entry makes of its sources; None where a source cannot be read."""
    specs = entry["source"] if isinstance(entry["source"], list) else [entry["source"]]
    texts = [read_source(s) for s in specs]
    if None in texts:
        return None
    fmt = entry["format"]
    if fmt == "bench-text":
        return csv_text(import_bench_text(texts[0], entry["commands"]), BENCH_COLS)
    if fmt == "bench-csv":
        return csv_text(import_bench_csv(texts), BENCH_COLS)
    if fmt == "sweep-summary":
        return csv_text(import_sweep_summary(texts[0]), BENCH_COLS)
    if fmt == "python-peers-text":
        return csv_text(import_python_peers(texts[0]), PY_COLS)
    raise ValueError(f"unknown format {fmt}")


def machines():
    """run.json of every machine under bench-data/, with its directory, in the order they print."""
    runs = []
    for d in sorted(os.listdir(DATA)):
        path = os.path.join(DATA, d, "run.json")
        if os.path.isfile(path):
            with open(path) as f:
                runs.append(dict(json.load(f), dir=d))
    return sorted(runs, key=lambda r: r["order"])


def do_import(names):
    for run in machines():
        if names and run["dir"] not in names:
            continue
        for entry in run["files"]:
            if is_native(entry):
                continue
            text = imported(entry)
            if text is None:
                sys.exit(f"results.py: cannot read a source of bench-data/{run['dir']}/{entry['csv']}")
            with open(os.path.join(DATA, run["dir"], entry["csv"]), "w") as f:
                f.write(text)
            print(f"bench-data/{run['dir']}/{entry['csv']}: {text.count(chr(10)) - 1} rows")

# ---------------------------------------------------------------------------------------------------------------
# tables: CSV -> Markdown


def load_csv(run, name):
    with open(os.path.join(DATA, run["dir"], name)) as f:
        return list(csv.DictReader(f))


def entry_of(run, name):
    return next(e for e in run["files"] if e["csv"] == name)


def has(run, name):
    return any(e["csv"] == name for e in run["files"])


def pct(v):
    return f"{float(v):.1f} %" if v not in (None, "") else "n/a"


def shape_of(r):
    """A row's shape in words: 16384^2, 8191 x 8193, a batch, leading dimensions other than dense."""
    rows, cols = int(r["rows"]), int(r["cols"])
    s = f"{rows}^2" if rows == cols else f"{rows} x {cols}"
    if int(r.get("batch") or 1) > 1:
        s = f"batch of {r['batch']} x {s}"
    if r.get("ld_src") and int(r["ld_src"]) != cols:
        s += f", ld_src {r['ld_src']}"
    if r.get("ld_dst") and int(r["ld_dst"]) != rows:
        s += f", ld_dst {r['ld_dst']}"
    return s


def name_of(r):
    return r["variant"] + ("/" + r["params"] if r["params"] else "")


def wrap(text):
    """Prose paragraphs wrapped at the tree's 120 columns; tables, headings and comments as they are."""
    out = []
    for para in text.split("\n\n"):
        if para.startswith(("|", "#", "<!--")):
            out.append(para)
        else:
            out.append(textwrap.fill(para, 120, break_long_words=False, break_on_hyphens=False))
    return "\n\n".join(out)


def table(head, rows, align=None):
    align = align or ["---"] + ["--:"] * (len(head) - 1)
    lines = ["| " + " | ".join(head) + " |", "|" + "|".join(align) + "|"]
    lines += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return "\n".join(lines)


def context(run, entry, commands=None, cmd_note=""):
    """The line above a table: machine, date, commit, command(s), data file."""
    date, commit = entry.get("date", run["date"]), entry.get("commit", run["commit"])
    cmds = commands if commands is not None else entry["commands"]
    shown = " and ".join(f"`{c}`" for c in dict.fromkeys(cmds))
    return (f"{run['machine']}, {date}, code of {commit}: {shown}{cmd_note} "
            f"(`bench-data/{run['dir']}/{entry['csv']}`).")


def index(rows, *keys):
    """{(row[k] for k in keys): row}."""
    return {tuple(r[k] for k in keys): r for r in rows}


def gpu_production(run, rows):
    """fast against cublas-geam and memcpy at the --peers commands' shapes, every element size."""
    entry = entry_of(run, "bench.csv")
    cmds = [i + 1 for i, c in enumerate(entry["commands"]) if "--peers" in c.split()]
    by = index([r for r in rows if int(r["cmd"]) in cmds and not r["params"]], "cmd", "variant", "elem_size")
    head, body = ["element"], []
    for c in cmds:
        shape = shape_of(next(r for r in rows if int(r["cmd"]) == c))
        head += [f"`fast` {shape}", f"`cublas-geam` {shape}", f"memcpy {shape}"]
    for e in sorted({int(k[2]) for k in by}):
        cells = [ELEM[e]]
        for c in cmds:
            f, g, m = (by.get((str(c), v, str(e))) for v in ("fast", "cublas-geam", "memcpy"))
            cells += [f"{pct(f['pct_memcpy'])} ({float(f['gbps']) / 1000:.2f} TB/s)", pct(g and g["pct_memcpy"]),
                      f"{float(m['gbps']) / 1000:.2f} TB/s"]
        body.append(cells)
    return (context(run, entry, [entry["commands"][c - 1] for c in cmds]) + " % of memcpy in the same process; "
            "TB/s counts bytes read + written.\n\n" + table(head, body))


def common_suffix(commands):
    words = [shlex.split(c) for c in commands]
    n = 0
    while all(len(w) > n for w in words) and len({tuple(w[len(w) - n - 1:]) for w in words}) == 1:
        n += 1
    return n


def gpu_shapes(run, rows):
    """The other commands: fast and cublas-geam at awkward shapes, then every fast row (the lab tile rules)."""
    entry = entry_of(run, "bench.csv")
    cmds = [i + 1 for i, c in enumerate(entry["commands"]) if "--peers" not in c.split()]
    commands = [entry["commands"][c - 1] for c in cmds]
    n = common_suffix(commands)
    common = " ".join(shlex.split(commands[0])[-n:])
    body, lab_body, lab = [], [], []
    for c in cmds:
        rs = [r for r in rows if int(r["cmd"]) == c]
        by = index(rs, "variant", "params")
        f, g, m = by[("fast", "")], by.get(("cublas-geam", "")), by[("memcpy", "")]
        opts = " ".join(shlex.split(entry["commands"][c - 1])[2:-n])
        body.append([shape_of(f), ELEM[int(f["elem_size"])], pct(f["pct_memcpy"]), pct(g and g["pct_memcpy"]),
                     f"{float(m['gbps']) / 1000:.2f} TB/s", f"`{opts}`"])
        lab += [name_of(r) for r in rs if r["variant"] == "fast" and name_of(r) not in lab]
    for c in cmds:
        by = {name_of(r): r for r in rows if int(r["cmd"]) == c}
        f = by["fast"]
        lab_body.append([shape_of(f), ELEM[int(f["elem_size"])]] + [pct(by[v]["pct_memcpy"]) if v in by else ""
                                                                     for v in lab])
    return (context(run, entry, [f"xpose bench SHAPE {common}"], ", one process per shape") +
            " % of memcpy in the same process.\n\n" +
            table(["shape", "element", "`fast`", "`cublas-geam`", "memcpy", "SHAPE"], body,
                  ["---", "--:", "--:", "--:", "--:", "---"]) +
            "\n\nThe same processes, every `fast` row: the production rule first, then the lab rows that fix one tile "
            "rule each ([variants.md](variants.md)), % of memcpy:\n\n" +
            table(["shape", "element"] + [f"`{v}`" for v in lab], lab_body))


def gpu_sweep(run):
    entry, rows = entry_of(run, "sweep.csv"), load_csv(run, "sweep.csv")
    runs = sorted({int(r["cmd"]) for r in rows})
    by = index(rows, "cmd", "variant", "elem_size", "rows")
    names = [n for n in ("fast", "cublas-geam") if any(r["variant"] == n for r in rows)]
    body = []
    for e, size in sorted({(int(r["elem_size"]), int(r["rows"])) for r in rows}):
        cells, behind = [f"{size}^2", ELEM[e]], 0
        for n in names:
            got = [by.get((str(k), n, str(e), str(size))) for k in runs]
            cells.append(" / ".join(f"{float(g['pct_memcpy']):.1f}" for g in got) if any(got) else "n/a")
        for k in runs:
            f, g = by.get((str(k), "fast", str(e), str(size))), by.get((str(k), "cublas-geam", str(e), str(size)))
            behind += bool(f and g and float(f["pct_memcpy"]) < float(g["pct_memcpy"]))
        body.append(cells + [f"{behind}/{len(runs)}"])
    return (context(run, entry, cmd_note=f", {len(runs)} processes") + " % of memcpy in the same process, one "
            "figure a process: these calls take microseconds, so a figure moves more between processes than at large "
            "sizes, and `fast behind` counts the processes where `cublas-geam` was ahead.\n\n" +
            table(["size", "element"] + [f"`{n}`" for n in names] + ["`fast` behind"], body))


def gpu_python(run):
    entry, rows = entry_of(run, "python-peers.csv"), load_csv(run, "python-peers.csv")
    body = [[shape_of(r), ELEM[int(r["elem_size"])], f"{r['memcpy_tbps']} TB/s", pct(r["xpose_pct"]),
             pct(r["torch_pct"]), pct(r["cupy_pct"])] for r in rows]
    what = entry["what"][0].upper() + entry["what"][1:]
    return (context(run, entry) + f" {what}; {entry['software']}.\n\n" +
            table(["shape", "element", "memcpy", "xpose", "PyTorch", "CuPy"], body))


def gpu_permute(run):
    """The permutation suite: xpose's bench rows with their plans, then PyTorch and CuPy from the peer script's run."""
    entry, rows = entry_of(run, "permute.csv"), load_csv(run, "permute.csv")
    body = [[r["shape"], ELEM[int(r["elem_size"])], pct(r["pct_memcpy"]), f"`{r['plan']}`"]
            for r in rows if r["variant"] == "permute"]
    out = context(run, entry) + " " + entry["what"][0].upper() + entry["what"][1:] + ".\n\n"
    out += table(["shape (perm)", "element", "xpose", "plan"], body, ["---", "---", "--:", "---"])
    if has(run, "permute-peers.csv"):
        entry, rows = entry_of(run, "permute-peers.csv"), load_csv(run, "permute-peers.csv")
        body = [[r["case"], f"{r['shape']} ({r['perm']})", r["type"], f"{r['memcpy_TBps']} TB/s", pct(r["xpose_pct"]),
                 pct(r["torch_pct"]), pct(r["cupy_pct"])] for r in rows]
        out += "\n\n" + context(run, entry) + " " + entry["what"][0].upper() + entry["what"][1:]
        out += f"; {entry['software']}.\n\n"
        out += table(["case", "shape (perm)", "type", "memcpy", "xpose", "PyTorch", "CuPy"], body,
                     ["---", "---", "---", "--:", "--:", "--:", "--:"])
    return out


def gpu_inplace(run):
    """In-place transposes: each production or lab row as % of the memcpy of its shape."""
    entry, rows = entry_of(run, "inplace.csv"), load_csv(run, "inplace.csv")
    body = [[f"{r['rows']} x {r['cols']}", ELEM[int(r["elem_size"])], name_of(r), pct(r["pct_memcpy"])]
            for r in rows if r["variant"] != "memcpy"]
    return (context(run, entry) + " " + entry["what"][0].upper() + entry["what"][1:] + ".\n\n" +
            table(["shape", "element", "variant", "% of memcpy"], body, ["---", "---", "---", "--:"]))


def cpu_inplace(run):
    """CPU in-place transposes: each shape's time per thread count, as % of cpu-stream (the streaming copy of the same
    bytes in the same process) and over OpenBLAS's ?imatcopy (one thread) where it has one."""
    entry, rows = entry_of(run, "inplace.csv"), load_csv(run, "inplace.csv")
    threads = sorted({int(r["threads"]) for r in rows if r["threads"]})
    by = index(rows, "variant", "rows", "cols", "elem_size", "threads")
    head, body = ["shape", "element"], []
    for t in threads:
        w = f"{t} thread{'s' if t > 1 else ''}"
        head += [f"ms, {w}", f"% of cpu-stream, {w}", f"x OpenBLAS, {w}"]
    head.append("OpenBLAS ms, 1 thread")
    for key in dict.fromkeys((r["rows"], r["cols"], r["elem_size"]) for r in rows if r["variant"] == "cpu-inplace-rect"):
        blas = next((r for r in rows if r["variant"] == "cpu-openblas-imatcopy"
                     and (r["rows"], r["cols"], r["elem_size"]) == key), None)
        cells = [f"{key[0]} x {key[1]}", ELEM[int(key[2])]]
        for t in threads:
            x, st = by[("cpu-inplace-rect",) + key + (str(t),)], by[("cpu-stream",) + key + (str(t),)]
            cells += [f"{float(x['ms']):.1f}", pct(100 * float(st["ms"]) / float(x["ms"])),
                      f"{float(blas['ms']) / float(x['ms']):.1f}x" if blas else "n/a"]
        cells.append(f"{float(blas['ms']):.1f}" if blas else "n/a")
        body.append(cells)
    out = (context(run, entry) + " " + entry["what"][0].upper() + entry["what"][1:] + f". {entry['timing']}.\n\n" +
           table(head, body, ["---", "---"] + ["--:"] * (len(head) - 2)))
    squares = cpu_inplace_squares(rows, threads, by)
    return out + ("\n\nSquares, `cpu-inplace-square` as % of `cpu-memcpy` and of `cpu-stream` of the same bytes in the "
                  "same process:\n\n" + squares if squares else "")


def cpu_inplace_squares(rows, threads, by):
    """The in-place square rows of inplace.csv, where it has any: ms and % of cpu-memcpy and cpu-stream per thread."""
    keys = list(dict.fromkeys((r["rows"], r["cols"], r["elem_size"]) for r in rows
                              if r["variant"] == "cpu-inplace-square"))
    if not keys:
        return ""
    head = ["shape", "element"]
    for t in threads:
        w = f"{t} thread{'s' if t > 1 else ''}"
        head += [f"ms, {w}", f"% of cpu-memcpy, {w}", f"% of cpu-stream, {w}"]
    body = []
    for key in keys:
        cells = [f"{key[0]} x {key[1]}", ELEM[int(key[2])]]
        for t in threads:
            x = by[("cpu-inplace-square",) + key + (str(t),)]
            mc, st = by[("cpu-memcpy",) + key + (str(t),)], by[("cpu-stream",) + key + (str(t),)]
            cells += [f"{float(x['ms']):.1f}", pct(100 * float(mc["ms"]) / float(x["ms"])),
                      pct(100 * float(st["ms"]) / float(x["ms"]))]
        body.append(cells)
    return table(head, body, ["---", "---"] + ["--:"] * (len(head) - 2))


def cpu_tables(run):
    entry, rows = entry_of(run, "bench.csv"), load_csv(run, "bench.csv")
    if not any(r["variant"] == "cpu-stream" for r in rows):
        return cpu_tables_memcpy(run, entry, rows)
    by = index(rows, "variant", "rows", "elem_size", "threads")
    numpy = {}
    if has(run, "transpose-numpy.csv"):
        numpy = {(r["shape"].split(" ")[0], r["elem_size"]): float(r["numpy_ms"])
                 for r in load_csv(run, "transpose-numpy.csv")}
    sizes = sorted({int(r["rows"]) for r in rows})
    threads = sorted({int(r["threads"]) for r in rows if r["threads"]})
    head = ["element"] + [f"{s}^2, {t} thread{'s' if t > 1 else ''}" for s in sizes for t in threads]
    ratio, peers, speed = [], [], []
    for e in sorted({int(r["elem_size"]) for r in rows}):
        rc, pc, sc = [ELEM[e]], [ELEM[e]], [ELEM[e]]
        for s in sizes:
            blas = next((r for r in rows if r["variant"] == "cpu-openblas" and r["rows"] == str(s)
                         and r["elem_size"] == str(e)), None)
            for t in threads:
                f, st, m = (by[(v, str(s), str(e), str(t))] for v in ("cpu-fast", "cpu-stream", "cpu-memcpy"))
                cell = f"{100 * float(f['gbps']) / float(st['gbps']):.0f} %"
                if float(m["gbps"]) > float(st["gbps"]):
                    cell += f" ({float(f['pct_memcpy']):.0f} % of the faster `cpu-memcpy`)"
                rc.append(cell)
                np_ms = numpy.get((f"{s}x{s}", str(e)))
                pc.append(", ".join([f"{np_ms / float(f['ms']):.0f}x NumPy" if np_ms else "NumPy n/a"] +
                                    ([f"{float(blas['ms']) / float(f['ms']):.1f}x OpenBLAS"] if blas else [])))
                sc.append(f"{float(f['gbps']):.1f} / {float(st['gbps']):.1f} / {float(m['gbps']):.1f}")
        ratio.append(rc)
        peers.append(pc)
        speed.append(sc)
    out = (context(run, entry) + f" {entry['timing']}. `cpu-fast` as % of `cpu-stream` (a copy of the same bytes with "
           "streaming stores over the same threads: the copy bound, since `cpu-fast` writes with streaming stores too) "
           "with the same threads in the same run; where glibc's `cpu-memcpy` was the faster copy (the bench's own % "
           "column takes the faster of the two), the cell says so:\n\n" + table(head, ratio) +
           "\n\nSpeed over the peers: NumPy's `np.ascontiguousarray(a.T)` ms / `cpu-fast` ms")
    if numpy:
        np_entry = entry_of(run, "transpose-numpy.csv")
        out += (" (" + np_entry["what"] + ", from " + " and ".join(f"`{c}`" for c in np_entry["commands"]) +
                f", `bench-data/{run['dir']}/transpose-numpy.csv`, {np_entry['software']})")
    return (out + ", and OpenBLAS's one-thread `cblas_?omatcopy` ms / `cpu-fast` ms where OpenBLAS has the element "
            "size (`cpu-openblas`, same run):\n\n" + table(head, peers) +
            "\n\nGB/s of `cpu-fast` / `cpu-stream` / `cpu-memcpy` (bytes read + written):\n\n" + table(head, speed))


def cpu_tables_memcpy(run, entry, rows):
    """The CPU peer table of a run from before the bench had `cpu-stream`: % of `cpu-memcpy`."""
    by = index(rows, "variant", "rows", "elem_size", "threads")
    sizes = sorted({int(r["rows"]) for r in rows})
    threads = sorted({int(r["threads"]) for r in rows if r["threads"]})
    head = ["element"] + [f"{s}^2, {t} thread{'s' if t > 1 else ''}" for s in sizes for t in threads]
    ratio, speed = [], []
    for e in sorted({int(r["elem_size"]) for r in rows}):
        rc, sc = [ELEM[e]], [ELEM[e]]
        for s in sizes:
            blas = next((r for r in rows if r["variant"] == "cpu-openblas" and r["rows"] == str(s)
                         and r["elem_size"] == str(e)), None)
            for t in threads:
                f, m = by[("cpu-fast", str(s), str(e), str(t))], by[("cpu-memcpy", str(s), str(e), str(t))]
                cell = f"{float(f['pct_memcpy']):.0f} %"
                if blas:
                    cell += f", {float(blas['ms']) / float(f['ms']):.1f}x"
                rc.append(cell)
                sc.append(f"{float(f['gbps']):.1f} / {float(m['gbps']):.1f}")
        ratio.append(rc)
        speed.append(sc)
    return (context(run, entry) + f" {entry['timing']}. `cpu-fast` as % of `cpu-memcpy` with the same threads in "
            "the same run, and its speed over OpenBLAS's one-thread `cblas_?omatcopy` where OpenBLAS has the "
            "element size (`cpu-openblas` ms / `cpu-fast` ms):\n\n" + table(head, ratio) +
            "\n\nGB/s of `cpu-fast` / `cpu-memcpy` (bytes read + written):\n\n" + table(head, speed))


def cpu_permute(run):
    """The CPU permutation suite: each case's time, as % of cpu-fast on a 2-D transpose of the same bytes in the same
    pass (the bench's yardstick row) and over NumPy (the peer script's run), per thread count, with its plan."""
    entry, rows = entry_of(run, "permute.csv"), load_csv(run, "permute.csv")
    numpy = {}
    if has(run, "permute-numpy.csv"):
        numpy = {r["shape"]: float(r["numpy_ms"]) for r in load_csv(run, "permute-numpy.csv")}
    threads = sorted({int(r["threads"]) for r in rows})
    by = index(rows, "shape", "variant", "threads")
    head, body = ["shape (perm)", "element"], []
    for t in threads:
        w = f"{t} thread{'s' if t > 1 else ''}"
        head += [f"ms, {w}", f"% of 2-D, {w}"] + ([f"x NumPy, {w}", f"bound, {w}"] if numpy else [])
    head += (["NumPy ms"] if numpy else []) + ["plan"]
    for shape in dict.fromkeys(r["shape"] for r in rows):
        cells = [shape, ELEM[int(by[(shape, "cpu-permute", str(threads[0]))]["elem_size"])]]
        for t in threads:
            p, f = by[(shape, "cpu-permute", str(t))], by.get((shape, "cpu-fast", str(t)))
            cells += [f"{float(p['ms']):.2f}", pct(f and 100 * float(f["ms"]) / float(p["ms"]))]
            if numpy:
                st = by.get((shape, "cpu-stream", str(t)))
                cells.append(f"{numpy[shape] / float(p['ms']):.1f}x" if shape in numpy else "n/a")
                cells.append(f"{numpy[shape] / float(st['ms']):.1f}x" if shape in numpy and st else "n/a")
        if numpy:
            cells.append(f"{numpy[shape]:.1f}" if shape in numpy else "n/a")
        plan = by[(shape, "cpu-permute", str(threads[0]))]["plan"]
        cells.append(f"`{plan.split(' -> ', 1)[-1]}`")
        body.append(cells)
    out = (context(run, entry) + " " + entry["what"][0].upper() + entry["what"][1:] + f". {entry['timing']}. "
           "`% of 2-D`: `cpu-fast` on a 2-D transpose of the same bytes (the bench's yardstick row, in the same "
           "pass) ms / the permutation's ms")
    if numpy:
        np_entry = entry_of(run, "permute-numpy.csv")
        out += (f"; `x NumPy`: {np_entry['what']} ms / the permutation's ms, from "
                + " and ".join(f"`{c}`" for c in np_entry["commands"])
                + f" (`bench-data/{run['dir']}/permute-numpy.csv`, {np_entry['software']}); `bound`: NumPy's ms / "
                "`cpu-stream`'s ms in the same pass: no permutation moves its bytes much faster than `cpu-stream`, a copy "
                "of them with streaming stores (the fastest copy measured on these machines), so this is about the "
                "most any permutation could reach over NumPy")
    return out + ". The plan is the text after `->` of `xpose_permute_plan_describe`.\n\n" + table(
        head, body, ["---", "---"] + ["--:"] * (len(head) - 3) + ["---"])


def dist_table(run):
    """The distributed transpose: each method's ms and its % of NCCL's faster all-to-all, per P, element and N."""
    entry, rows = entry_of(run, "dist.csv"), load_csv(run, "dist.csv")
    by = index(rows, "params", "elem_size", "rows", "variant")
    body = []
    for p, es, n in dict.fromkeys((r["params"], r["elem_size"], r["rows"]) for r in rows):
        peer, nccl = by.get((p, es, n, "dist-peer")), by.get((p, es, n, "dist-nccl"))
        a2a = min((by[k] for k in [(p, es, n, "nccl-alltoall"), (p, es, n, "nccl-sendrecv")] if k in by),
                  key=lambda r: float(r["ms"]))
        cells = [f"{float(r['ms']):.3f} ({pct(r['pct_memcpy'])})" if r and r["ms"] else "n/a" for r in (peer, nccl)]
        fastest = f"{float(a2a['ms']):.3f} ({a2a['variant']})"
        body.append([p.replace("gpu", ""), ELEM[int(es)], f"{n}^2", *cells, fastest])
    return (context(run, entry) + " " + entry["what"][0].upper() + entry["what"][1:] + ". " +
            entry["timing"][0].upper() + entry["timing"][1:] + ".\n\n" +
            table(["GPUs", "element", "N", "dist-peer ms (% of all-to-all)", "dist-nccl ms (% of all-to-all)",
                   "NCCL all-to-all ms"], body, ["--:", "---", "--:", "--:", "--:", "--:"]))


def span(values, fmt="{:.2f}"):
    """min..max of some figures, or the one figure where they agree at that precision."""
    lo, hi = fmt.format(min(values)), fmt.format(max(values))
    return lo if lo == hi else f"{lo}..{hi}"


def overhead_cells(rows):
    """{(backend, call, shape): "a..b"} over the processes of an `xpose overhead --csv` file, in microseconds."""
    got = {}
    for r in rows:
        key = (r["backend"], r["call"], f"{r['rows']} x {r['cols']}, {ELEM[int(r['elem_size'])]}")
        got.setdefault(key, []).append(float(r["us_per_call"]))
    return {k: span(v) for k, v in got.items()}


def overhead(run):
    entry, rows = entry_of(run, "overhead.csv"), load_csv(run, "overhead.csv")
    cells = overhead_cells(rows)
    body = [[f"`{b}`", c, shape, v] for (b, c, shape), v in cells.items()]
    nrun = len({r["run"] for r in rows})
    return (context(run, entry, cmd_note=f", {nrun} processes each") + f" {entry['what']}\n\n" +
            table(["backend", "call", "shape", "us a call"], body, ["---", "---", "---", "--:"]))


NCU_QUANTITIES = [("load_sectors", "global load sectors"), ("store_sectors", "global store sectors"),
                  ("load_requests", "load requests"), ("store_requests", "store requests"),
                  ("smem_load_wavefronts", "shared load wavefronts"),
                  ("smem_store_wavefronts", "shared store wavefronts"),
                  ("smem_load_wavefronts_sass", "shared load wavefronts, per instruction"),
                  ("smem_store_wavefronts_sass", "shared store wavefronts, per instruction"), ("dram_bytes", "DRAM bytes")]


def explain_ncu(run):
    """xpose explain's model against Nsight Compute, one row per variant: model / measured, difference in %."""
    entry = entry_of(run, "explain-ncu.json")
    with open(os.path.join(DATA, run["dir"], "explain-ncu.json")) as f:
        results = json.load(f)["results"]

    def cell(r, k):
        if k not in r["ncu"]:
            return "-"
        m, n = r[k.replace("_sass", "")], r["ncu"][k]
        if not m and not n:
            return "0"
        d = f"{100.0 * (n - m) / m:+.1f} %" if m else "model 0"
        return f"{m:,} / {n:,} ({d})"

    body = [[f"`{r['variant']}`"] + [cell(r, k) for k, _ in NCU_QUANTITIES] for r in results if r.get("ncu")]
    return (context(run, entry) + f" {entry['what'][0].upper() + entry['what'][1:]}. Each cell: model / ncu "
            "(difference):\n\n" + table(["variant"] + [name for _, name in NCU_QUANTITIES], body))


def results_md():
    out = ["# Results", "",
           "<!-- Generated by scripts/results.py from bench-data/; edit the data or the script, not this file. -->", "",
           "Every table below is generated from `bench-data/<machine>/`, which holds the latest full run of each "
           "machine kind as CSV, with `run.json` giving the date, commit, device, command lines and the raw output "
           "each CSV was converted from (`python3 scripts/results.py import`). Every row was verified against the "
           "reference in the run that timed it. A ratio to memcpy is always to the memcpy row of the same shape, "
           "element size (and threads) measured in the same process, so it holds within one run; comparisons "
           "across machines, processes or dates are not meant. How the bench times its rows: "
           "[design.md](design.md) (\"Measuring\"); what each variant changes: [variants.md](variants.md).",
           ""]
    for run in machines():
        out += [f"## {run['machine']}", "", f"Device: {run['device']}. Build: {run['build']}."]
        if run.get("checks"):
            out += ["", f"Checks of this run: {run['checks']}."]
        out.append("")
        if run["kind"] == "gpu":
            rows = load_csv(run, "bench.csv")
            out += ["### The production transpose against cuBLAS", "", gpu_production(run, rows), "",
                    "### Awkward shapes", "", gpu_shapes(run, rows), ""]
            if has(run, "sweep.csv"):
                out += ["### Small squares against cuBLAS", "", gpu_sweep(run), ""]
            if has(run, "python-peers.csv"):
                out += ["### Against PyTorch and CuPy", "", gpu_python(run), ""]
            if has(run, "permute.csv"):
                out += ["### N-d permutations", "", gpu_permute(run), ""]
            if has(run, "inplace.csv"):
                out += ["### In-place transposes", "", gpu_inplace(run), ""]
            if has(run, "overhead.csv"):
                out += ["### The cost of a call", "", overhead(run), ""]
            if has(run, "explain-ncu.json"):
                out += ["### The memory model against Nsight Compute", "", explain_ncu(run), ""]
        elif run["kind"] == "multigpu":
            out += ["### Transposes across GPUs", "", dist_table(run), ""]
        else:
            out += ["### The CPU peer table", "", cpu_tables(run), ""]
            if has(run, "permute.csv"):
                out += ["### N-d permutations", "", cpu_permute(run), ""]
            if has(run, "inplace.csv"):
                out += ["### In-place transposes", "", cpu_inplace(run), ""]
    return wrap("\n".join(out).rstrip("\n")) + "\n"


def readme_block():
    """README's one table: the H200's fast, cuBLAS and PyTorch at 16384^2 as % of memcpy."""
    run = next(r for r in machines() if r["dir"] == "h200")
    bench, py = load_csv(run, "bench.csv"), load_csv(run, "python-peers.csv")
    by = index([r for r in bench if r["cmd"] == "1" and not r["params"]], "variant", "elem_size")
    pyby = index([r for r in py if r["rows"] == r["cols"] == "16384" and r["ld_src"] == "16384"], "elem_size")
    body = []
    for e in sorted({int(k[1]) for k in by}):
        g = by.get(("cublas-geam", str(e)))
        body.append([ELEM[e], pct(by[("fast", str(e))]["pct_memcpy"]), pct(g and g["pct_memcpy"]),
                     pct(pyby[(str(e),)]["torch_pct"]), f"{float(by[('memcpy', str(e))]['gbps']) / 1000:.2f} TB/s"])
    paras = ["<!-- Generated by scripts/results.py from bench-data/h200/; do not edit by hand. -->",
             f"One {run['machine']} ({run['date']}), a 16384 x 16384 transpose as % of a device-to-device copy of the "
             "same bytes timed in the same run:",
             table(["element", "xpose `fast`", "cuBLAS `geam`", "PyTorch `x.t().contiguous()`", "memcpy"], body),
             f"xpose and cuBLAS: `{entry_of(run, 'bench.csv')['commands'][0]}`; PyTorch: `scripts/python_peers.py`, "
             "in a run of its own. cuBLAS's `geam` takes 4-, 8- and 16-byte elements only."]
    if has(run, "overhead.csv"):
        c = overhead_cells(load_csv(run, "overhead.csv"))
        cpu = gpu = "8 x 8, 4 bytes"
        checks = c[("cuda", "xpose's checks alone (no launch)", gpu)]
        paras.append(f"A call's cost on the host (`xpose overhead`, same machine, microseconds), 8 x 8 floats: on the CPU "
                     f"{c[('cpu', 'xpose_transpose', cpu)]} (a plain loop {c[('cpu', 'plain nested loop', cpu)]}); "
                     f"`xpose_transpose_cuda` {c[('cuda', 'xpose_transpose_cuda (host side, async)', gpu)]}, of which "
                     f"xpose's checks {checks}, where a bare "
                     f"`cudaMemcpyAsync` takes {c[('cuda', 'cudaMemcpyAsync d2d (host side, async)', gpu)]}.")
    return BEGIN + "\n" + wrap("\n\n".join(paras)) + "\n" + END


def with_block(text, block):
    if text.count(BEGIN) != 1 or text.count(END) != 1:
        raise ValueError(f"README.md needs one {BEGIN} and one {END} line")
    head, rest = text.split(BEGIN)
    return head + block + rest.split(END, 1)[1]


def differs(name, want, have):
    if want == have:
        return False
    sys.stdout.writelines(difflib.unified_diff(have.splitlines(True), want.splitlines(True), name + " (in the tree)",
                                               name + " (generated)", n=1))
    return True


def main(argv):
    if argv[:1] == ["import"]:
        return do_import(argv[1:])
    if argv not in ([], ["--check"]):
        sys.exit(__doc__)
    md = results_md()
    with open(README) as f:
        readme = f.read()
    new_readme = with_block(readme, readme_block())
    if argv == ["--check"]:
        bad = False
        with open(RESULTS_MD) as f:
            bad |= differs("docs/results.md", md, f.read())
        bad |= differs("README.md", new_readme, readme)
        unread = []
        for run in machines():
            for entry in run["files"]:
                if is_native(entry):
                    continue
                name = f"bench-data/{run['dir']}/{entry['csv']}"
                want = imported(entry)
                if want is None:
                    unread.append(name)
                    continue
                with open(os.path.join(DATA, run["dir"], entry["csv"])) as f:
                    bad |= differs(name, want, f.read())
        if bad:
            sys.exit("results.py --check: out of date; run python3 scripts/results.py (and `import` for bench-data)")
        print("results.py --check: docs/results.md and README.md's results block are up to date" +
              (f"; sources not readable here, CSVs not re-imported: {', '.join(unread)}" if unread else
               "; every CSV matches its source"))
        return
    with open(RESULTS_MD, "w") as f:
        f.write(md)
    with open(README, "w") as f:
        f.write(new_readme)
    print("wrote docs/results.md and README.md's results block")


if __name__ == "__main__":
    main(sys.argv[1:])
