"""``duocthu ask``: one question through the running gateway, the answer with its citations.

The standard library only (argparse, urllib): asking is what a user types
most, so it starts without loading the command line's framework or any
service code.
"""

from __future__ import annotations

import argparse
import json
import os
import secrets
import sys
import urllib.error
import urllib.request
from collections.abc import Sequence
from pathlib import Path
from typing import Any

#: Exit codes: 0 answered (HTTP 200), 1 the gateway refused or failed, 2 the gateway could not be reached.
UNREACHABLE = 2


def parser() -> argparse.ArgumentParser:
    ask = argparse.ArgumentParser(prog="duocthu ask", description="Send one question through the running gateway "
                                  "and print the answer with its citations.")
    ask.add_argument("question", help="câu hỏi (Vietnamese question)")
    ask.add_argument("--conversation", help="conversation id")
    ask.add_argument("--json", dest="as_json", action="store_true", help="print the raw JSON response")
    ask.add_argument("--url", default=os.environ.get("DUOCTHU_URL", "http://127.0.0.1:8080"),
                     help="gateway base URL [env DUOCTHU_URL; default http://127.0.0.1:8080]")
    ask.add_argument("--timeout", type=float, default=60.0, help="HTTP timeout in seconds [default 60]")
    return ask


def _pages(rng: list[int]) -> str:
    return f"{rng[0]}" if rng[0] == rng[1] else f"{rng[0]}–{rng[1]}"


def token_path() -> Path:
    """Where this user's client token lives: ``$XDG_CONFIG_HOME/duocthu/client-token`` (default ~/.config)."""
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "duocthu" / "client-token"


def client_token() -> str:
    """This user's client token, created (256 random bits, mode 0600) on first use: the gateway lets only
    the client that started a conversation continue it, read its history or give feedback on it."""
    path = token_path()
    try:
        token = path.read_text().strip()
        if token:
            return token
    except FileNotFoundError:
        pass
    path.parent.mkdir(parents=True, exist_ok=True)
    token = secrets.token_urlsafe(32)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as out:
        out.write(token + "\n")
    return token


def _post(url: str, body: dict[str, object], timeout: float) -> tuple[int, Any]:
    request = urllib.request.Request(f"{url}/v1/rag/query", data=json.dumps(body).encode(), method="POST",
                                     headers={"Content-Type": "application/json", "X-Client-Token": client_token()})
    try:
        with urllib.request.urlopen(request, timeout=timeout) as reply:
            return int(reply.status), json.loads(reply.read())
    except urllib.error.HTTPError as exc:  # an error status still carries the error body
        return exc.code, json.loads(exc.read())


def main(argv: Sequence[str]) -> int:
    args = parser().parse_args(list(argv))
    body: dict[str, object] = {"query": args.question}
    if args.conversation:
        body["conversation_id"] = args.conversation
    try:
        status, data = _post(args.url, body, args.timeout)
    except OSError as exc:  # refused, unreachable, timed out (URLError is an OSError)
        print(f"error: cannot reach the gateway at {args.url}: {exc}", file=sys.stderr)
        return UNREACHABLE
    if args.as_json:
        print(json.dumps(data, ensure_ascii=False, indent=2))
        return 0 if status == 200 else 1
    if status != 200:
        print(f"error {status}: {json.dumps(data.get('detail'), ensure_ascii=False)}", file=sys.stderr)
        return 1
    lines = [f"Quyết định: {data['decision']} ({data['reason']})"]
    if data.get("reason_message") and data["decision"] != "answerable":
        lines.append(data["reason_message"])
    if data.get("answer"):
        lines += ["", data["answer"]]
    if data.get("quick_replies"):
        lines += ["", "Gợi ý trả lời: " + " | ".join(data["quick_replies"])]
    if data.get("citations"):
        lines.append("")
        lines += [f"[{c['index']}] {c['drug_name']} — {c['section_title']} — trang {_pages(c['printed_page_range'])}"
                  for c in data["citations"]]
    # the disclaimer and the trace id each on a line of their own, on one stream: printed to stderr, the
    # trace id landed inside or before the answer whenever stdout was buffered (a pipe, `2>&1`)
    lines += ["", f"Lưu ý: {data['disclaimer']}", f"Mã truy vết (trace_id): {data['trace_id']}"]
    print("\n".join(lines))
    return 0
