"""Plans of tilec.gemm / tilec.attention (prepared launches reused across
calls) and tilec.attention on CuPy arrays and DLPack objects, down to the
(fake) driver: what a launch receives after cached calls whenever anything
changes -- pointers, shapes, strides (also of the same tensor object),
scalars, streams, the current device, the artifacts directory, threads --
and that a hit never launches stale values."""

import threading

import pytest

import fake_cuda
import overhead_bench
import tilec
from tilec import kernels, ops, plans, runtime

M, N, K = 256, 192, 128
B, H, S, D = 2, 4, 200, 64


@pytest.fixture
def fakes():
    torch, driver = fake_cuda.install()
    yield torch, driver
    fake_cuda.uninstall()


@pytest.fixture
def artifacts(tmp_path, fakes):
    """Adds (fake) precompiled kernels; returns the directory."""
    root = str(tmp_path / "artifacts")

    def gemm(chip, m=M, n=N, k=K, extra=(), **variant):
        config = kernels.gemm_shape_config(m, n, k, chip)
        name = kernels.gemm_name(**variant) + kernels.gemm_config_suffix(config)
        _, source = kernels.gemm_source(**variant, config=config, name=name)
        meta = overhead_bench.gemm_meta(name, chip)
        meta["params"][3:3] = list(extra)
        overhead_bench.write_kernel(root, chip, name, meta, source)
        return meta

    def attention(chip, dtype="bf16", head_dim=D, causal=False):
        name, source = kernels.attention_source(dtype, head_dim, causal)
        meta = overhead_bench.attention_meta(name, chip, head_dim)
        for p in meta["params"][:4]:
            p["dtype"] = dtype
        overhead_bench.write_kernel(root, chip, name, meta, source)
        return meta

    gemm.path = root
    gemm.attention = attention
    return gemm


def decoded(driver, meta):
    """The last launch: its record and its parameters by name."""
    launch = driver.launches[-1]
    names = [p["name"] for p in meta["params"]]
    return launch, dict(zip(names, launch["params"]))


def formats_of(meta):
    codes = {"i32": "i", "f32": "f"}
    return ["Q" if p["kind"] == "pointer" else codes[p["dtype"]] for p in meta["params"]] + [
        "128s"] * len(meta.get("tensor_maps") or [])


def operands(m=M, n=N, k=K, offset=0):
    return (fake_cuda.tensor((m, k), offset=offset), fake_cuda.tensor((k, n)),
            fake_cuda.tensor((m, n)))


def attention_operands(b=B, h=H, s=S, d=D, hk=None, dtype="bfloat16"):
    hk = hk or h
    return (fake_cuda.tensor((b, h, s, d), dtype), fake_cuda.tensor((b, hk, s, d), dtype),
            fake_cuda.tensor((b, hk, s, d), dtype), fake_cuda.tensor((b, h, s, d), dtype))


# -- tilec.gemm -----------------------------------------------------------------


@pytest.mark.parametrize("chip", ["sm_80", "sm_90a"])
def test_gemm_plan_follows_new_pointers(fakes, artifacts, chip):
    torch, driver = fakes
    meta = artifacts(chip)
    driver.param_formats = formats_of(meta)
    where = dict(chip=chip, artifacts=artifacts.path)
    a, b, c = operands()
    for _ in range(3):
        tilec.gemm(a, b, out=c, **where)
    assert len(plans._tls.plans) == 1
    encodes = len(driver.encodes)
    assert encodes == (3 if chip == "sm_90a" else 0)  # once, then from the plan
    _, p = decoded(driver, meta)
    assert (p["A"], p["B"], p["C"]) == (a.data_ptr(), b.data_ptr(), c.data_ptr())

    # Same metadata, other tensors: the plan re-packs their pointers (and
    # encodes the tensor maps over them).
    a2, b2, c2 = operands()
    tilec.gemm(a2, b2, out=c2, **where)
    launch, p = decoded(driver, meta)
    assert (p["A"], p["B"], p["C"]) == (a2.data_ptr(), b2.data_ptr(), c2.data_ptr())
    assert len(plans._tls.plans) == 1
    if chip == "sm_90a":
        maps = [fake_cuda.decode_tensor_map(blob) for blob in launch["params"][9:]]
        assert [m[0] for m in maps] == [a2.data_ptr(), b2.data_ptr(), c2.data_ptr()]
        assert len(driver.encodes) == encodes + 3
    # And back: the first pointers again, not the last ones.
    tilec.gemm(a, b2, out=c, **where)
    _, p = decoded(driver, meta)
    assert (p["A"], p["B"], p["C"]) == (a.data_ptr(), b2.data_ptr(), c.data_ptr())
    assert len(driver.launches) == 5


