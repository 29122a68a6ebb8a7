#!/usr/bin/env bash
# The GPU runs the 2026-12-06 fifth session owed (no GPU was lent to it).
#
#   bench/owed_2026-12-06.sh build BASE_TILEC   # here, on the CPU machine (~5 min)
#   bench/owed_2026-12-06.sh run                # on the GPU machine, carry .gpu/owed
#
# build: the six head-dim-64 attention programs of the corpus for sm_90a with
# --fast-math, by this build (sm_90a_fast) and by BASE_TILEC (sm_90a_fast_base:
# the compiler before tile-mask-bounds kept a mask's document term and before
# tile-convert-before-broadcast, e.g. a build of 0e53d96), plus two probe chips
# of hand-edited programs: sm_90a_fast_x (attention_rows without warp
# specialization; document_skip, sliding window and fwd on 3-stage rings;
# alibi with its index conversion rewritten by hand) and sm_90a_fast_y (rows
# without warp specialization on a 4-stage ring; 2-stage rings; fwd on 8;
# alibi by hand on 3), and the Python package's artifacts.
# run: the probe in one interleaved corpus run (correctness with poisoned
# outputs, then 5 rounds beside the Triton twins and FlexAttention), then the
# Python check of the split host layer (scripts/gpu/python_check.py).
set -euo pipefail
cd "$(dirname "$0")/.."
OWED=.gpu/owed
PROGRAMS=attention_alibi,attention_rows,attention_document_skip,attention_document,attention_sliding_window,attention_fwd

build_probe_chip() {  # CHIP, then PROGRAM=SCHEDULE_OR_ALIBI pairs
  local chip=$1; shift
  mkdir -p "$OWED/probe/$chip" "$OWED/src/$chip"
  echo '{}' > "$OWED/probe/$chip/build.json"
  for pair in "$@"; do
    local name=${pair%%=*} how=${pair#*=}
    python3 - "corpus/$name.mlir" "$how" > "$OWED/src/$chip/$name.mlir" <<'PY'
import re, sys
text, how = open(sys.argv[1]).read(), sys.argv[2]
if how.startswith("alibi"):
    old = ("    %rel = arith.subi %kjb, %qib : tensor<128x64xi32>\n"
           "    %relf = arith.sitofp %rel : tensor<128x64xi32> to tensor<128x64xf32>\n")
    new = ("    %kjf = arith.sitofp %kj : tensor<64xi32> to tensor<64xf32>\n"
           "    %kjf2 = tile.expand_dims %kjf axis = 0 : tensor<64xf32> -> tensor<1x64xf32>\n"
           "    %kjfb = tile.broadcast %kjf2 : tensor<1x64xf32> -> tensor<128x64xf32>\n"
           "    %relf = arith.subf %kjfb, %qifb : tensor<128x64xf32>\n")
    assert old in text
    text = text.replace(old, new).replace("  %cols = tile.range 0 to 64", (
        "  %qif = arith.sitofp %qi : tensor<128xi32> to tensor<128xf32>\n"
        "  %qif2 = tile.expand_dims %qif axis = 1 : tensor<128xf32> -> tensor<128x1xf32>\n"
        "  %qifb = tile.broadcast %qif2 : tensor<128x1xf32> -> tensor<128x64xf32>\n"
        "  %cols = tile.range 0 to 64"), 1)
    how = how[len("alibi"):].lstrip(":")
if how:
    text = re.sub(r"warps\(\d+\)", lambda m: f"{m.group(0)} schedule<{how}>", text, count=1)
sys.stdout.write(text)
PY
    build/bin/tilec "$OWED/src/$chip/$name.mlir" --chip=sm_90a --cubin-arch=sm_90a \
      --emit=cubin --fast-math -o "$OWED/probe/$chip" 2>/dev/null
  done
}

case "${1:-}" in
build)
  base=${2:?"usage: $0 build BASE_TILEC"}
  rm -rf "$OWED"
  python3 -m scripts.build.build_corpus_artifacts --out "$OWED/probe" --chips sm_90a_fast,sm_90a_fast_base \
    --base-tilec "$base" --only "$PROGRAMS" --jobs 2
  build_probe_chip sm_90a_fast_x "attention_alibi=alibi" \
    "attention_rows=warp_specialize = false" "attention_document_skip=stages = 3" \
    "attention_sliding_window=stages = 3" "attention_fwd=stages = 3"
  build_probe_chip sm_90a_fast_y "attention_alibi=alibi:stages = 3" \
    "attention_rows=warp_specialize = false, stages = 4" "attention_document_skip=stages = 2" \
    "attention_sliding_window=stages = 2" "attention_fwd=stages = 8"
  TILEC_LIBRARY="$PWD/build/lib/libtilec-c.so" python3 -m scripts.build.build_python_artifacts --out "$OWED/python"
  find "$OWED" -name '*.ptx' -delete
  du -sh "$OWED" ;;
run)
  nvidia-smi --query-gpu=name --format=csv,noheader | tee "$OUT/gpu.txt"
  python3 -m bench.corpus --artifacts "$OWED/probe" --out "$OUT/probe" \
    --chips sm_90a_fast,sm_90a_fast_base,sm_90a_fast_x,sm_90a_fast_y --only "$PROGRAMS" --rounds 5 \
    > "$OUT/probe.log" 2>&1 || echo "corpus.py rc=$? (correctness failures or errors: see the log)"
  python3 -m scripts.gpu.python_check --artifacts "$OWED/python" \
    --out "$OUT/python_check.json" > "$OUT/python_check.log" 2>&1 || echo "python_check rc=$?"
  tail -3 "$OUT/python_check.log" ;;
*)
  sed -n '2,20p' "$0"; exit 2 ;;
esac
