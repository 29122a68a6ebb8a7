"""tilec.bmm (batched GEMM in one launch): the batched kernel sources and
their compilation, argument checking, the kernel variant a call picks (B
layout, shape class of the stacked matrices, the any-strides variant), the
launch values, zero-size problems and plans -- with tensor-like stand-ins
and the fake driver (no torch, no GPU)."""

import os

import pytest

import fake_cuda
import tilec
from overhead_bench import write_kernel
from tilec import kernels, plans
from tilec.kernels import gemm_config_suffix, gemm_name, gemm_source

BASE = 0x7F0000000000  # a 256-byte aligned fake device address


class FakeTensor:
    """The attributes of a torch tensor that tilec reads (and ``fill_``,
    which records the value)."""

    def __init__(self, shape, dtype="bfloat16", strides=None, offset=0, device="cuda:0"):
        self.shape = tuple(shape)
        self._strides = tuple(strides or fake_cuda.contiguous_strides(self.shape))
        self.dtype = f"torch.{dtype}"
        self._ptr = BASE + offset
        self.device = device
        self.filled = None

    def stride(self):
        return self._strides

    def data_ptr(self):
        return self._ptr

    def fill_(self, value):
        self.filled = value
        return self


class FakeCupyArray:
    """A CuPy-like array: only __cuda_array_interface__, byte strides."""

    def __init__(self, shape, typestr="<f2", ptr=BASE):
        self.__cuda_array_interface__ = {"shape": shape, "typestr": typestr, "strides": None,
                                         "data": (ptr, False), "version": 3}


_TORCH_NAMES = {"bf16": "bfloat16", "f16": "float16", "f32": "float32", "i32": "int32"}


def bmm_metadata(name, chip="sm_90a", dtype="bf16", out_dtype=None, bias=False, aligned=True):
    """Launch metadata shaped like the compiler's for a batched GEMM
    (test_fake_metadata_is_the_compilers keeps it honest)."""
    out_dtype = out_dtype or dtype
    chunk = {"align": 16} if aligned else {}
    div = {"divisibility": 8} if aligned else {}
    params = [{"name": "A", "kind": "pointer", "dtype": dtype, **chunk},
              {"name": "B", "kind": "pointer", "dtype": dtype, **chunk},
              {"name": "C", "kind": "pointer", "dtype": out_dtype}]
    if bias:
        params.append({"name": "bias", "kind": "pointer", "dtype": out_dtype})
    params += [{"name": n, "kind": "scalar", "dtype": "i32"} for n in ("batch", "M", "N", "K")]
    params += [{"name": n, "kind": "scalar", "dtype": "i32", **({} if n[-1] == "c" else div)}
               for n in ("lda", "ldb", "ldc", "sa", "sb", "sc")]
    maps = []
    if chip == "sm_90a" and aligned:
        maps = [{"base": "A", "box": [64, 128, 1], "dtype": dtype, "elem_bytes": 2,
                 "index": len(params), "sizes": ["K", "M", "batch"], "strides": [1, "lda", "sa"],
                 "swizzle": 128},
                {"base": "B", "box": [64, 64, 1], "dtype": dtype, "elem_bytes": 2,
                 "index": len(params) + 1, "sizes": ["N", "K", "batch"],
                 "strides": [1, "ldb", "sb"], "swizzle": 128}]
    return {"kernel": name, "chip": chip, "cubin_arch": chip, "block": [384, 1, 1],
            "cluster": [1, 1, 1], "grid": ["ceildiv(M, 128) * ceildiv(N, 256) * batch"],
            "smem_bytes": 1024, "persistent": chip == "sm_90a", "params": params,
            "tensor_maps": maps, "tilec_version": tilec.__version__}


def write_bmm(directory, chip="sm_90a", config=None, **variant):
    """A (fake) precompiled batched kernel; returns its name."""
    name = gemm_name(batched=True, **variant) + gemm_config_suffix(config)
    _, source = gemm_source(batched=True, config=config, name=name, **variant)
    aligned = not config or config.get("aligned", 1)
    meta = bmm_metadata(name, chip, variant.get("dtype", "bf16"), variant.get("out_dtype"),
                        variant.get("bias", False), aligned)
    write_kernel(directory, chip, name, meta, source)
    return name


