"""Built-in operator logic; importing this package registers every name in ``streamplace.spark.logic.REGISTRY``."""

from streamplace.spark.library import debs, generic, oee  # noqa: F401
