"""``tilec.gemm``, ``tilec.bmm``, ``tilec.grouped_gemm`` and
``tilec.attention`` on torch / CuPy / DLPack tensors: the public names of
the host layer, kept here for code that imports them from ``tilec.ops``.

The layer is split by concern, each module importing only those below it:

* :mod:`tilec.targets`: devices and the chips tilec targets on them;
* :mod:`tilec.plans`: resolved kernels (precompiled or compiled) and the
  plans that make a repeated call cost one lookup and a launch;
* :mod:`tilec.checks`: argument checks the ops share;
* :mod:`tilec.launch`: allocating outputs and launching checked calls;
* :mod:`tilec.op_gemm`, :mod:`tilec.op_batched`, :mod:`tilec.op_attention`:
  one module per op family (``tilec.gemm``'s direct path; ``tilec.bmm`` and
  ``tilec.grouped_gemm``; ``tilec.attention``'s direct path, FP8 included);
* :mod:`tilec.training`, :mod:`tilec.torch_ops`: gradients and the torch
  operators, above the op families;
* :mod:`tilec.api`: ``tilec.gemm`` and ``tilec.attention``, which route
  through the torch operators when autograd or torch.compile needs them.
"""

from .api import attention, gemm
from .errors import ArgumentError, DTypeError, KernelNotAvailableError, LoweringNotAvailableError
from .kernels import gemm_config_suffix, gemm_shape_config, grouped_gemm_shape_config
from .op_batched import bmm, grouped_gemm
from .op_gemm import default_precision
from .plans import clear_kernel_memo
from .targets import chip_for_capability, device_capability, device_chip

__all__ = ["gemm", "bmm", "grouped_gemm", "attention", "default_precision", "device_chip",
           "chip_for_capability", "clear_kernel_memo",
           "ArgumentError", "DTypeError", "KernelNotAvailableError", "LoweringNotAvailableError"]

#: Public names outside ``__all__`` that code reads as ``tilec.ops.<name>``
#: (the device query, and the shape rules this module used to import).
#: Rebinding them here changes nothing: the modules above use their own.
_READ_ONLY = (device_capability, gemm_config_suffix, gemm_shape_config, grouped_gemm_shape_config)