@pytest.fixture
def launches(patch_host):
    """Replaces the GPU launch, allocation and device query; records launch
    arguments (every call takes the checked path: no plans)."""
    calls = []
    patch_host("device_capability", lambda index=None: (9, 0))
    patch_host("_launch", lambda launcher, args, kind, device: calls.append((launcher, args)))
    patch_host("_make_plan", lambda *args, **kwargs: None)
    patch_host("_allocator", lambda like, shape, dtype, row_quantum=1:
               lambda: FakeTensor(shape, _TORCH_NAMES[dtype]))
    return calls


@pytest.fixture(autouse=True)
def default_config(patch_host, request):
    """The chip's default configuration, except in the dispatch tests."""
    if "dispatch" not in request.node.name:
        patch_host("gemm_shape_config", lambda *args: None)
        patch_host("grouped_gemm_shape_config", lambda *args: None)


def params_of(call):
    """Launch arguments by parameter name (tensors as pointers)."""
    launcher, args = call
    return {p["name"]: (a.ptr if hasattr(a, "ptr") else a)
            for p, a in zip(launcher.params, args)}


_compiled = {}


def compiled(source, chip, cubin_arch=None):
    """tilec.compile's result for ``source``, compiled once per test run
    (sm_90a kernels take seconds; each test has a cache of its own)."""
    key = (source, chip, cubin_arch)
    if key not in _compiled:
        _compiled[key] = tilec.compile(source, chip=chip, emit="cubin", cubin_arch=cubin_arch)
    return _compiled[key]


# -- kernel sources ---------------------------------------------------------------


def test_batched_source():
    name, src = gemm_source(batched=True)
    assert name == gemm_name(batched=True) == "gemm_batched_bf16_bf16_brow"
    assert (f"tile.kernel @{name}(%A: !tile.ptr<bf16>, %B: !tile.ptr<bf16>, "
            "%C: !tile.ptr<bf16>, %batch: i32, %M: i32, %N: i32, %K: i32, %lda: i32, "
            "%ldb: i32, %ldc: i32, %sa: i32, %sb: i32, %sc: i32) {") in src
    assert "%a = tile.make_view %A[%batch, %M, %K] strides [%sa, %lda, 1] : !tile.ptr<bf16>" in src
    assert "%b = tile.make_view %B[%batch, %K, %N] strides [%sb, %ldb, 1] : !tile.ptr<bf16>" in src
    assert "%c = tile.make_view %C[%batch, %M, %N] strides [%sc, %ldc, 1] : !tile.ptr<bf16>" in src
    view = "!tile.view<?x?x?xbf16, strides = [?, ?, 1]>"
    assert f"tile.gemm %a, %b, %c : {view}, {view}, {view}\n" in src


def test_batched_source_column_major_b_bias_and_config():
    name, src = gemm_source("f16", out_dtype="f32", b_layout="col", bias=True,
                            activation="gelu", batched=True, config={"aligned": 0})
    assert name == "gemm_batched_f16_f32_bcol_bias_gelu"
    assert "%b = tile.make_view %B[%batch, %K, %N] strides [%sb, 1, %ldb] : !tile.ptr<f16>" in src
    # The bias is 1-D, shared by every matrix.
    assert "%bv = tile.make_view %bias[%N] strides [1] : !tile.ptr<f32>" in src
    assert ("tile.gemm %a, %b, %c bias(%bv) activation(gelu) config <aligned = 0> : "
            "!tile.view<?x?x?xf16, strides = [?, ?, 1]>, "
            "!tile.view<?x?x?xf16, strides = [?, 1, ?]>, "
            "!tile.view<?x?x?xf32, strides = [?, ?, 1]>, "
            "!tile.view<?xf32, strides = [1]>") in src


def test_unbatched_source_is_unchanged():
    """batched=False (the default) writes the 2-D kernel, without a batch."""
    name, src = gemm_source(b_layout="col")
    assert name == "gemm_bf16_bf16_bcol"
    assert "%batch" not in src and "%sa" not in src
    assert "%b = tile.make_view %B[%K, %N] strides [1, %ldb] : !tile.ptr<bf16>" in src
    assert gemm_source(batched=False) == gemm_source()


