"""The drivers: run a pipeline for a while and measure it (run.py), keep it under an elastic policy (live.py), the
process's SparkSession (session.py), and a running pipeline's micro-batches as events (watch.py, telling
spark/events.py's listeners). Builds the query with query/ and configures the executors' daemons/; imports
nothing of the cluster manager or the measurements above it, and no view: the workflows subscribe the live page
and the terminal to the events.
"""
