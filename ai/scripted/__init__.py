"""Scripted opponents: fixed plans that tests and benchmarks play the levels against."""
