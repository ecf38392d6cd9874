"""Round trip of ``textDocument/inlineCompletion`` over stdio with an instant model, and sustained
requests per second.

Starts the bridge (``python -m lsp_bridge``, model ``empty`` and post-processing ``simcopilot``,
as ``simpilot serve`` runs it), opens a 300-line Python document and asks at a position in it:
first one request at a time (p50 / p99 / max of the round trip, as an editor waiting for each
answer sees it), then with ``--in-flight`` requests outstanding for ``--seconds`` (requests per
second the server sustains, each with a document of its own). The client is a minimal JSON-RPC writer/reader on the pipes, so
what is measured is the server. Targets: p50 <= 3 ms and >= 300 requests/s on 2 cores.

The results file holds the round trip's p50, p99 and max (ms), the sustained requests per second
and the targets. ``--smoke``: a hundred requests one at a time, then one second with four in flight.

    .venv/bin/python benchmarks/bridge_latency.py [--requests 2000] [--seconds 10] [--in-flight 16] [--smoke] [--results-dir DIR]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.results_file import add_arguments, write_results  # noqa: E402

TARGET_P50_MS, TARGET_REQUESTS_PER_SECOND = 3, 300
WARM_UP = 200
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


async def main(args: argparse.Namespace) -> dict[str, float | int]:
    """Both measures against one bridge process; the figures for the results file."""
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "lsp_bridge", "--postprocess", "simcopilot",
        stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.DEVNULL,
    )
    client = Client(proc)
    await client.request("initialize", {"capabilities": {}, "processId": None, "rootUri": None})
    client.notify("initialized", {})
    uri = "file:///tmp/simpilot-bench/doc.py"
    client.notify("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "python", "version": 1, "text": DOCUMENT}})
    for _ in range(min(WARM_UP, args.requests)):  # warm up: converters and code paths built on first use
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
    return {
        "requests": args.requests,
        "p50_ms": round(p50, 2),
        "p99_ms": round(p99, 2),
        "max_ms": round(times[-1], 2),
        "in_flight": args.in_flight,
        "sustained_seconds": round(elapsed, 1),
        "requests_per_second": round(done / elapsed),
        "target_p50_ms": TARGET_P50_MS,
        "target_requests_per_second": TARGET_REQUESTS_PER_SECOND,
    }


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=None, help="[default: 2000; 100 with --smoke]")
    parser.add_argument("--seconds", type=float, default=None, help="[default: 10; 1 with --smoke]")
    parser.add_argument("--in-flight", type=int, default=None, help="[default: 16; 4 with --smoke]")
    add_arguments(parser)
    arguments = parser.parse_args()
    arguments.requests = arguments.requests or (100 if arguments.smoke else 2000)
    arguments.seconds = arguments.seconds or (1.0 if arguments.smoke else 10.0)
    arguments.in_flight = arguments.in_flight or (4 if arguments.smoke else 16)
    write_results("bridge_latency", arguments, asyncio.run(main(arguments)))
