#!/bin/bash
# On a GPU machine without network: installs the carried wheels and builds the package with the
# nvidia backend. Logs under $OUT; the GPU, driver and torch versions in $OUT/gpu.txt. Usage: source .ci/gpu_setup.sh
set -o pipefail
export OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
if [ -d .whl/py312 ]; then
  python3 -m pip install -q --no-index --find-links .whl/py312 matplotlib liger-kernel expecttest >"$OUT/pip_wheels.log" 2>&1
fi
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/scipy_openblas32*.whl >>"$OUT/pip_wheels.log" 2>&1
export PYTHONPATH=/tmp/site
export MAX_JOBS=16
t0=$(date +%s)
INFINI_WITH_NVIDIA=1 python3 -m pip install --no-build-isolation -e . >"$OUT/build.log" 2>&1 || { tail -60 "$OUT/build.log"; exit 1; }
echo "build: $(( $(date +%s) - t0 )) s"
cat infinicore_torch/lib/build_info.json
python3 -c "import infinicore_torch as it; [print(b) for b in it.backends()]; print('cuda kernels:', it.cuda_kernels_available())"
{ nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader; python3 -c "import torch; print('torch', torch.__version__, 'cuda', torch.version.cuda)"; } > "$OUT/gpu.txt" 2>&1
