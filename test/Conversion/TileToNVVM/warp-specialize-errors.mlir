// RUN: tilec-opt %s -split-input-file -verify-diagnostics --pass-pipeline='builtin.module(gpu.module(convert-tile-to-nvvm))'

// Warp specialization resizes register files with setmaxnreg, an
// arch-specific sm_90a instruction: sm_90 (without `a`) has none.
gpu.module @g [#nvvm.target<chip = "sm_90", features = "+ptx86">] {
  tile.kernel @setmaxnreg_on_sm90() warps(4) {
    // expected-error @+1 {{needs setmaxnreg (sm_90a), which sm_90 does not have}}
    tile.warp_specialize regs(232) {
    } partition warps(4) regs(40) {
    }
    tile.return
  }
}
