#!/usr/bin/env bash
# Every GPU check on the bundle that scripts/build/build_gpu_artifacts.sh
# (`make gpu-artifacts`) built here: run on the GPU machine from the
# repository root. Each check writes its log to $OUT/<check>.txt and its
# JSON record under $OUT; a check that fails or times out does not stop the
# others. Exits 1 when any check failed.
#
#   scripts/gpu/run_all.sh [BUNDLE]          (default .gpu/bundle)
#   OUT=DIR       where results go (default out/gpu)
#   CHECKS="..."  a subset, in this order: examples gemm attention backward
#                 training python bmm grouped block corpus aot wgmma_rs
#   QUICK=1       the short form of the checks that have one (attention,
#                 block, corpus: fewer shapes; no gemm --bench)
set -uo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$root"
bundle="${1:-.gpu/bundle}"
out="${OUT:-out/gpu}"
quick="${QUICK:-}"
checks="${CHECKS:-examples gemm attention backward training python bmm grouped block corpus aot wgmma_rs}"
mkdir -p "$out"
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv > "$out/gpu.txt" 2>&1
failed=""

# run NAME SECONDS COMMAND...: the command under a timeout, its output in
# $OUT/NAME.txt, one line of status.
run() {
  local name="$1" limit="$2"
  shift 2
  local start=$SECONDS
  timeout "$limit" "$@" > "$out/$name.txt" 2>&1
  local rc=$?
  echo "$name: rc=$rc, $((SECONDS - start)) s ($out/$name.txt)"
  [ "$rc" = 0 ] || failed="$failed $name"
}

for check in $checks; do
  case "$check" in
    examples) run examples 300 python3 -m scripts.gpu.gpu_check --artifacts "$bundle/examples" \
                --out "$out/gpu_check.json" ;;
    gemm)
      for chip in sm_90a sm_80; do
        run "gemm_$chip" 540 python3 -m scripts.gpu.gemm_check --artifacts "$bundle/gemm/$chip" \
          --out "$out/gemm_$chip" $([ -z "$quick" ] && [ "$chip" = sm_90a ] && echo --bench)
      done ;;
    attention) run attention 540 python3 -m scripts.gpu.attention_check "$bundle/att" \
                 "$out/attention.json" ${quick:+--quick} ;;
    backward) TILEC_RULES_LIBRARY="$bundle/backward/libtilec-rules.so" \
                run backward 540 python3 -m scripts.gpu.attention_backward_check \
                --artifacts "$bundle/backward" --chips sm_90a --op --out "$out/backward" \
                ${quick:+--no-bench --cases 4} ;;
    training) TILEC_ARTIFACTS="$bundle/python" TILEC_RULES_LIBRARY="$bundle/python/libtilec-rules.so" \
                run training 400 python3 -m scripts.gpu.training_check --out "$out/training" ;;
    python) run python 540 python3 -m scripts.gpu.python_check --artifacts "$bundle/python" \
              --out "$out/python_check.json" ;;
    bmm) run bmm 300 python3 -m scripts.gpu.bmm_check --artifacts "$bundle/python" \
           --out "$out/bmm_check.json" ;;
    grouped) run grouped 300 python3 -m scripts.gpu.grouped_gemm_check --artifacts "$bundle/python" \
               --out "$out/grouped_gemm_check.json" ;;
    block) run block 540 python3 -m bench.block_programs --artifacts "$bundle/block" \
             --out "$out/block" ${quick:+--quick} ;;
    corpus) run corpus 540 python3 -m bench.corpus --artifacts "$bundle/corpus" --chips sm_90a,sm_80 \
              --out "$out/corpus" ${quick:+--quick} ;;
    aot) run aot 300 scripts/gpu/aot_runtime_check.sh "$bundle/aot" ;;
    wgmma_rs) run wgmma_rs 120 python3 -m scripts.gpu.wgmma_rs_check \
                --artifacts "$bundle/examples/sm_90a" --out "$out/wgmma_rs.json" ;;
    *) echo "unknown check $check" >&2; failed="$failed $check" ;;
  esac
done
if [ -n "$failed" ]; then
  echo "failed:$failed"
  exit 1
fi
echo "all checks passed"
