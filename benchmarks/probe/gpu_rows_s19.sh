# Nineteenth session, seventh call (H200): from how many lines the stream kernel beats the bulk kernel
# (temporary knob SM_STREAM_MIN: the stream kernel only where rows >= value x the clusters the GPU holds;
# 0 always, 1000 never), 128256- and 40008-element lines. Usage: bash benchmarks/probe/gpu_rows_s19.sh
source .ci/gpu_setup.sh || exit 1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $OUT/gpu.txt
t=$(date +%s); timeout 100 python3 -m pytest -q test/test_ops.py -k "softmax" -p no:cacheprovider > $OUT/t.log 2>&1; echo "tests rc $? $(( $(date +%s) - t )) s: $(tail -1 $OUT/t.log)"; grep -E "^FAILED" $OUT/t.log | head -3
cd benchmarks/probe
t=$(date +%s); timeout 150 python3 softmax_rows.py SM_STREAM_MIN=0,1000 --rows 40,66,100,132,200,264,512 > $OUT/rows128k.txt 2>&1; echo "rows 128256 rc $? $(( $(date +%s) - t )) s"; grep -v -i warn $OUT/rows128k.txt | sed -n '/medians/,$p'
t=$(date +%s); timeout 150 python3 softmax_rows.py SM_STREAM_MIN=0,1000 --cols 40008 --rows 80,132,200,264,400,528,1056 > $OUT/rows40k.txt 2>&1; echo "rows 40008 rc $? $(( $(date +%s) - t )) s"; grep -v -i warn $OUT/rows40k.txt | sed -n '/medians/,$p'
