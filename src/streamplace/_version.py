"""The package's version, in the lowest layer: the report and the live page print it, and the package's own
``__init__`` (the API's names, loaded on first use: the top of the layers) re-exports it."""

__version__ = "0.1.0"
