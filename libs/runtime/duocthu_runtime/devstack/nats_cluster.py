"""A JetStream cluster of ``nats-server`` children on loopback (the scale-out proof of issue 21).

The deployment runs NATS as a 3-node JetStream cluster with every stream
replicated three times (``deploy/k8s/base/nats.yaml``, ``BUS_STREAM_REPLICAS=3``).
This runs the same shape on one machine so a test can kill a node under load:
each node is a :class:`~duocthu_runtime.devstack.nats_server.NatsServer` (same config,
same ``authorization`` block) with its own store, a server name, and a
``cluster`` block routing to the other nodes.  Clients get every node's URL
(:attr:`NatsCluster.url`, comma separated, as ``NATS_URL`` takes it) and fail
over between them.
"""

from __future__ import annotations

import contextlib
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

from duocthu_runtime.devstack.nats_server import NatsServer, free_port
from duocthu_runtime.errors import NatsServerError


@dataclass
class NatsCluster:
    """``size`` JetStream nodes named ``n1..nN`` under ``root/<name>``, routed to each other."""

    root: Path
    size: int = 3
    name: str = "duocthu"
    #: the same ``authorization`` block on every node (:func:`~duocthu_runtime.devstack.credentials.embedded_authorization`)
    authorization: str = ""
    nodes: list[NatsServer] = field(default_factory=list)
    _route_ports: list[int] = field(default_factory=list)

    @property
    def url(self) -> str:
        """Every node's client URL, comma separated: a client tries the next one when its node dies."""
        return ",".join(node.url for node in self.nodes)

    def node_name(self, index: int) -> str:
        return f"n{index + 1}"

    def start(self, timeout_s: float = 30.0) -> NatsCluster:
        """Start every node, then wait until the JetStream meta group has a leader and all peers."""
        if not self.nodes:
            self._route_ports = [free_port() for _ in range(self.size)]
            for index in range(self.size):
                store = self.root / self.node_name(index)
                self.nodes.append(NatsServer(
                    store_dir=store, port=free_port(), http_port=free_port(), log_file=store / "nats.log",
                    authorization=self.authorization, extra_config=self._cluster_block(index),
                ))
        for node in self.nodes:
            if not node.alive():
                node.start(timeout_s)
        self.wait_meta_leader(timeout_s)
        return self

    def _cluster_block(self, index: int) -> str:
        routes = ", ".join(f"nats-route://127.0.0.1:{port}"
                           for other, port in enumerate(self._route_ports) if other != index)
        return (
            f"server_name: {self.node_name(index)}\n"
            f"cluster {{\n  name: {self.name}\n  listen: 127.0.0.1:{self._route_ports[index]}\n"
            f"  routes: [{routes}]\n}}\n"
        )

    def jsz(self, index: int, *, details: bool = False) -> dict[str, Any]:
        """The node's ``/jsz`` monitoring report (meta group, streams); raises when it does not answer.

        ``details`` adds every stream and consumer with its raft group's leader (who must elect after a kill).
        """
        query = "?accounts=true&streams=true&consumers=true" if details else ""
        response = httpx.get(f"http://127.0.0.1:{self.nodes[index].http_port}/jsz{query}", timeout=2)
        response.raise_for_status()
        report: dict[str, Any] = response.json()
        return report

    def meta_leader(self) -> str | None:
        """The name of the meta leader, as the first live node that knows one reports it."""
        for index, node in enumerate(self.nodes):
            if not node.alive():
                continue
            with contextlib.suppress(httpx.HTTPError, ValueError):  # a node still starting answers nothing useful
                leader = self.jsz(index).get("meta_cluster", {}).get("leader")
                if leader:
                    return str(leader)
        return None

    def wait_meta_leader(self, timeout_s: float) -> str:
        """Wait until every live node agrees on one meta leader and sees all its peers current."""
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            if self._meta_settled():
                leader = self.meta_leader()
                if leader:
                    return leader
            time.sleep(0.1)
        self.stop()
        raise NatsServerError(f"the {self.size}-node JetStream cluster elected no meta leader within {timeout_s}s")

    def _meta_settled(self) -> bool:
        leaders: set[str] = set()
        for index, node in enumerate(self.nodes):
            if not node.alive():
                continue
            try:
                meta = self.jsz(index).get("meta_cluster", {})
            except (httpx.HTTPError, ValueError):  # not answering yet is "not settled"
                return False
            leaders.add(str(meta.get("leader") or ""))
            replicas = meta.get("replicas") or []
            current = [peer for peer in replicas if peer.get("current")]
            if str(meta.get("leader")) == self.node_name(index) and len(current) != self.size - 1:
                return False  # the leader does not see every peer current yet
        return len(leaders) == 1 and "" not in leaders

    def index_of(self, name: str) -> int:
        return [self.node_name(i) for i in range(len(self.nodes))].index(name)

    def kill(self, name: str) -> None:
        """SIGKILL node ``name`` (``n1``…); :meth:`start` brings it back on the same ports and store."""
        self.nodes[self.index_of(name)].kill()

    def stop(self) -> None:
        for node in self.nodes:
            node.stop()

    def __enter__(self) -> NatsCluster:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
