"""tilec.compile through libtilec-c.so: artifacts, metadata, stages, errors."""

import json
import os

import pytest

import tilec
from tilec import artifacts
from conftest import SCALE_SOURCE


def test_library_reports_version_and_chips(library):
    assert library.version == tilec.__version__
    assert "sm_80" in library.supported_chips and "sm_90a" in library.supported_chips


def test_compile_to_cubin(library, tmp_path):
    result = tilec.compile(SCALE_SOURCE, chip="sm_80", cache_dir=tmp_path, keep="all")
    assert result.kept == {"llvm", "ptx", "cubin"}
    assert result.names == ["scale"]
    assert ".target sm_80" in result.ptx
    assert ".entry scale" in result.ptx
    assert result.cubin[:4] == b"\x7fELF"
    assert result["scale"].cubin == result.cubin
    assert result[0].name == "scale"
    assert result.stages == []
    assert result["scale"].llvm and "define" in result["scale"].llvm


def test_emit_ptx_has_no_cubin(library, tmp_path):
    result = tilec.compile(SCALE_SOURCE, chip="sm_90a", emit="ptx", cache_dir=tmp_path)
    assert ".target sm_90a" in result.ptx
    assert result.cubin is None
    with pytest.raises(ValueError, match="no cubin"):
        result["scale"].launcher()


def test_emit_mlir_gives_the_nvvm_module(library, tmp_path):
    result = tilec.compile(SCALE_SOURCE, chip="sm_89", emit="mlir", cache_dir=tmp_path)
    kernel = result["scale"]
    assert kernel.mlir.startswith("gpu.module @scale")
    assert "nvvm.kernel" in kernel.mlir
    assert kernel.ptx is None and kernel.cubin is None


def test_metadata_contents(library, tmp_path):
    meta = tilec.compile(SCALE_SOURCE, chip="sm_80", cache_dir=tmp_path).metadata
    assert meta["kernel"] == "scale"
    assert meta["chip"] == "sm_80" and meta["cubin_arch"] == "sm_80"
    assert meta["tilec_version"] == library.version
    assert meta["grid"] == ["ceildiv(n, 512)"]
    assert meta["block"][0] == 32 * meta["num_warps"]
    assert [(p["name"], p["kind"], p["dtype"]) for p in meta["params"]] == [
        ("x", "pointer", "f32"), ("n", "scalar", "i32")]
    assert meta["cluster"] == [1, 1, 1]
    assert meta["tensor_maps"] == [] or meta["tensor_maps"] is None


def test_cubin_arch_is_recorded(library, tmp_path):
    result = tilec.compile(SCALE_SOURCE, chip="sm_80", cubin_arch="sm_90", cache_dir=tmp_path,
                           keep=("ptx",))
    assert result.metadata["cubin_arch"] == "sm_90"
    assert ".target sm_80" in result.ptx


def test_gemm_metadata_sm90a(library, tmp_path):
    """The warp-specialized Hopper GEMM declares what its launch needs:
    16-byte aligned operands, leading dimensions in 16-byte units, TMA
    descriptors for A and B, a persistent grid."""
    name, source = tilec.kernels.gemm_source()
    result = tilec.compile(source, chip="sm_90a", emit="ptx", cache_dir=tmp_path)
    meta = result[name].metadata
    params = {p["name"]: p for p in meta["params"]}
    assert params["A"]["align"] == 16 and params["B"]["align"] == 16
    assert params["lda"]["divisibility"] == 8 and params["ldb"]["divisibility"] == 8
    assert {"A", "B"} <= {m["base"] for m in meta["tensor_maps"]}
    assert meta["persistent"] is True
    assert meta["smem_bytes"] > 48 * 1024


def test_stages_on_request(library, tmp_path):
    result = tilec.compile(SCALE_SOURCE, chip="sm_80", emit="ptx", stages=True,
                           cache_dir=tmp_path)
    names = [name for name, _ in result.stages]
    assert names[0] == "input"
    assert "tile.kernel @scale" in result.stage("input")
    assert "tile-attach-target" in names
    assert "tile-assign-layouts @scale" in names
    assert "convert-tile-to-nvvm @scale" in names
    assert names.index("tile-attach-target") < names.index("convert-tile-to-nvvm @scale")
    assert "#tile.blocked" in result.stage("tile-assign-layouts @scale")
    assert result["scale"].mlir.startswith("gpu.module @scale")
    with pytest.raises(KeyError, match="recorded: input"):
        result.stage("no-such-pass")


