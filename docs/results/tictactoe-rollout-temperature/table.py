"""Each run's final in-domain evaluation (pass@k, invalid moves, repeats) and, for the larger paired
evaluations, the same from `mage eval --json`. Usage: python3 table.py [runs dir] [evals dir]."""
import glob, gzip, json, os, sys

here = os.path.dirname(os.path.abspath(__file__))
runs = sys.argv[1] if len(sys.argv) > 1 else os.path.join(here, 'runs')
evals = sys.argv[2] if len(sys.argv) > 2 else os.path.join(here, 'evals')
rate = lambda x: x['rate'] if isinstance(x, dict) else x


def line(name, o):
    pk = ' / '.join(f"{a['passAtK']['rate'] * 100:.1f}" for a in o['perAttempt'])
    rep = o.get('repeatedInvalidRate')
    rep = '' if rep is None else f", repeats {rate(rep) * 100:.1f}% of them"
    print(f"{name:24s} {o['metaEpisodes']:4d} pass@1..3 {pk}, invalid {rate(o['invalidActionRate']) * 100:.1f}%{rep}")


for d in sorted(glob.glob(os.path.join(runs, '*'))):
    f = os.path.join(d, 'metrics.jsonl.gz')
    if not os.path.exists(f):
        f = f[:-3]
    if not os.path.exists(f):
        continue
    last = None
    for l in gzip.open(f, 'rt') if f.endswith('.gz') else open(f):
        e = json.loads(l)
        if e.get('type') == 'eval':
            last = e
    if last is not None:
        line(os.path.basename(d), last['inDomain']['overall'])
for f in sorted(glob.glob(os.path.join(evals, '*.json'))):
    line(os.path.basename(f)[:-5], json.load(open(f))['metrics']['overall'])
