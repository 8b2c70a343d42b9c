"""Tandem benchmark harness: model and runtime registries, C helpers,
report. The entry point is bench/run.py."""
