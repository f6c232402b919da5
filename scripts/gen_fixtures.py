#!/usr/bin/env python3
"""Writes the normalization fixtures: fixtures/*.json (CPU) or fixtures/gpu/*.json (--gpu).

Every case holds its inputs (exact values of the case's dtype) and one column per reference:
torch's F.rms_norm / F.layer_norm (always with an explicit eps) and flash-linear-attention's
rms_norm_ref / layer_norm_ref with upcast=True; --gpu adds FLA's Triton rms_norm / layer_norm
(prenorm=True for the fused residual). `ladder fixtures check` recomputes every case with the
fp64 oracles in oracles/ and reports how far each column is from them.

Determinism: the same arguments give the same bytes. Inputs come from torch's CPU generator
seeded per case, torch runs on one thread (a thread pool may change a reduction's order), and
the provenance holds no clock: the date is --date (pinned below), and the recorded command
lists only the options that change the content, never the output folder.

Setup and run, from the repository root:
    python3 -m venv .venv-fixtures
    .venv-fixtures/bin/pip install -r scripts/requirements-fixtures.txt
    .venv-fixtures/bin/python scripts/gen_fixtures.py            # writes fixtures/*.json
    .venv-fixtures/bin/python scripts/gen_fixtures.py --gpu      # on the GPU machine

The GPU machine has torch, triton, einops and packaging but no FLA and no network: install the
fla-core wheel pinned in scripts/requirements-fixtures.txt from a carried folder, e.g.
    pip install --no-index --no-deps --target /tmp/site .whl/fla_core-*.whl
    PYTHONPATH=/tmp/site python3 scripts/gen_fixtures.py --gpu --out-dir OUT
then copy OUT/*.json to fixtures/gpu/. --ops writes a subset of the files when time is short.
"""

import argparse
import importlib.metadata
import json
import math
import platform
import sys
import zlib
from pathlib import Path

SCHEMA_VERSION = 1
PINNED_DATE = "2026-11-29"  # the date the fixture set was designed; pass --date to change it
DEFAULT_SEED = 20261129
EPS_SET = (1e-5, 1e-6, 2.0**-23, 0.1)  # 0.1 exposes eps placed outside the sqrt, or dropped
DTYPES = ("f32", "f16", "bf16")
MANTISSA_BITS = {"f32": 23, "f16": 10, "bf16": 7}
REPO = Path(__file__).resolve().parent.parent
GENERATOR = "scripts/gen_fixtures.py"

# Hidden sizes: the small ones run in every dtype. Each large one runs in one dtype per op,
# mostly the 16-bit ones (their values print short), so that together the ops meet every size
# and every dtype while the files stay a few MB. 4096 and 8192 appear in RMSNorm only: the fused
# add stores nine arrays a case, and its code path does not depend on d beyond RMSNorm's.
SMALL_SHAPES = ((1, 257), (2, 83), (3, 7), (4, 2), (8, 1))  # (d, rows)
LARGE_SHAPES = {  # op -> ((d, rows, dtype), ...)
    "rmsnorm": ((511, 2, "f32"), (512, 0, "f16"), (512, 1, "bf16"), (513, 1, "f32"),
                (768, 1, "f16"), (1024, 1, "bf16"), (2049, 1, "f16"), (4096, 1, "bf16"),
                (8192, 1, "bf16")),
    "add_rmsnorm": ((511, 2, "bf16"), (512, 0, "f32"), (512, 1, "f16"), (513, 1, "bf16"),
                    (768, 1, "f32"), (1024, 1, "f16"), (2049, 1, "bf16")),
    "layernorm": ((511, 1, "f16"), (512, 0, "bf16"), (512, 1, "f32"), (513, 1, "f16"),
                  (768, 1, "bf16"), (1024, 1, "f32"), (2049, 1, "bf16")),
}
BACKWARD_SHAPES = ((1, 7), (3, 2), (8, 7))  # in every dtype
BACKWARD_LARGE = {
    "rmsnorm": ((513, 1, "f32"), (2049, 1, "f16")),
    "add_rmsnorm": ((513, 1, "f16"), (1024, 1, "bf16")),
    "layernorm": ((513, 1, "bf16"), (2049, 1, "f16")),
}

