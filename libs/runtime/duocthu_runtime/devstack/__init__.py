"""The development stack's processes: what ``duocthu up``, the operator's commands and the tests run on one machine.

A private ``nats-server`` (:class:`NatsServer`, or a :class:`NatsCluster` of
them for the failover tests) with the per-identity passwords ``duocthu up``
generates into the var dir (:func:`embedded_authorization`), children that die
with their parent (:func:`die_with_parent`, :func:`stop_child`), and how an
operator's command finds the running stack (:func:`stack_nats_url`,
:func:`ops_settings`). Nothing here runs inside a deployed service: a service
only reaches it from its own command-line entry point (``duocthu index``,
``duocthu ingest``).
"""

from duocthu_runtime.devstack.child_process import die_with_parent, stop_child
from duocthu_runtime.devstack.credentials import embedded_authorization, ensure_credentials, load_credentials
from duocthu_runtime.devstack.nats_cluster import NatsCluster
from duocthu_runtime.devstack.nats_server import NatsServer, discover_running, find_binary, free_port
from duocthu_runtime.devstack.private_files import write_private
from duocthu_runtime.devstack.stack_discovery import NO_STACK_HINT, ops_settings, reachable, stack_nats_url

__all__ = [
    "NO_STACK_HINT",
    "NatsCluster",
    "NatsServer",
    "die_with_parent",
    "discover_running",
    "embedded_authorization",
    "ensure_credentials",
    "find_binary",
    "free_port",
    "load_credentials",
    "ops_settings",
    "reachable",
    "stack_nats_url",
    "stop_child",
    "write_private",
]
