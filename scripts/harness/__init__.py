"""The harness of every GPU check and benchmark (issue 52, scripts/README.md).

One implementation of what each check used to write itself:

* :mod:`.timing`: alternating-round timing with CUDA events (``time_rounds``,
  ``time_graph_rounds``): short samples, the order rotated every round, the
  median per function;
* :mod:`.tensors`: inputs that are never zero, outputs poisoned with NaN
  (``poisoned``, ``poison_allocator``), padded rows and the checks that the
  padding kept its poison;
* :mod:`.references`: float32/float64 references (GEMM with its epilogue,
  bmm, grouped GEMM, attention forward with lse, attention backward through
  autograd) and the relative error every check compares by (``rel_err``);
* :mod:`.records`: the commit stamp beside artifacts, the log, and the JSON
  record of bench/results/ (date, GPU, commit, torch, correctness rows,
  numbers, ratios);
* :mod:`.artifacts`: the artifact bundle of a GPU machine (``.gpu/bundle``,
  built by ``make gpu-artifacts``) and loading a kernel from it.

:mod:`.records` and :mod:`.artifacts` need no torch (the build side imports
them); the others import torch when called, so that this package imports
anywhere (and its CPU parts are tested by python/tests/test_harness.py).
"""
