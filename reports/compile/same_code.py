"""Which bench cases run other machine code than a bench document timed.

usage: same_code.py BENCH.json RESOURCES.json EVERY_BUILD_THEN.json EVERY_BUILD_NOW.json
BENCH.json: the timed bench (its cases' builds, default variants only); RESOURCES.json: `ladder
bench --resources --json` on the kernels now (the builds the plans take now); the every-build
documents (`ladder bench --resources --every-build --json`) of the kernels the bench timed and of
the kernels now, whose `code` digests say whether a build's machine code is the same. A case is
"the same" only when its plan takes the same builds and every one of them has the same code.
"""
import json, sys
then_doc, now_doc, eb_then, eb_now = sys.argv[1:5]
def cases(path):
    out = {}
    for r in json.load(open(path))['results']:
        if r.get('impl') != 'ladder' or r.get('variant'): continue
        out[(r['op'], r['dtype'], r['rows'], r['d'])] = [k['entry'] for k in r.get('kernels', [])]
    return out
then, now = cases(then_doc), cases(now_doc)
code = lambda p: {b['entry']: b.get('code') for b in json.load(open(p))['builds']}
ct, cn = code(eb_then), code(eb_now)
same = []
for case in sorted(now):
    a, b = then.get(case), now[case]
    if a is None: print('not in call 258:', case); continue
    if a != b:
        print(f"{' '.join(map(str, case)):32} plan differs: {a} -> {b}"); continue
    diff = [k for k in b if ct.get(k) is None or ct.get(k) != cn.get(k)]
    if diff:
        print(f"{' '.join(map(str, case)):32} code differs: " + ', '.join(f"{k}{'' if ct.get(k) else ' (not compiled from then)'}" for k in diff))
    else: same.append(case)
print(f"{len(same)} of {len(now)} cases: the same builds with the same machine code as call 258 timed")
for c in same: print('  same:', ' '.join(map(str, c)))
