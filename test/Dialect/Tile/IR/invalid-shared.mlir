// RUN: tilec-opt %s -split-input-file -verify-diagnostics

// One case per verifier error of the shared-memory, cp.async and sm_90a ops
// (tensor maps, TMA copies, mbarriers, warp specialization), of the types
// and the #tile.shared encoding they use, of the `persistent` kernel keyword
// and of the sm_90a config keys of tile.gemm. Ops whose checks do not need
// a kernel are tested in plain functions.

//===----------------------------------------------------------------------===//
// tile.async_copy
//===----------------------------------------------------------------------===//

#s = #tile.shared<vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0]>
func.func @async_copy_num_offsets(%v: !tile.view<?x?xbf16, strides = [?, 1]>, %buf: !tile.smem<2x64x32xbf16, #s>, %i: i32) {
  // expected-error @+1 {{expected 2 offsets for a rank-2 view, got 1}}
  tile.async_copy %v[%i], %buf[%i] : !tile.view<?x?xbf16, strides = [?, 1]>, !tile.smem<2x64x32xbf16, #s>
  return
}

// -----

#s = #tile.shared<vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0]>
func.func @async_copy_rank1(%v: !tile.view<?xbf16, strides = [1]>, %buf: !tile.smem<2x64x32xbf16, #s>, %i: i32) {
  // expected-error @+1 {{expected a view of rank at least 2}}
  tile.async_copy %v[%i], %buf[%i] : !tile.view<?xbf16, strides = [1]>, !tile.smem<2x64x32xbf16, #s>
  return
}

// -----

#s = #tile.shared<vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0]>
func.func @async_copy_element_type(%v: !tile.view<?x?xf16, strides = [?, 1]>, %buf: !tile.smem<2x64x32xbf16, #s>, %i: i32) {
  // expected-error @+1 {{view element type 'f16' does not match buffer element type 'bf16'}}
  tile.async_copy %v[%i, %i], %buf[%i] : !tile.view<?x?xf16, strides = [?, 1]>, !tile.smem<2x64x32xbf16, #s>
  return
}

// -----

//===----------------------------------------------------------------------===//
// tile.local_load / tile.local_store
//===----------------------------------------------------------------------===//

#s = #tile.shared<vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0]>
func.func @local_load_element_type(%buf: !tile.smem<2x64x32xbf16, #s>, %i: i32) {
  // expected-error @+1 {{tile element type 'f16' does not match buffer element type 'bf16'}}
  %t = tile.local_load %buf[%i] : !tile.smem<2x64x32xbf16, #s> -> tensor<64x32xf16>
  return
}

// -----

#s = #tile.shared<vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0]>
func.func @local_load_rank(%buf: !tile.smem<2x64x32xbf16, #s>, %i: i32) {
  // expected-error @+1 {{expected a 2-D tile and 2 offsets}}
  %t = tile.local_load %buf[%i] : !tile.smem<2x64x32xbf16, #s> -> tensor<64xbf16>
  return
}

// -----

#s = #tile.shared<vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0]>
func.func @local_load_num_offsets(%buf: !tile.smem<2x64x32xbf16, #s>, %i: i32) {
  // expected-error @+1 {{expected a 2-D tile and 2 offsets}}
  %t = tile.local_load %buf[%i] offsets [0, 0, 0] : !tile.smem<2x64x32xbf16, #s> -> tensor<64x32xbf16>
  return
}

// -----

#s = #tile.shared<vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0]>
func.func @local_load_out_of_bounds(%buf: !tile.smem<2x64x32xbf16, #s>, %i: i32) {
  // expected-error @+1 {{sub-tile at offset 16 of size 32 exceeds the buffer's 32 along dimension 1}}
  %t = tile.local_load %buf[%i] offsets [0, 16] : !tile.smem<2x64x32xbf16, #s> -> tensor<64x32xbf16>
  return
}

// -----

#s = #tile.shared<vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0]>
func.func @local_load_negative_offset(%buf: !tile.smem<2x64x32xbf16, #s>, %i: i32) {
  // expected-error @+1 {{sub-tile at offset -16 of size 16 exceeds the buffer's 64 along dimension 0}}
  %t = tile.local_load %buf[%i] offsets [-16, 0] : !tile.smem<2x64x32xbf16, #s> -> tensor<16x32xbf16>
  return
}

// -----

#s = #tile.shared<vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0]>
#mma = #tile.mma<warpsPerCTA = [2, 2]>
#dot_op = #tile.dot_operand<opIdx = 0, parent = #mma, kWidth = 2>
func.func @local_load_dynamic_shape(%buf: !tile.smem<2x64x32xbf16, #s>, %i: i32) {
  // expected-error @+1 {{expected a static tile shape, got 'tensor<?x16xbf16, #tile.dot_operand<opIdx = 0, parent = #tile.mma<warpsPerCTA = [2, 2]>, kWidth = 2>>'}}
  %t = tile.local_load %buf[%i] : !tile.smem<2x64x32xbf16, #s> -> tensor<?x16xbf16, #dot_op>
  return
}

// -----

// An in-place read (wgmma operand) is the whole stage, in the buffer's
// layout, or its transpose.
#sw = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], segment = 64>
func.func @local_load_in_place_sub_tile(%buf: !tile.smem<2x128x64xbf16, #sw>, %i: i32) {
  // expected-error @+1 {{an in-place read (#tile.shared result) must be a whole 128x64 stage in the buffer's layout #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], segment = 64>, or its transpose, got 'tensor<64x64xbf16, #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], segment = 64>>'}}
  %t = tile.local_load %buf[%i] : !tile.smem<2x128x64xbf16, #sw> -> tensor<64x64xbf16, #sw>
  return
}

// -----

#sw = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], segment = 64>
#sa = #tile.shared<vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0]>
func.func @local_load_in_place_layout(%buf: !tile.smem<2x128x64xbf16, #sw>, %i: i32) {
  // expected-error @+1 {{an in-place read (#tile.shared result) must be a whole 128x64 stage in the buffer's layout #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], segment = 64>, or its transpose, got 'tensor<128x64xbf16, #tile.shared<vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0]>>'}}
  %t = tile.local_load %buf[%i] : !tile.smem<2x128x64xbf16, #sw> -> tensor<128x64xbf16, #sa>
  return
}

// -----

// The transposed shape needs the transposed order too (the same bytes).
#sw = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], segment = 64>
func.func @local_load_transposed_same_order(%buf: !tile.smem<2x128x64xbf16, #sw>, %i: i32) {
  // expected-error @+1 {{or its transpose, got 'tensor<64x128xbf16, #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], segment = 64>>'}}
  %t = tile.local_load %buf[%i] : !tile.smem<2x128x64xbf16, #sw> -> tensor<64x128xbf16, #sw>
  return
}

// -----

#sw = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], segment = 64>
func.func @local_load_in_place_offsets(%buf: !tile.smem<2x128x64xbf16, #sw>, %i: i32) {
  // expected-error @+1 {{an in-place read (#tile.shared result) must be at offsets [0, 0]}}
  %t = tile.local_load %buf[%i] offsets [0, 16] : !tile.smem<2x128x64xbf16, #sw> -> tensor<128x64xbf16, #sw>
  return
}

// -----

#s = #tile.shared<vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0]>
func.func @local_store_element_type(%t: tensor<64x32xf32>, %buf: !tile.smem<1x64x32xbf16, #s>, %i: i32) {
  // expected-error @+1 {{tile element type 'f32' does not match buffer element type 'bf16'}}
  tile.local_store %t, %buf[%i] : tensor<64x32xf32>, !tile.smem<1x64x32xbf16, #s>
  return
}

// -----

#s = #tile.shared<vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0]>
func.func @local_store_shape(%t: tensor<64x16xbf16>, %buf: !tile.smem<1x64x32xbf16, #s>, %i: i32) {
  // expected-error @+1 {{expected a tile of the buffer's stage shape}}
  tile.local_store %t, %buf[%i] : tensor<64x16xbf16>, !tile.smem<1x64x32xbf16, #s>
  return
}

// -----

//===----------------------------------------------------------------------===//
// tile.make_tensor_map
//===----------------------------------------------------------------------===//

#sw = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], segment = 64>
func.func @tensor_map_rank(%v: !tile.view<?x?x?xbf16, strides = [?, ?, 1]>) {
  // expected-error @+1 {{expected a view of the map's rank 2, got rank 3}}
  %tm = tile.make_tensor_map %v : !tile.view<?x?x?xbf16, strides = [?, ?, 1]> -> !tile.tensor_map<128x64xbf16, #sw>
  return
}

// -----

