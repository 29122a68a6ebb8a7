// RUN: tilec-opt %s -split-input-file -verify-diagnostics

// One case per verifier error of the tile dialect's ops.

// expected-error @+1 {{expected no results, got 1}}
"tile.kernel"() <{sym_name = "k", function_type = () -> i32, arg_names = [], num_warps = 4 : i32}> ({
  "tile.return"() : () -> ()
}) : () -> ()

// -----

// expected-error @+1 {{expected 1 parameter names, got 0}}
"tile.kernel"() <{sym_name = "k", function_type = (i32) -> (), arg_names = [], num_warps = 4 : i32}> ({
^bb0(%a: i32):
  "tile.return"() : () -> ()
}) : () -> ()

// -----

// expected-error @+1 {{parameter #0 has type 'tensor<4xf32>'; expected !tile.ptr<T>, i32, i64, f16, bf16, f32 or f64}}
tile.kernel @k(%x: tensor<4xf32>) {
  tile.return
}

// -----

// expected-error @+1 {{duplicate parameter name 'a'}}
"tile.kernel"() <{sym_name = "k", function_type = (i32, i32) -> (), arg_names = ["a", "a"], num_warps = 4 : i32}> ({
^bb0(%a: i32, %b: i32):
  "tile.return"() : () -> ()
}) : () -> ()

// -----

// expected-error @+1 {{expected warps to be a power of two in [1, 32], got 3}}
tile.kernel @k() warps(3) {
  tile.return
}

// -----

// expected-error @+1 {{expected 'grid' and 'grid_args' together}}
"tile.kernel"() <{sym_name = "k", function_type = () -> (), arg_names = [], num_warps = 4 : i32, grid = affine_map<() -> (1)>}> ({
  "tile.return"() : () -> ()
}) : () -> ()

// -----

// expected-error @+1 {{expected a grid map with one symbol per grid parameter and no dimensions}}
"tile.kernel"() <{sym_name = "k", function_type = (i32) -> (), arg_names = ["n"], num_warps = 4 : i32, grid = affine_map<(d0) -> (d0)>, grid_args = array<i64: 0>}> ({
^bb0(%n: i32):
  "tile.return"() : () -> ()
}) : () -> ()

// -----

// expected-error @+1 {{expected a grid of 1 to 3 dimensions, got 4}}
tile.kernel @k(%n: i32) grid(%n, %n, %n, %n) {
  tile.return
}

// -----

// expected-error @+1 {{grid parameter index 3 out of range}}
"tile.kernel"() <{sym_name = "k", function_type = (i32) -> (), arg_names = ["n"], num_warps = 4 : i32, grid = affine_map<()[s0] -> (s0)>, grid_args = array<i64: 3>}> ({
^bb0(%n: i32):
  "tile.return"() : () -> ()
}) : () -> ()

// -----

// expected-error @+1 {{grid expressions may only use integer parameters; 'f' has type 'f32'}}
tile.kernel @k(%f: f32) grid(%f) {
  tile.return
}

// -----

// expected-error @+1 {{type of entry block argument #0('i64') must match the type of the corresponding argument in function signature('i32')}}
"tile.kernel"() <{sym_name = "k", function_type = (i32) -> (), arg_names = ["n"], num_warps = 4 : i32}> ({
^bb0(%n: i64):
  "tile.return"() : () -> ()
}) : () -> ()

// -----

// expected-error @+1 {{entry block must have 1 arguments to match function signature}}
"tile.kernel"() <{sym_name = "k", function_type = (i32) -> (), arg_names = ["n"], num_warps = 4 : i32}> ({
  "tile.return"() : () -> ()
}) : () -> ()

// -----

// expected-error @+1 {{expected the body to end with 'tile.return'}}
tile.kernel @k() {
  %c0 = arith.constant 0 : i32
}

// -----

// expected-error @+1 {{'%m' is not a parameter of this kernel}}
tile.kernel @k(%n: i32) grid(ceildiv(%m, 4)) {
  tile.return
}

// -----

// expected-error @+1 {{expected a grid expression}}
tile.kernel @k(%n: i32) grid(ceildiv(, 4)) {
  tile.return
}

// -----

// expected-error @+1 {{expected an integer or float element type, got 'index'}}
tile.kernel @k(%p: !tile.ptr<index>) {
  tile.return
}

// -----

