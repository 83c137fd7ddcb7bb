"""Streamplace on Apache Spark: plans become PySpark Structured Streaming pipelines that run where they are placed.

Only this package imports PySpark (docs/architecture.md): planning works without a JVM. Three parts, lowest
first: ``runtime`` (the pipelines and the drivers that run and measure them), ``cluster`` (the emulated or
multi-host standalone cluster they run on) and ``measure`` (profiles, calibration, sweeps, checks). Outside this
package only the workflows (streamplace.workflows) call them.
"""
