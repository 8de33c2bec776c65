"""Network namespaces for ``scale_out.py``'s workers, as on hosts of their own: each worker
runs in a namespace whose only way out is a veth pair to this host. TCP forwarders
(``socat``) carry the ports a worker may reach (PostgreSQL, Redis, the model server) over
that pair: one inside the namespace listening on its own ``127.0.0.1`` (so the worker's URLs
stay as they are), one on this host's end of the pair connecting to the real service.
Nothing else of the host is reachable from inside (its loopback is not the namespace's).
Needs root, iproute2 and socat; ``isolation_problem`` says why not where it cannot.
"""

from __future__ import annotations

import shutil
import signal
import subprocess
import time
from dataclasses import dataclass, field


def _ip(*args: str) -> None:
    subprocess.run(["ip", *args], check=True, capture_output=True, text=True)


def isolation_problem() -> str | None:
    """Why workers cannot get namespaces of their own here (``None``: they can)."""
    for tool in ("ip", "socat"):
        if shutil.which(tool) is None:
            return f"{tool} is not installed"
    probe = Namespace(250)
    try:
        probe.create()
    except (subprocess.CalledProcessError, OSError) as error:
        return f"cannot create a network namespace: {getattr(error, 'stderr', '') or error}"
    finally:
        probe.close()
    return None


@dataclass
class Namespace:
    """Namespace ``index`` (0-249): ``scale-ns<index>``, this host's end 10.231.<index>.1."""

    index: int
    forwarders: list[subprocess.Popen] = field(default_factory=list)
    created: bool = False

    @property
    def name(self) -> str:
        return f"scale-ns{self.index}"

    @property
    def host_ip(self) -> str:
        return f"10.231.{self.index}.1"

    @property
    def prefix(self) -> list[str]:
        """What a command is prefixed with to run inside the namespace."""
        return ["ip", "netns", "exec", self.name]

    def create(self) -> None:
        outer, inner = f"scv{self.index}", f"scv{self.index}n"
        self.close()  # what a killed earlier run left
        _ip("netns", "add", self.name)
        self.created = True
        _ip("link", "add", outer, "type", "veth", "peer", "name", inner)
        _ip("link", "set", inner, "netns", self.name)
        _ip("addr", "add", f"{self.host_ip}/24", "dev", outer)
        _ip("link", "set", outer, "up")
        inside = ("netns", "exec", self.name, "ip")
        _ip(*inside, "addr", "add", f"10.231.{self.index}.2/24", "dev", inner)
        _ip(*inside, "link", "set", inner, "up")
        _ip(*inside, "link", "set", "lo", "up")

    def forward(self, port: int) -> None:
        """Make ``127.0.0.1:port`` inside reach ``127.0.0.1:port`` of this host, over TCP
        through the veth pair."""
        out = subprocess.DEVNULL
        self.forwarders.append(
            subprocess.Popen(
                [
                    "socat",
                    f"TCP-LISTEN:{port},bind={self.host_ip},fork,reuseaddr",
                    f"TCP:127.0.0.1:{port}",
                ],
                stdout=out,
                stderr=out,
            )  # fmt: skip
        )
        self.forwarders.append(
            subprocess.Popen(
                [
                    *self.prefix,
                    "socat",
                    f"TCP-LISTEN:{port},bind=127.0.0.1,fork,reuseaddr",
                    f"TCP:{self.host_ip}:{port}",
                ],
                stdout=out,
                stderr=out,
            )  # fmt: skip
        )
        self._wait_listening(port)

    def _wait_listening(self, port: int, timeout: float = 10) -> None:
        probe = [*self.prefix, "bash", "-c", f"exec 3<>/dev/tcp/127.0.0.1/{port}"]
        deadline = time.monotonic() + timeout
        while subprocess.run(probe, capture_output=True).returncode != 0:
            if time.monotonic() > deadline:
                raise RuntimeError(f"{self.name}: port {port} not forwarded in {timeout:.0f} s")
            time.sleep(0.1)

    def close(self) -> None:
        for forwarder in self.forwarders:
            forwarder.send_signal(signal.SIGTERM)
            forwarder.wait()
        self.forwarders.clear()
        subprocess.run(["ip", "netns", "del", self.name], capture_output=True)
        subprocess.run(["ip", "link", "del", f"scv{self.index}"], capture_output=True)
        self.created = False