def test_gemm_split_k_runs_through_a_staged_plan(fakes, tmp_path, library):
    """The dispatch splits K where the rule says so (with the device's SM
    count), and a repeated call runs through a staged plan: the partial and
    reduce kernels on every call, in that order, with the same f32
    workspace on one stream (another one on another stream), and new
    pointers re-packed in both kernels."""
    torch, driver = fakes
    assert torch.cuda.get_device_properties(0).multi_processor_count == 132
    m, n, k, chip = 1, 2048, 14336, "sm_80"
    config = kernels.gemm_shape_config(m, n, k, chip, 132, can_swap_ab=True, can_split_k=True)
    assert config["split_k"] == 4  # 32 programs of 16 x 64 on 132 SMs
    assert kernels.gemm_shape_config(m, n, k, chip, 108, can_swap_ab=True,
                                     can_split_k=True)["split_k"] == 3  # (the SM count)
    root = str(tmp_path / "artifacts")
    name = kernels.gemm_name(b_layout="col") + kernels.gemm_config_suffix(config)
    _, source = kernels.gemm_source(b_layout="col", config=config, name=name)
    result = tilec.compile(source, chip=chip, emit="ptx")
    stages = kernels.gemm_stage_names(name, config)
    for stage in stages:
        meta = dict(result[stage].metadata, cubin_arch="sm_90")
        overhead_bench.write_kernel(root, chip, stage, meta, source)
    driver.param_formats = formats_of(meta)
    names = [p["name"] for p in meta["params"]]

    def call(*operands):
        first = len(driver.launches)
        out = tilec.gemm(*operands, chip=chip, artifacts=root)
        launched = driver.launches[first:]
        params = [dict(zip(names, launch["params"])) for launch in launched]
        assert [p["C"] for p in params] == [out.data_ptr()] * 2
        return params, launched

    a, w = fake_cuda.tensor((m, k)), fake_cuda.tensor((n, k))
    b = fake_cuda.tensor((k, n), strides=(1, k), ptr=w.data_ptr())
    (partial, reduce), launched = call(a, b)
    assert len(plans._tls.plans) == 1 and len(launched) == 2
    assert launched[0]["function"] != launched[1]["function"]
    workspace = partial["W"]
    assert reduce["W"] == workspace and (partial["ldw"], partial["sw"]) == (n, m * n)
    assert (partial["A"], partial["B"]) == (a.data_ptr(), b.data_ptr())

    # The plan: the same workspace on this stream, new pointers in both.
    a2 = fake_cuda.tensor((m, k))
    (partial, reduce), launched = call(a2, b)
    assert len(plans._tls.plans) == 1
    assert partial["W"] == reduce["W"] == workspace
    assert partial["A"] == reduce["A"] == a2.data_ptr()
    # Another stream gets its own workspace; back on the first, the first.
    fake_cuda.state.streams[0] = 0x5800
    (partial, reduce), launched = call(a2, b)
    assert partial["W"] == reduce["W"] != workspace
    assert [launch["stream"] for launch in launched] == [0x5800, 0x5800]
    fake_cuda.state.streams[0] = 0x5000
    (partial, reduce), _ = call(a, b)
    assert partial["W"] == reduce["W"] == workspace
    assert len(plans._tls.plans) == 1


