"""The artifacts of a GPU machine, which has no compiler.

``make gpu-artifacts`` (scripts/build/build_gpu_artifacts.sh) builds the
bundle: one folder, ``.gpu/bundle`` (ignored by git), with a part per check
(``examples``, ``gemm``, ``att``, ``block``, ``backward``, ``python``,
``aot``, ``corpus``, and the parts of the checks that build their own
kernels: ``split_k``, ``gemm_sweep``, ``batch_reduce``, ``shuffle``,
``lin``, ``linalg``, ``host``, ``flex``, ``decode``), each ``<chip>/<kernel>.json`` + ``.cubin``,
and one ``commit.txt``. scripts/gpu/run_all.sh runs every check from it. This module
names its parts and loads kernels (``tilec.runtime.Kernel``, imported when
called, so that the build side imports this module without a GPU).
"""

import importlib.util
import os

from scripts import ROOT

#: The bundle's folder (relative to the repository root) and its parts.
BUNDLE = os.path.join(".gpu", "bundle")
PARTS = ("examples", "gemm", "att", "block", "backward", "python", "aot", "corpus",
         "split_k", "gemm_sweep", "batch_reduce", "shuffle", "lin", "linalg", "host", "flex",
         "decode", "varlen", "flex_tables")


def bundle_part(part, bundle=None):
    """The folder of ``part`` in the bundle (``$TILEC_BUNDLE`` or
    ``.gpu/bundle`` under the root)."""
    assert part in PARTS, part
    bundle = bundle or os.environ.get("TILEC_BUNDLE") or os.path.join(ROOT, BUNDLE)
    return os.path.join(bundle, part)


def build_package_kernels(directory, sources, cubin_archs, log=None):
    """Compiles ``sources`` ({(chip, kernel name): tile program}) here with
    tilec.compile into ``directory/<chip>/`` as the package finds
    precompiled kernels (source, PTX, cubin, metadata; ``cubin_archs``:
    chip -> ptxas target), copies the shape-rule library beside them (the
    GPU machine has no compiler to ask) and stamps the commit. ``log(chip,
    name)`` after each kernel. Returns how many were built."""
    import shutil

    import tilec
    from scripts.harness.records import stamp_commit
    for (chip, name), source in sorted(sources.items()):
        result = tilec.compile(source, chip=chip, emit="cubin", cubin_arch=cubin_archs[chip],
                               keep=("ptx", "cubin"))
        result.save(os.path.join(directory, chip), source=source, stages=("ptx", "cubin"))
        if log:
            log(chip, name)
    shutil.copy2(tilec._rules.library_path(), os.path.join(directory, "libtilec-rules.so"))
    stamp_commit(directory)
    return len(sources)


def kernel_path(art, chip, name):
    """``art/<chip>/<name>.json`` (``chip`` None: ``art/<name>.json``)."""
    return os.path.join(art, *([chip] if chip else []), name + ".json")


def load(art, chip, name):
    """The kernel ``name`` of ``art/<chip>``, or None when it was not built."""
    path = kernel_path(art, chip, name)
    if not os.path.exists(path):
        return None
    from tilec.runtime import Kernel
    return Kernel(path)


def kernel_names(art, chip, prefix=""):
    """The kernels of ``art/<chip>`` whose names start with ``prefix``."""
    directory = os.path.join(art, chip)
    return sorted(f[:-5] for f in os.listdir(directory)
                  if f.endswith(".json") and f.startswith(prefix))


def load_example(name):
    """``examples/<name>.py`` as a module (the examples are users' scripts,
    not modules of a package)."""
    spec = importlib.util.spec_from_file_location(name, os.path.join(ROOT, "examples", name + ".py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
