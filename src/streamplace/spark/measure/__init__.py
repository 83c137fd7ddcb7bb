"""Measurements on Spark: operator profiles (profiler.py), the engine model's constants (calibration.py), sweeps
run as Spark tasks (sweep.py) and a plan's brief check on this machine (check.py). Uses the runtime and the
cluster manager.
"""
