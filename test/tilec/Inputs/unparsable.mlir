tile.kernel @k(%x: !tile.ptr<f32>) {
  %0 = tile.program_id w
  tile.return
}
