"""The model adapter interface: one request in, the raw answer text out.

Adapters see the document the editor has open (its text always comes from the editor, never from
disk), split at the cursor; prompt builders may add the repository's other non-test source files,
read from the workspace as an IDE assistant would (``repo_context``). They raise :class:`ModelError` for anything that is not an answer
(refused connection, timeout after retries, HTTP errors, malformed bodies); the server turns that
into a JSON-RPC error so one bad request never takes the server or a run down.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from replay.core.records import Timing

if TYPE_CHECKING:
    from ..contexts.records import BuiltContext


class ModelError(Exception):
    """No usable answer from the model; the message says why and what to check."""


@dataclass(frozen=True, slots=True)
class CompletionRequest:
    uri: str
    path: str  # file-system path of the document (from its file: URI), POSIX
    language: str
    text: str  # the whole document as the editor has it
    offset: int  # code-point offset of the cursor in ``text``
    line: int
    character: int  # UTF-16 units, as LSP sent it
    context: BuiltContext | None = None  # built by the bridge's context strategy; None: the adapter's own prompt

    @property
    def prefix(self) -> str:
        return self.text[: self.offset]

    @property
    def suffix(self) -> str:
        return self.text[self.offset :]


class Model(Protocol):
    name: str

    async def complete(self, request: CompletionRequest) -> str: ...

    async def aclose(self) -> None: ...


async def answers(model: Model, request: CompletionRequest) -> tuple[list[str], Timing | None]:
    """Every answer ``model`` gives to ``request``, first one first, and how they came when the
    model knows: an HTTP model (``complete_timed``) measures its requests, a recorded one gives
    the recorded timing; a model that offers alternatives (several samples, as an editor cycles
    through suggestions) has a ``complete_all`` method returning them all; any other gives its one
    answer, untimed."""
    timed = getattr(model, "complete_timed", None)
    many = getattr(model, "complete_all", None)
    timing: Timing | None = None
    if timed is not None:
        found, timing = await timed(request)
    elif many is not None:
        found = list(await many(request))
    else:
        found = [await model.complete(request)]
    if not found:
        raise ModelError(f"{model.name} gave no answer")
    return list(found), timing
