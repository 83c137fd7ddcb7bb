"""The face for enacting a plan: build its query, run it for a while, measure it beside its prediction.

What `run`, the demo and the autoscaler's sessions use (workflows/run.py, demo.py, feeds.py, session.py): the
drivers (runtime/run.py, runtime/session.py) and the two things of the query builder they are handed
(query/pipeline.py's ``PipelineConfig``, query/library's ``logic_of``). Names load on first use (_face.py): the
drivers import PySpark, a look at ``RunResult``'s fields must not.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from streamplace.spark._face import names_on_first_use

if TYPE_CHECKING:
    from streamplace.spark.query.library import (
        logic_of as logic_of,
    )
    from streamplace.spark.query.pipeline import (
        PipelineConfig as PipelineConfig,
    )
    from streamplace.spark.runtime.run import (
        RunResult as RunResult,
    )
    from streamplace.spark.runtime.run import (
        comparison as comparison,
    )
    from streamplace.spark.runtime.run import (
        local_machine as local_machine,
    )
    from streamplace.spark.runtime.run import (
        on_one_node as on_one_node,
    )
    from streamplace.spark.runtime.run import (
        prediction as prediction,
    )
    from streamplace.spark.runtime.run import (
        ratio as ratio,
    )
    from streamplace.spark.runtime.run import (
        run_pipeline as run_pipeline,
    )
    from streamplace.spark.runtime.run import (
        run_target as run_target,
    )
    from streamplace.spark.runtime.run import (
        run_warnings as run_warnings,
    )
    from streamplace.spark.runtime.session import (
        local_session as local_session,
    )
    from streamplace.spark.runtime.session import (
        log_file as log_file,
    )
    from streamplace.spark.runtime.session import (
        stop_active_session as stop_active_session,
    )

WHERE = {
    "streamplace.spark.query.library": ("logic_of",),
    "streamplace.spark.query.pipeline": ("PipelineConfig",),
    "streamplace.spark.runtime.run": ("RunResult", "comparison", "local_machine", "on_one_node", "prediction",
                                      "ratio", "run_pipeline", "run_target", "run_warnings"),
    "streamplace.spark.runtime.session": ("local_session", "log_file", "stop_active_session"),
}
__all__ = [name for names in WHERE.values() for name in names]  # what the face gives: WHERE's names
__getattr__ = names_on_first_use(__name__, WHERE)