# Rows that each exercise one hazard; a "specials" case stacks them (see plan_cases).
SPECIAL_ROWS = ("zero", "constant", "near_constant", "pm1e4", "normal")
# Fused add only: fp16 sums that overflow, the 65504/Inf boundary, bf16 sums lost to rounding.
ADD_SPECIAL_ROWS = ("sum_overflow", "sum_65519", "sum_65520", "lost_256_plus_1")


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--seed", type=int, default=DEFAULT_SEED, help="base seed for every case")
    p.add_argument("--date", default=PINNED_DATE, help="date recorded in the provenance")
    p.add_argument("--out-dir", type=Path, default=None,
                   help="where to write (default fixtures/, or fixtures/gpu/ with --gpu); "
                        "not recorded, so a scratch run can be compared byte for byte")
    p.add_argument("--gpu", action="store_true",
                   help="add FLA's Triton kernels as a column; needs a CUDA device")
    p.add_argument("--ops", default="rmsnorm,add_rmsnorm,layernorm",
                   help="which files to write (comma-separated); a file's content does not depend "
                        "on the others, so this is not recorded either")
    p.add_argument("--device", default="cuda",
                   help="device for --gpu columns (cpu only with TRITON_INTERPRET=1, for testing)")
    return p.parse_args(argv)


def canonical_command(args):
    parts = ["python3", GENERATOR, "--seed", str(args.seed), "--date", args.date]
    if args.gpu:
        parts += ["--gpu", "--device", args.device]
    return " ".join(parts)


# ----------------------------------------------------------------------------- case plan

def plan_cases():
    """Every case as a dict: op, dtype, d, rows, eps, weight/affine, row patterns, id."""
    cases = []

    def add(op, dtype, d, rows, eps, weight, patterns, tag):
        case_id = f"{op}/{dtype}/d{d}x{rows}/{tag}"
        cases.append(dict(id=case_id, op=op, dtype=dtype, d=d, rows=rows, eps=eps,
                          weight=weight, patterns=patterns))

    weights = ("plain", "gemma", "none")
    for op in ("rmsnorm", "add_rmsnorm", "layernorm"):
        def weight_for(i):
            return ("affine", "none")[i % 2] if op == "layernorm" else weights[i % 3]

        i = 0
        for dtype in DTYPES:
            for d, rows in SMALL_SHAPES:
                eps = EPS_SET[i % len(EPS_SET)]
                add(op, dtype, d, rows, eps, weight_for(i), ["normal"] * rows,
                    f"sweep-{weight_for(i)}-eps{eps:g}")
                i += 1
        for d, rows, dtype in LARGE_SHAPES[op]:
            eps = EPS_SET[i % len(EPS_SET)]
            add(op, dtype, d, rows, eps, weight_for(i), ["normal"] * rows,
                f"sweep-{weight_for(i)}-eps{eps:g}")
            i += 1
        # The hazard rows at every eps and dtype: the eps sweep matters most on them.
        specials = list(SPECIAL_ROWS) + (list(ADD_SPECIAL_ROWS) if op == "add_rmsnorm" else [])
        for dtype in DTYPES:
            for k, eps in enumerate(EPS_SET):
                weight = weight_for(k)
                d = 16 if op == "add_rmsnorm" else 8  # room for the split rows' two halves
                add(op, dtype, d, len(specials), eps, weight, specials,
                    f"specials-{weight}-eps{eps:g}")
        # Backward: the same references differentiated by autograd.
        k = 0
        for d, rows in BACKWARD_SHAPES:
            for dtype in DTYPES:
                eps, weight = EPS_SET[k % len(EPS_SET)], weight_for(k)
                add(op + "_backward", dtype, d, rows, eps, weight, ["normal"] * rows,
                    f"sweep-{weight}-eps{eps:g}")
                k += 1
        for d, rows, dtype in BACKWARD_LARGE[op]:
            eps, weight = EPS_SET[k % len(EPS_SET)], weight_for(k)
            add(op + "_backward", dtype, d, rows, eps, weight, ["normal"] * rows,
                f"sweep-{weight}-eps{eps:g}")
            k += 1
        for j, dtype in enumerate(DTYPES):
            eps, weight = EPS_SET[j], weight_for(j + 1)
            add(op + "_backward", dtype, 8, len(SPECIAL_ROWS), eps, weight, list(SPECIAL_ROWS),
                f"specials-{weight}-eps{eps:g}")
    return cases


