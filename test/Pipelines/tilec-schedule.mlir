// RUN: tilec-opt %s --tilec-schedule=chip=sm_90a | FileCheck %s --check-prefix=SM90A \
// RUN:   --implicit-check-not=llvm. --implicit-check-not='{{^ *}}nvvm.'
// RUN: tilec-opt %s --tilec-schedule=chip=sm_80 | FileCheck %s --check-prefix=SM80 \
// RUN:   --implicit-check-not=llvm. --implicit-check-not=tile.tma_load
// RUN: tilec-opt %s --tilec-schedule=chip=sm_90a -mlir-print-op-generic > %t.sched.generic
// RUN: tilec-opt %s --tilec-to-nvvm=chip=sm_90a -mlir-print-ir-after=tile-verify-async \
// RUN:   -mlir-print-ir-module-scope -mlir-disable-threading -mlir-print-op-generic \
// RUN:   -o /dev/null 2>&1 \
// RUN:   | sed -n '/IR Dump After TileVerifyAsync/,$p' | tail -n +2 > %t.full.generic
// RUN: diff -B %t.sched.generic %t.full.generic

// tilec-schedule is the tile-level stage of tilec-to-nvvm: the kernel in
// its gpu.module with the chip's target, the named op expanded, layouts
// assigned and the schedule built, still in tile dialect ops (nothing of
// LLVM or NVVM yet). Its output is the IR tilec-to-nvvm has after
// tile-verify-async (the diff above).

// SM90A: gpu.module @gemm [#nvvm.target<O = 3, chip = "sm_90a"
// SM90A: tile.kernel @gemm
// SM90A-SAME: schedule<
// SM90A-SAME: tma = true
// SM90A-SAME: warp_specialize = true
// SM90A: tile.warp_specialize
// SM90A-DAG: tile.dot
// SM90A-DAG: tile.tma_load

// SM80: gpu.module @gemm [#nvvm.target<O = 3, chip = "sm_80"
// SM80: tile.kernel @gemm
// SM80: tile.async_copy
// SM80: scf.for
// SM80: tile.dot
tile.kernel @gemm(%A: !tile.ptr<bf16>, %B: !tile.ptr<bf16>, %C: !tile.ptr<bf16>,
                  %M: i32, %N: i32, %K: i32) {
  %a = tile.make_view %A[%M, %K] strides [%K, 1] : !tile.ptr<bf16>
  %b = tile.make_view %B[%K, %N] strides [%N, 1] : !tile.ptr<bf16>
  %c = tile.make_view %C[%M, %N] strides [%N, 1] : !tile.ptr<bf16>
  tile.gemm %a, %b, %c
      : !tile.view<?x?xbf16, strides = [?, 1]>, !tile.view<?x?xbf16, strides = [?, 1]>,
        !tile.view<?x?xbf16, strides = [?, 1]>
  tile.return
}
