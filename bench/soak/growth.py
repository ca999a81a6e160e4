"""What a soak's samples say about growth (bench/soak/run.sh writes them; this reads them again).

  python3 bench/soak/growth.py soak.tsv [kills.tsv] [--warmup-seconds N]

For each figure (RSS, old generation, threads, open files of the data plane and the operator; the
live data after a forced GC where it was taken), the medians of the first and the last third of the
run after its warm-up, and the growth between them. The warm-up (default: the first third of the
run, at most 20 minutes) is when a JVM grows for reasons that are not leaks: its collector sizes its
generations, its JIT fills the code cache. A leak shows as a last third above the first; more than
LIMIT_PERCENT is reported as growth. The old generation between collections holds garbage not yet
collected as well as live data: where the live data was measured (after a forced GC), it is judged
and the old generation only shown. The whole run's thirds are printed too, warm-up included.
"""

import argparse
import csv
import statistics as st

LIMIT_PERCENT = 5.0
NOT_FIGURES = ("t_s", "snapshot", "killed", "cut", "restarted")


def thirds(rows, key):
    xs = [float(r[key]) for r in rows if r.get(key)]  # live figures exist only on forced-GC samples
    if len(xs) < 2:
        return None
    n = max(1, len(xs) // 3)
    return st.median(xs[:n]), st.median(xs[-n:])


def growth(a, b):
    return (b - a) / a * 100 if a else 0.0


def main():
    p = argparse.ArgumentParser()
    p.add_argument("samples")
    p.add_argument("kills", nargs="?")
    p.add_argument("--warmup-seconds", type=int)
    args = p.parse_args()
    rows = list(csv.DictReader(open(args.samples), delimiter="\t"))[1:]  # the first: still starting
    end = int(rows[-1]["t_s"])
    warmup = args.warmup_seconds if args.warmup_seconds is not None else min(end // 3, 1200)
    warm = [r for r in rows if int(r["t_s"]) >= warmup]
    print(f"{len(rows)} samples over {end} s; warm-up: the first {warmup} s")
    print(f"medians of the first and the last third (whole run | after the warm-up, limit +{LIMIT_PERCENT:.0f} %):")
    grown = []
    for k in rows[0]:
        if k in NOT_FIGURES:
            continue
        whole, after = thirds(rows, k), thirds(warm, k)
        if not whole or not after:
            continue
        g = growth(*after)
        judged = not (k.endswith("_old_mib") and thirds(warm, k.replace("_old_", "_live_")))
        flag = ("  GROWS" if g > LIMIT_PERCENT else "") if judged else "  (shown: the live figure is judged)"
        if flag == "  GROWS":
            grown.append(k)
        print(f"  {k:12s} {whole[0]:8.1f} -> {whole[1]:8.1f} ({growth(*whole):+6.1f} %)"
              f" | {after[0]:8.1f} -> {after[1]:8.1f} ({g:+6.1f} %){flag}")
    print(f"growth after the warm-up beyond {LIMIT_PERCENT:.0f} %: {', '.join(grown) if grown else 'none'}")
    print(f"  snapshot versions seen: {len({r['snapshot'] for r in rows})}")
    print(f"  members killed and restarted: {sum(1 for r in rows if r['killed'])}")
    if args.kills:
        kills = [line.split("\t") for line in open(args.kills).read().splitlines()]
        print(f"  kills checked: {len(kills)}, port closed after the kill: {sum(k[2] == 'yes' for k in kills)},"
              f" open again after the restart: {sum(k[3] == 'yes' for k in kills)}")
    print(f"  control-plane connection cuts: {sum(1 for r in rows if r['cut'])}")
    print(f"  operator restarts: {sum(1 for r in rows if r['restarted'])}")


if __name__ == "__main__":
    main()
