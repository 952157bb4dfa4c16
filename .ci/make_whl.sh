#!/bin/bash
# Makes the git-ignored .whl/ that the GPU runs carry (benchmarks/gpu_verify.sh; .ci/gpu_setup.sh installs from it):
# matplotlib and its dependencies, liger-kernel and expecttest for the GPU machine's Python 3.12, and scipy-openblas32. numpy is
# left out (the GPU machine has it with torch; with it the carried tree exceeds a 64 MiB transfer limit). Needs the
# network or a local index; run from the repository root.
set -e
rm -rf .whl && mkdir -p .whl/py312
plat=(--only-binary=:all: --python-version 3.12 --platform manylinux2014_x86_64 --platform manylinux_2_17_x86_64 --platform manylinux_2_28_x86_64)
pip download -q "${plat[@]}" -d .whl/py312 matplotlib
pip download -q --no-deps "${plat[@]}" -d .whl/py312 liger-kernel==0.8.5
pip download -q --no-deps --only-binary=:all: --python-version 3.12 -d .whl/py312 expecttest
pip download -q --no-deps --only-binary=:all: --python-version 3.12 --platform manylinux2014_x86_64 -d .whl scipy-openblas32
rm -f .whl/py312/numpy-*.whl
du -sh .whl