def test_gemm_plan_sees_in_place_changes_of_the_same_tensor(fakes, artifacts):
    """resize_ / as_strided_ / set_ change a tensor object's shape, strides
    or data pointer: the next call must not reuse the old values."""
    torch, driver = fakes
    meta = artifacts("sm_90a")
    artifacts("sm_90a", m=128)
    driver.param_formats = formats_of(meta)
    where = dict(chip="sm_90a", artifacts=artifacts.path)
    a, b, c = operands()
    tilec.gemm(a, b, out=c, **where)
    a.shape, c.shape = (128, K), (128, N)  # as after resize_
    tilec.gemm(a, b, out=c, **where)
    launch, p = decoded(driver, meta)
    assert p["M"] == 128 and launch["grid"] == (1 * 3, 1, 1)
    assert fake_cuda.decode_tensor_map(launch["params"][9])[1] == [K, 128]
    a._strides = (K + 64, 1)  # as after as_strided_
    tilec.gemm(a, b, out=c, **where)
    launch, p = decoded(driver, meta)
    assert p["lda"] == K + 64
    assert fake_cuda.decode_tensor_map(launch["params"][9])[2] == [(K + 64) * 2]
    a._ptr += 4096  # as after set_
    tilec.gemm(a, b, out=c, **where)
    launch, p = decoded(driver, meta)
    assert p["A"] == a.data_ptr() and fake_cuda.decode_tensor_map(
        launch["params"][9])[0] == a.data_ptr()


def test_gemm_plan_checks_alignment_of_new_pointers(fakes, artifacts):
    torch, driver = fakes
    meta = artifacts("sm_80")
    driver.param_formats = formats_of(meta)
    where = dict(chip="sm_80", artifacts=artifacts.path)
    a, b, c = operands()
    tilec.gemm(a, b, out=c, **where)
    # A misaligned a misses the plan's alignment and goes to the checked
    # path, which takes the variant for any strides (compiled: the fake
    # artifacts do not have it).
    bad = operands(offset=2)[0]
    tilec.gemm(bad, b, out=c, **where)
    assert len(driver.launches) == 2 and driver.launches[-1]["params"][0] == bad.data_ptr()
    # Its plan is its own (the key sees the bases' alignment): a second
    # misaligned call re-uses it, aligned calls keep the fast one.
    assert len(plans._tls.plans) == 2
    bad2 = operands(offset=6)[0]
    tilec.gemm(bad2, b, out=c, **where)
    assert len(plans._tls.plans) == 2 and driver.launches[-1]["params"][0] == bad2.data_ptr()
    assert driver.launches[-1]["function"] == driver.launches[-2]["function"]
    del driver.launches[1:]
    a2 = operands()[0]
    tilec.gemm(a2, b, out=c, **where)
    tilec.gemm(a, b, out=c, **where)
    assert [launch["params"][0] for launch in driver.launches] == [
        a.data_ptr(), a2.data_ptr(), a.data_ptr()]


def test_gemm_plan_re_packs_after_a_failed_re_pack(fakes, artifacts, monkeypatch):
    """A re-pack that fails half-way must not leave the plan matching the
    values it held before: the next call with those re-packs them."""
    torch, driver = fakes
    meta = artifacts("sm_80")
    driver.param_formats = formats_of(meta)
    where = dict(chip="sm_80", artifacts=artifacts.path)
    a, b, c = operands()
    a2 = operands()[0]
    tilec.gemm(a, b, out=c, **where)
    real = runtime.Kernel._fill

    def fill_then_fail(self, args, values):
        real(self, args, values)
        raise runtime.LaunchError("injected")

    monkeypatch.setattr(runtime.Kernel, "_fill", fill_then_fail)
    with pytest.raises(runtime.LaunchError, match="injected"):
        tilec.gemm(a2, b, out=c, **where)
    monkeypatch.setattr(runtime.Kernel, "_fill", real)
    tilec.gemm(a, b, out=c, **where)
    assert [launch["params"][0] for launch in driver.launches] == [a.data_ptr(), a.data_ptr()]


def test_gemm_plan_scalars_and_allocated_out(fakes, artifacts):
    torch, driver = fakes
    extra = [{"name": "alpha", "kind": "scalar", "dtype": "f32"},
             {"name": "beta", "kind": "scalar", "dtype": "f32"}]
    meta = artifacts("sm_80", extra=extra, alpha=True, beta=True)
    driver.param_formats = formats_of(meta)
    where = dict(chip="sm_80", artifacts=artifacts.path)
    a, b, c = operands()
    for alpha, beta in [(0.5, 1.0), (0.5, 1.0), (2, -1.5), (0.5, 1.0)]:
        tilec.gemm(a, b, out=c, alpha=alpha, beta=beta, **where)
        _, p = decoded(driver, meta)
        assert (p["alpha"], p["beta"]) == (alpha, beta)
    assert len(plans._tls.plans) == 1

    meta = artifacts("sm_80")
    driver.param_formats = formats_of(meta)
    outs = [tilec.gemm(a, b, **where) for _ in range(3)]  # all alive: three buffers
    assert len({o.data_ptr() for o in outs}) == 3
    assert [launch["params"][2] for launch in driver.launches[-3:]] == [
        o.data_ptr() for o in outs]
    assert all(o.shape == (M, N) and o.stride() == (N, 1) for o in outs)


