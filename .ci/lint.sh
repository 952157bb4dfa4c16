#!/usr/bin/env bash
# Style checks, as CI runs them: ruff (lint and format) over the Python, clang-format over the C/C++/CUDA.
# Fix locally with: ruff check --fix . && ruff format . && clang-format -i $(git ls-files '*.cpp' '*.h' '*.cu' '*.cuh')
set -euo pipefail
cd "$(dirname "$0")/.."
command -v ruff >/dev/null && command -v clang-format >/dev/null || pip install -q ruff clang-format
ruff check .
ruff format --check .
git ls-files '*.cpp' '*.h' '*.cu' '*.cuh' | xargs clang-format --dry-run --Werror
