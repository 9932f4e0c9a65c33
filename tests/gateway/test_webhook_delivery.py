"""How the webhook deliverer reaches a receiver (services/webhooks/deliverer.py, pinning.py): at most K deliveries in
flight to one endpoint, and DNS pinning (the request goes to exactly the address that was checked, no second
resolution, TLS still verified for the host name)."""

from __future__ import annotations

import asyncio
import datetime
import ssl
import tempfile
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import httpx
import pytest
import redis
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID
from redis.asyncio import Redis

from services.accounts.events import AccountEvents
from services.accounts.keys import Keys
from services.common.redis_clients import async_redis
from services.webhooks import pinning
from services.webhooks.deliverer import Deliverer, message_id, run
from services.webhooks.signing import new_secret
from services.webhooks.store import Webhook, WebhookStore
from tests.gateway.test_accounts import new_account
from tests.gateway.test_webhooks import log_of, publish_challenges, register
from tests.gateway.webhook_receiver import Driver, Receiver
from tests.redis_required import CLUSTER

SERVER_KEY = "k" * 40
JOB = {"webhook": "w1", "type": "challenge", "event": "1767225600000-0", "at_ms": 1767225600000, "attempt": 0,
       "data": {"challenge": {"challenge_id": "c1"}}}


class Resolver:
    """A resolver answering each name from a script of answers, the last one repeating (a name that changes what it
    resolves to between two lookups: DNS rebinding); it counts the lookups."""

    def __init__(self, *answers: list[str]):
        self.answers = list(answers)
        self.lookups: list[str] = []

    async def __call__(self, host: str, port: int) -> list[str]:
        self.lookups.append(host)
        return self.answers.pop(0) if len(self.answers) > 1 else self.answers[0]


def unit_deliverer(http: httpx.AsyncClient, resolve: Resolver, *, allow_http_loopback: bool = False,
                   url: str = "https://hooks.example.com/skyboard") -> tuple[Deliverer, Webhook]:
    """A deliverer and one webhook for `send` alone: nothing here touches Redis (the client never connects)."""
    client = Redis()
    keys = Keys("unit:")
    store = WebhookStore(client, keys, SERVER_KEY)
    hook = Webhook("w1", url, ["challenge"], "", 0, store.seal("p1", "w1", new_secret()))
    events = AccountEvents(client, keys, "", 100, 60)
    return Deliverer(client, keys, store, events, http, allow_http_loopback=allow_http_loopback,
                     resolve=resolve), hook


