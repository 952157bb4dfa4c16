"""Build of infinicore_torch: the torch-free backend libraries (CMake + Ninja) and the torch glue.

    pip install --no-build-isolation -e .

Environment:
    INFINI_WITH_NVIDIA=0/1   force the nvidia backend off/on (default: on when nvcc and the CUDA
                             runtime are found)
    MAX_JOBS=N               parallel compile jobs (torch's convention; default: all cores)
"""

from __future__ import annotations

import glob
import json
import os
import shutil
import signal
import subprocess
import time

from setuptools import find_packages, setup

# The build must not load the package it is building (torch autoloads installed backends).
os.environ["TORCH_DEVICE_BACKEND_AUTOLOAD"] = "0"

from torch.utils.cpp_extension import BuildExtension, CppExtension  # noqa: E402

ROOT = os.path.dirname(os.path.abspath(__file__))
BACKEND_SRC = os.path.join(ROOT, "backends")
BACKEND_BUILD = os.path.join(ROOT, "build", "backends")
CCACHE_DIR = "/usr/lib/ccache"  # Debian's ccache symlinks (c++ -> ccache)


def log(msg: str) -> None:
    print(f"[infinicore_torch] {msg}", flush=True)


def find_cuda() -> tuple[str | None, str]:
    """(CUDA root, "") when nvcc and libcudart are present, else (None, why not)."""
    candidates = []
    if os.environ.get("CUDA_HOME"):
        candidates.append(os.environ["CUDA_HOME"])
    nvcc = shutil.which("nvcc")
    if nvcc:
        candidates.append(os.path.dirname(os.path.dirname(os.path.realpath(nvcc))))
    candidates.append("/usr/local/cuda")
    missing_runtime = None
    for root in candidates:
        if not os.path.exists(os.path.join(root, "bin", "nvcc")):
            continue
        libs = glob.glob(os.path.join(root, "lib64", "libcudart.so*")) + glob.glob(
            os.path.join(root, "targets", "*", "lib", "libcudart.so*")
        )
        if libs:
            return root, ""
        missing_runtime = missing_runtime or root
    if missing_runtime:
        return None, f"nvcc found in {missing_runtime} but not the CUDA runtime (libcudart.so)"
    return None, "nvcc not found (set CUDA_HOME or put nvcc on PATH)"


def nvidia_choice() -> tuple[bool, str, str | None]:
    """(build it?, reason, CUDA root)."""
    forced = os.environ.get("INFINI_WITH_NVIDIA")
    if forced not in (None, "", "0", "1"):
        raise SystemExit(f"INFINI_WITH_NVIDIA must be 0 or 1, not {forced!r}")
    if forced == "0":
        return False, "disabled by INFINI_WITH_NVIDIA=0", None
    if not os.path.exists(os.path.join(BACKEND_SRC, "nvidia", "CMakeLists.txt")):
        return False, "no nvidia sources in this checkout", None
    root, why = find_cuda()
    if root is None:
        if forced == "1":
            raise SystemExit(f"INFINI_WITH_NVIDIA=1 but {why}")
        return False, why, None
    return True, f"CUDA at {root}", root


def build_backends() -> tuple[dict, subprocess.Popen, float]:
    """Configures (once) and builds the dispatcher; starts the backends' build in the background. Returns
    the build report, the background build and its start time (for finish_backends)."""
    with_nvidia, reason, cuda_root = nvidia_choice()
    os.makedirs(BACKEND_BUILD, exist_ok=True)
    args = [
        "cmake",
        "-S",
        BACKEND_SRC,
        "-B",
        BACKEND_BUILD,
        "-G",
        "Ninja",
        "-DCMAKE_BUILD_TYPE=Release",
        f"-DINFINI_WITH_NVIDIA={'ON' if with_nvidia else 'OFF'}",
    ]
    try:  # gemm on the CPU backend needs OpenBLAS (the scipy-openblas32 wheel)
        import scipy_openblas32

        openblas = os.path.dirname(scipy_openblas32.__file__)
        args.append(f"-DINFINI_OPENBLAS_DIR={openblas}")
        blas = f"OpenBLAS {scipy_openblas32.__version__}"
    except ImportError:
        args.append("-DINFINI_OPENBLAS_DIR=")
        blas = "none (pip install scipy-openblas32): the cpu backend has no gemm"
    ccache = shutil.which("ccache")
    if ccache:
        args += [f"-DCMAKE_CXX_COMPILER_LAUNCHER={ccache}", f"-DCMAKE_CUDA_COMPILER_LAUNCHER={ccache}"]
    if cuda_root:
        args.append(f"-DCMAKE_CUDA_COMPILER={os.path.join(cuda_root, 'bin', 'nvcc')}")
    t0 = time.time()
    subprocess.check_call(args, stdout=subprocess.DEVNULL)
    build = ["cmake", "--build", BACKEND_BUILD]
    if os.environ.get("MAX_JOBS"):
        build += ["--parallel", os.environ["MAX_JOBS"]]
    # The dispatcher first (the torch glue links against it; a few seconds), then the backends in the
    # background while the glue compiles: the two are independent, and each alone leaves cores idle
    # (the nvidia backend's longest kernel file, the glue's torch-heavy files).
    subprocess.check_call(build + ["--target", "infinicore"])
    log(f"dispatcher built in {time.time() - t0:.1f}s; the backends build beside the torch glue")
    report = {"nvidia": {"built": with_nvidia, "reason": reason}, "cpu_blas": blas, "ccache": bool(ccache)}
    return report, subprocess.Popen(build, start_new_session=True), t0  # (its own group: see BuildAll.run)


