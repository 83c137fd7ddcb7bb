"""The query builder: a topology and a plan become a PySpark Structured Streaming query.

The two runtimes behind one interface (pipeline.py: ``Pipeline``, ``LocalPipeline``; placed.py:
``PlacedPipeline``; build.py picks one), what an operator's tasks run (operators.py, logic.py, library/, busy.py,
hashing.py), the sources (bounded_source.py, feeder.py, phase.py) and the sink (sink.py), operator state
(state.py), the counters a batch's tasks add to (metrics.py) and the JVM side of placed stages (locality.py,
jvm/). Imports nothing else of spark/: the drivers (runtime/), the executors' daemons (daemons/) and the cluster
manager build on it.
"""
