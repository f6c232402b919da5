#!/usr/bin/env python3
"""The A/B table of a device call: cold microseconds per round for each kernel tree, and each
tree's ratio of means to the first tree named.

usage: ab_summary.py DIR TREE [TREE...]
Reads DIR/ab-TREE-*.json (ladder bench documents; the tree is the name's second field) and
prints one line a case (op, dtype, shape). The ratio is "TREE/FIRST x.xxx"; a case a tree lacks
says "missing", so that a case that failed in one tree is never read as level.
"""
import glob
import json
import os
import statistics
import sys


def main():
    folder, trees = sys.argv[1], sys.argv[2:]
    times = {}
    for path in glob.glob(os.path.join(folder, "ab-*.json")):
        tree = os.path.basename(path)[3:-5].split("-")[0]
        for r in json.load(open(path))["results"]:
            if r.get("impl") != "ladder" or "error" in r:
                continue
            case = (r["op"], r["dtype"], f"{r['rows']}x{r['d']}")
            times.setdefault(case, {}).setdefault(tree, []).append(r["cold_us"])
    first = trees[0]
    print(f"cold us per round; TREE/{first}: ratio of the means")
    for case in sorted(times):
        line = f"{' '.join(case):<34}"
        base = times[case].get(first)
        for tree in trees:
            v = times[case].get(tree)
            if not v or not base:
                line += f"  {tree} missing"
                continue
            line += f"  {tree} {'/'.join(f'{x:.2f}' for x in v)}"
            if tree != first:
                line += f"  {tree}/{first} {statistics.mean(v) / statistics.mean(base):.3f}"
        print(line)


if __name__ == "__main__":
    main()
