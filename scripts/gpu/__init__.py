"""scripts/gpu: the checks and sanitizer runs of the GPU machine (scripts/README.md)."""