# ----------------------------------------------------------------------------- inputs

def ulp(value, dtype):
    """Spacing of the dtype's numbers at `value` (a normal number)."""
    return 2.0 ** (math.floor(math.log2(abs(value))) - MANTISSA_BITS[dtype])


def pattern_row(torch, name, d, dtype, gen, family):
    """One row of x (and of r for the fused add), as float64 before rounding to the dtype."""
    def randn(scale=1.0):
        return torch.randn(d, generator=gen, dtype=torch.float64) * scale

    zeros = torch.zeros(d, dtype=torch.float64)
    if name == "normal":
        return randn(), randn(0.5)
    if name == "zero":
        return zeros, zeros.clone()
    if name == "constant":  # x and r each 1.25: exact in every dtype, sum 2.5
        return torch.full((d,), 1.25, dtype=torch.float64), torch.full((d,), 1.25, dtype=torch.float64)
    if name == "near_constant":
        # One ulp either side of c. For RMSNorm c = 1e-3 puts mean(x^2) near 1e-6, where eps
        # dominates; for LayerNorm c = 1 makes the variance about ulp^2, far below eps.
        c = 1.0 if family == "layernorm" else 1e-3
        c = float(torch.tensor(c).to(torch_dtype(torch, dtype)).double())
        steps = torch.randint(-1, 2, (d,), generator=gen).double()
        return c + steps * ulp(c, dtype), zeros.clone()
    if name == "pm1e4":  # fp16's x*x overflows here unless the kernel upcasts
        signs = torch.randint(0, 2, (d,), generator=gen).double() * 2 - 1
        return signs * 1e4, randn(0.5)
    x, r = randn(), zeros.clone()
    if name == "sum_overflow":  # 40000 + 40000 overflows fp16 when the sum is rounded
        x[0], r[0], x[1], r[1] = 40000.0, 40000.0, -40000.0, -40000.0
    elif name == "sum_65519":  # rounds down to 65504, the largest fp16
        x[0], r[0] = 65504.0, 15.0
    elif name == "sum_65520":  # the tie just above 65504 rounds to Inf
        x[0], r[0] = 65504.0, 16.0
    elif name == "lost_256_plus_1":
        # bf16 keeps 256 + 1 as 256. Half the row loses that 1; the other half holds small
        # values whose normalized size shows whether the 1 was kept (A) or lost (B).
        half = d // 2
        x[:half], r[:half] = 256.0, 1.0
        x[half:] = torch.linspace(0.5, 3.0, d - half, dtype=torch.float64)
    else:
        raise ValueError(f"unknown row pattern {name}")
    return x, r


def torch_dtype(torch, name):
    return {"f32": torch.float32, "f16": torch.float16, "bf16": torch.bfloat16}[name]


def make_inputs(torch, case, seed):
    """Inputs as tensors of the case's dtype; the generator is seeded from the case id alone."""
    gen = torch.Generator().manual_seed(seed + zlib.crc32(case["id"].encode()))
    dt = torch_dtype(torch, case["dtype"])
    d, op = case["d"], case["op"]
    family = op.replace("_backward", "")
    xs, rs = [], []
    for name in case["patterns"]:
        x, r = pattern_row(torch, name, d, case["dtype"], gen, family)
        xs.append(x)
        rs.append(r)
    shape = (case["rows"], d)
    x = torch.stack(xs).to(dt) if xs else torch.zeros(shape, dtype=dt)
    inputs = {"x": x}
    if family == "add_rmsnorm":
        inputs["r"] = torch.stack(rs).to(dt) if rs else torch.zeros(shape, dtype=dt)
    if case["weight"] == "plain":
        inputs["w"] = torch.randn(d, generator=gen, dtype=torch.float64).to(dt)
    elif case["weight"] == "gemma":  # Gemma stores w with the effective weight 1 + w near 0
        inputs["w"] = (-1.0 + 0.05 * torch.randn(d, generator=gen, dtype=torch.float64)).to(dt)
    elif case["weight"] == "affine":
        inputs["gamma"] = torch.randn(d, generator=gen, dtype=torch.float64).to(dt)
        inputs["beta"] = torch.randn(d, generator=gen, dtype=torch.float64).to(dt)
    if op.endswith("_backward"):
        inputs["dy"] = torch.randn(shape, generator=gen, dtype=torch.float64).to(dt)
        if family == "add_rmsnorm":
            inputs["dh"] = torch.randn(shape, generator=gen, dtype=torch.float64).to(dt)
    return inputs


