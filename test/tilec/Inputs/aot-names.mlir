// Parameters whose names the AOT header must rename (a C keyword, a name the
// header uses, a reserved one) or keep, and scalars of every type.
tile.kernel @aot_names(%x: !tile.ptr<f32>, %int: i32, %memset: i64,
                       %cur: i32, %_r: f16, %h: bf16, %d: f64)
    grid(ceildiv(%int, 4), mod(%memset, 3) + 1) warps(4) {
  tile.return
}
