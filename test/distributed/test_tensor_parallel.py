"""DTensor tensor parallelism on infini tensors over "infiniccl", world 2 and 4.

`parallelize_module` over `init_device_mesh("infini", (world,))` shards a Llama MLP block (gate and up projections
column-wise, down row-wise) and a Llama attention block (q, k, v column-wise, o row-wise: each rank holds
heads / world query heads and kv_heads / world key-value heads) of transformers' Llama. Each sharded block's
forward output, the gradient of its input and the gathered gradients of its weights must equal those of the
unsharded block run on the CPU in the same process. The ranks run with INFINI_FALLBACK=error.
"""

from __future__ import annotations

import copy
import os

import pytest
import torch
import torch.distributed as dist
from _harness import assert_ok, launch

import infinicore_torch  # noqa: F401

pytestmark = pytest.mark.skipif(not dist.is_available(), reason="torch.distributed is not available")
transformers = pytest.importorskip("transformers")

HEADS, KV_HEADS = 8, 4  # both divide by every world size tested
BATCH, SEQ, HIDDEN = 2, 8, 64
RTOL = ATOL = 1e-5  # float32


def _blocks():
    """(name, unsharded block on the CPU, its plan, call(block, x, device) -> output) for each case."""
    import _hf
    from torch.distributed.tensor.parallel import ColwiseParallel, RowwiseParallel
    from transformers.models.llama import modeling_llama as ml

    cases = []
    torch.manual_seed(0)
    mlp = ml.LlamaMLP(_hf.config(transformers.LlamaConfig))
    plan = {"gate_proj": ColwiseParallel(), "up_proj": ColwiseParallel(), "down_proj": RowwiseParallel()}
    cases.append(("mlp", mlp, plan, lambda m, x, dev: m(x)))
    pos = torch.arange(SEQ).expand(BATCH, SEQ)
    mask = torch.full((SEQ, SEQ), float("-inf")).triu(1).expand(BATCH, 1, SEQ, SEQ)
    for impl in ("eager", "sdpa"):
        cfg = _hf.config(transformers.LlamaConfig, num_attention_heads=HEADS, num_key_value_heads=KV_HEADS)
        cfg._attn_implementation = impl
        rope = ml.LlamaRotaryEmbedding(cfg)
        attn = ml.LlamaAttention(cfg, layer_idx=0)
        plan = {p: ColwiseParallel() for p in ("q_proj", "k_proj", "v_proj")} | {"o_proj": RowwiseParallel()}

        def call(m, x, dev, rope=rope):
            cos_sin = tuple(t.to(dev) for t in rope(x.detach().cpu(), pos))
            return m(x, position_embeddings=cos_sin, attention_mask=mask.to(dev))[0]

        cases.append((f"attention ({impl})", attn, plan, call))
    return cases


def check_tensor_parallel(rank, world):
    from torch.distributed.device_mesh import init_device_mesh
    from torch.distributed.tensor import DTensor, Shard
    from torch.distributed.tensor.parallel import ColwiseParallel, parallelize_module

    os.environ["INFINI_FALLBACK"] = "error"
    dev = torch.device("infini", torch.infini.current_device())
    mesh = init_device_mesh("infini", (world,))
    g = torch.Generator().manual_seed(5)
    x = torch.randn(BATCH, SEQ, HIDDEN, generator=g)
    w = torch.randn(BATCH, SEQ, HIDDEN, generator=g)  # the loss: (output * w).sum()
    for name, block, plan, call in _blocks():
        tp = parallelize_module(copy.deepcopy(block).to(dev), mesh, plan)
        for sub, style in plan.items():
            weight = getattr(tp, sub).weight
            dim = 0 if isinstance(style, ColwiseParallel) else 1
            assert isinstance(weight, DTensor) and weight.placements == (Shard(dim),), f"{name}.{sub}"
            assert weight.to_local().size(dim) * world == weight.size(dim), f"{name}.{sub}: not split {world} ways"
        x_ref = x.clone().requires_grad_()
        want = call(block, x_ref, "cpu")
        (want * w).sum().backward()
        x_tp = x.to(dev).requires_grad_()
        got = call(tp, x_tp, dev)
        assert got.device == dev and not isinstance(got, DTensor)
        (got * w.to(dev)).sum().backward()
        torch.testing.assert_close(
            got.detach().cpu(), want.detach(), rtol=RTOL, atol=ATOL, msg=lambda m: f"{name}: {m}"
        )
        torch.testing.assert_close(x_tp.grad.cpu(), x_ref.grad, rtol=RTOL, atol=ATOL, msg=lambda m: f"{name} dx: {m}")
        want_grads = dict(block.named_parameters())
        for pname, p in tp.named_parameters():
            torch.testing.assert_close(
                p.grad.full_tensor().cpu(),
                want_grads[pname].grad,
                rtol=RTOL,
                atol=ATOL,
                msg=lambda m, pname=pname: f"{name} d{pname}: {m}",
            )


@pytest.mark.parametrize("world", [2, 4])
def test_tensor_parallel_llama_blocks_match_unsharded(tmp_path, world):
    assert KV_HEADS % world == 0
    assert_ok(launch(tmp_path, world, check_tensor_parallel))