def test_compile_from_path(library, tmp_path):
    path = tmp_path / "scale.mlir"
    path.write_text(SCALE_SOURCE)
    by_path = tilec.compile(path, chip="sm_80", emit="ptx", cache_dir=tmp_path / "c")
    by_str = tilec.compile(str(path), chip="sm_80", emit="ptx", cache_dir=tmp_path / "c")
    assert by_path.ptx == by_str.ptx
    with pytest.raises(FileNotFoundError):
        tilec.compile(str(tmp_path / "missing.mlir"), chip="sm_80")


def test_deterministic_ptx(library, tmp_path):
    first = tilec.compile(SCALE_SOURCE, chip="sm_90a", emit="ptx", cache=False)
    second = tilec.compile(SCALE_SOURCE, chip="sm_90a", emit="ptx", cache=False)
    assert first.ptx == second.ptx


def test_several_kernels(library, tmp_path):
    source = SCALE_SOURCE + SCALE_SOURCE.replace("@scale", "@scale_again")
    result = tilec.compile(source, chip="sm_80", emit="ptx", cache_dir=tmp_path)
    assert result.names == ["scale", "scale_again"]
    assert len(result) == 2 and [k.name for k in result] == result.names
    with pytest.raises(ValueError, match="2 kernels"):
        result.ptx
    with pytest.raises(KeyError, match="compiled: scale, scale_again"):
        result["nope"]


def test_save_and_find_artifacts(library, tmp_path):
    result = tilec.compile(SCALE_SOURCE, chip="sm_80", cache_dir=tmp_path / "c",
                           keep=("ptx", "cubin"))
    result.save(tmp_path / "art" / "sm_80", source=SCALE_SOURCE)
    for ext in (".json", ".cubin", ".ptx", ".source.mlir"):
        assert (tmp_path / "art" / "sm_80" / ("scale" + ext)).is_file()
    meta, cubin = artifacts.find(str(tmp_path / "art"), "sm_80", "scale", SCALE_SOURCE)
    assert meta == result.metadata and cubin == result.cubin
    assert artifacts.find(str(tmp_path / "art"), "sm_90a", "scale") is None
    # Only some compiler outputs: the kernel is still found.
    result.save(tmp_path / "lean" / "sm_80", source=SCALE_SOURCE, stages=("cubin",))
    assert sorted(p.name for p in (tmp_path / "lean" / "sm_80").iterdir()) == [
        "scale.cubin", "scale.json", "scale.source.mlir"]
    assert artifacts.find(str(tmp_path / "lean"), "sm_80", "scale", SCALE_SOURCE)[1] == result.cubin
    with pytest.raises(ValueError, match=r"unknown stages \['sass'\]"):
        result.save(tmp_path / "lean" / "sm_80", stages=("sass",))
    with pytest.raises(tilec.ArtifactError, match="different source"):
        artifacts.find(str(tmp_path / "art"), "sm_80", "scale", SCALE_SOURCE + "\n")


def test_invalid_source_reports_diagnostics(library, tmp_path):
    with pytest.raises(tilec.CompileError) as info:
        tilec.compile("tile.kernel @broken(%x: !tile.ptr<f32>", chip="sm_80", cache_dir=tmp_path)
    assert "<source>:1:" in info.value.diagnostics
    assert "error:" in info.value.diagnostics
    assert "tilec failed to compile <source>" in str(info.value)


def test_verifier_error_names_the_file(library, tmp_path):
    bad = SCALE_SOURCE.replace("tensor<512xf32>\n  %two", "tensor<500xf32>\n  %two")
    path = tmp_path / "bad.mlir"
    path.write_text(bad)
    with pytest.raises(tilec.CompileError) as info:
        tilec.compile(path, chip="sm_80", cache_dir=tmp_path)
    assert f"{path}:6:" in info.value.diagnostics
    assert not list((tmp_path).glob("??/*")), "failures must not be cached"


def test_unknown_chip(library, tmp_path):
    with pytest.raises(tilec.CompileError, match=r"unknown chip 'sm_75'; expected one of sm_80"):
        tilec.compile(SCALE_SOURCE, chip="sm_75", cache_dir=tmp_path)


