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
#                 score_mod flex flex_tables decode varlen attention_block variants sweep any_strides decoder split_k
#                 gemm_sweep batch_reduce shuffle lin linalg host
#   QUICK=1       the short form of the checks that have one (attention,
#                 block, corpus, sweep, decoder: fewer shapes or
#                 steps; no gemm or split_k --bench)
set -uo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$root"
bundle="${1:-.gpu/bundle}"
out="${OUT:-out/gpu}"
quick="${QUICK:-}"
checks="${CHECKS:-examples gemm attention backward training python bmm grouped block corpus aot wgmma_rs score_mod flex flex_tables decode varlen attention_block variants sweep any_strides decoder split_k gemm_sweep batch_reduce shuffle lin linalg host}"
mkdir -p "$out"
# The launch contract, through which every check launches (the package and
# the AOT headers): $TILEC_RUNTIME_LIBRARY, or built here with nvcc.
if ! TILEC_RUNTIME_LIBRARY="$(scripts/gpu/build_runtime.sh 2> "$out/build_runtime.txt")"; then
  echo "build_runtime: FAILED ($out/build_runtime.txt)"
  exit 1
fi
export TILEC_RUNTIME_LIBRARY
echo "runtime library: $TILEC_RUNTIME_LIBRARY"
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
    score_mod) run score_mod 300 python3 -m scripts.gpu.attention_score_mod_check \
                 --artifacts "$bundle/examples" --out "$out/score_mod" ${quick:+--quick} ;;
    flex) run flex 400 python3 -m scripts.gpu.flex_check --artifacts "$bundle/flex" \
            --out "$out/flex" ${quick:+--quick} ;;
    decode) run decode 400 python3 -m scripts.gpu.decode_check --artifacts "$bundle/decode" \
              --out "$out/decode" ${quick:+--quick} ;;
    flex_tables) run flex_tables 400 python3 -m scripts.gpu.flex_tables_check \
                   --artifacts "$bundle/flex_tables" --out "$out/flex_tables" ;;
    varlen) run varlen 400 python3 -m scripts.gpu.varlen_check --artifacts "$bundle/varlen" \
              --out "$out/varlen" ${quick:+--quick} ;;
    attention_block) run attention_block 120 python3 -m scripts.gpu.attention_block_check \
                       "$bundle/examples/sm_90a" --out "$out/attention_block.json" ;;
    variants) run variants 540 python3 -m scripts.gpu.attention_variants "$bundle/att" \
                "$out/attention_variants.json" ;;
    sweep) run sweep 540 python3 -m scripts.gpu.gpu_sweep --artifacts "$bundle/block" \
             --out "$out/gpu_sweep" ${quick:+--shapes 20} ;;
    any_strides) run any_strides 300 python3 -m scripts.gpu.gemm_any_strides_check \
                   --artifacts "$bundle/python" --out "$out/gemm_any_strides.json" ;;
    decoder) TILEC_ARTIFACTS="$bundle/python" TILEC_RULES_LIBRARY="$bundle/python/libtilec-rules.so" \
               run decoder 540 python3 -m scripts.gpu.decoder_training_check --out "$out/decoder" \
               ${quick:+--steps 30} ;;
    split_k) run split_k 540 python3 -m scripts.gpu.split_k_check --artifacts "$bundle/split_k" \
               --out "$out/split_k" $([ -z "$quick" ] && echo --bench) ;;
    gemm_sweep) run gemm_sweep 540 python3 -m scripts.gpu.gemm_sweep_check \
                  --artifacts "$bundle/gemm_sweep" --out "$out/gemm_sweep.json" ;;
    batch_reduce) OUT="$out" run batch_reduce 300 python3 -m scripts.gpu.batch_reduce_check \
                    run "$bundle/batch_reduce" ;;
    shuffle) run shuffle 120 python3 -m scripts.gpu.layout_shuffle_check run \
               --artifacts "$bundle/shuffle" --out "$out/layout_shuffle.json" ;;
    lin) run lin 120 python3 -m scripts.gpu.linalg_coverage_check --artifacts "$bundle/lin" \
           --out "$out/linalg_coverage.json" ;;
    linalg) run linalg 540 python3 -m scripts.gpu.linalg_lowp_check --art "$bundle/linalg" \
              --out "$out/linalg_lowp" ;;
    host) run host 300 python3 -m scripts.gpu.host_e2e_check run --out "$bundle/host" \
            --json "$out/host_e2e.json" ;;
    *) echo "unknown check $check" >&2; failed="$failed $check" ;;
  esac
done
if [ -n "$failed" ]; then
  echo "failed:$failed"
  exit 1
fi
echo "all checks passed"
