#!/usr/bin/env python3
"""Run kernels/README.md's CuPy examples as written, on a GPU, and check what they compute.

The README's "CuPy example" section is a sequence of python blocks that a caller outside the
project would paste. This script executes them in order in one namespace, from the repository's
root, with every CuPy allocation prefilled with 0xFF bytes (NaN in fp32, fp16 and bf16), so an
element a kernel leaves unwritten shows as NaN. After each block that launches a kernel it knows
(add_rmsnorm's forward entries, rmsnorm_bwd with column_sum), it compares the block's outputs
with fp64 references computed from the block's own inputs and prints the worst error of each.

  python3 scripts/cupy_examples.py [--json FILE]      # on the GPU machine
  python3 scripts/cupy_examples.py --list             # print the blocks; needs no GPU
  python3 scripts/cupy_examples.py --selftest         # check the checks (numpy only, no GPU)

Exit status: 0 every block ran and every check passed; 1 a check failed or a block raised;
2 no CuPy or no GPU (nothing was run, and the message says which).
"""
import argparse
import json
import math
import os
import re
import sys
import time
import traceback

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
README = os.path.join(ROOT, "kernels", "README.md")


def example_blocks(path=README):
    """The python blocks of the README's '## CuPy example' section, with their first lines."""
    lines = open(path, encoding="utf-8").read().split("\n")
    try:
        start = lines.index("## CuPy example")
    except ValueError:
        sys.exit(f"{path}: no '## CuPy example' section")
    blocks, current, first = [], None, 0
    for number, line in enumerate(lines[start + 1:], start + 2):
        if line.startswith("## "):
            break
        if current is None and line == "```python":
            current, first = [], number + 1
        elif current is not None and line.startswith("```"):
            blocks.append((first, "\n".join(current) + "\n"))
            current = None
        elif current is not None:
            current.append(line)
    if current is not None:
        sys.exit(f"{path}:{first}: a python block that never closes")
    if not blocks:
        sys.exit(f"{path}:{start + 1}: the CuPy section has no python block")
    return blocks


# Tolerances: an output in T is the fp32 result rounded once, so its error against fp64 is about
# half an ulp of T plus fp32's accumulation; rstd is fp32 throughout.
RTOL = {"bf16": 2.0 ** -7, "f32": 1e-5}


def worst(got, ref, rtol, atol):
    """(worst |err|, worst |err| / (atol + rtol |ref|), NaN count) of two fp64 numpy arrays."""
    import numpy as np
    nans = int(np.isnan(got).sum())
    err = np.abs(got - ref)
    err = np.where(np.isnan(err), np.inf, err)
    ratio = err / (atol + rtol * np.abs(ref))
    return float(err.max()), float(ratio.max()), nans


def host(a):
    """A CuPy array's values on the host (numpy arrays pass through: the selftest)."""
    import numpy as np
    return a.get() if hasattr(a, "get") else np.asarray(a)


def to_f64(ns, array, dtype):
    a = ns["f32"](array) if dtype == "bf16" else array
    return host(a).astype("float64")


def check_add_rmsnorm(ns):
    """y, h and rstd of add_rmsnorm_fwd<bf16, ..., ROUND_SUM = false> (convention A)."""
    import numpy as np
    x, r, w = (to_f64(ns, ns[k], "bf16") for k in ("x", "r", "w"))
    rows, d, eps = ns["rows"], ns["d"], ns["eps"]
    s = x + r                    # exact: two bf16 values add exactly in fp32 and in fp64
    h_ref = host(ns["f32"](ns["bf16"](s.astype(np.float32)))).astype("float64")
    rstd_ref = 1.0 / np.sqrt((s * s).mean(axis=1) + eps)
    y_ref = s * rstd_ref[:, None] * w[None, :]
    y_atol = RTOL["bf16"] * float(np.abs(y_ref).max()) * 2.0 ** -4
    return {
        "h": worst(to_f64(ns, ns["h"], "bf16").reshape(rows, d), h_ref, 0.0, 1e-30),
        "y": worst(to_f64(ns, ns["y"], "bf16").reshape(rows, d), y_ref, RTOL["bf16"], y_atol),
        "rstd": worst(host(ns["rstd"]).astype("float64"), rstd_ref, RTOL["f32"], 0.0),
    }