def test_a_name_rebound_to_a_private_address_after_the_check_cannot_redirect_the_delivery() -> None:
    """The resolver answers a public address to the check, then a private one: the delivery went to the public
    address checked (the name was resolved once, and the request named the address, not the name), with the
    original Host header and TLS negotiated for the name; the next delivery is checked again and refused."""
    seen: list[httpx.Request] = []

    def answer(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(204)

    async def scenario() -> None:
        resolve = Resolver(["93.184.216.34"], ["10.0.0.7"])
        async with httpx.AsyncClient(transport=httpx.MockTransport(answer)) as http:
            deliverer, hook = unit_deliverer(http, resolve)
            first = await deliverer.send("p1", hook, dict(JOB))
            assert first.ok, first
            assert resolve.lookups == ["hooks.example.com"], "one resolution per delivery"
            [sent] = seen
            assert sent.url.host == "93.184.216.34" and sent.url.path == "/skyboard"
            assert sent.headers["host"] == "hooks.example.com"
            assert sent.extensions["sni_hostname"] == "hooks.example.com", "TLS for the name, not the address"
            second = await deliverer.send("p1", hook, dict(JOB))
            assert not second.ok and second.status is None and "10.0.0.7 is not a public address" in second.error
            assert len(seen) == 1, "nothing sent once the name resolves to a private address"

    asyncio.run(scenario())


def test_each_checked_address_is_tried_in_order_and_only_those() -> None:
    """A refused connection to the first address falls back to the next one checked, never to a new lookup."""
    tried: list[str] = []

    def answer(request: httpx.Request) -> httpx.Response:
        tried.append(request.url.host)
        if request.url.host == "2001:4860:4860::8888":
            raise httpx.ConnectError("refused", request=request)
        return httpx.Response(200)

    async def scenario() -> None:
        resolve = Resolver(["2001:4860:4860::8888", "93.184.216.34"])
        async with httpx.AsyncClient(transport=httpx.MockTransport(answer)) as http:
            deliverer, hook = unit_deliverer(http, resolve, url="https://hooks.example.com:8443/x")
            attempt = await deliverer.send("p1", hook, dict(JOB))
            assert attempt.ok and tried == ["2001:4860:4860::8888", "93.184.216.34"] and len(resolve.lookups) == 1

    asyncio.run(scenario())


def test_two_host_names_at_one_address_never_share_a_pool() -> None:
    """A keep-alive connection verified for one name is never reused for another name at the same address."""
    made: list[httpx.MockTransport] = []

    def make() -> httpx.MockTransport:
        made.append(httpx.MockTransport(lambda request: httpx.Response(204)))
        return made[-1]

    async def scenario() -> None:
        pools = pinning.HostPools(make)
        async with httpx.AsyncClient(transport=pools) as http:
            for name in ("a.example.com", "b.example.com", "a.example.com"):
                url, headers, extensions = pinning.pinned(f"https://{name}/hook", "93.184.216.34")
                assert url == "https://93.184.216.34/hook"
                reply = await http.post(url, headers=headers, extensions=extensions)
                assert reply.status_code == 204
            assert pools.pools() == 2 and len(made) == 2

    asyncio.run(scenario())


# ---------------------------------------------------------------------------------------------- TLS, for real


def _certificates(folder: Path, name: str) -> tuple[Path, Path, Path]:
    """A certificate authority and a server certificate for `name` signed by it: (authority, chain, key) files."""
    now = datetime.datetime.now(datetime.UTC)
    ca_key = ec.generate_private_key(ec.SECP256R1())
    ca_name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "skyboard test authority")])
    ca = (x509.CertificateBuilder().subject_name(ca_name).issuer_name(ca_name).public_key(ca_key.public_key())
          .serial_number(x509.random_serial_number()).not_valid_before(now - datetime.timedelta(days=1))
          .not_valid_after(now + datetime.timedelta(days=1))
          .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
          .add_extension(x509.KeyUsage(digital_signature=True, key_cert_sign=True, crl_sign=True,
                                       content_commitment=False, key_encipherment=False, data_encipherment=False,
                                       key_agreement=False, encipher_only=False, decipher_only=False), critical=True)
          .add_extension(x509.SubjectKeyIdentifier.from_public_key(ca_key.public_key()), critical=False)
          .sign(ca_key, hashes.SHA256()))
    key = ec.generate_private_key(ec.SECP256R1())
    leaf = (x509.CertificateBuilder().subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, name)]))
            .issuer_name(ca_name).public_key(key.public_key()).serial_number(x509.random_serial_number())
            .not_valid_before(now - datetime.timedelta(days=1)).not_valid_after(now + datetime.timedelta(days=1))
            .add_extension(x509.SubjectAlternativeName([x509.DNSName(name)]), critical=False)
            .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
            .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
            .add_extension(x509.AuthorityKeyIdentifier.from_issuer_public_key(ca_key.public_key()), critical=False)
            .sign(ca_key, hashes.SHA256()))
    authority, chain, private = folder / "ca.pem", folder / "chain.pem", folder / "key.pem"
    authority.write_bytes(ca.public_bytes(serialization.Encoding.PEM))
    chain.write_bytes(leaf.public_bytes(serialization.Encoding.PEM) + ca.public_bytes(serialization.Encoding.PEM))
    private.write_bytes(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                          serialization.NoEncryption()))
    return authority, chain, private