def test_gemm_plan_uses_the_current_stream_and_its_device(fakes, artifacts):
    torch, driver = fakes
    artifacts("sm_80")
    where = dict(chip="sm_80", artifacts=artifacts.path)
    a, b, c = operands()
    tilec.gemm(a, b, out=c, **where)
    fake_cuda.state.streams[0] = 0x5555  # another current stream
    tilec.gemm(a, b, out=c, **where)
    assert driver.launches[-1]["stream"] == 0x5555
    fake_cuda.state.current_device = 1  # current device != the tensors'
    tilec.gemm(a, b, out=c, **where)
    assert driver.launches[-1]["device"] == 0 and driver.launches[-1]["stream"] == 0x5555
    assert fake_cuda.state.current_device == 1
    a1, b1, c1 = (fake_cuda.tensor(t.shape, device_index=1) for t in (a, b, c))
    tilec.gemm(a1, b1, out=c1, **where)
    assert driver.launches[-1]["device"] == 1
    assert driver.launches[-1]["stream"] == fake_cuda.state.streams[1]
    assert len(plans._tls.plans) == 2


def test_plans_are_per_thread_and_cleared_in_every_thread(fakes, artifacts):
    torch, driver = fakes
    artifacts("sm_80")
    where = dict(chip="sm_80", artifacts=artifacts.path)
    a, b, c = operands()
    tilec.gemm(a, b, out=c, **where)
    seen, release = [], threading.Event()

    def other():
        tilec.gemm(a, b, out=c, **where)
        seen.append(plans._tls.plans)
        release.wait(10)

    thread = threading.Thread(target=other)
    thread.start()
    try:
        for _ in range(100):
            if seen:
                break
            threading.Event().wait(0.01)
        (theirs,) = seen
        assert len(theirs) == 1 and theirs is not plans._tls.plans
        assert next(iter(theirs.values())) is not next(iter(plans._tls.plans.values()))
        ops.clear_kernel_memo()
        assert len(theirs) == 0 and len(plans._tls.plans) == 0
    finally:
        release.set()
        thread.join()
    assert len(driver.launches) == 2


# -- tilec.attention ------------------------------------------------------------


@pytest.mark.parametrize("chip", ["sm_80", "sm_90a"])
def test_attention_plan_values_and_lse(fakes, artifacts, chip):
    torch, driver = fakes
    meta = artifacts.attention(chip)
    driver.param_formats = formats_of(meta)
    where = dict(chip=chip, artifacts=artifacts.path)
    q, k, v, o = attention_operands(hk=2)
    for _ in range(2):
        assert tilec.attention(q, k, v, out=o, **where) is o
    launch, p = decoded(driver, meta)
    assert (p["Q"], p["K"], p["V"], p["O"]) == tuple(t.data_ptr() for t in (q, k, v, o))
    assert (p["B"], p["H"], p["HK"], p["SQ"], p["SK"]) == (B, H, 2, S, S)
    assert (p["q_batch"], p["q_head"], p["kv_batch"], p["kv_head"], p["lse_batch"]) == (
        H * S * D, S * D, 2 * S * D, S * D, H * S)
    assert launch["grid"] == (2, H, B) and len(plans._tls.plans) == 1
    # Without return_lse the kernel writes a scratch lse of the plan, one
    # per stream, kept between calls.
    scratch = p["LSE"]
    tilec.attention(q, k, v, out=o, **where)
    assert decoded(driver, meta)[1]["LSE"] == scratch
    fake_cuda.state.streams[0] = 0x5777
    tilec.attention(q, k, v, out=o, **where)
    launch, p = decoded(driver, meta)
    assert launch["stream"] == 0x5777 and p["LSE"] != scratch
    # With it, a fresh lse each call, returned.
    results = [tilec.attention(q, k, v, out=o, return_lse=True, **where) for _ in range(2)]
    assert [launch["params"][4] for launch in driver.launches[-2:]] == [
        lse.data_ptr() for _, lse in results]
    assert results[0][1].shape == (B, H, S) and results[0][1].dtype is torch.float32
    # Allocated out; another sequence length of k/v: another plan.
    got = tilec.attention(q, k, v, **where)
    assert decoded(driver, meta)[1]["O"] == got.data_ptr() and got.shape == q.shape
    k2, v2 = fake_cuda.tensor((B, 2, 77, D)), fake_cuda.tensor((B, 2, 77, D))
    tilec.attention(q, k2, v2, out=o, **where)
    _, p = decoded(driver, meta)
    assert (p["SK"], p["K"], p["kv_batch"]) == (77, k2.data_ptr(), 2 * 77 * D)