def test_batched_source_refuses_scales():
    for scales in ({"scale_a": True}, {"scale_b": True},
                   {"scale_a": True, "scale_b": True, "block_scales": True}):
        with pytest.raises(ValueError, match="a batched GEMM takes no scale_a / scale_b"):
            gemm_source("f8e4m3", b_layout="col", batched=True, **scales)


COMPILED_VARIANTS = [
    {},
    {"dtype": "f16", "b_layout": "col"},
    {"out_dtype": "f32", "bias": True, "activation": "gelu"},
    {"dtype": "f32", "b_layout": "col", "precision": "tf32x3"},
    {"dtype": "i8", "b_layout": "col"},
]


@pytest.mark.parametrize("chip", ["sm_80", "sm_90a"])
@pytest.mark.parametrize("variant", COMPILED_VARIANTS, ids=lambda v: gemm_name(**v))
def test_batched_sources_compile(library, chip, variant):
    """The compiler takes every batched variant tilec.bmm generates: one
    program per tile of every matrix (grid times the batch); on sm_90a the
    TMA maps of A and B are 3-D with the batch strides."""
    name, src = gemm_source(batched=True, **variant)
    meta = compiled(src, chip)[name].metadata
    assert meta["grid"][0].endswith(" * batch")
    names = [p["name"] for p in meta["params"]]
    assert names[-10:] == ["batch", "M", "N", "K", "lda", "ldb", "ldc", "sa", "sb", "sc"]
    params = {p["name"]: p for p in meta["params"]}
    # A and B 16-byte chunks (rows and matrices); C anything (no TMA store).
    assert params["A"].get("align") == params["B"].get("align") == 16
    assert all(params[s].get("divisibility") for s in ("lda", "ldb", "sa", "sb"))
    assert not any(params[p].get("align") or params[p].get("divisibility")
                   for p in ("C", "ldc", "sc", "M", "N", "K"))
    maps = {m["base"]: m["strides"] for m in meta["tensor_maps"]}
    if chip == "sm_90a" and variant.get("dtype") != "f32":
        assert maps == {"A": [1, "lda", "sa"], "B": [1, "ldb", "sb"]}
    else:
        assert maps == {}


@pytest.mark.parametrize("chip", ["sm_80", "sm_90a"])
def test_any_strides_variant_compiles(library, chip):
    """aligned = 0: no requirement on any pointer or stride, no TMA."""
    name = gemm_name(batched=True) + "_aligned0"
    _, src = gemm_source(batched=True, config={"aligned": 0}, name=name)
    meta = compiled(src, chip)[name].metadata
    assert not any(p.get("align") or p.get("divisibility") for p in meta["params"])
    assert not meta["tensor_maps"]


def test_fp8_source_compiles_on_sm90a_only(library):
    name, src = gemm_source("f8e4m3", b_layout="col", batched=True)
    assert name == "gemm_batched_f8e4m3_bf16_bcol"
    assert tilec.compile(src, chip="sm_90a", emit="cubin")[name].metadata["tensor_maps"]
    with pytest.raises(tilec.CompileError, match="fp8 operands need"):
        tilec.compile(src, chip="sm_80", emit="cubin")


@pytest.mark.parametrize("chip", ["sm_80", "sm_90a"])
def test_fake_metadata_is_the_compilers(library, chip):
    """What these tests' fake artifacts say is what the compiler says."""
    for variant in COMPILED_VARIANTS[:1] + COMPILED_VARIANTS[2:3]:
        name, src = gemm_source(batched=True, **variant)
        real = compiled(src, chip)[name].metadata
        fake = bmm_metadata(name, chip, out_dtype=variant.get("out_dtype"),
                            bias=variant.get("bias", False))
        assert real["params"] == fake["params"]
        assert real["grid"] == fake["grid"]
        assert ([(m["base"], m["sizes"], m["strides"]) for m in real["tensor_maps"]]
                == [(m["base"], m["sizes"], m["strides"]) for m in fake["tensor_maps"]])


# -- launch values ------------------------------------------------------------------


