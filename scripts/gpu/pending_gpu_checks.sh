#!/usr/bin/env bash
# The GPU checks that code on main is waiting for (compiled but not yet run on
# a GPU), in two steps: build here, run there. Each part of the run fits one
# device command (10 minutes).
#
#   Here (the compiler):  scripts/gpu/pending_gpu_checks.sh build [DIR]
#   There (the H200):     scripts/gpu/pending_gpu_checks.sh run PART [DIR]
#                         (PART: training | backward | split_k; results
#                         under $OUT/PART, packed into $OUT/PART.tgz)
#
# training: tilec.attention's autograd through tile.attention_backward's
#   stage kernels (python/tilec/training.py), head dims 64/128/256, the
#   test matrix of scripts/gpu/training_check.py, then the decoder block
#   (scripts/gpu/decoder_training_check.py, 100 steps).
# backward: the op's kernels beside the text programs and the tile variants
#   (share_tiles, split-N wgmma, register budgets), head dim 256 included:
#   correctness and speed against cuDNN and flash
#   (scripts/gpu/attention_backward_check.py --op --variants; sm_90a, or the
#   chips in $CHIPS: CHIPS=sm_80 for the mma.sync path in a second command).
# split_k: the decode GEMMs, row-major B through wgmma's transposed A
#   (scripts/gpu/split_k_check.py --bench).
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$root"
mode="${1:?build or run}"
if [ "$mode" = build ]; then
  dir="${2:-.gpu/pending}"
  : "${TILEC_LIBRARY:=$root/build/lib/libtilec-c.so}"
  export TILEC_LIBRARY
  python3 -m scripts.build.build_python_artifacts --training --attention-scales 0.1 \
    --chips sm_90a --out "$dir/python"
  python3 -m scripts.build.build_backward_artifacts --chips sm_80,sm_90a --op --out "$dir/bwd"
  cp build/lib/libtilec-rules.so "$dir/bwd/"
  python3 -m scripts.gpu.split_k_check --build "$dir/split_k"
  # A GPU machine needs the json and cubin of each kernel, not the PTX.
  find "$dir" -name '*.ptx' -delete
  du -sh "$dir"
  exit 0
fi
part="${2:?training, backward or split_k}"
dir="${3:-.gpu/pending}"
out="${OUT:?set OUT}/$part"
mkdir -p "$out"

nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv > "$out/gpu.txt"
case "$part" in
  training)
    export TILEC_ARTIFACTS="$dir/python" TILEC_RULES_LIBRARY="$dir/python/libtilec-rules.so"
    timeout 330 python3 -m scripts.gpu.training_check --out "$out" > "$out/training.txt" 2>&1 \
      || echo "training_check rc=$?" >> "$out/training.txt"
    timeout 200 python3 -m scripts.gpu.decoder_training_check --out "$out" > "$out/decoder.txt" 2>&1 \
      || echo "decoder_training_check rc=$?" >> "$out/decoder.txt"
    ;;
  backward)
    export TILEC_RULES_LIBRARY="$dir/bwd/libtilec-rules.so"
    timeout 540 python3 -m scripts.gpu.attention_backward_check --artifacts "$dir/bwd" \
      --chips "${CHIPS:-sm_90a}" --op --variants --out "$out" > "$out/backward.txt" 2>&1 \
      || echo "attention_backward_check rc=$?" >> "$out/backward.txt"
    ;;
  split_k)
    timeout 540 python3 -m scripts.gpu.split_k_check --artifacts "$dir/split_k" --out "$out" \
      --bench > "$out/split_k.txt" 2>&1 || echo "split_k_check rc=$?" >> "$out/split_k.txt"
    ;;
  *) echo "unknown part $part" >&2; exit 2 ;;
esac
tail -20 "$out"/*.txt
tar czf "$OUT/$part.tgz" -C "$OUT" "$part"