#sw = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], segment = 64>
func.func @tensor_map_element_type(%v: !tile.view<?x?xf16, strides = [?, 1]>) {
  // expected-error @+1 {{view element type 'f16' does not match the map's 'bf16'}}
  %tm = tile.make_tensor_map %v : !tile.view<?x?xf16, strides = [?, 1]> -> !tile.tensor_map<128x64xbf16, #sw>
  return
}

// -----

// The box is contiguous along dimension 1 (order[0]); the view along 0.
#sw = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], segment = 64>
func.func @tensor_map_contiguous_dim(%v: !tile.view<?x?xbf16, strides = [1, ?]>) {
  // expected-error @+1 {{the box is contiguous along dimension 1, but the view's stride there is not 1}}
  %tm = tile.make_tensor_map %v : !tile.view<?x?xbf16, strides = [1, ?]> -> !tile.tensor_map<128x64xbf16, #sw>
  return
}

// -----

#sw = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], segment = 64>
func.func @tensor_map_not_make_view(%v: !tile.view<?x?xbf16, strides = [?, 1]>) {
  // expected-error @+1 {{expected the view to be made by tile.make_view}}
  %tm = tile.make_tensor_map %v : !tile.view<?x?xbf16, strides = [?, 1]> -> !tile.tensor_map<128x64xbf16, #sw>
  return
}

// -----

#sw = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], segment = 64>
func.func @tensor_map_not_in_kernel(%p: !tile.ptr<bf16>, %n: i32) {
  %v = tile.make_view %p[%n, %n] strides [%n, 1] : !tile.ptr<bf16>
  // expected-error @+1 {{expected to be inside a tile.kernel}}
  %tm = tile.make_tensor_map %v : !tile.view<?x?xbf16, strides = [?, 1]> -> !tile.tensor_map<128x64xbf16, #sw>
  return
}

// -----

// The base pointer is not itself a kernel parameter.
#sw = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], segment = 64>
tile.kernel @tensor_map_base_not_param(%A: !tile.ptr<bf16> {tile.align = 16 : i64}, %m: i32,
                                       %ld: i32 {tile.divisibility = 8 : i64}) {
  %p = scf.execute_region -> !tile.ptr<bf16> {
    scf.yield %A : !tile.ptr<bf16>
  }
  %v = tile.make_view %p[%m, %m] strides [%ld, 1] : !tile.ptr<bf16>
  // expected-error @+1 {{the view's base must be a kernel parameter, so that the tensor map can be encoded on the host}}
  %tm = tile.make_tensor_map %v : !tile.view<?x?xbf16, strides = [?, 1]> -> !tile.tensor_map<128x64xbf16, #sw>
  tile.return
}

// -----

// Sizes and strides may be integer arithmetic on parameters (the metadata
// carries the expression), but not every op has a host form.
#sw = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], segment = 64>
tile.kernel @tensor_map_size_min(%A: !tile.ptr<bf16> {tile.align = 16 : i64}, %m: i32, %n: i32,
                                 %ld: i32 {tile.divisibility = 8 : i64}) {
  %rows = arith.minsi %m, %n : i32
  %v = tile.make_view %A[%rows, %m] strides [%ld, 1] : !tile.ptr<bf16>
  // expected-error @+1 {{the size of dimension 0 is computed by 'arith.minsi', which has no form in the host's expression language (+, -, *, ceildiv, floordiv, mod); the sizes and strides of a TMA view must be integer arithmetic on kernel parameters and constants, so that the tensor map can be encoded on the host: compute it from parameters or pass it as one}}
  %tm = tile.make_tensor_map %v : !tile.view<?x?xbf16, strides = [?, 1]> -> !tile.tensor_map<128x64xbf16, #sw>
  tile.return
}

// -----

// The product is a multiple of 8 elements only when one factor is.
#sw = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], segment = 64>
tile.kernel @tensor_map_stride_product_unknown(%A: !tile.ptr<bf16> {tile.align = 16 : i64}, %m: i32,
                                               %h: i32, %d: i32 {tile.divisibility = 4 : i64}) {
  %ld = arith.muli %h, %d : i32
  %v = tile.make_view %A[%m, %m] strides [%ld, 1] : !tile.ptr<bf16>
  // expected-error @+1 {{TMA needs 16-byte aligned strides; stride 'h * d' of dimension 0 is not known to be a multiple of 8 elements: annotate its parameters ('h', 'd') with tile.divisibility so that it is (a product needs one factor with {tile.divisibility = 8 : i64}, a sum every term), or pass it as a parameter}}
  %tm = tile.make_tensor_map %v : !tile.view<?x?xbf16, strides = [?, 1]> -> !tile.tensor_map<128x64xbf16, #sw>
  tile.return
}

// -----

// A sum is a multiple of 8 only when every term is: 8 * ld + 4 is not.
#sw = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], segment = 64>
tile.kernel @tensor_map_stride_sum_unknown(%A: !tile.ptr<bf16> {tile.align = 16 : i64}, %m: i32,
                                           %ld: i32 {tile.divisibility = 8 : i64}) {
  %c4 = arith.constant 4 : i32
  %s = arith.addi %ld, %c4 : i32
  %v = tile.make_view %A[%m, %m] strides [%s, 1] : !tile.ptr<bf16>
  // expected-error @+1 {{TMA needs 16-byte aligned strides; stride 'ld + 4' of dimension 0 is not known to be a multiple of 8 elements}}
  %tm = tile.make_tensor_map %v : !tile.view<?x?xbf16, strides = [?, 1]> -> !tile.tensor_map<128x64xbf16, #sw>
  tile.return
}

// -----

// Arithmetic that folds to a constant is checked as a constant.
#sw = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], segment = 64>
tile.kernel @tensor_map_size_folds_to_zero(%A: !tile.ptr<bf16> {tile.align = 16 : i64}, %m: i32,
                                           %ld: i32 {tile.divisibility = 8 : i64}) {
  %z = arith.subi %m, %m : i32
  %v = tile.make_view %A[%z, %m] strides [%ld, 1] : !tile.ptr<bf16>
  // expected-error @+1 {{TMA needs sizes in [1, 2^32]; size 0 of dimension 0}}
  %tm = tile.make_tensor_map %v : !tile.view<?x?xbf16, strides = [?, 1]> -> !tile.tensor_map<128x64xbf16, #sw>
  tile.return
}

// -----

#sw = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], segment = 64>
tile.kernel @tensor_map_size_divides_by_zero(%A: !tile.ptr<bf16> {tile.align = 16 : i64}, %m: i32,
                                             %ld: i32 {tile.divisibility = 8 : i64}) {
  %c0 = arith.constant 0 : i32
  %q = arith.divsi %m, %c0 : i32
  %v = tile.make_view %A[%q, %m] strides [%ld, 1] : !tile.ptr<bf16>
  // expected-error @+1 {{the size of dimension 0 is computed by 'arith.divsi', which divides by zero;}}
  %tm = tile.make_tensor_map %v : !tile.view<?x?xbf16, strides = [?, 1]> -> !tile.tensor_map<128x64xbf16, #sw>
  tile.return
}

// -----

// 16-bit arithmetic wraps below the range runtimes check.
#sw = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], segment = 64>
tile.kernel @tensor_map_size_i16(%A: !tile.ptr<bf16> {tile.align = 16 : i64}, %m: i32,
                                 %ld: i32 {tile.divisibility = 8 : i64}) {
  %t = arith.trunci %m : i32 to i16
  %w = arith.addi %t, %t : i16
  %e = arith.extsi %w : i16 to i32
  %v = tile.make_view %A[%e, %m] strides [%ld, 1] : !tile.ptr<bf16>
  // expected-error @+1 {{the size of dimension 0 is computed in i16; the host evaluates 32- and 64-bit integers only;}}
  %tm = tile.make_tensor_map %v : !tile.view<?x?xbf16, strides = [?, 1]> -> !tile.tensor_map<128x64xbf16, #sw>
  tile.return
}

// -----

// A loop's induction variable is not a launch argument.
#sw = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], segment = 64>
tile.kernel @tensor_map_size_loop_value(%A: !tile.ptr<bf16> {tile.align = 16 : i64}, %m: i32,
                                        %ld: i32 {tile.divisibility = 8 : i64}) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  scf.for %i = %c0 to %m step %c1 : i32 {
    %v = tile.make_view %A[%i, %m] strides [%ld, 1] : !tile.ptr<bf16>
    // expected-error @+1 {{the size of dimension 0 is a block argument of 'scf.for', not a kernel parameter;}}
    %tm = tile.make_tensor_map %v : !tile.view<?x?xbf16, strides = [?, 1]> -> !tile.tensor_map<128x64xbf16, #sw>
  }
  tile.return
}

// -----

