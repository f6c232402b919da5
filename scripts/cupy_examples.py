#!/usr/bin/env python3
"""Run kernels/README.md's CuPy examples as written, on a GPU, and check what they compute.

The README's "CuPy example" section is a sequence of python blocks that a caller outside the
project would paste. This script executes them in order in one namespace, from the repository's
root, with every CuPy allocation prefilled with 0xFF bytes (NaN in fp32, fp16 and bf16), so an
element a kernel leaves unwritten shows as NaN. After each block it compares the block's outputs
with fp64 references computed from the block's own inputs, chosen by the entries the block names
(CHECKS), and prints the worst error of each; a block with no check fails.

  python3 scripts/cupy_examples.py [--json FILE]      # on the GPU machine
  python3 scripts/cupy_examples.py --readme COPY.md   # another copy's section (broken on purpose)
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
import warnings

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


# Tolerances: an output in T is the fp32 result rounded once, so its error against fp64 is
# about half an ulp of T plus fp32's accumulation (bound: atol + rtol |ref|, atol a sixteenth of
# rtol times the output's largest magnitude, for the elements near zero); fp32 outputs (rstd,
# mean, y in fp32) are fp32 throughout.
RTOL = {"bf16": 2.0 ** -7, "f16": 2.0 ** -9, "f32": 1e-5}


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
    if hasattr(array, "detach"):  # a torch tensor: its values, whatever its dtype
        return array.detach().double().cpu().numpy()
    a = ns["f32"](array) if dtype == "bf16" else array
    return host(a).astype("float64")


def compare(ns, output, ref, dtype, shape=None):
    """worst() of ns[output] (stored in dtype) against ref, with dtype's bound."""
    import numpy as np
    got = to_f64(ns, ns[output], dtype)
    if shape is not None:
        got = got.reshape(shape)
    rtol = RTOL[dtype]
    return worst(got, ref, rtol, rtol * float(np.abs(ref).max()) * 2.0 ** -4)


def check_add_rmsnorm(ns):
    """y, h and rstd of add_rmsnorm_fwd<bf16, ..., ROUND_SUM = false> (convention A)."""
    import numpy as np
    x, r, w = (to_f64(ns, ns[k], "bf16") for k in ("x", "r", "w"))
    rows, d, eps = ns["rows"], ns["d"], ns["eps"]
    s = x + r                    # exact: two bf16 values add exactly in fp32 and in fp64
    h_ref = host(ns["f32"](ns["bf16"](s.astype(np.float32)))).astype("float64")
    rstd_ref = 1.0 / np.sqrt((s * s).mean(axis=1) + eps)
    return {
        "h": worst(to_f64(ns, ns["h"], "bf16").reshape(rows, d), h_ref, 0.0, 1e-30),
        "y": compare(ns, "y", s * rstd_ref[:, None] * w[None, :], "bf16", (rows, d)),
        "rstd": worst(to_f64(ns, ns["rstd"], "f32"), rstd_ref, RTOL["f32"], 0.0),
    }


def rms_bwd_refs(s, dy, w, eps, dh=None):
    """dx and dw of y = s * rstd(s) * w in fp64 (dh added to dx, as add_rmsnorm_bwd does)."""
    import numpy as np
    rstd = 1.0 / np.sqrt((s * s).mean(axis=1) + eps)
    g = dy * w[None, :]
    c = (g * s).mean(axis=1)
    dx = rstd[:, None] * g - s * (rstd ** 3 * c)[:, None]
    if dh is not None:
        dx = dx + dh
    return dx, (dy * s * rstd[:, None]).sum(axis=0)


def check_rmsnorm_bwd(ns):
    """dx and dw of rmsnorm_bwd<bf16, ...> followed by column_sum<bf16>."""
    x, dy, w = (to_f64(ns, ns[k], "bf16") for k in ("x", "dy", "w"))
    dx_ref, dw_ref = rms_bwd_refs(x, dy, w, ns["eps"])
    return {"dx": compare(ns, "dx", dx_ref, "bf16", x.shape),
            "dw": compare(ns, "dw", dw_ref, "bf16")}


