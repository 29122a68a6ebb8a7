#!/usr/bin/env bash
# The artifact bundle of a GPU machine in one command (`make gpu-artifacts`):
# every kernel the GPU checks and benchmarks run, compiled here (the GPU
# machine has no compiler) into one folder, by default .gpu/bundle (ignored
# by git), with one part per check:
#
#   examples/<chip>  examples/*.mlir (+ wgmma_rs)    scripts/gpu/gpu_check.py, wgmma_rs_check.py,
#                                                    linear_bias_relu_check.py
#   gemm/<chip>      tile.gemm variants              scripts/gpu/gemm_check.py
#   att/<chip>       tile.attention + tile variants  scripts/gpu/attention_check.py
#   block/           block programs + named ops      bench/block_programs.py, gpu_sweep.py
#   backward/        attention backward (+ the op)   scripts/gpu/attention_backward_check.py
#   python/          the tilec package's kernels     scripts/gpu/python_check.py, bmm_check.py,
#                    (+ bmm, grouped, training)      grouped_gemm_check.py, training_check.py
#   aot/<chip>       examples/gemm_bf16.mlir header  scripts/gpu/aot_runtime_check.sh
#   corpus/          corpus/*.mlir per chip          bench/corpus.py
#   split_k/         split-K GEMMs                   scripts/gpu/split_k_check.py
#   gemm_sweep/      the random sweep's kernels      scripts/gpu/gemm_sweep_check.py
#   batch_reduce/    tile.gemm's batch-reduce form   scripts/gpu/batch_reduce_check.py
#   shuffle/         tile.convert_layout in warps    scripts/gpu/layout_shuffle_check.py
#   lin/             tile-from-linalg's coverage     scripts/gpu/linalg_coverage_check.py
#   linalg/          the linalg f32/i8/fp8 kernels   scripts/gpu/linalg_lowp_check.py
#   host/            tilec --emit=host executables   scripts/gpu/host_e2e_check.py
#                    (needs llc-22, g++, CUDA's libcuda stub)
#   flex/            tilec.flex_attention's kernels  scripts/gpu/flex_check.py
#   decode/          tilec.attention_with_kvcache's  scripts/gpu/decode_check.py
#                    kernels
#   varlen/          tilec.attention_varlen's        scripts/gpu/varlen_check.py
#                    kernels
#   flex_tables/     tilec.flex_attention's with     scripts/gpu/flex_tables_check.py
#                    captured tensors
#
# The last eleven are what those checks' own build steps make (the checks
# keep them: `--build DIR` / `build DIR`).
#
# sm_80/sm_89 kernels are assembled for sm_90 so that their code paths run on
# an H100/H200 too. A GPU run needs the json and cubin of each kernel, not
# the PTX: the PTX is deleted, which keeps the bundle under the 64 MiB a
# device call carries (the script fails above it). commit.txt stamps the
# commit; scripts/gpu/run_all.sh runs every check from the bundle.
#
#   scripts/build/build_gpu_artifacts.sh [OUT]     (default .gpu/bundle)
#   PARTS="gemm att" scripts/build/build_gpu_artifacts.sh   (some parts only;
#                                                   the others are kept)
#   BUILD=<build dir> (default build): bin/tilec and lib/libtilec-c.so
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$root"
build="${BUILD:-$root/build}"
tilec="$build/bin/tilec"
export TILEC_LIBRARY="${TILEC_LIBRARY:-$build/lib/libtilec-c.so}"
out="$(mkdir -p "${1:-.gpu/bundle}" && cd "${1:-.gpu/bundle}" && pwd)"
all_parts="examples gemm att block backward python aot corpus split_k gemm_sweep batch_reduce shuffle lin linalg host flex decode varlen flex_tables"
parts="${PARTS:-$all_parts}"
limit_mib=64

