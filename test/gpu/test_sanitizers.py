"""compute-sanitizer's racecheck and synccheck over the nvidia kernels whose threads or blocks share memory in ways
the op tests cannot see fail: a race shows only now and then, and a block that writes another's shared memory
before that one has started works until it does not. Each check runs a few calls of the op in a child process under
the tool (only our kernels instrumented) and asserts the tool found nothing. Both cases below are of that kind
(the decode cluster merge's early stores; random_sample's state reset while late threads still read it). On the GPU machine only: skipped where the nvidia backend sees no GPU or compute-sanitizer is missing."""

import os
import shutil
import subprocess
import sys

import pytest
from _devices import CUDA

SANITIZER = shutil.which("compute-sanitizer") or next(
    (p for p in ("/usr/local/cuda/bin/compute-sanitizer",) if os.path.exists(p)), None
)
pytestmark = pytest.mark.skipif(
    not CUDA or SANITIZER is None, reason="needs the nvidia backend on a GPU and compute-sanitizer"
)

# random_sample over rows with 1100 logits tied at the top (more candidates than one block sorts: the path that
# searches the row again after the candidates' count): ROWS rows of VOCAB, each of DTYPES, topk 50 / top-p 0.9 and
# topk 10^6 / top-p 0.8. Rows of 40000 run as clusters of blocks while the batch leaves SMs free (4, 16 rows), a
# block a row at 140; rows under 8192 always a block a row.
SAMPLE = """
import sys, torch
from infinicore_torch import ops
rows, vocab = int(sys.argv[1]), int(sys.argv[2])
g = torch.Generator().manual_seed(rows)
x = torch.randn(rows, vocab, generator=g) * 4
for b in range(rows):
    x[b, torch.randperm(vocab, generator=g)[:1100]] = 30.0
r = torch.rand(rows, generator=g).cuda()
for dtype in [getattr(torch, n) for n in sys.argv[3].split(",")]:
    xd = x.to(dtype).cuda()
    for topp, topk in ((0.9, 50), (0.8, 10**6)):
        out = ops.random_sample(xd, r, topp, topk, 1.0)
        assert bool(((out >= 0) & (out < vocab)).all())
torch.cuda.synchronize()
print("ok")
"""

# paged_attention decode over plans that merge their partitions within a cluster (few sequences, long enough to
# split) and ones that do not, 32 query heads on 8 kv heads and on 32, head_dim 128, blocks of 16
DECODE = """
import torch, infinicore_torch
torch.manual_seed(0)
for seqs, n, heads, kv, dtype in ((8, 512, 32, 8, torch.bfloat16), (4, 300, 32, 8, torch.float16),
                                  (1, 2047, 32, 8, torch.bfloat16), (16, 1024, 32, 8, torch.bfloat16),
                                  (2, 700, 32, 32, torch.bfloat16)):
    nb = (n + 15) // 16
    kc = torch.randn(seqs * nb + 3, kv, 16, 128, dtype=dtype, device="cuda")
    vc = torch.randn_like(kc)
    tables = torch.randperm(seqs * nb + 3, device="cuda")[:seqs * nb].view(seqs, nb).to(torch.int32)
    lens = torch.full((seqs,), n, dtype=torch.int64, device="cuda")
    q = torch.randn(seqs, heads, 128, dtype=dtype, device="cuda")
    out = torch.ops.infini.paged_attention(q, kc, vc, tables, lens, None, 128 ** -0.5)
    assert bool(out.isfinite().all())
torch.cuda.synchronize()
print("ok")
"""


def run_under(tool, code, *args):
    cmd = [
        SANITIZER,
        "--tool",
        tool,
        "--kernel-name",
        "kns=infini",
        "--error-exitcode",
        "7",
        "--print-limit",
        "20",
        "--show-backtrace",
        "device",
        sys.executable,
        "-c",
        code,
        *args,
    ]
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=400)
    report = (r.stdout[-6000:] + "\n" + r.stderr[-2000:]).strip()
    assert r.returncode == 0 and "ok" in r.stdout.split(), (
        f"{tool} over {args or 'the calls'}: rc {r.returncode}\n{report}"
    )


# synccheck: a block a row (140 rows of 40000, the shape that exposed the reset race) and clusters (16 rows); racecheck (far slower a call, and blind to timing): 4 rows of 2000 (a block a row:
# rows under 8192 are not split) and 4 of 40000 (clusters of 8)
@pytest.mark.parametrize(
    "tool, rows, vocab, dtypes",
    [
        ("synccheck", 140, 40000, "float32,bfloat16"),
        ("synccheck", 16, 40000, "float32,bfloat16"),
        ("racecheck", 4, 2000, "float32"),
        ("racecheck", 4, 40000, "bfloat16"),
    ],
)
def test_random_sample_under_the_sanitizer(tool, rows, vocab, dtypes):
    run_under(tool, SAMPLE, str(rows), str(vocab), dtypes)


@pytest.mark.parametrize("tool", ["synccheck", "racecheck"])
def test_paged_attention_decode_under_the_sanitizer(tool):
    run_under(tool, DECODE)
