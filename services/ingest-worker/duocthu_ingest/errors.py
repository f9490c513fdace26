"""Errors the ingest worker reports to its caller (a job result, the CLI's exit code)."""

from __future__ import annotations


class IngestError(Exception):
    """The job cannot produce a release; the message names the problem (in Vietnamese, user-facing)."""


class BadInput(IngestError):
    """The input is not a usable PDF: missing, not a PDF, encrypted, truncated/damaged, or no monographs."""
