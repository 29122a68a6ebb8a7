#!/usr/bin/env bash
# GPU check of the launch contract's one implementation, libtilec-runtime.so
# (include/tilec-c/Runtime.h), through its three users, on the artifacts of
# scripts/build/build_launch_contract_artifacts.sh (no compiler needed here):
#   1. libtilec-runtime.so built here from lib/Runtime with nvcc
#      (scripts/gpu/build_runtime.sh);
#   2. the AOT header and the C++ runtime: scripts/gpu/aot_runtime_check.sh;
#   3. the C ABI from Python (ctypes): scripts/gpu/launch_contract_check.py,
#      with the host cost per launch of each path (JSON record);
#   4. --emit=host programs on libtilec-host-runtime.so:
#      scripts/gpu/host_e2e_check.py run;
#   5. the Python package: scripts/gpu/python_check.py (its own overhead
#      record included).
# Logs and JSON records go to $OUT (default out/launch-contract); exits
# non-zero if a step fails.
#
#   scripts/gpu/launch_contract_check.sh [ARTIFACTS]   (default .gpu/launch-contract)
set -uo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
art="$(cd "${1:-$root/.gpu/launch-contract}" && pwd)"
out="${OUT:-$root/out/launch-contract}"
python="${PYTHON:-python3}"
mkdir -p "$out"
lib="$(mktemp -d)"
trap 'rm -rf "$lib"' EXIT
failed=()

step() {
  local name="$1"
  shift
  echo "== $name: $*"
  if ! "$@" > >(tee "$out/$name.log") 2>&1; then
    echo "== $name: FAILED"
    failed+=("$name")
  fi
}

# (built into $lib unless $TILEC_RUNTIME_LIBRARY names one: build_runtime.sh)
step build-libtilec-runtime "$root/scripts/gpu/build_runtime.sh" "$lib"
TILEC_RUNTIME_LIBRARY="$(tail -n 1 "$out/build-libtilec-runtime.log")"
export TILEC_RUNTIME_LIBRARY

step aot-runtime env OUT="$out/aot" "$root/scripts/gpu/aot_runtime_check.sh" "$art/aot"
cd "$root"
step c-abi-python "$python" -m scripts.gpu.launch_contract_check --aot "$art/aot" \
  --out "$out/launch_contract_check.json"
step host-runtime "$python" -m scripts.gpu.host_e2e_check run --out "$art/host" \
  --json "$out/host_e2e_check.json"
step python-package "$python" -m scripts.gpu.python_check --artifacts "$art/python" \
  --out "$out/python_check.json"

echo "== launch contract: ${#failed[@]} failed steps${failed[*]:+: ${failed[*]}} (logs in $out)"
[ "${#failed[@]}" -eq 0 ]
