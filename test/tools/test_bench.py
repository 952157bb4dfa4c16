"""infinicore_torch.bench: the registry, the accuracy checker, the timing, the outputs (table, JSON, the CSV
rewritten in place, plots), benchmarks/best_peer.py, and our Triton kernels (under TRITON_INTERPRET=1 on CPU
tensors)."""

import csv
import dataclasses
import json
import os
import statistics
import subprocess
import sys
import time

import pytest
import torch

import infinicore_torch  # noqa: F401
from infinicore_torch import bench
from infinicore_torch.bench import __main__ as cli
from infinicore_torch.bench import impls, measure, report, specs

SPECS = specs.specs()


def _repo_file(*parts):
    """A file of the repository, found from this test file upwards (the test may sit in a subfolder of test/)."""
    d = os.path.dirname(os.path.abspath(__file__))
    while not os.path.isdir(os.path.join(d, "benchmarks")) and os.path.dirname(d) != d:
        d = os.path.dirname(d)
    return os.path.join(d, *parts)


def test_every_op_has_every_shape_set_and_large_moves_64mb():
    for name, spec in SPECS.items():
        for s in ("decode", "prefill", "large"):  # (the sweep set: only the ops whose arguments change the kernel)
            assert spec.shapes.get(s), f"{name} has no {s} shapes"
        smallest = min(spec.dtypes, key=lambda d: torch.empty((), dtype=d).element_size())
        for p in spec.shapes["large"]:
            assert spec.bytes(p, smallest) >= 64e6, f"{name} large {p}: {spec.bytes(p, smallest) / 1e6:.0f} MB"
        for s in ("decode", "prefill"):
            for p in spec.shapes[s]:
                assert spec.bytes(p, smallest) > 0


def test_the_ops_of_the_contract_are_registered():
    for op in (
        "add",
        "mul",
        "silu",
        "relu",
        "gelu",
        "swiglu",
        "silu_and_mul",
        "rms_norm",
        "add_rms_norm",
        "layer_norm",
        "softmax",
        "causal_softmax",
        "embedding",
        "rope",
        "gemm",
        "linear",
        "topk_softmax",
        "random_sample",
        "paged_caching",
        "paged_attention",
    ):
        assert op in SPECS


def test_registry_resolves_or_says_why():
    cpu = torch.device("cpu")
    spec = SPECS["rms_norm"]
    for name in ("infini", "torch", "compile"):
        assert callable(impls.resolve(name, spec, cpu))
    with pytest.raises(impls.Skip, match="CUDA"):
        impls.resolve("liger", spec, cpu)
    with pytest.raises(impls.Skip):
        impls.resolve("triton", SPECS["gemm"], cpu)  # no kernel of ours, or no triton
    with pytest.raises(impls.Skip, match="inductor"):
        impls.resolve("compile", spec, torch.device("infini", 0))
    with pytest.raises(ValueError, match="unknown implementation"):
        impls.resolve("nope", spec, cpu)


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16])
def test_accuracy_checker_passes_right_and_flags_wrong(dtype):
    spec = SPECS["rms_norm"]
    g = torch.Generator().manual_seed(0)
    inputs = spec.make({"tokens": 7, "hidden": 769}, dtype, torch.device("cpu"), g)
    good = measure.check(spec, spec.infini, inputs, dtype)
    assert good["ok"] and good["rel_l2"] < measure.TOLERANCE[dtype]
    wrong = measure.check(spec, lambda x, w: spec.infini(x, w) * 1.05, inputs, dtype)  # 5% too large
    assert not wrong["ok"] and wrong["rel_l2"] > 0.04
    nan = measure.check(spec, lambda x, w: torch.full_like(x, float("nan")), inputs, dtype)
    assert not nan["ok"]


def test_accuracy_checker_compares_indices_exactly():
    spec = SPECS["topk_softmax"]
    inputs = spec.make(
        {"tokens": 16, "experts": 64}, torch.float32, torch.device("cpu"), torch.Generator().manual_seed(1)
    )
    assert measure.check(spec, spec.infini, inputs, torch.float32)["ok"]

    def swapped(x):
        w, i = spec.infini(x)
        return w, i.flip(-1)

    bad = measure.check(spec, swapped, inputs, torch.float32)
    assert not bad["ok"] and bad["mismatches"] > 0


