// A loop that divides, takes a tanh and an exponential per element: the
// logit softcap of Gemma-2 (cap * tanh(s / cap)), exponentiated.
tile.kernel @softcap_loop(%x: !tile.ptr<f32> {tile.align = 16 : i64}, %n: i32, %cap: f32)
    grid(1) warps(4) {
  %c0 = arith.constant 0 : i32
  %c512 = arith.constant 512 : i32
  %v = tile.make_view %x[%n] strides [1] : !tile.ptr<f32>
  %capt = tile.splat %cap : tensor<512xf32>
  %zero = arith.constant dense<0.0> : tensor<512xf32>
  %r = scf.for %i = %c0 to %n step %c512 iter_args(%acc = %zero) -> (tensor<512xf32>) : i32 {
    %t = tile.load %v[%i] : !tile.view<?xf32, strides = [1]> -> tensor<512xf32>
    %q = arith.divf %t, %capt : tensor<512xf32>
    %h = math.tanh %q : tensor<512xf32>
    %s = arith.mulf %h, %capt : tensor<512xf32>
    %e = math.exp %s : tensor<512xf32>
    %a = arith.addf %acc, %e : tensor<512xf32>
    scf.yield %a : tensor<512xf32>
  }
  tile.store %r, %v[%c0] : tensor<512xf32>, !tile.view<?xf32, strides = [1]>
  tile.return
}
