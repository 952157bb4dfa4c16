"""FSDP2 (`torch.distributed.fsdp.fully_shard`) training on infini tensors over "infiniccl".

A small Llama (test/_hf.py's: hidden 64, 2 layers, 4 heads, 2 kv heads, vocab 128; float32 parameters) is sharded
per decoder layer and at the root over `init_device_mesh("infini", (world,))`; each rank trains on its slice of
every batch with AdamW. The reference is one process training the same model on the CPU with the full batches.
float32 (world 2 and 4): the ranks' mean loss of every step and the gathered parameters after the last step equal
the reference's. bfloat16 (world 2): FSDP2's MixedPrecisionPolicy computes in bfloat16 and reduces the gradients in
float32, the reference runs a bfloat16 copy of its float32 parameters each step; the losses agree within bfloat16
rounding and each parameter's update within BF16_UPDATE. The ranks run with INFINI_FALLBACK=error, so every aten op
of forward, backward, the collectives' copies and the sharded optimizer step has an infini kernel.
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

STEPS = 3
ROWS, SEQ = 4, 16  # every batch: ROWS sequences of SEQ tokens, ROWS // world of them a rank
# AdamW's eps keeps the update a smooth function of the gradient: with the default 1e-8 an element whose gradient
# is ~1e-8 turns float32 reduction-order noise into a parameter difference of order lr.
LR, EPS = 1e-2, 1e-3
# float32: the sharded run sums the same products in another order (per rank, then across ranks).
RTOL, ATOL = 1e-5, 1e-6
# bfloat16: each rank rounds its half-batch gradients to bfloat16 where the reference rounds the full batch's, and
# AdamW's update divides by the rounded gradients' size, so single elements differ by a good part of one step.
# What must hold is the loss within bfloat16 rounding, and each parameter's whole update (final - initial) within
# BF16_UPDATE of the reference's in norm (measured: about 1%; a rank stepping on its own half batch's gradient is
# off by 70% or more).
BF16_LOSS_RTOL, BF16_UPDATE = 1.6e-2, 0.04


def _model():
    import _hf

    torch.manual_seed(0)
    return _hf.llama()


def _batches():
    g = torch.Generator().manual_seed(1)
    return [torch.randint(0, 128, (ROWS, SEQ), generator=g) for _ in range(STEPS)]


def _optimizer(params):
    return torch.optim.AdamW(params, lr=LR, eps=EPS)


def _reference(dtype):
    """Losses of every step and the parameters after the last, of the single-process CPU run: float32 parameters,
    forward and backward in `dtype` (a copy of the parameters in it, its gradients cast back)."""
    model = _model()
    opt = _optimizer(model.parameters())
    losses = []
    for ids in _batches():
        run = model if dtype == torch.float32 else copy.deepcopy(model).to(dtype)
        loss = run(input_ids=ids, labels=ids).loss
        loss.backward()
        if run is not model:
            for p, q in zip(model.parameters(), run.parameters()):
                p.grad = q.grad.float()
        opt.step()
        opt.zero_grad()
        losses.append(loss.item())
    return losses, {n: p.detach().clone() for n, p in model.named_parameters()}


def check_fully_shard(rank, world, out_dir, dtype):
    from torch.distributed.device_mesh import init_device_mesh
    from torch.distributed.fsdp import MixedPrecisionPolicy, fully_shard
    from torch.distributed.tensor import DTensor, Shard

    os.environ["INFINI_FALLBACK"] = "error"
    dev = torch.device("infini", torch.infini.current_device())
    mesh = init_device_mesh("infini", (world,))
    model = _model()  # built on the CPU: fully_shard moves each rank's shards to the mesh's device
    policy = MixedPrecisionPolicy(param_dtype=dtype, reduce_dtype=torch.float32)
    for layer in model.model.layers:
        fully_shard(layer, mesh=mesh, mp_policy=policy)
    fully_shard(model, mesh=mesh, mp_policy=policy)
    for name, p in model.named_parameters():
        assert isinstance(p, DTensor) and p.placements == (Shard(0),), f"{name}: {p.placements}"
        assert p.device == dev, f"{name} on {p.device}"
        assert p.to_local().size(0) == -(-p.size(0) // world), f"{name}: local {tuple(p.to_local().shape)}"
    opt = _optimizer(model.parameters())
    rows = ROWS // world
    losses = []
    for ids in _batches():
        mine = ids[rank * rows : (rank + 1) * rows].to(dev)
        loss = model(input_ids=mine, labels=mine).loss
        loss.backward()
        opt.step()
        opt.zero_grad()
        mean = loss.detach().clone()
        dist.all_reduce(mean, op=dist.ReduceOp.AVG)
        losses.append(mean.item())
    params = {n: p.full_tensor().cpu() for n, p in model.named_parameters()}
    torch.save({"losses": losses, "params": params}, os.path.join(out_dir, f"fsdp{rank}.pt"))


@pytest.mark.parametrize(
    "world, dtype", [(2, torch.float32), (4, torch.float32), (2, torch.bfloat16)], ids=["2-fp32", "4-fp32", "2-bf16"]
)
def test_fully_shard_llama_matches_one_process_on_cpu(tmp_path, world, dtype):
    assert ROWS % world == 0
    assert_ok(launch(tmp_path, world, check_fully_shard, args=(str(tmp_path), dtype), join_s=300))
    want_losses, want = _reference(dtype)
    init = {n: p.detach() for n, p in _model().named_parameters()}
    loss_rtol = RTOL if dtype == torch.float32 else BF16_LOSS_RTOL
    for rank in range(world):
        got = torch.load(tmp_path / f"fsdp{rank}.pt")
        torch.testing.assert_close(
            torch.tensor(got["losses"]), torch.tensor(want_losses), rtol=loss_rtol, atol=0, msg=lambda m: f"losses: {m}"
        )
        assert got["params"].keys() == want.keys()
        for name, w in want.items():
            g = got["params"][name]
            assert g.dtype == torch.float32, f"{name}: {g.dtype}"  # the sharded parameters stay float32
            if dtype == torch.float32:
                torch.testing.assert_close(
                    g, w, rtol=RTOL, atol=ATOL, msg=lambda m, name=name: f"rank {rank} {name}: {m}"
                )
            else:
                step, want_step = g - init[name], w - init[name]
                off = ((step - want_step).norm() / want_step.norm()).item()
                assert off < BF16_UPDATE, f"rank {rank} {name}: the update is {off:.1%} off the reference's"
