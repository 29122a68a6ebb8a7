// A gpu.binary with an object per chip: the `chip` option picks one, and
// without it the launch is refused.
// RUN: tilec-opt %s --one-shot-bufferize="bufferize-function-boundaries" -tile-lower-launches=chip=sm_80 | FileCheck %s
// RUN: not tilec-opt %s --one-shot-bufferize="bufferize-function-boundaries" -tile-lower-launches=chip=sm_89 2>&1 | FileCheck %s --check-prefix=MISSING

// CHECK: llvm.mlir.global internal constant @__tilec_cubin_two("EIGHTY")
// CHECK-NOT: NINETY
// MISSING: error: 'tile.launch' op launches gpu.binary @two, which has no object for sm_89 (objects for: sm_90a, sm_80)
module attributes {gpu.container_module} {
gpu.binary @two [#gpu.object<#nvvm.target<chip = "sm_90a">, properties = {"tilec.launch" = "{}"}, bin = "NINETY">,
                 #gpu.object<#nvvm.target<chip = "sm_80">, properties = {"tilec.launch" = "{}"}, bin = "EIGHTY">]
func.func @two_objects(%c: tensor<4xf32>) -> tensor<4xf32> {
  %r = tile.launch @two() outs(%c : tensor<4xf32>) args [{arg = 0} ] -> tensor<4xf32>
  return %r : tensor<4xf32>
}
}

// Launches on tensors must be bufferized first.
// RUN: not tilec-opt %s -tile-lower-launches=chip=sm_80 2>&1 | FileCheck %s --check-prefix=TENSORS
// TENSORS: error: 'tile.launch' op is on tensors: bufferize the host functions first (one-shot-bufferize{bufferize-function-boundaries})