tile.kernel @k(%p: !tile.ptr<f32>, %n: i32) {
  // expected-error @+1 {{expected 2 strides for a rank-2 view, got 1}}
  %v = "tile.make_view"(%p, %n) <{operandSegmentSizes = array<i32: 1, 1, 0>}> : (!tile.ptr<f32>, i32) -> !tile.view<?x4xf32, strides = [1]>
  tile.return
}

// -----

tile.kernel @k(%p: !tile.ptr<f32>, %n: i32) {
  // expected-error @+1 {{view element type 'f16' does not match pointer element type 'f32'}}
  %v = "tile.make_view"(%p, %n) <{operandSegmentSizes = array<i32: 1, 1, 0>}> : (!tile.ptr<f32>, i32) -> !tile.view<?xf16, strides = [1]>
  tile.return
}

// -----

tile.kernel @k(%p: !tile.ptr<f32>, %n: i32) {
  // expected-error @+1 {{expected one size operand per dynamic size}}
  %v = "tile.make_view"(%p) <{operandSegmentSizes = array<i32: 1, 0, 0>}> : (!tile.ptr<f32>) -> !tile.view<?xf32, strides = [1]>
  tile.return
}

// -----

tile.kernel @k(%p: !tile.ptr<f32>, %n: i32) {
  // expected-error @+1 {{expected one stride operand per dynamic stride}}
  %v = "tile.make_view"(%p) <{operandSegmentSizes = array<i32: 1, 0, 0>}> : (!tile.ptr<f32>) -> !tile.view<4xf32, strides = [?]>
  tile.return
}

// -----

tile.kernel @k(%p: i32) {
  // expected-error @+1 {{expected a !tile.ptr type, got 'i32'}}
  %v = tile.make_view %p[4] strides [1] : i32
  tile.return
}

// -----

tile.kernel @k(%p: !tile.ptr<f32>) {
  // expected-error @+1 {{expected as many strides as sizes}}
  %v = tile.make_view %p[4, 4] strides [1] : !tile.ptr<f32>
  tile.return
}

// -----

tile.kernel @k(%p: !tile.ptr<f32>) {
  // expected-error @+1 {{expected non-negative strides}}
  %v = tile.make_view %p[4] strides [-1] : !tile.ptr<f32>
  tile.return
}

// -----

// expected-error @+1 {{expected a view of rank at least 1}}
func.func private @f(!tile.view<f32, strides = []>)

// -----

tile.kernel @k(%p: !tile.ptr<f32>, %n: i32) {
  %v = tile.make_view %p[%n, %n] strides [%n, 1] : !tile.ptr<f32>
  // expected-error @+1 {{expected 2 offsets for a rank-2 view, got 1}}
  %t = tile.load %v[%n] : !tile.view<?x?xf32, strides = [?, 1]> -> tensor<4x4xf32>
  tile.return
}

// -----

tile.kernel @k(%p: !tile.ptr<f32>, %n: i32) {
  %v = tile.make_view %p[%n] strides [1] : !tile.ptr<f32>
  // expected-error @+1 {{tile rank 2 exceeds view rank 1}}
  %t = tile.load %v[%n] : !tile.view<?xf32, strides = [1]> -> tensor<4x4xf32>
  tile.return
}

// -----

tile.kernel @k(%p: !tile.ptr<f32>, %n: i32) {
  %v = tile.make_view %p[%n] strides [1] : !tile.ptr<f32>
  // expected-error @+1 {{tile element type 'f16' does not match view element type 'f32'}}
  %t = tile.load %v[%n] : !tile.view<?xf32, strides = [1]> -> tensor<4xf16>
  tile.return
}

// -----

tile.kernel @k(%p: !tile.ptr<f32>, %n: i32) {
  %v = tile.make_view %p[%n] strides [1] : !tile.ptr<f32>
  // expected-error @+1 {{expected a tile shape of powers of two, got 'tensor<6xf32>'}}
  %t = tile.load %v[%n] : !tile.view<?xf32, strides = [1]> -> tensor<6xf32>
  tile.return
}

// -----

tile.kernel @k(%p: !tile.ptr<f32>, %n: i32) {
  %v = tile.make_view %p[%n] strides [1] : !tile.ptr<f32>
  %m = arith.constant dense<true> : tensor<8xi1>
  // expected-error @+1 {{mask shape does not match the tile shape}}
  %t = tile.load %v[%n] mask(%m : tensor<8xi1>) : !tile.view<?xf32, strides = [1]> -> tensor<4xf32>
  tile.return
}

