"""The supervisor's restart backoff: grows in a crash loop, resets after a stable run, never gives up."""

from __future__ import annotations

from duocthu_cli.stack.supervisor import Backoff


def test_backoff_grows_caps_and_resets_after_a_stable_run() -> None:
    backoff = Backoff(first_s=1.0, factor=2.0, max_s=5.0, stable_after_s=60.0)
    backoff.started(0.0)
    delays = []
    now = 0.0
    for _ in range(6):  # a crash loop: each run lasts one second
        now += 1.0
        delays.append(backoff.crashed(now))
        assert not backoff.due(now)
        now += delays[-1]
        assert backoff.due(now)
        backoff.started(now)
    assert delays == [1.0, 2.0, 4.0, 5.0, 5.0, 5.0]  # capped, and still restarting after 6 crashes
    now += 61.0  # up for longer than the stable period
    assert backoff.crashed(now) == 1.0
