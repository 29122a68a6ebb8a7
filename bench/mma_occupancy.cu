// How close can mma.sync m16n8k16 bf16 get to its ceiling with few warps per
// scheduler? Each warp runs the inner loop of a 64x64 warp tile (4 A and 8 B
// fragments, 32 independent accumulators) from registers only.
//   nvcc -O3 -gencode=arch=compute_90,code=sm_90 mma_occupancy.cu
#include <cstdio>
#include <cuda_runtime.h>

template <int MT, int NT>
__global__ void __launch_bounds__(256) warpTile(float *out, int iters, unsigned seed) {
  unsigned a[MT][4], b[NT][2];
  for (int i = 0; i < MT; ++i)
    for (int j = 0; j < 4; ++j) a[i][j] = (seed * (threadIdx.x + 1 + i) * 2654435761u + j) & 0x3f803f80u;
  for (int i = 0; i < NT; ++i)
    for (int j = 0; j < 2; ++j) b[i][j] = (seed * (threadIdx.x + 7 + i) * 40503u + j) & 0x3f803f80u;
  float d[MT][NT][4] = {};
  for (int it = 0; it < iters; ++it) {
#pragma unroll
    for (int m = 0; m < MT; ++m)
#pragma unroll
      for (int n = 0; n < NT; ++n)
        asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
                     : "+f"(d[m][n][0]), "+f"(d[m][n][1]), "+f"(d[m][n][2]), "+f"(d[m][n][3])
                     : "r"(a[m][0]), "r"(a[m][1]), "r"(a[m][2]), "r"(a[m][3]), "r"(b[n][0]), "r"(b[n][1]));
  }
  float s = 0;
  for (int m = 0; m < MT; ++m)
    for (int n = 0; n < NT; ++n) s += d[m][n][0] + d[m][n][3];
  out[blockIdx.x * blockDim.x + threadIdx.x] = s;
}

template <int MT, int NT>
static void run(const char *name, int blocksPerSM, int threads, int sms, float *out) {
  int blocks = sms * blocksPerSM, iters = 4000;
  warpTile<MT, NT><<<blocks, threads>>>(out, 10, 1);
  cudaDeviceSynchronize();
  cudaEvent_t e0, e1;
  cudaEventCreate(&e0);
  cudaEventCreate(&e1);
  float best = 0;
  for (int r = 0; r < 3; ++r) {
    cudaEventRecord(e0);
    warpTile<MT, NT><<<blocks, threads>>>(out, iters, r + 2);
    cudaEventRecord(e1);
    cudaEventSynchronize(e1);
    float ms;
    cudaEventElapsedTime(&ms, e0, e1);
    double flop = 2.0 * 16 * 8 * 16 * MT * NT * (double)iters * blocks * (threads / 32);
    best = std::max(best, (float)(flop / ms / 1e9));
  }
  printf("%-34s warps/SM %3d: %7.1f TFLOP/s (%s)\n", name, blocksPerSM * threads / 32, best,
         cudaGetErrorString(cudaGetLastError()));
}

int main() {
  int sms;
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
  float *out;
  cudaMalloc(&out, sms * 8 * 1024 * sizeof(float));
  run<4, 8>("64x64 warp tile", 1, 256, sms, out);
  run<4, 8>("64x64 warp tile", 2, 128, sms, out);
  run<4, 8>("64x64 warp tile", 1, 128, sms, out);
  run<4, 4>("64x32 warp tile", 2, 256, sms, out);
  run<2, 8>("32x64 warp tile", 2, 256, sms, out);
  run<2, 4>("32x32 warp tile", 4, 256, sms, out);
  run<4, 8>("64x64 warp tile", 4, 256, sms, out);
  return 0;
}
