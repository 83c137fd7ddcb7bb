"""Use cases the command line and the Python API share, as plain library functions: they print nothing, and
say what a caller may show (warnings, notes, progress) through the callbacks it passes.

- ``run.py``: enact a plan's pipeline on Spark and measure it beside the model's prediction (`streamplace run`,
  the demo's run on its emulated cluster).
"""