class TlsReceiver:
    """An HTTPS receiver on 127.0.0.1 with a certificate for one name; records the SNI names and Host headers."""

    def __init__(self, chain: Path, key: Path):
        self.sni: list[str | None] = []
        self.hosts: list[str] = []
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(chain, key)
        context.sni_callback = lambda _sock, name, _ctx: self.sni.append(name)
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                self.rfile.read(int(self.headers.get("content-length") or 0))
                receiver.hosts.append(self.headers["host"])
                self.send_response(204)
                self.send_header("content-length", "0")
                self.end_headers()

            def log_message(self, *_args) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.server.socket = context.wrap_socket(self.server.socket, server_side=True)
        self.port = self.server.server_address[1]
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def test_https_goes_to_the_checked_address_and_the_certificate_is_verified_for_the_host_name() -> None:
    """A real TLS handshake with a receiver whose certificate names `hooks.test`, which the resolver maps to
    127.0.0.1 (https to loopback passes in the development setting): the server sees SNI `hooks.test` and the Host
    header `hooks.test:<port>`, and the certificate is verified for that name; a second name mapped to the same
    address does not match the certificate and the delivery fails (no silent fallback to the address)."""
    with tempfile.TemporaryDirectory() as folder:
        authority, chain, key = _certificates(Path(folder), "hooks.test")
        receiver = TlsReceiver(chain, key)
        trust = ssl.create_default_context(cafile=str(authority))

        async def scenario() -> None:
            async with pinning.client(10.0, 4, verify=trust) as http:
                deliverer, hook = unit_deliverer(http, Resolver(["127.0.0.1"]), allow_http_loopback=True,
                                                 url=f"https://hooks.test:{receiver.port}/hook")
                attempt = await deliverer.send("p1", hook, dict(JOB))
                assert attempt.ok, attempt
                assert receiver.sni == ["hooks.test"] and receiver.hosts == [f"hooks.test:{receiver.port}"]
                other, other_hook = unit_deliverer(http, Resolver(["127.0.0.1"]), allow_http_loopback=True,
                                                   url=f"https://other.test:{receiver.port}/hook")
                refused = await other.send("p1", other_hook, dict(JOB))
                assert not refused.ok and refused.status is None and "certificate" in refused.error.lower(), refused
                assert receiver.hosts == [f"hooks.test:{receiver.port}"], "nothing sent to the wrong name"

        try:
            asyncio.run(scenario())
        finally:
            receiver.close()


# ---------------------------------------------------------------------------------------------- with the gateway


@pytest.fixture
def gw(make_gateway):
    return make_gateway(challenge_ttl_s=600, challenges_per_sender=0, challenges_per_recipient=0)


def test_a_loopback_receiver_named_by_host_name_gets_the_delivery_in_the_development_setting(gw):
    """`http://localhost:<port>/` (a name, resolved by the system): the delivery reaches the receiver on 127.0.0.1
    through the address checked, with the URL's Host header."""
    receiver = Receiver()
    port = receiver.server.server_address[1]
    try:
        with gw.client() as c:
            b_id, b_key = new_account(c, "wh-pin-local")
            hook = register(c, b_key, f"http://localhost:{port}/hook")
            publish_challenges(gw.settings, b_id, 1)
            Driver(gw.settings).until(lambda: receiver.received)
            assert receiver.received[0].headers["host"] == f"localhost:{port}"
            assert receiver.received[0].path == "/hook"
            assert log_of(c, b_key, hook["webhook_id"])[0]["outcome"] == "delivered"
    finally:
        receiver.close()


