#!/usr/bin/env bash
# Builds .gpu/launch-contract/ for scripts/gpu/launch_contract_check.sh: the
# three users of the launch contract (libtilec-runtime.so) on a Hopper
# machine without the compiler:
#   aot/<chip>/     gemm_bf16.{h,cubin,json} (build_aot_artifacts.sh): the AOT
#                   header, and the kernels the Python C-ABI check launches;
#   host/<chip>/    the --emit=host programs with libtilec-host-runtime.so
#                   (scripts/gpu/host_e2e_check.py build; needs llc-22);
#   python/         tilec.gemm / tilec.attention kernels
#                   (build_python_artifacts.py) for scripts/gpu/python_check.py.
# libtilec-runtime.so itself is built on the GPU machine from lib/Runtime.
#
#   scripts/build/build_launch_contract_artifacts.sh [OUT_DIR]
#       (BUILD=<build dir>, default build; OUT_DIR default .gpu/launch-contract)
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
build="${BUILD:-$root/build}"
out="${1:-$root/.gpu/launch-contract}"
python="${PYTHON:-$(test -x /usr/bin/python3 && echo /usr/bin/python3 || echo python3)}"
rm -rf "$out"
mkdir -p "$out"
BUILD="$build" "$root/scripts/build/build_aot_artifacts.sh" "$out/aot"
(cd "$root" && BUILD="$build" "$python" -m scripts.gpu.host_e2e_check build --out "$out/host")
(cd "$root" && TILEC_LIBRARY="$build/lib/libtilec-c.so" \
  "$python" -m scripts.build.build_python_artifacts --out "$out/python")
du -sh "$out"
echo "launch-contract artifacts in $out"