def test_no_kernel(library, tmp_path):
    with pytest.raises(tilec.CompileError, match="no tile.kernel to compile"):
        tilec.compile("module {}\n", chip="sm_80", cache_dir=tmp_path)


def test_invalid_emit_is_rejected_before_compiling(tmp_path):
    with pytest.raises(ValueError, match="emit must be one of mlir, llvm, ptx, cubin"):
        tilec.compile(SCALE_SOURCE, chip="sm_80", emit="sass", cache_dir=tmp_path)


def test_missing_library_is_a_clear_error(monkeypatch, tmp_path):
    from tilec import _capi
    monkeypatch.setenv("TILEC_LIBRARY", str(tmp_path / "nowhere" / "libtilec-c.so"))
    _capi.reset_library()
    try:
        with pytest.raises(tilec.CompilerNotFoundError, match="was not found; looked in: .*nowhere"):
            tilec.compile(SCALE_SOURCE, chip="sm_80", cache_dir=tmp_path)
    finally:
        monkeypatch.undo()
        _capi.reset_library()


def test_metadata_json_text_round_trips(library, tmp_path):
    kernel = tilec.compile(SCALE_SOURCE, chip="sm_80", emit="ptx", cache_dir=tmp_path)["scale"]
    assert json.loads(kernel.metadata_json) == kernel.metadata
    assert os.path.isdir(tmp_path)


def test_chip_is_required_without_a_gpu(monkeypatch, tmp_path):
    from tilec import targets

    def no_device(index=None):
        raise RuntimeError("no CUDA device")

    monkeypatch.setattr(targets, "device_capability", no_device)
    with pytest.raises(ValueError, match="chip= is required when no CUDA device is visible"):
        tilec.compile(SCALE_SOURCE, cache_dir=tmp_path)


def test_concurrent_compiles(library):
    """ctypes drops the GIL during tilecCompile: threads compiling at once
    must each get their own, correct result."""
    from concurrent.futures import ThreadPoolExecutor
    sources = [SCALE_SOURCE.replace("@scale", f"@scale{i}") for i in range(4)]
    with ThreadPoolExecutor(4) as pool:
        results = list(pool.map(lambda s: tilec.compile(s, chip="sm_80", emit="ptx", cache=False),
                                sources))
    assert [r.names for r in results] == [[f"scale{i}"] for i in range(4)]
    assert all(f".entry scale{i}" in r.ptx for i, r in enumerate(results))


def test_typed_configs_compile_and_name_fields(library, tmp_path):
    """tilec.kernels spells configs as the typed ``config <...>`` with
    integer values (bools and 0/1 give the same source, so the same
    artifact); a field the op's config does not have is refused by the
    compiler, naming it."""
    from tilec.kernels import (attention_source, config_clause, gemm_config_suffix,
                               gemm_source)
    assert config_clause({"tma_store": False, "block_n": 64}) == \
        " config <block_n = 64, tma_store = 0>"
    assert config_clause({"tma_store": False}) == config_clause({"tma_store": 0})
    assert config_clause({"persistent": 1}) == " config <persistent = 1>"
    assert config_clause(None) == ""
    # Kernel names keep their 0/1 spelling (artifact names do not change).
    assert gemm_config_suffix({"tma_store": False, "block_n": 64}) == "_block_n64_tma_store0"
    _, src = gemm_source(config={"block_n": 128, "tma_store": False})
    assert "config <block_n = 128, tma_store = 0>" in src
    assert tilec.compile(src, chip="sm_90a", emit="ptx", cache_dir=tmp_path).ptx
    _, src = attention_source(head_dim=64, causal=True, config={"persistent": True})
    assert tilec.compile(src, chip="sm_90a", emit="ptx", cache_dir=tmp_path).ptx
    _, src = gemm_source(config={"tile_q": 4})
    with pytest.raises(tilec.CompileError, match="unknown struct parameter name: tile_q"):
        tilec.compile(src, chip="sm_90a", emit="ptx", cache_dir=tmp_path)


