"""Understanding stage: a question to a QueryFrame (drugs from the live catalog, section, population, patient
context, scope guards) or the turn's end with a specific reason.

The public face: what the ``duocthu`` command, the benchmarks and the evals may use.
"""

from duocthu_understanding.domain.frame_builder import Conversation, Outcome, understand
from duocthu_understanding.domain.matcher import DrugMatcher
from duocthu_understanding.main import build_handler, build_spec, handler_for

__all__ = ["Conversation", "DrugMatcher", "Outcome", "build_handler", "build_spec", "handler_for", "understand"]
