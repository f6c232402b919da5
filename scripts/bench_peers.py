#!/usr/bin/env python3
"""Peer benchmarks for the normalization kernels, run on the GPU machine.

Measures what a PyTorch user has at hand on the shapes `ladder bench` uses:
  - torch eager: add, then F.rms_norm (eps always explicit: its default changed between releases);
  - torch.compile of the same function;
  - a one-row-per-program Triton kernel for fused add + RMSNorm (convention A), written here;
  - F.layer_norm;
  - eager autograd backward of F.rms_norm and F.layer_norm;
plus a device-to-device copy in the same run, the ceiling every figure is a fraction of.

Bandwidth counts the minimum bytes an op must move: fused forward reads x, r, w and writes y, h;
RMSNorm reads x, w and writes y; LayerNorm reads x, gamma, beta and writes y; backward reads x, dy,
w and writes dx, dw (and dbeta for LayerNorm). Times are medians of CUDA-event timings; "cold"
flushes L2 before every repetition (outside the timed region), "hot" does not. A cold entry also
carries "us_clean": the same flush followed by one read of the flush buffer, so that the L2 holds
clean lines only and the timed call pays for no write-back of the flush's dirty ones (as
`ladder bench`'s cold_clean_us, harness/bench/l2_flush.h).

Writes JSON (--json FILE, replaced atomically after every measurement):
  {"peers": [{"op", "dtype", "rows", "d", "impl", "cache", "us", "gbps", "fraction_of_copy",
              "us_clean" (cold only)}
             | {..., "error": "..."}],
   "copy_gbps": ..., "device": ..., "torch": ..., "triton": ..., "date": ...}
A failing implementation records its error and the run goes on.
"""
import argparse
import datetime
import json
import os
import statistics
import sys
import tempfile
import traceback

import torch
import torch.nn.functional as F

try:
    import triton
    import triton.language as tl
except Exception:  # the other peers still run without Triton
    triton = None
    tl = None

EPS = 1e-6
DTYPES = {"bf16": torch.bfloat16, "f16": torch.float16, "f32": torch.float32}
L2_FLUSH_BYTES = 256 * 1024 * 1024  # larger than any GPU's L2 today


# ---------------------------------------------------------------------------------------------
# Timing
# ---------------------------------------------------------------------------------------------
class Timer:
    def __init__(self, reps, warmup):
        self.reps = reps
        self.warmup = warmup
        self.flush_buffer = torch.empty(L2_FLUSH_BYTES, dtype=torch.uint8, device="cuda")
        self.flush_words = self.flush_buffer.view(torch.int64)

    def median_us(self, fn, cold, clean=False):
        """Median over reps of one call's GPU time, in microseconds. clean: after the cold
        flush's writes, read the flush buffer once (a sum), leaving the L2 clean."""
        for _ in range(self.warmup):
            fn()
        torch.cuda.synchronize()
        starts = [torch.cuda.Event(enable_timing=True) for _ in range(self.reps)]
        ends = [torch.cuda.Event(enable_timing=True) for _ in range(self.reps)]
        for i in range(self.reps):
            if cold:
                self.flush_buffer.zero_()
                if clean:
                    self.flush_words.sum()
            starts[i].record()
            fn()
            ends[i].record()
        torch.cuda.synchronize()
        return statistics.median(s.elapsed_time(e) for s, e in zip(starts, ends)) * 1e3


# ---------------------------------------------------------------------------------------------
# The Triton peer: one program per row, the whole row in one block (convention A)
# ---------------------------------------------------------------------------------------------
if triton is not None:

    @triton.jit
    def _add_rmsnorm_row(x_ptr, r_ptr, w_ptr, y_ptr, h_ptr, d, eps, BLOCK: tl.constexpr):
        row = tl.program_id(0)
        cols = tl.arange(0, BLOCK)
        mask = cols < d
        offset = row.to(tl.int64) * d
        x = tl.load(x_ptr + offset + cols, mask=mask, other=0.0).to(tl.float32)
        r = tl.load(r_ptr + offset + cols, mask=mask, other=0.0).to(tl.float32)
        s = x + r  # the fp32 sum: stored rounded, normalized unrounded (convention A)
        tl.store(h_ptr + offset + cols, s.to(h_ptr.dtype.element_ty), mask=mask)
        rstd = 1.0 / tl.sqrt(tl.sum(s * s, axis=0) / d + eps)
        w = tl.load(w_ptr + cols, mask=mask, other=0.0).to(tl.float32)
        tl.store(y_ptr + offset + cols, (s * rstd * w).to(y_ptr.dtype.element_ty), mask=mask)


def triton_add_rmsnorm(x, r, w, y, h):
    rows, d = x.shape
    block = triton.next_power_of_2(d)
    warps = 4 if block <= 2048 else 8 if block <= 8192 else 16
    _add_rmsnorm_row[(rows,)](x, r, w, y, h, d, EPS, BLOCK=block, num_warps=warps)