def fp8_attention_artifact(root, chip, descale_tensors):
    """A (fake) precompiled FP8 attention kernel (head dim D); its metadata."""
    name, source = kernels.attention_source("f8e4m3", D, descale_tensors=descale_tensors)
    meta = overhead_bench.attention_meta(name, chip, D)
    for p in meta["params"][:3]:
        p["dtype"] = "f8e4m3"
    meta["params"] += [{"name": n, "kind": "scalar", "dtype": "i32"}
                       for n in ("v_batch", "v_head", "v_ld")]
    if descale_tensors:
        meta["params"] += [{"name": n, "kind": "pointer", "dtype": "f32"} for n in ("DQ", "DK", "DV")]
        meta["params"] += [{"name": f"d{x}_{w}", "kind": "scalar", "dtype": "i32"}
                           for x in "qkv" for w in ("batch", "head")]
    else:
        meta["params"] += [{"name": n, "kind": "scalar", "dtype": "f32"}
                           for n in ("q_descale", "k_descale", "v_descale")]
    overhead_bench.write_kernel(root, chip, name, meta, source)
    return meta


def fp8_attention_operands(hk=2):
    e4m3 = "float8_e4m3fn"
    q = fake_cuda.tensor((B, H, S, D), e4m3)
    k = fake_cuda.tensor((B, hk, S, D), e4m3)
    v = fake_cuda.tensor((B, hk, S, D), e4m3, strides=(hk * D * 208, D * 208, 1, 208))
    return q, k, v


def test_attention_fp8_plan_with_descale_numbers(fakes, artifacts):
    """FP8 attention with per-tensor numbers: a plan whose descales change
    per call (launch values), checked on every call."""
    torch, driver = fakes
    meta = fp8_attention_artifact(artifacts.path, "sm_90a", False)
    driver.param_formats = formats_of(meta)
    where = dict(chip="sm_90a", artifacts=artifacts.path)
    q, k, v = fp8_attention_operands()
    o = fake_cuda.tensor((B, H, S, D))
    for scale in (0.5, 0.25):
        tilec.attention(q, k, v, out=o, q_descale=scale, k_descale=2.0, **where)
        _, p = decoded(driver, meta)
        assert (p["q_descale"], p["k_descale"], p["v_descale"]) == (scale, 2.0, 1.0)
    assert len(plans._tls.plans) == 1 and len(driver.launches) == 2
    with pytest.raises(tilec.ArgumentError, match="q_descale must be positive and finite"):
        tilec.attention(q, k, v, out=o, q_descale=float("nan"), **where)
    assert len(driver.launches) == 2


