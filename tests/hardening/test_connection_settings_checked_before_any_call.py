"""The connection's settings are checked before anything is sent: credentials never go
over `http://` to a host that is not loopback unless the user says so (`--allow-http`,
or `allow_http: true` for the environment); the certificates of `--ca-file` or
REQUESTS_CA_BUNDLE are the ones a server's is checked against, and a file that is not
one is a one-line error; a proxy variable that cannot be used, and a URL holding a
control character (`%0d%0a`, `%00`), are one-line errors. Rows as tests/hardening/table.py
runs them; the refused `http://` address is on TEST-NET-1 (192.0.2.0/24, never routed),
behind a recording proxy on 127.0.0.1 that shows whether anything was sent."""

# ruff: noqa: E501  (a row is one line, whatever its length: adding a case is adding a line)

from __future__ import annotations

import datetime
import ipaddress
import ssl
from pathlib import Path

import pytest

from reconciler.clients.base import tls_context
from reconciler.clients.urls import refuse_cleartext
from reconciler.errors import UsageError
from reconciler.sandbox.process import SandboxProcess
from tests.e2e.test_plan_cli import run
from tests.hardening.servers import answering_server
from tests.hardening.table import OK, Row, basic_env, check_rows, run_row

ROWS = [
    Row("HTTP_PROXY with an unclosed [", "plan m.yaml", 1, "the proxy settings in the environment are not usable: Invalid port", env={"HTTP_PROXY": "http://[::1"}),
    Row("ALL_PROXY of a SOCKS proxy", "plan m.yaml", 1, "name a SOCKS proxy, which needs the socksio package", env={"ALL_PROXY": "socks5://"}),
    Row("HTTPS_PROXY of an ftp:// proxy", "plan m.yaml", 1, "the proxy settings in the environment are not usable: Unknown scheme", env={"HTTPS_PROXY": "ftp://"}),
    Row("%0d%0a in the helpdesk URL", "plan m.yaml", 1, "the helpdesk URL holds a control character ('\\r', percent-encoded or not)", env={"HELPDESK_URL": "http://127.0.0.1:{port}/help%0d%0adesk"}),
    Row("%00 in the helpdesk URL", "plan m.yaml", 1, "the helpdesk URL holds a control character ('\\x00', percent-encoded or not)", env={"HELPDESK_URL": "http://127.0.0.1:{port}/help%00desk"}),
    Row("%0a in the workspace URL", "export --kinds workspace.employees", 1, "the workspace URL holds a control character ('\\n', percent-encoded or not)", env={"WORKSPACE_URL": "http://127.0.0.1:{port}/ws%0a"}),
    Row("--ca-file that does not exist", "plan m.yaml --ca-file {tmp}/nowhere.pem", 1, "the certificates in {tmp}/nowhere.pem cannot be read: No such file or directory (a PEM file is expected)"),
    Row("REQUESTS_CA_BUNDLE that is no certificate", "plan m.yaml", 1, "the certificates in m.yaml cannot be read: [X509: NO_CERTIFICATE_OR_CRL_FOUND]", env={"REQUESTS_CA_BUNDLE": "m.yaml"}),
]  # fmt: skip


@pytest.mark.parametrize("row", ROWS, ids=[row.id for row in ROWS])
def test_the_row_exits_with_its_message_and_writes_nothing(
    row: Row, sandbox: SandboxProcess, tmp_path: Path
) -> None:
    run_row(row, sandbox, tmp_path)


def test_the_rows_have_unique_ids_and_known_setups() -> None:
    check_rows(ROWS)


REMOTE = "http://192.0.2.10/helpdesk"  # TEST-NET-1: documentation only, never routed
OTHER = "http://192.0.2.11/helpdesk"


@pytest.mark.parametrize(
    ("given", "allowed"),
    [((), False), (("--allow-http",), True), (("--env", "acme"), False), (("--env", "open"), True)],
    ids=["refused", "--allow-http", "environment", "allow_http: true"],
)
def test_credentials_go_over_http_beyond_loopback_only_when_allowed(
    given: tuple[str, ...], allowed: bool, sandbox: SandboxProcess, tmp_path: Path
) -> None:
    env = basic_env(sandbox, tmp_path)
    (tmp_path / "m.yaml").write_text(OK, encoding="utf-8")
    (tmp_path / "reconciler.yaml").write_text(
        "environments:\n"
        f"  acme: {{paths: [m.yaml], helpdesk_url: '{REMOTE}'}}\n"
        f"  open: {{paths: [m.yaml], helpdesk_url: '{OTHER}', allow_http: true}}\n",
        encoding="utf-8",
    )
    with answering_server("[]") as proxy:
        env["HTTP_PROXY"] = proxy.url.removesuffix("/helpdesk")
        env["HELPDESK_URL"] = REMOTE if "--env" not in given else ""
        args = given if "--env" in given else ("m.yaml", *given)
        result = run(tmp_path, "plan", *args, "--timeout", "5", env=env)
    assert "Traceback" not in result.stderr and "internal error" not in result.stderr
    if allowed:  # sent, through the proxy on loopback: the Basic credentials in clear text
        url = OTHER if "open" in given else REMOTE
        assert proxy.requests[0] == ("POST", f"{url}/api/Authorization"), proxy.requests
        return
    assert proxy.requests == []
    assert result.returncode == 1
    assert result.stderr.endswith(
        "Error: the helpdesk URL uses http:// to 192.0.2.10, which is not loopback: the "
        "credentials would cross the network unencrypted. Use https://, or give "
        "--allow-http (allow_http: true for the environment in reconciler.yaml) to send "
        "them in clear text anyway\n"
    ), result.stderr


