#!/usr/bin/env python3
"""Turns redis-benchmark CSV files of alternating rounds into a Markdown table of medians and ratios,
or (--merge) replaces that table's section in docs/BENCHMARKS.md. Used by bench/compare.sh."""
import csv, os, statistics, sys


def load(path):
    rows = {}
    with open(path) as f:
        for r in csv.DictReader(f):
            rows[r["test"]] = (float(r["rps"]), float(r["p50_latency_ms"]), float(r["p99_latency_ms"]))
    return rows


def report(work, rounds, cmdline, jdk, machine, redis_version, label):
    data = {"spinel": {}, "redis": {}}
    tests = []
    for who in data:
        for r in range(1, rounds + 1):
            for test, v in load(os.path.join(work, f"{who}.{r}.csv")).items():
                data[who].setdefault(test, []).append(v)
                if test not in tests:
                    tests.append(test)
    med = lambda xs, i: statistics.median(x[i] for x in xs)
    out = []
    title = label or cmdline
    out.append(f"### {title}\n")
    out.append(f"`{cmdline}`, {rounds} alternating rounds, medians. Spinel on {jdk}; Redis {redis_version}; {machine}.\n")
    out.append("| test | Spinel req/s | Redis req/s | ratio | Spinel p50 ms | Redis p50 ms | Spinel p99 ms | Redis p99 ms |")
    out.append("|---|---:|---:|---:|---:|---:|---:|---:|")
    for t in tests:
        s, r = data["spinel"].get(t), data["redis"].get(t)
        if not s or not r:
            continue
        srps, rrps = med(s, 0), med(r, 0)
        out.append(f"| {t} | {srps:,.0f} | {rrps:,.0f} | {srps / rrps:.2f}x | {med(s, 1):.3f} | {med(r, 1):.3f} "
                   f"| {med(s, 2):.3f} | {med(r, 2):.3f} |")
    cpu = {who: server_cpu(work, who, rounds) for who in data}
    if cpu["spinel"] and cpu["redis"]:
        s_cpu, r_cpu = statistics.median(cpu["spinel"]), statistics.median(cpu["redis"])
        out.append("")
        out.append(f"Server CPU per request over each run (user + system, all its tests, median of rounds): "
                   f"Spinel {s_cpu:.2f} µs, Redis {r_cpu:.2f} µs ({s_cpu / r_cpu:.2f}x). Spinel's includes "
                   f"its JVM threads (collector, compiler) and the event loop's polling between requests.")
    return "\n".join(out) + "\n"


def server_cpu(work, who, rounds):
    """The server's CPU µs per request of each round, where compare.sh recorded it."""
    values = []
    for r in range(1, rounds + 1):
        path = os.path.join(work, f"{who}.{r}.cpu")
        if os.path.exists(path):
            text = open(path).read().strip()
            if text:
                values.append(float(text))
    return values


def merge(doc, section_file, cmdline):
    section = open(section_file).read()
    start, end = f"<!-- compare: {cmdline} -->", f"<!-- /compare: {cmdline} -->"
    block = f"{start}\n{section}{end}\n"
    text = open(doc).read() if os.path.exists(doc) else "# Benchmarks\n\n"
    if start in text:
        a = text.index(start)
        b = text.index(end) + len(end) + 1
        text = text[:a] + block + text[b:]
    else:
        marker = "<!-- compare results -->"
        if marker in text:
            text = text.replace(marker, marker + "\n\n" + block, 1)
        else:
            text += "\n" + block
    open(doc, "w").write(text)


if __name__ == "__main__":
    if sys.argv[1] == "--merge":
        merge(sys.argv[2], sys.argv[3], sys.argv[4])
    else:
        print(report(sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4], sys.argv[5], sys.argv[6], sys.argv[7]), end="")
