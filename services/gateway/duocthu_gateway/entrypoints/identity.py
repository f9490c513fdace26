"""The client behind a request: its token from the ``X-Client-Token`` header or the HttpOnly cookie.

A request that asks without a token is given one (cookie and response
header), so the web page owns its conversations without any login, and an API
client can keep the token it was sent (``duocthu ask`` stores its own).
"""

from __future__ import annotations

from dataclasses import dataclass

from fastapi import Request, Response

from duocthu_gateway.domain.ownership import COOKIE, HEADER, client_key, new_token, valid_token

#: How long the browser keeps its token (a year): conversations stay readable across visits.
COOKIE_MAX_AGE_S = 365 * 24 * 3600


@dataclass(frozen=True)
class Client:
    token: str
    issued: bool  # minted for this request: send it back

    @property
    def key(self) -> str:
        return client_key(self.token)


def presented(request: Request) -> Client | None:
    """The client's well-formed token (the header wins over the cookie), else ``None``."""
    token = valid_token(request.headers.get(HEADER)) or valid_token(request.cookies.get(COOKIE))
    return Client(token, issued=False) if token else None


def presented_or_issued(request: Request) -> Client:
    return presented(request) or Client(new_token(), issued=True)


def hand_over(response: Response, client: Client) -> None:
    """Send a freshly minted token back as an HttpOnly cookie and in ``X-Client-Token``."""
    if client.issued:
        response.set_cookie(COOKIE, client.token, max_age=COOKIE_MAX_AGE_S, httponly=True, samesite="strict",
                            path="/")
        response.headers[HEADER] = client.token