# ----------------------------------------------------------------------------- references

class References:
    """The reference columns. Each column is a function of the input tensors that returns its
    forward outputs; backward columns differentiate the same function with autograd."""

    def __init__(self, torch, gpu_device=None):
        import torch.nn.functional as F
        from fla.modules import layernorm as fla_norm

        self.torch, self.F, self.fla, self.gpu_device = torch, F, fla_norm, gpu_device
        self.torch_version = torch.__version__
        self.fla_version = importlib.metadata.version("fla-core")

    # Gemma's effective weight 1 + w is formed in fp32, as Gemma's own code does, so no
    # reference rounds it to a 16-bit dtype.
    def weight(self, case, inp, fp32=False, ones_if_none=False):
        w = inp.get("w")
        if case["weight"] == "gemma":
            return 1 + w.float()
        if w is None:
            return self.torch.ones(case["d"], dtype=inp["x"].dtype, device=inp["x"].device) \
                if ones_if_none else None
        return w.float() if fp32 else w

    def torch_rms(self, h, case, inp):
        d, eps = case["d"], case["eps"]
        if case["weight"] == "gemma":
            return self.F.rms_norm(h.float(), (d,), weight=self.weight(case, inp), eps=eps).to(h.dtype)
        return self.F.rms_norm(h, (d,), weight=self.weight(case, inp), eps=eps)

    def columns(self, case):
        """name -> (metadata, forward function returning {output: tensor})."""
        family = case["op"].replace("_backward", "")
        d, eps = case["d"], case["eps"]
        tv, fv = f"torch {self.torch_version}", f"fla-core {self.fla_version}"
        cols = {}
        if family == "rmsnorm":
            cols["torch"] = (dict(library=tv, call="F.rms_norm(x, (d,), weight=w, eps=eps); "
                                  "gemma: F.rms_norm(x.float(), (d,), weight=1 + w.float(), eps=eps)"),
                             lambda i: {"y": self.torch_rms(i["x"], case, i)})
            cols["fla_ref"] = (dict(library=fv, call="rms_norm_ref(x, w or ones, None, eps=eps, "
                                    "upcast=True)"),
                               lambda i: {"y": self.fla.rms_norm_ref(
                                   i["x"], self.weight(case, i, ones_if_none=True), None, eps=eps,
                                   upcast=True)})
        elif family == "add_rmsnorm":
            def torch_a(i):
                h = i["x"].float() + i["r"].float()
                y = self.F.rms_norm(h, (d,), weight=self.weight(case, i, fp32=True), eps=eps)
                return {"y": y.to(i["x"].dtype), "h": h.to(i["x"].dtype)}

            def torch_b(i):
                h = i["x"] + i["r"]
                return {"y": self.torch_rms(h, case, i), "h": h}

            def fla_ref(i):
                y, h = self.fla.rms_norm_ref(i["x"], self.weight(case, i, ones_if_none=True), None,
                                             residual=i["r"], eps=eps, prenorm=True, upcast=True)
                return {"y": y, "h": h}

            cols["torch_a"] = (dict(library=tv, convention="A",
                                    call="h = x.float() + r.float(); y = F.rms_norm(h, (d,), "
                                         "weight=w.float(), eps=eps).to(dtype); h.to(dtype)"), torch_a)
            cols["torch_b"] = (dict(library=tv, convention="B",
                                    call="h = x + r; y = F.rms_norm(h, (d,), weight=w, eps=eps)"),
                               torch_b)
            cols["fla_ref"] = (dict(library=fv, convention="A",
                                    call="rms_norm_ref(x, w or ones, None, residual=r, eps=eps, "
                                         "prenorm=True, upcast=True)"), fla_ref)
        else:
            def torch_ln(i):
                y = self.F.layer_norm(i["x"], (d,), i.get("gamma"), i.get("beta"), eps=eps)
                with self.torch.no_grad():
                    _, mean, rstd = self.torch.native_layer_norm(i["x"], (d,), i.get("gamma"),
                                                                 i.get("beta"), eps)
                return {"y": y, "mean": mean.reshape(-1), "rstd": rstd.reshape(-1)}

            def fla_ln(i):
                gamma = i.get("gamma")
                if gamma is None:  # layer_norm_ref reads weight.dtype, so it needs a weight
                    gamma = self.torch.ones(d, dtype=i["x"].dtype)
                return {"y": self.fla.layer_norm_ref(i["x"], gamma, i.get("beta"), eps=eps,
                                                     upcast=True)}

            torch_meta = dict(library=tv, call="F.layer_norm(x, (d,), gamma, beta, eps=eps); "
                                               "mean, rstd from torch.native_layer_norm")
            if case["op"].endswith("_backward") and case["dtype"] != "f32" \
                    and case["weight"] == "affine":
                # Measured: torch's CPU LayerNorm backward for f16/bf16 keeps mean and rstd in the
                # io dtype and rounds while summing dgamma/dbeta, so the fp32 bound does not hold.
                torch_meta["compute"] = {"dgamma": case["dtype"], "dbeta": case["dtype"]}
                torch_meta["note"] = ("torch's CPU LayerNorm backward for 16-bit inputs sums "
                                      "dgamma and dbeta with io-dtype roundings")
            cols["torch"] = (torch_meta, torch_ln)
            cols["fla_ref"] = (dict(library=fv, call="layer_norm_ref(x, gamma or ones, beta, "
                                    "eps=eps, upcast=True)"), fla_ln)
        if self.gpu_device is not None:
            cols["fla_triton"] = self.triton_column(case, family)
        for meta, _ in cols.values():
            meta.setdefault("device", "cpu")
        return cols

    def triton_column(self, case, family):
        import triton

        d, eps, dev = case["d"], case["eps"], self.gpu_device
        name = self.torch.cuda.get_device_name(dev) if str(dev).startswith("cuda") else str(dev)
        meta = dict(library=f"fla-core {self.fla_version} (Triton {triton.__version__})",
                    device=name, produced_on="gpu")

        def on_device(i):
            return {k: v.to(dev) for k, v in i.items()}

        if family == "rmsnorm":
            meta["call"] = "fla.modules.layernorm.rms_norm(x, w, None, eps=eps)"
            fn = lambda i: {"y": self.fla.rms_norm(i["x"], self.weight(case, i), None, eps=eps)}
        elif family == "add_rmsnorm":
            meta["convention"] = "A"
            meta["call"] = "fla.modules.layernorm.rms_norm(x, w, None, residual=r, eps=eps, prenorm=True)"

            def fn(i):
                y, h = self.fla.rms_norm(i["x"], self.weight(case, i), None, residual=i["r"],
                                         eps=eps, prenorm=True)
                return {"y": y, "h": h}
        else:
            meta["call"] = "fla.modules.layernorm.layer_norm(x, gamma, beta, eps=eps)"
            fn = lambda i: {"y": self.fla.layer_norm(i["x"], i.get("gamma"), i.get("beta"), eps=eps)}
        return meta, lambda i: fn(on_device(i))


