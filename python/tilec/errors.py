"""Exceptions raised by tilec's operations (``tilec.gemm``,
``tilec.attention``) before or instead of launching a kernel."""


class ArgumentError(ValueError):
    """An argument the kernel cannot take (device, shape, strides,
    alignment)."""


class DTypeError(ArgumentError, TypeError):
    """An argument of a dtype the kernel does not support."""


class LoweringNotAvailableError(NotImplementedError):
    """The compiler cannot lower this operation yet; nothing was run."""


class KernelNotAvailableError(RuntimeError):
    """No precompiled kernel fits and the compiler is not available."""


class LaunchError(RuntimeError):
    """A kernel cannot be launched with these arguments (checked against its
    metadata), or the CUDA driver refused the launch (:mod:`tilec.runtime`)."""


class GridRuleError(ValueError):
    """A grid rule (or a tensor-map size or stride) of <kernel>.json that
    cannot be evaluated: a syntax error, an unknown parameter, a division by
    zero (:func:`tilec.evaluate_grid`)."""
