// RUN: tilec-opt %s --tile-attach-target=chip=sm_90a | FileCheck %s
// RUN: tilec-opt %s --tile-attach-target="chip=sm_89 O=1" | FileCheck %s --check-prefix=SM89
// RUN: not tilec-opt %s --tile-attach-target=chip=sm_70 2>&1 | FileCheck %s --check-prefix=BAD

// Each kernel gets its own gpu.module named after it, with the PTX ISA
// version of the chip's TargetInfo.

// CHECK: module attributes {gpu.container_module}
// CHECK: gpu.module @first [#nvvm.target<O = 3, chip = "sm_90a", features = "+ptx86">]
// CHECK-NEXT: tile.kernel @first
// CHECK: gpu.module @second [#nvvm.target<O = 3, chip = "sm_90a", features = "+ptx86">]
// CHECK-NEXT: tile.kernel @second
// SM89: gpu.module @first [#nvvm.target<O = 1, chip = "sm_89", features = "+ptx84">]
// BAD: error: unknown chip 'sm_70'; expected one of sm_80, sm_86, sm_89, sm_90, sm_90a
tile.kernel @first() {
  tile.return
}
tile.kernel @second() {
  tile.return
}
