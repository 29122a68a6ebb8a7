#!/usr/bin/env bash
# Installs what tilec needs to build and test on Debian 12, if missing:
# LLVM/MLIR 22 (headers, libMLIR.so, mlir-tblgen, lit, FileCheck), Ninja,
# CMake, a C++ compiler, Python 3 (pytest, pyflakes; venv, pip, setuptools
# and wheel for `pip install ./python` offline, as make pip-check does). The
# CUDA toolkit (ptxas) is not a Debian package: it must be at $CUDA_HOME, on
# PATH or in /usr/local/cuda.
#
# `scripts/build/setup.sh --plots` installs only matplotlib (python3-matplotlib) for
# `make plots`; the build and the tests do not need it.
set -euo pipefail

plots_only=0
if [ "${1:-}" = "--plots" ]; then
  plots_only=1
  packages=(python3-matplotlib)
else
  packages=(llvm-22 llvm-22-dev libmlir-22-dev mlir-22-tools llvm-22-tools ninja-build
            cmake g++ python3 python3-pytest python3-pyflakes
            python3-venv python3-pip python3-setuptools python3-wheel)
fi
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" \
    || missing+=("$p")
done

if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}"
  sudo=""
  if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
  export DEBIAN_FRONTEND=noninteractive
  # LLVM/MLIR 22 come from bookworm-security / bookworm-updates on Debian 12.
  $sudo apt-get update -q
  $sudo apt-get install -y -q --no-install-recommends "${missing[@]}"
fi
if ((plots_only)); then
  exit 0
fi

ptxas=""
for cand in "${CUDA_HOME:-}/bin/ptxas" "$(command -v ptxas || true)" /usr/local/cuda/bin/ptxas; do
  if [ -n "$cand" ] && [ -x "$cand" ]; then ptxas="$cand"; break; fi
done
if [ -z "$ptxas" ]; then
  echo "setup: error: no CUDA toolkit found (ptxas). Install CUDA 12.8+ and set CUDA_HOME." >&2
  exit 1
fi
echo "setup: LLVM/MLIR 22 ready, ptxas at $ptxas"
