#!/usr/bin/env bash
# Compiles every example for sm_80, sm_89 and sm_90a and says where the PTX,
# cubin and launch metadata landed.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${BUILD:-$root/build}"
out="${DEMO_OUT:-$root/out/demo}"
tilec="$build/bin/tilec"
for ex in "$root"/examples/*.mlir; do
  name="$(basename "$ex" .mlir)"
  chips="sm_80 sm_89 sm_90a"
  # FP8 examples need sm_89 or later.
  case "$name" in *_fp8) chips="sm_89 sm_90a";; esac
  for chip in $chips; do
    dir="$out/$chip"
    "$tilec" "$ex" --chip="$chip" --emit=cubin -o "$dir"
    for json in $(grep -o '^tile.kernel @[A-Za-z0-9_]*' "$ex" | sed 's/tile.kernel @//'); do
      printf '%-22s %-7s %s/%s.{ptx,cubin,json}\n' "$name" "$chip" "$dir" "$json"
    done
  done
done
