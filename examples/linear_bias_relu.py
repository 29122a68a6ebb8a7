#!/usr/bin/env python3
"""Compiles examples/linear_bias_relu_bf16.mlir for this GPU, launches it on
torch tensors and checks it against torch: the last step of
docs/writing-a-kernel.md. Needs a GPU with torch, and the compiler library
(TILEC_LIBRARY) or, with `--from DIR`, the kernel compiled beforehand by
`tilec ... --emit=cubin -o DIR` (a GPU machine without LLVM). Prints the
error and the time; exits 1 when wrong.

    linear_bias_relu.py [--chip sm_90a] [--from DIR]
"""

import argparse
import os
import sys

import torch

import tilec
import tilec.runtime

HERE = os.path.dirname(os.path.abspath(__file__))


def load_kernel(args):
    """The kernel: compiled now (for this GPU or --chip), or read --from."""
    if args.from_dir:
        return tilec.runtime.Kernel(os.path.join(args.from_dir, "linear_bias_relu_bf16.json"))
    result = tilec.compile(os.path.join(HERE, "linear_bias_relu_bf16.mlir"), chip=args.chip)
    return result["linear_bias_relu_bf16"].launcher()


def check(kernel, M, N, K):
    """One launch on random inputs with y poisoned (NaN) first: y's largest
    error relative to a float32 reference, torch's bf16 error beside it,
    and the elements left unwritten."""
    x = torch.randn(M, K, device="cuda", dtype=torch.bfloat16)
    w = torch.randn(N, K, device="cuda", dtype=torch.bfloat16)
    b = torch.randn(N, device="cuda", dtype=torch.bfloat16)
    y = torch.full((M, N), float("nan"), device="cuda", dtype=torch.bfloat16)
    # Arguments in the kernel's parameter order; the grid comes from its
    # grid(...) rule, the launch checks every argument first.
    kernel(x, w, b, y, M, N, K, x.stride(0), w.stride(0), y.stride(0))
    torch.cuda.synchronize()
    ref = torch.relu(x.float() @ w.float().t() + b.float())
    scale = ref.abs().max()
    torch_y = torch.relu((x @ w.t()).float() + b.float())
    return dict(err=((y.float() - ref).abs().max() / scale).item(),
                torch_err=((torch_y - ref).abs().max() / scale).item(),
                unwritten=int(torch.isnan(y).sum().item()),
                launch=lambda: kernel(x, w, b, y, M, N, K, x.stride(0), w.stride(0),
                                      y.stride(0)))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--chip", default=None, help="default: the GPU's")
    ap.add_argument("--from", dest="from_dir", default=None,
                    help="a directory holding linear_bias_relu_bf16.{json,cubin}")
    kernel = load_kernel(ap.parse_args())

    result = check(kernel, 1000, 1000, 1000)  # not multiples of the 128 x 128 x 64 tiles
    start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record()
    for _ in range(20):
        result["launch"]()
    stop.record()
    torch.cuda.synchronize()
    print(f"{kernel.meta['chip']}: max relative error {result['err']:.2e}, "
          f"{start.elapsed_time(stop) / 20 * 1e3:.1f} us per launch")
    return 0 if result["err"] < 1e-2 and not result["unwritten"] else 1


if __name__ == "__main__":
    sys.exit(main())
