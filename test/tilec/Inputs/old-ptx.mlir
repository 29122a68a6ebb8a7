module attributes {gpu.container_module} {
  gpu.module @ok [#nvvm.target<O = 3, chip = "sm_89", features = "+ptx70">] {
    tile.kernel @ok() {
      tile.return
    }
  }
}
