"""tilec.attention_with_kvcache: the decode kernels it writes (they
compile, ptxas included), the split count the compiler's rule picks, the
kernels and launch values a call passes (fake driver), and the refusals."""

import pytest

import tilec
from test_ops import FakeTensor, launches, write_artifact  # noqa: F401 - the fixture
from tilec.serving_kernels import (attention_decode_name, attention_decode_source,
                           attention_decode_splits, attention_decode_stage_names)


@pytest.mark.parametrize("chip", ["sm_80", "sm_90a"])
@pytest.mark.parametrize("one_query,causal,splits", [(True, False, 1), (True, False, 4),
                                                     (False, True, 2)])
def test_decode_sources_compile(library, tmp_path, chip, one_query, causal, splits):
    name, source = attention_decode_source("bf16", 128, one_query, causal, splits)
    assert name == attention_decode_name("bf16", 128, one_query, causal, splits)
    result = tilec.compile(source, chip=chip, cache_dir=tmp_path, keep="all")
    stages = attention_decode_stage_names(name, splits)
    assert sorted(result.kernels) == sorted(stages)
    split = result[stages[0]]
    assert ("wgmma.mma_async" in split.ptx) == (chip == "sm_90a")
    assert split.cubin[:4] == b"\x7fELF"


def test_decode_splits_rule():
    """Split until the programs fill the SMs, ranges of at least 4 blocks,
    powers of two; no split where the batch fills the chip or the cache is
    short."""
    # 1 x 8 K/V heads on 132 SMs, 32k keys: 8 programs -> 16 ranges.
    assert attention_decode_splits("sm_90a", 1, 8, 4, 32768, 128, 132) == 16
    assert attention_decode_splits("sm_90a", 8, 8, 4, 4096, 128, 132) == 2
    assert attention_decode_splits("sm_90a", 128, 8, 4, 4096, 128, 132) == 1
    assert attention_decode_splits("sm_90a", 1, 8, 4, 512, 128, 132) == 1
    for batch in (1, 2, 3, 5, 16):
        s = attention_decode_splits("sm_90a", batch, 8, 4, 16384, 128, 132)
        assert s & (s - 1) == 0 and 1 <= s <= 32


def _write_decode_artifacts(directory, chip, one_query, causal, splits, page_size=0):
    """The decode kernels compiled for real (their metadata) and stored as
    prebuilt artifacts."""
    name, source = attention_decode_source("bf16", 128, one_query, causal, splits,
                                           page_size=page_size)
    result = tilec.compile(source, chip=chip)
    stages = attention_decode_stage_names(name, splits)
    for stage in stages:
        write_artifact(directory, stage, source, result[stage].metadata, chip)
    return name, [p["name"] for p in result[stages[0]].metadata["params"]]


def _kv(batch, seq, heads, dim=128):
    return FakeTensor((batch, seq, heads, dim))


@pytest.fixture
def staged_offsets(patch_host):
    """Staged launches go straight to the (fake) driver (a plan needs
    torch); records the workspace offsets each passes."""
    from tilec import launch
    seen, real = [], launch._launch_stages

    def direct(key, stages, values, kind, device_index, names, allocate, workspace,
               offsets=None, allocate_lse=None):
        seen.append(offsets)
        real(None, stages, values, kind, device_index, names, allocate, workspace, offsets,
             allocate_lse)
    patch_host("_launch_stages", direct)
    return seen


def test_split_decode_launches(library, launches, tmp_path, staged_offsets):  # noqa: F811
    """Split-KV: the split kernel, then the combine kernel, with the same
    launch values; WL points into the workspace after WO's S x rows x D
    floats (as a plan rebinds it); q, out and the caches passed as [batch,
    heads, seq, dim]."""
    name, params = _write_decode_artifacts(str(tmp_path), "sm_90a", True, False, 4)
    seen = staged_offsets
    q = FakeTensor((3, 1, 32, 128))
    lens = FakeTensor((3,), "int32")
    tilec.attention_with_kvcache(q, _kv(3, 4096, 8), _kv(3, 4096, 8), cache_seqlens=lens,
                                 num_splits=4, chip="sm_90a", artifacts=str(tmp_path))
    assert [launcher.name for launcher, _ in launches] == [name + "_split", name + "_combine"]
    (_, split_args), (_, combine_args) = launches
    assert split_args == combine_args
    values = dict(zip(params, split_args))
    rows = 3 * 32
    assert values["WL"] - values["WO"] == 4 * rows * 128 * 4
    assert seen == [{"WO": 0, "WL": 4 * rows * 128 * 4}]
    assert (values["ROWS"], values["wo_split"]) == (rows, rows * 128)
    assert (values["B"], values["H"], values["HK"], values["SK"]) == (3, 32, 8, 4096)
    assert (values["kv_batch"], values["kv_head"], values["kv_seq"]) == (4096 * 8 * 128, 128,
                                                                       8 * 128)
    assert (values["q_batch"], values["q_head"]) == (32 * 128, 128)


def test_unsplit_decode_launch(library, launches, tmp_path):  # noqa: F811
    name, _ = _write_decode_artifacts(str(tmp_path), "sm_90a", True, False, 1)
    q = FakeTensor((64, 1, 32, 128))
    tilec.attention_with_kvcache(q, _kv(64, 1024, 8), _kv(64, 1024, 8),
                                 cache_seqlens=FakeTensor((64,), "int32"), num_splits=1,
                                 chip="sm_90a", artifacts=str(tmp_path))
    assert [launcher.name for launcher, _ in launches] == [name]


