// RUN: tilec-opt %s -split-input-file -verify-diagnostics --pass-pipeline='builtin.module(gpu.module(convert-tile-to-nvvm))'

// A slice whose layout (the same encoding on the smaller shape) puts
// elements on other threads would need data movement: rejected. Here a
// warp's 4 lanes along the columns cover 32 columns of the source but wrap
// over the 16 of the slice.
#b = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]>
gpu.module @g [#nvvm.target<chip = "sm_80", features = "+ptx70">] {
  tile.kernel @slice_other_threads() warps(4) {
    %x = arith.constant dense<1.0> : tensor<32x32xbf16, #b>
    // expected-error @+2 {{the slice's layout places elements on other threads than the source's}}
    // expected-error @+1 {{failed to legalize operation 'tile.extract_slice'}}
    %y = tile.extract_slice %x offsets [0, 16] : tensor<32x32xbf16, #b> -> tensor<32x16xbf16, #b>
    tile.return
  }
}