def test_attention_fp8_plan_with_descale_tensors(fakes, artifacts):
    """FP8 attention with descale tensors: [batch, kv_heads] and
    one-element ones (stride 0) reach the kernel that reads them on the
    device; a number beside them becomes a one-element tensor; the plan
    follows new descale tensors."""
    torch, driver = fakes
    meta = fp8_attention_artifact(artifacts.path, "sm_90a", True)
    driver.param_formats = formats_of(meta)
    where = dict(chip="sm_90a", artifacts=artifacts.path)
    q, k, v = fp8_attention_operands()
    o = fake_cuda.tensor((B, H, S, D))
    dq = fake_cuda.tensor((B, 2), "float32")
    dk = fake_cuda.tensor((1,), "float32")
    tilec.attention(q, k, v, out=o, q_descale=dq, k_descale=dk, v_descale=0.5, **where)
    launch, p = decoded(driver, meta)
    assert (p["DQ"], p["DK"]) == (dq.data_ptr(), dk.data_ptr())
    assert (p["dq_batch"], p["dq_head"], p["dk_batch"], p["dk_head"]) == (2, 1, 0, 0)
    assert (p["dv_batch"], p["dv_head"]) == (0, 0) and p["DV"] not in (dq.data_ptr(),
                                                                        dk.data_ptr())
    dq2 = fake_cuda.tensor((B, 2), "float32")
    tilec.attention(q, k, v, out=o, q_descale=dq2, k_descale=dk, v_descale=0.5, **where)
    assert decoded(driver, meta)[1]["DQ"] == dq2.data_ptr()
    assert len(plans._tls.plans) == 1 and len(driver.launches) == 2
    with pytest.raises(tilec.ArgumentError, match=r"q_descale must have one element or shape "
                                                  r"\[batch, kv_heads\] = \[2, 2\], got \[2, 4\]"):
        tilec.attention(q, k, v, out=o, q_descale=fake_cuda.tensor((B, H), "float32"),
                        **where)
    with pytest.raises(tilec.DTypeError, match="k_descale must be float32"):
        tilec.attention(q, k, v, out=o, q_descale=dq, k_descale=fake_cuda.tensor((1,)), **where)
    assert len(driver.launches) == 2


def test_attention_plan_checks_alignment_of_new_pointers(fakes, artifacts):
    torch, driver = fakes
    artifacts.attention("sm_80")  # K and V read in 16-byte chunks there
    where = dict(chip="sm_80", artifacts=artifacts.path)
    q, k, v, o = attention_operands()
    tilec.attention(q, k, v, out=o, **where)
    bad = fake_cuda.tensor(k.shape)
    bad._ptr += 8
    with pytest.raises(tilec.ArgumentError, match="k must be 16-byte aligned"):
        tilec.attention(q, bad, v, out=o, **where)
    assert len(driver.launches) == 1


def test_attention_out_of_another_layout_is_copied(fakes, artifacts, monkeypatch):
    torch, driver = fakes
    meta = artifacts.attention("sm_90a")
    driver.param_formats = formats_of(meta)
    copies = []
    monkeypatch.setattr(fake_cuda.Tensor, "copy_", lambda self, src: copies.append((self, src)),
                        raising=False)
    q, k, v, _ = attention_operands()
    out = fake_cuda.tensor((B, H, S, D), strides=(S * H * D, D, H * D, 1))  # [b, s, h, d]
    assert tilec.attention(q, k, v, out=out, chip="sm_90a", artifacts=artifacts.path) is out
    _, p = decoded(driver, meta)
    ((dst, src),) = copies
    assert dst is out and p["O"] == src.data_ptr() != out.data_ptr()


def test_attention_cupy_arrays(fakes, artifacts):
    """CuPy (f16) inputs: launched on CuPy's current stream, outputs and
    lse allocated as CuPy arrays, no plan (the checked path each call)."""
    torch, driver = fakes
    meta = artifacts.attention("sm_90a", dtype="f16")
    driver.param_formats = formats_of(meta)
    where = dict(chip="sm_90a", artifacts=artifacts.path)
    q, k, v = (fake_cuda.cupy_array((B, H, S, D)) for _ in range(3))
    out, lse = tilec.attention(q, k, v, return_lse=True, **where)
    assert isinstance(out, fake_cuda.CupyArray) and isinstance(lse, fake_cuda.CupyArray)
    assert out.shape == (B, H, S, D) and (lse.shape, lse.dtype.name) == ((B, H, S), "float32")
    launch, p = decoded(driver, meta)
    assert launch["stream"] == fake_cuda.cupy_state.streams[0]
    assert (p["Q"], p["K"], p["V"], p["O"], p["LSE"]) == (q.ptr, k.ptr, v.ptr, out.ptr, lse.ptr)
    assert (p["q_batch"], p["q_head"]) == (H * S * D, S * D)
    fake_cuda.cupy_state.streams[0] = 0x6666
    given = fake_cuda.cupy_array((B, H, S, D))
    assert tilec.attention(q, k, v, out=given, **where) is given
    launch, p = decoded(driver, meta)
    assert launch["stream"] == 0x6666 and p["O"] == given.ptr
    assert len(plans._tls.plans) == 0

    # A q that is a head slice is copied (by CuPy) into a contiguous array.
    wide = fake_cuda.cupy_array((B, H + 2, S, D))
    sliced = fake_cuda.CupyArray((B, H, S, D), "float16", ((H + 2) * S * D, S * D, D, 1),
                                 wide.ptr + S * D * 2)
    tilec.attention(sliced, k, v, **where)
    (source, copy, stream), = fake_cuda.cupy_state.copies
    assert source is sliced and decoded(driver, meta)[1]["Q"] == copy.ptr and stream == 0x6666


