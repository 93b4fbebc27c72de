"""Test fixture: a Python OpenEnv client session against `mage env-serve --protocol openenv`, using the
standard library only (no pip install): the HTTP checks (`/health`, `/schema`, `/metadata`), then one
WebSocket session on `/ws` doing what OpenEnv's `EnvClient` does — reset with a seed, step with
`{"message": ...}` until done, state, close — plus a bad-JSON message. Plays the first legal move the
observation's info lists (mage's Tic-Tac-Toe and Kuhn Poker list them). Prints a JSON summary.

Usage: python3 openenv_client.py http://127.0.0.1:<port> <seed>
"""

import base64
import json
import os
import socket
import struct
import sys
import urllib.parse
import urllib.request


def get(base, path):
    with urllib.request.urlopen(base + path, timeout=10) as r:
        return json.loads(r.read())


class Session:
    """A minimal RFC 6455 client: text frames, masked as a client must, unfragmented."""

    def __init__(self, base):
        url = urllib.parse.urlparse(base)
        self.sock = socket.create_connection((url.hostname, url.port), timeout=10)
        key = base64.b64encode(os.urandom(16)).decode()
        request = (
            f"GET /ws HTTP/1.1\r\nHost: {url.hostname}:{url.port}\r\nUpgrade: websocket\r\n"
            f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n"
        )
        self.sock.sendall(request.encode())
        head = b""
        while b"\r\n\r\n" not in head:
            head += self.sock.recv(1)
        status = head.split(b"\r\n", 1)[0]
        if b" 101 " not in status:
            raise RuntimeError(f"no upgrade: {status!r}")

    def _read(self, n):
        data = b""
        while len(data) < n:
            chunk = self.sock.recv(n - len(data))
            if not chunk:
                raise RuntimeError("connection closed")
            data += chunk
        return data

    def send_text(self, text):
        payload = text.encode()
        header = bytes([0x81])
        n = len(payload)
        if n < 126:
            header += bytes([0x80 | n])
        elif n < 65536:
            header += bytes([0x80 | 126]) + struct.pack(">H", n)
        else:
            header += bytes([0x80 | 127]) + struct.pack(">Q", n)
        mask = os.urandom(4)
        self.sock.sendall(header + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(payload)))

    def receive(self):
        """The next message as JSON, or ("close", code) when the server closes."""
        first, second = self._read(2)
        n = second & 0x7F
        if n == 126:
            n = struct.unpack(">H", self._read(2))[0]
        elif n == 127:
            n = struct.unpack(">Q", self._read(8))[0]
        payload = self._read(n)
        if first & 0x0F == 0x8:
            return ("close", struct.unpack(">H", payload[:2])[0] if len(payload) >= 2 else None)
        return json.loads(payload.decode())

    def exchange(self, message):
        self.send_text(message if isinstance(message, str) else json.dumps(message))
        return self.receive()


def main():
    base, seed = sys.argv[1], int(sys.argv[2])
    summary = {
        "health": get(base, "/health"),
        "action_fields": sorted(get(base, "/schema")["action"]["properties"].keys()),
        "name": get(base, "/metadata")["name"],
    }
    ws = Session(base)
    reset = ws.exchange({"type": "reset", "data": {"seed": seed}})
    answer, steps = reset, 0
    while not answer["data"]["done"]:
        legal = answer["data"]["observation"]["info"]["observation"]["legal"]
        answer = ws.exchange({"type": "step", "data": {"message": legal[0]}})
        if answer["type"] != "observation":
            raise RuntimeError(f"step answered {answer}")
        steps += 1
    summary["steps"] = steps
    summary["reward"] = answer["data"]["reward"]
    summary["outcome"] = answer["data"]["observation"]["info"]["outcome"]["label"]
    summary["bad_json"] = ws.exchange("{oops")["data"]["code"]
    summary["state"] = ws.exchange({"type": "state"})["data"]
    ws.send_text(json.dumps({"type": "close"}))
    summary["closed"] = ws.receive()
    print(json.dumps(summary))


if __name__ == "__main__":
    main()
