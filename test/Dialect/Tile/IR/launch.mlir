// RUN: tilec-opt %s -split-input-file -verify-diagnostics | FileCheck %s
// RUN: tilec-opt %s -split-input-file -verify-diagnostics | tilec-opt -split-input-file | FileCheck %s

// tile.launch, the host-side boundary of tile-from-linalg: round trip on
// tensors (it returns the new value of `init`) and on memrefs (no result),
// with and without a batch list.

// CHECK-LABEL: func.func @launch_tensors
// CHECK: %[[R:.+]] = tile.launch @k(%{{.+}}, %{{.+}} : tensor<?x64xbf16>, tensor<64x32xbf16>) outs(%{{.+}} : tensor<?x32xf32>) args [{arg = 0 : i64}, {arg = 1 : i64}, {arg = 2 : i64}, {arg = 0 : i64, dim = 0 : i64}] -> tensor<?x32xf32>
// CHECK: return %[[R]]
func.func @launch_tensors(%a: tensor<?x64xbf16>, %b: tensor<64x32xbf16>, %c: tensor<?x32xf32>) -> tensor<?x32xf32> {
  %r = tile.launch @k(%a, %b : tensor<?x64xbf16>, tensor<64x32xbf16>) outs(%c : tensor<?x32xf32>)
      args [{arg = 0}, {arg = 1}, {arg = 2}, {arg = 0, dim = 0} ] -> tensor<?x32xf32>
  return %r : tensor<?x32xf32>
}

// -----

// CHECK-LABEL: func.func @launch_memrefs_batched
// CHECK: tile.launch @k(%{{.+}} : memref<?x8x16xf16>) outs(%{{.+}} : memref<?x16x8xf16>) args [{arg = 0 : i64}, {arg = 1 : i64}, {arg = 0 : i64, stride = 0 : i64}] batch [0, 1]
// CHECK-NOT: ->
func.func @launch_memrefs_batched(%x: memref<?x8x16xf16>, %y: memref<?x16x8xf16>) {
  tile.launch @k(%x : memref<?x8x16xf16>) outs(%y : memref<?x16x8xf16>)
      args [{arg = 0}, {arg = 1}, {arg = 0, stride = 0} ] batch [0, 1]
  return
}

// -----

// A fallback kernel, after the batch list.
// CHECK-LABEL: func.func @launch_fallback
// CHECK: tile.launch @k(%{{.+}} : memref<?x8x16xf16>) outs(%{{.+}} : memref<?x16x8xf16>) args [{arg = 0 : i64}, {arg = 1 : i64}, {arg = 0 : i64, dim = 0 : i64}] batch [0, 1] fallback @k_aligned0{{$}}
func.func @launch_fallback(%x: memref<?x8x16xf16>, %y: memref<?x16x8xf16>) {
  tile.launch @k(%x : memref<?x8x16xf16>) outs(%y : memref<?x16x8xf16>)
      args [{arg = 0}, {arg = 1}, {arg = 0, dim = 0} ] batch [0, 1] fallback @k_aligned0
  return
}

// -----

// CHECK-LABEL: func.func @launch_no_inputs
// CHECK: tile.launch @fill() outs(%{{.+}} : tensor<4xf32>) args [{arg = 0 : i64}] -> tensor<4xf32>
func.func @launch_no_inputs(%c: tensor<4xf32>) -> tensor<4xf32> {
  %r = tile.launch @fill() outs(%c : tensor<4xf32>) args [{arg = 0} ] -> tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

func.func @mixed(%a: tensor<4xf32>, %c: memref<4xf32>) {
  // expected-error @+1 {{'tile.launch' op operands must be all ranked tensors or all memrefs}}
  tile.launch @k(%a : tensor<4xf32>) outs(%c : memref<4xf32>) args [{arg = 0} ]
  return
}

// -----

func.func @tensor_without_result(%c: tensor<4xf32>) {
  // expected-error @+1 {{'tile.launch' op on tensors returns the new value of `init`, of type 'tensor<4xf32>'}}
  tile.launch @k() outs(%c : tensor<4xf32>) args [{arg = 0} ]
  return
}

// -----

func.func @memref_with_result(%c: memref<4xf32>) {
  // expected-error @+1 {{'tile.launch' op on memrefs has no result}}
  %r = tile.launch @k() outs(%c : memref<4xf32>) args [{arg = 0} ] -> tensor<4xf32>
  return
}

// -----

func.func @arg_out_of_range(%c: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'tile.launch' op args[1] needs an integer `arg` that indexes the 1 operands}}
  %r = tile.launch @k() outs(%c : tensor<4xf32>) args [{arg = 0}, {arg = 1} ] -> tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

func.func @dim_out_of_range(%c: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'tile.launch' op args[0] names dimension 1 of operand 0, which has rank 1}}
  %r = tile.launch @k() outs(%c : tensor<4xf32>) args [{arg = 0, dim = 1} ] -> tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

func.func @dim_and_stride(%c: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'tile.launch' op args[0] has both `dim` and `stride`}}
  %r = tile.launch @k() outs(%c : tensor<4xf32>) args [{arg = 0, dim = 0, stride = 0} ] -> tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

func.func @unknown_key(%c: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'tile.launch' op args[0] has keys other than `arg`, `dim` and `stride`}}
  %r = tile.launch @k() outs(%c : tensor<4xf32>) args [{arg = 0, size = 0} ] -> tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

func.func @bad_batch(%c: tensor<4xf32>, %s: tensor<f32>) -> tensor<4xf32> {
  // expected-error @+1 {{'tile.launch' op batch operand 0 is not an operand with a leading dimension}}
  %r = tile.launch @k(%s : tensor<f32>) outs(%c : tensor<4xf32>) args [{arg = 0} ] batch [0] -> tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

func.func @fallback_is_kernel(%c: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'tile.launch' op fallback names the launched kernel @k itself}}
  %r = tile.launch @k() outs(%c : tensor<4xf32>) args [{arg = 0} ] fallback @k -> tensor<4xf32>
  return %r : tensor<4xf32>
}