// -----

tile.kernel @k(%p: !tile.ptr<i32>, %n: i32) {
  %v = tile.make_view %p[%n] strides [1] : !tile.ptr<i32>
  // expected-error @+1 {{padding 'neg_inf' needs a floating-point element type}}
  %t = tile.load %v[%n] padding(neg_inf) : !tile.view<?xi32, strides = [1]> -> tensor<4xi32>
  tile.return
}

// -----

tile.kernel @k(%p: !tile.ptr<f32>, %n: i32) {
  %v = tile.make_view %p[%n] strides [1] : !tile.ptr<f32>
  %t = arith.constant dense<0.0> : tensor<4xf16>
  // expected-error @+1 {{tile element type 'f16' does not match view element type 'f32'}}
  tile.store %t, %v[%n] : tensor<4xf16>, !tile.view<?xf32, strides = [1]>
  tile.return
}

// -----

tile.kernel @k(%p: !tile.ptr<bf16>, %n: i32) {
  %v = tile.make_view %p[%n] strides [1] : !tile.ptr<bf16>
  %t = arith.constant dense<0.0> : tensor<4xbf16>
  // expected-error @+1 {{adds f32 elements only (red.global.add.f32), got 'bf16'}}
  tile.atomic_add %t, %v[%n] : tensor<4xbf16>, !tile.view<?xbf16, strides = [1]>
  tile.return
}

// -----

tile.kernel @k(%p: !tile.ptr<f32>, %n: i32) {
  %v = tile.make_view %p[%n, %n] strides [%n, 1] : !tile.ptr<f32>
  %t = arith.constant dense<0.0> : tensor<4x4xf32>
  // expected-error @+1 {{expected 2 offsets for a rank-2 view, got 1}}
  tile.atomic_add %t, %v[%n] : tensor<4x4xf32>, !tile.view<?x?xf32, strides = [?, 1]>
  tile.return
}

// -----

tile.kernel @k() {
  // expected-error @+1 {{range [0, 4) has 4 elements but the result has 8}}
  %r = tile.range 0 to 4 : tensor<8xi32>
  tile.return
}

// -----

tile.kernel @k() {
  // expected-error @+1 {{expected a 1-D result}}
  %r = tile.range 0 to 4 : tensor<2x2xi32>
  tile.return
}

// -----

func.func @splat_type(%s: f32) {
  // expected-error @+1 {{result element type matches the scalar}}
  %t = "tile.splat"(%s) : (f32) -> tensor<4xf16>
  return
}

// -----

func.func @expand_axis(%t: tensor<4xf32>) {
  // expected-error @+1 {{axis 2 out of range for rank 1}}
  %e = tile.expand_dims %t axis = 2 : tensor<4xf32> -> tensor<4x1xf32>
  return
}

// -----

func.func @expand_shape(%t: tensor<4xf32>) {
  // expected-error @+1 {{expected result 'tensor<4x1xf32>' (ignoring encodings), got 'tensor<1x4xf32>'}}
  %e = tile.expand_dims %t axis = 1 : tensor<4xf32> -> tensor<1x4xf32>
  return
}

// -----

#b = #tile.blocked<sizePerThread = [1, 1], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
func.func @expand_layout(%t: tensor<4xf32, #tile.slice<dim = 0, parent = #b>>) {
  // expected-error @+1 {{expected the source layout to be the result layout sliced along the new axis}}
  %e = tile.expand_dims %t axis = 1 : tensor<4xf32, #tile.slice<dim = 0, parent = #b>> -> tensor<4x1xf32, #b>
  return
}

// -----

func.func @broadcast_rank(%t: tensor<4xf32>) {
  // expected-error @+1 {{expected source and result of equal rank and element type}}
  %b = tile.broadcast %t : tensor<4xf32> -> tensor<4x4xf32>
  return
}

// -----

func.func @broadcast_dim(%t: tensor<2x1xf32>) {
  // expected-error @+1 {{source dimension 2 can only broadcast to itself or from 1, not to 4}}
  %b = tile.broadcast %t : tensor<2x1xf32> -> tensor<4x4xf32>
  return
}

// -----