def test_attention_dlpack_objects(fakes, artifacts):
    """DLPack-only objects: read through torch.from_dlpack, launched on
    torch's stream, outputs allocated as torch tensors."""
    torch, driver = fakes
    meta = artifacts.attention("sm_80")
    driver.param_formats = formats_of(meta)
    q, k, v, o = attention_operands()
    wrapped = [fake_cuda.DLPackOnly(t) for t in (q, k, v, o)]
    got = tilec.attention(*wrapped[:3], out=wrapped[3], chip="sm_80", artifacts=artifacts.path)
    assert got is wrapped[3]
    launch, p = decoded(driver, meta)
    assert (p["Q"], p["O"]) == (q.data_ptr(), o.data_ptr())
    assert launch["stream"] == fake_cuda.state.streams[0]
    out, lse = tilec.attention(*wrapped[:3], return_lse=True, chip="sm_80",
                               artifacts=artifacts.path)
    assert isinstance(out, fake_cuda.Tensor) and isinstance(lse, fake_cuda.Tensor)
    assert decoded(driver, meta)[1]["O"] == out.data_ptr()
    cpu = fake_cuda.DLPackOnly(fake_cuda.tensor(q.shape, kind="cpu"))
    with pytest.raises(tilec.ArgumentError, match="not on a CUDA device"):
        tilec.attention(cpu, *wrapped[1:3], chip="sm_80", artifacts=artifacts.path)


# -- tilec.flex_attention -------------------------------------------------------


class _TableTensor(fake_cuda.Tensor):
    """A fake torch tensor captured by a mask_mod (indexing it with traced
    values records a table read, as torch's __torch_function__ would)."""

    def __getitem__(self, index):
        from tilec import mods
        return mods._table_read(self, index)