# ---------------------------------------------------------------------------------------------
# Cases
# ---------------------------------------------------------------------------------------------
def eager_add_rmsnorm(x, r, w):
    h = x + r
    return F.rms_norm(h, (x.shape[-1],), w, EPS), h


def min_bytes(op, rows, d, elem):
    tensor = rows * d * elem
    if op == "add_rmsnorm":
        return 4 * tensor + d * elem  # x, r in; y, h out; w
    if op == "rmsnorm":
        return 2 * tensor + d * elem
    if op == "layernorm":
        return 2 * tensor + 2 * d * elem
    if op == "rmsnorm_bwd":
        return 3 * tensor + 2 * d * elem  # x, dy in; dx out; w in, dw out
    if op == "layernorm_bwd":
        return 3 * tensor + 3 * d * elem  # plus dbeta
    raise ValueError(op)


def ready(fn):
    """A factory for a callable that needs no preparation."""
    return lambda: fn


def forward_impls(op, rows, d, dtype):
    """(impl name, factory) pairs. A factory prepares (compiles) and returns the callable to time;
    it may raise, which records an error for that impl only."""
    g = torch.Generator(device="cuda").manual_seed(0)
    x = torch.randn(rows, d, device="cuda", dtype=dtype, generator=g)
    w = torch.rand(d, device="cuda", dtype=dtype, generator=g)
    out = []
    if op == "add_rmsnorm":
        r = torch.randn(rows, d, device="cuda", dtype=dtype, generator=g)
        y, h = torch.empty_like(x), torch.empty_like(x)
        out.append(("torch_eager", ready(lambda: eager_add_rmsnorm(x, r, w))))

        def compiled():
            f = torch.compile(eager_add_rmsnorm, dynamic=False)
            f(x, r, w)  # compile now, outside the timing
            return lambda: f(x, r, w)

        out.append(("torch_compile", compiled))

        def triton_peer():
            if triton is None:
                raise RuntimeError("triton is not importable")
            triton_add_rmsnorm(x, r, w, y, h)  # JIT-compile now, outside the timing
            return lambda: triton_add_rmsnorm(x, r, w, y, h)

        out.append(("triton_row", triton_peer))
    elif op == "rmsnorm":
        out.append(("torch_eager", ready(lambda: F.rms_norm(x, (d,), w, EPS))))

        def compiled():
            f = torch.compile(lambda a: F.rms_norm(a, (d,), w, EPS), dynamic=False)
            f(x)
            return lambda: f(x)

        out.append(("torch_compile", compiled))
    elif op == "layernorm":
        b = torch.randn(d, device="cuda", dtype=dtype, generator=g)
        out.append(("torch_eager", ready(lambda: F.layer_norm(x, (d,), w, b, EPS))))

        def compiled():
            f = torch.compile(lambda a: F.layer_norm(a, (d,), w, b, EPS), dynamic=False)
            f(x)
            return lambda: f(x)

        out.append(("torch_compile", compiled))
    return out


def backward_impls(op, rows, d, dtype):
    g = torch.Generator(device="cuda").manual_seed(1)
    x = torch.randn(rows, d, device="cuda", dtype=dtype, generator=g, requires_grad=True)
    w = torch.rand(d, device="cuda", dtype=dtype, generator=g, requires_grad=True)
    dy = torch.randn(rows, d, device="cuda", dtype=dtype, generator=g)
    if op == "rmsnorm_bwd":
        y = F.rms_norm(x, (d,), w, EPS)
        inputs = (x, w)
    else:
        b = torch.randn(d, device="cuda", dtype=dtype, generator=g, requires_grad=True)
        y = F.layer_norm(x, (d,), w, b, EPS)
        inputs = (x, w, b)
    # The forward runs once, outside the timing; each call replays only the backward graph.
    return [("torch_eager_autograd",
             ready(lambda: torch.autograd.grad(y, inputs, dy, retain_graph=True)))]


# (op, dtype, rows, d)
FORWARD_CASES = [
    ("add_rmsnorm", "bf16", 16384, 4096),
    ("add_rmsnorm", "bf16", 8192, 2049),
    ("add_rmsnorm", "bf16", 512, 32768),
    ("add_rmsnorm", "bf16", 1, 4096),
    ("rmsnorm", "bf16", 16384, 4096),
    ("layernorm", "bf16", 16384, 4096),
    ("layernorm", "bf16", 4096, 16384),
    ("layernorm", "bf16", 2048, 32768),
]
BACKWARD_CASES = [
    (op, dt, 16384, 4096) for op in ("rmsnorm_bwd", "layernorm_bwd") for dt in ("bf16", "f32")
] + [(op, "bf16", 2048, 16384) for op in ("rmsnorm_bwd", "layernorm_bwd")]