def test_shape_rules_come_from_the_compiler(monkeypatch, tmp_path):
    """tilec.kernels' shape-class dispatch and the chip per capability are
    the compiler's rule (libtilec-rules.so), which loads without the
    compiler library; a missing rules library is a clear error."""
    from tilec import _rules, kernels, ops
    monkeypatch.setenv("TILEC_LIBRARY", str(tmp_path / "no-compiler" / "libtilec-c.so"))
    _rules.reset()
    try:
        assert kernels.gemm_shape_config(128, 8192, 8192, "sm_90a") == {"block_n": 64}
        assert kernels.gemm_shape_config(4096, 4096, 4096, "sm_90a") is None
        assert kernels.gemm_shape_config(4096, 4095, 4096, "sm_90a") == {"tma_store": 0}
        # A device with fewer SMs keeps wider tiles longer.
        assert kernels.gemm_shape_config(512, 4096, 4096, "sm_90a") == {"block_n": 128}
        assert kernels.gemm_shape_config(512, 4096, 4096, "sm_90a", num_sms=32) is None
        assert kernels.gemm_shape_config(128, 8192, 8192, "sm_80") is None
        assert kernels.attention_shape_config(1024, 128, True, "sm_90a") == {"persistent": 1}
        assert kernels.attention_shape_config(4096, 128, True, "sm_90a") is None
        assert kernels.attention_shape_config(1024, 256, True, "sm_90a") is None
        assert ops.chip_for_capability((10, 0)) == ("sm_90", "sm_100")
        # The attention backward's tiles (tile.attention_backward's rule):
        # 240 consumer registers for sm_90a's dK/dV kernel, 32-wide steps on
        # the mma.sync path at head dim 128, and on 99 KB chips an atomic
        # kernel of 64 keys.
        from scripts.common import backward_kernels
        assert _rules.attention_backward_config("sm_90a", 128, False) == {
            "consumer_regs": 240, "producer_regs": 24}
        assert backward_kernels.tiles_for("sm_90a", 64) == backward_kernels.Tiles(
            dq_n=128, dkv_consumer_regs=240)
        assert backward_kernels.tiles_for("sm_80", 128) == backward_kernels.Tiles(
            dq_n=32, dkv_m=32)
        assert backward_kernels.atomic_tiles_for("sm_80", 128).dkv_m == 16
        assert backward_kernels.atomic_tiles_for("sm_89", 128) == backward_kernels.Tiles(
            dkv_n=64, dkv_m=32, dkv_warps=4)
        monkeypatch.setenv("TILEC_RULES_LIBRARY", str(tmp_path / "missing.so"))
        _rules.reset()
        with pytest.raises(_rules.RulesNotFoundError, match="libtilec-rules.so.*missing.so"):
            kernels.gemm_shape_config(128, 8192, 8192, "sm_90a")
    finally:
        _rules.reset()


def test_shape_rules_text():
    """libtilec-rules.so writes the fields a rule sets as "field=value,..."
    under their #tile.*_config names, sorted by name, flags as 0 or 1
    (tilec::rules::formatConfig), which tilec._rules reads in that order; a
    short buffer is truncated and NUL-terminated, the full length returned."""
    import ctypes
    from tilec import _rules
    _rules.reset()
    try:
        lib = _rules._load()
        out = ctypes.create_string_buffer(256)
        both = _rules.CAN_SWAP_AB | _rules.CAN_SPLIT_K
        text = b"block_k=64,block_m=16,block_n=64,split_k=2,stages=8,swap_ab=1,warps=4"
        assert lib.tilecGemmShapeConfig(b"sm_80", 1, 4096, 14336, 132, both, out, 256) == len(text)
        assert out.value == text
        lib.tilecGemmShapeConfig(b"sm_90a", 1, 4096, 14336, 0, _rules.CAN_SWAP_AB, out, 256)
        assert out.value == b"block_k=128,block_m=16,block_n=64,swap_ab=1,tma_store=0,warps=4"
        lib.tilecGroupedGemmShapeConfig(b"sm_90a", 128, 4, 4096, 4096, 0, _rules.CAN_SWAP_AB,
                                        out, 256)
        assert out.value == b"block_k=128,block_m=32,block_n=64,swap_ab=1,warps=4"
        lib.tilecAttentionShapeConfig(b"sm_90a", 1024, 128, True, out, 256)
        assert out.value == b"persistent=1"
        assert lib.tilecAttentionShapeConfig(b"sm_80", 1024, 128, True, out, 256) == 0
        assert out.value == b""
        text = b"dkv_m=64,dkv_n=64,dq_m=64,dq_n=64,share_tiles=1"
        lib.tilecAttentionBackwardConfig(b"sm_90a", 256, False, out, 256)
        assert out.value == text
        short = ctypes.create_string_buffer(6)
        assert lib.tilecAttentionBackwardConfig(b"sm_90a", 256, False, short, 6) == len(text)
        assert short.raw == b"dkv_m\0"
        assert list(_rules.attention_backward_config("sm_90a", 256, False).items()) == [
            ("dkv_m", 64), ("dkv_n", 64), ("dq_m", 64), ("dq_n", 64), ("share_tiles", 1)]
        assert list(_rules.gemm_shape_config(4096, 4095, 4096, "sm_90a")) == ["tma_store"]
    finally:
        _rules.reset()


