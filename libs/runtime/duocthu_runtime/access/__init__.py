"""Who may do what on NATS: the one permission table and its nats-server rendering.

:mod:`.table` is the table (pure data, derived from the contract classes), and
:mod:`.server_config` renders it as a nats-server ``authorization`` block (a
pure function; the embedded server, compose and k8s all use it). The
per-identity passwords that ``duocthu up`` keeps in the var dir are the
development stack's (:mod:`duocthu_runtime.devstack.credentials`).
"""

from duocthu_runtime.access.server_config import authorization_block, env_reference, publish_allow
from duocthu_runtime.access.table import IDENTITIES, OPS, Identity, identity, identity_of_service, shadow

__all__ = [
    "IDENTITIES", "OPS", "Identity", "authorization_block", "env_reference", "identity", "identity_of_service",
    "publish_allow", "shadow",
]
