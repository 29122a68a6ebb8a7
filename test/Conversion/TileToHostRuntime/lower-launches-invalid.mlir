// RUN: tilec-opt %s -split-input-file -verify-diagnostics --one-shot-bufferize="bufferize-function-boundaries" -tile-lower-launches

// What tile-lower-launches refuses, with a diagnostic each.

module {
tile.kernel @k(%c: !tile.ptr<f32>) {
  tile.return
}
func.func @not_compiled(%c: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'tile.launch' op launches @k, a tile.kernel that is not compiled yet: compile the kernels into gpu.binary ops first (tilec --emit=host does)}}
  %r = tile.launch @k() outs(%c : tensor<4xf32>) args [{arg = 0} ] -> tensor<4xf32>
  return %r : tensor<4xf32>
}
}

// -----

func.func @no_binary(%c: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'tile.launch' op launches @nothing, but no gpu.binary of the module has that name}}
  %r = tile.launch @nothing() outs(%c : tensor<4xf32>) args [{arg = 0} ] -> tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

module attributes {gpu.container_module} {
gpu.binary @two [#gpu.object<#nvvm.target<chip = "sm_90a">, properties = {"tilec.launch" = "{}"}, bin = "NINETY">,
                 #gpu.object<#nvvm.target<chip = "sm_80">, properties = {"tilec.launch" = "{}"}, bin = "EIGHTY">]
func.func @two_objects(%c: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'tile.launch' op launches gpu.binary @two, which holds 2 objects; pick one with the pass's chip option (objects for: sm_90a, sm_80)}}
  %r = tile.launch @two() outs(%c : tensor<4xf32>) args [{arg = 0} ] -> tensor<4xf32>
  return %r : tensor<4xf32>
}
}

// -----

module attributes {gpu.container_module} {
gpu.binary @ptx [#gpu.object<#nvvm.target<chip = "sm_90a">, properties = {"tilec.launch" = "{}"}, assembly = ".version 8.0">]
func.func @assembly(%c: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'tile.launch' op launches gpu.binary @ptx, whose object is not a cubin or fatbin (format assembly)}}
  %r = tile.launch @ptx() outs(%c : tensor<4xf32>) args [{arg = 0} ] -> tensor<4xf32>
  return %r : tensor<4xf32>
}
}

// -----

module attributes {gpu.container_module} {
gpu.binary @bare [#gpu.object<#nvvm.target<chip = "sm_90a">, bin = "CUBIN">]
func.func @no_metadata(%c: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'tile.launch' op launches gpu.binary @bare, whose object has no launch metadata (a `tilec.launch` string in its properties)}}
  %r = tile.launch @bare() outs(%c : tensor<4xf32>) args [{arg = 0} ] -> tensor<4xf32>
  return %r : tensor<4xf32>
}
}

// -----

module attributes {gpu.container_module} {
gpu.binary @k [#gpu.object<#nvvm.target<chip = "sm_90a">, properties = {"tilec.launch" = "{}"}, bin = "K">]
func.func @sub_byte(%c: tensor<8xi4>) -> tensor<8xi4> {
  // expected-error @+1 {{'tile.launch' op operand element type 'i4' is not a whole number of bytes}}
  %r = tile.launch @k() outs(%c : tensor<8xi4>) args [{arg = 0} ] -> tensor<8xi4>
  return %r : tensor<8xi4>
}
}
