// The host side in stock mlir-opt with the plugin: tile.launch bufferizes
// with upstream's one-shot-bufferize, and tilec-host-to-llvm lowers a
// function with a launch of a (hand-written) gpu.binary to the LLVM dialect.
// RUN: mlir-opt-22 --load-dialect-plugin=%tilec_plugin --load-pass-plugin=%tilec_plugin \
// RUN:   --pass-pipeline='builtin.module(tilec-host-to-llvm)' %s | FileCheck %s

// CHECK: llvm.mlir.global internal constant @__tilec_cubin_k("CUBIN")
// CHECK: llvm.func @scale(
// CHECK: llvm.call @_mlir_memref_to_llvm_alloc(
// CHECK: llvm.call @tilecHostLaunch(
// CHECK: llvm.call @tilecHostSynchronize()
// CHECK: llvm.func @_mlir_ciface_scale(
module attributes {gpu.container_module} {
gpu.binary @k [#gpu.object<#nvvm.target<chip = "sm_90a">, properties = {"tilec.launch" = "{}"}, bin = "CUBIN">]
func.func @scale(%x: tensor<?xf32>) -> tensor<?xf32> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %x, %c0 : tensor<?xf32>
  %e = tensor.empty(%n) : tensor<?xf32>
  %r = tile.launch @k(%x : tensor<?xf32>) outs(%e : tensor<?xf32>)
      args [{arg = 0}, {arg = 1}, {arg = 0, dim = 0} ] -> tensor<?xf32>
  return %r : tensor<?xf32>
}
}
