"""All-reduce sweep: infiniccl (infini tensors) against gloo (CPU tensors) in the same processes.

    python benchmarks/allreduce.py [--world 2] [--sizes 4K,64K,1M,16M,64M,256M] [--out DIR] [--csv PATH]

The ranks share one "cpu:gloo,infini:infiniccl" group, so both backends run on the same machine, in
the same processes, on same-sized float32 tensors, interleaved size by size. Each timed call is
preceded by a gloo barrier; the time is the host time of a synchronous all_reduce (on the CPU backend
infiniccl's wait() returns when the collective is done). Reported: the median over repetitions on
rank 0, and the bus bandwidth 2 (n - 1) / n * bytes / time, as nccl-tests report it. `--csv PATH` merges
the rows into that CSV in place (the comparison tool's format; op all_reduce, GB/s the bus bandwidth).
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import statistics
import tempfile
import time

import torch
import torch.distributed as dist
import torch.multiprocessing as mp


def parse_size(text: str) -> int:
    units = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}
    text = text.strip().upper()
    return int(float(text[:-1]) * units[text[-1]]) if text[-1] in units else int(text)


def human(n: int) -> str:
    for unit, scale in (("GB", 1 << 30), ("MB", 1 << 20), ("KB", 1 << 10)):
        if n >= scale:
            return f"{n / scale:g} {unit}"
    return f"{n} B"


def csv_rows(rows: list[dict], world: int, peer: str) -> list[dict]:
    """The sweep's rows in the comparison tool's CSV form: an all_reduce row per size for infiniccl and `peer`."""
    out = []
    for r in rows:
        for impl in ("infiniccl", peer):
            out.append(
                {
                    "op": "all_reduce",
                    "set": f"{world} ranks",
                    "shape": human(r["bytes"]).replace(" ", ""),
                    "dtype": "float32",
                    "impl": "infini" if impl == "infiniccl" else impl,
                    "median_us": r[f"{impl}_us"],
                    "gbps": r[f"{impl}_busbw_GBps"],
                }
            )
    return out


def _rank(rank: int, world: int, store_path: str, sizes: list[int], out_json: str) -> None:
    import infinicore_torch  # noqa: F401

    store = dist.FileStore(store_path, world)
    dist.init_process_group(
        "cpu:gloo,infini:infiniccl", store=store, rank=rank, world_size=world, timeout=datetime.timedelta(seconds=300)
    )
    torch.infini.set_device(rank % torch.infini.device_count())
    sync = torch.zeros(1)
    rows = []
    for nbytes in sizes:
        n = nbytes // 4
        tensors = {"gloo": torch.zeros(n), "infiniccl": torch.zeros(n, device="infini")}
        reps = max(5, min(200, int(2e8 // max(nbytes, 1))))
        times = {k: [] for k in tensors}
        for name, t in tensors.items():  # warm-up: connections, communicators, first touch of pages
            for _ in range(2):
                dist.all_reduce(t)
        torch.infini.synchronize()
        for _ in range(reps):
            for name, t in tensors.items():
                dist.all_reduce(sync)  # line the ranks up (gloo)
                t0 = time.perf_counter()
                dist.all_reduce(t)
                times[name].append(time.perf_counter() - t0)
        if rank == 0:
            row = {"bytes": nbytes, "reps": reps}
            for name, ts in times.items():
                med = statistics.median(ts)
                row[f"{name}_us"] = med * 1e6
                row[f"{name}_busbw_GBps"] = nbytes * 2 * (world - 1) / world / med / 1e9
            row["speedup"] = row["gloo_us"] / row["infiniccl_us"]
            rows.append(row)
            print(
                f"{human(nbytes):>8}  gloo {row['gloo_us']:10.1f} us  infiniccl {row['infiniccl_us']:10.1f} us"
                f"  x{row['speedup']:.2f}",
                flush=True,
            )
        del tensors
    if rank == 0:
        with open(out_json, "w") as f:
            json.dump(rows, f)
    dist.destroy_process_group()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--world", type=int, default=2)
    ap.add_argument("--sizes", default="4K,64K,1M,16M,64M,256M")
    ap.add_argument("--out", default=None, help="folder for allreduce.json and allreduce.png")
    ap.add_argument("--csv", default=None, help="merge the rows into this CSV, rewritten in place")
    args = ap.parse_args()
    sizes = [parse_size(s) for s in args.sizes.split(",")]
    with tempfile.TemporaryDirectory() as tmp:
        out_json = os.path.join(tmp, "rows.json")
        mp.start_processes(
            _rank,
            args=(args.world, os.path.join(tmp, "store"), sizes, out_json),
            nprocs=args.world,
            join=True,
            start_method="spawn",
        )
        rows = json.load(open(out_json))
    machine = f"{platform.node()}: {os.cpu_count()} CPUs, {platform.processor() or platform.machine()}"
    print(f"\nall-reduce float32, {args.world} processes, CPU backend ({machine}), torch {torch.__version__}")
    print("| size | gloo (us) | gloo busbw (GB/s) | infiniccl (us) | infiniccl busbw (GB/s) | gloo / infiniccl |")
    print("|---:|---:|---:|---:|---:|---:|")
    for r in rows:
        print(
            f"| {human(r['bytes'])} | {r['gloo_us']:.1f} | {r['gloo_busbw_GBps']:.2f} | {r['infiniccl_us']:.1f} | "
            f"{r['infiniccl_busbw_GBps']:.2f} | {r['speedup']:.2f}x |"
        )
    if args.csv:
        from infinicore_torch.bench import report

        report.write_csv(
            args.csv, csv_rows(rows, args.world, "gloo"), {"device_name": machine, "torch": torch.__version__}
        )
    if args.out:
        os.makedirs(args.out, exist_ok=True)
        with open(os.path.join(args.out, "allreduce.json"), "w") as f:
            json.dump({"world": args.world, "machine": machine, "torch": torch.__version__, "rows": rows}, f, indent=1)
        try:
            import matplotlib

            matplotlib.use("Agg")
            import matplotlib.pyplot as plt

            fig, ax = plt.subplots(figsize=(7, 4))
            xs = [r["bytes"] for r in rows]
            for name in ("gloo", "infiniccl"):
                ax.plot(xs, [r[f"{name}_busbw_GBps"] for r in rows], marker="o", label=name)
            ax.set_xscale("log", base=2)
            ax.set_xticks(xs, [human(x) for x in xs])
            ax.set_ylabel("bus bandwidth (GB/s)")
            ax.set_title(f"all-reduce float32, {args.world} processes, CPU backend")
            ax.legend()
            ax.grid(alpha=0.3)
            fig.tight_layout()
            fig.savefig(os.path.join(args.out, "allreduce.png"), dpi=120)
        except ImportError:
            pass


if __name__ == "__main__":
    main()
