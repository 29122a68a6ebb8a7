"""The torch side of a launch (:mod:`tilec.runtime`'s upper half).

The torch entry points a launch uses -- the tensor type, dtypes, the
current device and stream, the device context -- looked up once
(:func:`_launch_env`; torch is imported then, not before), and streams of
any library turned into raw ``CUstream`` handles. Everything that touches
the CUDA driver is ``libtilec-runtime.so``'s (:mod:`tilec._rtcapi`).
"""

import threading

from .tensors import TORCH_DTYPES


class _Env:
    """The torch entry points a launch uses, looked up once."""

    def __init__(self):
        import torch
        torch.cuda.init()  # ensures a current primary context
        self.torch = torch
        self.tensor_type = torch.Tensor
        c = getattr(torch, "_C", None)
        get_device = getattr(c, "_cuda_getDevice", None)
        self.current_device = get_device if callable(get_device) else torch.cuda.current_device
        raw_stream = getattr(c, "_cuda_getCurrentRawStream", None)
        self.current_stream = raw_stream if callable(raw_stream) else (
            lambda device: torch.cuda.current_stream(device).cuda_stream)
        self.device_context = torch.cuda.device
        self.dtypes = {}  # tilec dtype name -> torch dtype

    def torch_dtype(self, name):
        """The torch dtype of a tilec dtype name (``None`` for none)."""
        try:
            return self.dtypes[name]
        except KeyError:
            pass
        want = TORCH_DTYPES.get(name)
        dtype = getattr(self.torch, want, None) if want else None
        self.dtypes[name] = dtype
        return dtype

    def make_current(self, device):
        """Makes ``device``'s primary context current on this thread (a
        thread where torch has not called CUDA yet has none): a runtime call
        on that device does it."""
        with self.device_context(device):
            self.torch.cuda.synchronize(device)


_env = None
_env_lock = threading.Lock()


def _launch_env():
    global _env
    with _env_lock:
        if _env is None:
            _env = _Env()
        return _env


def _forget_modules():
    """Forgets the torch module looked up so far (tests that swap it)."""
    global _env
    _env = None


def stream_handle(stream):
    """The raw ``CUstream`` (an int) of ``stream``: an int, a torch stream
    (``cuda_stream``), a CuPy stream (``ptr``), or anything else ``int()``
    takes (a ``cuda.bindings`` ``CUstream``); ``None`` is 0."""
    if stream is None:
        return 0
    if isinstance(stream, int):
        return stream
    for attribute in ("cuda_stream", "ptr"):
        handle = getattr(stream, attribute, None)
        if isinstance(handle, int):
            return handle
    return int(stream)
