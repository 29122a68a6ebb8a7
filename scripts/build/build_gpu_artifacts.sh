#!/usr/bin/env bash
# Compiles the examples into .gpu/artifacts/<chip>/ for the GPU check on a
# Hopper machine: sm_80/sm_89 PTX is assembled for sm_90 (the H200), sm_90a
# for sm_90a.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
tilec="${BUILD:-$root/build}/bin/tilec"
out="${1:-$root/.gpu/artifacts}"
rm -rf "$out"
for chip in sm_80 sm_89 sm_90a; do
  arch=sm_90
  [ "$chip" = sm_90a ] && arch=sm_90a
  for ex in "$root"/examples/*.mlir; do
    "$tilec" "$ex" --chip="$chip" --cubin-arch="$arch" --emit=cubin -o "$out/$chip"
  done
done
echo "artifacts in $out"
