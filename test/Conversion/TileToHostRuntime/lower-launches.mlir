// RUN: tilec-opt %s -split-input-file --one-shot-bufferize="bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map" -tile-lower-launches | FileCheck %s

// tile-lower-launches on hand-written gpu.binary ops (a fake cubin): each
// bufferized tile.launch becomes a call of the host runtime with one 64-bit
// slot per kernel parameter; the host waits (tilecHostSynchronize) before
// the first op after a launch that may touch memory.

// The binary's cubin and metadata become internal constants; the slots are
// the operands' addresses (aligned pointer + offset * element bytes) and
// sizes, as `args` say; -1: every operand is a dense row-major buffer.
// CHECK-DAG: llvm.mlir.global internal constant @__tilec_cubin_k("CUBIN")
// CHECK-DAG: llvm.mlir.global internal constant @__tilec_launch_k("{json}")
// CHECK-NOT: gpu.binary
// CHECK-LABEL: func.func @one_launch
// CHECK-SAME: (%[[A:.+]]: memref<?x64xbf16>, %[[B:.+]]: memref<64x32xbf16>) -> memref<?x32xf32> attributes {llvm.emit_c_interface}
// CHECK: %[[C:.+]] = memref.alloc(%{{.+}}) {{.*}} : memref<?x32xf32>
// CHECK: %{{.+}}, %[[OFFA:.+]], %[[SIZESA:.+]]:2, %{{.+}}:2 = memref.extract_strided_metadata %[[A]]
// CHECK: %[[SLOTS:.+]] = llvm.alloca %{{.+}} x i64
// CHECK: %[[PA:.+]] = memref.extract_aligned_pointer_as_index %[[A]]
// CHECK: %[[PA64:.+]] = arith.index_cast %[[PA]] : index to i64
// CHECK: %[[OFF64:.+]] = arith.index_cast %[[OFFA]] : index to i64
// CHECK: %[[OFFB:.+]] = arith.muli %[[OFF64]], %{{.+}} : i64
// CHECK: %[[ADDR:.+]] = arith.addi %[[PA64]], %[[OFFB]] : i64
// CHECK: %[[S0:.+]] = llvm.getelementptr %[[SLOTS]][0]
// CHECK: llvm.store %[[ADDR]], %[[S0]]
// CHECK: memref.extract_aligned_pointer_as_index %[[B]]
// CHECK: llvm.getelementptr %[[SLOTS]][1]
// CHECK: memref.extract_aligned_pointer_as_index %[[C]]
// CHECK: llvm.getelementptr %[[SLOTS]][2]
// CHECK: %[[M:.+]] = arith.index_cast %[[SIZESA]]#0 : index to i64
// CHECK: %[[S3:.+]] = llvm.getelementptr %[[SLOTS]][3]
// CHECK: llvm.store %[[M]], %[[S3]]
// CHECK-DAG: %[[NONE:.+]] = arith.constant -1 : i64
// CHECK-DAG: %[[CUBIN:.+]] = llvm.mlir.addressof @__tilec_cubin_k
// CHECK-DAG: %[[JSON:.+]] = llvm.mlir.addressof @__tilec_launch_k
// CHECK-DAG: %[[C5:.+]] = arith.constant 5 : i64
// CHECK-DAG: %[[C6:.+]] = arith.constant 6 : i64
// CHECK-DAG: %[[C4:.+]] = arith.constant 4 : i64
// CHECK: call @tilecHostLaunch(%[[CUBIN]], %[[C5]], %[[JSON]], %[[C6]], %[[SLOTS]], %[[C4]], %[[NONE]])
// CHECK-NEXT: call @tilecHostSynchronize()
// CHECK-NEXT: return %[[C]]
// CHECK: func.func private @tilecHostLaunch(!llvm.ptr, i64, !llvm.ptr, i64, !llvm.ptr, i64, i64)
// CHECK: func.func private @tilecHostSynchronize()
module attributes {gpu.container_module} {
gpu.binary @k [#gpu.object<#nvvm.target<chip = "sm_90a">, properties = {"tilec.launch" = "{json}"}, bin = "CUBIN">]
func.func @one_launch(%a: tensor<?x64xbf16>, %b: tensor<64x32xbf16>) -> tensor<?x32xf32> {
  %c0 = arith.constant 0 : index
  %m = tensor.dim %a, %c0 : tensor<?x64xbf16>
  %e = tensor.empty(%m) : tensor<?x32xf32>
  %r = tile.launch @k(%a, %b : tensor<?x64xbf16>, tensor<64x32xbf16>) outs(%e : tensor<?x32xf32>)
      args [{arg = 0}, {arg = 1}, {arg = 2}, {arg = 0, dim = 0} ] -> tensor<?x32xf32>
  return %r : tensor<?x32xf32>
}
}

// -----

// Two launches back to back (the second reads the first's result), then a
// host op that reads the second's: one wait, before the host op. Each
// kernel's image is created once; the binary picked by nothing stays.
// CHECK: gpu.binary @unused
// CHECK-LABEL: func.func @chain_then_host
// CHECK: call @tilecHostLaunch
// CHECK-NOT: call @tilecHostSynchronize
// CHECK: memref.alloc
// CHECK: call @tilecHostLaunch
// CHECK-NEXT: call @tilecHostSynchronize()
// CHECK-NEXT: memref.load
// CHECK-NOT: gpu.binary
module attributes {gpu.container_module} {
gpu.binary @k1 [#gpu.object<#nvvm.target<chip = "sm_80">, properties = {"tilec.launch" = "{1}"}, bin = "ONE">]
gpu.binary @k2 [#gpu.object<#nvvm.target<chip = "sm_80">, properties = {"tilec.launch" = "{2}"}, bin = "TWO">]
gpu.binary @unused [#gpu.object<#nvvm.target<chip = "sm_80">, bin = "X">]
func.func @chain_then_host(%a: tensor<8xf32>) -> f32 {
  %c0 = arith.constant 0 : index
  %e1 = tensor.empty() : tensor<8xf32>
  %r1 = tile.launch @k1(%a : tensor<8xf32>) outs(%e1 : tensor<8xf32>) args [{arg = 0}, {arg = 1} ] -> tensor<8xf32>
  %e2 = tensor.empty() : tensor<8xf32>
  %r2 = tile.launch @k2(%r1 : tensor<8xf32>) outs(%e2 : tensor<8xf32>) args [{arg = 0}, {arg = 1} ] -> tensor<8xf32>
  %x = tensor.extract %r2[%c0] : tensor<8xf32>
  return %x : f32
}
}

// -----

// A batched launch: a loop over the leading dimension that advances the
// listed operands by their leading strides; sizes are stored once, before
// it, and the wait comes after the loop.
// CHECK-LABEL: func.func @batched
// CHECK-SAME: (%[[X:.+]]: memref<?x8x16xf16>)
// CHECK: %[[Y:.+]] = memref.alloc
// CHECK: %{{.+}}, %{{.+}}, %[[XSIZES:.+]]:3, %[[XSTRIDES:.+]]:3 = memref.extract_strided_metadata %[[X]]
// CHECK: %[[SLOTS:.+]] = llvm.alloca
// CHECK: llvm.getelementptr %[[SLOTS]][2]
// CHECK: scf.for %[[I:.+]] = %{{.+}} to %[[XSIZES]]#0
// CHECK: arith.muli %[[I]], %[[XSTRIDES]]#0
// CHECK: llvm.getelementptr %[[SLOTS]][0]
// CHECK: llvm.getelementptr %[[SLOTS]][1]
// CHECK: call @tilecHostLaunch
// CHECK-NEXT: }
// CHECK-NEXT: call @tilecHostSynchronize()
// CHECK-NEXT: return %[[Y]]
module attributes {gpu.container_module} {
gpu.binary @t [#gpu.object<#nvvm.target<chip = "sm_90a">, properties = {"tilec.launch" = "{}"}, bin = "T">]
func.func @batched(%x: tensor<?x8x16xf16>) -> tensor<?x16x8xf16> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %x, %c0 : tensor<?x8x16xf16>
  %e = tensor.empty(%n) : tensor<?x16x8xf16>
  %r = tile.launch @t(%x : tensor<?x8x16xf16>) outs(%e : tensor<?x16x8xf16>)
      args [{arg = 0}, {arg = 1}, {arg = 0, dim = 1} ] batch [0, 1] -> tensor<?x16x8xf16>
  return %r : tensor<?x16x8xf16>
}
}

// -----

// An operand that is a strided view (a slice of a wider buffer): the host
// checks at run time that it is dense row-major and passes its index as the
// bad operand otherwise (the runtime then reports instead of launching).
// CHECK-LABEL: func.func @sliced
// CHECK: memref.subview
// CHECK: %[[INNER:.+]] = arith.cmpi eq, %[[STRIDES:.+]]#1, %{{.+}} : index
// CHECK: %[[D1:.+]] = arith.andi %{{.+}}, %{{.+}} : i1
// CHECK: arith.cmpi eq, %[[STRIDES]]#0, %{{.+}} : index
// CHECK: %[[DENSE:.+]] = arith.andi %[[D1]], %{{.+}} : i1
// CHECK: %[[BAD:.+]] = arith.select %[[DENSE]], %{{.+}}, %{{.+}} : i64
// CHECK: call @tilecHostLaunch(%{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}, %[[BAD]])
module attributes {gpu.container_module} {
gpu.binary @k [#gpu.object<#nvvm.target<chip = "sm_90a">, properties = {"tilec.launch" = "{}"}, bin = "K">]
func.func @sliced(%a: tensor<64x128xbf16>) -> tensor<64x64xbf16> {
  %s = tensor.extract_slice %a[0, 0] [64, 64] [1, 1] : tensor<64x128xbf16> to tensor<64x64xbf16>
  %e = tensor.empty() : tensor<64x64xbf16>
  %r = tile.launch @k(%s : tensor<64x64xbf16>) outs(%e : tensor<64x64xbf16>) args [{arg = 0}, {arg = 1} ] -> tensor<64x64xbf16>
  return %r : tensor<64x64xbf16>
}
}

// -----

// A strided memref whose leading stride the kernel takes (`{arg, stride}`,
// tile-from-linalg's form for subviews and bufferized layouts): the slot
// gets the stride, and the run-time check covers only the strides the
// kernel assumes, here the innermost, which must be 1.
// CHECK-LABEL: func.func @strided_rows
// CHECK: %{{.+}}, %{{.+}}, %{{.+}}:2, %[[STRIDES:.+]]:2 = memref.extract_strided_metadata %{{.+}} : memref<64x64xbf16, strided<[?, ?], offset: ?>>
// CHECK: %[[LD:.+]] = arith.index_cast %[[STRIDES]]#0 : index to i64
// CHECK: %[[SLOT:.+]] = llvm.getelementptr %{{.+}}[2]
// CHECK: llvm.store %[[LD]], %[[SLOT]]
// CHECK-NOT: arith.cmpi eq, %[[STRIDES]]#0
// CHECK: %[[INNER:.+]] = arith.cmpi eq, %[[STRIDES]]#1, %{{.+}} : index
// CHECK-NOT: arith.cmpi eq, %[[STRIDES]]#0
// CHECK: call @tilecHostLaunch
module attributes {gpu.container_module} {
gpu.binary @k [#gpu.object<#nvvm.target<chip = "sm_90a">, properties = {"tilec.launch" = "{}"}, bin = "K">]
func.func @strided_rows(%a: memref<64x64xbf16, strided<[?, ?], offset: ?>>, %c: memref<64x64xf32>) {
  tile.launch @k(%a : memref<64x64xbf16, strided<[?, ?], offset: ?>>) outs(%c : memref<64x64xf32>) args [{arg = 0}, {arg = 1}, {arg = 0, stride = 0}]
  return
}
}

// -----

// A launch with a fallback kernel: both kernels' constants, one call of
// tilecHostLaunchWithFallback (the runtime picks the kernel whose
// requirements the arguments meet).
// CHECK-DAG: llvm.mlir.global internal constant @__tilec_cubin_k("FAST")
// CHECK-DAG: llvm.mlir.global internal constant @__tilec_cubin_k_aligned0("ANY")
// CHECK-LABEL: func.func @with_fallback
// CHECK: %[[K:.+]] = llvm.mlir.addressof @__tilec_cubin_k : !llvm.ptr
// CHECK: %[[KJ:.+]] = llvm.mlir.addressof @__tilec_launch_k : !llvm.ptr
// CHECK: %[[F:.+]] = llvm.mlir.addressof @__tilec_cubin_k_aligned0 : !llvm.ptr
// CHECK: %[[FJ:.+]] = llvm.mlir.addressof @__tilec_launch_k_aligned0 : !llvm.ptr
// CHECK: call @tilecHostLaunchWithFallback(%[[K]], %{{.+}}, %[[KJ]], %{{.+}}, %[[F]], %{{.+}}, %[[FJ]], %{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}) : (!llvm.ptr, i64, !llvm.ptr, i64, !llvm.ptr, i64, !llvm.ptr, i64, !llvm.ptr, i64, i64) -> ()
// CHECK-NOT: call @tilecHostLaunch(
// CHECK-NOT: gpu.binary
module attributes {gpu.container_module} {
gpu.binary @k [#gpu.object<#nvvm.target<chip = "sm_90a">, properties = {"tilec.launch" = "{fast}"}, bin = "FAST">]
gpu.binary @k_aligned0 [#gpu.object<#nvvm.target<chip = "sm_90a">, properties = {"tilec.launch" = "{any}"}, bin = "ANY">]
func.func @with_fallback(%a: memref<64x64xbf16>, %c: memref<64x64xf32>) {
  tile.launch @k(%a : memref<64x64xbf16>) outs(%c : memref<64x64xf32>) args [{arg = 0}, {arg = 1}] fallback @k_aligned0
  return
}
}