def test_flex_plan_follows_tables_and_block_lists(fakes, tmp_path, library, monkeypatch):
    """A flex_attention call with a captured table and a block list makes a
    plan: the next call with the same metadata launches through it, with
    this call's pointers of q/k/v, the table and the three lists; a table of
    another shape or a list of another shape makes another plan."""
    from tilec.flex import BlockList, BlockMask, flex_regions
    from tilec import mods
    torch, driver = fakes
    i32 = fake_cuda.module.int32

    def docs_mask(docs):
        return lambda b, h, q_idx, kv_idx: (docs[b, q_idx] == docs[b, kv_idx]) & (q_idx >= kv_idx)

    def block_mask(docs, qb=2):
        mask_mod = docs_mask(docs)
        lists = BlockList(fake_cuda.tensor((1, 1, qb), "int32"),
                          fake_cuda.tensor((1, 1, qb, qb), "int32"),
                          fake_cuda.tensor((1, 1, qb), "int32"))
        return BlockMask(mask_mod, mods.trace_mask_mod(mask_mod), None, None, S, S, 128, lists)

    docs = _TableTensor((B, S), i32)
    mask = block_mask(docs)
    regions, causal = flex_regions(None, mask, S, S)
    name, source = kernels.attention_source("bf16", D, causal, mods=regions)
    meta = tilec.compile(source, chip="sm_80")[name].metadata
    root = str(tmp_path / "artifacts")
    overhead_bench.write_kernel(root, "sm_80", name, meta, source)
    driver.param_formats = formats_of(meta)
    fake_cuda.state.capability = (8, 0)
    where = dict(chip="sm_80", artifacts=root)
    q, k, v, _ = attention_operands()
    from tilec import op_attention
    checked, original = [], op_attention._attention_checked

    def counting(*args, **kwargs):
        checked.append(args[:3])
        return original(*args, **kwargs)
    monkeypatch.setattr(op_attention, "_attention_checked", counting)
    tilec.flex_attention(q, k, v, block_mask=mask, **where)
    assert len(plans._tls.plans) == 1 and len(driver.launches) == 1
    # New tensors of the same metadata: the plan, with their pointers.
    q2, k2, v2, _ = attention_operands()
    docs2 = _TableTensor((B, S), i32)
    mask2 = block_mask(docs2)
    for _ in range(2):
        out = tilec.flex_attention(q2, k2, v2, block_mask=mask2, **where)
    assert len(plans._tls.plans) == 1 and len(driver.launches) == 3 and len(checked) == 1
    # The key holds the regions' texts, not the traces (which keep their
    # captured tensors alive).
    [key] = plans._tls.plans
    assert all(type(text) is str for text in key[14][1] if text is not None)
    _, p = decoded(driver, meta)
    lists = mask2.block_list
    assert (p["Q"], p["K"], p["V"], p["O"], p["TM0"]) == tuple(
        t.data_ptr() for t in (q2, k2, v2, out, docs2))
    assert (p["KVN"], p["KVI"], p["KVF"]) == tuple(
        t.data_ptr() for t in (lists.num, lists.indices, lists.full))
    # A table of another batch stride, or lists of another shape: new plans
    # (their sizes and strides are launch values of the plan).
    wide = _TableTensor((B, S), i32, strides=(S + 16, 1))
    tilec.flex_attention(q, k, v, block_mask=block_mask(wide), **where)
    assert len(plans._tls.plans) == 2 and decoded(driver, meta)[1]["tm0_s0"] == S + 16
    tilec.flex_attention(q, k, v, block_mask=block_mask(docs, qb=3), **where)
    assert len(plans._tls.plans) == 3 and decoded(driver, meta)[1]["NB"] == 3
    assert len(checked) == 3


# -- tilec.attention_with_kvcache -----------------------------------------------


def test_kvcache_split_plan_streams_and_scratch_lse(fakes, tmp_path, library):
    """Split-KV decode (two kernels) through a staged plan: later calls
    launch both kernels on the current stream, write a scratch lse kept per
    stream when the caller does not want the lse, and a fresh one when it
    does."""
    from tilec.serving_kernels import attention_decode_source, attention_decode_stage_names
    torch, driver = fakes
    name, source = attention_decode_source("bf16", 128, True, False, 4)
    result = tilec.compile(source, chip="sm_80")
    root = str(tmp_path / "artifacts")
    stages = attention_decode_stage_names(name, 4)
    for stage in stages:
        overhead_bench.write_kernel(root, "sm_80", stage, result[stage].metadata, source)
    meta = result[stages[0]].metadata
    driver.param_formats = formats_of(meta)
    fake_cuda.state.capability = (8, 0)
    q = fake_cuda.tensor((3, 1, 32, 128))
    k_cache, v_cache = (fake_cuda.tensor((3, 4096, 8, 128)) for _ in range(2))
    lens = fake_cuda.tensor((3,), "int32")

    def decode(**kwargs):
        return tilec.attention_with_kvcache(q, k_cache, v_cache, cache_seqlens=lens, num_splits=4,
                                            chip="sm_80", artifacts=root, **kwargs)

    def lse_of_last_two():
        return {decoded(driver, meta)[1]["LSE"], dict(zip(
            [p["name"] for p in meta["params"]], driver.launches[-2]["params"]))["LSE"]}

    decode()
    assert len(plans._tls.plans) == 1 and len(driver.launches) == 2
    decode()
    [scratch] = lse_of_last_two()
    decode()
    assert lse_of_last_two() == {scratch} and len(plans._tls.plans) == 1
    out, lse = decode(return_softmax_lse=True)
    assert lse_of_last_two() == {lse.data_ptr()} != {scratch}
    fake_cuda.state.streams[0] = 0x5777
    decode()
    assert [launch["stream"] for launch in driver.launches[-2:]] == [0x5777, 0x5777]
    assert lse_of_last_two() != {scratch} and len(plans._tls.plans) == 1
