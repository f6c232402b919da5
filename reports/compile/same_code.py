"""Which bench cases run other machine code than a bench document timed.

usage: same_code.py BENCH.json RESOURCES.json EVERY_BUILD_THEN.json EVERY_BUILD_NOW.json
BENCH.json: the timed bench (its cases' builds, default variants only); RESOURCES.json: `ladder
bench --resources --json` on the kernels now (the builds the plans take now); the every-build
documents (`ladder bench --resources --every-build --json`) of the kernels the bench timed and of
the kernels now, whose `code` digests say whether a build's machine code is the same. A case is
"the same" only when its plan takes the same builds and every one of them has the same code.
"""
import json
import sys


def cases(path):
    """Each default-variant ladder case of a bench document, with the builds its plan took."""
    out = {}
    for r in json.load(open(path))["results"]:
        if r.get("impl") == "ladder" and not r.get("variant"):
            out[(r["op"], r["dtype"], r["rows"], r["d"])] = [k["entry"] for k in r.get("kernels", [])]
    return out


def codes(path):
    """Each build's code digest in an every-build document (None: a document without digests)."""
    return {b["entry"]: b.get("code") for b in json.load(open(path))["builds"]}


def main():
    then, now = cases(sys.argv[1]), cases(sys.argv[2])
    code_then, code_now = codes(sys.argv[3]), codes(sys.argv[4])
    same = []
    for case in sorted(now):
        name = " ".join(map(str, case))
        if case not in then:
            print(f"{name:32} not in the timed bench")
            continue
        if then[case] != now[case]:
            print(f"{name:32} plan differs: {then[case]} -> {now[case]}")
            continue
        # A build without a digest then (not compiled, or no digest recorded) is never the same.
        differ = [k for k in now[case] if code_then.get(k) is None or code_then[k] != code_now.get(k)]
        if differ:
            print(f"{name:32} code differs: " +
                  ", ".join(k if code_then.get(k) else f"{k} (no digest then)" for k in differ))
        else:
            same.append(name)
    print(f"{len(same)} of {len(now)} cases: the same builds with the same machine code as the bench timed")
    for name in same:
        print("  same:", name)


if __name__ == "__main__":
    main()
