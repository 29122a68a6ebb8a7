#!/usr/bin/env bash
# The GPU runs that main owes since 2026-12-06 (seventh session; the device
# time ran out): the GPU checks rewritten on scripts/harness have not all run
# on a GPU (python_check has: 1135/1135 on the H100, before tilecRtLaunchUpdate
# changed how a prepared launch binds new pointers), nor has the bundle as a
# whole. Two steps, each device call under 10 minutes:
#
#   bench/owed_2026-12-07.sh build        # here (~15 min on 2 cores): .gpu/bundle
#   bench/owed_2026-12-07.sh run N        # there, carry .gpu/bundle; N = 1, 2, 3
#   bench/owed_2026-12-07.sh run 4        # there, carry .gpu/bundle-python
#   bench/owed_2026-12-07.sh run 5        # there, carry .gpu/bundle/decode
#   bench/owed_2026-12-07.sh run 6        # there, carry .gpu/bundle/flex_tables
#                                         # and .gpu/bundle/flex
#
# The logs and JSON records land in $OUT/gpu; a check that fails names its
# log (scripts/gpu/run_all.sh).
#
# Done on 2026-12-07 (H100, bundle of f236af2): examples (57/57), wgmma_rs,
# score_mod (15/15), flex (48/48; bench/results/2026-12-07_flex_api_h100.json).
# Still owed: the rest of run 1 (gemm attention aot shuffle batch_reduce),
# runs 2 and 3, and run 4 (python bmm grouped, and any_strides on the
# package's kernels: the any-strides GEMMs now stage their operands for
# wgmma and dispatch by shape class). Ready on the machine that built them
# (ignored .gpu/): .gpu/callB.sh runs run 4's checks on .gpu/bundle-python
# (rebuild it: PARTS=python scripts/build/build_gpu_artifacts.sh
# .gpu/bundle-python) and the row-major swap-AB A/B of .gpu/rowswap.
#
# Tenth session (issue 54): decode ran on an H100 (run 5 below: 66/66 with
# paged caches; bench/results/2026-12-07_decode_kvcache_paged_h100.json,
# with the decode-tile sweep). Run 4 was tried on a .gpu/bundle-python
# built at 51056ce and failed before testing anything of substance: that
# bundle held 192 kernels without the f16 GEMMs the checks ask for, and
# the any-strides check did not find libtilec-rules.so (set
# TILEC_RULES_LIBRARY=.gpu/bundle-python/python/libtilec-rules.so); rebuild
# the bundle with the package's full kernel list before running it again.
#
# Eleventh session: varlen (scripts/gpu/varlen_check.py, 16/16) and the
# flex tables check (scripts/gpu/flex_tables_check.py, 24/24) ran on an
# H100 (bench/results/2026-12-07_varlen_h100.json, _flex_tables_h100.json);
# runs 1-4 above and decode on an H200 are still owed.
#
# Twelfth session: run 6 is owed. tilec.flex_attention now launches through
# plans (the eager timings of earlier records included the whole checked
# host path of every call), the block-list kernels skip the causal mask in
# wholly visible blocks and read the key-independent table values once per
# query block (ALiBi + documents: the consumer's spill fell from 352 to 8
# bytes), and both flex checks time CUDA-graph replays beside the eager
# calls. Build the two parts here first:
#   python3 -m scripts.gpu.flex_tables_check --build .gpu/bundle/flex_tables
#   python3 -m scripts.gpu.flex_check --build .gpu/bundle/flex
set -euo pipefail
cd "$(dirname "$0")/.."
case "${1:?build or run}" in
  build)
    # Two bundles, each under 64 MiB: the python part (the package's
    # kernels) apart; the backward part (~20 MiB) is not owed.
    PARTS="examples gemm att block corpus aot split_k gemm_sweep batch_reduce shuffle lin linalg host flex decode" \
      scripts/build/build_gpu_artifacts.sh .gpu/bundle
    PARTS="python" scripts/build/build_gpu_artifacts.sh .gpu/bundle-python ;;
  run)
    bundle=.gpu/bundle
    case "${2:?1 to 6}" in
      1) checks="examples score_mod flex gemm attention aot wgmma_rs shuffle batch_reduce" ;;
      2) checks="corpus block attention_block variants lin linalg" ;;
      3) checks="split_k gemm_sweep sweep any_strides host" ;;
      4) checks="python bmm grouped"; bundle=.gpu/bundle-python ;;
      5) checks="decode" ;;
      6) checks="flex_tables flex" ;;
    esac
    OUT="${OUT:-out}/gpu" CHECKS="$checks" QUICK=1 scripts/gpu/run_all.sh "$bundle" ;;
esac
