#!/usr/bin/env python3
"""Summarise Nsight Compute's per-instruction counts: executed warp instructions by opcode, and
optionally by address range, from the CSV of

    ncu -i REPORT.ncu-rep --page source --csv --print-source sass > kernel.csv

(a report profiled with --section SourceCounters). Standard library only.

    scripts/ncu_source_summary.py kernel.csv
    scripts/ncu_source_summary.py kernel.csv --per 8192 --region loads=0xb00:0x7940 ...

--per N divides the region counts by N (for example the warps x rows of the launch, to give
instructions per warp and row). Addresses are offsets from the kernel's first instruction.
"""
import argparse
import collections
import csv
import re
import sys


def read_rows(path):
    """(offset, opcode, executed, samples) per SASS instruction."""
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    header_at = next((i for i, r in enumerate(rows) if "Instructions Executed" in r), None)
    if header_at is None:
        sys.exit(f"{path}: no 'Instructions Executed' column; profile with --section SourceCounters")
    header = rows[header_at]
    col_exec = header.index("Instructions Executed")
    col_samples = header.index("Warp Stall Sampling (All Samples)") if \
        "Warp Stall Sampling (All Samples)" in header else None
    out, base = [], None
    for line, r in enumerate(rows[header_at + 1:], start=header_at + 2):
        if len(r) <= col_exec or not r[0].startswith("0x"):
            continue
        try:
            address, executed = int(r[0], 16), int(r[col_exec] or 0)
            samples = int(r[col_samples] or 0) if col_samples is not None else 0
        except ValueError:
            sys.exit(f"{path}:{line}: expected a hex address and integer counts, got {r[:3]}")
        base = address if base is None else base
        # "@!P0 IADD3.X R1, ..." -> IADD3
        opcode = re.sub(r"^@!?U?P\w+\s+", "", r[1].strip()).split(" ")[0].split(".")[0]
        out.append((address - base, opcode, executed, samples))
    if not out:
        sys.exit(f"{path}: no instruction rows")
    return out


def parse_region(text):
    name, _, span = text.partition("=")
    lo, _, hi = span.partition(":")
    try:
        return name, int(lo, 16), int(hi, 16) if hi else None
    except ValueError:
        sys.exit(f"--region {text!r}: expected NAME=0xLO:0xHI (HI may be left out)")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("csv")
    ap.add_argument("--top", type=int, default=30, help="opcodes to list")
    ap.add_argument("--per", type=float, default=1.0, help="divide region counts by this")
    ap.add_argument("--region", action="append", default=[], help="NAME=0xLO:0xHI")
    args = ap.parse_args()
    rows = read_rows(args.csv)
    total = sum(r[2] for r in rows)
    samples = sum(r[3] for r in rows)
    by_op, samples_by_op = collections.Counter(), collections.Counter()
    for _, op, executed, s in rows:
        by_op[op] += executed
        samples_by_op[op] += s
    print(f"total {total} warp instructions, {samples} stall samples")
    for op, n in by_op.most_common(args.top):
        print(f"{op:10s} {n:10d} {100.0 * n / total:5.1f}%  samples {samples_by_op[op]}")
    for text in args.region:
        name, lo, hi = parse_region(text)
        n = sum(r[2] for r in rows if r[0] >= lo and (hi is None or r[0] < hi))
        print(f"{name}: {n / args.per:.0f}")


if __name__ == "__main__":
    main()
