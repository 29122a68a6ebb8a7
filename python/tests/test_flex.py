"""tilec.flex_attention and tilec.create_block_mask (FlexAttention's
interface): score_mod / mask_mod callables traced into tile.attention's
regions, the kernels they name and compile to, and the refusals."""

import pytest

import tilec
from overhead_bench import attention_meta
from test_ops import FakeTensor, launches, write_artifact  # noqa: F401 - the fixture
from tilec import mods
from tilec.flex import causal_part
from tilec.kernels import attention_name, attention_source


def softcap(score, b, h, q_idx, kv_idx):
    return mods.tanh(score / 50.0) * 50.0


def sliding_causal(b, h, q_idx, kv_idx):
    return (q_idx >= kv_idx) & (q_idx - kv_idx < 1024)


def test_score_mod_traces_to_a_region():
    assert mods.trace_score_mod(softcap).splitlines() == [
        "^bb0(%score: f32, %b: i32, %h: i32, %q_idx: i32, %kv_idx: i32):",
        "  %c0 = arith.constant 50.0 : f32",
        "  %v0 = arith.divf %score, %c0 fastmath<afn> : f32",
        "  %v1 = math.tanh %v0 fastmath<afn> : f32",
        "  %v2 = arith.mulf %v1, %c0 : f32",
        "  tile.yield %v2 : f32"]


def test_mixed_types_and_where():
    """Indices in float arithmetic are converted (ALiBi's bias with a
    Python slope); where() selects; -inf is a float constant."""
    alibi = mods.trace_score_mod(lambda s, b, h, q, k: s + 0.25 * (k - q))
    assert "arith.sitofp %v0 : i32 to f32" in alibi
    assert "arith.mulf %c0, %v1 : f32" in alibi
    masked = mods.trace_score_mod(lambda s, b, h, q, k: mods.where(k <= q, s, float("-inf")))
    assert "arith.cmpi sle, %kv_idx, %q_idx : i32" in masked
    assert "arith.constant 0xFF800000 : f32" in masked
    assert "arith.select %v0, %score, %c0 : f32" in masked
    # A constant score_mod (no use of its arguments) still yields an f32.
    assert mods.trace_score_mod(lambda s, b, h, q, k: 1).endswith("tile.yield %c0 : f32")


def test_mask_mod_traces_to_a_region():
    region = mods.trace_mask_mod(sliding_causal)
    assert region.splitlines() == [
        "^bb0(%b: i32, %h: i32, %q_idx: i32, %kv_idx: i32):",
        "  %v0 = arith.cmpi sge, %q_idx, %kv_idx : i32",
        "  %v1 = arith.subi %q_idx, %kv_idx : i32",
        "  %c0 = arith.constant 1024 : i32",
        "  %v2 = arith.cmpi slt, %v1, %c0 : i32",
        "  %v3 = arith.andi %v0, %v2 : i1",
        "  tile.yield %v3 : i1"]
    assert causal_part(region) == "implied"
    assert causal_part(mods.trace_mask_mod(lambda b, h, q, k: q >= k)) == "only"
    assert causal_part(mods.trace_mask_mod(lambda b, h, q, k: (q >= k) | (k < 4))) is None
    assert causal_part(mods.trace_mask_mod(lambda b, h, q, k: q > k)) is None


def test_untraceable_callables_are_refused():
    with pytest.raises(mods.ModTraceError, match="no truth value"):
        mods.trace_mask_mod(lambda b, h, q, k: q >= k and k < 4)
    with pytest.raises(mods.ModTraceError, match="cannot use a list"):
        mods.trace_score_mod(lambda s, b, h, q, k: s + [1.0][0:1])
    with pytest.raises(mods.ModTraceError, match="must return a boolean"):
        mods.trace_mask_mod(lambda b, h, q, k: q - k)
    with pytest.raises(mods.ModTraceError, match="tracing the callable failed: KeyError"):
        mods.trace_score_mod(lambda s, b, h, q, k: {}[0])

    class Func:  # what torch passes to __torch_function__ for an unsupported op
        __name__ = "erfinv"
    with pytest.raises(mods.ModTraceError, match=r"torch.erfinv is not supported"):
        mods.Sym.__torch_function__(Func(), (mods.Sym,), (None,))


