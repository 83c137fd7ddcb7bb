"""An autoscaler for any Structured Streaming query: collect → evaluate → decide → realize, the decision pure.

``options`` (one typed options object, its ranges), ``state`` (what is collected, the decision's memory),
``fit`` (the query's micro-batch cost, fitted online), ``evaluate`` (arrival rate, backlog, utilization, the fit),
``decide`` (the decision and its reason), ``baselines`` (the rules users have today, for comparison). Nothing here
imports PySpark: the listener and the executor requests are spark/autoscale/'s, the handle a user holds is
workflows/autoscale.py's.
"""