def check_add_rmsnorm_bwd(ns):
    """dx, dr and dw of add_rmsnorm_bwd<bf16, ...> (dh given) followed by column_sum<bf16>."""
    x, r, dy, dh, w = (to_f64(ns, ns[k], "bf16") for k in ("x", "r", "dy", "dh", "w"))
    dx_ref, dw_ref = rms_bwd_refs(x + r, dy, w, ns["eps"], dh)
    return {"dx": compare(ns, "dx", dx_ref, "bf16", x.shape),
            "dr": compare(ns, "dr", dx_ref, "bf16", x.shape),
            "dw": compare(ns, "dw", dw_ref, "bf16")}


def rmsnorm_fwd_checks(ns, dtype, w_offset):
    """y (in dtype) and rstd of rmsnorm_fwd, the weight w_offset + w."""
    import numpy as np
    x, w = to_f64(ns, ns["x"], dtype), to_f64(ns, ns["w"], dtype)
    rstd_ref = 1.0 / np.sqrt((x * x).mean(axis=1) + ns["eps"])
    return {"y": compare(ns, "y", x * rstd_ref[:, None] * (w_offset + w)[None, :], dtype),
            "rstd": worst(to_f64(ns, ns["rstd"], "f32"), rstd_ref, RTOL["f32"], 0.0)}


def check_rmsnorm_fwd(ns):
    """rmsnorm_fwd<float, ...> with the block's w_offset (1: the Gemma weight 1 + w)."""
    return rmsnorm_fwd_checks(ns, "f32", ns["w_offset"])


def check_rmsnorm_fwd_bf16(ns):
    """rmsnorm_fwd<bf16, ...>, the PyTorch block (torch tensors; a plain weight: w_offset 0 is
    the literal it passes, and ns's w_offset is an earlier block's)."""
    return rmsnorm_fwd_checks(ns, "bf16", 0.0)


def check_layernorm(ns):
    """layernorm_fwd<half, ...>'s y, mean and rstd, then layernorm_bwd<half, ...>'s dx and
    column_sum_pair<half>'s dgamma and dbeta."""
    import numpy as np
    x, dy, gamma, beta = (to_f64(ns, ns[k], "f16") for k in ("x", "dy", "gamma", "beta"))
    mean = x.mean(axis=1)
    rstd = 1.0 / np.sqrt(((x - mean[:, None]) ** 2).mean(axis=1) + ns["eps"])
    xhat = (x - mean[:, None]) * rstd[:, None]
    g = dy * gamma[None, :]
    dx = rstd[:, None] * (g - g.mean(axis=1)[:, None] - xhat * (g * xhat).mean(axis=1)[:, None])
    return {"y": compare(ns, "y", xhat * gamma[None, :] + beta[None, :], "f16"),
            # fp32's sum of d unit-variance values: a few 1e-6 off, whatever the mean's size
            "mean": worst(to_f64(ns, ns["mean"], "f32"), mean, RTOL["f32"], 1e-5),
            "rstd": worst(to_f64(ns, ns["rstd"], "f32"), rstd, RTOL["f32"], 0.0),
            "dx": compare(ns, "dx", dx, "f16"),
            "dgamma": compare(ns, "dgamma", (dy * xhat).sum(axis=0), "f16"),
            "dbeta": compare(ns, "dbeta", dy.sum(axis=0), "f16")}


