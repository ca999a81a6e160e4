#!/usr/bin/env python3
"""Top frames of a JFR recording's execution samples: self (top frame) and total (anywhere on the
stack), by method, and the share per package prefix. Usage: jfr-top.py FILE.jfr [N]"""
import collections, re, subprocess, sys

jfr, n = sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 25
out = subprocess.run(["jfr", "print", "--events", "jdk.ExecutionSample", "--stack-depth", "64", jfr],
                     capture_output=True, text=True, check=True).stdout
samples = [s for s in out.split("jdk.ExecutionSample") if "stackTrace" in s]
self_, total, pkgs = collections.Counter(), collections.Counter(), collections.Counter()
for s in samples:
    frames = re.findall(r"^\s+([\w$.<>]+)\(", s, re.M)
    if not frames:
        continue
    self_[frames[0]] += 1
    for f in set(frames):
        total[f] += 1
    top = frames[0]
    pkg = ("dev.replicapool" if top.startswith("dev.replicapool") else
           "io.netty" if top.startswith("io.netty") else
           "io.vertx" if top.startswith("io.vertx") else
           "io.micrometer/prometheus" if top.startswith(("io.micrometer", "io.prometheus")) else
           "java/jdk" if top.startswith(("java.", "jdk.", "sun.")) else "other")
    pkgs[pkg] += 1
N = len(samples)
print(f"{N} samples")
print("share by package of the top frame:", ", ".join(f"{k} {v / N:.0%}" for k, v in pkgs.most_common()))
print(f"\ntop {n} methods by self samples:")
for f, c in self_.most_common(n):
    print(f"  {c / N:6.1%}  {f}")
print(f"\ntop {n} of ours by total samples (on the stack):")
for f, c in [x for x in total.most_common() if x[0].startswith("dev.replicapool")][:n]:
    print(f"  {c / N:6.1%}  {f}")
