#!/usr/bin/env python3
"""Tables and PNG plots from a bench/results/<run>/ directory (gnuplot draws; no matplotlib).

    python3 bench/plot.py bench/results/<run> docs/
Prints the Markdown tables that docs/BENCHMARKS.md quotes; writes docs/bench-proxy.png and
docs/bench-slow-member.png, and docs/bench-saturation.png from bench/saturation/run.sh.
"""
import csv, json, os, statistics as st, subprocess, sys, tempfile

run, docs = sys.argv[1], sys.argv[2]

def jsonl(name):
    p = os.path.join(run, name)
    return [json.loads(l) for l in open(p)] if os.path.exists(p) else []

def gnuplot(script):
    subprocess.run(["gnuplot"], input=script, text=True, check=True)

# ---- item 1
tsv = os.path.join(run, "proxy.tsv")
if os.path.exists(tsv):
    rows = list(csv.DictReader(open(tsv), delimiter="\t"))
    targets = ["dataplane", "haproxy", "nginx", "direct"]
    lat = {}
    for r in jsonl("proxy-latency.jsonl"):
        kv = dict(x.split("=") for x in r["label"].split() if "=" in x)
        name = [x for x in r["label"].split() if "=" not in x][0]
        lat.setdefault((kv["threads"], name), []).append(r)
    print("| threads | target | req/s median (min-max) | vs data plane | wrk p99 ms (median) | open-loop rate | p50 ms | p99 ms | p99.9 ms |")
    print("|---|---|---|---|---|---|---|---|---|")
    data = []
    for t in sorted({r["threads"] for r in rows}):
        med = {}
        for x in targets:
            v = [float(r["req_s"]) for r in rows if r["threads"] == t and r["target"] == x]
            med[x] = (st.median(v), min(v), max(v))
        for x in targets:
            p99 = [r["p99_ms"] for r in rows if r["threads"] == t and r["target"] == x]
            ls = lat.get((t, x), [])
            ol = ""
            if ls:
                ol = "| %d | %.2f | %.2f | %.2f" % (ls[0]["rate"], st.median(l["p50"] for l in ls),
                     st.median(l["p99"] for l in ls), st.median(l["p999"] for l in ls))
            else:
                ol = "| | | |"
            print(f"| {t} | {x} | {med[x][0]:,.0f} ({med[x][1]:,.0f}-{med[x][2]:,.0f}) | "
                  f"{med[x][0] / med['dataplane'][0]:.2f}x | {sorted(p99)[len(p99) // 2]} {ol} |")
        data.append((t, [med[x][0] for x in targets]))
    with tempfile.NamedTemporaryFile("w", suffix=".dat", delete=False) as f:
        for t, v in data:
            f.write(f"{t}-thread " + " ".join(str(x) for x in v) + "\n")
    gnuplot(f"""set terminal pngcairo size 800,450
set output '{docs}/bench-proxy.png'
set title 'wrk -c32, req/s (median of rounds), 3 sample replicas; direct = one replica'
set style data histogram; set style histogram cluster gap 1; set style fill solid 0.8
set ylabel 'requests/s'; set key top left; set grid ytics; set yrange [0:*]
plot '{f.name}' using 2:xtic(1) title 'data plane', '' using 3 title 'HAProxy 2.6', '' using 4 title 'nginx 1.22', '' using 5 title 'direct'
""")