@pytest.mark.parametrize("chip", ["sm_80", "sm_90a"])
def test_traced_regions_compile(library, tmp_path, chip):
    """The source with both regions compiles (ptxas included); the regions'
    tanh and divide are the approximate instructions."""
    regions = (mods.trace_score_mod(softcap), mods.trace_mask_mod(sliding_causal))
    name, source = attention_source("bf16", 64, True, mods=regions)
    assert name == attention_name("bf16", 64, True, mods=regions)
    assert name.startswith("attention_bf16_d64_causal_mods")
    result = tilec.compile(source, chip=chip, cache_dir=tmp_path, keep="all")
    assert "tanh.approx.f32" in result.ptx and "div.full.f32" in result.ptx
    assert result.cubin[:4] == b"\x7fELF"


def test_flex_attention_runs_the_kernel_of_its_mods(launches, tmp_path):  # noqa: F811
    """A causal sliding window with a softcap runs the causal kernel with
    both regions; a mask that is exactly causal runs the plain causal
    kernel; equal callables reuse the kernel's name."""
    q = FakeTensor((2, 4, 3000, 64))  # no persistent variant (causal over 2048 queries)
    regions = (mods.trace_score_mod(softcap), mods.trace_mask_mod(sliding_causal))
    for causal, r in ((True, regions), (True, None), (False, (regions[0], None))):
        name, source = attention_source("bf16", 64, causal, mods=r)
        write_artifact(str(tmp_path), name, source, attention_meta(name, "sm_90a", 64))
    mask = tilec.create_block_mask(sliding_causal, 2, 4, 3000, 3000)
    tilec.flex_attention(q, q, q, score_mod=softcap, block_mask=mask, chip="sm_90a",
                         artifacts=str(tmp_path))
    causal = tilec.create_block_mask(lambda b, h, qi, kj: qi >= kj, None, None, 3000, 3000)
    tilec.flex_attention(q, q, q, block_mask=causal, chip="sm_90a", artifacts=str(tmp_path))
    tilec.flex_attention(q, q, q, score_mod=softcap, chip="sm_90a", artifacts=str(tmp_path))
    assert [launcher.name for launcher, _ in launches] == [
        attention_name("bf16", 64, True, mods=regions), "attention_bf16_d64_causal",
        attention_name("bf16", 64, False, mods=(regions[0], None))]


def test_flex_attention_refusals(launches):  # noqa: F811
    q = FakeTensor((2, 4, 300, 64))
    kv = FakeTensor((2, 2, 300, 64))
    with pytest.raises(tilec.ArgumentError, match="enable_gqa=True"):
        tilec.flex_attention(q, kv, kv)
    with pytest.raises(tilec.ArgumentError, match="for Q_LEN=256, KV_LEN=256"):
        tilec.flex_attention(q, q, q, block_mask=tilec.create_block_mask(
            sliding_causal, 2, 4, 256, 256))
    with pytest.raises(tilec.ArgumentError, match="kernel_options are not supported"):
        tilec.flex_attention(q, q, q, kernel_options={"BLOCK_M": 64})
    with pytest.raises(tilec.ArgumentError, match="must come from tilec.create_block_mask"):
        tilec.flex_attention(q, q, q, block_mask=object())
    with pytest.raises(mods.ModTraceError, match="must return a boolean"):
        tilec.create_block_mask(lambda b, h, qi, kj: qi, 2, 4, 300, 300)
    assert launches == []


class FakeTable(FakeTensor):
    """A captured tensor in a score_mod / mask_mod: indexing it with traced
    values records a table read (torch's __getitem__ reaches the tracer
    through __torch_function__; this stands in for it without torch)."""

    def __getitem__(self, index):
        return mods._table_read(self, index)


