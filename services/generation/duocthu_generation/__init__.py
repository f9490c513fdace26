"""Generation stage: structured claims over the evidence (extractive by default; Bedrock or an OpenAI-compatible
model when ``ANSWER_PROVIDER`` names one).

The public face: what the ``duocthu`` command and the benchmarks may use.
"""

from duocthu_generation.application.drafting import Drafted, Drafting, Ended, ExtractiveWriter
from duocthu_generation.domain.bands import cell_band
from duocthu_generation.domain.bands import parse as parse_label
from duocthu_generation.main import build_handler, build_spec

__all__ = [
    "Drafted",
    "Drafting",
    "Ended",
    "ExtractiveWriter",
    "build_handler",
    "build_spec",
    "cell_band",
    "parse_label",
]