def test_accuracy_checker_leaves_mutated_inputs_alone():
    spec = SPECS["paged_caching"]
    inputs = spec.make({"tokens": 5, "blocks": 8}, torch.float32, torch.device("cpu"), torch.Generator().manual_seed(2))
    before = inputs[2].clone()
    assert measure.check(spec, spec.infini, inputs, torch.float32)["ok"]
    assert torch.equal(inputs[2], before)


def test_timer_reports_medians_and_quantiles():
    t = measure.Timer(torch.device("cpu"))
    times = t.time(lambda x: x.sum(), (torch.ones(1000),), min_reps=7, max_reps=7, budget_s=0)
    assert len(times) == 7 and all(x > 0 for x in times)
    s = measure.summarize(times)
    assert s["p10_us"] <= s["median_us"] <= s["p90_us"] and s["reps"] == 7


def test_interleaved_timing_rotates_the_order_and_times_each():
    calls = []
    fns = [lambda x, k=k: calls.append(k) for k in range(3)]
    timer = measure.Timer(torch.device("cpu"))
    times = timer.time_interleaved(fns, (None,), min_reps=4, max_reps=4, budget_s=0.0, warmup=1)
    assert [len(t) for t in times] == [4, 4, 4]
    assert calls[:3] == [0, 1, 2]  # warm-up, one each
    rounds = [calls[3 + 3 * r : 6 + 3 * r] for r in range(4)]
    assert rounds == [[0, 1, 2], [1, 2, 0], [2, 0, 1], [0, 1, 2]]


@pytest.mark.parametrize("device", ["cpu", "infini"])
def test_run_reports_every_implementation(device):
    meta, results = bench.run(
        device,
        ["rms_norm", "gemm"],
        ("decode",),
        (torch.bfloat16,),
        bench.IMPLS,
        repeat=3,
        budget_s=0.0,
        progress=False,
    )
    assert meta["copy_gbps"] > 0
    n_shapes = len(SPECS["rms_norm"].shapes["decode"]) + len(SPECS["gemm"].shapes["decode"])
    assert len(results) == n_shapes * len(bench.IMPLS)
    for r in results:
        if r["impl"] in ("infini", "torch"):
            assert "median_us" in r, r
            assert r["accuracy"]["ok"], r
            assert r["gbps"] > 0 and r["p10_us"] <= r["p90_us"]
        if r["impl"] == "liger" or (r["impl"] == "compile" and device == "infini"):
            assert r["skipped"]


