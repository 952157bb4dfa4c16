#!/usr/bin/env bash
# The dispatcher and the cpu backend built with AddressSanitizer + UndefinedBehaviorSanitizer (build/asan), then
# pytest over the given tests (default: the C ABI, operator and sweep tests) with those libraries in place of the
# package's own (swapped into infinicore_torch/lib for the run, the originals put back at the end): a memory error
# or undefined behaviour in them stops the run with the sanitizer's report. The torch glue is not instrumented.
#   bash .ci/sanitize.sh [pytest arguments...]
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=build/asan
OPENBLAS=$(python -c "import os, scipy_openblas32; print(os.path.dirname(scipy_openblas32.__file__))" 2>/dev/null || true)
cmake -S backends -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DINFINI_SANITIZE=ON \
  -DINFINI_OPENBLAS_DIR="$OPENBLAS" $(command -v ccache >/dev/null && echo -DCMAKE_CXX_COMPILER_LAUNCHER=ccache) >/dev/null
cmake --build "$BUILD" --parallel "${MAX_JOBS:-$(nproc)}" --target infinicore infini_backend_cpu
[ $# -gt 0 ] || set -- test/c_abi test/ops/test_ops.py test/reliability/test_op_sweeps.py
# python is not instrumented: the runtimes come first, leak checking is off (the interpreter keeps what it allocates
# for good), UBSan stops at the first report
export LD_PRELOAD="$(g++ -print-file-name=libasan.so):$(g++ -print-file-name=libubsan.so)"
export ASAN_OPTIONS=detect_leaks=0:abort_on_error=1:allocator_may_return_null=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
LIB=infinicore_torch/lib
SAVED=$(mktemp -d)
cp "$LIB/libinfinicore.so" "$LIB/libinfini_backend_cpu.so" "$SAVED/"
trap 'cp "$SAVED"/*.so "$LIB/"; rm -rf "$SAVED"' EXIT
cp "$BUILD/libinfinicore.so" "$BUILD/libinfini_backend_cpu.so" "$LIB/"
python -c "import infinicore_torch as it; assert it._C._backend_name() == 'cpu'; print('sanitized: the cpu backend')"
python -m pytest -q -p no:cacheprovider "$@"
