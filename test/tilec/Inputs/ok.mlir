tile.kernel @ok() {
  tile.return
}