def test_cli_writes_table_json_and_plots(tmp_path, capsys):
    pytest.importorskip("matplotlib")
    rc = cli.main(
        [
            "--device",
            "cpu",
            "--ops",
            "rms_norm,softmax",
            "--shapes",
            "decode",
            "--impls",
            "infini,torch",
            "--repeat",
            "3",
            "--budget",
            "0",
            "--busy-us",
            "50",
            "--out",
            str(tmp_path),
        ]
    )
    assert rc == 0
    out = capsys.readouterr().out
    assert "rms_norm" in out and "median us" in out and "device-to-device copy" in out
    data = json.load(open(tmp_path / "results.json"))
    assert {r["op"] for r in data["results"]} == {"rms_norm", "softmax"}
    assert data["meta"]["copy_gbps"] > 0 and data["meta"]["busy_us"] == 50
    pngs = sorted(p.name for p in tmp_path.glob("*.png"))
    assert pngs == ["rms_norm_bfloat16.png", "softmax_bfloat16.png"]
    assert all((tmp_path / p).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" for p in pngs)


def test_busy_gpu_only_on_cuda():
    """The spin before the start event is a CUDA kernel: the CPU timer ignores it."""
    assert measure.Timer(torch.device("cpu"), busy_us=100).busy_cycles == 0
    assert measure.Timer(torch.device("cpu")).busy_cycles == 0


class _FakeEvent:
    """Stands in for a CUDA event: `query()` answers from a shared script of reached/not-reached."""

    def __init__(self, script, ms):
        self.script, self.ms = script, ms

    def record(self):
        pass

    def query(self):
        return self.script.pop(0)

    def synchronize(self):
        pass

    def elapsed_time(self, other):
        return self.ms


def test_a_late_host_side_is_timed_again_with_a_longer_busy_window(monkeypatch):
    """A timed call whose start event the GPU reached before the host had enqueued the call is repeated
    with the busy window doubled (which stays doubled for that measurement); an on-time call is timed once."""
    t = measure.Timer(torch.device("cpu"))
    t.device, t.busy_cycles = torch.device("cuda"), 200_000
    t.base_busy_cycles = t.busy_max_cycles = 200_000
    sleeps, script, calls = [], [True, True, False, False], []
    monkeypatch.setattr(torch.cuda, "_sleep", lambda cycles: sleeps.append(cycles))
    monkeypatch.setattr(t, "_events", lambda: (_FakeEvent(script, 0.004), _FakeEvent(script, 0.004)))
    assert t._once(lambda: calls.append(1), ()) == pytest.approx(4e-6)
    assert sleeps == [200_000, 400_000, 800_000] and len(calls) == 3 and t.late == 2
    assert t._once(lambda: calls.append(1), ()) == pytest.approx(4e-6)
    assert sleeps[-1] == 800_000 and len(calls) == 4 and t.late == 2
    script[:] = [True] * (t.MAX_LATE + 1)  # never on time: the last try's time is kept, no endless loop
    t._once(lambda: calls.append(1), ())
    assert len(calls) == 4 + t.MAX_LATE + 1 and t.late == 2 + t.MAX_LATE
    assert t.busy_max_cycles == 800_000 << t.MAX_LATE
    # the next measurement starts again from the base window (one slow moment widens one measurement only)
    script[:] = [False]
    monkeypatch.setattr(t, "synchronize", lambda: None)
    t.time(lambda: None, (), min_reps=1, max_reps=1, budget_s=0.0, warmup=0)
    assert sleeps[-1] == 200_000 and t.busy_max_cycles == 800_000 << t.MAX_LATE


@pytest.mark.skipif(not torch.cuda.is_available(), reason="the busy window is a CUDA kernel")
def test_a_slow_host_side_is_not_timed_on_cuda():
    """A call that spends 3 ms on the host before its kernel, under a 100 us window: the timer finds the
    start event reached, widens the window and times the kernel (tens of microseconds), not the wait."""
    x = torch.randn(1 << 20, device="cuda")

    def slow():
        time.sleep(0.003)
        x.mul_(1.0)

    t = measure.Timer(torch.device("cuda"), busy_us=100)
    dt = statistics.median(t.time(slow, (), min_reps=5, max_reps=5, budget_s=0.0))
    assert t.late >= 1 and t.busy_max_cycles >= 8 * 200_000
    assert dt < 1e-3, f"the host's 3 ms were timed: {dt * 1e6:.1f} us"


@pytest.mark.skipif(not torch.cuda.is_available(), reason="the L2 flush buffer exists on CUDA devices only")
def test_flush_can_be_turned_off_on_cuda():
    """flush=False (the probes' no-flush timings) keeps no flush buffer; the default flushes."""
    assert measure.Timer(torch.device("cuda")).flush_buf is not None
    assert measure.Timer(torch.device("cuda"), flush=False).flush_buf is None


@pytest.mark.skipif(not torch.cuda.is_available(), reason="the L2 flush exists on CUDA devices only")
def test_flush_resets_persisting_lines_on_cuda():
    """The flush first returns persisting (evict_last) L2 lines to normal through the driver, and the
    call succeeds."""
    t = measure.Timer(torch.device("cuda"))
    assert t.reset_persisting is not None
    torch.cuda.synchronize()
    t.flush()  # raises if cuCtxResetPersistingL2Cache fails
    torch.cuda.synchronize()


def test_cli_exit_status_flags_a_wrong_implementation(tmp_path, monkeypatch, capsys):
    spec = SPECS["silu"]
    monkeypatch.setattr(spec, "infini", lambda x: torch.ops.infini.silu(x) + 0.5)
    rc = cli.main(
        ["--ops", "silu", "--impls", "infini", "--repeat", "2", "--budget", "0", "--no-plots", "--out", str(tmp_path)]
    )
    assert rc == 1
    assert "accuracy FAIL: silu" in capsys.readouterr().out


def test_report_rows_show_skips():
    r = {
        "op": "rms_norm",
        "shape": "1x4096",
        "dtype": "bfloat16",
        "impl": "liger",
        "skipped": "liger_kernel is not installed",
    }
    assert "skipped: liger_kernel is not installed" in report.row(r)


TRITON_SCRIPT = r"""
import torch, infinicore_torch
from infinicore_torch.bench import specs, measure, impls
S = specs.specs()
cpu = torch.device("cpu")
shapes = {"rms_norm": {"tokens": 3, "hidden": 96}, "add_rms_norm": {"tokens": 3, "hidden": 96},
          "swiglu": {"tokens": 3, "width": 100}, "silu_and_mul": {"tokens": 3, "width": 100},
          "rope": {"tokens": 5}, "softmax": {"rows": 3, "cols": 5000}}
for name, p in shapes.items():
    spec = S[name]
    fn = impls.resolve("triton", spec, cpu)
    for dt in (torch.float32, torch.bfloat16):
        inputs = spec.make(p, dt, cpu, torch.Generator().manual_seed(0))
        r = measure.check(spec, fn, inputs, dt)
        assert r["ok"], (name, dt, r)
        wrong = measure.check(spec, lambda *a: tuple(t * 1.1 for t in spec.outputs(fn(*a))), inputs, dt)
        assert not wrong["ok"], (name, dt, "a wrong result passed")
print("triton ok")
"""


def test_triton_kernels_under_the_interpreter():
    pytest.importorskip("triton")
    if torch.cuda.is_available():  # there the compiled kernels run (the bench); this is the CPU-only check
        pytest.skip("a GPU is present: the Triton kernels are checked compiled, by the bench on CUDA")
    env = {**os.environ, "TRITON_INTERPRET": "1"}
    out = subprocess.run([sys.executable, "-c", TRITON_SCRIPT], env=env, capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr[-3000:]
    assert "triton ok" in out.stdout


def _read_csv(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def _row(op, shape, impl, us, dtype="bfloat16", set_="decode", **extra):
    return {
        "op": op,
        "set": set_,
        "shape": shape,
        "dtype": dtype,
        "impl": impl,
        "median_us": us,
        "p10_us": us * 0.9,
        "p90_us": us * 1.1,
        "gbps": 100.0 / us,
        "tflops": 0.0,
        "pct_copy": 1.0,
        **extra,
    }


def test_csv_rows_ratios_and_merge_in_place(tmp_path):
    """write_csv: one row per (op, shape, dtype, impl), skipped rows left out, a shape two sets share named by both;
    every row's ratio is its time over the fastest peer's (infini is no peer); a second write replaces its own keys,
    keeps the others in place and takes the ratios again over the merged rows."""
    path = str(tmp_path / "sub" / "dev.csv")
    first = [
        _row("rms_norm", "16x4096", "infini", 4.0, accuracy={"ok": True}),
        _row("rms_norm", "16x4096", "torch", 8.0),
        _row("rms_norm", "16x4096", "liger", 5.0, accuracy={"ok": False}),
        {
            "op": "rms_norm",
            "set": "decode",
            "shape": "16x4096",
            "dtype": "bfloat16",
            "impl": "triton",
            "skipped": "triton is not installed",
        },
        _row("random_sample", "256x128256", "infini", 200.0, set_="prefill"),
        _row("random_sample", "256x128256", "infini", 202.0, set_="large"),
        _row("random_sample", "256x128256", "torch", 3000.0, set_="large"),
    ]
    assert report.write_csv(path, first, {"device_name": "GPU X", "torch": "2.11"}) == 5
    rows = _read_csv(path)
    assert tuple(rows[0]) == report.CSV_COLUMNS
    by = {(r["op"], r["impl"]): r for r in rows}
    assert ("rms_norm", "triton") not in by
    assert (
        by[("rms_norm", "infini")]["best_peer"] == "liger"
        and by[("rms_norm", "infini")]["ratio_to_best_peer"] == "0.800"
    )
    assert (
        by[("rms_norm", "torch")]["ratio_to_best_peer"] == "1.600"
        and by[("rms_norm", "liger")]["ratio_to_best_peer"] == "1.000"
    )
    assert by[("rms_norm", "infini")]["check"] == "ok" and by[("rms_norm", "liger")]["check"] == "FAIL"
    assert by[("rms_norm", "torch")]["check"] == "" and by[("rms_norm", "infini")]["device_name"] == "GPU X"
    assert (
        by[("random_sample", "infini")]["set"] == "prefill+large"
        and by[("random_sample", "infini")]["median_us"] == "202.00"
    )
    # a second run: ours again (faster than every peer now), a new op without peers; the file's other rows stay put
    second = [_row("rms_norm", "16x4096", "infini", 6.0), _row("silu", "1x11008", "infini", 3.0)]
    assert report.write_csv(path, second, {"device_name": "GPU Y", "torch": "2.11"}) == 6
    rows2 = _read_csv(path)
    assert [(r["op"], r["impl"]) for r in rows2] == [(r["op"], r["impl"]) for r in rows] + [("silu", "infini")]
    by2 = {(r["op"], r["impl"]): r for r in rows2}
    assert (
        by2[("rms_norm", "infini")]["median_us"] == "6.00"
        and by2[("rms_norm", "infini")]["ratio_to_best_peer"] == "1.200"
    )
    assert (
        by2[("rms_norm", "infini")]["device_name"] == "GPU Y" and by2[("rms_norm", "torch")]["device_name"] == "GPU X"
    )
    assert by2[("rms_norm", "liger")] == by[("rms_norm", "liger")]
    assert by2[("silu", "infini")]["best_peer"] == "" and by2[("silu", "infini")]["ratio_to_best_peer"] == ""


def test_cli_merges_its_rows_into_the_csv(tmp_path, capsys):
    """--csv beside the JSON: the tool's timed rows land in the CSV; a later run of some implementations replaces
    their rows and leaves the rest."""
    path = tmp_path / "cpu.csv"
    common = [
        "--device",
        "cpu",
        "--shapes",
        "decode",
        "--repeat",
        "3",
        "--budget",
        "0",
        "--no-plots",
        "--csv",
        str(path),
    ]
    assert cli.main(["--ops", "rms_norm", "--impls", "infini,torch", "--out", str(tmp_path / "a")] + common) == 0
    assert "# csv: " in capsys.readouterr().out
    rows = _read_csv(path)
    shapes = [SPECS["rms_norm"].label(p) for p in SPECS["rms_norm"].shapes["decode"]]
    assert [(r["shape"], r["impl"]) for r in rows] == [(s, i) for s in shapes for i in ("infini", "torch")]
    for r in rows:
        assert r["op"] == "rms_norm" and r["set"] == "decode" and r["dtype"] == "bfloat16" and r["check"] == "ok"
        assert float(r["median_us"]) > 0 and float(r["gbps"]) > 0 and r["best_peer"] == "torch"
        assert float(r["ratio_to_best_peer"]) == pytest.approx(
            float(r["median_us"])
            / float(next(t for t in rows if t["shape"] == r["shape"] and t["impl"] == "torch")["median_us"]),
            rel=0.01,
            abs=0.002,
        )
    assert cli.main(["--ops", "rms_norm,silu", "--impls", "infini", "--out", str(tmp_path / "b")] + common) == 0
    rows2 = _read_csv(path)
    assert len(rows2) == len(rows) + len(SPECS["silu"].shapes["decode"])
    torch_rows = [r for r in rows if r["impl"] == "torch"]
    assert [r for r in rows2 if r["impl"] == "torch"] == torch_rows
    with open(tmp_path / "b" / "results.json") as f:
        assert json.load(f)["results"]


def test_best_peer_table_and_the_rows_a_peer_wins(tmp_path):
    """benchmarks/best_peer.py over the tool's printed rows or its CSV: the full table names the fastest peer and
    the ratio; --above keeps only the rows where a peer's median is below ours, compared unrounded (a 1.00 row
    counts)."""
    out = tmp_path / "bench.txt"
    row = "{:<23} {:<25} bfloat16 {:<9} {:>9.2f}      1.00      2.00    10.0    0.01    {}  1.0e-03    ok\n"
    out.write_text(
        "op shape dtype impl median us p10 p90 GB/s TFLOP/s %copy rel_l2 check\n"
        + row.format("rms_norm", "16x4096", "infini", 4.54, 2)
        + row.format("rms_norm", "16x4096", "liger", 4.38, 2)
        + row.format("rms_norm", "16x4096", "compile", 4.86, 2)
        + row.format("rope", "1x32x128", "infini", 182.66, 99)
        + row.format("rope", "1x32x128", "triton", 182.54, 99)
        + row.format("swiglu", "1x4096", "infini", 3.71, 0)
        + row.format("swiglu", "1x4096", "triton", 3.84, 0)
    )
    script = _repo_file("benchmarks", "best_peer.py")
    full = subprocess.run(
        [sys.executable, script, str(out)], capture_output=True, text=True, check=True
    ).stdout.splitlines()
    above = subprocess.run(
        [sys.executable, script, "--above", str(out)], capture_output=True, text=True, check=True
    ).stdout.splitlines()
    assert full[2:] == [
        "| rms_norm | decode | 16x4096 | bfloat16 | 4.54 | liger | 4.38 | 1.04 |",
        "| rope | decode | 1x32x128 | bfloat16 | 182.66 | triton | 182.54 | 1.00 |",
        "| swiglu | decode | 1x4096 | bfloat16 | 3.71 | triton | 3.84 | 0.97 |",
    ]
    assert above == full[:4]
    # the same rows through the CSV the tool writes
    path = str(tmp_path / "dev.csv")
    report.write_csv(
        path,
        [_row("rms_norm", "16x4096", i, us) for i, us in (("infini", 4.54), ("liger", 4.38), ("compile", 4.86))]
        + [_row("swiglu", "1x4096", i, us, dtype="float32") for i, us in (("infini", 3.71), ("triton", 3.84))],
    )
    from_csv = subprocess.run(
        [sys.executable, script, path], capture_output=True, text=True, check=True
    ).stdout.splitlines()
    assert from_csv[2:] == [full[2], "| swiglu | decode | 1x4096 | float32 | 3.71 | triton | 3.84 | 0.97 |"]
    only = subprocess.run(
        [sys.executable, script, "--dtype", "float32", path], capture_output=True, text=True, check=True
    ).stdout.splitlines()
    assert only[2:] == from_csv[3:]


def test_the_sweep_set_runs_on_the_cpu():
    """The sweep set's rows through the whole tool (check and timing), on CPU tensors: random_sample at every
    sampling setting with float32 and bfloat16 logits at the smallest vocabulary, and paged_attention at 512-token
    contexts with both block sizes, MHA and GQA (the larger rows are for the GPU)."""
    table = dict(specs.specs())
    small = {
        "random_sample": [
            p for p in table["random_sample"].shapes["sweep"] if p["vocab"] == 32000 and p["batch"] <= 16
        ],
        "paged_attention": [p for p in table["paged_attention"].shapes["sweep"] if p["ctx"] == 512 and p["seqs"] == 1],
    }
    assert len(small["random_sample"]) == 8 and len(small["paged_attention"]) == 4
    reg = {n: dataclasses.replace(table[n], shapes={"sweep": rows}) for n, rows in small.items()}
    meta, results = bench.run(
        device="cpu",
        ops=list(small),
        shapes=("sweep",),
        dtypes=(torch.float32, torch.bfloat16),
        impls=("infini", "torch"),
        repeat=2,
        budget_s=0,
        registry=reg,
    )
    ran = [r for r in results if not r.get("skipped")]
    assert len(ran) == 2 * 2 * (8 + 4)  # two implementations, two dtypes
    assert all(r["accuracy"]["ok"] for r in ran), [r for r in ran if not r["accuracy"]["ok"]][:2]
    labels = {r["shape"] for r in ran if r["op"] == "random_sample"}
    assert {"1x32000 kall p0.95 t1.0", "16x32000 k1 p1.0 t1.0"} <= labels  # top-p alone; greedy
    assert {r["shape"] for r in ran if r["op"] == "paged_attention"} >= {"1x512x32/8x128 block 32"}
