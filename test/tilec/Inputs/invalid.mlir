tile.kernel @k() warps(6) {
  tile.return
}