@pytest.fixture
def bmm_artifacts(tmp_path):
    """An artifacts directory with the plain batched bf16 kernels for sm_90a."""
    for config in (None, {"aligned": 0}):
        write_bmm(str(tmp_path), config=config)
        write_bmm(str(tmp_path), config=config, b_layout="col")
    return str(tmp_path)


def test_bmm_launch_values(launches, bmm_artifacts):
    a, b = FakeTensor((4, 100, 72)), FakeTensor((4, 72, 40))
    out = tilec.bmm(a, b, artifacts=bmm_artifacts)
    assert out.shape == (4, 100, 40) and out.dtype == "torch.bfloat16"
    assert len(launches) == 1 and launches[0][0].name == "gemm_batched_bf16_bf16_brow"
    p = params_of(launches[0])
    assert (p["batch"], p["M"], p["N"], p["K"]) == (4, 100, 40, 72)
    assert (p["lda"], p["ldb"], p["ldc"]) == (72, 40, 40)
    assert (p["sa"], p["sb"], p["sc"]) == (7200, 2880, 4000)
    assert (p["A"], p["B"], p["C"]) == (a.data_ptr(), b.data_ptr(), out.data_ptr())


def test_bmm_any_batch_and_row_strides(launches, bmm_artifacts):
    """Matrices of a bigger tensor (padded rows, every other matrix) keep
    their strides; out may be strided too."""
    a = FakeTensor((3, 64, 64), strides=(2 * 64 * 80, 80, 1))
    b = FakeTensor((3, 64, 48), strides=(64 * 56 + 8, 56, 1))
    out = FakeTensor((3, 64, 48), strides=(7000, 50, 1))
    assert tilec.bmm(a, b, out=out, artifacts=bmm_artifacts) is out
    p = params_of(launches[0])
    assert launches[0][0].name == "gemm_batched_bf16_bf16_brow"
    assert (p["lda"], p["ldb"], p["ldc"], p["sa"], p["sb"], p["sc"]) == (
        80, 56, 50, 2 * 64 * 80, 64 * 56 + 8, 7000)


def test_bmm_column_major_b(launches, bmm_artifacts):
    w = FakeTensor((5, 48, 64))  # [batch, N, K]; b = w.transpose(1, 2)
    b = FakeTensor((5, 64, 48), strides=(48 * 64, 1, 64))
    tilec.bmm(FakeTensor((5, 16, 64)), b, artifacts=bmm_artifacts)
    assert launches[0][0].name == "gemm_batched_bf16_bf16_bcol"
    p = params_of(launches[0])
    assert (p["ldb"], p["sb"]) == (64, 48 * 64) and w.shape == (5, 48, 64)


def test_bmm_single_matrix_and_single_row(launches, bmm_artifacts):
    """Strides the kernel never follows (the batch stride of one matrix,
    the row stride of one row) get values whole 16-byte chunks."""
    tilec.bmm(FakeTensor((1, 1, 33), strides=(33, 33, 1)),
              FakeTensor((1, 33, 64), strides=(5, 64, 1)), artifacts=bmm_artifacts)
    p = params_of(launches[0])
    assert launches[0][0].name == "gemm_batched_bf16_bf16_brow"
    assert (p["lda"], p["sa"], p["sb"]) == (40, 40, 33 * 64)


def test_bmm_shared_matrix_by_zero_batch_stride(launches, bmm_artifacts):
    """An expanded b (batch stride 0, torch's b.expand) shares one matrix."""
    b = FakeTensor((6, 32, 64), strides=(0, 64, 1))
    tilec.bmm(FakeTensor((6, 8, 32)), b, artifacts=bmm_artifacts)
    p = params_of(launches[0])
    assert launches[0][0].name == "gemm_batched_bf16_bf16_brow" and p["sb"] == 0


@pytest.mark.parametrize("a", [
    FakeTensor((2, 64, 64), offset=2),  # base 2 bytes off
    FakeTensor((2, 64, 33)),  # rows of 66 bytes
    FakeTensor((2, 64, 64), strides=(64 * 64 + 4, 64, 1)),  # matrices 8 bytes off
], ids=["base", "row_stride", "batch_stride"])
def test_bmm_unaligned_operands_take_the_any_strides_variant(launches, bmm_artifacts, a):
    b = FakeTensor((2, a.shape[2], 64))
    tilec.bmm(a, b, artifacts=bmm_artifacts)
    tilec.bmm(FakeTensor((2, 64, a.shape[2]), strides=(64 * 72, 72, 1)), b,
              artifacts=bmm_artifacts)
    names = [launcher.name for launcher, _ in launches]
    assert names == ["gemm_batched_bf16_bf16_brow_aligned0", "gemm_batched_bf16_bf16_brow"]


