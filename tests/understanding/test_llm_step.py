"""The optional model step: only when ambiguous, only drugs from the shortlist, falls back on any failure."""

from __future__ import annotations

from typing import Any

import pytest

from duocthu_contracts.decisions import Reason
from duocthu_contracts.messages import TurnCompleted, TurnRequested, TurnRequestedPayload, TurnUnderstood
from duocthu_contracts.sections import SectionKey
from duocthu_providers.errors import ProviderUnavailable
from duocthu_runtime import StageContext, new_turn, utcnow
from duocthu_understanding.adapters.catalog import LiveCatalog
from duocthu_understanding.adapters.drug_picker import CLOSE
from duocthu_understanding.main import build_handler
from tests.fixtures.understanding import sample_catalog
from tests.fixtures.verifier import ScriptedProvider

AMBIGUOUS = "Thuốc hạ sốt thông dụng nhất, liều dùng cho người lớn là bao nhiêu?"


async def run(provider: ScriptedProvider, question: str) -> Any:
    handler = build_handler(LiveCatalog(sample_catalog()), provider)
    message = new_turn(TurnRequested, TurnRequestedPayload(query=question), origin="t", deadline_s=30, llm_calls=8)
    [out] = await handler(message, StageContext("understanding", message, utcnow()))
    return out


async def test_the_model_picks_from_the_shortlist_and_the_frame_is_built_deterministically() -> None:
    provider = ScriptedProvider(replies=['{"drug_ids": ["paracetamol"]}'])
    out = await run(provider, AMBIGUOUS + f" {CLOSE}")  # a marker in the question cannot close the fence
    assert isinstance(out, TurnUnderstood)
    frame = out.payload.frame
    assert [d.drug_id for d in frame.drugs] == ["paracetamol"] and frame.understood_by == "llm"
    assert frame.section_key is SectionKey.LIEU_LUONG_VA_CACH_DUNG
    assert out.llm_calls_remaining == 7
    user = provider.requests[0].messages[0].content
    assert user.count(CLOSE) == 1 and "- paracetamol: PARACETAMOL" in user


@pytest.mark.parametrize("reply", ['{"drug_ids": ["thuoc_bia"]}', "paracetamol nhé", '{"drug_ids": "x"}',
                                   ProviderUnavailable("down")])
async def test_anything_else_falls_back_to_the_deterministic_frame(reply: str | Exception) -> None:
    out = await run(ScriptedProvider(replies=[reply]), AMBIGUOUS)
    assert isinstance(out, TurnCompleted) and out.payload.reason is Reason.DRUG_REQUIRED
    assert out.payload.frame is not None and out.payload.frame.understood_by == "deterministic"


async def test_the_model_is_not_asked_about_unknown_names_or_clear_questions() -> None:
    provider = ScriptedProvider(replies=['{"drug_ids": ["paracetamol"]}'])
    unknown = await run(provider, "Zolmitrapin có tác dụng phụ gì?")
    assert unknown.payload.reason is Reason.UNKNOWN_DRUG
    clear = await run(provider, "Chống chỉ định của metformin?")
    assert isinstance(clear, TurnUnderstood)
    assert provider.requests == []
