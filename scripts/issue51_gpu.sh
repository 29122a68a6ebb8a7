#!/usr/bin/env bash
# Issue 51's GPU checks, in two steps: build here, run there.
#
#   Here (the compiler):  scripts/issue51_gpu.sh build [DIR]
#   There (the GPU):      scripts/issue51_gpu.sh run PART [DIR]
#                         (PART: math | corpus; results under $OUT/PART)
#
# math: every math op's kernel (scripts/gen_math_ops.py) on 1M random inputs
#   against torch's float64, max ulp error beside bench/math_bounds.json.
# corpus: the corpus of user programs against their Triton twins and torch
#   (bench/corpus.py): correctness on odd sizes, speed in alternating rounds;
#   sm_90a default (IEEE) and fast-math builds, sm_80 PTX on Hopper.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
mode="${1:?build or run}"
if [ "$mode" = build ]; then
  dir="${2:-.gpu/issue51}"
  rm -rf "$dir"; mkdir -p "$dir/math"
  git rev-parse --short HEAD > "$dir/math/commit.txt"
  for t in f32 f16 bf16 i32; do
    build/bin/tilec "test/Target/Inputs/math_ops_$t.mlir" --chip=sm_90a --emit=cubin -o "$dir/math"
  done
  python3 scripts/build_corpus_artifacts.py --out "$dir/corpus" --jobs 2 \
    --chips sm_90a,sm_90a_fast,sm_90a_fast_spec,sm_80
  find "$dir" -name '*.ptx' -delete
  du -sh "$dir"
  exit 0
fi
part="${2:?math or corpus}"
dir="${3:-.gpu/issue51}"
out="${OUT:?set OUT}/$part"
mkdir -p "$out"
export PYTHONPATH=python
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,memory.total --format=csv > "$out/gpu.txt"
case "$part" in
  math)
    timeout 300 python3 bench/math_accuracy.py --artifacts "$dir/math" --out "$out" \
      > "$out/math.txt" 2>&1 || echo "math_accuracy rc=$?" >> "$out/math.txt" ;;
  corpus)
    timeout "${CORPUS_TIMEOUT:-540}" python3 bench/corpus.py --artifacts "$dir/corpus" --out "$out" \
      ${CORPUS_ARGS:-} > "$out/corpus.txt" 2>&1 || echo "corpus rc=$?" >> "$out/corpus.txt" ;;
  *) echo "unknown part $part" >&2; exit 2 ;;
esac
tail -40 "$out"/*.txt
