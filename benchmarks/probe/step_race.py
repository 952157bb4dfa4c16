"""Pieces of test_decode_step_back_to_back[32-8-bfloat16-infini] one at a time, for compute-sanitizer's racecheck
one piece a process (54th/55th sessions: racecheck stops that test with "Internal Sanitizer Error: The Sanitizer
failed to handle a hardware exception", with and without INFINI_PDL=0; memcheck and the plain suite pass it).

    python3 benchmarks/probe/step_race.py PIECE DEVICE DTYPE     PIECE: linear | attn | chain | torch_linear (torch's F.linear: cuBLAS, none of ours); DEVICE: infini | cuda
"""
import math
import sys

import torch

import infinicore_torch  # noqa: F401

I = torch.ops.infini
piece, device = sys.argv[1], sys.argv[2]
dtype = {"float32": torch.float32, "bfloat16": torch.bfloat16}[sys.argv[3]]
heads, kv_heads, d, bs, seq_lens = 32, 8, 64, 16, [1, 300, 1029, 77]
hidden, seqs = heads * d, len(seq_lens)
g = torch.Generator().manual_seed(0)
blocks = [math.ceil(n / bs) for n in seq_lens]
total = sum(blocks) + 3
kc = torch.randn(total, kv_heads, bs, d, generator=g).to(dtype).to(device)
vc = torch.randn(total, kv_heads, bs, d, generator=g).to(dtype).to(device)
perm = torch.randperm(total, generator=g)
tables = torch.zeros(seqs, max(blocks), dtype=torch.int32)
used = 0
for s, nb in enumerate(blocks):
    tables[s, :nb] = perm[used:used + nb]
    used += nb
tables, lens = tables.to(device), torch.tensor(seq_lens).to(device)
w = (torch.randn(hidden, hidden, generator=g) / math.sqrt(hidden)).to(dtype).to(device)
x = torch.randn(seqs, hidden, generator=g).to(dtype).to(device)
q = torch.empty(seqs, hidden, dtype=dtype, device=device)
a = torch.empty(seqs, heads, d, dtype=dtype, device=device)
if piece == "torch_linear":
    q = torch.nn.functional.linear(x, w)
elif piece in ("linear", "chain"):
    I.linear.out(x, w, None, out=q)
else:
    q.copy_(x)
if piece in ("attn", "chain"):  # (torch_linear: a stays as allocated)
    I.paged_attention.out(q.view(seqs, heads, d), kc, vc, tables, lens, None, 1 / 8, out=a)
if piece == "chain":
    I.linear.out(a.view(seqs, hidden), w, None, out=x)
print("ok", piece, device, dtype, float(q.float().abs().sum().cpu()), float(a.float().abs().sum().cpu()))