@pytest.mark.parametrize("chip", ["sm_89", "sm_90a"])
def test_fp8_attention_with_descale_tensors_compiles(library, tmp_path, chip):
    """tilec.kernels' FP8 attention that reads [batch, kv_heads] descale
    tensors on the device compiles on both FP8 paths, and its launch
    parameters are the descale pointers and their strides."""
    from tilec.kernels import attention_name, attention_source
    name, src = attention_source("f8e4m3", 128, True, descale_tensors=True)
    assert name == attention_name("f8e4m3", 128, True, True) == \
        "attention_f8e4m3_d128_causal_descale_tensors"
    assert "%dq = tile.make_view %DQ[%B, %HK] strides [%dq_batch, %dq_head]" in src
    result = tilec.compile(src, chip=chip, emit="ptx", cache_dir=tmp_path)
    params = [p["name"] for p in result[name].metadata["params"]]
    assert params[-9:] == ["DQ", "DK", "DV", "dq_batch", "dq_head", "dk_batch", "dk_head",
                           "dv_batch", "dv_head"]
    with pytest.raises(ValueError, match="descale tensors are for FP8 attention only"):
        attention_source("bf16", 128, descale_tensors=True)


DIVIDE_SOURCE = """
tile.kernel @divide(%x: !tile.ptr<f32> {tile.align = 16 : i64}, %n: i32) grid(ceildiv(%n, 512)) warps(4) {
  %c512 = arith.constant 512 : i32
  %pid = tile.program_id x
  %o = arith.muli %pid, %c512 : i32
  %v = tile.make_view %x[%n] strides [1] : !tile.ptr<f32>
  %t = tile.load %v[%o] : !tile.view<?xf32, strides = [1]> -> tensor<512xf32>
  %h = math.tanh %t : tensor<512xf32>
  %q = arith.divf %h, %t : tensor<512xf32>
  tile.store %q, %v[%o] : tensor<512xf32>, !tile.view<?xf32, strides = [1]>
  tile.return
}
"""


def test_fast_math_switch(library, tmp_path):
    """IEEE by default (div.rn, libdevice's tanh); fast_math=True gives the
    approximate instructions, and is part of the cache key."""
    ieee = tilec.compile(DIVIDE_SOURCE, chip="sm_80", emit="ptx", cache_dir=tmp_path)
    fast = tilec.compile(DIVIDE_SOURCE, chip="sm_80", emit="ptx", cache_dir=tmp_path,
                         fast_math=True)
    assert "div.rn.f32" in ieee.ptx and "tanh.approx" not in ieee.ptx
    assert "div.full.f32" in fast.ptx and "tanh.approx.f32" in fast.ptx
    assert "div.rn.f32" not in fast.ptx
    assert ieee.key != fast.key
    again = tilec.compile(DIVIDE_SOURCE, chip="sm_80", emit="ptx", cache_dir=tmp_path,
                          fast_math=True)
    assert again.from_cache and "div.full.f32" in again.ptx


def test_ptxas_statistics_in_metadata(library, tmp_path):
    meta = tilec.compile(SCALE_SOURCE, chip="sm_80", cache_dir=tmp_path).metadata
    stats = meta["ptxas"]
    assert stats["registers"] > 0
    assert stats["spill_store_bytes"] == 0 and stats["spill_load_bytes"] == 0
    ptx_only = tilec.compile(SCALE_SOURCE, chip="sm_80", emit="ptx", cache_dir=tmp_path).metadata
    assert "ptxas" not in ptx_only