// 128 - m is m * -1 + 128 in the affine form: runtimes, which keep every
// value in [0, 2^31), would refuse every launch, so the verifier refuses
// the map (m - 128 would be fine).
#sw = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], segment = 64>
tile.kernel @tensor_map_size_constant_minus_param(%A: !tile.ptr<bf16> {tile.align = 16 : i64}, %m: i32,
                                                  %ld: i32 {tile.divisibility = 8 : i64}) {
  %c128 = arith.constant 128 : i32
  %s = arith.subi %c128, %m : i32
  %v = tile.make_view %A[%s, %m] strides [%ld, 1] : !tile.ptr<bf16>
  // expected-error @+1 {{the size of dimension 0 is 'm * -1 + 128' on the host, whose negative term every launch would refuse (runtimes keep every value in [0, 2^31), where the kernel's 32-bit arithmetic agrees); avoid negative constants and subtracting from a constant;}}
  %tm = tile.make_tensor_map %v : !tile.view<?x?xbf16, strides = [?, 1]> -> !tile.tensor_map<128x64xbf16, #sw>
  tile.return
}

// -----

#sw = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], segment = 64>
tile.kernel @tensor_map_no_align(%A: !tile.ptr<bf16>, %m: i32, %ld: i32 {tile.divisibility = 8 : i64}) {
  %v = tile.make_view %A[%m, %m] strides [%ld, 1] : !tile.ptr<bf16>
  // expected-error @+1 {{TMA needs a 16-byte aligned base; annotate 'A' with {tile.align = 16 : i64}}}
  %tm = tile.make_tensor_map %v : !tile.view<?x?xbf16, strides = [?, 1]> -> !tile.tensor_map<128x64xbf16, #sw>
  tile.return
}

// -----

#sw = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], segment = 64>
tile.kernel @tensor_map_small_align(%A: !tile.ptr<bf16> {tile.align = 8 : i64}, %m: i32,
                                    %ld: i32 {tile.divisibility = 8 : i64}) {
  %v = tile.make_view %A[%m, %m] strides [%ld, 1] : !tile.ptr<bf16>
  // expected-error @+1 {{TMA needs a 16-byte aligned base; annotate 'A' with {tile.align = 16 : i64}}}
  %tm = tile.make_tensor_map %v : !tile.view<?x?xbf16, strides = [?, 1]> -> !tile.tensor_map<128x64xbf16, #sw>
  tile.return
}

// -----

#sw = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], segment = 64>
tile.kernel @tensor_map_static_stride(%A: !tile.ptr<bf16> {tile.align = 16 : i64}, %m: i32) {
  %v = tile.make_view %A[%m, 100] strides [100, 1] : !tile.ptr<bf16>
  // expected-error @+1 {{TMA needs 16-byte aligned strides; stride 100 of dimension 0 is 200 bytes}}
  %tm = tile.make_tensor_map %v : !tile.view<?x100xbf16, strides = [100, 1]> -> !tile.tensor_map<128x64xbf16, #sw>
  tile.return
}

// -----

// A constant SSA stride, of dimension 1 for a box contiguous along 0.
#plain = #tile.shared<vec = 4, perPhase = 1, maxPhase = 1, order = [0, 1]>
tile.kernel @tensor_map_constant_stride(%X: !tile.ptr<f32> {tile.align = 16 : i64}, %m: i32) {
  %c6 = arith.constant 6 : i32
  %v = tile.make_view %X[%m, %m] strides [1, %c6] : !tile.ptr<f32>
  // expected-error @+1 {{TMA needs 16-byte aligned strides; stride 6 of dimension 1 is 24 bytes}}
  %tm = tile.make_tensor_map %v : !tile.view<?x?xf32, strides = [1, ?]> -> !tile.tensor_map<32x16xf32, #plain>
  tile.return
}

// -----

#sw = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], segment = 64>
tile.kernel @tensor_map_no_divisibility(%A: !tile.ptr<bf16> {tile.align = 16 : i64}, %m: i32, %ld: i32) {
  %v = tile.make_view %A[%m, %m] strides [%ld, 1] : !tile.ptr<bf16>
  // expected-error @+1 {{TMA needs 16-byte aligned strides; annotate 'ld' with {tile.divisibility = 8 : i64}}}
  %tm = tile.make_tensor_map %v : !tile.view<?x?xbf16, strides = [?, 1]> -> !tile.tensor_map<128x64xbf16, #sw>
  tile.return
}

// -----

// A 4-D map ([batch, heads, seq, dim]): leading strides need 16 bytes too.
#sw = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], segment = 64>
tile.kernel @tensor_map_4d_head_stride(%A: !tile.ptr<bf16> {tile.align = 16 : i64}, %b: i32, %h: i32, %s: i32,
                                       %sb: i32 {tile.divisibility = 8 : i64}, %sh: i32) {
  %v = tile.make_view %A[%b, %h, %s, 128] strides [%sb, %sh, 128, 1] : !tile.ptr<bf16>
  // expected-error @+1 {{TMA needs 16-byte aligned strides; annotate 'sh' with {tile.divisibility = 8 : i64}}}
  %tm = tile.make_tensor_map %v : !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]> -> !tile.tensor_map<1x1x128x64xbf16, #sw>
  tile.return
}

// -----

#rows = #tile.shared<vec = 4, perPhase = 1, maxPhase = 1, order = [1, 0]>
tile.kernel @tensor_map_small_divisibility(%X: !tile.ptr<f32> {tile.align = 16 : i64}, %m: i32,
                                           %ld: i32 {tile.divisibility = 2 : i64}) {
  %v = tile.make_view %X[%m, %m] strides [%ld, 1] : !tile.ptr<f32>
  // expected-error @+1 {{TMA needs 16-byte aligned strides; annotate 'ld' with {tile.divisibility = 4 : i64}}}
  %tm = tile.make_tensor_map %v : !tile.view<?x?xf32, strides = [?, 1]> -> !tile.tensor_map<16x32xf32, #rows>
  tile.return
}

// -----

// Ensure this case does not crash: llvm.mlir.poison is ConstantLike but has
// no integer value to encode on the host.
#sw = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], segment = 64>
tile.kernel @tensor_map_poison_stride(%A: !tile.ptr<bf16> {tile.align = 16 : i64}, %m: i32) {
  %ld = llvm.mlir.poison : i32
  %v = tile.make_view %A[%m, %m] strides [%ld, 1] : !tile.ptr<bf16>
  // expected-error @+1 {{the stride of dimension 0 is computed by 'llvm.mlir.poison', which has no form in the host's expression language (+, -, *, ceildiv, floordiv, mod);}}
  %tm = tile.make_tensor_map %v : !tile.view<?x?xbf16, strides = [?, 1]> -> !tile.tensor_map<128x64xbf16, #sw>
  tile.return
}

// -----

#sw = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], segment = 64>
tile.kernel @tensor_map_negative_stride(%A: !tile.ptr<bf16> {tile.align = 16 : i64}, %m: i32) {
  %ld = arith.constant -64 : i32
  %v = tile.make_view %A[%m, %m] strides [%ld, 1] : !tile.ptr<bf16>
  // expected-error @+1 {{TMA needs positive strides; stride -64 of dimension 0}}
  %tm = tile.make_tensor_map %v : !tile.view<?x?xbf16, strides = [?, 1]> -> !tile.tensor_map<128x64xbf16, #sw>
  tile.return
}

// -----

#sw = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], segment = 64>
tile.kernel @tensor_map_zero_stride(%A: !tile.ptr<bf16> {tile.align = 16 : i64}, %m: i32) {
  %v = tile.make_view %A[%m, 64] strides [0, 1] : !tile.ptr<bf16>
  // expected-error @+1 {{TMA needs positive strides; stride 0 of dimension 0}}
  %tm = tile.make_tensor_map %v : !tile.view<?x64xbf16, strides = [0, 1]> -> !tile.tensor_map<128x64xbf16, #sw>
  tile.return
}

// -----

// 2^40 bytes of bf16.
#sw = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], segment = 64>
tile.kernel @tensor_map_huge_stride(%A: !tile.ptr<bf16> {tile.align = 16 : i64}, %m: i32) {
  %v = tile.make_view %A[%m, 64] strides [549755813888, 1] : !tile.ptr<bf16>
  // expected-error @+1 {{TMA needs strides below 2^40 bytes; stride 549755813888 of dimension 0 is larger}}
  %tm = tile.make_tensor_map %v : !tile.view<?x64xbf16, strides = [549755813888, 1]> -> !tile.tensor_map<128x64xbf16, #sw>
  tile.return
}

// -----

#sw = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], segment = 64>
tile.kernel @tensor_map_zero_size(%A: !tile.ptr<bf16> {tile.align = 16 : i64},
                                  %ld: i32 {tile.divisibility = 8 : i64}) {
  %c0 = arith.constant 0 : i32
  %v = tile.make_view %A[%c0, 64] strides [%ld, 1] : !tile.ptr<bf16>
  // expected-error @+1 {{TMA needs sizes in [1, 2^32]; size 0 of dimension 0}}
  %tm = tile.make_tensor_map %v : !tile.view<?x64xbf16, strides = [?, 1]> -> !tile.tensor_map<128x64xbf16, #sw>
  tile.return
}

