"""benchmarks/compile_gpu.py in its smoke mode (a one-layer Llama, infini against CPU tensors): every variant compiles,
is timed and matches eager, the infini graphs get the fusion rewrites, the table prints, and the CSV merge replaces
the measured compile: rows only, keeping the file's other rows, field order and \\r\\n line ends."""

import csv
import os
import subprocess
import sys

from conftest import ROOT

FIELDS = "op,set,shape,dtype,impl,median_us,p10_us,p90_us,gbps,tflops,pct_copy,best_peer,ratio_to_best_peer,check,device_name,torch"  # noqa: E501
OLD = [
    "add,decode,1x4096,bfloat16,infini,3.62,3.26,3.78,6.796,0.001133,0.2,torch,1.000,ok,NVIDIA H200,2.11.0+cu130",
    "compile:prefill_32,compile,stale,float32,infini,1,,,,,,cpu,1.000,ok,stale,stale",
    "compile:decode_b1_kv16,compile,other,float32,infini,1,,,,,,cpu,1.000,ok,other,other",
    '"aten:cat 2x[4096,2048]",aten,,bfloat16,cuda,21.39,,,,,,cuda,1.000,,NVIDIA H200,2.11.0+cu130',
]


def test_the_smoke_mode_prints_the_table_and_merges_the_csv(tmp_path):
    path = tmp_path / "dev.csv"
    path.write_bytes(("\r\n".join([FIELDS, *OLD]) + "\r\n").encode())
    script = os.path.join(ROOT, "benchmarks", "compile_gpu.py")
    args = [sys.executable, script, "--smoke", "--rows", "prefill,decode64", "--csv", str(path)]
    out = subprocess.run(args, capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert out.returncode == 0, out.stdout[-3000:] + out.stderr[-3000:]
    lines = out.stdout.splitlines()
    assert any(ln.startswith("| row | infini ms | cpu ms | cpu+fusion ms |") for ln in lines), out.stdout
    for row in ("prefill_32", "decode_b4_kv16"):
        (line,) = [ln for ln in lines if ln.startswith(f"| {row} | ") and ln.count("|") == 8]
        assert "failed" not in line, line
        infini = [ln for ln in lines if ln.startswith(f"| {row} | infini |")][0]
        assert "sdpa 1" in infini and "rms_norm" in infini and "over tolerance" not in infini, infini
        plain = [ln for ln in lines if ln.startswith(f"| {row} | cpu |")][0]
        assert plain.split("|")[5].strip() == "-", plain  # the passes are off for plain CPU graphs
        fused = [ln for ln in lines if ln.startswith(f"| {row} | cpu+fusion |")][0]
        assert "sdpa 1" in fused, fused
    raw = path.read_bytes().decode()
    assert raw.count("\r\n") == raw.count("\n")
    with open(path, newline="") as f:
        reader = csv.DictReader(f)
        assert ",".join(reader.fieldnames) == FIELDS
        rows = list(reader)
    ops = [r["op"] for r in rows]
    assert ops[:3] == ["add", "compile:decode_b1_kv16", "aten:cat 2x[4096,2048]"]  # the rows not measured stay
    new = rows[3:]
    assert [(r["op"], r["impl"]) for r in new] == [
        (op, impl)
        for op in ("compile:prefill_32", "compile:decode_b4_kv16")
        for impl in ("infini", "cpu", "cpu+fusion")
    ]
    for r in new:
        assert r["set"] == "compile" and r["best_peer"] == "cpu" and r["check"] == "ok"
        assert float(r["median_us"]) > 0 and float(r["ratio_to_best_peer"]) > 0
        if r["impl"] == "cpu":
            assert r["ratio_to_best_peer"] == "1.000"