# Which check a block gets, by the entries it names (`name = "..."`): the first whose patterns
# all match one of them. A block that launches none of these fails: every block is checked.
CHECKS = [
    ([r"^ladder::add_rmsnorm_fwd\w*<__nv_bfloat16, .*\bfalse\b"], check_add_rmsnorm),
    ([r"^ladder::rmsnorm_bwd<__nv_bfloat16\b", r"^ladder::column_sum<__nv_bfloat16>$"],
     check_rmsnorm_bwd),
    ([r"^ladder::add_rmsnorm_bwd<__nv_bfloat16\b", r"^ladder::column_sum<__nv_bfloat16>$"],
     check_add_rmsnorm_bwd),
    ([r"^ladder::rmsnorm_fwd<float\b"], check_rmsnorm_fwd),
    ([r"^ladder::rmsnorm_fwd<__nv_bfloat16\b"], check_rmsnorm_fwd_bf16),
    ([r"^ladder::layernorm_fwd<__half\b", r"^ladder::layernorm_bwd<__half\b",
      r"^ladder::column_sum_pair<__half>$"], check_layernorm),
]


def block_entries(code):
    return re.findall(r'^name\s*=\s*"([^"]+)"', code, re.M)


def check_for(entries):
    for patterns, check in CHECKS:
        if all(any(re.search(p, e) for e in entries) for p in patterns):
            return check
    return None


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


def fp32_results(ns, rng):
    """For each check, a namespace as its block leaves it, with outputs computed in fp32 by
    numpy (the kernels' arithmetic, without their order of additions)."""
    import numpy as np
    bf16, f32 = ns["bf16"], ns["f32"]
    f = np.float32
    rows, d, eps = 64, 256, 1e-6
    randn = lambda *shape: rng.standard_normal(shape, np.float32)
    x, r, dy, dh = (bf16(randn(rows, d)) for _ in range(4))
    w = bf16(1 + f(0.1) * randn(d))

    def rms(s):
        return (1 / np.sqrt((s * s).mean(axis=1, dtype=f) + f(eps))).astype(f)

    def rms_bwd(s, extra=0):
        rs, g = rms(s), f32(dy) * f32(w)[None, :]
        c = (g * s).sum(axis=1) / f(d)
        return (bf16(rs[:, None] * g - s * (rs ** 3 * c)[:, None] + extra),
                bf16((f32(dy) * s * rs[:, None]).sum(axis=0)))

    base = dict(ns, rows=rows, d=d, eps=eps, x=x, r=r, w=w, dy=dy, dh=dh)
    s = f32(x) + f32(r)
    out = {check_add_rmsnorm: dict(base, h=bf16(s), y=bf16(s * rms(s)[:, None] * f32(w)[None, :]),
                                   rstd=rms(s))}
    dx, dw = rms_bwd(f32(x))
    out[check_rmsnorm_bwd] = dict(base, dx=dx, dw=dw)
    dx, dw = rms_bwd(s, f32(dh))
    out[check_add_rmsnorm_bwd] = dict(base, dx=dx, dr=dx.copy(), dw=dw)
    xf, wf = randn(rows, d), f(0.1) * randn(d)
    out[check_rmsnorm_fwd] = dict(base, x=xf, w=wf, w_offset=1.0, rstd=rms(xf),
                                  y=xf * rms(xf)[:, None] * (1 + wf)[None, :])
    out[check_rmsnorm_fwd_bf16] = dict(base, rstd=rms(f32(x)),
                                       y=bf16(f32(x) * rms(f32(x))[:, None] * f32(w)[None, :]))
    xh, dyh = randn(rows, d).astype(np.float16), randn(rows, d).astype(np.float16)
    gamma = (1 + f(0.1) * randn(d)).astype(np.float16)
    beta = (f(0.1) * randn(d)).astype(np.float16)
    xs = xh.astype(f)
    mean = xs.mean(axis=1, dtype=f)
    rstd = (1 / np.sqrt(((xs - mean[:, None]) ** 2).mean(axis=1) + f(eps))).astype(f)
    xhat = (xs - mean[:, None]) * rstd[:, None]
    g = dyh.astype(f) * gamma.astype(f)[None, :]
    dxh = rstd[:, None] * (g - g.mean(axis=1)[:, None] - xhat * (g * xhat).mean(axis=1)[:, None])
    out[check_layernorm] = dict(
        base, x=xh, dy=dyh, gamma=gamma, beta=beta, mean=mean, rstd=rstd,
        y=(xhat * gamma.astype(f) + beta.astype(f)).astype(np.float16), dx=dxh.astype(np.float16),
        dgamma=(dyh.astype(f) * xhat).sum(axis=0).astype(np.float16),
        dbeta=dyh.astype(f).sum(axis=0).astype(np.float16))
    return out


