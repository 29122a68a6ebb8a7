// The mma.sync m16n8k16 bf16 instruction ceiling under sustained load, with
// the operand data of ../shared/anchors/mma_ceiling.cu (bf16 1.0 / 0.0,
// constant: almost no bit toggles), with random bf16 operands, and with
// random operands whose mantissas change every 16 iterations (closer to a
// GEMM's data). Registers only, no
// memory traffic. Each mode runs back to back for a few seconds so that the
// GPU reaches its steady clock under the power cap; sample clocks and power
// beside it with nvidia-smi.
//
//   nvcc -arch=sm_90 -O3 bench/mma_power.cu -o mma_power
//   ./mma_power [seconds per mode] [mode: 0, 1, 2 or -1 for all]
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>
#define CHECK(x)                                                               \
  do {                                                                         \
    cudaError_t e = (x);                                                       \
    if (e != cudaSuccess) {                                                    \
      printf("%s: %s\n", #x, cudaGetErrorString(e));                           \
      return 1;                                                                \
    }                                                                          \
  } while (0)

constexpr int ILP = 8;

// MODE 0: the anchor's operands (bf16 1.0 / 0.0, constant); 1: random bf16
// pairs (exponent fixed to [0.5, 1), random sign and mantissa), constant;
// 2: the same random operands with new mantissas every 16 iterations (one
// XOR per register, so the instruction stream stays the anchor's).
template <int MODE>
__global__ void mma_loop(float *out, int iters, unsigned seed) {
  unsigned a[4], b[2];
  unsigned h = seed * 2654435761u ^ (blockIdx.x * 256 + threadIdx.x) * 40503u;
  auto next = [&]() {
    h ^= h << 13;
    h ^= h >> 17;
    h ^= h << 5;
    return h;
  };
  for (int i = 0; i < 4; ++i)
    a[i] = MODE == 0 ? (seed * (threadIdx.x + 1) * 2654435761u + i) & 0x3f803f80u
                     : (next() & 0x807f807fu) | 0x3f003f00u;
  for (int i = 0; i < 2; ++i)
    b[i] = MODE == 0 ? (seed * (threadIdx.x + 7) * 40503u + i) & 0x3f803f80u
                     : (next() & 0x807f807fu) | 0x3f003f00u;
  unsigned flip = next() & 0x007f007fu;
  float d[ILP][4] = {};
  for (int it = 0; it < iters; it += 16) {
#pragma unroll 4
    for (int k = 0; k < 16; ++k) {
#pragma unroll
      for (int j = 0; j < ILP; ++j)
        asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 "
                     "{%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
                     : "+f"(d[j][0]), "+f"(d[j][1]), "+f"(d[j][2]),
                       "+f"(d[j][3])
                     : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]),
                       "r"(b[1]));
    }
    if (MODE == 2) {
#pragma unroll
      for (int i = 0; i < 4; ++i)
        a[i] ^= flip;
      b[0] ^= flip;
      b[1] ^= flip;
      flip = (flip * 1664525u + 1013904223u) & 0x007f007fu;
    }
  }
  float s = 0;
  for (int j = 0; j < ILP; ++j)
    s += d[j][0] + d[j][1] + d[j][2] + d[j][3];
  out[blockIdx.x * blockDim.x + threadIdx.x] = s;
}

static void launch(int mode, int blocks, int threads, float *out, int iters,
                   unsigned seed) {
  if (mode == 0)
    mma_loop<0><<<blocks, threads>>>(out, iters, seed);
  else if (mode == 1)
    mma_loop<1><<<blocks, threads>>>(out, iters, seed);
  else
    mma_loop<2><<<blocks, threads>>>(out, iters, seed);
}

static const char *modeName(int mode) {
  return mode == 0   ? "anchor operands"
         : mode == 1 ? "random operands"
                     : "random operands, new mantissas every 16 iterations";
}

int main(int argc, char **argv) {
  double seconds = argc > 1 ? atof(argv[1]) : 5.0;
  int only = argc > 2 ? atoi(argv[2]) : -1;
  int sms;
  CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  int blocks = sms * 4, threads = 256, iters = 20000; // a multiple of 16
  float *out;
  CHECK(cudaMalloc(&out, blocks * threads * sizeof(float)));
  double flopPerLaunch =
      2.0 * 16 * 8 * 16 * ILP * (double)iters * blocks * (threads / 32);
  for (int mode = 0; mode < 3; ++mode) {
    if (only >= 0 && mode != only)
      continue;
    launch(mode, blocks, threads, out, 112, 1);
    CHECK(cudaDeviceSynchronize());
    cudaEvent_t e0, e1;
    cudaEventCreate(&e0);
    cudaEventCreate(&e1);
    // A short burst first (the anchor's measurement), then sustained.
    cudaEventRecord(e0);
    launch(mode, blocks, threads, out, iters, 2);
    cudaEventRecord(e1);
    CHECK(cudaEventSynchronize(e1));
    float ms;
    cudaEventElapsedTime(&ms, e0, e1);
    double burst = flopPerLaunch / ms / 1e9;
    printf("mode %d (%s): t=%.3f start\n", mode,
           modeName(mode),
           std::chrono::duration<double>(
               std::chrono::steady_clock::now().time_since_epoch())
               .count());
    fflush(stdout);
    auto t0 = std::chrono::steady_clock::now();
    int launches = 0;
    cudaEventRecord(e0);
    while (std::chrono::duration<double>(std::chrono::steady_clock::now() - t0)
               .count() < seconds) {
      for (int i = 0; i < 10; ++i)
        launch(mode, blocks, threads, out, iters, 3 + launches + i);
      launches += 10;
      CHECK(cudaDeviceSynchronize());
    }
    cudaEventRecord(e1);
    CHECK(cudaEventSynchronize(e1));
    CHECK(cudaGetLastError());
    cudaEventElapsedTime(&ms, e0, e1);
    double sustained = flopPerLaunch * launches / ms / 1e9;
    printf("mode %d (%s): burst %.1f TFLOP/s, sustained %.1f TFLOP/s over "
           "%.1f s (%d launches), t=%.3f end\n",
           mode, modeName(mode),
           burst, sustained, ms / 1e3, launches,
           std::chrono::duration<double>(
               std::chrono::steady_clock::now().time_since_epoch())
               .count());
    fflush(stdout);
  }
  return 0;
}
