"""The main job: python -m infinicore_torch prints the environment report."""

import json
import subprocess
import sys

from conftest import ROOT


def run(*args, env=None):
    return subprocess.run([sys.executable, "-m", "infinicore_torch", *args], capture_output=True, text=True, cwd=ROOT)


def test_report_shows_the_cpu_backend_with_two_devices():
    r = run()
    assert r.returncode == 0, r.stderr
    out = r.stdout
    assert "torch" in out and "extension" in out
    assert "cpu        loaded, 2 devices" in out
    assert "cpu:0" in out and "cpu:1" in out and "8.00 GiB total" in out


def test_report_as_json():
    r = run("--json")
    assert r.returncode == 0, r.stderr
    data = json.loads(r.stdout)
    import torch

    assert data["torch"] == torch.__version__
    assert data["extension"]["error"] == "" and data["extension"]["built_for_torch"] == torch.__version__.split("+")[0]
    cpu = [b for b in data["backends"] if b["name"] == "cpu"]
    assert cpu and cpu[0]["loaded"] and cpu[0]["device_count"] == 2
    assert [d["device"] for d in data["devices"] if d["device"].startswith("cpu")] == ["cpu:0", "cpu:1"]
    assert "nvidia" in data["build"]