def selftest():
    """With numpy standing in for CuPy (no GPU): the README's bf16 helpers round as bf16 does,
    fp32 results of every op pass their checks, and each kind of damage a kernel could do to
    any output (an unwritten element, an element 2% off; rstd 0.1% off, h one ulp off, dw with a
    row left out) fails them."""
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

    def nan(a):
        a.flat[5] = 0xFFFF if a.dtype == np.uint16 else np.nan

    def off(factor):
        def damage(a):
            if a.dtype == np.uint16:
                a.flat[7:8] = bf16(f32(a.flat[7:8]) * np.float32(factor))
            else:
                a.flat[7] = a.flat[7] * factor
        return damage

    def one_ulp(a):
        a.flat[1] += 1

    def shifted(a):
        a.flat[7] += 1e-3

    for check, good in fp32_results(ns, np.random.default_rng(7)).items():
        op = check.__name__[len("check_"):]
        results = judged(check(good))
        expect(f"{op}: fp32 results pass ({', '.join(results)})",
               all(j[3] for j in results.values()))
        for output in results:
            damages = [("an unwritten element", nan)]
            if output == "mean":     # a unit-variance row's mean, near 0: off by 1e-3 of its std
                damages.append(("an element 0.001 off", shifted))
            elif output == "rstd":
                damages.append(("an element 0.1% off", off(1.001)))
            else:
                damages.append(("an element 2% off", off(1.02)))
            if output == "h":
                damages.append(("one bf16 ulp off", one_ulp))
            for what, damage in damages:
                bad = dict(good)
                bad[output] = good[output].copy()
                damage(bad[output])
                expect(f"{op}: {output} with {what} fails", not judged(check(bad))[output][3])
    bad = fp32_results(ns, np.random.default_rng(7))[check_rmsnorm_bwd]
    xs, dys = f32(bad["x"])[1:], f32(bad["dy"])[1:]
    rs = 1 / np.sqrt((xs * xs).mean(axis=1) + np.float32(bad["eps"]))
    bad["dw"] = bf16((dys * xs * rs[:, None]).sum(axis=0))
    expect("rmsnorm_bwd: dw with a row left out fails", not judged(check_rmsnorm_bwd(bad))["dw"][3])
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
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                exec(compile(code, f"{args.readme}:{first}", "exec"), ns)
                cp.cuda.Device().synchronize()
            # A warning the block's own code draws (a deprecated call) is the README's to fix;
            # ResourceWarning (`open(...).read()` leaves closing the file to the collector) is not.
            entry["warnings"] = [f"{w.category.__name__}: {w.message}" for w in caught
                                 if not issubclass(w.category, ResourceWarning)]
            for w in entry["warnings"]:
                print(f"line {first}: warning: {w}")
        except Exception:
            entry["error"] = traceback.format_exc()
            print(f"line {first}: the block raised\n{entry['error']}")
            doc["blocks"].append(entry)
            failed = True
            break
        entry["seconds"] = round(time.time() - t0, 3)
        entries = block_entries(code)
        entry["entries"] = entries
        name = " + ".join(entries) or "(no entry)"
        check = check_for(entries)
        if check is None:
            failed = True
            print(f"line {first}: {name}: no check for this block: FAIL")
        else:
            for output, (err, ratio, nans, ok) in judged(check(ns)).items():
                entry["checks"][output] = {"worst_error": err, "worst_ratio": ratio,
                                           "nan": nans, "ok": ok}
                failed |= not ok
                print(f"line {first}: {name}: {output}: worst |err| {err:.3g}, "
                      f"{ratio:.3f} of the bound, {nans} NaN: {'PASS' if ok else 'FAIL'}")
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