// -----

// Non-positive hints are rejected by the kernel before make_tensor_map reads
// them (0 and -16 are multiples of 16).
#sw = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], segment = 64>
// expected-error @+1 {{expected 'tile.align' of parameter 'A' to be a positive power-of-two integer, got 0 : i64}}
tile.kernel @tensor_map_zero_align(%A: !tile.ptr<bf16> {tile.align = 0 : i64}, %m: i32,
                                   %ld: i32 {tile.divisibility = 8 : i64}) {
  %v = tile.make_view %A[%m, %m] strides [%ld, 1] : !tile.ptr<bf16>
  %tm = tile.make_tensor_map %v : !tile.view<?x?xbf16, strides = [?, 1]> -> !tile.tensor_map<128x64xbf16, #sw>
  tile.return
}

// -----

#sw = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], segment = 64>
// expected-error @+1 {{expected 'tile.align' of parameter 'A' to be a positive power-of-two integer, got -16 : i64}}
tile.kernel @tensor_map_negative_align(%A: !tile.ptr<bf16> {tile.align = -16 : i64}, %m: i32,
                                       %ld: i32 {tile.divisibility = 8 : i64}) {
  %v = tile.make_view %A[%m, %m] strides [%ld, 1] : !tile.ptr<bf16>
  %tm = tile.make_tensor_map %v : !tile.view<?x?xbf16, strides = [?, 1]> -> !tile.tensor_map<128x64xbf16, #sw>
  tile.return
}

// -----

#sw = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], segment = 64>
// expected-error @+1 {{expected 'tile.divisibility' of parameter 'ld' to be a positive power-of-two integer, got 0 : i64}}
tile.kernel @tensor_map_zero_divisibility(%A: !tile.ptr<bf16> {tile.align = 16 : i64}, %m: i32,
                                          %ld: i32 {tile.divisibility = 0 : i64}) {
  %v = tile.make_view %A[%m, %m] strides [%ld, 1] : !tile.ptr<bf16>
  %tm = tile.make_tensor_map %v : !tile.view<?x?xbf16, strides = [?, 1]> -> !tile.tensor_map<128x64xbf16, #sw>
  tile.return
}

// -----

#sw = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], segment = 64>
// expected-error @+1 {{expected 'tile.divisibility' of parameter 'ld' to be a positive power-of-two integer, got -8 : i64}}
tile.kernel @tensor_map_negative_divisibility(%A: !tile.ptr<bf16> {tile.align = 16 : i64}, %m: i32,
                                              %ld: i32 {tile.divisibility = -8 : i64}) {
  %v = tile.make_view %A[%m, %m] strides [%ld, 1] : !tile.ptr<bf16>
  %tm = tile.make_tensor_map %v : !tile.view<?x?xbf16, strides = [?, 1]> -> !tile.tensor_map<128x64xbf16, #sw>
  tile.return
}

// -----

//===----------------------------------------------------------------------===//
// tile.tma_load / tile.tma_store
//===----------------------------------------------------------------------===//

#sw = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], segment = 64>
func.func @tma_load_num_offsets_4d(%tm: !tile.tensor_map<1x1x128x64xbf16, #sw>, %buf: !tile.smem<2x128x64xbf16, #sw>, %bar: !tile.mbarrier<2>, %i: i32) {
  // expected-error @+1 {{expected 4 offsets (the map's rank), got 2}}
  tile.tma_load %tm[%i, %i], %buf[%i], %bar[%i] : !tile.tensor_map<1x1x128x64xbf16, #sw>, !tile.smem<2x128x64xbf16, #sw>, !tile.mbarrier<2>
  return
}

// -----

#sw = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], segment = 64>
func.func @tma_load_num_offsets(%tm: !tile.tensor_map<128x64xbf16, #sw>, %buf: !tile.smem<2x128x64xbf16, #sw>, %bar: !tile.mbarrier<2>, %i: i32) {
  // expected-error @+1 {{expected 2 offsets (the map's rank), got 1}}
  tile.tma_load %tm[%i], %buf[%i], %bar[%i] : !tile.tensor_map<128x64xbf16, #sw>, !tile.smem<2x128x64xbf16, #sw>, !tile.mbarrier<2>
  return
}

// -----

#sw = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], segment = 64>
func.func @tma_store_num_offsets(%tm: !tile.tensor_map<128x64xbf16, #sw>, %buf: !tile.smem<1x128x64xbf16, #sw>, %i: i32) {
  // expected-error @+1 {{expected 2 offsets (the map's rank), got 3}}
  tile.tma_store %tm[%i, %i, %i], %buf[%i] : !tile.tensor_map<128x64xbf16, #sw>, !tile.smem<1x128x64xbf16, #sw>
  return
}

// -----

#sw = #tile.shared<vec = 16, perPhase = 1, maxPhase = 8, order = [1, 0], segment = 128>
func.func @tma_store_add_element_type(%tm: !tile.tensor_map<128x128xf8E4M3FN, #sw>, %buf: !tile.smem<1x128x128xf8E4M3FN, #sw>, %i: i32) {
  // expected-error @+1 {{add needs f32, f16, bf16, i32 or i64 elements (a reducing TMA store), got 'f8E4M3FN'}}
  tile.tma_store add %tm[%i, %i], %buf[%i] : !tile.tensor_map<128x128xf8E4M3FN, #sw>, !tile.smem<1x128x128xf8E4M3FN, #sw>
  return
}

// -----

#sw = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], segment = 64>
func.func @tma_load_element_type(%tm: !tile.tensor_map<128x64xbf16, #sw>, %buf: !tile.smem<2x128x64xf16, #sw>, %bar: !tile.mbarrier<2>, %i: i32) {
  // expected-error @+1 {{map element type 'bf16' does not match buffer element type 'f16'}}
  tile.tma_load %tm[%i, %i], %buf[%i], %bar[%i] : !tile.tensor_map<128x64xbf16, #sw>, !tile.smem<2x128x64xf16, #sw>, !tile.mbarrier<2>
  return
}

// -----

#sw = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], segment = 64>
func.func @tma_store_element_type(%tm: !tile.tensor_map<128x64xbf16, #sw>, %buf: !tile.smem<1x128x64xf16, #sw>, %i: i32) {
  // expected-error @+1 {{map element type 'bf16' does not match buffer element type 'f16'}}
  tile.tma_store %tm[%i, %i], %buf[%i] : !tile.tensor_map<128x64xbf16, #sw>, !tile.smem<1x128x64xf16, #sw>
  return
}

// -----

// Same swizzle, but the buffer's rows are not cut into 64-element segments.
#sw = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], segment = 64>
#unseg = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]>
func.func @tma_load_layout(%tm: !tile.tensor_map<128x64xbf16, #sw>, %buf: !tile.smem<2x128x64xbf16, #unseg>, %bar: !tile.mbarrier<2>, %i: i32) {
  // expected-error @+1 {{the map's layout #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], segment = 64> differs from the buffer's #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]>}}
  tile.tma_load %tm[%i, %i], %buf[%i], %bar[%i] : !tile.tensor_map<128x64xbf16, #sw>, !tile.smem<2x128x64xbf16, #unseg>, !tile.mbarrier<2>
  return
}

// -----

#sw = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], segment = 64>
#sw64 = #tile.shared<vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0], segment = 32>
func.func @tma_store_layout(%tm: !tile.tensor_map<128x64xbf16, #sw>, %buf: !tile.smem<1x128x64xbf16, #sw64>, %i: i32) {
  // expected-error @+1 {{the map's layout #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], segment = 64> differs from the buffer's #tile.shared<vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0], segment = 32>}}
  tile.tma_store %tm[%i, %i], %buf[%i] : !tile.tensor_map<128x64xbf16, #sw>, !tile.smem<1x128x64xbf16, #sw64>
  return
}

// -----

#sw = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], segment = 64>
func.func @tma_load_box_not_tiling(%tm: !tile.tensor_map<128x64xbf16, #sw>, %buf: !tile.smem<2x96x64xbf16, #sw>, %bar: !tile.mbarrier<2>, %i: i32) {
  // expected-error @+1 {{the buffer's tile 96x64 is not a whole number of 128x64 boxes}}
  tile.tma_load %tm[%i, %i], %buf[%i], %bar[%i] : !tile.tensor_map<128x64xbf16, #sw>, !tile.smem<2x96x64xbf16, #sw>, !tile.mbarrier<2>
  return
}

// -----

