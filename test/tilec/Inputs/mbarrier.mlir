tile.kernel @bars() grid(1) warps(4) {
  %full = tile.mbarrier_alloc count 1 : !tile.mbarrier<3>
  tile.return
}
