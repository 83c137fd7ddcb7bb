"""The executor runtime: a topology and a plan become a PySpark Structured Streaming query, run and measured.

Pipeline builders (pipeline.py), what an operator's tasks run (operators.py, logic.py, library/), the sources
(bounded_source.py, feeder.py, admission.py, phase.py) and the sink (sink.py), operator state (state.py), placed
stages (layout.py, locality.py), the process's SparkSession (session.py), and the drivers that run a pipeline for
a while and measure it (run.py) and keep it under an elastic policy (live.py), telling a listener of each
micro-batch, decision and end (events.py, watch.py). Imports nothing from the cluster manager or the measurements
above it, and no view: the workflows subscribe the live page and the terminal to those events.
"""
