#!/usr/bin/env bash
# Compiles examples/gemm_bf16.mlir with --emit=header into .gpu/aot/<chip>/
# (gemm_bf16.h, .cubin, .json, .ptx) for scripts/gpu/aot_runtime_check.sh on a
# Hopper machine: sm_90a as is, and sm_80 PTX assembled for sm_90 so that the
# cp.async path runs on the H200 too.
#
#   scripts/build/build_aot_artifacts.sh [OUT_DIR]   (BUILD=<build dir>, default build)
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
tilec="${BUILD:-$root/build}/bin/tilec"
out="${1:-$root/.gpu/aot}"
rm -rf "$out"
"$tilec" "$root/examples/gemm_bf16.mlir" --chip=sm_90a --emit=header \
  -o "$out/sm_90a"
"$tilec" "$root/examples/gemm_bf16.mlir" --chip=sm_80 --cubin-arch=sm_90 \
  --emit=header -o "$out/sm_80"
echo "AOT artifacts in $out"
