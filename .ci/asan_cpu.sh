#!/usr/bin/env bash
# AddressSanitizer over the CPU backend (not part of .ci/run: ~12 min to build on 2 cores, ~25 min of tests).
# Builds libinfinicore.so and libinfini_backend_cpu.so with -fsanitize=address into $WORK, copies the package (as
# installed by the README's first command: infinicore_torch/_C*.so built) beside them and runs the whole suite
# against the instrumented libraries, the first report stopping the run (its text in $WORK/asan.*).
# The torch glue (_C) and torch are not instrumented; libstdc++ is preloaded with libasan so that ASan finds the real
# __cxa_throw (without it the first C++ exception thrown inside torch aborts the process).
# Usage: bash .ci/asan_cpu.sh [pytest args]   (default: the whole test folder)
set -euo pipefail
cd "$(dirname "$0")/.."
WORK=${WORK:-/tmp/infini_asan}
rm -rf "$WORK" && mkdir -p "$WORK"
cp -r backends "$WORK/src"
# ASan adds load-time constructors to every object: the AVX-512 objects' no-initializer check is off here
python3 - "$WORK/src/CMakeLists.txt" <<'EOF'
import sys
p = sys.argv[1]
s = open(p).read()
i = s.index("add_custom_command(TARGET infini_backend_cpu PRE_LINK")
j = s.index("VERBATIM)", i) + len("VERBATIM)")
open(p, "w").write(s[:i] + "# (ASan build: no load-time check)" + s[j:])
EOF
OPENBLAS=$(python3 -c "import scipy_openblas32, os; print(os.path.dirname(scipy_openblas32.__file__))")
cmake -S "$WORK/src" -B "$WORK/build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  "-DCMAKE_CXX_FLAGS=-fsanitize=address -fno-omit-frame-pointer -g" "-DCMAKE_SHARED_LINKER_FLAGS=-fsanitize=address" \
  -DINFINI_OPENBLAS_DIR="$OPENBLAS" > "$WORK/cmake.log"
cmake --build "$WORK/build" > "$WORK/build.log"
# the package and everything its tests read (the autoload module torch imports in the distributed tests' ranks; test/,
# benchmarks/, backends/ for the generated-header and loader tests)
mkdir -p "$WORK/pkg"
cp -r infinicore_torch infinicore_torch_autoload.py test benchmarks backends pytest.ini "$WORK/pkg/"
rm -f "$WORK/pkg/infinicore_torch/lib/"*.so
cp "$WORK/build/libinfinicore.so" "$WORK/build/libinfini_backend_cpu.so" "$WORK/pkg/infinicore_torch/lib/"
cd "$WORK/pkg"
LD_PRELOAD="$(gcc -print-file-name=libasan.so) $(gcc -print-file-name=libstdc++.so.6)" \
ASAN_OPTIONS=detect_leaks=0:halt_on_error=1:log_path="$WORK/asan" PYTHONPATH="$WORK/pkg" \
  python -m pytest -q -p no:cacheprovider "${@:-test}"