@pytest.mark.parametrize(
    "url",
    ["http://127.0.0.1:8080/helpdesk", "http://127.0.0.2/helpdesk", "http://localhost/helpdesk",
     "http://[::1]:8080/", "http://127.1/", "https://192.0.2.10/helpdesk"],
)  # fmt: skip
def test_loopback_and_https_need_no_permission(url: str) -> None:
    refuse_cleartext(url, "helpdesk", allowed=False)


@pytest.mark.parametrize(
    ("url", "host"),
    [
        ("http://192.0.2.10/", "192.0.2.10"),
        ("http://acme.example.com/", "acme.example.com"),
        ("http://[2001:db8::1]/", "2001:db8::1"),
        ("http://10.1/", "10.1"),
    ],
)
def test_other_hosts_over_http_are_refused(url: str, host: str) -> None:
    with pytest.raises(UsageError) as refused:
        refuse_cleartext(url, "helpdesk", allowed=False)
    assert str(refused.value) == (
        f"the helpdesk URL uses http:// to {host}, which is not loopback: the credentials "
        "would cross the network unencrypted. Use https://, or give --allow-http "
        "(allow_http: true for the environment in reconciler.yaml) to send them in clear "
        "text anyway"
    )


def _certificate(directory: Path) -> tuple[Path, Path]:
    """A self-signed certificate for 127.0.0.1 and its key, as PEM files."""
    crypto = pytest.importorskip("cryptography")
    del crypto
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "reconciler test")])
    now = datetime.datetime.now(datetime.UTC)
    certificate = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(hours=1))
        .add_extension(
            x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]),
            critical=False,
        )
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .sign(key, hashes.SHA256())
    )
    cert_file, key_file = directory / "cert.pem", directory / "key.pem"
    cert_file.write_bytes(certificate.public_bytes(serialization.Encoding.PEM))
    key_file.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
    )
    return cert_file, key_file


@pytest.mark.parametrize(
    ("how", "trusted"),
    [("default roots", False), ("--ca-file", True), ("REQUESTS_CA_BUNDLE", True)],
)
def test_a_server_certificate_is_checked_against_the_ca_file(
    how: str, trusted: bool, sandbox: SandboxProcess, tmp_path: Path
) -> None:
    cert_file, key_file = _certificate(tmp_path)
    server_tls = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    server_tls.load_cert_chain(cert_file, key_file)
    env = basic_env(sandbox, tmp_path)
    (tmp_path / "m.yaml").write_text(OK, encoding="utf-8")
    args: tuple[str, ...] = ()
    if how == "--ca-file":
        args = ("--ca-file", str(cert_file))
    elif how == "REQUESTS_CA_BUNDLE":
        env["REQUESTS_CA_BUNDLE"] = str(cert_file)
    with answering_server("[]", tls=server_tls) as server:
        env["HELPDESK_URL"] = server.url
        result = run(tmp_path, "plan", "m.yaml", *args, env=env)
    if trusted:
        assert result.returncode == 0, result.stderr
        assert ("POST", "/helpdesk/api/Authorization") in server.requests
    else:
        assert result.returncode == 1
        assert "the TLS handshake failed" in result.stderr, result.stderr
        assert server.requests == []


def test_the_verify_context_is_built_from_the_ca_file(tmp_path: Path) -> None:
    """Without `cryptography`: the context of a file holds that file's certificates alone."""
    import certifi

    bundle = Path(certifi.where()).read_text(encoding="ascii")
    end = "-----END CERTIFICATE-----\n"
    (tmp_path / "one.pem").write_text(bundle[bundle.index("-----BEGIN") :].split(end)[0] + end)
    context = tls_context(str(tmp_path / "one.pem"))
    assert len(context.get_ca_certs()) == 1
    assert context.verify_mode == ssl.CERT_REQUIRED and context.check_hostname
