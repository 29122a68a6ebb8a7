#!/usr/bin/env bash
# GPU check of the ways in that need no Python: the AOT header
# (examples/aot/gemm_main.cu, built once per chip against that chip's
# gemm_bf16.h, linked with libtilec-runtime.so) and the C++ runtime
# (examples/runtime/runtime_check.cpp), both built here from the lib/Runtime
# sources (plain C++17 on cuda.h), on the artifacts that
# scripts/build/build_aot_artifacts.sh prepares (one directory per chip).
# Needs nvcc and a GPU, not LLVM or MLIR. Writes one log per step and summary.txt into
# $OUT (default out/aot-check); exits non-zero if a step fails.
#
#   scripts/gpu/aot_runtime_check.sh [ARTIFACTS]     (default .gpu/aot)
set -uo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
art="${1:-$root/.gpu/aot}"
out="${OUT:-$root/out/aot-check}"
nvcc="${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}"
arch="${NVCC_ARCH:-sm_90}"
# libcuda through the toolkit's stub (SONAME libcuda.so.1): the driver's
# library is loaded at run time even where no unversioned libcuda.so exists.
stubs="$(dirname "$(dirname "$nvcc")")/lib64/stubs"
bin="$(mktemp -d)"
trap 'rm -rf "$bin"' EXIT
mkdir -p "$out"
failed_steps=()

# run NAME CMD...: runs CMD, logs to $out/NAME.log; false if it failed.
run() {
  local name="$1"
  shift
  echo "== $name: $*"
  "$@" > "$out/$name.log" 2>&1
  local rc=$?
  cat "$out/$name.log"
  if [ "$rc" -ne 0 ]; then
    echo "== $name: exit code $rc"
    failed_steps+=("$name")
    return 1
  fi
}

# The launch contract's one implementation, as the AOT headers link it.
runtime_sources=("$root/lib/Runtime/Json.cpp" "$root/lib/Runtime/KernelSpec.cpp"
                 "$root/lib/Runtime/Runtime.cpp" "$root/lib/Runtime/Driver.cpp")
run build-libtilec-runtime env -u TILEC_RUNTIME_LIBRARY "$root/scripts/gpu/build_runtime.sh" "$bin"

dirs=()
for dir in "$art"/*; do
  [ -f "$dir/gemm_bf16.h" ] || continue
  dirs+=("$dir")
  chip="$(basename "$dir")"
  run "build-gemm_main-$chip" "$nvcc" -std=c++17 -O2 -arch="$arch" \
      -I"$dir" -I"$root/include" "$root/examples/aot/gemm_main.cu" \
      -o "$bin/gemm_main-$chip" -L"$bin" -ltilec-runtime \
      -Xlinker -rpath,"$bin" -L"$stubs" -lcuda &&
    run "gemm_main-$chip" "$bin/gemm_main-$chip"
done
if [ "${#dirs[@]}" -eq 0 ]; then
  echo "no */gemm_bf16.h under $art: run scripts/build/build_aot_artifacts.sh" >&2
  exit 2
fi
run build-runtime_check "$nvcc" -std=c++17 -O2 -I"$root/include" \
    "${runtime_sources[@]}" \
    "$root/examples/runtime/runtime_check.cpp" -o "$bin/runtime_check" \
    -L"$stubs" -lcuda &&
  run runtime_check "$bin/runtime_check" "${dirs[@]}"

{
  grep -h '^\(PASS\|FAIL\) ' "$out"/gemm_main-*.log "$out"/runtime_check.log \
    2>/dev/null
  for step in "${failed_steps[@]}"; do
    echo "FAIL step $step (see $step.log)"
  done
} > "$out/summary.txt"
echo "== summary: $(grep -c '^PASS ' "$out/summary.txt") checks passed," \
  "$(grep -c '^FAIL ' "$out/summary.txt") failed (logs in $out)"
[ "${#failed_steps[@]}" -eq 0 ]
