"""Devices and the chips tilec targets on them.

The chip of a CUDA device comes from its compute capability through the
compiler's rule (``libtilec-rules.so``, :mod:`tilec._rules`): its own ISA
where tilec has one (``sm_90a`` on Hopper), else the closest older chip's
PTX assembled for the device. torch is imported only to ask the device.
"""

from . import _rules
from .errors import ArgumentError


def device_capability(index=None):
    """``(major, minor)`` of CUDA device ``index`` (current by default)."""
    import torch
    return tuple(torch.cuda.get_device_capability(index))


def chip_for_capability(capability):
    """``(chip, cubin_arch)`` tilec targets on a device of that compute
    capability: its own ISA where tilec has one (``sm_90a`` on Hopper), else
    the closest older chip's PTX assembled for the device (the compiler's
    rule, through ``libtilec-rules.so``)."""
    major, minor = capability
    found = _rules.chip_for_capability(major, minor)
    if found is None:
        raise ArgumentError(f"compute capability {major}.{minor} is not supported: tilec "
                            f"kernels need sm_80 (Ampere) or newer")
    return found


def device_chip(index=None):
    """``(chip, cubin_arch)`` for CUDA device ``index``."""
    return chip_for_capability(device_capability(index))


def _capability_or_none(device_index):
    """The device's compute capability, or ``None`` without torch/CUDA."""
    try:
        return device_capability(device_index)
    except Exception:  # no torch, no driver: nothing to check against
        return None


def _cubin_arch_for(chip, device_index):
    """ptxas target for an explicit ``chip``: the device's own arch when a
    GPU is visible (sm_80 PTX runs on Hopper as an sm_90 cubin), else the
    chip."""
    capability = _capability_or_none(device_index)
    if capability is None or chip == "sm_90a":
        return None
    return f"sm_{capability[0]}{capability[1]}"


def _chip_and_arch(chip, device_index):
    """(chip, cubin arch) for an explicit ``chip`` or the device's."""
    if chip is None:
        return device_chip(device_index)
    return chip, _cubin_arch_for(chip, device_index)


_num_sms = {}


def _device_num_sms(device_index):
    """Multiprocessors of CUDA device ``device_index`` (the shape rule's
    ``num_sms``), or 0 (the count the rule is tuned for) without torch/CUDA."""
    count = _num_sms.get(device_index)
    if count is None:
        try:
            import torch
            count = torch.cuda.get_device_properties(device_index).multi_processor_count
        except Exception:  # noqa: BLE001 - no torch, no driver: the rule's typical count
            count = 0
        _num_sms[device_index] = count
    return count
