"""Headless Chromium for tests, standard library only (the report's and the site's browser tests).

``CHROMIUM`` is the binary or None (``needs_chromium`` skips, saying why);
``DevTools`` drives it over ``--remote-debugging-pipe`` with the network cut
off: every host resolves to nothing and every request would go to a dead proxy.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest


def _chromium() -> str | None:
    for candidate in ("/usr/bin/chromium", shutil.which("chromium"), shutil.which("chromium-browser")):
        if candidate and os.access(candidate, os.X_OK):
            return candidate
    return None


CHROMIUM = _chromium()
needs_chromium = pytest.mark.skipif(CHROMIUM is None, reason="no chromium on this machine (apt-get install chromium)")

OFFLINE_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync",
                 "--host-resolver-rules=MAP * ~NOTFOUND", "--proxy-server=http://127.0.0.1:9"]


class DevTools:
    """Chromium reads commands on its fd 3 and writes replies and events on its
    fd 4, one JSON message per NUL-terminated chunk; events are kept in ``events``."""

    def __init__(self, profile: Path) -> None:
        to_browser_read, self._write = os.pipe()
        self._read, from_browser_write = os.pipe()

        def wire():  # in the child, before exec: the pipe ends where Chromium expects them
            import fcntl

            # Copied above 4 first: a pipe end may already be 3 or 4 (a fresh process), where
            # dup2 onto itself would keep it close-on-exec, or where the first dup2 would close
            # the other end.
            read_end = fcntl.fcntl(to_browser_read, fcntl.F_DUPFD, 5)
            write_end = fcntl.fcntl(from_browser_write, fcntl.F_DUPFD, 5)
            os.dup2(read_end, 3)
            os.dup2(write_end, 4)

        self.process = subprocess.Popen(
            [CHROMIUM, *OFFLINE_FLAGS, f"--user-data-dir={profile}", "--remote-debugging-pipe", "about:blank"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, preexec_fn=wire, close_fds=False)
        os.close(to_browser_read)
        os.close(from_browser_write)
        self._buffer = b""
        self._next = 0
        self.events: list[dict] = []

    def send(self, method: str, session: str | None = None, **params) -> dict:
        import select

        self._next += 1
        message = {"id": self._next, "method": method, "params": params}
        if session:
            message["sessionId"] = session
        os.write(self._write, json.dumps(message).encode() + b"\0")
        while True:
            while b"\0" not in self._buffer:
                ready, _, _ = select.select([self._read], [], [], 60)
                assert ready, f"no reply from chromium to {method}"
                chunk = os.read(self._read, 1 << 20)
                assert chunk, "chromium closed the pipe"
                self._buffer += chunk
            raw, self._buffer = self._buffer.split(b"\0", 1)
            reply = json.loads(raw)
            if reply.get("id") == self._next:
                assert "error" not in reply, reply["error"]
                return reply.get("result", {})
            self.events.append(reply)

    def evaluate(self, session: str, expression: str):
        result = self.send("Runtime.evaluate", session, expression=expression, awaitPromise=True,
                           returnByValue=True)
        assert "exceptionDetails" not in result, result["exceptionDetails"]
        return result["result"].get("value")

    def open(self, url: str) -> str:
        """A new tab on ``url`` (console, network and log events recorded); its session."""
        target = self.send("Target.createTarget", url="about:blank")["targetId"]
        session = self.send("Target.attachToTarget", targetId=target, flatten=True)["sessionId"]
        for domain in ("Runtime", "Page", "Network", "Log"):
            self.send(f"{domain}.enable", session)
        self.send("Page.navigate", session, url=url)
        self.evaluate(session, "new Promise(r => { const t = () => document.readyState === 'complete' "
                               "? r(1) : setTimeout(t, 50); t(); })")
        return session

    def errors(self) -> list[dict]:
        """Console errors, uncaught exceptions and error log entries (failed loads among them)."""
        return [e for e in self.events
                if e.get("method") == "Runtime.exceptionThrown"
                or (e.get("method") == "Runtime.consoleAPICalled" and e["params"]["type"] == "error")
                or (e.get("method") == "Log.entryAdded" and e["params"]["entry"]["level"] == "error")]

    def requested(self) -> list[str]:
        """Every URL a page asked for."""
        return [e["params"]["request"]["url"] for e in self.events if e.get("method") == "Network.requestWillBeSent"]

    def close(self) -> None:
        try:
            self.send("Browser.close")
        except (AssertionError, OSError):
            pass
        try:
            self.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.process.kill()
        os.close(self._write)
        os.close(self._read)
