// RUN: tilec-opt %s -split-input-file --tile-attach-target=chip=sm_80 -verify-diagnostics
// RUN: sh -c 'tilec %s --chip=sm_80 --emit=ptx -o %t 2>&1; test $? -eq 1'

// Only kernels, functions, globals and gpu.modules may sit at the top of a
// module. An op there was translated to LLVM outside any function (a
// segfault in LLVM's IRBuilder: `make fuzz`, seed 0, mutant 5144 of
// test/Conversion/TileToNVVM/shared-memory-errors.mlir); it is an error.

gpu.module @g [#nvvm.target<chip = "sm_80", features = "+ptx70">] {
  // expected-error @+1 {{'tile.fence_async_shared' op is at the top level of a module, outside every kernel and function (a module holds tile.kernel, functions, globals and gpu.modules)}}
  tile.fence_async_shared
  tile.kernel @fence_on_sm80() warps(4) {
    tile.return
  }
}

// -----

// expected-error @+1 {{'tile.range' op is at the top level of a module}}
%0 = tile.range 0 to 16 : tensor<16xi32>
tile.kernel @k() warps(4) {
  tile.return
}
