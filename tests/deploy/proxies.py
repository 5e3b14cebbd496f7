"""The reverse proxies of deploy/, run for real: nginx and Caddy (Debian's packages) with their
example configuration, ports and a self-signed certificate put in, in a temporary folder. Never
the system services: own config, own ports, own pid and log files, stopped after the tests."""
from __future__ import annotations

import os
import re
import subprocess
import time
from pathlib import Path

import requests
from requests.adapters import HTTPAdapter

from tests.support import ROOT, PortTaken, free_port, start_on_free_ports, stop_process

DEPLOY = ROOT / "deploy"


def self_signed(folder: Path) -> tuple[Path, Path]:
    """A certificate for 127.0.0.1 made by openssl (already on every Debian). An ECDSA P-256 key:
    made in milliseconds where an RSA-2048 key took about half a second of CPU, and each TLS
    handshake the proxy signs is cheaper too."""
    cert, key = folder / "cert.pem", folder / "key.pem"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1",
                    "-nodes", "-days", "2",
                    "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1,DNS:localhost",
                    "-keyout", str(key), "-out", str(cert)], check=True, capture_output=True)
    return cert, key


class FromAddress(HTTPAdapter):
    """Connects from a given loopback address (127.0.0.2, …): a client the server can tell apart
    from the proxy on 127.0.0.1."""

    def __init__(self, source: str) -> None:
        self.source = source
        super().__init__()

    def init_poolmanager(self, *args, **kwargs) -> None:  # type: ignore[no-untyped-def]
        kwargs["source_address"] = (self.source, 0)
        super().init_poolmanager(*args, **kwargs)


def client_from(source: str, cert: Path) -> requests.Session:
    http = requests.Session()
    http.mount("https://", FromAddress(source))
    http.mount("http://", FromAddress(source))
    http.verify = str(cert)
    http.trust_env = False  # else REQUESTS_CA_BUNDLE from the environment overrides `verify`
    return http


class Proxy:
    """nginx or Caddy in front of a writer and edges: `studio` (writer) and `live` (edges) URLs."""

    def __init__(self, kind: str, folder: Path, writer_port: int, edge_ports: list[int]) -> None:
        self.kind, self.folder = kind, folder
        folder.mkdir(parents=True, exist_ok=True)
        self.cert, self.key = self_signed(folder)
        self.studio_port, self.live_port = free_port(), free_port()
        self.writer_port, self.edge_ports = writer_port, edge_ports
        self.proc: subprocess.Popen | None = None
        self.log_path = folder / f"{kind}.log"

    @property
    def studio(self) -> str:
        return f"https://127.0.0.1:{self.studio_port}"

    @property
    def live(self) -> str:
        return f"https://127.0.0.1:{self.live_port}"

    def _ports_and_files(self, text: str) -> str:
        """The example's ports and certificate files, replaced in one pass."""
        table = {"127.0.0.1:5000": f"127.0.0.1:{self.writer_port}",
                 "127.0.0.1:5001": f"127.0.0.1:{self.edge_ports[0]}",
                 "127.0.0.1:5002": f"127.0.0.1:{self.edge_ports[1]}",
                 "/etc/ssl/chgk/fullchain.pem": str(self.cert), "/etc/ssl/chgk/privkey.pem": str(self.key)}
        for old in table:
            assert old in text, old
        return re.sub("|".join(re.escape(k) + r"\b" for k in table), lambda m: table[m.group(0)], text)

    def _nginx(self) -> list[str]:
        site = self._ports_and_files((DEPLOY / "nginx" / "chgk-overlay.conf").read_text())
        for host, port in (("studio", self.studio_port), ("live", self.live_port)):
            old = f"listen 443 ssl;\n    server_name {host}.example.org;"
            assert old in site, old
            site = site.replace(old, f"listen 127.0.0.1:{port} ssl;\n    server_name {host}.example.org;")
        site = site.replace("/etc/nginx/snippets/chgk-proxy.conf", str(DEPLOY / "nginx" / "chgk-proxy.conf"))
        (self.folder / "site.conf").write_text(site)
        f = self.folder
        # the workers buffer large bodies (uploads) in files under this root-only temporary folder:
        # as root, they keep root's identity instead of switching to www-data
        user = "user root;\n" if os.geteuid() == 0 else ""
        (f / "nginx.conf").write_text(f"""{user}
worker_processes 1;
daemon off;
pid {f}/nginx.pid;
error_log {f}/error.log warn;
worker_rlimit_nofile 16384;
events {{ worker_connections 8192; }}
http {{
    # which edge answered each request, and how: read when a test fails (Proxy.output)
    log_format chgk '$remote_addr "$request" $status $upstream_addr $upstream_status $request_time';
    access_log {f}/access.log chgk;
    client_body_temp_path {f}/body; proxy_temp_path {f}/proxy; fastcgi_temp_path {f}/fastcgi;
    uwsgi_temp_path {f}/uwsgi; scgi_temp_path {f}/scgi;
    include {f}/site.conf;
}}
""")
        return ["nginx", "-p", str(f), "-e", str(f / "error.log"), "-c", str(f / "nginx.conf")]

    def _caddy(self) -> list[str]:
        site = self._ports_and_files((DEPLOY / "caddy" / "Caddyfile").read_text())
        for host, port in (("studio", self.studio_port), ("live", self.live_port)):
            old = f"{host}.example.org {{"
            assert old in site, old
            site = site.replace(old, f"https://127.0.0.1:{port} {{")
        f = self.folder
        # the example's own global options block gets the test's options added
        ours = (f"\tadmin off\n\tauto_https disable_redirects\n\tskip_install_trust\n\thttp_port {free_port()}\n"
                f"\tstorage file_system {f}/caddy-data\n")
        assert "\n{\n" in site
        (f / "Caddyfile").write_text(site.replace("\n{\n", "\n{\n" + ours, 1))
        return ["caddy", "run", "--config", str(f / "Caddyfile"), "--adapter", "caddyfile"]

    def start(self, timeout: float = 30) -> "Proxy":
        env = {"HOME": str(self.folder), "XDG_DATA_HOME": str(self.folder / "xdg-data"),
               "XDG_CONFIG_HOME": str(self.folder / "xdg-config"), "PATH": "/usr/sbin:/usr/bin:/sbin:/bin"}

        def once() -> None:
            cmd = self._nginx() if self.kind == "nginx" else self._caddy()
            with open(self.log_path, "ab") as log:
                self.proc = subprocess.Popen(cmd, cwd=self.folder, env=env, stdout=log, stderr=subprocess.STDOUT)
            deadline = time.monotonic() + timeout
            while time.monotonic() < deadline:
                if self.proc.poll() is not None:
                    said = self.output()
                    raise (PortTaken if "address already in use" in said.lower() else RuntimeError)(
                        f"{self.kind} exited: {said}")
                try:
                    if requests.get(self.studio + "/api/time", verify=str(self.cert), timeout=1).ok:
                        return
                except requests.RequestException:
                    pass
                time.sleep(0.1)
            raise RuntimeError(f"{self.kind} did not answer in {timeout} s: {self.output()}")

        def move() -> None:  # the configuration is written again with them
            self.studio_port, self.live_port = free_port(), free_port()

        start_on_free_ports(once, move)
        return self

    def output(self) -> str:
        logs = [self.log_path, self.folder / "error.log", self.folder / "access.log"]
        return "\n".join(p.read_text(errors="replace")[-2000:] for p in logs if p.exists())

    def stop(self) -> None:
        stop_process(self.proc)
