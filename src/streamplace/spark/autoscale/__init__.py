"""The autoscaler's Spark edges: a listener that hands a query's progress to the controller's thread
(listener.py) and the driver's executor allocation client (executors.py). The decision is autoscaler/'s; the loop
that ties them together is workflows/autoscale.py."""
