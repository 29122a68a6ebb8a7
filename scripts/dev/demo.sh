#!/usr/bin/env bash
# Compiles every example for sm_80, sm_89 and sm_90a and says where the PTX,
# cubin and launch metadata landed.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
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
    # The kernels the example compiles to (a named op that runs as several
    # kernels, split-K or the attention backward, gives one per stage).
    tmp="$(mktemp -d)"
    "$tilec" "$ex" --chip="$chip" --emit=cubin -o "$tmp"
    mkdir -p "$dir"
    for json in "$tmp"/*.json; do
      printf '%-26s %-7s %s/%s.{ptx,cubin,json}\n' "$name" "$chip" "$dir" "$(basename "$json" .json)"
    done
    cp "$tmp"/* "$dir"/
    rm -rf "$tmp"
  done
done
