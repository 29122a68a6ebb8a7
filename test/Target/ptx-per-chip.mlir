// PTX for each chip: the right .version/.target, vectorized global access,
// warp shuffles, libdevice's expf; ptxas accepts it for that chip.

// RUN: tilec %s --chip=sm_80 --emit=ptx -o %t.sm80
// RUN: FileCheck %s --check-prefixes=CHECK,SM80 < %t.sm80/row_softmax.ptx
// RUN: %ptxas -arch=sm_80 %t.sm80/row_softmax.ptx -o %t.sm80/row_softmax.cubin

// RUN: tilec %s --chip=sm_89 --emit=ptx -o %t.sm89
// RUN: FileCheck %s --check-prefixes=CHECK,SM89 < %t.sm89/row_softmax.ptx
// RUN: %ptxas -arch=sm_89 %t.sm89/row_softmax.ptx -o %t.sm89/row_softmax.cubin

// RUN: tilec %s --chip=sm_90a --emit=ptx -o %t.sm90a
// RUN: FileCheck %s --check-prefixes=CHECK,SM90A < %t.sm90a/row_softmax.ptx
// RUN: %ptxas -arch=sm_90a %t.sm90a/row_softmax.ptx -o %t.sm90a/row_softmax.cubin

// The Ampere/Ada PTX also assembles for Hopper (that is how it runs on H200).
// RUN: %ptxas -arch=sm_90 %t.sm80/row_softmax.ptx -o %t.sm80/row_softmax.sm90.cubin
// RUN: %ptxas -arch=sm_90 %t.sm89/row_softmax.ptx -o %t.sm89/row_softmax.sm90.cubin

// Same input and flags: byte-identical PTX.
// RUN: tilec %s --chip=sm_90a --emit=ptx -o - > %t.a.ptx
// RUN: tilec %s --chip=sm_90a --emit=ptx -o - > %t.b.ptx
// RUN: cmp %t.a.ptx %t.b.ptx

// SM80: .version 7.0
// SM80: .target sm_80
// SM89: .version 8.4
// SM89: .target sm_89
// SM90A: .version 8.6
// SM90A: .target sm_90a
// CHECK: .visible .entry row_softmax(
// CHECK: .reqntid 128, 1, 1
// CHECK: ld.global.v4.b32
// CHECK: shfl.sync.bfly.b32
// math.exp without fastmath flags is IEEE: libdevice's __nv_expf, linked
// in and inlined (fma range reduction around one ex2.approx.ftz); no call.
// CHECK-NOT: call
// CHECK: fma.rn.f32 {{.*}}0f3FB8AA3B
// CHECK: ex2.approx.ftz.f32
// CHECK: div.rn.f32
// CHECK: st.global.v4.b32
tile.kernel @row_softmax(%x: !tile.ptr<f32>, %y: !tile.ptr<f32>, %M: i32, %N: i32)
    grid(ceildiv(%M, 4)) warps(4) {
  %c0 = arith.constant 0 : i32
  %c4 = arith.constant 4 : i32
  %pid = tile.program_id x
  %row = arith.muli %pid, %c4 : i32
  %vx = tile.make_view %x[%M, %N] strides [%N, 1] : !tile.ptr<f32>
  %vy = tile.make_view %y[%M, %N] strides [%N, 1] : !tile.ptr<f32>
  %t = tile.load %vx[%row, %c0] padding(neg_inf) : !tile.view<?x?xf32, strides = [?, 1]> -> tensor<4x256xf32>
  %m = tile.reduce max %t axis = 1 : tensor<4x256xf32> -> tensor<4xf32>
  %m1 = tile.expand_dims %m axis = 1 : tensor<4xf32> -> tensor<4x1xf32>
  %mb = tile.broadcast %m1 : tensor<4x1xf32> -> tensor<4x256xf32>
  %d = arith.subf %t, %mb : tensor<4x256xf32>
  %e = math.exp %d : tensor<4x256xf32>
  %s = tile.reduce sum %e axis = 1 : tensor<4x256xf32> -> tensor<4xf32>
  %s1 = tile.expand_dims %s axis = 1 : tensor<4xf32> -> tensor<4x1xf32>
  %sb = tile.broadcast %s1 : tensor<4x1xf32> -> tensor<4x256xf32>
  %p = arith.divf %e, %sb : tensor<4x256xf32>
  tile.store %p, %vy[%row, %c0] : tensor<4x256xf32>, !tile.view<?x?xf32, strides = [?, 1]>
  tile.return
}