#sw = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], segment = 64>
func.func @tma_store_box_not_tiling(%tm: !tile.tensor_map<64x64xbf16, #sw>, %buf: !tile.smem<1x128x96xbf16, #sw>, %i: i32) {
  // expected-error @+1 {{the buffer's tile 128x96 is not a whole number of 64x64 boxes}}
  tile.tma_store %tm[%i, %i], %buf[%i] : !tile.tensor_map<64x64xbf16, #sw>, !tile.smem<1x128x96xbf16, #sw>
  return
}

// -----

// Unswizzled, unsegmented rows of 64 elements: a 32-wide box covers half.
#rows = #tile.shared<vec = 8, perPhase = 1, maxPhase = 1, order = [1, 0]>
func.func @tma_load_box_not_row_segment(%tm: !tile.tensor_map<64x32xbf16, #rows>, %buf: !tile.smem<2x64x64xbf16, #rows>, %bar: !tile.mbarrier<2>, %i: i32) {
  // expected-error @+1 {{boxes must span one row segment (64 elements) of the tile}}
  tile.tma_load %tm[%i, %i], %buf[%i], %bar[%i] : !tile.tensor_map<64x32xbf16, #rows>, !tile.smem<2x64x64xbf16, #rows>, !tile.mbarrier<2>
  return
}

// -----

// Contiguous along dimension 0: the 32-row segment is the box's dimension 0.
#cols = #tile.shared<vec = 8, perPhase = 1, maxPhase = 1, order = [0, 1], segment = 32>
func.func @tma_store_box_not_row_segment(%tm: !tile.tensor_map<16x64xbf16, #cols>, %buf: !tile.smem<1x64x64xbf16, #cols>, %i: i32) {
  // expected-error @+1 {{boxes must span one row segment (32 elements) of the tile}}
  tile.tma_store %tm[%i, %i], %buf[%i] : !tile.tensor_map<16x64xbf16, #cols>, !tile.smem<1x64x64xbf16, #cols>
  return
}

// -----

#sw = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], segment = 64>
func.func @tma_load_swizzle_rows(%tm: !tile.tensor_map<4x64xbf16, #sw>, %buf: !tile.smem<2x4x64xbf16, #sw>, %bar: !tile.mbarrier<2>, %i: i32) {
  // expected-error @+1 {{swizzled boxes need a multiple of 8 rows}}
  tile.tma_load %tm[%i, %i], %buf[%i], %bar[%i] : !tile.tensor_map<4x64xbf16, #sw>, !tile.smem<2x4x64xbf16, #sw>, !tile.mbarrier<2>
  return
}

// -----

// 32-byte swizzle (16 f16 per row), 12-row boxes.
#sw32 = #tile.shared<vec = 8, perPhase = 4, maxPhase = 2, order = [1, 0], segment = 16>
func.func @tma_store_swizzle_rows(%tm: !tile.tensor_map<12x16xf16, #sw32>, %buf: !tile.smem<1x12x64xf16, #sw32>, %i: i32) {
  // expected-error @+1 {{swizzled boxes need a multiple of 8 rows}}
  tile.tma_store %tm[%i, %i], %buf[%i] : !tile.tensor_map<12x16xf16, #sw32>, !tile.smem<1x12x64xf16, #sw32>
  return
}

// -----

//===----------------------------------------------------------------------===//
// Attribute constraints of the wait and barrier ops
//===----------------------------------------------------------------------===//

func.func @async_wait_negative() {
  // expected-error @+1 {{'tile.async_wait' op attribute 'pending' failed to satisfy constraint: 32-bit signless integer attribute whose value is non-negative}}
  tile.async_wait -1
  return
}

// -----

func.func @tma_store_wait_negative() {
  // expected-error @+1 {{'tile.tma_store_wait' op attribute 'pending' failed to satisfy constraint: 32-bit signless integer attribute whose value is non-negative}}
  tile.tma_store_wait -1
  return
}

// -----

func.func @warpgroup_wait_negative() {
  // expected-error @+1 {{'tile.warpgroup_wait' op attribute 'pending' failed to satisfy constraint: 32-bit signless integer attribute whose value is non-negative}}
  tile.warpgroup_wait -1
  return
}

// -----

func.func @warpgroup_wait_types(%d: tensor<64x64xf32>) {
  // expected-error @+1 {{'tile.warpgroup_wait' op failed to verify that all of {values, results} have same type}}
  %r = "tile.warpgroup_wait"(%d) <{pending = 0 : i32}> : (tensor<64x64xf32>) -> tensor<64x64xf16>
  return
}

// -----

func.func @mbarrier_expect_tx_zero(%bar: !tile.mbarrier<2>, %i: i32) {
  // expected-error @+1 {{'tile.mbarrier_expect_tx' op attribute 'bytes' failed to satisfy constraint: 32-bit signless integer attribute whose value is positive}}
  tile.mbarrier_expect_tx %bar[%i], 0 : !tile.mbarrier<2>
  return
}

// -----

//===----------------------------------------------------------------------===//
// tile.mbarrier_alloc
//===----------------------------------------------------------------------===//

tile.kernel @mbarrier_alloc_zero_count() {
  // expected-error @+1 {{'tile.mbarrier_alloc' op attribute 'count' failed to satisfy constraint: 32-bit signless integer attribute whose value is positive}}
  %bar = tile.mbarrier_alloc count 0 : !tile.mbarrier<2>
  tile.return
}

// -----

tile.kernel @mbarrier_alloc_nested() {
  scf.execute_region {
    // expected-error @+1 {{must be at the top level of a tile.kernel, where every thread of the block executes it}}
    %bar = tile.mbarrier_alloc count 1 : !tile.mbarrier<2>
    scf.yield
  }
  tile.return
}

// -----

// Inside a warp_specialize region only some warps run it.
tile.kernel @mbarrier_alloc_in_warp_specialize() warps(4) {
  tile.warp_specialize regs(232) {
    // expected-error @+1 {{must be at the top level of a tile.kernel, where every thread of the block executes it}}
    %bar = tile.mbarrier_alloc count 1 : !tile.mbarrier<2>
  } partition warps(4) regs(40) {
  }
  tile.return
}

// -----

func.func @mbarrier_alloc_not_in_kernel() {
  // expected-error @+1 {{must be at the top level of a tile.kernel, where every thread of the block executes it}}
  %bar = tile.mbarrier_alloc count 1 : !tile.mbarrier<2>
  return
}

// -----

//===----------------------------------------------------------------------===//
// tile.warp_specialize
//===----------------------------------------------------------------------===//

func.func @warp_specialize_not_in_kernel() {
  // expected-error @+1 {{expected to be inside a tile.kernel}}
  tile.warp_specialize regs(232) {
  } partition warps(4) regs(40) {
  }
  return
}

// -----

tile.kernel @warp_specialize_nested() warps(4) {
  tile.warp_specialize regs(232) {
    // expected-error @+1 {{cannot be nested}}
    tile.warp_specialize regs(232) {
    } partition warps(4) regs(40) {
    }
  } partition warps(4) regs(40) {
  }
  tile.return
}

// -----

// Regression (fuzzer): a parse error in the partition after a default region
// that defines a name used before the op. The parser bound that earlier use to
// the value in the default region; ODS's generated parser then freed the
// region while the use still pointed into it (heap corruption, then a hang in
// LLVM's crash handler). The error must come out and the tool exit cleanly
// (the sanitizer build checks the heap).
tile.kernel @warp_specialize_parse_error_after_region(%n: i32) warps(4) {
  %u = arith.addi %v, %v : i32
  tile.warp_specialize regs(232) {
    %v = arith.constant 1 : i32
  } partition warps(4) regs(40) {
    // expected-error @+2 {{redefinition of SSA value '%u'}}
    // expected-note @-5 {{previously defined here}}
    %u = arith.constant 3 : i32
  }
  tile.return
}

// -----

tile.kernel @warp_specialize_kernel_warps() warps(2) {
  // expected-error @+1 {{needs whole warpgroups: the kernel has 2 warps, not a multiple of 4}}
  tile.warp_specialize regs(232) {
  } partition warps(4) regs(40) {
  }
  tile.return
}

// -----

tile.kernel @warp_specialize_partition_warps() warps(4) {
  // expected-error @+1 {{the partition needs whole warpgroups, got 2 warps}}
  tile.warp_specialize regs(232) {
  } partition warps(2) regs(40) {
  }
  tile.return
}

// -----

tile.kernel @warp_specialize_zero_partition_warps() warps(4) {
  // expected-error @+1 {{'tile.warp_specialize' op attribute 'partitionWarps' failed to satisfy constraint: 32-bit signless integer attribute whose value is positive}}
  tile.warp_specialize regs(232) {
  } partition warps(0) regs(40) {
  }
  tile.return
}

// -----

