// A dual GEMM as a user writes it (fused SwiGLU: two products of one X tile
// in one loop) gets the schedule of one GEMM on sm_90a: the X tile, read by
// both dots, is one TMA copy in the ring stage of the three loads; both
// wgmma groups of an iteration stay in flight (wait_group 2); the copies go
// to a producer warpgroup. sm_80 and sm_89: one cp.async ring of the three.

// RUN: tilec %s --chip=sm_90a --emit=cubin -o %t --remarks='tile-tma-pipeline|tile-async-wgmma|tile-warp-specialize' 2>&1 | FileCheck %s --check-prefix=REMARK
// RUN: FileCheck %s --check-prefix=SM90A < %t/swiglu.ptx
// RUN: tilec %s --chip=sm_80 --emit=cubin -o %t80 --remarks=tile-pipeline 2>&1 | FileCheck %s --check-prefix=SM80
// RUN: tilec %s --chip=sm_89 --emit=cubin -o %t89

// REMARK: remark: [Passed] Pipelined | Category:tile-tma-pipeline | Remark="3 loads on TMA in a {{[0-9]}}-stage ring"
// REMARK: remark: [Passed] InFlight | Category:tile-async-wgmma | Remark="the 2 wgmma groups of an iteration (independent accumulators) stay in flight across iterations"
// REMARK: remark: [Passed] Specialized | Category:tile-warp-specialize
// SM90A-DAG: cp.async.bulk.tensor.2d.shared::cluster.global
// SM90A-DAG: wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16
// SM90A-DAG: wgmma.wait_group.sync.aligned 2;
// SM90A-DAG: wgmma.wait_group.sync.aligned 0;
// SM90A-NOT: wgmma.wait_group.sync.aligned 1;
// SM80: remark: [Passed] Pipelined | Category:tile-pipeline | Remark="3 loads on cp.async in a 3-stage ring"
// Fused SwiGLU, as a Triton user writes it: one program per 128x128 tile of
// H = silu(X Wgᵀ) * (X Wuᵀ); both products share the X tile of each K step.
tile.kernel @swiglu(%X: !tile.ptr<bf16> {tile.align = 16 : i64},
                    %Wg: !tile.ptr<bf16> {tile.align = 16 : i64},
                    %Wu: !tile.ptr<bf16> {tile.align = 16 : i64},
                    %H: !tile.ptr<bf16> {tile.align = 16 : i64},
                    %M: i32, %N: i32 {tile.divisibility = 16 : i64}, %K: i32 {tile.divisibility = 16 : i64})
    grid(ceildiv(%M, 128), ceildiv(%N, 128)) warps(8) {
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  %c128 = arith.constant 128 : i32
  %pm = tile.program_id x
  %pn = tile.program_id y
  %m0 = arith.muli %pm, %c128 : i32
  %n0 = arith.muli %pn, %c128 : i32
  %x = tile.make_view %X[%M, %K] strides [%K, 1] : !tile.ptr<bf16>
  %wg = tile.make_view %Wg[%N, %K] strides [%K, 1] : !tile.ptr<bf16>
  %wu = tile.make_view %Wu[%N, %K] strides [%K, 1] : !tile.ptr<bf16>
  %h = tile.make_view %H[%M, %N] strides [%N, 1] : !tile.ptr<bf16>
  %zero = arith.constant dense<0.0> : tensor<128x128xf32>
  %acc:2 = scf.for %k = %c0 to %K step %c64 iter_args(%g = %zero, %u = %zero) -> (tensor<128x128xf32>, tensor<128x128xf32>) : i32 {
    %tx = tile.load %x[%m0, %k] : !tile.view<?x?xbf16, strides = [?, 1]> -> tensor<128x64xbf16>
    %tg = tile.load %wg[%n0, %k] : !tile.view<?x?xbf16, strides = [?, 1]> -> tensor<128x64xbf16>
    %tu = tile.load %wu[%n0, %k] : !tile.view<?x?xbf16, strides = [?, 1]> -> tensor<128x64xbf16>
    %tgt = tile.trans %tg : tensor<128x64xbf16> -> tensor<64x128xbf16>
    %tut = tile.trans %tu : tensor<128x64xbf16> -> tensor<64x128xbf16>
    %g2 = tile.dot %tx, %tgt, %g : tensor<128x64xbf16>, tensor<64x128xbf16> -> tensor<128x128xf32>
    %u2 = tile.dot %tx, %tut, %u : tensor<128x64xbf16>, tensor<64x128xbf16> -> tensor<128x128xf32>
    scf.yield %g2, %u2 : tensor<128x128xf32>, tensor<128x128xf32>
  }
  %one = arith.constant dense<1.0> : tensor<128x128xf32>
  %neg = arith.negf %acc#0 : tensor<128x128xf32>
  %e = math.exp %neg : tensor<128x128xf32>
  %den = arith.addf %e, %one : tensor<128x128xf32>
  %silu = arith.divf %acc#0, %den : tensor<128x128xf32>
  %prod = arith.mulf %silu, %acc#1 : tensor<128x128xf32>
  %out = arith.truncf %prod : tensor<128x128xf32> to tensor<128x128xbf16>
  tile.store %out, %h[%m0, %n0] : tensor<128x128xbf16>, !tile.view<?x?xbf16, strides = [?, 1]>
  tile.return
}
