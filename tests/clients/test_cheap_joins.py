"""The sender joins a relative path to its client's base URL (`fastpath.join_path`,
issue 25) exactly as httpx's `AsyncClient.build_request` joins it: the same URL (text,
request target, host and port, equality, parsed parts), whether the path is put together
directly (plain segments) or left to httpx (anything else)."""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from reconciler.clients import fastpath
from reconciler.clients.base import new_http_client
from reconciler.clients.fastpath import join_path
from reconciler.clients.retry import RetryPolicy
from reconciler.clients.sender import Sender

BASES = [
    "http://h.example/helpdesk/api/",
    "https://Acme.Example.com:8443/a%20b/x.y/api/",
    "http://[::1]:8080/api/",
    "http://127.0.0.1:80/api/",
    "http://127.0.0.1:8080",  # an empty path: httpx's `/`
    "http://h.example/t001/api",  # httpx adds the trailing slash
    "https://xn--bcher-kva.example/ü/api/",
]
# Plain segments, put together directly.
PLAIN = ["Users", "Rule/5", "TechsForCategory", "Category/3/Technicians", "a_b~c-d", "X" * 2048]
# Left to httpx: dots, a leading, trailing or doubled slash, a query, a fragment, escapes,
# characters httpx quotes, an empty path, an absolute URL, a path past the quick length.
OTHER = [
    "a.b",
    ".",
    "..",
    "../x",
    "Rule/./5",
    "/Users",
    "Users/",
    "Rule//5",
    "Users?page=2",
    "Users#frag",
    "a%20b",
    "a%zz",
    "a b",
    "ü",
    "a:b",
    "a@b",
    "a;b=c",
    "",
    "//other.example/x",
    "http://other.example/x",
    "X" * 2049,
]


def httpx_client(base: str, **options: Any) -> httpx.AsyncClient:
    return httpx.AsyncClient(
        base_url=base, transport=httpx.AsyncBaseTransport(), trust_env=False, **options
    )


def assert_same(ours: httpx.URL, theirs: httpx.URL) -> None:
    assert str(ours) == str(theirs)
    assert ours.raw_path == theirs.raw_path
    assert (ours.scheme, ours.host, ours.port, ours.netloc) == (
        theirs.scheme,
        theirs.host,
        theirs.port,
        theirs.netloc,
    )
    assert ours == theirs
    assert ours._uri_reference == theirs._uri_reference


def counting(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    built: list[str] = []
    original = httpx.AsyncClient.build_request

    def build(self: httpx.AsyncClient, method: str, url: Any, **kwargs: Any) -> httpx.Request:
        built.append(str(url))
        return original(self, method, url, **kwargs)

    monkeypatch.setattr(httpx.AsyncClient, "build_request", build)
    return built


@pytest.mark.parametrize("base", BASES)
@pytest.mark.parametrize("path", PLAIN + OTHER)
def test_a_path_is_joined_as_httpx_joins_it(base: str, path: str) -> None:
    http = httpx_client(base)
    assert_same(join_path(http, path), http.build_request("GET", path).url)


@pytest.mark.parametrize("base", BASES)
def test_plain_paths_are_put_together_without_httpx(
    base: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    http = httpx_client(base)
    expected = {path: http.build_request("GET", path).url for path in PLAIN + OTHER}
    built = counting(monkeypatch)
    for path in PLAIN + OTHER:
        assert_same(join_path(http, path), expected[path])
    assert built == OTHER  # httpx joined the others, each once, and none of the plain


@pytest.mark.parametrize(
    "base, options",
    [
        ("http://h.example/api/?x=1", {}),  # httpx appends the path to the base's query
        ("http://h.example/api/#top", {}),
        ("http://h.example/api/", {"params": {"page": "1"}}),  # the client's own parameters
        ("/relative/api/", {}),
    ],
)
def test_a_base_with_a_query_fragment_or_parameters_is_joined_by_httpx(
    base: str, options: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    http = httpx_client(base, **options)
    expected = http.build_request("GET", "Users").url
    built = counting(monkeypatch)
    assert_same(join_path(http, "Users"), expected)
    assert built == ["Users"]


def test_when_the_direct_join_is_not_httpx_s_httpx_joins_every_path(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(fastpath, "_JOIN", False)
    http = httpx_client(BASES[0])
    built = counting(monkeypatch)
    assert str(join_path(http, "Users")) == "http://h.example/helpdesk/api/Users"
    assert built == ["Users"]


def test_the_check_against_httpx_runs_at_the_first_join_and_holds(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(fastpath, "_JOIN", None)
    assert str(join_path(httpx_client(BASES[0]), "Users")) == "http://h.example/helpdesk/api/Users"
    assert fastpath._JOIN is True


def test_the_check_fails_when_httpx_joins_otherwise(monkeypatch: pytest.MonkeyPatch) -> None:
    original = httpx.AsyncClient.build_request

    def elsewhere(self: httpx.AsyncClient, method: str, url: Any, **kwargs: Any) -> httpx.Request:
        request = original(self, method, url, **kwargs)
        request.url = request.url.copy_with(path=request.url.path + "/")
        return request

    monkeypatch.setattr(httpx.AsyncClient, "build_request", elsewhere)
    assert fastpath._joins_as_httpx() is False


segment = st.text(
    alphabet=st.sampled_from("aZ09-_~.%/?#:@!$&'()*+,;= ü\t"), min_size=0, max_size=12
)


@settings(max_examples=300, deadline=None)
@given(base=st.sampled_from(BASES), parts=st.lists(segment, min_size=1, max_size=4))
def test_any_path_is_joined_as_httpx_joins_it(base: str, parts: list[str]) -> None:
    http = httpx_client(base)
    path = "/".join(parts)
    try:
        theirs = http.build_request("GET", path).url
    except httpx.InvalidURL:
        with pytest.raises(httpx.InvalidURL):
            join_path(http, path)
        return
    assert_same(join_path(http, path), theirs)


def test_the_api_clients_send_where_httpx_would() -> None:
    http = new_http_client(
        "https://Acme.Example.com:8443/a%20b/api/",
        httpx.MockTransport(lambda request: httpx.Response(200)),
        30.0,
        max_connections=2,
    )
    sender = Sender(http, auth_headers=dict, retry=RetryPolicy())
    for path in ["Users", "Rule/5", "Rule/./5", "a b", "/Users"]:
        assert_same(sender._absolute(path), httpx.AsyncClient.build_request(http, "GET", path).url)
