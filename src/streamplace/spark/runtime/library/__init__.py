"""Built-in operator logic; importing this package registers every name in
``streamplace.spark.runtime.logic.REGISTRY``.
"""

from streamplace.spark.runtime.library import debs, generic, oee  # noqa: F401
