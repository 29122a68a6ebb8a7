"""tilec.gemm / tilec.attention argument checking, kernel lookup and the
launch arguments, with tensor-like stand-ins (no torch, no GPU)."""

import os

import pytest

import tilec
from fake_cuda import contiguous_strides
from overhead_bench import write_kernel
from tilec import artifacts, kernels, op_gemm, ops
from tilec.kernels import gemm_config_suffix, gemm_name, gemm_source
from tilec.tensors import describe

BASE = 0x7F0000000000  # a 256-byte aligned fake device address


class FakeTensor:
    """The attributes of a torch tensor that tilec reads."""

    def __init__(self, shape, dtype="bfloat16", strides=None, offset=0, device="cuda:0"):
        self.shape = tuple(shape)
        if strides is None:
            strides = contiguous_strides(self.shape)
        self._strides = tuple(strides)
        self.dtype = f"torch.{dtype}"
        self._ptr = BASE + offset
        self.device = device

    def stride(self):
        return self._strides

    def data_ptr(self):
        return self._ptr


class FakeCupyArray:
    """A CuPy-like array: only __cuda_array_interface__, byte strides."""

    def __init__(self, shape, typestr="<f2", strides=None, ptr=BASE):
        self.__cuda_array_interface__ = {"shape": shape, "typestr": typestr,
                                         "strides": strides, "data": (ptr, False), "version": 3}


def gemm_metadata(name, chip="sm_90a", cubin_arch="sm_90a", extra=()):
    """Launch metadata shaped like the compiler's for a GEMM variant."""
    params = [{"name": "A", "kind": "pointer", "dtype": "bf16", "align": 16},
              {"name": "B", "kind": "pointer", "dtype": "bf16", "align": 16},
              {"name": "C", "kind": "pointer", "dtype": "bf16"}]
    params += list(extra)
    params += [{"name": n, "kind": "scalar", "dtype": "i32"} for n in ("M", "N", "K")]
    params += [{"name": "lda", "kind": "scalar", "dtype": "i32", "divisibility": 8},
               {"name": "ldb", "kind": "scalar", "dtype": "i32", "divisibility": 8},
               {"name": "ldc", "kind": "scalar", "dtype": "i32"}]
    return {"kernel": name, "chip": chip, "cubin_arch": cubin_arch, "block": [384, 1, 1],
            "cluster": [1, 1, 1], "grid": ["ceildiv(M, 128) * ceildiv(N, 256)"],
            "smem_bytes": 1024, "persistent": True, "params": params,
            "tensor_maps": [{"base": "A", "box": [64, 128], "dtype": "bf16", "elem_bytes": 2,
                             "index": 9, "sizes": ["K", "M"], "strides": [1, "lda"],
                             "swizzle": 128}],
            "tilec_version": tilec.__version__}


def write_artifact(directory, name, source, meta, chip="sm_90a"):
    """A precompiled kernel as build_python_artifacts writes it."""
    write_kernel(directory, chip, name, meta, source)


