/* Links against the host program of examples/host/mlp.mlir (tilec
   --emit=host) and libtilec-host-runtime, as a user's program does; the
   lit test only links it (running it needs a GPU:
   scripts/gpu/host_e2e_check.py). */
#include "tilec/Runtime/HostRuntime.h"

#include <stdint.h>
#include <stdio.h>

typedef struct {
  void *allocated, *aligned;
  int64_t offset, sizes[2], strides[2];
} MemRef2;
typedef struct {
  void *allocated, *aligned;
  int64_t offset, sizes[1], strides[1];
} MemRef1;

void _mlir_ciface_mlp(MemRef2 *y, MemRef2 *x, MemRef2 *w, MemRef1 *bias);

int main(void) {
  MemRef2 x = {0, 0, 0, {4, 256}, {256, 1}};
  MemRef2 w = {0, 0, 0, {256, 192}, {192, 1}};
  MemRef1 b = {0, 0, 0, {192}, {1}};
  MemRef2 y;
  x.allocated = x.aligned = tilecHostAlloc(4 * 256 * 2);
  w.allocated = w.aligned = tilecHostAlloc(256 * 192 * 2);
  b.allocated = b.aligned = tilecHostAlloc(192 * 4);
  _mlir_ciface_mlp(&y, &x, &w, &b);
  const char *error = tilecHostGetError();
  printf("%s\n", error ? error : "ok");
  return error != 0;
}
