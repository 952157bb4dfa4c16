"""Environment report: ``python -m infinicore_torch [--json]``.

Prints the torch and Python versions, the native libraries, every backend library found (and why
any was not loaded or not built), and each device with its memory.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys


def _gib(n: int) -> str:
    return f"{n / 2**30:.2f} GiB"


def collect() -> dict:
    import torch

    report: dict = {
        "python": platform.python_version(),
        "platform": platform.platform(),
        "torch": torch.__version__,
        "torch_cuda": torch.version.cuda,
    }
    from . import _infini

    report["lib_dir"] = _infini.LIB_DIR
    info_path = os.path.join(_infini.LIB_DIR, "build_info.json")
    report["build"] = json.load(open(info_path)) if os.path.exists(info_path) else {}
    try:
        from . import _C

        report["extension"] = {"path": _C.__file__, "built_for_torch": _C._torch_version, "error": ""}
    except ImportError as e:
        report["extension"] = {"path": "", "built_for_torch": "", "error": str(e)}
    report["INFINI_BACKEND_PATH"] = os.environ.get("INFINI_BACKEND_PATH", "")
    report["backends"] = [vars(b) for b in _infini.backends()]
    devices = []
    for b in _infini.backends():
        if not b.loaded:
            continue
        for i in range(b.device_count):
            free, total = _infini.mem_info(b.device_type, i)
            devices.append(
                {
                    "device": f"{b.name}:{i}",
                    "name": _infini.device_name(b.device_type, i),
                    "free_bytes": free,
                    "total_bytes": total,
                }
            )
    report["devices"] = devices
    return report


def render(r: dict) -> str:
    lines = [
        "infinicore_torch environment",
        f"  python        {r['python']} ({r['platform']})",
        f"  torch         {r['torch']} (CUDA {r['torch_cuda'] or 'none'})",
    ]
    ext = r["extension"]
    if ext["error"]:
        lines.append(f"  extension     FAILED to load: {ext['error']}")
    else:
        lines.append(f"  extension     {ext['path']} (built for torch {ext['built_for_torch']})")
    lines.append(f"  libraries     {r['lib_dir']}")
    if r["INFINI_BACKEND_PATH"]:
        lines.append(f"  INFINI_BACKEND_PATH  {r['INFINI_BACKEND_PATH']}")
    lines.append("backends")
    for b in r["backends"]:
        if b["loaded"]:
            n = b["device_count"]
            lines.append(f"  {b['name']:<10} loaded, {n} device{'s' if n != 1 else ''}  ({b['path']})")
        else:
            lines.append(f"  {b['name']:<10} NOT loaded: {b['message']}  ({b['path']})")
    loaded_names = {b["name"] for b in r["backends"]}
    for name, info in r["build"].items():
        if isinstance(info, dict) and not info.get("built", True) and name not in loaded_names:
            lines.append(f"  {name:<10} not built: {info.get('reason', '')}")
    if not r["backends"]:
        lines.append("  (no backend library found)")
    if r["build"].get("cpu_blas"):
        lines.append(f"  cpu gemm   {r['build']['cpu_blas']}")
    lines.append("devices")
    for d in r["devices"]:
        lines.append(f"  {d['device']:<10} {d['name']}: {_gib(d['total_bytes'])} total, {_gib(d['free_bytes'])} free")
    if not r["devices"]:
        lines.append("  (none)")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m infinicore_torch", description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true", help="print the report as JSON")
    args = parser.parse_args(argv)
    report = collect()
    print(json.dumps(report, indent=1) if args.json else render(report))
    ok = any(b["loaded"] for b in report["backends"]) and not report["extension"]["error"]
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
