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
for rows in ():
    x = torch.randn(rows, 4096, device=dev, dtype=bf)
    w = torch.randn(4096, device=dev, dtype=bf)
    work += [(f"rms_norm {rows} infini", lambda x=x, w=w: I.rms_norm(x, w, 1e-6)),
             (f"rms_norm {rows} triton", lambda x=x, w=w: tk.rms_norm(x, w)),
             (f"add_rms_norm {rows} infini", lambda x=x, w=w: I.add_rms_norm(x, x, w, 1e-6)),
             (f"add_rms_norm {rows} triton", lambda x=x, w=w: tk.add_rms_norm(x, x, w))]
for tokens in (1, 16, 1024):
    args = S._rope_make({"tokens": tokens}, bf, dev, g)
    work += [(f"rope {tokens} infini", lambda a=args: I.rope(*a)), (f"rope {tokens} triton", lambda a=args: tk.rope(*a))]
for rows in ():
    x = torch.randn(rows, 128256, device=dev, dtype=bf)
    work += [(f"softmax {rows} infini", lambda x=x: I.softmax(x, -1))]
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
