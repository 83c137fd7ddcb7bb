"""The live run page: what `run` and `live` show in a browser while they run (series, server, template).

``series`` turns counter readings into the page's state (pure), ``render`` writes the HTML, ``server`` serves
it on localhost during the run. Nothing here imports PySpark, and the runtime imports nothing here: it tells a
listener of its batches, decisions and end (spark/events.py), and workflows/feeds.py feeds the page
from them.
"""
