"""Benchmarks of the storefront: `make bench` (or `make bench QUICK=1`) runs bench/run.py."""
