#!/usr/bin/env python3
"""Draws each Grafana dashboard of manifests/components/monitoring/dashboards as one PNG, from the
dashboard's JSON and a real Prometheus: every panel's own PromQL, evaluated by Prometheus's
query_range over the window, drawn where its gridPos puts it (Grafana's 24-column grid), one line
per series named by the target's legendFormat. Grafana's variables are replaced as a viewer with
"All" pools would have them: $pool -> .*, $__rate_interval -> RATE (4 scrape intervals), $__range
-> the window. No Grafana is needed (nothing can be pulled here); gnuplot draws.

    python3 scripts/render_dashboards.py --prometheus http://127.0.0.1:19090 --minutes 5 \
        --rate-interval 20s --out docs/
Prints each panel's series count; a panel with none is drawn with "no data".
"""
import argparse, glob, json, os, re, subprocess, tempfile, time, urllib.parse, urllib.request

p = argparse.ArgumentParser()
p.add_argument("--prometheus", required=True)
p.add_argument("--minutes", type=float, default=5)
p.add_argument("--rate-interval", default="20s")
p.add_argument("--step", default="5s")
p.add_argument("--dashboards", default="manifests/components/monitoring/dashboards")
p.add_argument("--out", default="docs")
args = p.parse_args()

end = time.time()
step = float(args.step.rstrip("s"))
start = end - args.minutes * 60


def query_range(expr):
    q = urllib.parse.urlencode({"query": expr, "start": start, "end": end, "step": args.step})
    with urllib.request.urlopen(f"{args.prometheus}/api/v1/query_range?{q}", timeout=30) as r:
        body = json.load(r)
    if body.get("status") != "success":
        raise SystemExit(f"query failed: {expr}: {body}")
    return body["data"]["result"]


def substitute(expr):
    return (expr.replace("$__rate_interval", args.rate_interval)
            .replace("$__range", f"{int(args.minutes * 60)}s")
            .replace('=~"$pool"', '=~".*"').replace("$pool", ".*"))


def legend(fmt, metric):
    if not fmt:
        return ",".join(f"{k}={v}" for k, v in sorted(metric.items()) if k != "__name__") or "value"
    return re.sub(r"\{\{\s*(\w+)\s*\}\}", lambda m: metric.get(m.group(1), ""), fmt).strip()


def gp_str(s):
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"').replace("_", "\\_") + '"'


def render(path, tmp):
    d = json.load(open(path))
    name = os.path.splitext(os.path.basename(path))[0]
    panels = [q for q in d["panels"] if q.get("type") != "row"]
    rows = [q for q in d["panels"] if q.get("type") == "row"]
    height_units = max(q["gridPos"]["y"] + q["gridPos"]["h"] for q in d["panels"])
    unit_px = 34
    head_px = 64  # the dashboard's title, then the first row's label below it
    width_px, height_px = 1800, height_units * unit_px + head_px
    script = [f"set terminal pngcairo size {width_px},{height_px} font 'DejaVu Sans,9'",
              f"set output {gp_str(os.path.join(args.out, 'dashboard-' + name + '.png'))}",
              "set multiplot", "set xdata time", "set timefmt '%s'", "set format x '%H:%M'",
              "set grid", "set key top left font ',7' samplen 1 spacing 0.8 noenhanced",
              "set xtics 60", "set format y '%.13g'",
              "set border lw 0.5", "set tics font ',7'"]
    top = head_px / height_px
    usable = 1 - top
    script.append(f"set label 1000 {gp_str(d['title'] + ' (' + str(int(args.minutes)) + ' min, all pools)')}"
                  f" at screen 0.01, screen {1 - 16 / height_px} font ',13' noenhanced")
    for k, r in enumerate(rows):  # tags from 2000: tag 1 is each panel's "no data"
        y = 1 - top - r["gridPos"]["y"] / height_units * usable
        script.append(f"set label {2000 + k} {gp_str(r['title'])} at screen 0.01, screen {y - 20 / height_px}"
                      " font ',11' noenhanced")
    print(f"{d['title']}:")
    for i, q in enumerate(panels):
        g = q["gridPos"]
        ox, sx = g["x"] / 24, g["w"] / 24
        sy = g["h"] / height_units * usable
        oy = 1 - top - (g["y"] + g["h"]) / height_units * usable
        series = []
        for t in q.get("targets", []):
            for s in query_range(substitute(t["expr"])):
                pts = [(float(ts), float(v)) for ts, v in s["values"] if v not in ("NaN", "+Inf", "-Inf")]
                if pts:
                    series.append((legend(t.get("legendFormat", ""), s["metric"]), pts))
        unit = q.get("fieldConfig", {}).get("defaults", {}).get("unit", "")
        print(f"  {q['title']}: {len(series)} series" + ("" if series else "  (no data)"))
        script += ["unset label 1", f"set origin {ox},{oy}", f"set size {sx},{sy}",
                   f"set title {gp_str(q['title'] + (' [' + unit + ']' if unit else ''))} font ',10' noenhanced",
                   f"set xrange [{start}:{end}]", "set yrange [*:*]"]
        if not series:
            script += ["set yrange [0:1]", "set label 1 'no data' at graph 0.45, graph 0.5",
                       "plot NaN notitle"]
            continue
        files = []
        for k, (label, pts) in enumerate(series[:12]):  # a legend past 12 lines is unreadable
            f = os.path.join(tmp, f"{name}-{i}-{k}.dat")
            with open(f, "w") as out:
                prev = None
                for ts, v in pts:
                    if prev is not None and ts - prev > 2 * step:
                        out.write("\n")  # a gap in the series: no line drawn across it
                    out.write(f"{ts} {v}\n")
                    prev = ts
            files.append(f"{gp_str(f)} using 1:2 with lines lw 1.5 title {gp_str(label)}")
        script.append("plot " + ", ".join(files))
    script.append("unset multiplot")
    subprocess.run(["gnuplot"], input="\n".join(script), text=True, check=True)


with tempfile.TemporaryDirectory() as tmp:
    for path in sorted(glob.glob(os.path.join(args.dashboards, "*.json"))):
        render(path, tmp)