#b0 = #tile.blocked<sizePerThread = [1, 1], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#b1 = #tile.blocked<sizePerThread = [1, 1], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]>
func.func @broadcast_layout(%t: tensor<4x1xf32, #b0>) {
  // expected-error @+1 {{expected source and result with the same layout}}
  %b = tile.broadcast %t : tensor<4x1xf32, #b0> -> tensor<4x4xf32, #b1>
  return
}

// -----

func.func @trans_rank(%t: tensor<4xf32>) {
  // expected-error @+1 {{expected 2-D tiles}}
  %b = tile.trans %t : tensor<4xf32> -> tensor<4xf32>
  return
}

// -----

func.func @trans_shape(%t: tensor<4x8xf32>) {
  // expected-error @+1 {{expected the result to be the transposed source}}
  %b = tile.trans %t : tensor<4x8xf32> -> tensor<4x8xf32>
  return
}

// -----

func.func @extract_slice_encoding(%t: tensor<64x32xbf16, #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]>>) {
  // expected-error @+1 {{expected the result to have the source's element type and encoding}}
  %b = tile.extract_slice %t offsets [0, 16] : tensor<64x32xbf16, #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]>> -> tensor<64x16xbf16>
  return
}

// -----

func.func @extract_slice_rank(%t: tensor<64x32xbf16>) {
  // expected-error @+1 {{expected one offset per dimension of the source}}
  %b = tile.extract_slice %t offsets [0] : tensor<64x32xbf16> -> tensor<64x16xbf16>
  return
}

// -----

func.func @extract_slice_unaligned(%t: tensor<64x32xbf16>) {
  // expected-error @+1 {{offset 8 of dimension 1 must be a multiple of the slice size 16 within the source size 32}}
  %b = tile.extract_slice %t offsets [0, 8] : tensor<64x32xbf16> -> tensor<64x16xbf16>
  return
}

// -----

func.func @extract_slice_out_of_bounds(%t: tensor<64x32xbf16>) {
  // expected-error @+1 {{offset 32 of dimension 1 must be a multiple of the slice size 16 within the source size 32}}
  %b = tile.extract_slice %t offsets [0, 32] : tensor<64x32xbf16> -> tensor<64x16xbf16>
  return
}

// -----

func.func @reduce_rank(%t: tensor<4xf32>) {
  // expected-error @+1 {{expected a source of rank at least 2 (use tile.expand_dims to reduce a 1-D tile)}}
  %r = "tile.reduce"(%t) <{kind = 0 : i32, axis = 0 : i32}> : (tensor<4xf32>) -> tensor<f32>
  return
}

// -----

func.func @reduce_axis(%t: tensor<4x8xf32>) {
  // expected-error @+1 {{axis 2 out of range for rank 2}}
  %r = tile.reduce sum %t axis = 2 : tensor<4x8xf32> -> tensor<4xf32>
  return
}

// -----

func.func @reduce_shape(%t: tensor<4x8xf32>) {
  // expected-error @+1 {{expected result 'tensor<4xf32>' (ignoring encodings), got 'tensor<8xf32>'}}
  %r = tile.reduce sum %t axis = 1 : tensor<4x8xf32> -> tensor<8xf32>
  return
}

// -----

#b = #tile.blocked<sizePerThread = [1, 1], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
func.func @reduce_layout(%t: tensor<4x8xf32, #b>) {
  // expected-error @+1 {{expected the result layout to be the source layout sliced along the reduced axis}}
  %r = tile.reduce sum %t axis = 1 : tensor<4x8xf32, #b> -> tensor<4xf32, #tile.slice<dim = 0, parent = #b>>
  return
}

// -----

func.func @dot_rank(%a: tensor<4xbf16>, %b: tensor<4x4xbf16>, %c: tensor<4x4xf32>) {
  // expected-error @+1 {{expected 2-D operands}}
  %d = tile.dot %a, %b, %c : tensor<4xbf16>, tensor<4x4xbf16> -> tensor<4x4xf32>
  return
}

// -----

func.func @dot_k(%a: tensor<16x32xbf16>, %b: tensor<16x8xbf16>, %c: tensor<16x8xf32>) {
  // expected-error @+1 {{K dimensions differ: A is 16x32, B is 16x8}}
  %d = tile.dot %a, %b, %c : tensor<16x32xbf16>, tensor<16x8xbf16> -> tensor<16x8xf32>
  return
}

// -----

