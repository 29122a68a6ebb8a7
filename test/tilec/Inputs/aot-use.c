/* Uses AOT headers of emit-header.test from C and C++: two headers in one
 * translation unit, launch functions with the kernels' typed signatures. */
#include "gemm_bf16.h"
#include "scale_add_bf16.h"

typedef CUresult (*GemmLaunch)(CUstream, CUdeviceptr, CUdeviceptr, CUdeviceptr,
                               int32_t, int32_t, int32_t, int32_t, int32_t,
                               int32_t);
typedef CUresult (*ScaleAddLaunch)(CUstream, CUdeviceptr, CUdeviceptr,
                                   CUdeviceptr, float, int32_t, int32_t,
                                   int32_t, int32_t, int32_t);

GemmLaunch gemmLaunch = tilec_gemm_bf16_launch;
ScaleAddLaunch scaleAddLaunch = tilec_scale_add_bf16_launch;

CUresult launchBoth(CUstream stream, CUdeviceptr a, CUdeviceptr b,
                    CUdeviceptr c, int32_t n);
CUresult launchBoth(CUstream stream, CUdeviceptr a, CUdeviceptr b,
                    CUdeviceptr c, int32_t n) {
  CUresult err = tilec_gemm_bf16_load();
  if (err != CUDA_SUCCESS)
    return err;
  err = tilec_gemm_bf16_launch(stream, a, b, c, n, n, n, n, n, n);
  if (err != CUDA_SUCCESS)
    return err;
  return tilec_scale_add_bf16_launch(stream, a, b, c, 0.5f, n, n, n, n, n);
}