tile.kernel @warp_specialize_too_many_warps() warps(32) {
  // expected-error @+1 {{a block has at most 32 warps; 32 + 4 requested}}
  tile.warp_specialize regs(24) {
  } partition warps(4) regs(24) {
  }
  tile.return
}

// -----

tile.kernel @warp_specialize_regs_low() warps(4) {
  // expected-error @+1 {{setmaxnreg takes 24 to 256 registers in steps of 8, got 16}}
  tile.warp_specialize regs(16) {
  } partition warps(4) regs(40) {
  }
  tile.return
}

// -----

tile.kernel @warp_specialize_regs_high() warps(4) {
  // expected-error @+1 {{setmaxnreg takes 24 to 256 registers in steps of 8, got 264}}
  tile.warp_specialize regs(232) {
  } partition warps(4) regs(264) {
  }
  tile.return
}

// -----

tile.kernel @warp_specialize_regs_step() warps(4) {
  // expected-error @+1 {{setmaxnreg takes 24 to 256 registers in steps of 8, got 100}}
  tile.warp_specialize regs(100) {
  } partition warps(4) regs(40) {
  }
  tile.return
}

// -----

// 32 threads x (8 warps x 256 + 4 warps x 256) registers.
tile.kernel @warp_specialize_register_budget() warps(8) {
  // expected-error @+1 {{needs 98304 registers (8 warps x 256 + 4 warps x 256 per thread), more than the 65536 of an SM}}
  tile.warp_specialize regs(256) {
  } partition warps(4) regs(256) {
  }
  tile.return
}

// -----

tile.kernel @warp_specialize_tile_in_partition(%x: f32) warps(4) {
  tile.warp_specialize regs(232) {
  } partition warps(4) regs(40) {
    // expected-error @+1 {{'tile.splat' op distributed tiles are not available in a warp_specialize partition (it runs scalar code)}}
    %t = tile.splat %x : tensor<128xf32>
  }
  tile.return
}

// -----

// A tile defined outside and only used in the partition is rejected too.
tile.kernel @warp_specialize_tile_used_in_partition(%x: f32) warps(4) {
  %t = tile.splat %x : tensor<128xf32>
  tile.warp_specialize regs(232) {
  } partition warps(4) regs(40) {
    scf.execute_region {
      // expected-error @+1 {{'arith.addf' op distributed tiles are not available in a warp_specialize partition (it runs scalar code)}}
      %u = arith.addf %t, %t : tensor<128xf32>
      scf.yield
    }
  }
  tile.return
}

// -----

//===----------------------------------------------------------------------===//
// tile.align / tile.divisibility parameter hints
//===----------------------------------------------------------------------===//

// expected-error @+1 {{expected 'tile.align' of parameter 'p' to be a positive power-of-two integer, got 24 : i64}}
tile.kernel @align_not_power_of_two(%p: !tile.ptr<f32> {tile.align = 24 : i64}) {
  tile.return
}

// -----

// expected-error @+1 {{expected 'tile.align' of parameter 'p' to be a positive power-of-two integer, got "16"}}
tile.kernel @align_not_integer(%p: !tile.ptr<f32> {tile.align = "16"}) {
  tile.return
}

// -----

// Passes combine divisibilities as powers of two.
// expected-error @+1 {{expected 'tile.divisibility' of parameter 'n' to be a positive power-of-two integer, got 24 : i64}}
tile.kernel @divisibility_not_power_of_two(%n: i32 {tile.divisibility = 24 : i64}) {
  tile.return
}

// -----

// expected-error @+1 {{'tile.align' applies to pointer parameters; 'n' has type 'i32'}}
tile.kernel @align_on_integer(%n: i32 {tile.align = 16 : i64}) {
  tile.return
}

// -----

// expected-error @+1 {{'tile.divisibility' applies to integer parameters; 'p' has type '!tile.ptr<f32>'}}
tile.kernel @divisibility_on_pointer(%p: !tile.ptr<f32> {tile.divisibility = 16 : i64}) {
  tile.return
}

// -----

//===----------------------------------------------------------------------===//
// Persistent kernels
//===----------------------------------------------------------------------===//

// expected-error @+1 {{a persistent kernel needs a 1-D grid rule}}
tile.kernel @persistent_without_grid(%n: i32) warps(4) persistent {
  tile.return
}

// -----

// expected-error @+1 {{a persistent kernel needs a 1-D grid rule}}
tile.kernel @persistent_2d_grid(%m: i32, %n: i32) grid(ceildiv(%m, 128), ceildiv(%n, 128)) warps(4) persistent {
  tile.return
}

// -----

//===----------------------------------------------------------------------===//
// tile.gemm config flags and counts
//===----------------------------------------------------------------------===//

func.func @gemm_tma_store_flag(%a: !tile.view<?x?xbf16, strides = [?, 1]>, %b: !tile.view<?x?xbf16, strides = [?, 1]>, %c: !tile.view<?x?xbf16, strides = [?, 1]>) {
  // expected-error @+1 {{failed to parse Tile_GemmConfigAttr parameter 'tma_store' which is to be a `::mlir::BoolAttr`}}
  tile.gemm %a, %b, %c config <tma_store = 2> : !tile.view<?x?xbf16, strides = [?, 1]>, !tile.view<?x?xbf16, strides = [?, 1]>, !tile.view<?x?xbf16, strides = [?, 1]>
  return
}

// -----

func.func @gemm_tma_store_not_integer(%a: !tile.view<?x?xbf16, strides = [?, 1]>, %b: !tile.view<?x?xbf16, strides = [?, 1]>, %c: !tile.view<?x?xbf16, strides = [?, 1]>) {
  // expected-error @+1 {{failed to parse Tile_GemmConfigAttr parameter 'tma_store' which is to be a `::mlir::BoolAttr`}}
  tile.gemm %a, %b, %c config <tma_store = "yes"> : !tile.view<?x?xbf16, strides = [?, 1]>, !tile.view<?x?xbf16, strides = [?, 1]>, !tile.view<?x?xbf16, strides = [?, 1]>
  return
}

// -----

func.func @gemm_warp_specialize_flag(%a: !tile.view<?x?xbf16, strides = [?, 1]>, %b: !tile.view<?x?xbf16, strides = [?, 1]>, %c: !tile.view<?x?xbf16, strides = [?, 1]>) {
  // expected-error @+1 {{failed to parse Tile_GemmConfigAttr parameter 'warp_specialize' which is to be a `::mlir::BoolAttr`}}
  tile.gemm %a, %b, %c config <warp_specialize = -1> : !tile.view<?x?xbf16, strides = [?, 1]>, !tile.view<?x?xbf16, strides = [?, 1]>, !tile.view<?x?xbf16, strides = [?, 1]>
  return
}

// -----

func.func @attention_pingpong_flag(%q: !tile.view<?x?x?x64xbf16, strides = [?, ?, 64, 1]>) {
  // expected-error @+1 {{failed to parse Tile_AttentionConfigAttr parameter 'pingpong' which is to be a `::mlir::BoolAttr`}}
  tile.attention %q, %q, %q, %q config <pingpong = 2> : !tile.view<?x?x?x64xbf16, strides = [?, ?, 64, 1]>, !tile.view<?x?x?x64xbf16, strides = [?, ?, 64, 1]>, !tile.view<?x?x?x64xbf16, strides = [?, ?, 64, 1]>, !tile.view<?x?x?x64xbf16, strides = [?, ?, 64, 1]>
  return
}

// -----

func.func @attention_q_in_smem_flag(%q: !tile.view<?x?x?x64xbf16, strides = [?, ?, 64, 1]>) {
  // expected-error @+1 {{failed to parse Tile_AttentionConfigAttr parameter 'q_in_smem' which is to be a `::mlir::BoolAttr`}}
  tile.attention %q, %q, %q, %q config <q_in_smem = 3> : !tile.view<?x?x?x64xbf16, strides = [?, ?, 64, 1]>, !tile.view<?x?x?x64xbf16, strides = [?, ?, 64, 1]>, !tile.view<?x?x?x64xbf16, strides = [?, ?, 64, 1]>, !tile.view<?x?x?x64xbf16, strides = [?, ?, 64, 1]>
  return
}

// -----

func.func @attention_by_passes_flag(%q: !tile.view<?x?x?x64xbf16, strides = [?, ?, 64, 1]>) {
  // expected-error @+1 {{failed to parse Tile_AttentionConfigAttr parameter 'by_passes' which is to be a `::mlir::BoolAttr`}}
  tile.attention %q, %q, %q, %q config <by_passes = 2> : !tile.view<?x?x?x64xbf16, strides = [?, ?, 64, 1]>, !tile.view<?x?x?x64xbf16, strides = [?, ?, 64, 1]>, !tile.view<?x?x?x64xbf16, strides = [?, ?, 64, 1]>, !tile.view<?x?x?x64xbf16, strides = [?, ?, 64, 1]>
  return
}

