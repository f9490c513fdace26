"""Who may do what on NATS: the one permission table, its nats-server rendering, generated credentials.

:mod:`.table` is the table (pure data, derived from the contract classes),
:mod:`.server_config` renders it as a nats-server ``authorization`` block (a
pure function; the embedded server, compose and k8s all use it), and
:mod:`.credentials` generates and reads the per-identity passwords that
``duocthu up`` keeps in the var dir.
"""
