"""Where paged_attention decode's time goes, block by block: with `benchmarks/probe/pa_phases_s30.patch` applied,
XPT=1 makes decodeTcKernel's thread 0 of every block print %globaltimer stamps (ns) at its phases: entry, the
sequence's length arrived, the query in shared memory, the first step's block ids arrived, the first step's keys and
values arrived (warp 0), its loop done, every warp's sums in shared memory, the merge (cluster or workspace) done.
For each decode shape of the tool (8x512 and 16x1024, 32/8 heads, d 128, bf16) and each mode (the tool's: L2
flushed before the call; hot: the call made just before), the stamps of 5 calls, each in its own child process
line group, summarized over blocks: medians and p90 of each phase, the spread of the blocks' starts, the span
from the first block's entry to the last block's end, and how many blocks an SM held.

    python3 benchmarks/probe/pa_phases.py [--calls 5]
"""
import argparse
import ctypes
import os
import statistics
import subprocess
import sys

PHASES = ["length", "query", "block ids", "first k/v", "rest of loop", "warps' sums", "merge"]


def child(seqs, ctx, mode, calls):
    import torch
    import infinicore_torch  # noqa: F401
    from infinicore_torch.bench import measure
    from infinicore_torch.bench import specs as S

    spec = S.specs()["paged_attention"]
    dev = torch.device("cuda")
    inputs = spec.make({"seqs": seqs, "ctx": ctx, "kv_heads": 8}, torch.bfloat16, dev, torch.Generator().manual_seed(0))
    timer = measure.Timer(dev)
    libc = ctypes.CDLL(None)
    for _ in range(3):
        spec.infini(*inputs)
    torch.cuda.synchronize()
    for i in range(calls):
        print("SKIP", flush=True)
        if mode == "flushed":
            timer.flush()
        else:
            spec.infini(*inputs)
        torch.cuda.synchronize()
        libc.fflush(None)
        print(f"MARK {i}", flush=True)
        spec.infini(*inputs)
        torch.cuda.synchronize()
        libc.fflush(None)
    print("END", flush=True)


def q(xs, f):
    s = sorted(xs)
    return s[min(len(s) - 1, int(f * len(s)))]


def summarize(label, text):
    groups, cur = [], None
    for line in text.splitlines():
        if line.startswith("SKIP"):
            cur = None
        elif line.startswith("MARK"):
            cur = []
            groups.append(cur)
        elif line.startswith("PAT") and cur is not None:
            f = line.split()
            cur.append((int(f[1]), int(f[2]), int(f[3]), int(f[4]), [int(x) for x in f[5:13]]))
    groups = [g for g in groups if g]
    if not groups:
        print(f"{label}: no stamps (is the patch applied and XPT read?)\n{text[-2000:]}")
        return
    per_phase = [[] for _ in PHASES]
    totals, spreads, spans, ends_after_last_start = [], [], [], []
    for g in groups:
        t0 = min(b[4][0] for b in g)
        for b in g:
            ts = b[4]
            for k in range(len(PHASES)):
                per_phase[k].append((ts[k + 1] - ts[k]) / 1e3)
            totals.append((ts[7] - ts[0]) / 1e3)
        spreads.append((max(b[4][0] for b in g) - t0) / 1e3)
        spans.append((max(b[4][7] for b in g) - t0) / 1e3)
        ends_after_last_start.append((max(b[4][7] for b in g) - max(b[4][0] for b in g)) / 1e3)
    g = groups[-1]
    sms = {}
    for b in g:
        sms[b[3]] = sms.get(b[3], 0) + 1
    print(f"\n{label}: {len(g)} blocks on {len(sms)} SMs (at most {max(sms.values())} an SM), {len(groups)} calls")
    print(f"  {'phase':<14} {'median us':>10} {'p90':>8} {'max':>8}")
    for name, xs in zip(PHASES, per_phase):
        print(f"  {name:<14} {statistics.median(xs):>10.2f} {q(xs, 0.9):>8.2f} {max(xs):>8.2f}")
    print(f"  {'block total':<14} {statistics.median(totals):>10.2f} {q(totals, 0.9):>8.2f} {max(totals):>8.2f}")
    print(f"  starts spread {statistics.median(spreads):.2f} us, first entry to last end {statistics.median(spans):.2f} us "
          f"(last start to last end {statistics.median(ends_after_last_start):.2f}); medians over calls")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--calls", type=int, default=5)
    ap.add_argument("--child", nargs=3, metavar=("SEQS", "CTX", "MODE"))
    a = ap.parse_args()
    if a.child:
        child(int(a.child[0]), int(a.child[1]), a.child[2], a.calls)
        return
    env = dict(os.environ, XPT="1")
    for seqs, ctx in ((8, 512), (16, 1024)):
        for mode in ("flushed", "hot"):
            r = subprocess.run([sys.executable, __file__, "--calls", str(a.calls), "--child", str(seqs), str(ctx), mode],
                               env=env, capture_output=True, text=True, timeout=300)
            summarize(f"paged_attention {seqs}x{ctx}x32/8x128 bf16, {mode}", r.stdout + ("" if r.returncode == 0 else r.stderr[-2000:]))


if __name__ == "__main__":
    main()
