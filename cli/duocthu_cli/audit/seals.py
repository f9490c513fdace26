"""The seals stored in the audit log, checked again: what makes the log tamper-evident.

Every turn end the verifier wrote is stored sealed (``rag.turn.verified``):
its seal must still verify, under the configured public keys, over exactly
what is stored — an edited claim, a swapped citation, a verdict moved onto
another turn or a seal by a key not configured all fail here.  A turn end
stored on the open subject that decides ``answerable`` or ``verify_pdf`` is
reported too: no stage but the verifier may end a turn that way (the gateway
refused to show it), so it is a forgery attempt an auditor must read.
"""

from __future__ import annotations

from duocthu_cli.audit.chain import COMPLETED, VERIFIED
from duocthu_cli.audit.records import Recorded
from duocthu_contracts.decisions import Decision
from duocthu_contracts.messages import TurnVerified
from duocthu_runtime import MessageRejected, decode
from duocthu_runtime.seal import Keyring, SealCheck, check_seal

_SEALED_ONLY = frozenset({Decision.ANSWERABLE.value, Decision.VERIFY_PDF.value})


def stored_end_problem(record: Recorded, keyring: Keyring) -> str | None:
    """What is wrong with a stored turn end (its seal, or an unsealed answer), or None."""
    if record.kind == VERIFIED:
        try:
            verified = decode(record.raw, TurnVerified)
        except MessageRejected as exc:
            return f"sealed turn end {record.message_id} does not parse ({exc.reason}): it was altered"
        found = check_seal(verified, keyring)
        if found is SealCheck.VALID:
            return None
        return (f"seal {found.value} (key {verified.payload.seal.key_id}) on turn end {record.message_id}: "
                "the stored record is not what the verifier sealed")
    if record.kind == COMPLETED and record.payload.get("decision") in _SEALED_ONLY:
        return (f"{record.payload.get('decision')} on the open subject without the verifier's seal "
                f"(turn end {record.message_id}, claimed by {record.payload.get('completed_by')!r})")
    return None
