"""The benchmarks: run by hand, never by the tests (each module says how and what it measures)."""