// -----

func.func @attention_split_loops_flag(%q: !tile.view<?x?x?x64xbf16, strides = [?, ?, 64, 1]>) {
  // expected-error @+1 {{failed to parse Tile_AttentionConfigAttr parameter 'split_loops' which is to be a `::mlir::BoolAttr`}}
  tile.attention %q, %q, %q, %q config <split_loops = 2> : !tile.view<?x?x?x64xbf16, strides = [?, ?, 64, 1]>, !tile.view<?x?x?x64xbf16, strides = [?, ?, 64, 1]>, !tile.view<?x?x?x64xbf16, strides = [?, ?, 64, 1]>, !tile.view<?x?x?x64xbf16, strides = [?, ?, 64, 1]>
  return
}

// -----

func.func @gemm_count_not_integer(%a: !tile.view<?x?xbf16, strides = [?, 1]>, %b: !tile.view<?x?xbf16, strides = [?, 1]>, %c: !tile.view<?x?xbf16, strides = [?, 1]>) {
  // expected-error @+1 {{failed to parse Tile_GemmConfigAttr parameter 'consumer_regs' which is to be a `std::optional<int64_t>`}}
  tile.gemm %a, %b, %c config <consumer_regs = 232.0> : !tile.view<?x?xbf16, strides = [?, 1]>, !tile.view<?x?xbf16, strides = [?, 1]>, !tile.view<?x?xbf16, strides = [?, 1]>
  return
}

// -----

func.func @gemm_count_negative(%a: !tile.view<?x?xbf16, strides = [?, 1]>, %b: !tile.view<?x?xbf16, strides = [?, 1]>, %c: !tile.view<?x?xbf16, strides = [?, 1]>) {
  // expected-error @+1 {{cluster_m = -2 must be at least 1}}
  tile.gemm %a, %b, %c config <cluster_m = -2> : !tile.view<?x?xbf16, strides = [?, 1]>, !tile.view<?x?xbf16, strides = [?, 1]>, !tile.view<?x?xbf16, strides = [?, 1]>
  return
}

// -----

//===----------------------------------------------------------------------===//
// #tile.shared
//===----------------------------------------------------------------------===//

