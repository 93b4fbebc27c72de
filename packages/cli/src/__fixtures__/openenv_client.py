"""Test fixture: a standard OpenEnv client for text games, standard library only, written from OpenEnv's
protocol (meta-pytorch/OpenEnv: `EnvClient` and `textarena_env`), with no mage code. It does what
`EnvClient` does: one WebSocket session on `/ws`, `{"type": "reset", "data": kwargs}` (an empty `data`
for a bare `env.reset()`), `{"type": "step", "data": {"message": ...}}` until `done`, `{"type": "state"}`,
`{"type": "close"}`; results are `{observation, reward, done, metadata?}`.

It plays like a language agent reading the prompt: it picks a move among those the prompt names
(Tic-Tac-Toe's "Empty cells: (r, c), ...", or the "<action>X</action>" choices of the rules), at random
from a seeded generator.

Usage: python3 openenv_client.py <base-url> <games> [seed]
  Plays <games> whole games with bare resets, plus a bad-JSON message, state and close; prints a JSON
  summary.
Usage: python3 openenv_client.py <base-url> deals <seed> <attempts>
  Resets `seed` with `attempt` 0..<attempts>-1 (keyword arguments of `env.reset`), plays each hand, and
  prints the first prompt of each attempt and its metadata as JSON.
"""

import base64
import json
import os
import random
import re
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
        self.sock = socket.create_connection((url.hostname, url.port), timeout=30)
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

    def result(self, message):
        """`EnvClient._send_and_receive`: the result of a reset or step; an error message raises."""
        answer = self.exchange(message)
        if answer["type"] != "observation":
            raise RuntimeError(f"server error: {answer}")
        return answer["data"]


def moves_in(prompt):
    """The moves the prompt offers: the empty cells it lists last, else its `<action>X</action>` choices."""
    cells = re.findall(r"Empty cells: ([^.\n]*)", prompt)
    if cells:
        return re.findall(r"\(\d+, \d+\)", cells[-1])
    return sorted(set(re.findall(r"<action>([A-Z]+)</action>", prompt)))


def play(ws, result, rng):
    """Plays the game `result` opened to its end; its steps, reward, last observation and metadata."""
    steps = 0
    while not result["done"]:
        moves = moves_in(result["observation"]["prompt"])
        if not moves:
            raise RuntimeError(f"no moves in the prompt: {result['observation']['prompt']!r}")
        result = ws.result({"type": "step", "data": {"message": rng.choice(moves)}})
        steps += 1
    return steps, result


def games(base, count, seed):
    rng = random.Random(seed)
    summary = {
        "health": get(base, "/health"),
        "action_fields": sorted(get(base, "/schema")["action"]["properties"].keys()),
        "name": get(base, "/metadata")["name"],
        "games": [],
    }
    ws = Session(base)
    for _ in range(count):
        opened = ws.result({"type": "reset", "data": {}})
        steps, end = play(ws, opened, rng)
        summary["games"].append(
            {
                "metadata": opened.get("metadata"),
                "end_metadata": end.get("metadata"),
                "steps": steps,
                "reward": end["reward"],
                "last_event": end["observation"]["messages"][-1]["content"],
            }
        )
    summary["bad_json"] = ws.exchange("{oops")["data"]["code"]
    summary["state"] = ws.exchange({"type": "state"})["data"]
    ws.send_text(json.dumps({"type": "close"}))
    summary["closed"] = ws.receive()
    return summary


def deals(base, seed, attempts):
    ws = Session(base)
    out = []
    rng = random.Random(seed)
    for attempt in range(attempts):
        opened = ws.result({"type": "reset", "data": {"seed": seed, "attempt": attempt}})
        steps, end = play(ws, opened, rng)
        out.append(
            {"prompt": opened["observation"]["prompt"], "metadata": opened.get("metadata"), "steps": steps}
        )
    ws.send_text(json.dumps({"type": "close"}))
    return out


def main():
    base = sys.argv[1]
    if sys.argv[2] == "deals":
        print(json.dumps(deals(base, int(sys.argv[3]), int(sys.argv[4]))))
    else:
        print(json.dumps(games(base, int(sys.argv[2]), int(sys.argv[3]) if len(sys.argv) > 3 else 0)))


if __name__ == "__main__":
    main()