def check_rmsnorm_bwd(ns):
    """dx and dw of rmsnorm_bwd<bf16, ...> followed by column_sum<bf16>."""
    import numpy as np
    x, dy, w = (to_f64(ns, ns[k], "bf16") for k in ("x", "dy", "w"))
    rows, d, eps = ns["rows"], ns["d"], ns["eps"]
    rstd = 1.0 / np.sqrt((x * x).mean(axis=1) + eps)
    g = dy * w[None, :]
    c = (g * x).sum(axis=1) / d
    dx_ref = rstd[:, None] * g - x * (rstd ** 3 * c)[:, None]
    dw_ref = (dy * x * rstd[:, None]).sum(axis=0)
    dx_atol = RTOL["bf16"] * float(np.abs(dx_ref).max()) * 2.0 ** -4
    dw_atol = RTOL["bf16"] * float(np.abs(dw_ref).max()) * 2.0 ** -4
    return {
        "dx": worst(to_f64(ns, ns["dx"], "bf16").reshape(rows, d), dx_ref, RTOL["bf16"], dx_atol),
        "dw": worst(to_f64(ns, ns["dw"], "bf16"), dw_ref, RTOL["bf16"], dw_atol),
    }


CHECKS = [
    (re.compile(r"^ladder::add_rmsnorm_fwd\w*<__nv_bfloat16, .*\bfalse\b"), check_add_rmsnorm),
    (re.compile(r"^ladder::column_sum<__nv_bfloat16>$"), check_rmsnorm_bwd),
]


def judged(results):
    """{output: (worst error, ratio, NaN count, ok)}: ok when nothing is NaN and within bounds."""
    return {k: (err, ratio, nans, nans == 0 and ratio <= 1.0 and math.isfinite(err))
            for k, (err, ratio, nans) in results.items()}


def readme_helpers(blocks, cp):
    """The first block's helpers (bf16, f32, ...), everything above its first `src = open(`,
    executed with `cp` as the module `import cupy as cp` gives."""
    first = blocks[0][1]
    code = first[:first.index("src = open(")]
    saved = sys.modules.get("cupy")
    sys.modules["cupy"] = cp
    try:
        ns = {"__name__": "__cupy_example__"}
        exec(compile(code, f"{README}:{blocks[0][0]}", "exec"), ns)
    finally:
        if saved is None:
            del sys.modules["cupy"]
        else:
            sys.modules["cupy"] = saved
    return ns


def selftest():
    """With numpy standing in for CuPy (no GPU): the README's bf16 helpers round as bf16 does,
    fp32 results of the two ops pass the checks, and each kind of damage a kernel could do
    (an unwritten element, a wrong value, a wrong rstd, a sum rounded the other way) fails them."""
    import numpy as np
    ns = readme_helpers(example_blocks(), np)
    bf16, f32 = ns["bf16"], ns["f32"]
    failures = []

    def expect(what, cond):
        print(f"selftest: {what}: {'ok' if cond else 'WRONG'}")
        if not cond:
            failures.append(what)

    v = np.array([1.0, 1.00390625, 1.005859375, -2.5, 3.0e-3], np.float32)
    expect("bf16() rounds to nearest even",
           list(f32(bf16(v))) == [1.0, 1.0, 1.0078125, -2.5, np.float32(0.0030059814453125)])
    rng = np.random.default_rng(7)
    rows, d, eps = 64, 256, 1e-6
    x, r = bf16(rng.standard_normal((rows, d), np.float32)), bf16(rng.standard_normal((rows, d), np.float32))
    w = bf16(1 + 0.1 * rng.standard_normal(d, np.float32))
    s = f32(x) + f32(r)
    rstd = (1 / np.sqrt((s * s).mean(axis=1, dtype=np.float32) + np.float32(eps))).astype(np.float32)
    fwd = dict(ns, rows=rows, d=d, eps=eps, x=x, r=r, w=w, h=bf16(s),
               y=bf16(s * rstd[:, None] * f32(w)[None, :]), rstd=rstd)
    expect("add_rmsnorm: fp32 results pass", all(j[3] for j in judged(check_add_rmsnorm(fwd)).values()))
    for what, output, damage in [
            ("an unwritten y element (NaN bits)", "y", lambda a: a.__setitem__((3, 5), 0xFFFF)),
            ("a y element 2% off", "y", lambda a: a.__setitem__((slice(7, 8), 9), bf16(f32(a[7:8, 9]) * 1.02))),
            ("an h element one bf16 ulp off", "h", lambda a: a.__setitem__((1, 1), a[1, 1] + 1)),
            ("an rstd 0.1% off", "rstd", lambda a: a.__setitem__(2, a[2] * 1.001))]:
        bad = dict(fwd)
        bad[output] = fwd[output].copy()
        damage(bad[output])
        expect(f"add_rmsnorm: {what} fails", not judged(check_add_rmsnorm(bad))[output][3])
    dy = bf16(rng.standard_normal((rows, d), np.float32))
    xf = f32(x)
    rs = (1 / np.sqrt((xf * xf).mean(axis=1) + np.float32(eps))).astype(np.float32)
    g = f32(dy) * f32(w)[None, :]
    c = (g * xf).sum(axis=1) / np.float32(d)
    bwd = dict(ns, rows=rows, d=d, eps=eps, x=x, w=w, dy=dy,
               dx=bf16(rs[:, None] * g - xf * (rs ** 3 * c)[:, None]),
               dw=bf16((f32(dy) * xf * rs[:, None]).sum(axis=0)))
    expect("rmsnorm_bwd: fp32 results pass", all(j[3] for j in judged(check_rmsnorm_bwd(bwd)).values()))
    for what, output, damage in [
            ("an unwritten dx element", "dx", lambda a: a.__setitem__((0, 0), 0xFFFF)),
            ("a dw element 2% off", "dw", lambda a: a.__setitem__(slice(11, 12), bf16(f32(a[11:12]) * 1.02))),
            ("dw with one row left out", "dw", None)]:
        bad = dict(bwd)
        if damage is None:
            bad["dw"] = bf16((f32(dy[1:]) * xf[1:] * rs[1:, None]).sum(axis=0))
        else:
            bad[output] = bwd[output].copy()
            damage(bad[output])
        expect(f"rmsnorm_bwd: {what} fails", not judged(check_rmsnorm_bwd(bad))[output][3])
    print("selftest:", "FAIL " + "; ".join(failures) if failures else "PASS")
    return 1 if failures else 0