def test_deliveries_beyond_the_endpoint_bound_stay_due_unleased_and_go_on_later_passes(gw, rdb):
    """Five due deliveries to one endpoint, a bound of 2: each pass leases and sends 2; the others are not leased
    (their due time unchanged), not attempted, not logged, and go on the next passes."""
    receiver = Receiver()
    try:
        with gw.client() as c:
            b_id, b_key = new_account(c, "wh-bound")
            hook = register(c, b_key, receiver.url)
            ids = publish_challenges(gw.settings, b_id, 5)
            keys = Keys(gw.settings.key_prefix)
            queued = dict(rdb.zrange(keys.webhook_due(b_id), 0, -1, withscores=True))
            driver = Driver(gw.settings, per_endpoint=2)
            t0 = int(time.time() * 1000) + 1000
            assert driver.run(t0) == 2
            assert len(receiver.received) == 2
            left = dict(rdb.zrange(keys.webhook_due(b_id), 0, -1, withscores=True))
            assert len(left) == 3 and all(left[job] == queued[job] for job in left), "not leased: due as queued"
            assert len(log_of(c, b_key, hook["webhook_id"])) == 2, "a delivery left for later is no attempt"
            assert driver.run(t0) == 2 and driver.run(t0) == 1 and driver.run(t0) == 0
            assert sorted(r.headers["webhook-id"] for r in receiver.received) == sorted(
                f"msg_{hook['webhook_id']}_{i}" for i in ids)
            assert all(e["attempt"] == 1 and e["outcome"] == "delivered"
                       for e in log_of(c, b_key, hook["webhook_id"]))
            assert rdb.zcard(keys.webhook_due(b_id)) == 0
    finally:
        receiver.close()


def test_at_most_k_deliveries_are_in_flight_to_one_endpoint(gw, rdb: redis.Redis):
    """One webhook at a slow receiver, 12 events: the running deliverer never has more than the bound (3) in flight
    to it at once, and every event arrives once."""
    receiver = Receiver(delay_s=0.2)
    bound = 3
    try:
        with gw.client() as c:
            pid, key = new_account(c, "wh-k")
            hook = register(c, key, receiver.url)
            expected = {f"msg_{hook['webhook_id']}_{i}" for i in publish_challenges(gw.settings, pid, 12)}

            async def deliver() -> None:
                client = async_redis(gw.settings.redis_url, cluster=CLUSTER)
                keys = Keys(gw.settings.key_prefix)
                store = WebhookStore(client, keys, gw.settings.webhook_key or "")
                events = AccountEvents(client, keys, "", 100, 60)
                stop = asyncio.Event()
                try:
                    async with pinning.client(10.0, 64) as http:
                        deliverer = Deliverer(client, keys, store, events, http, allow_http_loopback=True,
                                              per_endpoint=bound)
                        loop = asyncio.create_task(run(deliverer, stop, poll_s=0.02))
                        deadline = time.monotonic() + 60
                        while len(receiver.received) < len(expected):
                            assert time.monotonic() < deadline, f"{len(receiver.received)} of {len(expected)}"
                            await asyncio.sleep(0.05)
                        stop.set()
                        await loop
                finally:
                    await client.aclose()

            asyncio.run(deliver())
            assert receiver.most_active <= bound, receiver.most_active
            got = receiver.ids()
            assert len(got) == len(expected) == 12 and set(got) == expected
            assert rdb.zcard(Keys(gw.settings.key_prefix).webhook_due(pid)) == 0
    finally:
        receiver.close()


def test_a_webhook_id_is_unique_across_accounts_whose_streams_share_an_entry_id() -> None:
    """Each account's stream numbers its own entries, so one entry id occurs in many accounts: the `webhook-id`
    also names the webhook, so a receiver behind several accounts' webhooks that keeps the ids it handled drops no
    other account's event; the entry id (the SSE `id`) stays readable after the last `_`."""
    entry = "1767225600000-0"
    first, second = message_id("5f1c2a9e0b7d4c3a8e6f1b2d", entry), message_id("0a9b8c7d6e5f4a3b2c1d0e9f", entry)
    assert first != second
    assert first.rsplit("_", 1)[1] == second.rsplit("_", 1)[1] == entry
    assert len(first) <= 64, "a redelivery's path takes ids of at most 64 characters"