def test_bmm_unaligned_with_explicit_config_is_refused(launches, tmp_path):
    """With config given there is no variant switch: the kernel's
    requirements are checked and named."""
    write_bmm(str(tmp_path), config={"stages": 3})
    a = FakeTensor((2, 64, 64), strides=(64 * 64 + 4, 64, 1))
    with pytest.raises(tilec.ArgumentError,
                       match=r"tilec.bmm: the batch stride of a \(a.stride\(0\)\) = 4100 must be "
                             r"a multiple of 8"):
        tilec.bmm(a, FakeTensor((2, 64, 64)), config={"stages": 3}, artifacts=str(tmp_path))
    with pytest.raises(tilec.ArgumentError, match="tilec.bmm: b must be 16-byte aligned"):
        tilec.bmm(FakeTensor((2, 64, 64)), FakeTensor((2, 64, 64), offset=8),
                  config={"stages": 3}, artifacts=str(tmp_path))
    assert launches == []


def test_bmm_compiles_when_no_artifact(launches, library):
    """Without artifacts the kernels are compiled and their real metadata
    checks the values: the fast kernel, then the any-strides one."""
    tilec.bmm(FakeTensor((3, 8, 16)), FakeTensor((3, 16, 8)), chip="sm_80")
    tilec.bmm(FakeTensor((3, 8, 12)), FakeTensor((3, 12, 8)), chip="sm_80")
    assert [launcher.name for launcher, _ in launches] == [
        "gemm_batched_bf16_bf16_brow", "gemm_batched_bf16_bf16_brow_aligned0"]
    assert launches[0][0].meta["chip"] == "sm_80" and launches[0][0].cubin[:4] == b"\x7fELF"
    assert launches[0][0].meta["params"][-2]["divisibility"] == 8  # sb
    assert params_of(launches[1])["lda"] == 12 and params_of(launches[1])["sa"] == 96


def test_bmm_epilogue_variant(launches, tmp_path):
    variant = dict(out_dtype="f32", bias=True, activation="relu")
    name = write_bmm(str(tmp_path), **variant)
    bias = FakeTensor((32,), "float32", offset=4096)
    out = tilec.bmm(FakeTensor((2, 16, 64)), FakeTensor((2, 64, 32)), bias=bias,
                    activation="relu", out_dtype="float32", artifacts=str(tmp_path))
    assert out.dtype == "torch.float32" and out.shape == (2, 16, 32)
    assert launches[0][0].name == name == "gemm_batched_bf16_f32_brow_bias_relu"
    assert params_of(launches[0])["bias"] == bias.data_ptr()


