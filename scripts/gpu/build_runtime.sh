#!/usr/bin/env bash
# libtilec-runtime.so -- the launch contract (include/tilec-c/Runtime.h), the
# launch path of the Python package and of the AOT headers -- for a GPU
# machine without LLVM or MLIR: built from lib/Runtime with nvcc (plain C++17
# on cuda.h, no libcuda to link). Prints the library's path on stdout.
#
#   export TILEC_RUNTIME_LIBRARY="$(scripts/gpu/build_runtime.sh [DIR])"
#
# When $TILEC_RUNTIME_LIBRARY already names a file, prints it and builds
# nothing. Otherwise builds into DIR (default: $TMPDIR/tilec-runtime-<hash of
# the sources>, reused while the sources stay the same). run_all.sh and
# launch_contract_check.sh call it; run bench/* and single checks the same way.
set -euo pipefail
if [ -n "${TILEC_RUNTIME_LIBRARY:-}" ] && [ -f "$TILEC_RUNTIME_LIBRARY" ]; then
  echo "$TILEC_RUNTIME_LIBRARY"
  exit 0
fi
root="$(cd "$(dirname "$0")/../.." && pwd)"
nvcc="${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}"
sources=("$root"/lib/Runtime/{Json,KernelSpec,Runtime,Driver,RuntimeCAPI}.cpp)
headers=("$root"/lib/Runtime/*.h "$root"/include/tilec/Runtime/*.h "$root"/include/tilec-c/Runtime.h)
hash="$(cat "${sources[@]}" "${headers[@]}" | sha256sum | cut -c1-16)"
dir="${1:-${TMPDIR:-/tmp}/tilec-runtime-$hash}"
lib="$dir/libtilec-runtime.so"
if [ ! -f "$lib" ]; then
  mkdir -p "$dir"
  # Built beside, then renamed: a concurrent caller never loads half a file.
  "$nvcc" -std=c++17 -O2 -shared -Xcompiler -fPIC,-fvisibility=hidden \
    -I"$root/include" "${sources[@]}" -o "$lib.$$" >&2
  mv "$lib.$$" "$lib"
fi
echo "$lib"