def poison_allocations(cp):
    """Every allocation from here on is filled with 0xFF bytes before CuPy hands it out."""
    pool = cp.cuda.MemoryPool()

    def allocate(size):
        memory = pool.malloc(size)
        if size:
            memory.memset(0xFF, size)
        return memory

    cp.cuda.set_allocator(allocate)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--list", action="store_true", help="print the blocks and exit (no GPU)")
    ap.add_argument("--json", help="write the checks as JSON to FILE")
    ap.add_argument("--readme", default=README,
                    help="run the CuPy section of this copy of kernels/README.md instead")
    ap.add_argument("--selftest", action="store_true",
                    help="check the checks with numpy standing in for CuPy (no GPU)")
    args = ap.parse_args()
    if args.selftest:
        return selftest()
    blocks = example_blocks(args.readme)
    if args.list:
        for first, code in blocks:
            print(f"# {os.path.relpath(args.readme, ROOT)}:{first}\n{code}")
        return 0
    try:
        import cupy as cp
        import numpy  # noqa: F401  (the references)
        count = cp.cuda.runtime.getDeviceCount()
    except Exception as e:  # no CuPy, or its CUDA cannot start
        print(f"cupy_examples: SKIPPED: CuPy cannot run here ({type(e).__name__}: {e})")
        return 2
    if count == 0:
        print("cupy_examples: SKIPPED: no CUDA device")
        return 2
    props = cp.cuda.runtime.getDeviceProperties(0)
    device = props["name"].decode() if isinstance(props["name"], bytes) else props["name"]
    print(f"device: {device}; CuPy {cp.__version__}; CUDA runtime "
          f"{cp.cuda.runtime.runtimeGetVersion()}; {len(blocks)} blocks from "
          f"{os.path.relpath(args.readme, ROOT)}")
    os.chdir(ROOT)
    poison_allocations(cp)
    cp.random.seed(2026)
    ns = {"__name__": "__cupy_example__"}
    doc = {"device": device, "cupy": cp.__version__, "blocks": []}
    failed = False
    for first, code in blocks:
        entry = {"line": first, "checks": {}}
        t0 = time.time()
        try:
            exec(compile(code, f"{args.readme}:{first}", "exec"), ns)
            cp.cuda.Device().synchronize()
        except Exception:
            entry["error"] = traceback.format_exc()
            print(f"line {first}: the block raised\n{entry['error']}")
            doc["blocks"].append(entry)
            failed = True
            break
        entry["seconds"] = round(time.time() - t0, 3)
        name = ns.get("name", "")
        entry["entry"] = name
        for pattern, check in CHECKS:
            if pattern.search(name):
                for output, (err, ratio, nans, ok) in judged(check(ns)).items():
                    entry["checks"][output] = {"worst_error": err, "worst_ratio": ratio,
                                               "nan": nans, "ok": ok}
                    failed |= not ok
                    print(f"line {first}: {name}: {output}: worst |err| {err:.3g}, "
                          f"{ratio:.3f} of the bound, {nans} NaN: {'PASS' if ok else 'FAIL'}")
        if not entry["checks"]:
            print(f"line {first}: {name or '(no kernel)'}: ran in {entry['seconds']} s "
                  "(its outputs are checked with a later block's)")
        doc["blocks"].append(entry)
    doc["ok"] = not failed
    if args.json:
        tmp = args.json + ".tmp"
        with open(tmp, "w") as f:
            json.dump(doc, f, indent=1)
        os.replace(tmp, args.json)
    print("cupy_examples:", "FAIL" if failed else "PASS")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
