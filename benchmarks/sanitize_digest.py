"""Digest of a compute-sanitizer log: each distinct report (its kind and where, addresses and thread numbers taken
out) once, with how many times it was printed, which lanes and blocks it came from, and the test it came from where
the host backtrace names one; then the tool's summary lines.

    python3 benchmarks/sanitize_digest.py LOG [--top N] [--ours]

--ours: only reports that name infini (our kernels live in infini::nvidia::ops; the loose match keeps a report
rather than drop it); the others are counted by kernel on one line. racecheck with only our kernels selected
(`--kernel-name`) stops at cuBLAS's sm90 bf16 kernels ("Internal Sanitizer Error: The Sanitizer failed to handle a
hardware exception"; torch's own F.linear does the same), so a run that reaches cuBLAS instruments every kernel and
keeps ours here.

benchmarks/gpu_verify.sh's `sanitizers` mode runs it over each tool's --log-file.
"""

from __future__ import annotations

import argparse
import collections
import re

PREFIX = "========="
HEX = re.compile(r"0x[0-9a-fA-F]+")
THREAD = re.compile(r"thread \((\d+),(\d+),(\d+)\)", re.IGNORECASE)
BLOCK = re.compile(r"block \((\d+),(\d+),(\d+)\)")
TEST = re.compile(r"(test_\w+) in (test_\w+\.py):(\d+)")


def reports(lines):
    """Yields each report as its list of lines (the prefix taken off): a report starts at a line that is not
    indented past the prefix."""
    cur = []
    for raw in lines:
        if not raw.startswith(PREFIX):
            continue
        body = raw[len(PREFIX) :].rstrip("\n")
        if not body.strip():
            continue
        if not body.startswith("     "):  # a new report (or a summary line)
            if cur:
                yield cur
            cur = [body.strip()]
        else:
            cur.append(body.strip())
    if cur:
        yield cur


def signature(rep):
    """The report's kind and places, without addresses, offsets or thread numbers."""
    keep = [HEX.sub("0x_", rep[0])]
    for ln in rep[1:]:
        if ln.startswith(("at ", "Read Thread", "Write Thread", "Device Frame", "Uninitialized access", "Address")):
            s = HEX.sub("0x_", THREAD.sub("thread (_)", ln))
            keep.append(s[:400])
    return "\n    ".join(keep)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("log")
    ap.add_argument("--top", type=int, default=40)
    ap.add_argument("--ours", action="store_true", help="only reports naming infini (our kernels)")
    a = ap.parse_args()
    with open(a.log, errors="replace") as f:
        lines = f.readlines()
    count = collections.Counter()
    lanes = collections.defaultdict(collections.Counter)
    blocks = collections.defaultdict(set)
    tests = collections.defaultdict(collections.Counter)
    summary = []
    foreign = collections.Counter()
    for rep in reports(lines):
        head = rep[0]
        if "SUMMARY" in head or head.startswith(("COMPUTE-SANITIZER", "Target application returned")):
            summary.append(head)
            continue
        sig = signature(rep)
        if a.ours and "infini" not in sig:
            m = re.search(r"\) at (?:void )?([\w:]+)|^\s*at (?:void )?([\w:]+)", sig.split("\n", 1)[-1], re.M)
            foreign[(m.group(1) or m.group(2)) if m else head[:60]] += 1
            continue
        count[sig] += 1
        for ln in rep:
            m = THREAD.search(ln)
            if m and ("by thread" in ln or ln.startswith(("Read Thread", "Write Thread"))):
                lanes[sig][int(m.group(1)) % 32] += 1
                break
        for ln in rep:
            m = BLOCK.search(ln)
            if m:
                blocks[sig].add(m.groups())
                break
        for ln in rep:
            m = TEST.search(ln)
            if m:
                tests[sig][f"{m.group(2)}:{m.group(3)} {m.group(1)}"] += 1
                break
    print(f"{sum(count.values())} reports printed, {len(count)} distinct")
    if foreign:
        print(
            f"not ours, left out: {sum(foreign.values())} ("
            + ", ".join(f"{k} {n}" for k, n in foreign.most_common(5))
            + ")"
        )
    for sig, n in count.most_common(a.top):
        print(f"\n[{n}x] {sig}")
        if lanes[sig]:
            ls = sorted(lanes[sig])
            print(f"    lanes: {len(ls)} distinct ({ls[:8]}{'...' if len(ls) > 8 else ''}); blocks: {len(blocks[sig])}")
        for t, k in tests[sig].most_common(3):
            print(f"    from {t} ({k}x)")
    print()
    for s in summary:
        print(s)


if __name__ == "__main__":
    main()
