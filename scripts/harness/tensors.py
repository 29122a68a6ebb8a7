"""Inputs and poisoned outputs of the GPU checks.

* Inputs are random and never zero (``randn``), so that an element a kernel
  forgets reads as a wrong value, not as a lucky zero.
* Outputs start as NaN (``poisoned``; integer outputs as a sentinel), so
  that an element a kernel does not write fails the check; rows may be
  padded (``pad_to``), and the padding must keep its poison
  (``padding_intact``).
* ``poison_allocator`` leaves a NaN block in torch's caching allocator, for
  outputs a library call allocates itself.
"""

_EPS = 1e-3  # magnitudes below this are pushed away from zero


def _torch():
    import torch
    return torch


def round_up(x, multiple):
    return (x + multiple - 1) // multiple * multiple


def generator(seed, device="cuda"):
    """A generator on ``device`` seeded with ``seed``."""
    return _torch().Generator(device=device).manual_seed(seed)


def randn(shape, dtype, seed=None, generator=None, scale=1.0, device="cuda"):
    """Normal random values times ``scale`` in ``dtype``, none zero."""
    torch = _torch()
    g = generator if generator is not None else (
        torch.Generator(device=device).manual_seed(seed) if seed is not None else None)
    x = torch.randn(shape, device=device, generator=g)
    x = torch.where(x.abs() < _EPS, torch.full_like(x, _EPS).copysign(x), x)
    return (x * scale).to(dtype)


def poison_value(dtype):
    """NaN for floating types, -1 (all bits set) for integer ones."""
    return float("nan") if dtype.is_floating_point else -1


def poisoned(shape, dtype, device="cuda", pad_to=None):
    """A tensor of ``shape`` filled with the poison; with ``pad_to``, a view
    of a buffer whose last dimension is rounded up to it (``.base`` is the
    buffer, the row stride its last dimension)."""
    torch = _torch()
    shape = tuple(shape)
    full = shape if not pad_to else shape[:-1] + (round_up(shape[-1], pad_to),)
    value = poison_value(dtype)
    if dtype.is_floating_point and dtype.itemsize == 1:  # fp8: no fill kernel
        buf = torch.full(full, value, device=device, dtype=torch.float32).to(dtype)
    else:
        buf = torch.full(full, value, device=device, dtype=dtype)
    return buf[..., :shape[-1]] if pad_to else buf


def poison_(t):
    """Fills ``t`` with the poison again (before a second call)."""
    return t.fill_(poison_value(t.dtype))


def unwritten(out):
    """How many elements of ``out`` still hold NaN."""
    torch = _torch()
    return int(torch.isnan(out.float()).sum().item()) if out.dtype.is_floating_point else 0


def padding_intact(view, buf):
    """Whether the columns of ``buf`` past ``view``'s last dimension still
    hold the poison (True without padding)."""
    torch = _torch()
    cols = view.shape[-1]
    if buf.shape[-1] == cols:
        return True
    pad = buf[..., cols:]
    if buf.dtype.is_floating_point:
        return bool(torch.isnan(pad.float()).all().item())
    return bool((pad == poison_value(buf.dtype)).all().item())


def poison_allocator(numel, dtype, cupy=None):
    """Leaves a NaN-filled block of ``numel`` elements in torch's caching
    allocator, which the next allocation of that size most likely gets:
    outputs a library call allocates start as NaN too. With ``cupy`` (the
    module), in CuPy's memory pool instead (``dtype`` a CuPy dtype)."""
    if cupy is not None:
        cupy.full((max(numel, 1),), float("nan"), dtype=dtype)
        return
    torch = _torch()
    torch.full((max(numel, 1),), poison_value(dtype), dtype=dtype, device="cuda")