def _alibi(slopes):
    return lambda s, b, h, q_idx, kv_idx: s + slopes[h] * (kv_idx - q_idx)


def _documents(doc_ids):
    return lambda b, h, q_idx, kv_idx: (doc_ids[b, q_idx] == doc_ids[b, kv_idx]) & \
        (q_idx >= kv_idx)


def test_captured_tensors_trace_to_tables():
    """A captured tensor indexed by traced values is one tile.load_scalar
    of a view named by the region (%ts for the score_mod's tables, %tm for
    the mask_mod's); the trace keeps the tensors, the kernel source declares
    their pointers, sizes and strides."""
    slopes, docs = mods.Table("f32", 1), mods.Table("i32", 2)
    score = mods.trace_score_mod(_alibi(slopes))
    mask = mods.trace_mask_mod(_documents(docs))
    assert score.splitlines()[1] == \
        "  %v0 = tile.load_scalar %ts0[%h] : !tile.view<?xf32, strides = [1]> -> f32"
    assert "tile.load_scalar %tm0[%b, %kv_idx] : !tile.view<?x?xi32, strides = [?, 1]> -> i32" \
        in mask
    assert score.tables == (slopes,) and mask.tables == (docs,)
    _, source = attention_source("bf16", 128, True, mods=(score, mask))
    assert "%TS0: !tile.ptr<f32>, %ts0_n0: i32, %TM0: !tile.ptr<i32>, %tm0_n0: i32, " \
           "%tm0_n1: i32, %tm0_s0: i32)" in source
    assert "%tm0 = tile.make_view %TM0[%tm0_n0, %tm0_n1] strides [%tm0_s0, 1]" in source
    # The text depends on the table's dtype, rank and contiguity only.
    assert mods.trace_score_mod(_alibi(mods.Table("f32", 1))) == score
    assert mods.trace_score_mod(_alibi(mods.Table("f32", 1, contiguous=False))) != score


def test_captured_tensors_refused():
    with pytest.raises(mods.ModTraceError, match="convert it to torch.int32"):
        mods.trace_mask_mod(_documents(FakeTable((2, 64), "int64")))
    with pytest.raises(mods.ModTraceError, match="a 1-index read of a captured tensor of 2"):
        mods.trace_mask_mod(lambda b, h, q, k: FakeTable((2, 64), "int32")[q] == 0)
    with pytest.raises(mods.ModTraceError, match="indexed without a traced value"):
        mods.trace_score_mod(lambda s, b, h, q, k: s + FakeTable((4,), "float32")[0])


@pytest.mark.parametrize("chip", ["sm_80", "sm_90a"])
def test_captured_tensors_compile(library, tmp_path, chip):
    regions = (mods.trace_score_mod(_alibi(mods.Table("f32", 1))),
               mods.trace_mask_mod(_documents(mods.Table("i32", 2))))
    _, source = attention_source("bf16", 64, True, mods=regions)
    result = tilec.compile(source, chip=chip, cache_dir=tmp_path, keep="all")
    assert result.cubin[:4] == b"\x7fELF"


def test_captured_tensors_launch(library, launches, tmp_path):  # noqa: F811
    """The captured tensors' pointers, sizes and strides go with the launch."""
    q = FakeTensor((2, 4, 3000, 64))
    slopes, docs = FakeTable((4,), "float32", offset=4096), FakeTable((2, 3008), "int32",
                                                                     offset=8192)
    score, mask = _alibi(slopes), _documents(docs)
    regions = (mods.trace_score_mod(score), mods.trace_mask_mod(mask))
    name, source = attention_source("bf16", 64, True, mods=regions)
    result = tilec.compile(source, chip="sm_90a")
    write_artifact(str(tmp_path), name, source, result[name].metadata, "sm_90a")
    tilec.flex_attention(q, q, q, score_mod=score,
                         block_mask=tilec.create_block_mask(mask, 2, 4, 3000, 3000),
                         chip="sm_90a", artifacts=str(tmp_path))
    [(launcher, args)] = launches
    values = dict(zip([p["name"] for p in result[name].metadata["params"]], args))
    assert launcher.name == name
    assert (values["TS0"], values["ts0_n0"]) == (slopes.data_ptr(), 4)
    assert (values["TM0"], values["tm0_n0"], values["tm0_n1"], values["tm0_s0"]) == \
        (docs.data_ptr(), 2, 3008, 3008)


