"""Logs, traces and metrics shared by every service."""
