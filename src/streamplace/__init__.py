"""streamplace: replica counts and placement for stream-processing topologies.

The package is layered (see DESIGN.md): ``model`` → ``spec`` → ``perf`` →
``schedulers`` → ``report`` → ``cli``; each layer only uses those to its left.
"""

__version__ = "0.1.0"