# ---- items 2-4
fl = jsonl("faults.jsonl")
if fl:
    print()
    print("| run | sent | failed | p50 ms | p99 ms | p99.9 ms | max ms | answers by member |")
    print("|---|---|---|---|---|---|---|---|")
    for r in fl:
        print(f"| {r['label']} | {r['sent']} | {r['failed']} {r['failures'] or ''} | {r['p50']:.2f} | {r['p99']:.2f} | "
              f"{r['p999']:.2f} | {r['max']:.1f} | {r['replicas']} |")
    slow = [r for r in fl if r["label"].startswith("slow ")]
    if slow:
        print()
        print("| policy | phase | p50 ms | p99 ms | p99.9 ms | k5 share | failed |")
        print("|---|---|---|---|---|---|---|")
        pts = {}
        for r in slow:
            pol = r["label"].split()[1]; phase = r["label"].split()[2].split("=")[1]
            n = sum(r["replicas"].values()) or 1
            share = 100.0 * r["replicas"].get("k5", 0) / n
            print(f"| {pol} | {phase} | {r['p50']:.2f} | {r['p99']:.2f} | {r['p999']:.2f} | {share:.2f} % | {r['failed']} |")
            pts.setdefault(pol, {})[phase] = r["p99"]
        with tempfile.NamedTemporaryFile("w", suffix=".dat", delete=False) as f:
            for pol, ph in pts.items():
                short = pol.replace("dataplane/", "dp ").replace("haproxy/", "HAProxy ").replace("nginx/", "nginx ").replace("_", "-").replace("RoundRobin", "RR")
                f.write(f"\"{short}\" {ph.get('healthy', 'NaN')} {ph.get('slow', 'NaN')} {ph.get('errors', 'NaN')}\n")
        gnuplot(f"""set terminal pngcairo size 900,450 noenhanced
set output '{docs}/bench-slow-member.png'
set title 'pool p99 (ms, log scale), 1 of 5 members +200 ms, then 20 % errors, 1000 req/s open loop'
set style data histogram; set style histogram cluster gap 1; set style fill solid 0.8
set logscale y; set ylabel 'p99 ms'; set key top right; set grid ytics
plot '{f.name}' using 2:xtic(1) title 'all healthy', '' using 3 title 'k5 +200 ms', '' using 4 title 'k5 20 % errors'
""")

# ---- item 9: saturation (bench/saturation/run.sh)
sat = jsonl("saturation.jsonl")
if sat:
    names = {"dataplane/RoundRobin": "dp RR", "dataplane/Adaptive-noreport": "dp Adaptive, no reports",
             "dataplane/Adaptive": "dp Adaptive", "haproxy/leastconn-agent": "HAProxy leastconn+agent",
             "nginx/least_conn": "nginx least_conn"}
    loads = sorted({r["load"] for r in sat})
    by = {(r["target"], r["load"]): r for r in sat}  # the last round of each, if several
    targets = [t for t in names if any((t, l) in by for l in loads)]
    with tempfile.NamedTemporaryFile("w", suffix=".dat", delete=False) as p99, \
         tempfile.NamedTemporaryFile("w", suffix=".dat", delete=False) as gap:
        for t in targets:
            p99.write(f"\"{names[t]}\" " + " ".join(str(by[(t, l)]["p99"]) if (t, l) in by else "NaN" for l in loads) + "\n")
            # the busy member's utilization above the mean of the others', in points
            cells = []
            for l in loads:
                u = by[(t, l)]["utilization"] if (t, l) in by else None
                cells.append("NaN" if u is None else f"{100 * (u[0] - (u[1] + u[2]) / 2):.1f}")
            gap.write(f"\"{names[t]}\" " + " ".join(cells) + "\n")
    def cols(data):
        return ", ".join(f"'{data if i == 0 else ''}' using {i + 2}{':xtic(1)' if i == 0 else ''} title '{l} %'"
                         for i, l in enumerate(loads))
    gnuplot(f"""set terminal pngcairo size 1000,800 noenhanced
set output '{docs}/bench-saturation.png'
set multiplot layout 2,1 title '3 members of 400 req/s each; k1 also serves 300 req/s from a client that bypasses the proxy'
set style data histogram; set style histogram cluster gap 1; set style fill solid 0.8
set key top left; set grid ytics; set xtics font ',9'
set title "the proxy's p99 (ms, log scale) at 50, 75 and 90 % of the pool's capacity"
set logscale y; set ylabel 'p99 ms'
plot {cols(p99.name)}
unset logscale y
set title "the busy member's utilization above the others', points (goal at 75 %: at most 15)"
set ylabel 'points'; set yrange [0:100]; set key top right
plot {cols(gap.name)}, 15 with lines dt 2 lc rgb 'black' title 'goal'
unset multiplot
""")
