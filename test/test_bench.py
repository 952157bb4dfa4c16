"""infinicore_torch.bench: the registry, the accuracy checker, the timing, the outputs, and our Triton
kernels (under TRITON_INTERPRET=1 on CPU tensors)."""

import json
import statistics
import time
import os
import subprocess
import sys

import pytest
import torch

import infinicore_torch  # noqa: F401
from infinicore_torch import bench
from infinicore_torch.bench import __main__ as cli
from infinicore_torch.bench import impls, measure, report, specs

SPECS = specs.specs()


def test_every_op_has_every_shape_set_and_large_moves_64mb():
    for name, spec in SPECS.items():
        for s in specs.SHAPE_SETS:
            assert spec.shapes.get(s), f"{name} has no {s} shapes"
        smallest = min(spec.dtypes, key=lambda d: torch.empty((), dtype=d).element_size())
        for p in spec.shapes["large"]:
            assert spec.bytes(p, smallest) >= 64e6, f"{name} large {p}: {spec.bytes(p, smallest) / 1e6:.0f} MB"
        for s in ("decode", "prefill"):
            for p in spec.shapes[s]:
                assert spec.bytes(p, smallest) > 0


def test_the_ops_of_the_contract_are_registered():
    for op in ("add", "mul", "silu", "relu", "gelu", "swiglu", "silu_and_mul", "rms_norm", "add_rms_norm", "layer_norm",
               "softmax", "causal_softmax", "embedding", "rope", "gemm", "linear", "topk_softmax", "random_sample",
               "paged_caching", "paged_attention"):
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
    inputs = spec.make({"tokens": 16, "experts": 64}, torch.float32, torch.device("cpu"), torch.Generator().manual_seed(1))
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
    rounds = [calls[3 + 3 * r: 6 + 3 * r] for r in range(4)]
    assert rounds == [[0, 1, 2], [1, 2, 0], [2, 0, 1], [0, 1, 2]]


@pytest.mark.parametrize("device", ["cpu", "infini"])
def test_run_reports_every_implementation(device):
    meta, results = bench.run(device, ["rms_norm", "gemm"], ("decode",), (torch.bfloat16,), bench.IMPLS, repeat=3,
                              budget_s=0.0, progress=False)
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
    rc = cli.main(["--device", "cpu", "--ops", "rms_norm,softmax", "--shapes", "decode", "--impls", "infini,torch",
                   "--repeat", "3", "--budget", "0", "--busy-us", "50", "--out", str(tmp_path)])
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
    call succeeds; reset_persisting=False (the old flush, for comparison) skips it."""
    t = measure.Timer(torch.device("cuda"))
    assert t.reset_persisting is not None
    torch.cuda.synchronize()
    t.flush()  # raises if cuCtxResetPersistingL2Cache fails
    torch.cuda.synchronize()
    assert measure.Timer(torch.device("cuda"), reset_persisting=False).reset_persisting is None


def test_cli_exit_status_flags_a_wrong_implementation(tmp_path, monkeypatch, capsys):
    spec = SPECS["silu"]
    monkeypatch.setattr(spec, "infini", lambda x: torch.ops.infini.silu(x) + 0.5)
    rc = cli.main(["--ops", "silu", "--impls", "infini", "--repeat", "2", "--budget", "0", "--no-plots",
                   "--out", str(tmp_path)])
    assert rc == 1
    assert "accuracy FAIL: silu" in capsys.readouterr().out


def test_report_rows_show_skips():
    r = {"op": "rms_norm", "shape": "1x4096", "dtype": "bfloat16", "impl": "liger", "skipped": "liger_kernel is not installed"}
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


def test_best_peer_table_and_the_rows_a_peer_wins(tmp_path):
    """benchmarks/best_peer.py over the tool's printed rows: the full table names the fastest peer and the ratio;
    --above keeps only the rows where a peer's median is below ours, compared unrounded (a 1.00 row counts)."""
    out = tmp_path / "bench.txt"
    row = "{:<23} {:<25} bfloat16 {:<9} {:>9.2f}      1.00      2.00    10.0    0.01    {}  1.0e-03    ok\n"
    out.write_text("op shape dtype impl median us p10 p90 GB/s TFLOP/s %copy rel_l2 check\n"
                   + row.format("rms_norm", "16x4096", "infini", 4.54, 2) + row.format("rms_norm", "16x4096", "liger", 4.38, 2)
                   + row.format("rms_norm", "16x4096", "compile", 4.86, 2)
                   + row.format("rope", "1x32x128", "infini", 182.66, 99) + row.format("rope", "1x32x128", "triton", 182.54, 99)
                   + row.format("swiglu", "1x4096", "infini", 3.71, 0) + row.format("swiglu", "1x4096", "triton", 3.84, 0))
    script = os.path.join(os.path.dirname(__file__), "..", "benchmarks", "best_peer.py")
    full = subprocess.run([sys.executable, script, str(out)], capture_output=True, text=True, check=True).stdout.splitlines()
    above = subprocess.run([sys.executable, script, "--above", str(out)], capture_output=True, text=True, check=True).stdout.splitlines()
    assert full[2:] == ["| rms_norm | 16x4096 | 4.54 | liger | 4.38 | 1.04 | 2 |",
                        "| rope | 1x32x128 | 182.66 | triton | 182.54 | 1.00 | 99 |",
                        "| swiglu | 1x4096 | 3.71 | triton | 3.84 | 0.97 | 0 |"]
    assert above == full[:4]