# ---------------------------------------------------------------------------------------------
# Output
# ---------------------------------------------------------------------------------------------
def write_json_atomic(path, doc):
    folder = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(prefix=".bench_peers.", suffix=".json", dir=folder)
    try:
        with os.fdopen(fd, "w") as f:
            json.dump(doc, f, indent=2, sort_keys=True)
            f.write("\n")
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def measure_copy_gbps(timer, cold):
    n = 1 << 30  # 1 GiB each way: far past L2
    src = torch.empty(n, dtype=torch.uint8, device="cuda").random_(0, 255)
    dst = torch.empty_like(src)
    us = timer.median_us(lambda: dst.copy_(src), cold)
    del src, dst
    return 2 * n / (us * 1e-6) / 1e9


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--json", help="write results to FILE (atomically, after each measurement)")
    ap.add_argument("--reps", type=int, default=50)
    ap.add_argument("--warmup", type=int, default=10)
    ap.add_argument("--cache", default="cold", help="cold, hot or cold,hot")
    ap.add_argument("--only", default="", help="comma-separated ops to run (default: all)")
    ap.add_argument("--shape", action="append", default=[], metavar="ROWSxD",
                    help="run only the cases of this shape (repeatable; default: every shape)")
    args = ap.parse_args()

    modes = [m for m in args.cache.split(",") if m]
    for m in modes:
        if m not in ("cold", "hot"):
            ap.error(f"--cache: unknown mode {m!r}")
    only = {o for o in args.only.split(",") if o}
    shapes = set()
    for text in args.shape:
        try:
            rows_text, d_text = text.lower().split("x")
            shapes.add((int(rows_text), int(d_text)))
        except ValueError:
            ap.error(f"--shape {text!r}: expected ROWSxD, such as 1x4096")
    cases = [c for c in FORWARD_CASES + BACKWARD_CASES
             if (not only or c[0] in only) and (not shapes or (c[2], c[3]) in shapes)]
    if not cases:
        ap.error("--only and --shape leave no case to run")
    if not torch.cuda.is_available():
        print("bench_peers: no CUDA device", file=sys.stderr)
        return 2
    timer = Timer(args.reps, args.warmup)
    doc = {
        "schema_version": 1,
        "device": torch.cuda.get_device_name(),
        "torch": torch.__version__,
        "triton": getattr(triton, "__version__", None) if triton is not None else None,
        "cuda": torch.version.cuda,
        "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "eps": EPS,
        "peers": [],
    }
    doc["copy_gbps"] = measure_copy_gbps(timer, cold=True)
    print(f"copy ceiling: {doc['copy_gbps']:.0f} GB/s ({doc['device']})")
    if args.json:
        write_json_atomic(args.json, doc)

    for op, dt, rows, d in cases:
        dtype = DTYPES[dt]
        builder = backward_impls if op.endswith("_bwd") else forward_impls
        try:
            impls = builder(op, rows, d, dtype)
        except Exception as e:  # allocation or setup failed: record it once
            impls = [("setup", e)]
        for impl, factory in impls:
            fn, setup_error = None, None
            try:
                if isinstance(factory, Exception):
                    raise factory
                fn = factory()
            except Exception as e:
                setup_error = e
            for cache in modes:
                entry = {"op": op, "dtype": dt, "rows": rows, "d": d, "impl": impl,
                         "cache": cache}
                try:
                    if setup_error is not None:
                        raise setup_error
                    us = timer.median_us(fn, cache == "cold")
                    gbps = min_bytes(op, rows, d, dtype.itemsize) / (us * 1e-6) / 1e9
                    entry.update(us=us, gbps=gbps, fraction_of_copy=gbps / doc["copy_gbps"])
                    if cache == "cold":
                        entry["us_clean"] = timer.median_us(fn, True, clean=True)
                    print(f"{op:14s} {dt:4s} {rows:6d}x{d:<6d} {impl:22s} {cache:4s} "
                          f"{us:10.2f} us {gbps:8.0f} GB/s {entry['fraction_of_copy']:.2f}"
                          + (f" clean {entry['us_clean']:10.2f} us" if "us_clean" in entry else ""))
                except Exception as e:
                    entry["error"] = f"{type(e).__name__}: {e}".strip()[:2000]
                    entry["traceback"] = "".join(
                        traceback.format_exception(type(e), e, e.__traceback__, limit=4))[-2000:]
                    print(f"{op:14s} {dt:4s} {rows:6d}x{d:<6d} {impl:22s} {cache:4s} "
                          f"ERROR {entry['error'][:120]}")
                doc["peers"].append(entry)
                if args.json:
                    write_json_atomic(args.json, doc)
            del fn
        torch.cuda.empty_cache()
    return 0


if __name__ == "__main__":
    sys.exit(main())