for part in $parts; do
  echo "== $part" >&2
  start=$SECONDS
  rm -rf "${out:?}/$part"
  mkdir -p "$out/$part"
  case "$part" in
    examples)
      # A chip an example cannot target (fp8 on sm_80) is listed, not fatal.
      for chip in sm_80 sm_89 sm_90a; do
        arch=sm_90
        [ "$chip" = sm_90a ] && arch=sm_90a
        for ex in examples/*.mlir; do
          "$tilec" "$ex" --chip="$chip" --cubin-arch="$arch" --emit=cubin \
            -o "$out/examples/$chip" 2> /dev/null \
            || echo "$chip $(basename "$ex")" >> "$out/examples/not_built.txt"
        done
      done
      "$tilec" test/Target/Inputs/wgmma_rs.mlir --chip=sm_90a --emit=cubin -o "$out/examples/sm_90a"
      # scripts/gpu/attention_block_check.py's FlashAttention-2 block program.
      "$tilec" test/Target/Inputs/flash_attention_block.mlir --chip=sm_90a --emit=cubin \
        -o "$out/examples/sm_90a" 2> /dev/null ;;
    gemm) python3 -m scripts.build.build_gemm_artifacts --tilec "$tilec" --chips sm_80,sm_90a \
            --out "$out/gemm" ;;
    att) python3 -m scripts.build.build_attention_artifacts --tilec "$tilec" --out "$out/att" ;;
    block) python3 -m scripts.build.build_block_artifacts --tilec "$tilec" --out "$out/block" ;;
    backward)
      python3 -m scripts.build.build_backward_artifacts --tilec "$tilec" --op --out "$out/backward"
      cp "$build/lib/libtilec-rules.so" "$out/backward/" ;;
    python) python3 -m scripts.build.build_python_artifacts --bmm --grouped --training \
              --attention-scales 0.1 --out "$out/python" ;;
    aot) BUILD="$build" scripts/build/build_aot_artifacts.sh "$out/aot" ;;
    corpus) python3 -m scripts.build.build_corpus_artifacts --tilec "$tilec" \
              --chips sm_90a,sm_80 --out "$out/corpus" ;;
    split_k) python3 -m scripts.gpu.split_k_check --build "$out/split_k" ;;
    gemm_sweep) python3 -m scripts.gpu.gemm_sweep_check --build "$out/gemm_sweep" ;;
    batch_reduce) python3 -m scripts.gpu.batch_reduce_check build "$out/batch_reduce" --tilec "$tilec" ;;
    shuffle) python3 -m scripts.gpu.layout_shuffle_check build --out "$out/shuffle" --tilec "$tilec" ;;
    lin) python3 -m scripts.gpu.linalg_coverage_check build --artifacts "$out/lin" \
           --bindir "$build/bin" 2> /dev/null ;;
    linalg) python3 -m scripts.gpu.linalg_lowp_check --build --art "$out/linalg" --bindir "$build/bin" ;;
    host) python3 -m scripts.gpu.host_e2e_check build --out "$out/host" --build-dir "$build"
          find "$out/host" \( -name '*.o' -o -name '*.ll' \) -delete ;;
    flex) python3 -m scripts.gpu.flex_check --build "$out/flex" ;;
    decode) python3 -m scripts.gpu.decode_check --build "$out/decode" ;;
    varlen) python3 -m scripts.gpu.varlen_check --build "$out/varlen" ;;
    flex_tables) python3 -m scripts.gpu.flex_tables_check --build "$out/flex_tables" ;;
    *) echo "unknown part $part ($all_parts)" >&2
       exit 2 ;;
  esac
  # aot keeps its PTX beside the header (the runtime check reads the cubin);
  # the other parts need no PTX and no MLIR sources on the GPU machine
  # (layout_shuffle's exchanges.json and the checks' sources stay).
  [ "$part" = aot ] || find "$out/$part" -name '*.ptx' -delete
  echo "== $part: $((SECONDS - start)) s, $(du -sh "$out/$part" | cut -f1)" >&2
done
python3 -c 'import sys; from scripts.harness.records import stamp_commit; stamp_commit(sys.argv[1])' "$out"
size_kib=$(du -sk "$out" | cut -f1)
echo "bundle in $out: $((size_kib / 1024)) MiB, commit $(cat "$out/commit.txt")"
if [ "$size_kib" -gt $((limit_mib * 1024)) ]; then
  echo "the bundle is over $limit_mib MiB: a device call cannot carry it" >&2
  exit 1
fi