@pytest.fixture
def launches(patch_host):
    """Replaces the GPU launch, allocation and device query; records launch
    arguments. No plans are made (they need the runtime): every call goes
    through the checked path and launch._launch."""
    calls = []
    patch_host("device_capability", lambda index=None: (9, 0))
    patch_host("_launch", lambda launcher, args, first, device: calls.append((launcher, args)))
    patch_host("_make_plan", lambda *args, **kwargs: None)

    def allocate(like, shape, dtype, row_quantum=1):
        strides = None
        if len(shape) == 2:
            rows, cols = shape
            strides = (-(-cols // row_quantum) * row_quantum if rows > 1 else cols, 1)
        return FakeTensor(shape, {"bf16": "bfloat16", "f16": "float16", "f32": "float32"}[dtype],
                          strides=strides)

    patch_host("_allocator", lambda *args, **kwargs: lambda: allocate(*args, **kwargs))
    return calls


@pytest.fixture(autouse=True)
def default_config(patch_host, request):
    """Tests of argument handling and launching use the chip's default
    configuration; the shape-class dispatch has its own tests."""
    if "dispatch" not in request.node.name and "tma_store" not in request.node.name:
        patch_host("gemm_shape_config", lambda *args, **kwargs: None)
        patch_host("gemm_dispatch_config", lambda *args, **kwargs: None)


@pytest.mark.parametrize("shape,suffix", [
    ((4096, 4096, 4096), ""),
    ((128, 8192, 8192), "_block_n64"),
    ((512, 4096, 4096), "_block_n128"),
    ((4096, 4095, 4096), "_tma_store0"),
])
def test_shape_class_dispatch(tmp_path, launches, shape, suffix):
    """sm_90a: narrow N tiles when the default tiles would leave SMs idle; no
    TMA-store epilogue when N is not a multiple of 8."""
    m, n, k = shape
    base, _ = gemm_source()
    name = base + suffix
    _, source = gemm_source(config=kernels.gemm_shape_config(m, n, k, "sm_90a"), name=name)
    write_artifact(str(tmp_path), name, source, gemm_metadata(name))
    b = FakeTensor((k, n), strides=((n + 7) // 8 * 8, 1))
    tilec.gemm(FakeTensor((m, k)), b, chip="sm_90a", artifacts=str(tmp_path))
    assert launches[0][0].name == name


def test_dispatch_falls_back_to_the_unsplit_class(tmp_path, launches, monkeypatch):
    """Artifacts with a shape class but not the split-K variant the rule
    picks, and no compiler: the class runs unsplit (not the default tiles)."""
    from tilec import _capi
    m, n, k = 1, 2048, 14336
    split = kernels.gemm_shape_config(m, n, k, "sm_80", can_swap_ab=True, can_split_k=True)
    assert split["split_k"] == 3  # 32 programs on sm_80's 108 SMs
    unsplit = {f: v for f, v in split.items() if f != "split_k"}
    name = gemm_name(b_layout="col") + gemm_config_suffix(unsplit)
    _, source = gemm_source(b_layout="col", config=unsplit, name=name)
    write_artifact(str(tmp_path), name, source, gemm_metadata(name, "sm_80", "sm_90"), "sm_80")
    monkeypatch.setenv("TILEC_LIBRARY", str(tmp_path / "missing.so"))
    _capi.reset_library()
    try:
        b = FakeTensor((k, n), strides=(1, k))
        tilec.gemm(FakeTensor((m, k)), b, chip="sm_80", artifacts=str(tmp_path))
        assert [launcher.name for launcher, _ in launches] == [name]
    finally:
        monkeypatch.undo()
        _capi.reset_library()


def test_dispatch_falls_back_to_the_default_gemm(tmp_path, launches, monkeypatch):
    """Artifacts without a shape class's variant and no compiler: the
    default kernel runs (the variant is only faster); a config the caller
    asked for is not replaced."""
    from tilec import _capi
    name, source = gemm_source()
    write_artifact(str(tmp_path), name, source, gemm_metadata(name))
    monkeypatch.setenv("TILEC_LIBRARY", str(tmp_path / "missing.so"))
    _capi.reset_library()
    try:
        a, b = FakeTensor((128, 8192)), FakeTensor((8192, 8192))
        assert kernels.gemm_shape_config(128, 8192, 8192, "sm_90a") == {"block_n": 64}
        tilec.gemm(a, b, chip="sm_90a", artifacts=str(tmp_path))
        assert [launcher.name for launcher, _ in launches] == [name]
        with pytest.raises(tilec.KernelNotAvailableError, match="_block_n64 for sm_90a"):
            tilec.gemm(a, b, chip="sm_90a", artifacts=str(tmp_path), config={"block_n": 64})
    finally:
        monkeypatch.undo()
        _capi.reset_library()


def test_decode_shape_dispatch_mma_sync(tmp_path, launches):
    """sm_80: decode shapes run transposed too, on mma.sync tiles."""
    config = kernels.gemm_shape_config(1, 4096, 4096, "sm_80", can_swap_ab=True)
    assert config == {"block_k": 64, "block_m": 16, "block_n": 64, "stages": 8, "swap_ab": 1,
                      "warps": 4}
    assert kernels.gemm_shape_config(48, 4096, 4096, "sm_80", can_swap_ab=True)["block_m"] == 32
    assert kernels.gemm_shape_config(65, 4096, 4096, "sm_80", can_swap_ab=True) is None
    assert kernels.gemm_shape_config(1, 4096, 4096, "sm_80") is None


@pytest.mark.parametrize("shape,suffix", [
    ((1, 4096, 4096), "_block_k128_block_m16_block_n64_swap_ab1_tma_store0_warps4"),
    ((33, 8192, 4096), "_block_k64_block_m64_block_n128_swap_ab1_tma_store0_warps8"),
    ((64, 1024, 4096), "_block_k128_block_m16_block_n64_swap_ab1_tma_store0_warps4"),
    ((129, 257, 8200), "_block_k128_block_m16_block_n64_swap_ab1_tma_store0_warps4"),
])
def test_decode_shape_dispatch(tmp_path, launches, shape, suffix):
    """sm_90a: a column-major (nn.Linear) b lets decode shapes run
    transposed (swap_ab), the token tile narrowed where the programs would
    not cover half the SMs; a row-major b of the same shape cannot."""
    m, n, k = shape
    base, _ = gemm_source(b_layout="col")
    name = base + suffix
    config = kernels.gemm_shape_config(m, n, k, "sm_90a", can_swap_ab=True)
    assert config["swap_ab"] == 1
    _, source = gemm_source(b_layout="col", config=config, name=name)
    write_artifact(str(tmp_path), name, source, gemm_metadata(name))
    b = FakeTensor((k, n), strides=(1, k))  # w.t() of an N x K weight
    tilec.gemm(FakeTensor((m, k)), b, chip="sm_90a", artifacts=str(tmp_path))
    assert launches[0][0].name == name
    assert "swap_ab" not in (kernels.gemm_shape_config(m, n, k, "sm_90a") or {})


@pytest.fixture
def gemm_artifacts(tmp_path):
    """An artifacts directory with the plain bf16 GEMM for sm_90a."""
    name, source = gemm_source()
    write_artifact(str(tmp_path), name, source, gemm_metadata(name))
    return str(tmp_path)


def params_of(call):
    """Launch arguments as a dict of parameter names (tensors as pointers)."""
    launcher, args = call
    names = [p["name"] for p in launcher.params]
    return {n: (a.ptr if hasattr(a, "ptr") else a) for n, a in zip(names, args)}


def test_gemm_launches_with_metadata_order(launches, gemm_artifacts):
    a = FakeTensor((100, 72))
    b = FakeTensor((72, 40))
    out = tilec.gemm(a, b, artifacts=gemm_artifacts)
    assert out.shape == (100, 40)
    assert len(launches) == 1
    p = params_of(launches[0])
    assert (p["M"], p["N"], p["K"], p["lda"], p["ldb"], p["ldc"]) == (100, 40, 72, 72, 40, 40)
    assert p["A"] == a.data_ptr() and p["B"] == b.data_ptr()
    assert launches[0][0].name == gemm_name()


def test_kernels_are_resolved_once(launches, gemm_artifacts, monkeypatch):
    a, b = FakeTensor((64, 64)), FakeTensor((64, 64))
    tilec.gemm(a, b, artifacts=gemm_artifacts)
    monkeypatch.setattr(artifacts, "find", lambda *args: pytest.fail("looked up again"))
    tilec.gemm(a, b, artifacts=gemm_artifacts)
    assert len(launches) == 2 and launches[0][0] is launches[1][0]


def test_artifacts_from_environment(launches, gemm_artifacts, monkeypatch):
    monkeypatch.setenv("TILEC_ARTIFACTS", gemm_artifacts)
    tilec.gemm(FakeTensor((8, 16)), FakeTensor((16, 8)))
    assert len(launches) == 1


def test_padded_leading_dimensions(launches, gemm_artifacts):
    """Odd sizes work with rows padded to 16 bytes (views of wider buffers)."""
    a = FakeTensor((127, 33), strides=(40, 1))
    b = FakeTensor((33, 65), strides=(72, 1))
    out = FakeTensor((127, 65), strides=(65, 1))
    tilec.gemm(a, b, out=out, artifacts=gemm_artifacts)
    p = params_of(launches[0])
    assert (p["lda"], p["ldb"], p["ldc"]) == (40, 72, 65)


def test_single_row_gets_an_aligned_leading_dimension(launches, gemm_artifacts):
    tilec.gemm(FakeTensor((1, 33)), FakeTensor((33, 64)), artifacts=gemm_artifacts)
    assert params_of(launches[0])["lda"] == 40


def test_column_major_b_selects_the_bcol_variant(launches, tmp_path):
    name, source = gemm_source(b_layout="col")
    write_artifact(str(tmp_path), name, source, gemm_metadata(name))
    w = FakeTensor((48, 64))  # N x K weight
    b = FakeTensor((64, 48), strides=(1, 64))  # its transpose: K x N, column-major
    tilec.gemm(FakeTensor((16, 64)), b, artifacts=str(tmp_path))
    assert launches[0][0].name == name == "gemm_bf16_bf16_bcol"
    assert params_of(launches[0])["ldb"] == 64
    assert w.shape == (48, 64)


def test_unaligned_operands_take_the_any_strides_variant(launches, library, gemm_artifacts):
    """A base that is not 16-byte aligned, or a row stride that is not whole
    16-byte chunks, takes the kernel compiled with ``aligned = 0`` (plain
    loads, any strides; compiled here, as no artifact has it) in the shape
    class the rule gives the product (kernels.gemm_unaligned_config),
    picked at the call; aligned operands keep the fast kernel."""
    tilec.gemm(FakeTensor((64, 64), offset=2), FakeTensor((64, 64)), artifacts=gemm_artifacts)
    tilec.gemm(FakeTensor((64, 33)), FakeTensor((33, 64)), artifacts=gemm_artifacts)
    tilec.gemm(FakeTensor((64, 64)), FakeTensor((64, 64)), artifacts=gemm_artifacts)
    names = [launcher.name for launcher, _ in launches]
    classes = [kernels.gemm_unaligned_config(64, 64, k, "sm_90a", 132) for k in (64, 33)]
    assert all(c["aligned"] == 0 and "tma_store" not in c for c in classes)
    assert names == [gemm_name() + gemm_config_suffix(c) for c in classes] + [gemm_name()]
    unaligned = launches[0][0].meta
    assert not any(p.get("align") or p.get("divisibility") for p in unaligned["params"])
    assert not unaligned["tensor_maps"]
    assert params_of(launches[1])["lda"] == 33


def test_unaligned_shape_class_rule():
    """The any-strides variant takes the tiles and split-K of the rule's
    untransposed class (H100, bench/results/2026-12-07_staged_wgmma_h100.json:
    1000 x 999 x 1001 on 128 x 64 tiles 34.5 TFLOP/s against 20.0 on the
    default tiles; 129 x 257 x 8200 split in 13 ranges 4.9 against 1.2),
    never the transposed product or a TMA store, which need aligned
    operands; fp8 with scales and int8 do not split K."""
    odd = kernels.gemm_unaligned_config(1000, 999, 1001, "sm_90a", 132)
    assert odd == {"aligned": 0, "block_n": 64}
    long_k = kernels.gemm_unaligned_config(129, 257, 8200, "sm_90a", 132)
    assert long_k["aligned"] == 0 and long_k["split_k"] > 1 and "swap_ab" not in long_k
    assert kernels.gemm_unaligned_config(4095, 4095, 4095, "sm_90a", 132) == {"aligned": 0}
    assert "split_k" not in kernels.gemm_unaligned_config(129, 257, 8200, "sm_90a", 132,
                                                          dtype="e4m3", scales=True)
    assert "split_k" not in kernels.gemm_unaligned_config(129, 257, 8200, "sm_90a", 132,
                                                          dtype="i8")


def test_unaligned_class_falls_back_to_the_any_strides_default(tmp_path, launches,
                                                               monkeypatch):
    """Artifacts with only the plain any-strides kernel (no compiler): the
    class the rule picks for unaligned operands falls back to it, never to
    the aligned default kernel (which would read the operands wrongly)."""
    from tilec import _capi
    m, n, k = 129, 257, 8200
    name = gemm_name() + "_aligned0"
    _, source = gemm_source(config={"aligned": 0}, name=name)
    meta = gemm_metadata(name)
    meta["tensor_maps"] = []
    for param in meta["params"]:
        param.pop("align", None)
        param.pop("divisibility", None)
    write_artifact(str(tmp_path), name, source, meta)
    write_artifact(str(tmp_path), gemm_name(), source, gemm_metadata(gemm_name()))
    monkeypatch.setenv("TILEC_LIBRARY", str(tmp_path / "missing.so"))
    _capi.reset_library()
    try:
        tilec.gemm(FakeTensor((m, k), offset=2), FakeTensor((k, n)), chip="sm_90a",
                   artifacts=str(tmp_path))
        assert [launcher.name for launcher, _ in launches] == [name]
    finally:
        monkeypatch.undo()
        _capi.reset_library()


def test_out_without_tma_store_takes_any_row_stride(tmp_path, launches):
    """Regression: an out whose rows are not whole 16-byte chunks (N = 257)
    took the any-strides kernel (plain loads: 20x slower at 129 x 257 x
    8200) even where the shape class stores C by the threads (no TMA
    store), which takes any out."""
    m, n, k = 129, 257, 8200
    config = kernels.gemm_shape_config(m, n, k, "sm_90a", can_swap_ab=True)
    assert config["tma_store"] == 0
    name = gemm_name(b_layout="col") + gemm_config_suffix(config)
    _, source = gemm_source(b_layout="col", config=config, name=name)
    write_artifact(str(tmp_path), name, source, gemm_metadata(name))
    b = FakeTensor((k, n), strides=(1, k))
    tilec.gemm(FakeTensor((m, k)), b, out=FakeTensor((m, n)), chip="sm_90a",
               artifacts=str(tmp_path))
    assert launches[0][0].name == name


def test_non_unit_inner_stride(launches, gemm_artifacts):
    with pytest.raises(tilec.ArgumentError, match=r"a must be row-major.*strides \(1, 64\)"):
        tilec.gemm(FakeTensor((64, 64), strides=(1, 64)), FakeTensor((64, 64)),
                   artifacts=gemm_artifacts)
    with pytest.raises(tilec.ArgumentError, match="b must have unit stride along one dimension"):
        tilec.gemm(FakeTensor((64, 64)), FakeTensor((64, 64), strides=(128, 2)),
                   artifacts=gemm_artifacts)


@pytest.mark.parametrize("a,b,message", [
    (FakeTensor((4, 8), "float64"), FakeTensor((8, 4), "float64"),
     r"a must be bf16, f16, f32, float8 \(e4m3, e5m2\) or int8, got f64"),
    (FakeTensor((4, 8)), FakeTensor((8, 4), "float16"), "same dtype, got bf16 and f16"),
])
def test_dtypes(launches, a, b, message):
    with pytest.raises(tilec.DTypeError, match=message):
        tilec.gemm(a, b)
    with pytest.raises(TypeError):  # DTypeError is also a TypeError
        tilec.gemm(a, b)


def test_f32_precision(launches):
    """f32 inputs run as TF32 or 3xTF32 with a column-major b; precision is
    refused for other inputs, unknown ones are refused, and the default
    follows torch's float32 matmul precision (3xTF32 without torch)."""
    a = FakeTensor((64, 64), "float32")
    w = FakeTensor((64, 64), "float32")  # N x K; b = w.t()
    b_col = FakeTensor((64, 64), "float32", strides=(1, 64))
    with pytest.raises(tilec.ArgumentError, match="an f32 b must be column-major"):
        tilec.gemm(a, w, precision="tf32")
    with pytest.raises(tilec.ArgumentError,
                       match="precision must be 'tf32', 'tf32x3' or 'ieee', not 'fp64'"):
        tilec.gemm(a, b_col, precision="fp64")
    with pytest.raises(tilec.ArgumentError, match="precision is for f32 inputs; bf16 inputs"):
        tilec.gemm(FakeTensor((64, 64)), FakeTensor((64, 64)), precision="tf32")
    assert tilec.default_precision() in ("tf32", "tf32x3")


def test_fp8_arguments(launches):
    """float8 inputs: b column-major, b float8 too; scales of the wrong
    dtype or shape are refused before any launch."""
    a = FakeTensor((64, 64), "float8_e4m3fn")
    b_col = FakeTensor((64, 64), "float8_e5m2", strides=(1, 64))
    with pytest.raises(tilec.ArgumentError, match="an f8e4m3 b must be column-major"):
        tilec.gemm(a, FakeTensor((64, 64), "float8_e4m3fn"))
    with pytest.raises(tilec.DTypeError, match="a is f8e4m3, so b must be float8 too"):
        tilec.gemm(a, FakeTensor((64, 64), strides=(1, 64)))
    with pytest.raises(tilec.DTypeError, match="scale_a must be float32, got bf16"):
        tilec.gemm(a, b_col, scale_a=FakeTensor((64, 1)))
    with pytest.raises(tilec.ArgumentError,
                       match=r"scale_b must have one element or shape \[1, 64\] \(or \[64\]\), got \[64, 1\]"):
        tilec.gemm(a, b_col, scale_b=FakeTensor((64, 1), "float32"))
    with pytest.raises(tilec.ArgumentError, match="scale_a must be contiguous"):
        tilec.gemm(a, b_col, scale_a=FakeTensor((64,), "float32", strides=(2,)))


def test_block_scale_arguments(launches):
    """Block scales (torch._scaled_mm's 1x128 / 128x128): scale_b of shape
    [ceil(K/128), ceil(N/128)] selects them; float8 inputs only, scale_a
    [M, ceil(K/128)], float32 (other strides are copied with torch: checked
    on the GPU by python_check)."""
    a = FakeTensor((64, 300), "float8_e4m3fn")
    b_col = FakeTensor((300, 200), "float8_e4m3fn", strides=(1, 300))
    sb = FakeTensor((3, 2), "float32", strides=(1, 3))
    with pytest.raises(tilec.ArgumentError,
                       match=r"scale_a must have shape \[64, 3\] \(1x128 blocks\), got \[64, 1\]"):
        tilec.gemm(a, b_col, scale_a=FakeTensor((64, 1), "float32"), scale_b=sb)
    with pytest.raises(tilec.DTypeError, match="scale_b must be float32, got bf16"):
        tilec.gemm(a, b_col, scale_a=FakeTensor((64, 3), "float32", strides=(1, 64)),
                   scale_b=FakeTensor((3, 2), strides=(1, 3)))
    with pytest.raises(tilec.ArgumentError, match=r"block scales \(scale_b of shape \[3, 2\]\) "
                                                  r"need float8 inputs"):
        tilec.gemm(FakeTensor((64, 300)), FakeTensor((300, 200)),
                   scale_a=FakeTensor((64, 3), "float32", strides=(1, 64)), scale_b=sb)


def test_block_scale_source():
    name, src = gemm_source("f8e4m3", b_layout="col", scale_a=True, scale_b=True,
                            block_scales=True)
    assert name == "gemm_f8e4m3_bf16_bcol_block_scales"
    assert "%K: i32, %KB: i32, %NB: i32, %ldsa: i32, %ldsb: i32, %lda: i32" in src
    assert "%sa = tile.make_view %SA[%KB, %M] strides [%ldsa, 1]" in src
    assert "scale_b(%sb : !tile.view<?x?xf32, strides = [?, 1]>)" in src
    with pytest.raises(ValueError, match="block scales need fp8 inputs and both"):
        gemm_source("f8e4m3", b_layout="col", scale_a=True, block_scales=True)


def test_int8_arguments(launches):
    """int8 inputs give int32 sums (torch._int_mm): b column-major, no
    epilogue, no other output dtype."""
    a = FakeTensor((64, 64), "int8")
    b_col = FakeTensor((64, 64), "int8", strides=(1, 64))
    with pytest.raises(tilec.ArgumentError, match="an i8 b must be column-major"):
        tilec.gemm(a, FakeTensor((64, 64), "int8"))
    with pytest.raises(tilec.ArgumentError, match="int8 inputs take no alpha"):
        tilec.gemm(a, b_col, alpha=2.0)
    with pytest.raises(tilec.DTypeError, match="int8 inputs give int32 .* not bf16"):
        tilec.gemm(a, b_col, out_dtype="bf16")
    name, src = gemm_source("i8", b_layout="col")
    assert name == "gemm_i8_i32_bcol"
    assert "%C: !tile.ptr<i32>" in src
    with pytest.raises(ValueError, match="i8 inputs take no epilogue"):
        gemm_source("i8", b_layout="col", bias=True)


def test_fp8_source():
    name, src = gemm_source("f8e4m3", b_dtype="f8e5m2", b_layout="col", scale_a=True,
                            scale_b=True)
    assert name == "gemm_f8e4m3_f8e5m2_bf16_bcol_scale_a_scale_b"
    assert "%A: !tile.ptr<f8E4M3FN>, %B: !tile.ptr<f8E5M2>, %C: !tile.ptr<bf16>" in src
    assert "%SA: !tile.ptr<f32>, %SB: !tile.ptr<f32>, %M: i32" in src
    assert "scale_a(%sa : !tile.view<?xf32, strides = [1]>)" in src
    with pytest.raises(ValueError, match="f8e4m3 inputs need a column-major B"):
        gemm_source("f8e4m3")
    with pytest.raises(ValueError, match="unsupported gemm types f8e4m3 x f8e4m3 -> f8e4m3"):
        gemm_source("f8e4m3", out_dtype="f8e4m3", b_layout="col")


def test_f32_source():
    name, src = gemm_source("f32", b_layout="col", precision="tf32x3")
    assert name == "gemm_f32_f32_bcol_tf32x3"
    assert "tile.gemm %a, %b, %c precision(tf32x3) :" in src
    assert "!tile.view<?x?xf32, strides = [1, ?]>" in src
    with pytest.raises(ValueError, match="f32 inputs need precision"):
        gemm_source("f32", b_layout="col")
    with pytest.raises(ValueError, match="f32 inputs need a column-major B"):
        gemm_source("f32", b_layout="row", precision="tf32")
    with pytest.raises(ValueError, match="f32 inputs need precision"):
        gemm_source("bf16", precision="tf32")


def test_shapes(launches):
    with pytest.raises(tilec.ArgumentError, match="inner dimensions differ: a is 4x8, b is 9x4"):
        tilec.gemm(FakeTensor((4, 8)), FakeTensor((9, 4)))
    with pytest.raises(tilec.ArgumentError, match="must be 2-D"):
        tilec.gemm(FakeTensor((2, 4, 8)), FakeTensor((8, 4)))
    with pytest.raises(tilec.ArgumentError, match=r"out must be 4x4, got \[4, 5\]"):
        tilec.gemm(FakeTensor((4, 8)), FakeTensor((8, 4)), out=FakeTensor((4, 5)))
    with pytest.raises(tilec.ArgumentError, match=r"bias must have shape \[4\]"):
        tilec.gemm(FakeTensor((4, 8)), FakeTensor((8, 4)), bias=FakeTensor((5,)))


def test_devices(launches):
    with pytest.raises(tilec.ArgumentError, match="a is on cpu; tilec kernels need CUDA"):
        tilec.gemm(FakeTensor((4, 8), device="cpu"), FakeTensor((8, 4)))
    with pytest.raises(tilec.ArgumentError, match="b is on cuda:1 but a is on cuda:0"):
        tilec.gemm(FakeTensor((4, 8)), FakeTensor((8, 4), device="cuda:1"))


def test_epilogue_arguments(launches):
    a, b = FakeTensor((4, 8)), FakeTensor((8, 4))
    with pytest.raises(tilec.ArgumentError, match="out= is required with beta"):
        tilec.gemm(a, b, beta=1.0)
    with pytest.raises(tilec.ArgumentError, match="activation must be"):
        tilec.gemm(a, b, activation="tanh")
    with pytest.raises(tilec.DTypeError, match="bias must be f32"):
        tilec.gemm(a, b, out_dtype="f32", bias=FakeTensor((4,)))
    with pytest.raises(tilec.DTypeError, match="out is bf16 but out_dtype=f32"):
        tilec.gemm(a, b, out=FakeTensor((4, 4)), out_dtype="f32")
    with pytest.raises(tilec.DTypeError, match="output must be bf16, f16 or f32"):
        tilec.gemm(a, b, out_dtype="int32")


def test_not_a_tensor():
    with pytest.raises(TypeError, match="a must be a tensor"):
        tilec.gemm([[1.0]], FakeTensor((1, 1)))


def test_empty_problem_launches_nothing(launches):
    out = tilec.gemm(FakeTensor((0, 8)), FakeTensor((8, 4)))
    assert out.shape == (0, 4) and launches == []


def test_epilogue_variant_parameters(launches, tmp_path):
    variant = dict(out_dtype="f32", bias=True, activation="gelu", alpha=True, beta=True)
    name, source = gemm_source(**variant)
    extra = [{"name": "bias", "kind": "pointer", "dtype": "f32"},
             {"name": "alpha", "kind": "scalar", "dtype": "f32"},
             {"name": "beta", "kind": "scalar", "dtype": "f32"}]
    meta = gemm_metadata(name, extra=extra)
    meta["params"][2]["dtype"] = "f32"
    write_artifact(str(tmp_path), name, source, meta)
    out = FakeTensor((16, 32), "float32")
    tilec.gemm(FakeTensor((16, 64)), FakeTensor((64, 32)), out=out, bias=FakeTensor((32,), "float32"),
               alpha=0.5, beta=2, activation="gelu", artifacts=str(tmp_path))
    p = params_of(launches[0])
    assert launches[0][0].name == name
    assert (p["alpha"], p["beta"]) == (0.5, 2.0) and isinstance(p["beta"], float)
    assert p["C"] == out.data_ptr()


def test_stale_artifact_is_refused(launches, tmp_path):
    name, source = gemm_source()
    write_artifact(str(tmp_path), name, source.replace("tile.gemm", "tile.gemm "), gemm_metadata(name))
    with pytest.raises(tilec.ArtifactError, match="different source"):
        tilec.gemm(FakeTensor((8, 8)), FakeTensor((8, 8)), artifacts=str(tmp_path))


def test_artifact_for_another_gpu_is_refused(launches, tmp_path):
    name, source = gemm_source()
    # sm_80 PTX assembled for sm_90 runs on the (fake) Hopper device ...
    write_artifact(str(tmp_path), name, source, gemm_metadata(name, chip="sm_80",
                                                              cubin_arch="sm_90"), chip="sm_80")
    tilec.gemm(FakeTensor((8, 8)), FakeTensor((8, 8)), chip="sm_80", artifacts=str(tmp_path))
    ops.clear_kernel_memo()
    # ... an sm_86 cubin does not.
    write_artifact(str(tmp_path), name, source, gemm_metadata(name, chip="sm_80",
                                                              cubin_arch="sm_86"), chip="sm_80")
    with pytest.raises(tilec.ArtifactError, match="cubin for sm_86, which cannot run"):
        tilec.gemm(FakeTensor((8, 8)), FakeTensor((8, 8)), chip="sm_80", artifacts=str(tmp_path))


def test_no_artifact_and_no_compiler(launches, tmp_path, monkeypatch):
    from tilec import _capi
    monkeypatch.setenv("TILEC_LIBRARY", str(tmp_path / "missing.so"))
    _capi.reset_library()
    try:
        with pytest.raises(tilec.KernelNotAvailableError,
                           match=r"cannot get kernel gemm_bf16_bf16_brow for sm_90a: no "
                                 r"precompiled gemm_bf16_bf16_brow in .*sm_90a"):
            tilec.gemm(FakeTensor((8, 8)), FakeTensor((8, 8)), artifacts=str(tmp_path))
    finally:
        monkeypatch.undo()
        _capi.reset_library()


def test_compiles_when_no_artifact(launches, library, tmp_path):
    """Without artifacts the kernel is compiled (through the cache) and the
    real metadata drives the checks."""
    tilec.gemm(FakeTensor((8, 8)), FakeTensor((8, 8)), chip="sm_90a")
    launcher, _ = launches[0]
    assert launcher.meta["chip"] == "sm_90a" and launcher.cubin[:4] == b"\x7fELF"
    # Rows of 12 bf16 elements are not whole 16-byte chunks: the variant
    # that takes any strides (in its shape class), compiled from the same
    # source with aligned = 0.
    tilec.gemm(FakeTensor((8, 12)), FakeTensor((12, 8)), chip="sm_90a")
    launcher, _ = launches[1]
    unaligned = kernels.gemm_unaligned_config(8, 8, 12, "sm_90a", 132)
    assert launcher.name == gemm_name() + gemm_config_suffix(unaligned)
    assert params_of(launches[1])["lda"] == 12
    assert not any(p.get("divisibility") for p in launcher.meta["params"])


def test_cuda_array_interface_objects(launches, gemm_artifacts):
    a = FakeCupyArray((16, 32), "<f2")
    info = describe(a, "a")
    assert (info.shape, info.strides, info.dtype, info.kind) == ((16, 32), (32, 1), "f16", "cai")
    padded = describe(FakeCupyArray((16, 30), "<f2", strides=(64, 2)), "a")
    assert padded.strides == (32, 1)
    with pytest.raises(tilec.DTypeError, match="a and b must have the same dtype, got f16 and bf16"):
        tilec.gemm(a, FakeTensor((32, 8)), artifacts=gemm_artifacts)


def test_chip_for_capability():
    assert ops.chip_for_capability((9, 0)) == ("sm_90a", "sm_90a")
    assert ops.chip_for_capability((8, 0)) == ("sm_80", "sm_80")
    assert ops.chip_for_capability((8, 6)) == ("sm_86", "sm_86")
    assert ops.chip_for_capability((8, 7)) == ("sm_86", "sm_87")
    assert ops.chip_for_capability((8, 9)) == ("sm_89", "sm_89")
    with pytest.raises(tilec.ArgumentError, match="compute capability 7.5 is not supported"):
        ops.chip_for_capability((7, 5))


def test_cubin_runs_on():
    assert artifacts.cubin_runs_on("sm_90a", (9, 0))
    assert artifacts.cubin_runs_on("sm_90", (9, 0))
    assert artifacts.cubin_runs_on("sm_80", (8, 6))
    assert not artifacts.cubin_runs_on("sm_80", (9, 0))
    assert not artifacts.cubin_runs_on("sm_86", (8, 0))
    assert not artifacts.cubin_runs_on("sm_90a", (10, 0))
    assert not artifacts.cubin_runs_on("garbage", (9, 0))


def test_attention_refuses_unsupported_layouts(launches):
    """Head dims other than 64/128, K/V heads not dividing Q's, and tensors
    not contiguous in their last two dimensions are refused before any
    compile or launch."""
    q = FakeTensor((2, 4, 128, 64))
    with pytest.raises(tilec.ArgumentError, match="head_dim must be 64, 128 or 256, got 96"):
        tilec.attention(FakeTensor((2, 4, 8, 96)), FakeTensor((2, 4, 8, 96)),
                        FakeTensor((2, 4, 8, 96)))
    with pytest.raises(tilec.ArgumentError, match="k heads dividing q heads"):
        tilec.attention(q, FakeTensor((2, 3, 128, 64)), FakeTensor((2, 3, 128, 64)))
    strided = FakeTensor((2, 4, 128, 64), strides=(4 * 128 * 128, 128 * 128, 128, 1))
    with pytest.raises(tilec.ArgumentError, match="contiguous in its last two dimensions"):
        tilec.attention(q, strided, q)
    assert launches == []


def test_attention_checks_arguments_first():
    q = FakeTensor((2, 4, 128, 64))
    with pytest.raises(tilec.ArgumentError, match=r"incompatible shapes"):
        tilec.attention(q, FakeTensor((2, 4, 128, 32)), FakeTensor((2, 4, 128, 32)))
    with pytest.raises(tilec.DTypeError, match="q must be bf16 or f16, got f32"):
        tilec.attention(FakeTensor((2, 4, 8, 64), "float32"), q, q)
    with pytest.raises(tilec.ArgumentError, match=r"k must be \[batch, heads, seq, head_dim\]"):
        tilec.attention(q, FakeTensor((4, 128, 64)), q)


def test_import_does_not_load_torch_or_the_compiler():
    import subprocess
    import sys
    code = ("import sys, tilec; from tilec import _capi; "
            "assert 'torch' not in sys.modules and 'cuda' not in sys.modules; "
            "assert _capi._library is None")
    env = dict(os.environ, PYTHONPATH=os.path.join(os.path.dirname(__file__), ".."))
    subprocess.run([sys.executable, "-c", code], check=True, env=env)


def test_allocated_output_has_the_row_stride_the_kernel_needs(launches, library, tmp_path):
    name, source = gemm_source()
    meta = gemm_metadata(name)
    meta["params"][-1]["divisibility"] = 8  # ldc, as for a TMA store of C
    write_artifact(str(tmp_path), name, source, meta)
    a, b = FakeTensor((10, 32)), FakeTensor((32, 17), strides=(24, 1))
    out = tilec.gemm(a, b, artifacts=str(tmp_path))
    assert out.shape == (10, 17) and out.stride() == (24, 1)
    assert params_of(launches[0])["ldc"] == 24
    # An out whose rows are not whole 16-byte chunks: the variant for any
    # strides (compiled: the artifacts do not have it).
    tilec.gemm(a, b, out=FakeTensor((10, 17)), artifacts=str(tmp_path))
    assert launches[1][0].name == name + "_aligned0" and params_of(launches[1])["ldc"] == 17


@pytest.mark.parametrize("chip,seq,causal,suffix", [
    ("sm_90a", 1000, True, "_persistent1"),
    ("sm_90a", 2048, True, "_persistent1"),
    ("sm_90a", 2049, True, ""),
    ("sm_90a", 1000, False, ""),
    ("sm_80", 1000, True, ""),
])
def test_attention_shape_class_dispatch(tmp_path, launches, chip, seq, causal, suffix):
    """sm_90a: causal attention up to 2048 queries takes the persistent
    kernel (pairs of query blocks of equal work), longer sequences and
    other chips the default."""
    from overhead_bench import attention_meta
    from tilec.kernels import attention_name, attention_shape_config, attention_source
    config = attention_shape_config(seq, 64, causal, chip)
    name = attention_name("bf16", 64, causal) + gemm_config_suffix(config)
    assert name.endswith(("_causal" if causal else "_d64") + suffix)
    _, source = attention_source("bf16", 64, causal, config=config, name=name)
    write_artifact(str(tmp_path), name, source, attention_meta(name, chip, head_dim=64), chip)
    q = FakeTensor((2, 4, seq, 64))
    tilec.attention(q, q, q, causal=causal, chip=chip, artifacts=str(tmp_path))
    assert len(launches) == 1 and launches[0][0].name == name


def test_attention_dispatch_falls_back_to_the_default(launches, tmp_path, monkeypatch):
    """Artifacts without the short causal variant and no compiler: the
    default kernel runs (the variant is only faster); without the default
    too, the error names the default."""
    from overhead_bench import attention_meta
    from tilec import _capi
    from tilec.kernels import attention_name, attention_source
    name = attention_name("bf16", 64, True)
    _, source = attention_source("bf16", 64, True)
    write_artifact(str(tmp_path / "with"), name, source, attention_meta(name, "sm_90a", 64))
    monkeypatch.setenv("TILEC_LIBRARY", str(tmp_path / "missing.so"))
    _capi.reset_library()
    try:
        q = FakeTensor((2, 4, 1000, 64))
        tilec.attention(q, q, q, causal=True, chip="sm_90a", artifacts=str(tmp_path / "with"))
        assert [launcher.name for launcher, _ in launches] == [name]
        with pytest.raises(tilec.KernelNotAvailableError,
                           match=f"cannot get kernel {name} for sm_90a: no precompiled"):
            tilec.attention(q, q, q, causal=True, chip="sm_90a",
                            artifacts=str(tmp_path / "without"))
    finally:
        monkeypatch.undo()
        _capi.reset_library()


def test_attention_scale_selects_its_kernel(launches, tmp_path):
    """A scale other than 1/sqrt(head_dim) runs the kernel compiled with it;
    the default scale, given explicitly, runs the default kernel."""
    from overhead_bench import attention_meta
    from tilec.kernels import attention_source
    for scale in ("3dcccccd", None):  # 0.1, and the default
        name, source = attention_source("bf16", 64, scale=scale)
        write_artifact(str(tmp_path), name, source, attention_meta(name, "sm_90a", 64))
    q = FakeTensor((2, 4, 300, 64))
    tilec.attention(q, q, q, scale=0.1, chip="sm_90a", artifacts=str(tmp_path))
    tilec.attention(q, q, q, scale=0.125, chip="sm_90a", artifacts=str(tmp_path))
    assert [launcher.name for launcher, _ in launches] == [
        "attention_bf16_d64_scale3dcccccd", "attention_bf16_d64"]
    with pytest.raises(tilec.ArgumentError, match="not supported for FP8 attention"):
        f8 = FakeTensor((2, 4, 300, 64), "float8_e4m3fn")
        tilec.attention(f8, f8, f8, scale=0.1, chip="sm_90a", artifacts=str(tmp_path))


def fp8_attention_meta(name, chip="sm_90a"):
    """Metadata shaped like the compiler's for FP8 tile.attention."""
    from overhead_bench import attention_meta
    meta = attention_meta(name, chip)
    for p in meta["params"][:3]:
        p["dtype"] = "f8e4m3"
    meta["params"] += [{"name": n, "kind": "scalar", "dtype": "i32", "divisibility": 16}
                       for n in ("v_batch", "v_head", "v_ld")]
    meta["params"] += [{"name": n, "kind": "scalar", "dtype": "f32"}
                       for n in ("q_descale", "k_descale", "v_descale")]
    return meta


def fp8_v(b, h, s, d, ldv):
    """An FP8 V as tilec.attention takes it: [b, h, s, d] over a transposed
    [b, h, d, ldv] tensor (contiguous along s)."""
    return FakeTensor((b, h, s, d), "float8_e4m3fn", strides=(h * d * ldv, d * ldv, 1, ldv))


def test_attention_fp8_launch_values(launches, tmp_path):
    """FP8 attention: q, k float8 with v transposed in memory; the V strides
    and the descales reach the kernel, and out is allocated in bf16."""
    from tilec.kernels import attention_name, attention_source
    name = attention_name("f8e4m3", 128, False)
    assert name == "attention_f8e4m3_d128"
    _, source = attention_source("f8e4m3", 128)
    assert "descale(%q_descale, %k_descale, %v_descale)" in source
    write_artifact(str(tmp_path), name, source, fp8_attention_meta(name))
    q = FakeTensor((2, 4, 200, 128), "float8_e4m3fn")
    out = tilec.attention(q, q, fp8_v(2, 4, 200, 128, 208), chip="sm_90a",
                          artifacts=str(tmp_path), q_descale=0.5, k_descale=0.25, v_descale=2.0)
    assert out.dtype == "torch.bfloat16" and out.shape == (2, 4, 200, 128)
    params = params_of(launches[0])
    assert (params["v_batch"], params["v_head"], params["v_ld"]) == (4 * 128 * 208, 128 * 208, 208)
    assert (params["q_descale"], params["k_descale"], params["v_descale"]) == (0.5, 0.25, 2.0)
    # Descales default to 1.
    tilec.attention(q, q, fp8_v(2, 4, 200, 128, 208), chip="sm_90a", artifacts=str(tmp_path))
    assert params_of(launches[1])["v_descale"] == 1.0


@pytest.mark.parametrize("d", [64, 256])
def test_attention_fp8_head_dims(launches, tmp_path, d):
    """FP8 attention at head dims 64 and 256 reaches its own kernel, with
    the V leading stride of its transposed layout."""
    from tilec.kernels import attention_name, attention_source
    name = attention_name("f8e4m3", d, False)
    _, source = attention_source("f8e4m3", d)
    write_artifact(str(tmp_path), name, source, fp8_attention_meta(name))
    q = FakeTensor((1, 2, 100, d), "float8_e4m3fn")
    out = tilec.attention(q, q, fp8_v(1, 2, 100, d, 112), chip="sm_90a",
                          artifacts=str(tmp_path))
    assert out.shape == (1, 2, 100, d)
    assert launches[0][0].name == name
    assert params_of(launches[0])["v_ld"] == 112


def test_attention_fp8_refusals(launches):
    """FP8 attention's argument checks, before any compile or launch."""
    q = FakeTensor((2, 4, 128, 128), "float8_e4m3fn")
    v = fp8_v(2, 4, 128, 128, 128)
    with pytest.raises(tilec.ArgumentError, match=r"an FP8 v must be contiguous along seq"):
        tilec.attention(q, q, q)
    with pytest.raises(tilec.ArgumentError,
                       match="FP8 attention takes head_dim 64, 128 or 256, got 96"):
        q96 = FakeTensor((2, 4, 128, 96), "float8_e4m3fn")
        tilec.attention(q96, q96, fp8_v(2, 4, 128, 96, 128))
    with pytest.raises(tilec.DTypeError, match="must all be float8_e4m3fn or all float8_e5m2"):
        tilec.attention(q, FakeTensor((2, 4, 128, 128)), v)
    with pytest.raises(tilec.DTypeError, match="must all be float8_e4m3fn or all float8_e5m2"):
        b = FakeTensor((2, 4, 128, 128))
        tilec.attention(b, b, b, q_descale=1.0)
    with pytest.raises(tilec.ArgumentError, match="v_descale must be positive and finite"):
        tilec.attention(q, q, v, v_descale=-1.0)
    with pytest.raises(tilec.ArgumentError, match="out must be bf16"):
        tilec.attention(q, q, v, out=FakeTensor((2, 4, 128, 128), "float16"))
    assert launches == []


def test_gemm_dispatch_configs_are_what_the_dispatch_launches():
    """kernels.gemm_dispatch_configs (what scripts build ahead of time)
    starts with the config tilec.gemm's dispatch takes and lists its
    fallbacks: the class without split-K, the default kernel, the
    any-strides variant; the operands decide what the rule may use."""
    from tilec import kernels
    rule = kernels.gemm_dispatch_config(1, 2048, 14336, "sm_80", 108, b_layout="col")
    assert rule["swap_ab"] == 1 and rule["split_k"] > 1
    unsplit = {f: v for f, v in rule.items() if f != "split_k"}
    unaligned = kernels.gemm_unaligned_config(1, 2048, 14336, "sm_80", 108)
    assert unaligned["aligned"] == 0 and unaligned["split_k"] > 1
    assert kernels.gemm_dispatch_configs(1, 2048, 14336, "sm_80", 108, b_layout="col") == [
        rule, unsplit, None, unaligned, {"aligned": 0}]
    # A row-major b does not run transposed; scaled (fp8) inputs do not
    # split K; block scales keep a tile within one scale block.
    assert "swap_ab" not in (kernels.gemm_dispatch_config(1, 4096, 14336, "sm_80", 108) or {})
    assert "split_k" not in (kernels.gemm_dispatch_config(
        1, 4096, 14336, "sm_90a", 132, dtype="e4m3", b_layout="col", scales=True) or {})
    assert kernels.gemm_dispatch_configs(4096, 4096, 4096, "sm_90a", 132) == [
        None, {"aligned": 0}]


def test_split_k_rule_dispatch():
    """The compiler's shape rule adds split_k (with can_split_k) where the
    weight streams (tiles of B's columns) fill at most half of what the SMs
    take and K has room for ranges of 8 steps; not on sm_90a's transposed
    decode tiles (measured slower there)."""
    from tilec import kernels
    decode = kernels.gemm_shape_config(1, 4096, 14336, "sm_90a", can_swap_ab=True,
                                       can_split_k=True)
    assert decode["swap_ab"] == 1 and "split_k" not in decode
    assert kernels.gemm_shape_config(1, 4096, 14336, "sm_90a", can_swap_ab=True) == decode
    # mma.sync's 16-token tiles: one stream per SM. The SM count decides:
    # 64 weight tiles fill more than half of sm_80's 108 SMs, not of 132.
    assert "split_k" not in kernels.gemm_shape_config(1, 4096, 14336, "sm_80", can_swap_ab=True,
                                                      can_split_k=True)
    assert kernels.gemm_shape_config(1, 4096, 14336, "sm_80", num_sms=132, can_swap_ab=True,
                                     can_split_k=True)["split_k"] == 2
    # mma.sync's 32-token tiles: two streams per SM (64 weight tiles -> 4
    # ranges, 128 -> 2), whatever the token rows.
    for m in (32, 64):
        wide = kernels.gemm_shape_config(m, 4096, 14336, "sm_80", num_sms=132, can_swap_ab=True,
                                         can_split_k=True)
        assert (wide["block_m"], wide["split_k"]) == (32, 4)
        assert kernels.gemm_shape_config(m, 8192, 8192, "sm_80", num_sms=132, can_swap_ab=True,
                                         can_split_k=True)["split_k"] == 2
    # Untransposed tiles: one wave, at most 16 ranges, none where K is too
    # shallow or the tiles fill the GPU.
    assert kernels.gemm_shape_config(1, 4096, 14336, "sm_90a", can_split_k=True)["split_k"] == 2
    assert kernels.gemm_shape_config(128, 128, 65536, "sm_90a", can_split_k=True) == {
        "block_n": 64, "split_k": 16}
    assert kernels.gemm_shape_config(128, 128, 1024, "sm_90a", can_split_k=True) == {
        "block_n": 64, "split_k": 2}  # 16 K steps
    assert kernels.gemm_shape_config(128, 128, 480, "sm_90a", can_split_k=True) == {
        "block_n": 64}
    assert kernels.gemm_shape_config(4096, 4096, 4096, "sm_90a", can_split_k=True) is None
    assert kernels.gemm_shape_config(128, 128, 65536, "sm_80", can_split_k=True) == {
        "split_k": 16}
    assert kernels.gemm_shape_config(1, 4096, 14336, "sm_80", num_sms=132,
                                     can_split_k=True) == {"split_k": 8}  # 16 tiles


def test_split_k_launches_both_stages(launches, library):
    """config={"split_k": S}: the partial and reduce kernels, launched in
    that order with the same arguments and an f32 [S, M, N] workspace."""
    config = {"split_k": 4, "swap_ab": 1, "block_m": 16, "block_n": 64, "block_k": 128,
              "warps": 4, "tma_store": 0}
    a, b = FakeTensor((16, 4096)), FakeTensor((4096, 1000), strides=(1, 4096))
    tilec.gemm(a, b, chip="sm_90a", config=config)
    name = gemm_name(b_layout="col") + gemm_config_suffix(config)
    assert [launcher.name for launcher, _ in launches] == [name + "_partial", name + "_reduce"]
    first, second = params_of(launches[0]), params_of(launches[1])
    assert first == second
    assert (first["ldw"], first["sw"], first["M"], first["N"]) == (1000, 16 * 1000, 16, 1000)
    assert launches[0][0].meta["grid"] == ["ceildiv(N, 64) * ceildiv(M, 16) * 4"]
    assert launches[1][0].meta["grid"] == ["ceildiv(M, 32) * ceildiv(N, 128)"]


def test_split_k_refusals(launches, gemm_artifacts):
    """Split-K takes 2-D GEMMs without int8 inputs or block scales."""
    with pytest.raises(tilec.ArgumentError, match="split_k takes no int8 inputs"):
        tilec.gemm(FakeTensor((16, 64), "int8"), FakeTensor((64, 32), "int8", strides=(1, 64)),
                   config={"split_k": 2}, artifacts=gemm_artifacts)
    with pytest.raises(tilec.ArgumentError, match="split_k is for 2-D GEMMs"):
        tilec.bmm(FakeTensor((2, 16, 64)), FakeTensor((2, 64, 32)), config={"split_k": 2},
                  artifacts=gemm_artifacts)


def test_out_requirements_come_from_the_kernel(tmp_path, launches):
    """Whether a caller's out needs the variant for any strides is decided
    by the class kernel's metadata: an f32 out (no TMA store: any row
    stride) keeps the fast kernel; a bf16 out with 33-element rows, where
    the kernel stores through a TMA map of C, takes the variant."""
    name32 = gemm_name(out_dtype="f32")
    _, source = gemm_source(out_dtype="f32", name=name32)
    meta32 = gemm_metadata(name32)
    next(p for p in meta32["params"] if p["name"] == "C")["dtype"] = "f32"
    write_artifact(str(tmp_path), name32, source, meta32)
    a, b = FakeTensor((64, 64)), FakeTensor((64, 33), strides=(40, 1))
    tilec.gemm(a, b, out=FakeTensor((64, 33), "float32", strides=(33, 1)), chip="sm_90a",
               artifacts=str(tmp_path))
    assert launches[-1][0].name == name32

    name = gemm_name()
    _, source = gemm_source(name=name)
    meta = gemm_metadata(name)
    next(p for p in meta["params"] if p["name"] == "C")["align"] = 16
    next(p for p in meta["params"] if p["name"] == "ldc")["divisibility"] = 8
    meta["tensor_maps"].append({"base": "C", "box": [64, 128], "dtype": "bf16",
                                "elem_bytes": 2, "index": 10, "sizes": ["N", "M"],
                                "strides": [1, "ldc"], "swizzle": 128})
    write_artifact(str(tmp_path), name, source, meta)
    unaligned = name + gemm_config_suffix(op_gemm._UNALIGNED)
    _, source = gemm_source(config=op_gemm._UNALIGNED, name=unaligned)
    write_artifact(str(tmp_path), unaligned, source, gemm_metadata(unaligned))
    tilec.gemm(a, FakeTensor((64, 40)), out=FakeTensor((64, 40)), chip="sm_90a",
               artifacts=str(tmp_path))
    assert launches[-1][0].name == name
    tilec.gemm(a, b, out=FakeTensor((64, 33), strides=(33, 1)), chip="sm_90a",
               artifacts=str(tmp_path))
    assert launches[-1][0].name == unaligned
