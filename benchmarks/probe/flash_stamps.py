"""Where the tiled attention kernel's time goes, block by block: with `flash_stamps_s40.patch` applied, XFT=1 makes
thread 0 of every block of flashKernel stamp %globaltimer (ns) at its phases into a device array, read back through
the patch's `infiniProbeFlashStamps`: entry, its tile found (after the programmatic wait), the first key tile in
shared memory, the first tile's scores and softmax done, the loop and the last P V done, the stores issued; with its
SM and key tiles. Each call timed as the tool times (L2 flushed, GPU kept busy, events). Per shape: the event time,
the span of the stamps, blocks and blocks an SM, phase medians / p90, a least-squares fit of a block's time against
its key tiles (intercept = the per-block cost that does not scale with keys), the gaps on an SM between a block's end
and the next one's entry, and the SMs' idle time at the end (tail).

    python3 benchmarks/probe/flash_stamps.py [--calls 3] [--cases attention:1024,...]
"""
import argparse
import ctypes
import glob
import os
import statistics

import torch
import infinicore_torch
from infinicore_torch.bench import measure
from infinicore_torch.bench import specs as S

ap = argparse.ArgumentParser()
ap.add_argument("--calls", type=int, default=3)
ap.add_argument("--cases", default="attention:1024,attention:2048,attention:4096,prefill:4x64,prefill:1x512,"
                                   "prefill:4x1024,prefill:2x2048,prefill:1x4096")
args = ap.parse_args()
libs = glob.glob(os.path.join(os.path.dirname(infinicore_torch.__file__), "**", "*backend_nvidia*.so*"), recursive=True)
lib = ctypes.CDLL(libs[0])
N = (1 << 16) * 8
buf = (ctypes.c_ulonglong * N)()
dev = torch.device("cuda")
timer = measure.Timer(dev, 100.0)
g = torch.Generator().manual_seed(0)


def q(xs, f):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(f * len(xs)))] if xs else float("nan")


def read():
    rc = lib.infiniProbeFlashStamps(buf, ctypes.c_size_t(N * 8))
    assert rc == 0, rc
    rows = []
    for b in range(N // 8):
        r = buf[b * 8:(b + 1) * 8]
        if r[1]:
            rows.append(r)
    return rows


def lsq(xs, ys):
    n = len(xs)
    mx, my = sum(xs) / n, sum(ys) / n
    sxx = sum((x - mx) ** 2 for x in xs)
    if sxx == 0:
        return float("nan"), my
    k = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sxx
    return k, my - k * mx


specs = S.specs()
read()  # zero the array
for case in args.cases.split(","):
    op, _, shp = case.partition(":")
    if op == "attention":
        spec, p = specs["attention"], {"pos": 0, "seq": int(shp)}
    else:
        n, ql = map(int, shp.split("x"))
        spec, p = specs["paged_attention_prefill"], {"seqs": n, "q": ql}
    inputs = spec.make(p, torch.bfloat16, dev, g)
    fn = spec.infini
    os.environ["XFT"] = "0"
    for _ in range(3):
        fn(*inputs)
    torch.cuda.synchronize()
    for call in range(args.calls):
        timer.flush()
        torch.cuda._sleep(timer.busy_cycles)
        s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        os.environ["XFT"] = "1"
        s.record()
        fn(*inputs)
        e.record()
        e.synchronize()
        os.environ["XFT"] = "0"
        ev = s.elapsed_time(e) * 1e3
        rows = read()
        full = [r for r in rows if r[7 - 1] and r[2]]  # blocks that ran a tile (stores stamped)
        t0 = min(r[1] for r in rows)
        tend = max(r[6] for r in full) if full else t0
        us = lambda a, b: [(r[b] - r[a]) / 1e3 for r in full if r[a] and r[b]]
        tiles = [r[0] & 0xffffffff for r in full]
        sm = [r[0] >> 32 for r in full]
        dur = [(r[6] - r[1]) / 1e3 for r in full]
        k, c = lsq(tiles, dur)
        by_sm = {}
        for r in full:
            by_sm.setdefault(r[0] >> 32, []).append(r)
        gaps, tail, first = [], [], []
        for lst in by_sm.values():
            lst.sort(key=lambda r: r[1])
            first.append((lst[0][1] - t0) / 1e3)
            for a, b in zip(lst, lst[1:]):
                gaps.append((b[1] - a[6]) / 1e3)
            tail.append((tend - lst[-1][6]) / 1e3)
        busy = sum(dur) / (len(by_sm) * (tend - t0) / 1e3) if full and tend > t0 else float("nan")
        print(f"{case:18s} call {call}: event {ev:7.2f} us, span {(tend - t0) / 1e3:7.2f}, blocks {len(rows)} "
              f"(ran {len(full)}), SMs {len(by_sm)}, per SM {q([len(v) for v in by_sm.values()], 0.5)}-"
              f"{max(len(v) for v in by_sm.values()) if by_sm else 0}, tiles med {q(tiles, 0.5)} max {max(tiles) if tiles else 0}")
        for name, a, b in (("wait+tile", 1, 2), ("first kv in", 2, 3), ("S0+softmax", 3, 4), ("loop+last PV", 4, 5),
                           ("stores", 5, 6), ("block", 1, 6)):
            xs = us(a, b)
            print(f"    {name:13s} med {q(xs, 0.5):7.3f} p10 {q(xs, 0.1):7.3f} p90 {q(xs, 0.9):7.3f} sum/SM {sum(xs) / max(1, len(by_sm)):8.2f}")
        per_tile = [((r[5] - r[4]) / 1e3) / ((r[0] & 0xffffffff) - 1) for r in full if (r[0] & 0xffffffff) > 1 and r[4] and r[5]]
        print(f"    block us = {k:.3f} x tiles + {c:.3f}; loop per tile med {q(per_tile, 0.5):.3f}; gaps med {q(gaps, 0.5):.3f} "
              f"p90 {q(gaps, 0.9):.3f} (sum/SM {sum(gaps) / max(1, len(by_sm)):.2f}); first entry med {q(first, 0.5):.3f} "
              f"max {max(first) if first else 0:.3f}; tail med {q(tail, 0.5):.3f} max {max(tail) if tail else 0:.3f}; busy {busy:.3f}", flush=True)
