"""The performance model: one place that predicts what any plan will do.

Units and semantics follow docs/architecture.md ("Units and semantics of the
performance model"). Every function here is pure; evaluation of a plan is
vectorized over replica *cells* (operator, node, count), so its cost grows
with the number of distinct (operator, node) pairs, not with replica counts.
"""

from streamplace.perf.evaluate import Evaluation, evaluate
from streamplace.perf.rates import OperatorRates, operator_rates

__all__ = ["Evaluation", "OperatorRates", "evaluate", "operator_rates"]