func.func @dot_acc(%a: tensor<16x16xbf16>, %b: tensor<16x8xbf16>, %c: tensor<16x16xf32>) {
  // expected-error @+1 {{expected a 16x8 accumulator, got 16x16}}
  %d = tile.dot %a, %b, %c : tensor<16x16xbf16>, tensor<16x8xbf16> -> tensor<16x16xf32>
  return
}

// -----

func.func @dot_types(%a: tensor<16x16xbf16>, %b: tensor<16x8xf16>, %c: tensor<16x8xf32>) {
  // expected-error @+1 {{unsupported element types 'bf16' x 'f16' -> 'f32'; expected bf16 x bf16 -> f32, f16 x f16 -> f32|f16, f32 x f32 -> f32, fp8 x fp8 -> f32 or i8 x i8 -> i32 (signed)}}
  %d = tile.dot %a, %b, %c : tensor<16x16xbf16>, tensor<16x8xf16> -> tensor<16x8xf32>
  return
}

// -----

// precision is for f32 operands.
func.func @dot_precision_bf16(%a: tensor<16x16xbf16>, %b: tensor<16x8xbf16>, %c: tensor<16x8xf32>) {
  // expected-error @+1 {{precision(tf32) is for f32 operands; 'bf16' operands multiply exactly}}
  %d = tile.dot %a, %b, %c precision(tf32) : tensor<16x16xbf16>, tensor<16x8xbf16> -> tensor<16x8xf32>
  return
}

// -----

func.func @dot_precision_unknown(%a: tensor<16x16xf32>, %c: tensor<16x16xf32>) {
  // expected-error @+1 {{expected string or keyword containing one of the following enum values for attribute 'precision' [ieee, tf32, tf32x3]}}
  %d = tile.dot %a, %a, %c precision(tf16) : tensor<16x16xf32>, tensor<16x16xf32> -> tensor<16x16xf32>
  return
}

// -----

// i8 accumulates in i32 only.
func.func @dot_i8_f32(%a: tensor<16x32xi8>, %b: tensor<32x8xi8>, %c: tensor<16x8xf32>) {
  // expected-error @+1 {{unsupported element types 'i8' x 'i8' -> 'f32'}}
  %d = tile.dot %a, %b, %c : tensor<16x32xi8>, tensor<32x8xi8> -> tensor<16x8xf32>
  return
}

// -----

// Other integer widths have no tensor-core form.
func.func @dot_i16(%a: tensor<16x16xi16>, %b: tensor<16x8xi16>, %c: tensor<16x8xi32>) {
  // expected-error @+1 {{unsupported element types 'i16' x 'i16' -> 'i32'}}
  %d = tile.dot %a, %b, %c : tensor<16x16xi16>, tensor<16x8xi16> -> tensor<16x8xi32>
  return
}

// -----

func.func @dot_acc_type(%a: tensor<16x16xbf16>, %b: tensor<16x8xbf16>, %c: tensor<16x8xf32>) {
  // expected-error @+1 {{all of {acc, result} have same type}}
  %d = "tile.dot"(%a, %b, %c) : (tensor<16x16xbf16>, tensor<16x8xbf16>, tensor<16x8xf32>) -> tensor<16x8xf16>
  return
}

// -----

