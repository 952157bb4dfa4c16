"""Kernels to profile under ncu (--profile-from-start off): ours and the peers on the shapes that lose."""
import sys
import torch
import torch.nn.functional as F
import infinicore_torch  # noqa: F401
from infinicore_torch.bench import triton_kernels as tk
from infinicore_torch.bench import specs as S

I = torch.ops.infini
dev = torch.device("cuda")
g = torch.Generator().manual_seed(0)
bf = torch.bfloat16
work = []
for tokens in (1, 16, 1024):
    args = S._rope_make({"tokens": tokens}, bf, dev, g)
    work += [(f"rope {tokens} infini", lambda a=args: I.rope(*a)), (f"rope {tokens} triton", lambda a=args: tk.rope(*a))]
x = torch.randn(32, 1, 1024, device=dev, dtype=bf)
work += [("causal_softmax 32x1x1024 infini", lambda x=x: I.causal_softmax(x))]
x = torch.randn(512, 128256, device=dev, dtype=bf)
work += [("softmax 512x128256 infini", lambda x=x: I.softmax(x, -1))]
a = S._paged_attention_make({"seqs": 64, "ctx": 2048, "kv_heads": 8}, bf, dev, g)
work += [("decode kvh8 infini", lambda a=a: S._paged_attention_infini(*a)),
         ("decode kvh8 sdpa", lambda a=a: S._paged_attention_ref(*a))]
for name, fn in work:
    for _ in range(3):
        fn()
torch.cuda.synchronize()
torch.cuda.cudart().cudaProfilerStart()
for name, fn in work:
    torch.cuda.nvtx.range_push(name)
    fn()
    torch.cuda.nvtx.range_pop()
torch.cuda.synchronize()
torch.cuda.cudart().cudaProfilerStop()
print("\n".join(n for n, _ in work))
