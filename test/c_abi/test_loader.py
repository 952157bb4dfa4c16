"""Backend discovery: search order, broken and foreign libraries, environment settings."""

import json
import os
import shutil
import subprocess
import textwrap

import pytest
from conftest import ROOT, run_python

from infinicore_torch import _infini as I

REPORT = textwrap.dedent(
    """
    import ctypes, json
    from infinicore_torch import _infini as I
    L = I.lib()
    out = {"init": L.infinirtInit(), "backends": [vars(b) for b in I.backends()], "cpu": I.device_count(0)}
    p = ctypes.c_void_p()
    out["malloc"] = L.infinirtMalloc(ctypes.byref(p), 1 << 20)
    out["message"] = I.last_error()
    if out["malloc"] == 0:
        out["mem"] = I.mem_info(0, 0)
        L.infinirtFree(p)
    print(json.dumps(out))
    """
)


def report(env):
    r = run_python(REPORT, env)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout.strip().splitlines()[-1])


def cpu_entry(out):
    return [b for b in out["backends"] if b["loaded"] and b["device_type"] == I.DEVICE_CPU]


def compile_so(tmp_path, name, source):
    cc = shutil.which("cc") or shutil.which("gcc")
    if cc is None:
        pytest.skip("no C compiler to build a test library")
    src = tmp_path / (name + ".c")
    src.write_text(source)
    so = tmp_path / name
    subprocess.check_call([cc, "-shared", "-fPIC", "-o", str(so), str(src), f"-I{ROOT}/backends/include"])
    return so


def test_default_finds_the_cpu_backend_in_the_package():
    out = report({})
    assert out["init"] == 0 and out["cpu"] == 2 and out["malloc"] == 0
    (cpu,) = cpu_entry(out)
    assert cpu["path"] == os.path.join(I.LIB_DIR, "libinfini_backend_cpu.so")


def test_a_broken_library_is_reported_with_path_and_dlerror_and_the_rest_work(tmp_path):
    bad = tmp_path / "libinfini_backend_broken.so"
    bad.write_text("this is not an ELF file\n")
    out = report({"INFINI_BACKEND_PATH": str(tmp_path)})
    broken = [b for b in out["backends"] if b["path"] == str(bad)]
    assert len(broken) == 1 and not broken[0]["loaded"]
    assert "dlopen failed" in broken[0]["message"] and str(bad) in broken[0]["message"]  # dlerror names the file
    assert out["cpu"] == 2 and out["malloc"] == 0 and len(cpu_entry(out)) == 1


@pytest.mark.cpu_backend
def test_a_library_without_the_entry_point_or_with_another_abi_is_rejected(tmp_path):
    compile_so(tmp_path, "libinfini_backend_plain.so", "int not_a_backend(void) { return 1; }\n")
    compile_so(
        tmp_path,
        "libinfini_backend_future.so",
        textwrap.dedent(
            """
            #include <infini/backend.h>
            static infiniBackend_t t = {999, sizeof(infiniBackend_t), INFINI_DEVICE_METAX, "future"};
            const infiniBackend_t *infiniBackendGetV1(void) { return &t; }
            """
        ),
    )
    compile_so(
        tmp_path,
        "libinfini_backend_partial.so",
        textwrap.dedent(
            """
            #include <infini/backend.h>
            static infiniBackend_t t = {INFINI_BACKEND_ABI_VERSION, sizeof(infiniBackend_t), INFINI_DEVICE_MOORE, "partial"};
            const infiniBackend_t *infiniBackendGetV1(void) { return &t; }
            """
        ),
    )
    out = report({"INFINI_BACKEND_PATH": str(tmp_path)})
    by_file = {os.path.basename(b["path"]): b for b in out["backends"]}
    assert "no symbol infiniBackendGetV1" in by_file["libinfini_backend_plain.so"]["message"]
    assert "ABI version 999" in by_file["libinfini_backend_future.so"]["message"]
    assert "does not implement last_error_message" in by_file["libinfini_backend_partial.so"]["message"]
    assert not any(b["loaded"] for name, b in by_file.items() if name != "libinfini_backend_cpu.so")
    assert out["cpu"] == 2 and out["malloc"] == 0


def test_backend_path_comes_first_and_duplicates_are_skipped(tmp_path):
    copy = tmp_path / "libinfini_backend_mycpu.so"
    shutil.copy(os.path.join(I.LIB_DIR, "libinfini_backend_cpu.so"), copy)
    out = report({"INFINI_BACKEND_PATH": f"/nonexistent:{tmp_path}"})
    (cpu,) = cpu_entry(out)
    assert cpu["path"] == str(copy)
    (skipped,) = [b for b in out["backends"] if b["path"].startswith(I.LIB_DIR) and "cpu" in b["path"]]
    assert not skipped["loaded"] and f"already provided by {copy}" in skipped["message"]


def test_device_count_and_memory_from_the_environment():
    out = report({"INFINI_CPU_DEVICE_COUNT": "3", "INFINI_CPU_DEVICE_MEMORY": "64M"})
    assert out["cpu"] == 3
    assert out["mem"][1] == 64 << 20
    r = run_python(
        "import ctypes; from infinicore_torch import _infini as I; L = I.lib(); p = ctypes.c_void_p();"
        "s = L.infinirtMalloc(ctypes.byref(p), 65 << 20); print(I.status_name(s), I.last_error())",
        {"INFINI_CPU_DEVICE_MEMORY": "64M"},
    )
    assert "INFINI_STATUS_OUT_OF_MEMORY" in r.stdout and "67108864 total" in r.stdout


@pytest.mark.parametrize(
    "env, fragment",
    [
        ({"INFINI_CPU_DEVICE_COUNT": "abc"}, "INFINI_CPU_DEVICE_COUNT='abc'"),
        ({"INFINI_CPU_DEVICE_COUNT": "0"}, "INFINI_CPU_DEVICE_COUNT='0'"),
        ({"INFINI_CPU_DEVICE_MEMORY": "lots"}, "INFINI_CPU_DEVICE_MEMORY='lots'"),
    ],
)
@pytest.mark.cpu_backend
def test_bad_settings_leave_the_backend_unloaded_with_a_reason(env, fragment):
    out = report(env)
    (cpu,) = [b for b in out["backends"] if b["path"].endswith("libinfini_backend_cpu.so")]
    assert not cpu["loaded"] and "init failed" in cpu["message"] and fragment in cpu["message"]
    assert out["init"] == I.DEVICE_NOT_INITIALIZED
    assert out["cpu"] == 0
    assert out["malloc"] == I.DEVICE_TYPE_NOT_SUPPORTED and "no cpu backend is loaded" in out["message"]


def test_an_nvidia_backend_without_a_gpu_is_reported_not_loaded():
    """Where the nvidia backend was built but finds no GPU (the CPU-only CI machine), it stays unloaded
    with CUDA's reason, and the CPU backend serves; where it loaded, it reports its devices."""
    import infinicore_torch

    nvidia = [b for b in I.backends() if b.name == "nvidia" or "nvidia" in os.path.basename(b.path)]
    if not nvidia:
        pytest.skip("the nvidia backend was not built here (no nvcc)")
    (b,) = nvidia
    if b.loaded:
        assert b.device_count > 0 and infinicore_torch.cuda_kernels_available() == (b.device_count > 0)
    else:
        assert b.message and not infinicore_torch.cuda_kernels_available()
        assert I.device_count(I.DEVICE_CPU) >= 1
