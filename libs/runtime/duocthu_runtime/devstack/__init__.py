"""The development stack's processes: a private NATS server (or cluster), its generated credentials, children
that die with their parent, and how an operator's command finds the stack ``duocthu up`` runs."""
