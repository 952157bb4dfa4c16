"""One random_sample call on CUDA tensors, for compute-sanitizer's synccheck one configuration a process (54th
session: synccheck reported "Divergent thread(s) in block" at randomSampleKernel<float, 1>'s barrier after the
candidates' search, from test_random_sample_long_rows at 140 rows).

    python3 benchmarks/probe/sync_sample.py ROWS VOCAB TOPK TOPP TEMP DTYPE TIED
"""
import sys

import torch

import infinicore_torch  # noqa: F401

rows, vocab, topk = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
topp, temp = float(sys.argv[4]), float(sys.argv[5])
dtype = {"float32": torch.float32, "bfloat16": torch.bfloat16}[sys.argv[6]]
g = torch.Generator().manual_seed(rows)
x = (torch.randn(rows, vocab, generator=g) * 4).to(dtype)
if sys.argv[7] == "1":
    for b in range(rows):
        x[b, torch.randperm(vocab, generator=g)[:1100]] = 30.0
r = torch.rand(rows, generator=g)
out = torch.ops.infini.random_sample(x.cuda(), r.cuda(), topp, topk, temp)
torch.cuda.synchronize()
print("ok", out[:4].tolist())