def finish_backends(report: dict, rest: subprocess.Popen, t0: float) -> None:
    """Waits for the background backend build; fails the install when it failed."""
    rc = rest.wait()
    if rc != 0:
        raise SystemExit(f"the backend build failed (cmake --build {BACKEND_BUILD}: exit status {rc})")
    report["backends_s"] = round(time.time() - t0, 1)
    log(
        f"backends built in {report['backends_s']}s"
        + ("" if report["ccache"] else " (ccache not found: no compile cache)")
    )
    log(f"nvidia backend: {'built' if report['nvidia']['built'] else 'skipped'} ({report['nvidia']['reason']})")
    log(f"cpu backend BLAS: {report['cpu_blas']}")


def links_shared_libstdcxx(cxx: str) -> bool:
    """True when the compiler finds the shared libstdc++ (and so links it dynamically)."""
    try:
        out = subprocess.run([cxx, "-print-file-name=libstdc++.so"], capture_output=True, text=True, timeout=60)
    except OSError:
        return False
    path = out.stdout.strip()
    return os.path.isabs(path) and os.path.exists(path)


def choose_cxx() -> None:
    """Avoids compilers that link libstdc++ statically (the GPU image's /opt/gcc wrapper does):
    a private libstdc++ inside _C beside torch's shared one crashes on the first error message."""
    cxx = os.environ.get("CXX", "c++")
    if links_shared_libstdcxx(cxx):
        return
    for alternative in ("/usr/bin/g++", "/usr/bin/c++", "g++", "c++"):
        if alternative != cxx and shutil.which(alternative) and links_shared_libstdcxx(alternative):
            log(f"{cxx} does not find the shared libstdc++ (it would link a private static copy); using {alternative}")
            os.environ["CXX"] = alternative
            return
    log(f"warning: {cxx} does not find the shared libstdc++; _C may crash on its first error message")


class BuildAll(BuildExtension):
    """Builds the dispatcher, then the backend libraries and the torch glue at once; puts the libraries in
    infinicore_torch/lib."""

    def run(self):
        choose_cxx()
        report, rest, t0 = build_backends()
        try:
            t1 = time.time()
            super().run()
            report["glue_s"] = round(time.time() - t1, 1)
        except BaseException:  # the glue failed or the user interrupted: stop cmake and its ninja and compilers too
            try:
                os.killpg(rest.pid, signal.SIGTERM)
            except ProcessLookupError:
                pass
            rest.wait()
            raise
        finish_backends(report, rest, t0)
        libs = sorted(glob.glob(os.path.join(BACKEND_BUILD, "lib*.so")))
        targets = [os.path.join(self.build_lib, "infinicore_torch", "lib")]
        if self.inplace or getattr(self, "editable_mode", False):
            targets.append(os.path.join(ROOT, "infinicore_torch", "lib"))
        for target in targets:
            os.makedirs(target, exist_ok=True)
            for stale in glob.glob(os.path.join(target, "libinfini_backend_*.so")):
                if os.path.basename(stale) not in {os.path.basename(p) for p in libs}:
                    os.remove(stale)
            for lib in libs:
                shutil.copy2(lib, target)
            with open(os.path.join(target, "build_info.json"), "w") as f:
                json.dump(report, f, indent=1)


if os.path.isdir(CCACHE_DIR) and CCACHE_DIR not in os.environ.get("PATH", ""):
    os.environ["PATH"] = CCACHE_DIR + os.pathsep + os.environ.get("PATH", "")

ext = CppExtension(
    name="infinicore_torch._C",
    sources=sorted(glob.glob("csrc/**/*.cpp", recursive=True)),
    include_dirs=[os.path.join(BACKEND_SRC, "include"), os.path.join(ROOT, "csrc")],
    library_dirs=[BACKEND_BUILD],
    libraries=["infinicore"],
    extra_compile_args={"cxx": ["-O3"]},
    extra_link_args=["-Wl,-rpath,$ORIGIN/lib"],
)

setup(
    name="infinicore_torch",
    version="0.1.0",
    description="InfiniCore (infinirt, infiniop, infiniccl) as a PyTorch device",
    packages=find_packages(include=["infinicore_torch", "infinicore_torch.*"]),
    py_modules=["infinicore_torch_autoload"],
    package_data={"infinicore_torch": ["lib/*.so", "lib/build_info.json"]},
    python_requires=">=3.11",
    install_requires=["torch>=2.11"],
    extras_require={"test": ["pytest", "numpy"]},
    ext_modules=[ext],
    cmdclass={"build_ext": BuildAll.with_options(use_ninja=True)},
    entry_points={"torch.backends": ["infini = infinicore_torch_autoload:load"]},
    zip_safe=False,
)
