"""Errors: missing devices, fork after initialization, out of memory."""

import re

import pytest
import torch
from conftest import run_python

import infinicore_torch  # noqa: F401


def test_fork_after_initialization_raises_in_the_child():
    code = (
        "import os, torch, infinicore_torch\n"
        "torch.ones(1, device='infini')\n"
        "pid = os.fork()\n"
        "if pid == 0:\n"
        "    try:\n"
        "        torch.ones(1, device='infini')\n"
        "        os._exit(3)\n"
        "    except RuntimeError as e:\n"
        "        os._exit(0 if 'forked subprocess' in str(e) and 'spawn' in str(e) else 4)\n"
        "_, status = os.waitpid(pid, 0)\n"
        "print('child', os.waitstatus_to_exitcode(status), torch.infini._is_in_bad_fork())\n"
        "print(torch.ones(2, device='infini').sum().item())\n"
    )
    r = run_python(code, timeout=60)
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == ["child", "0", "False", "2.0"]


def test_fork_before_initialization_is_fine():
    code = (
        "import os, torch, infinicore_torch\n"
        "pid = os.fork()\n"
        "if pid == 0:\n"
        "    os._exit(0 if torch.ones(2, device='infini').sum().item() == 2.0 else 5)\n"
        "_, status = os.waitpid(pid, 0)\n"
        "print(os.waitstatus_to_exitcode(status))\n"
    )
    r = run_python(code, timeout=60)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "0"


@pytest.mark.two_devices
def test_out_of_memory_names_the_request_and_the_free_memory():
    total = torch.infini.mem_get_info(1)[1]  # the CPU backend's 8 GiB, or the GPU's memory
    gib = total // (1 << 30) + 4  # more than the device has, in whole GiB (12 on the CPU backend)
    want = (
        re.escape("infini out of memory on device infini:1 (")
        + ".*"
        + re.escape(f"Tried to allocate {gib}.00 GiB; the device has ")
        + ".* free of "
        + re.escape(f"{total / (1 << 30):.2f} GiB.")
    )
    with pytest.raises(torch.OutOfMemoryError, match=want):
        torch.empty(gib << 28, dtype=torch.float32, device="infini:1")
    assert torch.ones(3, device="infini:1").sum().item() == 3.0


def test_nonexistent_device():
    with pytest.raises(RuntimeError, match="device index 2 is out of range"):
        torch.zeros(1, device="infini:2")
    with pytest.raises(RuntimeError, match="out of range"):
        with torch.infini.device(3):
            pass
