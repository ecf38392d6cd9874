"""Round trip of ``textDocument/inlineCompletion`` over stdio with an instant model, and sustained
requests per second.

Starts the bridge (``python -m lsp_bridge``, model ``empty`` and post-processing ``simcopilot``,
as ``simpilot serve`` runs it), opens a 300-line Python document and asks at a position in it:
first one request at a time (p50 / p99 / max of the round trip, as an editor waiting for each
answer sees it), then with ``--in-flight`` requests outstanding for ``--seconds`` (requests per
second the server sustains, each with a document of its own). The client is a minimal JSON-RPC writer/reader on the pipes, so
what is measured is the server. Targets: p50 <= 3 ms and >= 300 requests/s on 2 cores.

    .venv/bin/python benchmarks/bridge_latency.py [--requests 2000] [--seconds 10] [--in-flight 16]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import time

DOCUMENT = "".join(f"def f{i}(x):\n    return x + {i}\n\n" for i in range(100))


class Client:
    def __init__(self, proc: asyncio.subprocess.Process):
        self.proc = proc
        self.next_id = 0
        self.pending: dict[int, asyncio.Future] = {}
        self.reader = asyncio.create_task(self._read())

    def _write(self, message: dict) -> None:
        body = json.dumps(message).encode()
        assert self.proc.stdin is not None
        self.proc.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)

    def notify(self, method: str, params: dict) -> None:
        self._write({"jsonrpc": "2.0", "method": method, "params": params})

    async def request(self, method: str, params: dict) -> dict:
        self.next_id += 1
        future = asyncio.get_running_loop().create_future()
        self.pending[self.next_id] = future
        self._write({"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params})
        return await future

    async def _read(self) -> None:
        stream = self.proc.stdout
        assert stream is not None
        while True:
            length = 0
            while (line := await stream.readline()) not in (b"\r\n", b""):
                if line.lower().startswith(b"content-length:"):
                    length = int(line.split(b":")[1])
            if not line:
                return
            message = json.loads(await stream.readexactly(length))
            future = self.pending.pop(message.get("id"), None)
            if future is not None:
                future.set_result(message)


def ask(uri: str) -> dict:
    return {"textDocument": {"uri": uri}, "position": {"line": 151, "character": 4}, "context": {"triggerKind": 2}}


async def main(args: argparse.Namespace) -> None:
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "lsp_bridge", "--postprocess", "simcopilot",
        stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.DEVNULL,
    )
    client = Client(proc)
    await client.request("initialize", {"capabilities": {}, "processId": None, "rootUri": None})
    client.notify("initialized", {})
    uri = "file:///tmp/simpilot-bench/doc.py"
    client.notify("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "python", "version": 1, "text": DOCUMENT}})
    for _ in range(200):  # warm up: converters and code paths built on first use
        await client.request("textDocument/inlineCompletion", ask(uri))

    times = []
    for _ in range(args.requests):
        start = time.perf_counter()
        answer = await client.request("textDocument/inlineCompletion", ask(uri))
        times.append((time.perf_counter() - start) * 1000)
        assert "result" in answer, answer
    times.sort()
    p50, p99 = statistics.median(times), times[int(0.99 * (len(times) - 1))]
    print(f"round trip, one at a time ({args.requests} requests): p50 {p50:.2f} ms, p99 {p99:.2f} ms, max {times[-1]:.2f} ms")

    done = 0
    deadline = time.perf_counter() + args.seconds

    async def worker(n: int) -> None:
        # a document per worker: a new request for a document would supersede (cancel) the last one
        nonlocal done
        own = f"file:///tmp/simpilot-bench/doc{n}.py"
        client.notify("textDocument/didOpen", {"textDocument": {"uri": own, "languageId": "python", "version": 1, "text": DOCUMENT}})
        while time.perf_counter() < deadline:
            answer = await client.request("textDocument/inlineCompletion", ask(own))
            assert "result" in answer, answer
            done += 1

    start = time.perf_counter()
    await asyncio.gather(*(worker(n) for n in range(args.in_flight)))
    elapsed = time.perf_counter() - start
    print(f"sustained, {args.in_flight} in flight for {elapsed:.1f} s: {done / elapsed:,.0f} requests/s")
    await client.request("shutdown", {})
    client.notify("exit", {})
    await proc.wait()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=2000)
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--in-flight", type=int, default=16)
    asyncio.run(main(parser.parse_args()))
