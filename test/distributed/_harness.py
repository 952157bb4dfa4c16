"""Launches the ranks of a multi-process torch.distributed test on the infini device.

`launch(tmp_path, world, check)` spawns `world` processes; each joins one "cpu:gloo,infini:infiniccl" group
through a FileStore in tmp_path, takes the infini device `rank % device_count` (on the CPU backend ranks share
its devices; on a GPU backend each rank needs a device of its own, so a larger world skips), runs
`check(rank, world, *args)` and writes what it returns ("OK" for None) or its traceback to tmp_path/rank{r}.txt.
`check` must be a module-level function of an importable module (it is pickled by name into the children).
"""

from __future__ import annotations

import datetime
import os
import time
import traceback

import pytest
import torch
import torch.distributed as dist
import torch.multiprocessing as mp

import infinicore_torch  # noqa: F401

TOL = {torch.float32: 1e-5, torch.float16: 2e-3, torch.bfloat16: 1.6e-2}


def data(rank: int, n: int, dtype: torch.dtype, seed: int = 0) -> torch.Tensor:
    """n values of rank's stream `seed`: positive floats (products stay finite) or small integers."""
    g = torch.Generator().manual_seed(1000 * seed + rank)
    if dtype.is_floating_point:
        return (torch.rand(n, generator=g) * 2 + 0.5).to(dtype)
    return torch.randint(0, 4, (n,), generator=g).to(dtype)


def close(got: torch.Tensor, want: torch.Tensor, what: str) -> None:
    """got (on any device) equals want within TOL of want's dtype (exactly for integers)."""
    tol = TOL.get(want.dtype, 0)
    torch.testing.assert_close(got.cpu(), want, rtol=tol, atol=tol, msg=lambda m: f"{what}: {m}")


def _entry(rank, world, store_path, check, args, result_dir, timeout_s):
    out = os.path.join(result_dir, f"rank{rank}.txt")
    try:
        store = dist.FileStore(store_path, world)
        dist.init_process_group(
            "cpu:gloo,infini:infiniccl",
            store=store,
            rank=rank,
            world_size=world,
            timeout=datetime.timedelta(seconds=timeout_s),
        )
        torch.infini.set_device(rank % torch.infini.device_count())
        text = check(rank, world, *args) or "OK"
        with open(out, "w") as f:
            f.write(text)
        dist.destroy_process_group()
    except BaseException:  # noqa: BLE001  (reported to the parent)
        with open(out, "w") as f:
            f.write("ERROR\n" + traceback.format_exc())
        os._exit(1)


def launch(tmp_path, world: int, check, args: tuple = (), timeout_s: float = 60, join_s: float = 240) -> list[str]:
    """Runs check(rank, world, *args) in `world` spawned ranks; returns each rank's text. A rank still alive after
    join_s seconds is killed and fails the test."""
    n, backend = torch.infini.device_count(), torch.infini.backend()
    if backend != "cpu" and world > n:
        pytest.skip(f"{world} ranks need {world} devices of the {backend} backend (one a rank); it has {n}")
    ctx = mp.get_context("spawn")
    procs = [
        ctx.Process(
            target=_entry,
            args=(r, world, str(tmp_path / "store"), check, args, str(tmp_path), timeout_s),
        )
        for r in range(world)
    ]
    for p in procs:
        p.start()
    deadline = time.time() + join_s
    for p in procs:
        p.join(max(1, deadline - time.time()))
    hung = [r for r, p in enumerate(procs) if p.is_alive()]
    for p in procs:
        if p.is_alive():
            p.kill()
    assert not hung, f"ranks {hung} hung"
    results = []
    for r in range(world):
        path = tmp_path / f"rank{r}.txt"
        results.append(path.read_text() if path.exists() else f"rank {r} wrote nothing (exit code {procs[r].exitcode})")
    return results


def assert_ok(results: list[str]) -> None:
    """Every rank returned without an error."""
    for r, text in enumerate(results):
        assert not text.startswith("ERROR") and "wrote nothing" not in text, f"rank {r}:\n{text}"