def test_paged_decode_launch(library, launches, tmp_path, staged_offsets):  # noqa: F811
    """A paged cache: the pools [pages, page_size, kv_heads, D] read as
    [pages, kv_heads, page_size, D], the table's pages and columns."""
    name, params = _write_decode_artifacts(str(tmp_path), "sm_90a", True, False, 2, 64)
    assert name.endswith("_paged64_split2")
    q = FakeTensor((2, 1, 32, 128))
    pool = FakeTensor((40, 64, 8, 128))
    table = FakeTensor((2, 20), "int32")
    tilec.attention_with_kvcache(q, pool, pool, cache_seqlens=FakeTensor((2,), "int32"),
                                 block_table=table, num_splits=2, chip="sm_90a",
                                 artifacts=str(tmp_path))
    assert [launcher.name for launcher, _ in launches] == [name + "_split", name + "_combine"]
    values = dict(zip(params, launches[0][1]))
    assert (values["PAGES"], values["MAXP"]) == (40, 20)
    assert (values["kv_batch"], values["kv_head"], values["kv_seq"]) == (64 * 8 * 128, 128,
                                                                       8 * 128)


def test_kvcache_refusals(launches):  # noqa: F811
    q = FakeTensor((2, 1, 32, 128))
    kv = _kv(2, 512, 8)
    lens = FakeTensor((2,), "int32")
    with pytest.raises(tilec.ArgumentError, match="incompatible shapes"):
        tilec.attention_with_kvcache(q, _kv(2, 512, 6), _kv(2, 512, 6), cache_seqlens=lens)
    with pytest.raises(tilec.ArgumentError, match="head_dim must be 64, 128 or 256"):
        tilec.attention_with_kvcache(FakeTensor((2, 1, 32, 96)), _kv(2, 512, 8, 96),
                                     _kv(2, 512, 8, 96), cache_seqlens=lens)
    with pytest.raises(tilec.DTypeError, match="must be bf16 or f16"):
        tilec.attention_with_kvcache(FakeTensor((2, 1, 32, 128), "float32"), kv, kv,
                                     cache_seqlens=lens)
    with pytest.raises(tilec.ArgumentError, match="same strides"):
        tilec.attention_with_kvcache(q, kv, FakeTensor((2, 512, 8, 128),
                                                       strides=(512 * 8 * 256, 8 * 256, 256, 1)),
                                     cache_seqlens=lens)
    with pytest.raises(tilec.ArgumentError, match=r"int32 tensor \[2\]"):
        tilec.attention_with_kvcache(q, kv, kv, cache_seqlens=FakeTensor((3,), "int32"))
    with pytest.raises(tilec.ArgumentError, match="outside the cache's"):
        tilec.attention_with_kvcache(q, kv, kv, cache_seqlens=600)
    with pytest.raises(tilec.ArgumentError, match="num_splits must be"):
        tilec.attention_with_kvcache(q, kv, kv, cache_seqlens=lens, num_splits=-1,
                                     chip="sm_90a")
    with pytest.raises(tilec.ArgumentError, match="both k and v"):
        tilec.attention_with_kvcache(q, kv, kv, k=kv, cache_seqlens=lens)
    table = FakeTensor((2, 8), "int32")
    with pytest.raises(tilec.ArgumentError, match="needs cache_seqlens"):
        tilec.attention_with_kvcache(q, kv, kv, block_table=table)
    with pytest.raises(tilec.ArgumentError, match="power of two from 16 to 256, got 48"):
        tilec.attention_with_kvcache(q, _kv(10, 48, 8), _kv(10, 48, 8), cache_seqlens=lens,
                                     block_table=table)
    with pytest.raises(tilec.ArgumentError, match=r"block_table must be an int32 tensor \[2"):
        tilec.attention_with_kvcache(q, _kv(10, 64, 8), _kv(10, 64, 8), cache_seqlens=lens,
                                     block_table=FakeTensor((3, 8), "int32"))
    assert launches == []


def test_int_seqlens_made_once(monkeypatch):
    """An int cache_seqlens becomes a device tensor once per (device,
    batch, length): repeated decode steps allocate and fill nothing."""
    from tilec import op_kvcache
    made = []

    class Lens(FakeTensor):
        def fill_(self, n):
            self.value = n

    def allocate(like, shape, dtype, row_quantum=1):
        made.append(Lens(shape, "int32"))
        return made[-1]
    monkeypatch.setattr(op_kvcache, "_allocate", allocate)
    monkeypatch.setattr(op_kvcache, "_filled_lens", {})
    q, kv = FakeTensor((2, 1, 32, 128)), _kv(2, 512, 8)
    first = op_kvcache._seqlens("op", q, kv, 100)
    assert op_kvcache._seqlens("op", q, kv, 100) is first
    other = op_kvcache._seqlens("op", q, kv, 200)
    assert other is not first and (first.value, other.value) == (100, 200)
    assert op_kvcache._seqlens("op", FakeTensor((3, 1, 32, 128)), _kv(3, 512, 8), 100) \
        is not first
    assert len(made) == 3
