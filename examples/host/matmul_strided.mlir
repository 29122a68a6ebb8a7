// Matmuls on strided buffers, as bufferized frontends hand them over.
// @matmul_strided has one-shot bufferization's fully dynamic layouts
// (strided<[?, ?], offset: ?>): its caller passes windows of larger
// buffers. tile-from-linalg passes their row strides to the kernel and
// moves each base by its offset; the launch checks that the rows are
// contiguous (inner stride 1) and refuses the operand otherwise.
// @matmul_window takes the windows itself (memref.subview at dynamic
// offsets) and accumulates into C's window (beta = 1).
// matmul_strided_main.cpp calls both (scripts/gpu/host_e2e_check.py).
func.func @matmul_strided(%a: memref<?x?xbf16, strided<[?, ?], offset: ?>>,
                          %b: memref<?x?xbf16, strided<[?, ?], offset: ?>>,
                          %c: memref<?x?xf32, strided<[?, ?], offset: ?>>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%c : memref<?x?xf32, strided<[?, ?], offset: ?>>)
  linalg.matmul ins(%a, %b : memref<?x?xbf16, strided<[?, ?], offset: ?>>, memref<?x?xbf16, strided<[?, ?], offset: ?>>)
                outs(%c : memref<?x?xf32, strided<[?, ?], offset: ?>>)
  return
}

func.func @matmul_window(%abig: memref<?x?xbf16>, %b: memref<?x?xbf16>, %cbig: memref<?x?xf32>,
                         %row: index, %col: index, %m: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %k = memref.dim %b, %c0 : memref<?x?xbf16>
  %n = memref.dim %b, %c1 : memref<?x?xbf16>
  %a = memref.subview %abig[%row, %col] [%m, %k] [1, 1]
      : memref<?x?xbf16> to memref<?x?xbf16, strided<[?, 1], offset: ?>>
  %c = memref.subview %cbig[%row, %col] [%m, %n] [1, 1]
      : memref<?x?xf32> to memref<?x?xf32, strided<[?, 1], offset: ?>>
  linalg.matmul ins(%a, %b : memref<?x?xbf16, strided<[?, 1], offset: ?>>, memref<?x?xbf16>)
                outs(%c : memref<?x?xf32, strided<[?, 1], offset: ?>>)
  return
}