def run_column(torch, case, inputs, forward):
    """Forward outputs, or for a backward op the gradients autograd gives for dy (and dh)."""
    if not case["op"].endswith("_backward"):
        with torch.no_grad():
            return forward(inputs)
    leaves = {k: v.clone().requires_grad_(True) for k, v in inputs.items() if k not in ("dy", "dh")}
    out = forward({**inputs, **leaves})
    tensors, grads = [out["y"]], [inputs["dy"].to(out["y"].device, out["y"].dtype)]
    if "dh" in inputs:
        tensors.append(out["h"])
        grads.append(inputs["dh"].to(out["h"].device, out["h"].dtype))
    torch.autograd.backward(tensors, grads)
    names = {"x": "dx", "r": "dr", "w": "dw", "gamma": "dgamma", "beta": "dbeta"}
    return {names[k]: v.grad for k, v in leaves.items() if v.grad is not None}


# ----------------------------------------------------------------------------- output

def dtype_label(torch, t):
    return {torch.float32: "f32", torch.float16: "f16", torch.bfloat16: "bf16",
            torch.float64: "f64"}[t.dtype]


def encode_values(t):
    """Exact values as JSON: Python's repr of a double round-trips; NaN/Inf become strings."""
    out = []
    for v in t.detach().cpu().double().flatten().tolist():
        if math.isnan(v):
            out.append("NaN")
        elif math.isinf(v):
            out.append("Infinity" if v > 0 else "-Infinity")
        else:
            out.append(v)
    return out


