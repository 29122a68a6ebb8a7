"""scripts/build: builds the artifacts the GPU machine runs (scripts/README.md)."""
