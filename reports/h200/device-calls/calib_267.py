# The stand-in's calibration: each fraction target row of the H200's targets, its cold fraction of
# the copy ceiling on the H200 (call 258, bench.json) and on an H100 (call 267): the whole GPU, and
# green contexts of 96 SMs (two runs) and 88.
import json, sys, tarfile
# Reads call 267's documents from reports/h100/stand-in-267.tgz.
_tar = tarfile.open("reports/h100/stand-in-267.tgz")
def load(p):
    d = json.load(_tar.extractfile(p.split(":", 1)[1]) if p.startswith("stand-in-267.tgz:") else open(p))
    return {(r['op'], r['dtype'], r['rows'], r['d']): r for r in d['results']
            if r.get('impl') == 'ladder' and 'error' not in r}, d
runs = [('H200 (258)', 'reports/h200/bench.json'), ('H100 all', 'stand-in-267.tgz:proxy-0.json'),
        ('96 SMs', 'stand-in-267.tgz:proxy-96.json'), ('96 SMs b', 'stand-in-267.tgz:proxy-96b.json'),
        ('88 SMs', 'stand-in-267.tgz:proxy-88.json')]
data = [(name, *load(p)) for name, p in runs]
for name, _, d in data:
    print(f"{name}: copy ceiling {d['copy']['gbps']:.0f} GB/s, {d['toolchain'].get('gpu')}, SMs {d['toolchain'].get('sm_count')}")
targets = json.load(open('reports/h200/targets.json'))['targets']
agree = {n: [0, 0] for n, _, _ in data[1:]}
for t in targets:
    if t.get('metric') != 'cold_fraction': continue
    print(f"\n## {t['text']} (at least {t['at_least']})")
    print(f"{'op':<16}{'dtype':<6}{'rows x d':>12}  " + "  ".join(f"{n:>10}" for n, _, _ in data))
    for k in sorted(data[0][1]):
        op, dt, rows, d = k
        r = data[0][1][k]
        if op not in t['ops'] or ('d' in t and d not in t['d']) or r.get('bytes', 0) < t.get('min_bytes', 0): continue
        if 'dtypes' in t and dt not in t['dtypes']: continue
        cells, h200_ok = [], r['cold_fraction'] >= t['at_least']
        for n, res, _ in data:
            f = res.get(k, {}).get('cold_fraction')
            mark = '' if f is None else ('+' if f >= t['at_least'] else '-')
            cells.append(f"{f:9.3f}{mark}" if f is not None else f"{'-':>10}")
            if n in agree and f is not None:
                agree[n][0] += (f >= t['at_least']) == h200_ok; agree[n][1] += 1
        print(f"{op:<16}{dt:<6}{f'{rows}x{d}':>12}  " + "  ".join(cells))
print("\nrows where the run's verdict (+ reached, - short) is the H200's: " +
      ", ".join(f"{n} {a}/{b}" for n, (a, b) in agree.items()))
