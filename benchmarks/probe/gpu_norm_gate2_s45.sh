# 45th session, second call: norm_gate.py over add_rms_norm and silu_and_mul with the L2-policy and prefetch
# variants added, 7 rounds; then the SASS of our Triton add_rms_norm kernel and of the landed add_rms_norm kernel
# (cuobjdump), to compare their instruction streams.
mkdir -p $OUT
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $OUT/gpu.txt
cd benchmarks/probe
export TRITON_CACHE_DIR=/tmp/tcache
timeout 300 python3 norm_gate.py --ops add_rms_norm,silu_and_mul --rounds 7 2>&1 | grep -v Warning | tee $OUT/norm_gate.txt
CUOBJ=$(command -v cuobjdump || echo /usr/local/cuda/bin/cuobjdump)
{
  for f in $(grep -l "_rms_norm_kernel" -r /tmp/tcache --include=*.json 2>/dev/null); do
    d=$(dirname $f); echo "=== $f"; grep -o '"constants": {[^}]*}' $f | head -1; grep -o '"HAS_RES[^,]*' $f | head -2
    for c in $d/*.cubin; do $CUOBJ -sass $c | grep -vE "^\s*$|/\*[0-9a-f]{4}\*/\s*$" ; done
  done
  echo "=== landed add_rms_norm (norm_gate.so)"
  $CUOBJ -sass /tmp/norm_gate.so | awk '/Function :/ {on = index($0, "normKILb1ELi256ELi2ELi8ELb0ELi0ELi0ELb0E") > 0} on'
} > $OUT/sass.txt 2>&1
wc -l $OUT/sass.txt; grep -c "LDG\|STG" $OUT/sass.txt
