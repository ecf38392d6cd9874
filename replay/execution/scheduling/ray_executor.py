"""Running the workers on a Ray cluster (``simpilot replay --executor ray``).

Each of ``jobs`` Ray actors builds one worker (``build()``, in the actor's own process: its
Evaluator with warm work copies) and keeps it for the whole run; the driver hands every call to an
idle actor, preferring one that already holds a warm copy of the call's repository, and stores the
results itself, so resuming works as with the local executor. Nothing but the calls' arguments and
results crosses the wire: every node needs simpilot installed and the repositories at the same
paths.

``address`` is that of a running cluster (or ``auto``); without one (or with ``local``) a Ray
instance with ``jobs`` CPUs is started here for the run and stopped after it. A process already
connected to Ray (a library caller, a test) keeps its connection and ``address`` is not used. Ray
is an optional extra (``pip install 'simpilot[ray]'``).
"""

from __future__ import annotations

import asyncio
import logging
import socket
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar

from replay.core.errors import SimpilotError

T = TypeVar("T")
CONNECT_TIMEOUT_S = 10.0
CLOSE_TIMEOUT_S = 120.0  # the actors stop their test servers and delete their work copies


class _Actor:
    """One worker in its own process; Ray runs its calls one at a time."""

    def __init__(self, build: Callable[[], Any]):
        self.worker = build()

    def call(self, fn: Callable[..., T], *args: Any) -> T:
        return fn(self.worker, *args)

    def close(self) -> None:
        self.worker.close()


@dataclass(eq=False)
class _Slot:
    actor: Any
    keys: set[str] = field(default_factory=set)  # repositories it holds warm copies of


def _check_reachable(address: str) -> None:
    """Fail at once when a ``host:port`` address does not answer: Ray itself keeps retrying for
    minutes."""
    host, sep, port = address.rpartition(":")
    if not sep or "://" in address or not port.isdigit():
        return  # "auto", a ray:// client address: Ray resolves those itself
    try:
        socket.create_connection((host, int(port)), timeout=CONNECT_TIMEOUT_S).close()
    except OSError as exc:
        raise SimpilotError(
            f"cannot connect to the Ray cluster at {address!r} ({exc.strerror or exc}): is it running, e.g. 'ray start --head'?"
        ) from None


def _ray():
    try:
        import ray
    except ImportError:
        raise SimpilotError(
            "--executor ray needs Ray, an optional extra: pip install 'simpilot[ray]' (or pip install 'ray>=2.40')"
        ) from None
    return ray


class RayExecutor:
    """``jobs`` actors each owning the worker ``build`` makes; see the module's docstring."""

    def __init__(self, build: Callable[[], Any], jobs: int, address: str | None = None):
        ray = self.ray = _ray()
        self._started = False
        if not ray.is_initialized():
            local = address in (None, "", "local")
            try:
                if local:
                    ray.init(num_cpus=jobs, include_dashboard=False, log_to_driver=False, logging_level=logging.WARNING)
                else:
                    assert address is not None  # None is local
                    _check_reachable(address)
                    ray.init(address=address, log_to_driver=False, logging_level=logging.WARNING)
            except (ConnectionError, RuntimeError, ValueError) as exc:
                if local:
                    raise SimpilotError(f"cannot start a local Ray instance: {exc}") from None
                raise SimpilotError(
                    f"cannot connect to the Ray cluster at {address!r}: {exc} (is it running, e.g. 'ray start --head'? "
                    "a cluster with token authentication also needs RAY_AUTH_MODE=token in this environment)"
                ) from None
            self._started = True
        remote = ray.remote(num_cpus=1, max_restarts=0)(_Actor)
        self._slots = [_Slot(remote.remote(build)) for _ in range(max(1, jobs))]
        self._idle = list(self._slots)
        self._changed: asyncio.Condition | None = None

    async def _acquire(self, key: str) -> _Slot:
        if self._changed is None:
            self._changed = asyncio.Condition()
        async with self._changed:
            await self._changed.wait_for(lambda: bool(self._idle))
            slot = next((s for s in self._idle if key in s.keys), None) or min(self._idle, key=lambda s: len(s.keys))
            self._idle.remove(slot)
            return slot

    async def _release(self, slot: _Slot) -> None:
        assert self._changed is not None
        async with self._changed:
            self._idle.append(slot)
            self._changed.notify()

    async def submit(self, fn: Callable[..., T], *args: Any, key: str = "") -> T:
        """``fn(worker, *args)`` on an idle actor (one with ``key``'s warm copy if any is idle)."""
        exceptions = self.ray.exceptions
        slot = await self._acquire(key)
        try:
            result = await slot.actor.call.remote(fn, *args)
            slot.keys.add(key)
            return result
        except exceptions.RayTaskError as exc:
            cause = getattr(exc, "cause", None)
            if isinstance(cause, Exception):
                raise cause from None
            raise SimpilotError(f"a Ray worker failed: {exc}") from None
        except exceptions.RayActorError as exc:
            raise SimpilotError(f"a Ray worker died ({exc}); stored results are kept: continue with --resume") from None
        finally:
            await self._release(slot)

    def close(self) -> None:
        """Let every actor clean up (test servers, work copies), then stop them and leave Ray
        (which stops the local instance, if this executor started one)."""
        ray = self.ray
        try:
            ray.wait([s.actor.close.remote() for s in self._slots], num_returns=len(self._slots), timeout=CLOSE_TIMEOUT_S)
        finally:
            for slot in self._slots:
                ray.kill(slot.actor)
            if self._started:
                ray.shutdown()
