"""KV buckets (presence, the gateway's rate limit): opened, or created when missing."""

from __future__ import annotations

from nats.js.errors import BucketNotFoundError
from nats.js.kv import KeyValue

from duocthu_runtime.bus.connection import Connection
from duocthu_runtime.bus.streams import bucket_config


class Buckets(Connection):
    """KV buckets on this connection (each caller keeps the handle it needs)."""

    async def key_value(self, bucket: str, *, ttl_s: float) -> KeyValue:
        """The KV ``bucket``, created (with the streams' replicas) when missing, e.g. on a restarted server.

        Quick requests: a bucket electing a leader answers nothing, and every caller has a fallback.
        """
        js = self.quick_js()
        try:
            return await js.key_value(bucket)
        except BucketNotFoundError:
            return await js.create_key_value(bucket_config(self.settings, bucket, ttl_s=ttl_s))
