"""Alternating-round timing with CUDA events.

Every function of a comparison (a kernel and its baselines) is timed under
the same clock and power state: many short samples (about ``sample_ms``
each) in which the functions take turns, the order rotated every round, and
the median of each function's samples. At 8192³ an H200 reaches its power
cap within a few hundred milliseconds; long per-function blocks made
whichever kernel ran on a cool card look 10% faster.

The scheduling is independent of CUDA (``clock``): :class:`CudaClock`
(events) on the GPU, any object with ``measure(f, calls) -> ms per call``
elsewhere (python/tests/test_harness.py).
"""

import statistics


class CudaClock:
    """Times ``calls`` calls of ``f`` between two CUDA events (ms per call)."""

    def __init__(self):
        import torch
        self.torch = torch

    def sync(self):
        self.torch.cuda.synchronize()

    def measure(self, f, calls):
        start = self.torch.cuda.Event(enable_timing=True)
        end = self.torch.cuda.Event(enable_timing=True)
        start.record()
        for _ in range(calls):
            f()
        end.record()
        end.synchronize()
        return start.elapsed_time(end) / calls


def rotation(names, r):
    """The order of round ``r``: each round starts at another function, so
    that no kernel always runs first (or right after the same neighbour)."""
    k = r % len(names)
    return names[k:] + names[:k]


def time_rounds(fns, rounds, sample_ms=3.0, calls=20, clock=None, warmup=3, samples_out=None):
    """{name: median ms per call} of the functions ``fns`` ({name: f}),
    timed in alternating rounds. Each function gets about ``rounds`` x
    ``calls`` calls: the calls per sample are chosen so that a sample takes
    about ``sample_ms`` (at most ``calls``), and the number of rounds grows
    as samples get shorter. ``samples_out`` (a dict): receives every
    function's samples (ms per call), for a spread."""
    clock = clock or CudaClock()
    for f in fns.values():
        for _ in range(warmup):
            f()
    if hasattr(clock, "sync"):
        clock.sync()
    iters = {k: max(1, min(calls, round(sample_ms / max(clock.measure(f, 1), 1e-3))))
             for k, f in fns.items()}
    samples = {k: [] for k in fns}
    names = list(fns)
    for r in range(rounds * max(1, calls // min(iters.values()))):
        for k in rotation(names, r):
            samples[k].append(clock.measure(fns[k], iters[k]))
    if samples_out is not None:
        samples_out.update(samples)
    return {k: statistics.median(v) for k, v in samples.items()}


def time_graph_rounds(fns, rounds, calls=20):
    """As :func:`time_rounds`, but each function's ``calls`` calls are
    captured once into a CUDA graph and the graphs replayed: the GPU's time
    per call without the host's dispatch (which bounds eager calls of
    kernels of a few microseconds, such as decode GEMMs; serving runs them
    in graphs). Each function runs outside the capture first (kernel
    loading, plans, allocations)."""
    import torch
    graphs = {}
    for k, f in fns.items():
        for _ in range(3):
            f()
        torch.cuda.synchronize()
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph):
            for _ in range(calls):
                f()
        graphs[k] = graph
    ms = time_rounds({k: g.replay for k, g in graphs.items()}, rounds, calls=4)
    return {k: t / calls for k, t in ms.items()}