def build_case(torch, refs, case, seed):
    inputs = make_inputs(torch, case, seed)
    family = case["op"].replace("_backward", "")
    entry = {"id": case["id"], "op": case["op"], "dtype": case["dtype"], "rows": case["rows"],
             "d": case["d"], "eps": case["eps"]}
    if family == "layernorm":
        entry["affine"] = case["weight"] == "affine"
    else:
        entry["weight"] = case["weight"]
    entry["row_patterns"] = case["patterns"]
    entry["inputs"] = {k: encode_values(v) for k, v in inputs.items()}
    entry["references"] = {}
    for name, (meta, forward) in refs.columns(case).items():
        column = dict(meta)
        if meta.get("produced_on") == "gpu" and case["rows"] == 0:
            continue  # Triton cannot launch an empty grid, and zero rows leave nothing to write
        try:
            outputs = run_column(torch, case, inputs, forward)
        except Exception as err:  # noqa: BLE001 - one failing kernel must not cost a GPU run
            if meta.get("produced_on") != "gpu":
                raise
            column["error"] = f"{type(err).__name__}: {err}".splitlines()[0][:300]
            entry["references"][name] = column
            continue
        column["stored_as"] = {k: dtype_label(torch, v) for k, v in outputs.items()}
        column["outputs"] = {k: encode_values(v) for k, v in outputs.items()}
        entry["references"][name] = column
    return entry


def dump(obj, indent=0):
    """JSON with one key per line but each list of numbers on one line: reviewable, compact."""
    pad = " " * indent
    if isinstance(obj, dict):
        items = [f"{pad}  {json.dumps(k)}: {dump(v, indent + 2)}" for k, v in obj.items()]
        return "{\n" + ",\n".join(items) + "\n" + pad + "}" if items else "{}"
    if isinstance(obj, list) and any(isinstance(v, (dict, list)) for v in obj):
        items = [pad + "  " + dump(v, indent + 2) for v in obj]
        return "[\n" + ",\n".join(items) + "\n" + pad + "]"
    return json.dumps(obj, allow_nan=False, separators=(",", ":"))


def provenance(torch, refs, args):
    libc = "-".join(x for x in platform.libc_ver() if x)
    prov = {
        "generator": GENERATOR,
        "torch": refs.torch_version,
        "fla": refs.fla_version,
        "python": platform.python_version(),
        "platform": "-".join(x for x in (platform.system(), platform.machine(), libc) if x),
        "date": args.date,
        "seed": args.seed,
        "command": canonical_command(args),
        "torch_threads": 1,
    }
    if args.gpu:
        import triton
        prov["triton"] = triton.__version__
        prov["cuda"] = torch.version.cuda
        prov["device"] = (torch.cuda.get_device_name(args.device)
                          if args.device.startswith("cuda") else args.device)
    return prov


def write_atomically(path, text):
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(text, encoding="utf-8")
    tmp.replace(path)


def main(argv):
    args = parse_args(argv)
    import torch

    torch.set_num_threads(1)  # a thread pool can change a reduction's order between runs
    torch.use_deterministic_algorithms(True, warn_only=args.gpu)
    if args.gpu and args.device.startswith("cuda") and not torch.cuda.is_available():
        sys.exit("--gpu needs a CUDA device (torch.cuda.is_available() is False)")
    refs = References(torch, gpu_device=args.device if args.gpu else None)
    out_dir = args.out_dir or (REPO / "fixtures" / "gpu" if args.gpu else REPO / "fixtures")
    wanted = set(args.ops.split(","))
    files = {}
    for case in plan_cases():
        family = case["op"].replace("_backward", "")
        if family in wanted:
            files.setdefault(family, []).append(build_case(torch, refs, case, args.seed))
    prov = provenance(torch, refs, args)
    for family, cases in files.items():
        doc = {"schema_version": SCHEMA_VERSION, "provenance": prov, "cases": cases}
        path = out_dir / f"{family}.json"
        write_atomically(path, dump(doc) + "\n")
        print(f"{path}: {len(cases)} cases, {path.stat().st_size} bytes")


if __name__ == "__main__":
    main(sys.argv[1:])
