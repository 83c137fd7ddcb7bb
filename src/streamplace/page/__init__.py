"""The live run page: what `run` and `live` show in a browser while they run (series, server, template).

``series`` turns counter readings into the page's state (pure), ``render`` writes the HTML, ``server`` serves
it on localhost during the run. Nothing here imports PySpark: the Spark side hands over plain readings
(spark/runtime/watch.py).
"""
