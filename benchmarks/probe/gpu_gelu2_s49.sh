# 49th session, call 5 (main at e210a87): the build; the gelu / unary tests and test_isa.py (the AVX-512 host's
# CPU paths); torch's own CPU and CUDA gelu at +-inf; the comparison tool over gelu, every shape set, every peer,
# bfloat16 and float32.
source .ci/gpu_setup.sh > $OUT/setup.txt 2>&1 || { tail -30 $OUT/setup.txt; exit 1; }
grep -E "^build" $OUT/setup.txt; cat $OUT/gpu.txt
t=$(date +%s)
OMP_NUM_THREADS=8 timeout 150 python3 -m pytest -q test/test_ops.py test/test_isa.py -p no:cacheprovider -k "gelu or unary or isa" > $OUT/tests.txt 2>&1
echo "tests rc $? $(( $(date +%s) - t )) s: $(tail -1 $OUT/tests.txt)"; grep -E "^FAILED" $OUT/tests.txt | head -5
grep -o -m1 "avx512[a-z]*" /proc/cpuinfo | head -1
python3 -c "
import torch, torch.nn.functional as F
x = torch.tensor([float('inf'), -float('inf'), float('nan'), 3.0])
print('torch cpu gelu', F.gelu(x).tolist(), 'cuda', F.gelu(x.cuda()).tolist(), 'cpu erf', torch.erf(x).tolist())"
t=$(date +%s)
timeout 200 python3 -m infinicore_torch.bench --device cuda --shapes decode,prefill,large --budget 0.2 --busy-us 100 --ops gelu \
  --dtypes bfloat16,float32 --out /tmp/g > $OUT/bench_gelu.txt 2>&1; echo "bench rc $? $(( $(date +%s) - t )) s"
cp /tmp/g/*.json $OUT/ 2>/dev/null; tar cf $OUT/plots.tar -C /tmp/g . 2>/dev/null
grep -E "gelu|copy" $OUT/bench_gelu.txt | head -60
