"""How fast the GPU reads the GQA decode bar's KV cache (64 sequences x 2048 tokens, 8 kv heads of 128, bf16, pages
of 16 tokens in shuffled order: 537 MB) under different request patterns, with no math (read_patterns.cu), timed
as the comparison tool times (L2 flushed, GPU kept busy, interleaved, medians), next to paged_attention itself and
SDPA on the same keys and values stored contiguously. Tells whether decode's read rate is held by its request
pattern (a no-math twin of it reads no faster) or by its compute (the twin reads at SDPA's rate).

    python3 benchmarks/probe/read_patterns.py [--reps 20] [--ops]   (on the lent GPU; nvcc builds the .cu)
"""
import argparse
import ctypes
import os
import statistics
import subprocess

import torch

ap = argparse.ArgumentParser()
ap.add_argument("--reps", type=int, default=20)
ap.add_argument("--ops", action="store_true", help="also time paged_attention and SDPA (needs the package built)")
args = ap.parse_args()
here = os.path.dirname(os.path.abspath(__file__))
so = "/tmp/read_patterns.so"
root = os.path.join(here, "..", "..", "backends")
subprocess.run(["nvcc", "-O3", "-std=c++17", "-arch=sm_90a", "-shared", "-Xcompiler", "-fPIC", "-o", so,
                "-I", os.path.join(root, "nvidia", "ops"), "-I", os.path.join(root, "include"),
                os.path.join(here, "read_patterns.cu")], check=True)
lib = ctypes.CDLL(so)
lib.rp_launch.restype = ctypes.c_int
lib.rp_occupancy.restype = ctypes.c_int

from infinicore_torch.bench import measure  # noqa: E402

dev = torch.device("cuda")
timer = measure.Timer(dev, busy_us=100)
SEQS, KVH, CTX, D = 64, 8, 2048, 128
PP = CTX // 16
pages = SEQS * PP
g = torch.Generator().manual_seed(0)
kc = torch.randn(pages, KVH, 16, D, generator=g).to(torch.bfloat16).to(dev)
vc = torch.randn(pages, KVH, 16, D, generator=g).to(torch.bfloat16).to(dev)
bt = torch.randperm(pages, generator=g).to(torch.int32).reshape(SEQS, PP).to(dev)
bt_io = torch.arange(pages, dtype=torch.int32).reshape(SEQS, PP).to(dev)
kcont = torch.randn(SEQS, KVH, CTX, D, generator=g).to(torch.bfloat16).to(dev)
vcont = torch.randn(SEQS, KVH, CTX, D, generator=g).to(torch.bfloat16).to(dev)
out = torch.zeros(1, device=dev)
MB = 2 * kc.numel() * 2 / 1e6
sms = torch.cuda.get_device_properties(dev).multi_processor_count


def launcher(kind, ns=2, warps=4, parts=3, stage_pages=1, mode=0, copies=2, table=bt, contig=False, grid_x=0):
    k, v = (kcont, vcont) if contig else (kc, vc)

    def fn():
        rc = lib.rp_launch(kind, ns, warps, ctypes.c_void_p(k.data_ptr()), ctypes.c_void_p(v.data_ptr()),
                           ctypes.c_void_p(table.data_ptr()), SEQS, KVH, PP, D, parts, stage_pages, mode, copies,
                           grid_x, ctypes.c_void_p(out.data_ptr()))
        if rc != 0:
            raise RuntimeError(f"launch failed: cuda error {rc}")
    return fn


page = 16 * D * 2
cands = [
    ("readVec contiguous, 132x8 blocks x 256 thr, 4 loads in flight", launcher(2, grid_x=sms * 8)),
    ("warp ring (decode's pattern): 2 slots, 2 KiB copies, 3 parts", launcher(0, ns=2, copies=2)),
    ("warp ring: 2 slots, 4 KiB copies (a page a copy), 3 parts", launcher(0, ns=2, copies=1)),
    ("warp ring: 2 slots, 2 KiB copies, pages in order", launcher(0, ns=2, copies=2, table=bt_io)),
    ("warp ring: 2 slots, 2 KiB copies, 2 parts", launcher(0, ns=2, copies=2, parts=2)),
    ("warp ring: 2 slots, 2 KiB copies, 6 parts", launcher(0, ns=2, copies=2, parts=6)),
    ("warp ring: 3 slots, 2 KiB copies, 3 parts", launcher(0, ns=3, copies=2)),
    ("block ring, one head: 2 stages x 4 pages (16 KiB K + 16 V), 3 parts", launcher(1, ns=2, stage_pages=4, mode=0)),
    ("block ring, one head: 3 stages x 2 pages, 3 parts", launcher(1, ns=3, stage_pages=2, mode=0)),
    ("block ring, one head: 4 stages x 2 pages, 3 parts", launcher(1, ns=4, stage_pages=2, mode=0)),
    ("block ring, all heads: 2 stages x 1 page (32 KiB K + 32 V), 8 warps, 3 parts", launcher(1, ns=2, warps=8, stage_pages=1, mode=1)),
    ("block ring, all heads: 3 stages x 1 page, 8 warps, 3 parts", launcher(1, ns=3, warps=8, stage_pages=1, mode=1)),
    ("block ring, all heads: 3 stages x 1 page, 8 warps, 6 parts", launcher(1, ns=3, warps=8, stage_pages=1, mode=1, parts=6)),
    ("block ring, contiguous (SDPA-like): 2 stages x 128 rows (32 KiB K + 32 V)", launcher(1, ns=2, stage_pages=8, mode=2, contig=True, parts=1)),
    ("block ring, contiguous: 2 stages x 64 rows", launcher(1, ns=2, stage_pages=4, mode=2, contig=True, parts=1)),
    ("block ring, contiguous: 3 stages x 64 rows", launcher(1, ns=3, stage_pages=4, mode=2, contig=True, parts=1)),
]
for _, fn in cands:  # warm up and check every launch
    fn()
torch.cuda.synchronize()
fns = [c[1] for c in cands]
names = [c[0] for c in cands]
if args.ops:
    import infinicore_torch  # noqa: F401
    from infinicore_torch.bench import specs as S
    spec = S.specs()["paged_attention"]
    inputs = spec.make({"seqs": SEQS, "ctx": CTX, "kv_heads": KVH}, torch.bfloat16, dev, torch.Generator().manual_seed(0))
    fns += [lambda: spec.infini(*inputs), lambda: spec.reference(*inputs)]
    names += ["paged_attention (ours, 64x2048 GQA)", "SDPA on contiguous k/v (cuDNN)"]
t = timer.time_interleaved([lambda *a, f=f: f() for f in fns], (), min_reps=args.reps, max_reps=args.reps, budget_s=0.0)
print(f"{torch.cuda.get_device_name(dev)}; {MB:.1f} MB of K+V read by every row", flush=True)
print(f"{'pattern':84s} {'us':>8s} {'GB/s':>8s}")
for name, x in zip(names, t):
    us = statistics.median(x) * 1e6
    print(f"{name:84s} {us:8.2f} {MB / us * 1e3:8.1f}")
