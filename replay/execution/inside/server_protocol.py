"""What the warm Python servers and the host agree on, defined once.

The servers (``pytest_server.py``, ``program_server.py``) import this module by its bare name
(their folder is ``sys.path[0]``); the host (``runners/warm.py``, the program runners) imports it
as ``replay.execution.inside.server_protocol``. Standard library only: nothing at all.
"""

from __future__ import annotations

READY = '{"ready": true}'  # the line a server writes once it is warm and takes requests
SANDBOXED = "--sandboxed"  # the flag telling a server it runs in its own PID namespace
PYTEST_CRASHED = 70  # the exit status of a warm pytest run in which pytest itself raised
