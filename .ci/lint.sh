#!/usr/bin/env bash
# Style checks, as CI runs them: ruff (lint and format) over the Python, clang-format over the C/C++/CUDA.
# Fix locally with: ruff check --fix . && ruff format . && clang-format -i $(git ls-files '*.cpp' '*.h' '*.cu' '*.cuh')
# The versions are pinned: another clang-format release formats some constructs differently.
set -euo pipefail
cd "$(dirname "$0")/.."
RUFF=0.17.6
CLANG_FORMAT=23.1.5
if [[ "$(ruff --version 2>/dev/null)" != "ruff $RUFF" ]] ||
    [[ "$(clang-format --version 2>/dev/null)" != *"version $CLANG_FORMAT"* ]]; then
    pip install -q "ruff==$RUFF" "clang-format==$CLANG_FORMAT"
fi
ruff check .
ruff format --check .
git ls-files '*.cpp' '*.h' '*.cu' '*.cuh' | xargs clang-format --dry-run --Werror
