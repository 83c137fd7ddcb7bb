"""Use cases the command line and the Python API share, as plain library functions: they print nothing, and
say what a caller may show (warnings, notes, progress) through the callbacks it passes.

- ``arguments.py``: the public functions' arguments checked for their types where they come in (a SpecError
  naming the argument, never a TypeError from inside).
- ``instance.py``: load and check an instance (topology, cluster, profile), the engine, a plan's profile record.
- ``planning.py``: plan, predict/evaluate, compare, the schedulers' catalogue, import a Storm Flux topology.
- ``simulate.py``: an elastic controller against a varying load, in the simulator.
- ``run.py``: enact a plan's pipeline on Spark and measure it beside the prediction (`run`, the API's run, the
  demo's cluster run).
- ``live.py``: a pipeline under an elastic policy, re-planned as it runs (`live`).
- ``cluster.py``: start, find, describe and stop a standalone cluster (`cluster up|worker-config|status|down`).
- ``measure.py``: calibrate the spark engine, profile operators, sweeps as Spark tasks.
- ``session.py``: the Spark session a use case runs on.
- ``demo.py``: the product's job on a built-in instance.

Only these call into ``streamplace.spark`` from outside it (tests/test_layers.py).
"""