def test_block_list_kernels(library, launches, tmp_path):  # noqa: F811
    """A mask on data with a block list (what create_block_mask makes with
    torch on the device): the kernel takes the lists (its name says so),
    compiles, and gets their pointers, sizes and strides (stride 0 along a
    batch or head of 1)."""
    from tilec.flex import BlockList, BlockMask, flex_regions
    docs = FakeTable((2, 3000), "int32")
    mask_mod = _documents(docs)
    region = mods.trace_mask_mod(mask_mod)
    num, indices = FakeTensor((1, 1, 24), "int32"), FakeTensor((1, 1, 24, 24), "int32")
    full = FakeTensor((1, 1, 24), "int32", offset=256)
    block_mask = BlockMask(mask_mod, region, None, None, 3000, 3000, 128,
                           BlockList(num, indices, full))
    regions, causal = flex_regions(None, block_mask, 3000, 3000)
    assert causal and regions[2] == "block_list_full"
    name, source = attention_source("bf16", 64, True, mods=regions)
    assert name != attention_name("bf16", 64, True, mods=regions[:2])
    assert "block_list(%kvn, %kvi : !tile.view<?x?x?xi32" in source
    assert "full_blocks(%kvf : !tile.view<?x?x?xi32" in source
    for chip in ("sm_80", "sm_90a"):
        result = tilec.compile(source, chip=chip)
        assert result.cubin[:4] == b"\x7fELF"
    write_artifact(str(tmp_path), name, source, result[name].metadata, "sm_90a")
    q = FakeTensor((2, 4, 3000, 64))  # no persistent variant (causal, S > 2048)
    tilec.flex_attention(q, q, q, block_mask=block_mask, chip="sm_90a", artifacts=str(tmp_path))
    [(launcher, args)] = launches
    values = dict(zip([p["name"] for p in result[name].metadata["params"]], args))
    assert launcher.name == name
    assert (values["QB"], values["NB"], values["kvn_b"], values["kvn_h"], values["kvi_q"]) == \
        (24, 24, 0, 0, 24)
    assert values["KVF"] == full.data_ptr()
    short = BlockMask(mask_mod, region, None, None, 3000, 3000, 128,
                      BlockList(FakeTensor((1, 1, 23), "int32"), FakeTensor((1, 1, 23, 8), "int32"),
                                FakeTensor((1, 1, 23), "int32")))
    with pytest.raises(tilec.ArgumentError, match="do not cover"):
        tilec.flex_attention(q, q, q, block_mask=short, chip="sm_90a", artifacts=str(tmp_path))


def test_block_list_needs_torch():
    """Without torch (this machine) create_block_mask makes no list: the
    kernel visits every block the mask's index comparisons allow."""
    mask = tilec.create_block_mask(_documents(FakeTable((1, 300), "int32")), 1, 1, 300, 300)
    assert mask.block_list is None
    assert repr(mask).startswith("BlockMask(shape=(1, 1, 300, 300), mask_mod=")


def test_causal_part_memo_keeps_no_tables():
    """causal_part is memoized on the region's plain text: the cache holds
    no trace, so no captured tensor stays alive through it."""
    import gc
    import weakref
    from tilec.flex import _causal_part
    docs = FakeTable((2, 64), "int32")
    region = mods.trace_mask_mod(_documents(docs))
    assert causal_part(region) == "implied"
    ref = weakref.ref(docs)
    del docs, region
    gc.collect()
    assert ref() is None
    assert _causal_part.cache_info().currsize >= 1
