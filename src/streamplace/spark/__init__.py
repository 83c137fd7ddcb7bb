"""The Spark runtime: topologies and plans become PySpark Structured Streaming pipelines.

Only this package imports PySpark (docs/architecture.md): planning works without a JVM. Import
the submodules you need (``streamplace.spark.session``, ``.pipeline``, ``.operators``).
"""
