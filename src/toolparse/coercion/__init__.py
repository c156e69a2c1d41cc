"""JSON-Schema-driven coercion of argument values.

:func:`coerce` is the whole-value API. Inside the stream parser the same rules
run value by value, at the moment each value closes, so that a call's
argument deltas already carry the coerced values.
"""

from toolparse.coercion.coerce import Coerced, Issue, coerce

__all__ = ["Coerced", "Issue", "coerce"]