// expected-error @+1 {{expected threadsPerWarp to multiply to 32, got 16}}
func.func private @f(tensor<4x4xf32, #tile.blocked<sizePerThread = [1, 1], threadsPerWarp = [4, 4], warpsPerCTA = [1, 1], order = [1, 0]>>)

// -----

// expected-error @+1 {{expected sizePerThread, threadsPerWarp, warpsPerCTA and order of the same rank}}
func.func private @f(tensor<4x4xf32, #tile.blocked<sizePerThread = [1], threadsPerWarp = [4, 8], warpsPerCTA = [1, 1], order = [1, 0]>>)

// -----

// expected-error @+1 {{expected powers of two in sizePerThread, threadsPerWarp and warpsPerCTA}}
func.func private @f(tensor<4x4xf32, #tile.blocked<sizePerThread = [1, 3], threadsPerWarp = [4, 8], warpsPerCTA = [1, 1], order = [1, 0]>>)

// -----

// expected-error @+1 {{expected order to be a permutation of [0, 2)}}
func.func private @f(tensor<4x4xf32, #tile.blocked<sizePerThread = [1, 1], threadsPerWarp = [4, 8], warpsPerCTA = [1, 1], order = [1, 1]>>)


// -----

// expected-error @+1 {{expected a distributed layout as parent}}
func.func private @f(tensor<4xf32, #tile.slice<dim = 0, parent = 1 : i32>>)

// -----

// expected-error @+1 {{sliced dimension 2 out of range for a parent of rank 2}}
func.func private @f(tensor<4xf32, #tile.slice<dim = 2, parent = #tile.mma<warpsPerCTA = [4, 1]>>>)

// -----

// expected-error @+1 {{expected a parent layout of rank at least 2}}
func.func private @f(tensor<4xf32, #tile.slice<dim = 0, parent = #tile.blocked<sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]>>>)

// -----

// expected-error @+1 {{expected warpsPerCTA of rank 2}}
func.func private @f(tensor<4x4xf32, #tile.mma<warpsPerCTA = [4]>>)

// -----

// expected-error @+1 {{expected powers of two in warpsPerCTA}}
func.func private @f(tensor<4x4xf32, #tile.mma<warpsPerCTA = [3, 1]>>)

// -----

// expected-error @+1 {{expected whole warpgroups along M (a multiple of 4 warps) with mFirst, got 2}}
func.func private @f(tensor<4x4xf32, #tile.mma<warpsPerCTA = [2, 2], mFirst = true>>)

// -----

// expected-error @+1 {{expected opIdx 0 (A) or 1 (B), got 2}}
func.func private @f(tensor<4x4xf32, #tile.dot_operand<opIdx = 2, parent = #tile.mma<warpsPerCTA = [4, 1]>, kWidth = 2>>)

// -----

// expected-error @+1 {{expected a #tile.mma parent layout}}
func.func private @f(tensor<4x4xf32, #tile.dot_operand<opIdx = 0, parent = #tile.blocked<sizePerThread = [1, 1], threadsPerWarp = [4, 8], warpsPerCTA = [1, 1], order = [1, 0]>, kWidth = 2>>)

// -----

// expected-error @+1 {{expected kWidth 1 (32-bit), 2 (16-bit) or 4 (8-bit), got 3}}
func.func private @f(tensor<4x4xf32, #tile.dot_operand<opIdx = 0, parent = #tile.mma<warpsPerCTA = [4, 1]>, kWidth = 3>>)

// -----

// Regression (fuzzer): a layout of another rank than its tensor's. A rank-2
// #tile.blocked on a rank-1 tile made the layout computation read past its
// dimensions and loop forever.
// expected-error @+1 {{is for rank-2 tensors, not rank 1}}
func.func private @f(tensor<64xbf16, #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>>)

// -----

// expected-error @+1 {{is for rank-2 tensors, not rank 3}}
func.func private @f(tensor<2x16x8xf32, #tile.mma<warpsPerCTA = [4, 1]>>)

// -----

// expected-error @+1 {{is for rank-1 tensors, not rank 2}}
func.func private @f(tensor<16x16xf32, #tile.slice<dim = 0, parent = #tile.blocked<sizePerThread = [1, 1], threadsPerWarp = [4, 8], warpsPerCTA = [1, 1], order = [1, 0]>>>)

// -----

tile.kernel @load_scalar_indices(%p: !tile.ptr<i32>, %n: i32) {
  %v = tile.make_view %p[%n, %n] strides [%n, 1] : !tile.ptr<i32>
  // expected-error @+1 {{expected 2 indices for a rank-2 view, got 1}}
  %s = tile.load_scalar %v[%n] : !tile.view<?x?xi32, strides = [?, 1]> -> i32
  tile.return
}

// -----

tile.kernel @load_scalar_type(%p: !tile.ptr<i32>, %n: i32) {
  %v = tile.make_view %p[%n] strides [1] : !tile.ptr<i32>
  // expected-error @+1 {{result type 'f32' differs from the view's element type 'i32'}}
  %s = tile.load_scalar %v[%n] : !tile.view<?xi32, strides = [1]> -> f32
  tile.return
}

// -----

// expected-error @+1 {{expected warpRows 16 (16-row slices per warp, repeated down M) or none, got 8}}
func.func private @f(tensor<64x64xf32, #tile.mma<warpsPerCTA = [4, 1], warpRows = 8>>)

// -----

// expected-error @+1 {{group_rows must be in [1, 64], got 0}}
tile.kernel @group_rows_zero(%n: i32) warps(4) schedule<group_rows = 0> {
  tile.return
}
