// RUN: tilec-opt %s -verify-diagnostics --pass-pipeline='builtin.module(gpu.module(tile.kernel(tile-verify-async{max-steps=60})))' --remarks-filter=tile-verify-async --remark-format=emitRemark -o /dev/null

// Paths that run past max-steps check nothing and cost max-steps each: after
// four, tile-verify-async leaves a kernel's remaining paths out (a
// persistent attention kernel's 124 paths took 40 s of compile time, 120 of
// them past the limit). The hand-off of verify-async.mlir, whose 34 paths all
// verify with the default limit, with a limit of 60 steps.
gpu.module @handoff [#nvvm.target<chip = "sm_90a">] {
  // expected-remark @+1 {{the path needs more than 60 steps; the last 30 paths were not simulated after 4 ran past it}}
  tile.kernel @k(%n: i32) warps(4) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %full = tile.mbarrier_alloc count 1 : !tile.mbarrier<1>
    %empty = tile.mbarrier_alloc count 4 : !tile.mbarrier<1>
    tile.warp_specialize regs(232) {
      %r = scf.for %i = %c0 to %n step %c1 iter_args(%ph = %c0) -> (i32) : i32 {
        tile.mbarrier_wait %full[%c0], %ph : !tile.mbarrier<1>
        tile.mbarrier_arrive %empty[%c0] : !tile.mbarrier<1>
        %next = arith.xori %ph, %c1 : i32
        scf.yield %next : i32
      }
    } partition warps(4) regs(40) {
      %r = scf.for %i = %c0 to %n step %c1 iter_args(%ph = %c0) -> (i32) : i32 {
        %free = arith.xori %ph, %c1 : i32
        tile.mbarrier_wait %empty[%c0], %free : !tile.mbarrier<1>
        tile.mbarrier_arrive %full[%c0] : !tile.mbarrier<1>
        %next = arith.xori %ph, %c1 : i32
        scf.yield %next : i32
      }
    }
    tile.return
  }
}
