#!/usr/bin/env bash
# Runs on a machine of several GPUs with .devbin carried: transforms spread
# over GPUs through NCCL. The correctness tests (NCCL with one rank, P = 2
# and 4 where there are GPUs, ranks joined by id), the README's two-GPU
# example in both process models, and `fftgen bench --gpus P` with the
# one-GPU baseline (the multi-GPU table of docs/perf.md). NCCL comes from
# the image's Python wheel (nvidia-nccl-cu13), linked as libnccl.so.
# Logs: $OUT/multi_gpu_*.log, $OUT/multi_gpu_P.{json,md}.
set -uo pipefail
OUT="${OUT:-/tmp/out}"; mkdir -p "$OUT"
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
nccl_dir=$(python3 -c 'import nvidia.nccl, os; print(os.path.join(list(nvidia.nccl.__path__)[0], "lib"))')
mkdir -p /tmp/nccl && ln -sf "$nccl_dir/libnccl.so.2" /tmp/nccl/libnccl.so
export LD_LIBRARY_PATH="/tmp/nccl:$PWD/.devbin/lib:/usr/local/nvidia/lib64:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
export FFTGEN_CACHE_DIR=/tmp/fftgen-cache
gpus=$(nvidia-smi -L | wc -l)
{ nvidia-smi -L; nvidia-smi topo -m; python3 -c 'import nvidia.nccl, importlib.metadata as m; print("nccl wheel", m.version("nvidia-nccl-cu13"))'; } > "$OUT/multi_gpu_machine.log" 2>&1
timeout 300 .devbin/distributed --nocapture --test-threads 1 > "$OUT/multi_gpu_tests.log" 2>&1; echo "exit $?" >> "$OUT/multi_gpu_tests.log"
if [ "$gpus" -ge 2 ]; then
  { timeout 120 .devbin/two_gpus; echo "exit $?"
    rm -f /tmp/fftgen.id
    FFTGEN_RANK=0 FFTGEN_NCCL_ID_FILE=/tmp/fftgen.id timeout 120 .devbin/two_gpus & first=$!
    FFTGEN_RANK=1 FFTGEN_NCCL_ID_FILE=/tmp/fftgen.id timeout 120 .devbin/two_gpus; echo "exit rank 1: $?"
    wait $first; echo "exit rank 0: $?"; } > "$OUT/multi_gpu_example.log" 2>&1
fi
shapes="${SHAPES:-256x256x256,512x512x512,1024x1024x1024,16384x16384,4096x4096}"
for p in ${PLIST:-1 $gpus}; do
  timeout "${BENCH_TIMEOUT:-400}" .devbin/fftgen bench --gpus "$p" --n "$shapes" --json "$OUT/multi_gpu_$p.json" \
    --markdown "$OUT/multi_gpu_$p.md" > "$OUT/multi_gpu_bench_$p.log" 2>&1
  echo "exit $?" >> "$OUT/multi_gpu_bench_$p.log"
done
