"""The benchmarks of tilec (TFLOP/s beside cuBLAS, Triton, torch), run from
the repository root as ``python3 -m bench.<name> ...``; their records go to
bench/results/. Importing ``scripts`` puts this checkout's tilec package on
``sys.path`` (scripts/__init__.py: the one bootstrap)."""

from scripts import ROOT  # noqa: F401  (the bootstrap: python/ on sys.path)
