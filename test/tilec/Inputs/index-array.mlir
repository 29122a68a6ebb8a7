tile.kernel @k() attributes {x = array<index: 1>} {
  tile.return
}
