"""infiniccl on NVIDIA GPUs (the nvidia backend, over NCCL) against ProcessGroupNCCL, in the same run.

    python benchmarks/allreduce_gpu.py [--world 2] [--out DIR] [--csv PATH]

One process per GPU and one "cuda:nccl,infini:infiniccl" group: CUDA tensors go through torch's
ProcessGroupNCCL, infini tensors (the nvidia backend as the infini device) through infiniccl. First
checks the collectives of infini tensors against the same collectives of CUDA tensors; then sweeps
all-reduce sizes: per size and backend, trials of back-to-back calls timed on the host from a
synchronized start to a synchronized end (per call = total / calls), median of the trials; bus
bandwidth = 2 (n - 1) / n * bytes / time. `--csv PATH` merges the rows into that CSV in place (the comparison
tool's format; op all_reduce, impl infini for infiniccl and nccl for ProcessGroupNCCL, GB/s the bus bandwidth).
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import statistics
import tempfile
import time

import torch
import torch.distributed as dist
import torch.multiprocessing as mp

SIZES = [4 << 10, 64 << 10, 1 << 20, 4 << 20, 16 << 20, 64 << 20, 256 << 20]


def _checks(rank: int, world: int) -> list[str]:
    inf, cuda = torch.device("infini", rank), torch.device("cuda", rank)
    failures = []

    def same(a, b, what, tol=0.0):
        a, b = a.cpu(), b.cpu()
        if not torch.allclose(a.double(), b.double(), rtol=tol, atol=tol):
            failures.append(f"{what}: max diff {(a.double() - b.double()).abs().max().item()}")

    g = torch.Generator().manual_seed(rank)
    for dtype in (torch.float32, torch.bfloat16, torch.float16, torch.int32, torch.int64):
        x = (torch.rand(100_003, generator=g) * 4).to(dtype)
        ops = {
            "sum": dist.ReduceOp.SUM,
            "max": dist.ReduceOp.MAX,
            "min": dist.ReduceOp.MIN,
            "prod": dist.ReduceOp.PRODUCT,
        }
        if dtype.is_floating_point:
            ops["avg"] = dist.ReduceOp.AVG
        for name, op in ops.items():
            a, b = x.to(inf), x.to(cuda)
            dist.all_reduce(a, op=op)
            dist.all_reduce(b, op=op)
            same(a, b, f"all_reduce {name} {dtype}", 1e-2 if dtype in (torch.float16, torch.bfloat16) else 1e-6)
        a, b = x.to(inf), x.to(cuda)
        dist.broadcast(a, src=world - 1)
        dist.broadcast(b, src=world - 1)
        same(a, b, f"broadcast {dtype}")
        oa = torch.empty(world * x.numel(), dtype=dtype, device=inf)
        ob = torch.empty(world * x.numel(), dtype=dtype, device=cuda)
        dist.all_gather_into_tensor(oa, x.to(inf))
        dist.all_gather_into_tensor(ob, x.to(cuda))
        same(oa, ob, f"all_gather_into_tensor {dtype}")
        y = x[: (x.numel() // world) * world]
        ra = torch.empty(y.numel() // world, dtype=dtype, device=inf)
        rb = torch.empty(y.numel() // world, dtype=dtype, device=cuda)
        dist.reduce_scatter_tensor(ra, y.to(inf))
        dist.reduce_scatter_tensor(rb, y.to(cuda))
        same(ra, rb, f"reduce_scatter_tensor {dtype}", 1e-2)
        ta, tb = torch.empty_like(y, device=inf), torch.empty_like(y, device=cuda)
        dist.all_to_all_single(ta, y.to(inf))
        dist.all_to_all_single(tb, y.to(cuda))
        same(ta, tb, f"all_to_all_single {dtype}")
    nxt, prv = (rank + 1) % world, (rank - 1) % world
    x = torch.full((1 << 20,), float(rank), device=inf)
    got = torch.empty_like(x)
    for w in dist.batch_isend_irecv([dist.P2POp(dist.isend, x, nxt), dist.P2POp(dist.irecv, got, prv)]):
        w.wait()
    same(got, torch.full((1 << 20,), float(prv)), "ring send/recv")
    dist.barrier()
    return failures


def _time(t: torch.Tensor, calls: int, sync) -> float:
    sync()
    t0 = time.perf_counter()
    for _ in range(calls):
        dist.all_reduce(t)
    sync()
    return (time.perf_counter() - t0) / calls


def _rank(rank: int, world: int, store_path: str, out_json: str) -> None:
    import infinicore_torch  # noqa: F401

    torch.cuda.set_device(rank)
    torch.infini.set_device(rank)
    store = dist.FileStore(store_path, world)
    dist.init_process_group(
        "cuda:nccl,infini:infiniccl", store=store, rank=rank, world_size=world, timeout=datetime.timedelta(seconds=120)
    )
    failures = _checks(rank, world)
    rows = []
    for nbytes in SIZES:
        n = nbytes // 4
        tensors = {"nccl": torch.zeros(n, device=f"cuda:{rank}"), "infiniccl": torch.zeros(n, device=f"infini:{rank}")}
        syncs = {"nccl": torch.cuda.synchronize, "infiniccl": torch.infini.synchronize}
        calls = max(10, min(500, int(4e9 // nbytes)))
        for name, t in tensors.items():
            _time(t, 5, syncs[name])
        times = {k: [] for k in tensors}
        for _ in range(7):
            for name, t in tensors.items():
                dist.barrier()
                times[name].append(_time(t, calls, syncs[name]))
        if rank == 0:
            row = {"bytes": nbytes, "calls": calls}
            for name, ts in times.items():
                med = statistics.median(ts)
                row[f"{name}_us"] = med * 1e6
                row[f"{name}_busbw_GBps"] = nbytes * 2 * (world - 1) / world / med / 1e9
            row["ratio"] = row["infiniccl_busbw_GBps"] / row["nccl_busbw_GBps"]
            rows.append(row)
            print(
                f"{nbytes:>11} B  nccl {row['nccl_us']:9.1f} us  infiniccl {row['infiniccl_us']:9.1f} us  "
                f"busbw ratio {row['ratio']:.3f}",
                flush=True,
            )
    if rank == 0:
        with open(out_json, "w") as f:
            json.dump({"rows": rows, "failures": failures, "device": torch.cuda.get_device_name(0)}, f)
    else:
        assert not failures, failures
    dist.destroy_process_group()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--world", type=int, default=torch.cuda.device_count())
    ap.add_argument("--out", default=None)
    ap.add_argument("--csv", default=None, help="merge the rows into this CSV, rewritten in place")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        out_json = os.path.join(tmp, "rows.json")
        mp.start_processes(
            _rank,
            args=(args.world, os.path.join(tmp, "store"), out_json),
            nprocs=args.world,
            join=True,
            start_method="spawn",
        )
        res = json.load(open(out_json))
    print(f"\nchecks against ProcessGroupNCCL: {'all equal' if not res['failures'] else res['failures']}")
    print(f"all-reduce float32, {args.world} x {res['device']}, torch {torch.__version__}")
    print("| size | NCCL (us) | NCCL busbw (GB/s) | infiniccl (us) | infiniccl busbw (GB/s) | infiniccl / NCCL busbw |")
    print("|---:|---:|---:|---:|---:|---:|")
    for r in res["rows"]:
        print(
            f"| {r['bytes']} | {r['nccl_us']:.1f} | {r['nccl_busbw_GBps']:.1f} | {r['infiniccl_us']:.1f} | "
            f"{r['infiniccl_busbw_GBps']:.1f} | {r['ratio']:.3f} |"
        )
    if args.csv:
        from allreduce import csv_rows  # (benchmarks, this script's folder)

        from infinicore_torch.bench import report

        report.write_csv(
            args.csv,
            csv_rows(res["rows"], args.world, "nccl"),
            {"device_name": f"{args.world} x {res['device']}", "torch": torch.__version__},
        )
    if args.out:
        os.makedirs(args.out, exist_ok=True)
        with open(os.path.join(args.out, "allreduce_gpu.json"), "w") as f:
            json.dump(res, f, indent=1)


if __name__ == "__main__":
    main()