@pytest.mark.parametrize("shape,expected", [
    # 8 matrices of 128 x 4001: 128 tiles stacked, the default tile; no
    # TMA store either way (a single matrix would take block_n 128 and
    # tma_store 0).
    ((8, 128, 4001, 64), ""),
    # 2 x 128 x 1024: 8 tiles, narrow N tiles.
    ((2, 128, 1024, 64), "_block_n64"),
    ((4, 128, 4096, 64), "_block_n128"),
    ((1, 4096, 4096, 4096), ""),
])
def test_bmm_shape_class_dispatch(launches, tmp_path, shape, expected):
    """sm_90a: the shape class of the matrices stacked (batch * M rows), as
    the compiler sees a static batched GEMM; never a tma_store field (a
    batched GEMM has no TMA store)."""
    batch, m, n, k = shape
    config = kernels.gemm_shape_config(batch * m, n, k, "sm_90a")
    if config:
        config.pop("tma_store", None)
    assert gemm_config_suffix(config) == expected
    name = write_bmm(str(tmp_path), config=config or None)
    n_pad = -(-n // 8) * 8
    b = FakeTensor((batch, k, n), strides=(k * n_pad, n_pad, 1))
    tilec.bmm(FakeTensor((batch, m, k)), b, chip="sm_90a", artifacts=str(tmp_path))
    assert launches[0][0].name == name == "gemm_batched_bf16_bf16_brow" + expected


# -- zero sizes -------------------------------------------------------------------


@pytest.mark.parametrize("shape", [(0, 16, 16, 16), (3, 0, 16, 16), (3, 16, 0, 16)])
def test_bmm_empty_problem_launches_nothing(launches, shape):
    batch, m, n, k = shape
    out = tilec.bmm(FakeTensor((batch, m, k)), FakeTensor((batch, k, n)))
    assert out.shape == (batch, m, n) and launches == []
    given = FakeTensor((batch, m, n))
    assert tilec.bmm(FakeTensor((batch, m, k)), FakeTensor((batch, k, n)), out=given) is given
    assert given.filled is None and launches == []


def test_bmm_zero_k_gives_zeros_without_a_launch(launches):
    """K = 0: torch.bmm's zeros (every activation keeps 0), no kernel."""
    out = tilec.bmm(FakeTensor((3, 5, 0)), FakeTensor((3, 0, 7)), activation="silu")
    assert out.shape == (3, 5, 7) and out.filled == 0
    given = FakeTensor((3, 5, 7), "float32")
    assert tilec.bmm(FakeTensor((3, 5, 0)), FakeTensor((3, 0, 7)), out=given) is given
    assert given.filled == 0 and launches == []


# -- refusals ---------------------------------------------------------------------


def test_bmm_shapes(launches):
    a, b = FakeTensor((2, 4, 8)), FakeTensor((2, 8, 4))
    with pytest.raises(tilec.ArgumentError,
                       match=r"tilec.bmm: a and b must be 3-D \[batch, rows, cols\], got shapes "
                             r"\[4, 8\] and \[2, 8, 4\] \(2-D matrices: tilec.gemm\)"):
        tilec.bmm(FakeTensor((4, 8)), b)
    with pytest.raises(tilec.ArgumentError,
                       match=r"a and b must have the same batch size, got 2 and 3 \(expand the "
                             r"one to share: b.expand\(2, -1, -1\)\)"):
        tilec.bmm(a, FakeTensor((3, 8, 4)))
    with pytest.raises(tilec.ArgumentError,
                       match="inner dimensions differ: a is 2x4x8, b is 2x9x4"):
        tilec.bmm(a, FakeTensor((2, 9, 4)))
    with pytest.raises(tilec.ArgumentError, match=r"out must be 2x4x4, got \[2, 4, 5\]"):
        tilec.bmm(a, b, out=FakeTensor((2, 4, 5)))
    with pytest.raises(tilec.ArgumentError,
                       match=r"bias must have shape \[4\] \(shared by all matrices\), got "
                             r"\[2, 4\]"):
        tilec.bmm(a, b, bias=FakeTensor((2, 4)))
    assert launches == []


def test_bmm_layouts(launches):
    a, b = FakeTensor((2, 64, 64)), FakeTensor((2, 64, 64))
    with pytest.raises(tilec.ArgumentError,
                       match=r"a must have unit stride along its last dimension \(K\); got "
                             r"strides \(4096, 1, 64\) -- pass a.contiguous\(\)"):
        tilec.bmm(FakeTensor((2, 64, 64), strides=(4096, 1, 64)), b)
    with pytest.raises(tilec.ArgumentError,
                       match=r"b's matrices must have unit stride along one dimension \(row- or "
                             r"column-major\); got strides \(8192, 128, 2\) -- pass "
                             r"b.contiguous\(\)"):
        tilec.bmm(a, FakeTensor((2, 64, 64), strides=(8192, 128, 2)))
    with pytest.raises(tilec.ArgumentError,
                       match=r"out must have unit stride along its last dimension \(N\)"):
        tilec.bmm(a, b, out=FakeTensor((2, 64, 64), strides=(4096, 1, 64)))
    with pytest.raises(tilec.ArgumentError,
                       match=r"out's matrices overlap \(batch stride 0, an expanded tensor\)"):
        tilec.bmm(a, b, out=FakeTensor((2, 64, 64), strides=(0, 64, 1)))
    with pytest.raises(tilec.ArgumentError, match="bias must be contiguous, got stride 2"):
        tilec.bmm(a, b, bias=FakeTensor((64,), strides=(2,)))
    assert launches == []


def test_bmm_dtypes(launches):
    a, b = FakeTensor((2, 4, 8)), FakeTensor((2, 8, 4))
    with pytest.raises(tilec.DTypeError,
                       match=r"tilec.bmm: a must be bf16, f16, f32, float8 \(e4m3, e5m2\) or "
                             r"int8, got f64"):
        tilec.bmm(FakeTensor((2, 4, 8), "float64"), FakeTensor((2, 8, 4), "float64"))
    with pytest.raises(tilec.DTypeError, match="a and b must have the same dtype, got bf16 and f16"):
        tilec.bmm(a, FakeTensor((2, 8, 4), "float16"))
    with pytest.raises(tilec.DTypeError, match="out is bf16 but out_dtype=f32"):
        tilec.bmm(a, b, out=FakeTensor((2, 4, 4)), out_dtype="f32")
    with pytest.raises(tilec.DTypeError, match="the output must be bf16, f16 or f32, got i32"):
        tilec.bmm(a, b, out_dtype="int32")
    with pytest.raises(tilec.DTypeError, match=r"bias must be f32 \(the output dtype\), got bf16"):
        tilec.bmm(a, b, out_dtype="f32", bias=FakeTensor((4,)))
    with pytest.raises(TypeError):  # DTypeError is also a TypeError
        tilec.bmm(a, FakeTensor((2, 8, 4), "float16"))
    assert launches == []


def test_bmm_k_major_dtypes(launches):
    """f32, float8 and int8 inputs need a column-major b (read K-major),
    as tilec.gemm; int8 takes no epilogue."""
    for dtype, name in (("float32", "f32"), ("float8_e4m3fn", "f8e4m3"), ("int8", "i8")):
        with pytest.raises(tilec.ArgumentError,
                           match=rf"an {name} b must be column-major \(unit stride along K, e.g. "
                                 rf"w.transpose\(1, 2\) of a \[batch, N, K\] w\)"):
            tilec.bmm(FakeTensor((2, 64, 64), dtype), FakeTensor((2, 64, 64), dtype))
    i8 = FakeTensor((2, 64, 64), "int8")
    with pytest.raises(tilec.ArgumentError, match="int8 inputs take no bias or activation"):
        tilec.bmm(i8, i8, activation="relu")
    with pytest.raises(tilec.DTypeError, match=r"int8 inputs give int32 .* not bf16"):
        tilec.bmm(i8, i8, out_dtype="bf16")
    assert launches == []


def test_bmm_epilogue_arguments_and_devices(launches):
    a, b = FakeTensor((2, 4, 8)), FakeTensor((2, 8, 4))
    with pytest.raises(tilec.ArgumentError,
                       match="activation must be None, 'relu', 'gelu' or 'silu', not 'tanh'"):
        tilec.bmm(a, b, activation="tanh")
    with pytest.raises(tilec.ArgumentError, match="a is on cpu; tilec kernels need CUDA"):
        tilec.bmm(FakeTensor((2, 4, 8), device="cpu"), b)
    with pytest.raises(tilec.ArgumentError, match="bias is on cuda:1 but a is on cuda:0"):
        tilec.bmm(a, b, bias=FakeTensor((4,), device="cuda:1"))
    with pytest.raises(TypeError, match="a must be a tensor"):
        tilec.bmm([[[1.0]]], b)
    assert launches == []


def test_bmm_cuda_array_interface_objects(launches, tmp_path):
    """CuPy-style arrays take the checked path (no plan) and launch on
    their own kind's stream."""
    name = write_bmm(str(tmp_path), dtype="f16")
    a, b = FakeCupyArray((3, 16, 32)), FakeCupyArray((3, 32, 8), ptr=BASE + 4096)
    out = FakeTensor((3, 16, 8), "float16", offset=8192)
    tilec.bmm(a, b, out=out, artifacts=str(tmp_path))
    assert launches[0][0].name == name
    assert params_of(launches[0])["sb"] == 32 * 8


# -- plans ----------------------------------------------------------------------------


@pytest.fixture
def fakes():
    torch, driver = fake_cuda.install()
    yield torch, driver
    fake_cuda.uninstall()


def formats_of(meta):
    """The fake driver's struct format of each kernel parameter."""
    codes = {"i32": "i", "f32": "f"}
    return ["Q" if p["kind"] == "pointer" else codes[p["dtype"]] for p in meta["params"]] + [
        "128s"] * len(meta.get("tensor_maps") or [])


@pytest.mark.parametrize("chip", ["sm_80", "sm_90a"])
def test_bmm_plans(fakes, library, tmp_path, chip):
    """Repeated calls reuse a plan (prepared launch) and re-pack new
    pointers; a misaligned call takes the any-strides kernel and a plan of
    its own, leaving the aligned one in place. Real compiled kernels (3-D
    tensor maps on sm_90a), the fake driver."""
    torch, driver = fakes
    root = str(tmp_path / "artifacts")
    metas = {}
    for config in (None, {"aligned": 0}):
        name = gemm_name(batched=True) + gemm_config_suffix(config)
        _, src = gemm_source(batched=True, config=config, name=name)
        result = compiled(src, chip, None if chip == "sm_90a" else "sm_90")
        result.save(os.path.join(root, chip), source=src)
        metas[config is None] = result[name].metadata
    meta = metas[True]
    names = [q["name"] for q in meta["params"]]
    driver.param_formats = formats_of(meta)
    where = dict(chip=chip, artifacts=root)
    a, b = fake_cuda.tensor((4, 96, 64)), fake_cuda.tensor((4, 64, 80))
    out = fake_cuda.tensor((4, 96, 80))
    for _ in range(3):
        assert tilec.bmm(a, b, out=out, **where) is out
    assert len(plans._tls.plans) == 1 and len(driver.launches) == 3
    launch = driver.launches[-1]
    p = dict(zip(names, launch["params"]))
    assert (p["A"], p["B"], p["C"]) == (a.data_ptr(), b.data_ptr(), out.data_ptr())
    assert (p["batch"], p["M"], p["N"], p["K"], p["sa"], p["sb"], p["sc"]) == (
        4, 96, 80, 64, 96 * 64, 64 * 80, 96 * 80)
    if chip == "sm_90a":
        maps = [fake_cuda.decode_tensor_map(blob) for blob in launch["params"][len(names):]]
        # (base, dims, byte strides of dims 1 and 2): 3-D maps over the batch.
        assert maps[0] == (a.data_ptr(), [64, 96, 4], [128, 96 * 64 * 2])
        assert maps[1] == (b.data_ptr(), [80, 64, 4], [160, 64 * 80 * 2])
    else:
        assert launch["grid"] == (1 * 1 * 4, 1, 1)
    # New pointers, same metadata: the plan re-packs them.
    a2 = fake_cuda.tensor((4, 96, 64))
    tilec.bmm(a2, b, out=out, **where)
    assert dict(zip(names, driver.launches[-1]["params"]))["A"] == a2.data_ptr()
    assert len(plans._tls.plans) == 1
    # An allocated out: a plan that allocates.
    allocated = tilec.bmm(a, b, **where)
    assert allocated.shape == (4, 96, 80) and allocated is not out
    assert dict(zip(names, driver.launches[-1]["params"]))["C"] == allocated.data_ptr()
    # A base 2 bytes off: the any-strides kernel, a plan of its own.
    driver.param_formats = formats_of(metas[False])
    shifted = fake_cuda.tensor((4, 96, 64), offset=2)
    tilec.bmm(shifted, b, out=out, **where)
    assert driver.launches[-1]["params"][0] == shifted.data_ptr()
    driver.param_formats = formats_of(meta)
    tilec.bmm(a, b, out=out, **where)
    assert dict(zip(names, driver.launches[-1]["params"]))["A"] == a.data_ptr()
    assert len(plans._tls.plans) == 3 and len(driver.launches) == 7
    assert {name for name, *_ in plans._kernels} == {gemm_name(batched=True),
                                                   gemm_name(batched=True) + "_aligned0"}
