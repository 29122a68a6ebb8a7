"""The command line the GPU checks share: ``--build DIR`` here (their
kernels, precompiled: the GPU machine has no compiler), else a run there
from ``--artifacts`` (default the check's part of the bundle), writing
under ``--out``."""

import argparse
import os

from .artifacts import bundle_part


def check_main(part, build, run):
    """Parses the check's arguments and calls ``build(directory)`` or
    ``run(args)`` (args: artifacts, out, quick, rounds)."""
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", metavar="DIR")
    ap.add_argument("--artifacts", default=bundle_part(part))
    ap.add_argument("--out", default="out")
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--rounds", type=int, default=5)
    args = ap.parse_args()
    if args.build:
        return build(args.build)
    return run(args)


def artifact_chips(args, chips):
    """The chips of ``chips`` that ``args.artifacts`` has kernels for, after
    pointing the package at the shape-rule library built beside them."""
    os.environ.setdefault("TILEC_RULES_LIBRARY", os.path.join(args.artifacts,
                                                              "libtilec-rules.so"))
    return [c for c in chips if os.path.isdir(os.path.join(args.artifacts, c))]
