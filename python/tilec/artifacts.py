"""Precompiled kernels for machines without the compiler.

A directory of artifacts has one subdirectory per chip, holding what the
``tilec`` driver or :meth:`tilec.CompileResult.save` writes::

    <dir>/<chip>/<kernel>.json          launch metadata
    <dir>/<chip>/<kernel>.cubin         the cubin (its arch is in the json)
    <dir>/<chip>/<kernel>.ptx           optional
    <dir>/<chip>/<kernel>.source.mlir   optional: the source it was built from

When the source copy is there, a lookup for a kernel whose source differs
fails instead of launching stale code.
"""

import json
import os
import re


class ArtifactError(RuntimeError):
    """A precompiled kernel is missing, stale or cannot run on this GPU."""


def default_directory():
    """``$TILEC_ARTIFACTS`` or ``None``."""
    return os.environ.get("TILEC_ARTIFACTS") or None


def kernel_paths(directory, chip, name):
    """(json, cubin, source) paths of kernel ``name`` for ``chip``."""
    base = os.path.join(directory, chip, name)
    return base + ".json", base + ".cubin", base + ".source.mlir"


def find(directory, chip, name, source=None):
    """``(metadata, cubin)`` of a precompiled kernel, or ``None`` when the
    directory has none. Raises :class:`ArtifactError` when the kernel was
    built from a different source or for another chip."""
    json_path, cubin_path, source_path = kernel_paths(directory, chip, name)
    if not os.path.isfile(json_path):
        return None
    if source is not None and os.path.isfile(source_path):
        with open(source_path, encoding="utf-8") as f:
            if f.read() != source:
                raise ArtifactError(
                    f"precompiled kernel {json_path} was built from a different source than "
                    f"this version of tilec generates; rebuild the artifacts "
                    f"(scripts/build/build_python_artifacts.py)")
    with open(json_path, encoding="utf-8") as f:
        meta = json.load(f)
    if meta.get("chip") != chip or meta.get("kernel") != name:
        raise ArtifactError(f"{json_path} describes kernel {meta.get('kernel')!r} for "
                            f"{meta.get('chip')!r}, expected {name!r} for {chip!r}")
    if not os.path.isfile(cubin_path):
        raise ArtifactError(f"{json_path} has no cubin next to it ({cubin_path})")
    with open(cubin_path, "rb") as f:
        return meta, f.read()


_ARCH = re.compile(r"^sm_(\d+)(\d)([af]?)$")


def cubin_runs_on(cubin_arch, capability):
    """Whether a cubin for ``cubin_arch`` (``sm_90a``, ``sm_80``) loads on a
    device of compute ``capability`` ``(major, minor)``: same major and no
    newer minor; architecture-specific (``a``) cubins only on their exact
    chip."""
    m = _ARCH.match(cubin_arch or "")
    if not m:
        return False
    major, minor, suffix = int(m.group(1)), int(m.group(2)), m.group(3)
    if suffix:
        return (major, minor) == tuple(capability)
    return major == capability[0] and minor <= capability[1]