// expected-error @+1 {{expected a power-of-two segment that is a multiple of vec}}
func.func private @f(tensor<8x64xbf16, #tile.shared<vec = 8, perPhase = 1, maxPhase = 1, order = [1, 0], segment = 48>>)

// -----

// expected-error @+1 {{expected a power-of-two segment that is a multiple of vec}}
func.func private @f(tensor<8x64xbf16, #tile.shared<vec = 8, perPhase = 1, maxPhase = 1, order = [1, 0], segment = 4>>)

// -----

// expected-error @+1 {{expected powers of two for vec, perPhase and maxPhase}}
func.func private @f(tensor<8x64xbf16, #tile.shared<vec = 8, perPhase = 3, maxPhase = 1, order = [1, 0]>>)

// -----

// Ensure this case does not crash: vec = 0 with a segment (segment % vec).
// expected-error @+2 {{expected powers of two for vec, perPhase and maxPhase}}
// expected-error @+1 {{failed to parse Tile_SmemType parameter 'encoding' which is to be a `SharedEncodingAttr`}}
func.func private @f(!tile.smem<1x8x64xbf16, #tile.shared<vec = 0, perPhase = 1, maxPhase = 1, order = [1, 0], segment = 64>>)

// -----

// expected-error @+1 {{expected powers of two for vec, perPhase and maxPhase}}
func.func private @f(tensor<8x64xbf16, #tile.shared<vec = 8, perPhase = 0, maxPhase = 1, order = [1, 0]>>)

// -----

// expected-error @+1 {{expected powers of two for vec, perPhase and maxPhase}}
func.func private @f(tensor<8x64xbf16, #tile.shared<vec = 8, perPhase = 1, maxPhase = 0, order = [1, 0]>>)

// -----

// expected-error @+1 {{expected order [1, 0] or [0, 1]}}
func.func private @f(tensor<8x64xbf16, #tile.shared<vec = 8, perPhase = 1, maxPhase = 1, order = [1, 1]>>)

// -----

// expected-error @+1 {{expected order [1, 0] or [0, 1]}}
func.func private @f(tensor<8x64xbf16, #tile.shared<vec = 8, perPhase = 1, maxPhase = 1, order = [2, 1, 0]>>)

// -----

//===----------------------------------------------------------------------===//
// !tile.smem
//===----------------------------------------------------------------------===//

// expected-error @+1 {{expected a [stages, rows, cols] buffer shape}}
func.func private @f(!tile.smem<64x64xbf16, #tile.shared<vec = 8, perPhase = 1, maxPhase = 1, order = [1, 0]>>)

// -----

// expected-error @+1 {{expected positive buffer dimensions}}
func.func private @f(!tile.smem<0x64x64xbf16, #tile.shared<vec = 8, perPhase = 1, maxPhase = 1, order = [1, 0]>>)

// -----

// expected-error @+1 {{expected an integer or float element type, got 'index'}}
func.func private @f(!tile.smem<1x64x64xindex, #tile.shared<vec = 8, perPhase = 1, maxPhase = 1, order = [1, 0]>>)

// -----

// expected-error @+1 {{rows of 16 elements cannot hold the swizzle (vec 8, maxPhase 8)}}
func.func private @f(!tile.smem<1x64x16xbf16, #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]>>)

// -----

// Contiguous along dimension 0: rows are 12 elements long, not whole chunks.
// expected-error @+1 {{rows of 12 elements cannot hold the swizzle (vec 8, maxPhase 1)}}
func.func private @f(!tile.smem<1x12x64xbf16, #tile.shared<vec = 8, perPhase = 1, maxPhase = 1, order = [0, 1]>>)

// -----

// With segments the swizzle must fit one segment.
// expected-error @+1 {{rows of 32 elements cannot hold the swizzle (vec 8, maxPhase 8)}}
func.func private @f(!tile.smem<1x64x128xbf16, #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], segment = 32>>)

// -----

//===----------------------------------------------------------------------===//
// !tile.tensor_map
//===----------------------------------------------------------------------===//

// expected-error @+1 {{leading box dimensions must be 1 (a box is a tile of the last two dimensions), got 2}}
func.func private @f(!tile.tensor_map<2x64x64xbf16, #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], segment = 64>>)

// -----

// expected-error @+1 {{expected a box of rank 2 to 5, got rank 6}}
func.func private @f(!tile.tensor_map<1x1x1x1x64x64xbf16, #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], segment = 64>>)

// -----

// expected-error @+1 {{expected a box of rank 2 to 5, got rank 1}}
func.func private @f(!tile.tensor_map<64xbf16, #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], segment = 64>>)

// -----

// expected-error @+1 {{box dimensions must be in [1, 256] elements, got 512}}
func.func private @f(!tile.tensor_map<512x64xbf16, #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], segment = 64>>)

// -----

// expected-error @+1 {{box dimensions must be in [1, 256] elements, got 0}}
func.func private @f(!tile.tensor_map<0x64xbf16, #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], segment = 64>>)

// -----

// expected-error @+1 {{expected an element type of at least 8 bits, got 'i1'}}
func.func private @f(!tile.tensor_map<64x64xi1, #tile.shared<vec = 8, perPhase = 1, maxPhase = 1, order = [1, 0]>>)

// -----

// expected-error @+1 {{expected an element type of at least 8 bits, got 'index'}}
func.func private @f(!tile.tensor_map<64x64xindex, #tile.shared<vec = 8, perPhase = 1, maxPhase = 1, order = [1, 0]>>)

// -----

// 8-byte chunks of bf16 are no TMA swizzle.
// expected-error @+1 {{#tile.shared<vec = 4, perPhase = 1, maxPhase = 8, order = [1, 0], segment = 64> is not a TMA swizzle mode for 'bf16' (16-byte chunks, 32/64/128-byte spans)}}
func.func private @f(!tile.tensor_map<64x64xbf16, #tile.shared<vec = 4, perPhase = 1, maxPhase = 8, order = [1, 0], segment = 64>>)

// -----

// A 128-byte span needs perPhase = 1.
// expected-error @+1 {{#tile.shared<vec = 8, perPhase = 2, maxPhase = 8, order = [1, 0], segment = 64> is not a TMA swizzle mode for 'bf16' (16-byte chunks, 32/64/128-byte spans)}}
func.func private @f(!tile.tensor_map<64x64xbf16, #tile.shared<vec = 8, perPhase = 2, maxPhase = 8, order = [1, 0], segment = 64>>)

// -----

// expected-error @+1 {{the contiguous box dimension is 64 bytes; the swizzle needs exactly 128 bytes}}
func.func private @f(!tile.tensor_map<64x32xbf16, #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], segment = 64>>)

// -----

// expected-error @+1 {{the contiguous box dimension is 8 bytes; TMA needs a multiple of 16 bytes}}
func.func private @f(!tile.tensor_map<64x4xbf16, #tile.shared<vec = 8, perPhase = 1, maxPhase = 1, order = [1, 0]>>)

// -----

// Contiguous along dimension 0: the box's 4 rows are the contiguous span.
// expected-error @+1 {{the contiguous box dimension is 16 bytes; the swizzle needs exactly 128 bytes}}
func.func private @f(!tile.tensor_map<4x64xf32, #tile.shared<vec = 4, perPhase = 1, maxPhase = 8, order = [0, 1]>>)

// -----

//===----------------------------------------------------------------------===//
// !tile.mbarrier and !tile.view
//===----------------------------------------------------------------------===//

// expected-error @+1 {{expected at least one barrier, got 0}}
func.func private @f(!tile.mbarrier<0>)

// -----

// expected-error @+1 {{expected an integer or float element type, got 'index'}}
func.func private @f(!tile.view<?xindex, strides = [1]>)

// -----

tile.kernel @k(%p: !tile.ptr<f32>) {
  // expected-error @+1 {{expected non-negative sizes}}
  %v = tile.make_view %p[-4] strides [1] : !tile.ptr<f32>
  tile.return
}

// -----

//===----------------------------------------------------------------------===//
// Thread-block clusters
//===----------------------------------------------------------------------===//

// expected-error @+1 {{a cluster of 16 programs is over the portable limit of 8}}
tile.kernel @cluster_too_large() warps(4) cluster(4, 4) {
  tile.return
}

// -----

// expected-error @+1 {{expected 3 positive cluster dimensions}}
tile.kernel @cluster_zero() warps(4) cluster(0, 1, 1) {
  tile.return
}

// -----

// expected-error @+1 {{expected 1 to 3 cluster dimensions}}
tile.kernel @cluster_4d() warps(4) cluster(1, 1, 1, 1) {
  tile.return
}

// -----

// expected-error @+1 {{a persistent kernel's cluster must be 1-D (cluster(x)): its grid is}}
tile.kernel @cluster_persistent_2d(%n: i32) grid(%n) warps(4) cluster(1, 2) persistent {
  tile.return
}

// -----

tile.kernel @cluster_rank_without_cluster() warps(4) {
  // expected-error @+1 {{tile.cluster_rank needs a kernel with a cluster(...) shape of at least 2 programs}}
  %r = tile.cluster_rank
  tile.return
}

// -----

tile.kernel @cluster_barrier_single() warps(4) cluster(1) {
  // expected-error @+1 {{tile.cluster_barrier needs a kernel with a cluster(...) shape of at least 2 programs}}
  tile.cluster_barrier
  tile.return
}

// -----

tile.kernel @cluster_barrier_nested(%n: i32) warps(4) cluster(2) {
  %c = arith.cmpi eq, %n, %n : i32
  scf.if %c {
    // expected-error @+1 {{must be at the top level of a tile.kernel, where every thread of the cluster executes it}}
    tile.cluster_barrier
  }
  tile.return
}

// -----

#sw = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], segment = 64>
tile.kernel @multicast_without_cluster(%B: !tile.ptr<bf16> {tile.align = 16 : i64}, %n: i32 {tile.divisibility = 8 : i64}) warps(4) {
  %i = arith.constant 0 : i32
  %v = tile.make_view %B[%n, %n] strides [%n, 1] : !tile.ptr<bf16>
  %tm = tile.make_tensor_map %v : !tile.view<?x?xbf16, strides = [?, 1]> -> !tile.tensor_map<64x64xbf16, #sw>
  %buf = tile.local_alloc : !tile.smem<2x64x128xbf16, #sw>
  %bar = tile.mbarrier_alloc count 1 : !tile.mbarrier<2>
  // expected-error @+1 {{multicast needs a kernel with a cluster(...) shape of at least 2 programs}}
  tile.tma_load %tm[%i, %i], %buf[%i], %bar[%i] multicast(%i) : !tile.tensor_map<64x64xbf16, #sw>, !tile.smem<2x64x128xbf16, #sw>, !tile.mbarrier<2>
  tile.return
}

// -----

#sw = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], segment = 64>
tile.kernel @part_without_multicast(%B: !tile.ptr<bf16> {tile.align = 16 : i64}, %n: i32 {tile.divisibility = 8 : i64}) warps(4) cluster(2) {
  %i = arith.constant 0 : i32
  %v = tile.make_view %B[%n, %n] strides [%n, 1] : !tile.ptr<bf16>
  %tm = tile.make_tensor_map %v : !tile.view<?x?xbf16, strides = [?, 1]> -> !tile.tensor_map<64x64xbf16, #sw>
  %buf = tile.local_alloc : !tile.smem<2x64x128xbf16, #sw>
  %bar = tile.mbarrier_alloc count 1 : !tile.mbarrier<2>
  // expected-error @+1 {{part(...) needs multicast(...): the other parts come from the programs sharing the tile}}
  tile.tma_load %tm[%i, %i], %buf[%i], %bar[%i] part(%i of 2) : !tile.tensor_map<64x64xbf16, #sw>, !tile.smem<2x64x128xbf16, #sw>, !tile.mbarrier<2>
  tile.return
}

// -----

#sw = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], segment = 64>
tile.kernel @parts_not_dividing(%B: !tile.ptr<bf16> {tile.align = 16 : i64}, %n: i32 {tile.divisibility = 8 : i64}) warps(4) cluster(2) {
  %i = arith.constant 0 : i32
  %v = tile.make_view %B[%n, %n] strides [%n, 1] : !tile.ptr<bf16>
  %tm = tile.make_tensor_map %v : !tile.view<?x?xbf16, strides = [?, 1]> -> !tile.tensor_map<64x64xbf16, #sw>
  %buf = tile.local_alloc : !tile.smem<2x64x192xbf16, #sw>
  %bar = tile.mbarrier_alloc count 1 : !tile.mbarrier<2>
  // expected-error @+1 {{the tile's 3 boxes do not split into 2 parts}}
  tile.tma_load %tm[%i, %i], %buf[%i], %bar[%i] multicast(%i) part(%i of 2) : !tile.tensor_map<64x64xbf16, #sw>, !tile.smem<2x64x192xbf16, #sw>, !tile.mbarrier<2>
  tile.return
}

// -----

#sw = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], segment = 64>
tile.kernel @parts_without_part(%B: !tile.ptr<bf16> {tile.align = 16 : i64}, %n: i32 {tile.divisibility = 8 : i64}) warps(4) cluster(2) {
  %i = arith.constant 0 : i32
  %v = tile.make_view %B[%n, %n] strides [%n, 1] : !tile.ptr<bf16>
  %tm = tile.make_tensor_map %v : !tile.view<?x?xbf16, strides = [?, 1]> -> !tile.tensor_map<64x64xbf16, #sw>
  %buf = tile.local_alloc : !tile.smem<2x64x128xbf16, #sw>
  %bar = tile.mbarrier_alloc count 1 : !tile.mbarrier<2>
  // expected-error @+1 {{'parts' = 2 without a part index}}
  "tile.tma_load"(%tm, %i, %i, %buf, %i, %bar, %i, %i) <{operandSegmentSizes = array<i32: 1, 2, 1, 1, 1, 1, 1, 0>, parts = 2 : i32}> : (!tile.tensor_map<64x64xbf16, #sw>, i32, i32, !tile.smem<2x64x128xbf16, #sw>, i32, !tile.mbarrier<2>, i32, i32) -> ()
  tile.return
}

// -----

tile.kernel @remote_arrive_without_cluster(%i: i32) warps(4) {
  %bar = tile.mbarrier_alloc count 1 : !tile.mbarrier<2>
  // expected-error @+1 {{arriving on another program's barrier needs a kernel with a cluster(...) shape of at least 2 programs}}
  tile.mbarrier_arrive %bar[%i] cta(%i) : !tile.mbarrier<2>
  tile.return
}

// -----

//===----------------------------------------------------------------------===//
// tile.named_barrier
//===----------------------------------------------------------------------===//

func.func @named_barrier_reserved_id() {
  %c1 = arith.constant 1 : i32
  // expected-error @+1 {{barrier ids 0 to 2 belong to the lowering and the hardware has 16; expected 3 to 15, got 1}}
  tile.named_barrier %c1, 256
  return
}

// -----

func.func @named_barrier_partial_warp(%id: i32) {
  // expected-error @+1 {{threads must be whole warps (a multiple of 32, at most 1024), got 100}}
  tile.named_barrier arrive %id, 100
  return
}
