"""Start Tests/Support/mock_server.py as a subprocess for a test or the demo.

    from mockserver_client import MockServer
    with MockServer() as srv:
        print(srv.port, srv.base_url)      # http://127.0.0.1:PORT
        srv.stats(); srv.reset_stats()

The server gets --exit-on-stdin-eof and a stdin pipe, so it also goes away if
this process dies without cleaning up.
"""
import json
import os
import select
import subprocess
import sys
import urllib.request

SERVER_PATH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "mock_server.py")


class MockServer:
    def __init__(self, port=0, verbose=False, startup_timeout=10.0, extra_args=()):
        self.requested_port = port
        self.verbose = verbose
        self.startup_timeout = startup_timeout
        self.extra_args = list(extra_args)
        self.proc = None
        self.port = None

    @property
    def base_url(self):
        return f"http://127.0.0.1:{self.port}"

    def url(self, path="/"):
        return self.base_url + (path if path.startswith("/") else "/" + path)

    def start(self):
        cmd = [sys.executable, SERVER_PATH, "--port", str(self.requested_port),
               "--exit-on-stdin-eof", *self.extra_args]
        if self.verbose:
            cmd.append("--verbose")
        self.proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        ready, _, _ = select.select([self.proc.stdout], [], [], self.startup_timeout)
        line = self.proc.stdout.readline().decode("ascii", "replace").strip() if ready else ""
        if not line.startswith("PORT "):
            self.stop()
            raise RuntimeError(f"mock server failed to start (first line: {line!r})")
        self.port = int(line.split()[1])
        return self

    def stop(self, timeout=5.0):
        proc, self.proc = self.proc, None
        if proc is None:
            return
        if proc.poll() is None:
            proc.terminate()  # SIGTERM
            try:
                proc.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        for pipe in (proc.stdin, proc.stdout):
            try:
                pipe.close()
            except OSError:
                pass

    def _get(self, path, method="GET"):
        data = b"" if method == "POST" else None
        req = urllib.request.Request(self.url(path), data=data, method=method)
        with urllib.request.urlopen(req, timeout=10) as resp:
            return json.loads(resp.read())

    def stats(self):
        """{"total": N, "paths": {"/echo": 3, ...}} (the /_stats calls are not counted)."""
        return self._get("/_stats")

    def reset_stats(self):
        return self._get("/_stats/reset", method="POST")

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()
        return False
