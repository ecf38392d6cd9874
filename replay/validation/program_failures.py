"""Why a program's golden completion failed every run, when the cause is the machine and not the
completion: a package left out on purpose, or the network the sandbox never gives.

Both used to be filed as ``golden_fails``, which says the golden completion is wrong:

* **A package left out on purpose.** ``--provision`` installs what the programs import except the
  packages too big to install by default (``execution/programs/python.py``: torch, tensorflow, jax).
  A program importing one fails with ``ModuleNotFoundError`` naming it: that is
  ``toolchain_missing``, with the package named and how to add it.
* **The network.** Each run has its own network namespace with only loopback, so a program that
  calls a public host fails. Some say so (``ConnectionError``); others catch the error, print it
  and go on, and then fail an assertion about the missing data (DevBench's Python
  ``pattern_matching/7`` and ``pattern_matching/20`` fail with ``AssertionError``,
  ``pattern_matching/27`` with ``UnboundLocalError``), which read as wrong golden completions.
  The evidence is in the output either way: a name that could not be resolved, or a network that
  could not be reached. That is ``needs_network``.

Detection reads the failed run's output, not the program's code: code that imports ``requests``
may never reach the network (``requests_mock`` and ``unittest.mock`` stand in for it, and such
programs pass), while a failed lookup of a host name has one cause in the sandbox. A program
refused by a server on ``localhost`` is not flagged: the sandbox lets a program serve itself, so
such a failure is the program's own. The markers are the resolvers' and runtimes' own words
(glibc and Python's socket module, urllib3, Node.js, the JDK, curl), which no assertion message
imitates by chance.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from replay.execution.programs.python import TOO_BIG
from replay.validation.drops import DropReason

# what a run prints when it tried to reach a host it cannot: a name lookup that failed, or no route
NETWORK_MARKERS = re.compile(
    r"Temporary failure in name resolution"  # glibc's EAI_AGAIN (Python's socket.gaierror)
    r"|Name or service not known"  # glibc's EAI_NONAME
    r"|No address associated with hostname"
    r"|nodename nor servname provided"
    r"|NameResolutionError"  # urllib3 (requests)
    r"|getaddrinfo (?:ENOTFOUND|EAI_AGAIN)"  # Node.js
    r"|java\.net\.UnknownHostException"  # the JDK
    r"|Could not resolve host"  # curl
    r"|Network is unreachable"  # ENETUNREACH: an address outside the sandbox
    r"|ENETUNREACH",
)
_MISSING_MODULE = re.compile(r"No module named '([\w.]+)'")


@dataclass(frozen=True, slots=True)
class Cause:
    """A failing golden completion's cause outside the completion: ``reason`` and why, in words."""

    reason: DropReason
    detail: str


def left_out_package(output: str) -> str | None:
    """The package left out of ``--provision`` on purpose whose absence ``output`` reports, or None."""
    for name in _MISSING_MODULE.findall(output):
        top = name.split(".")[0]
        if top in TOO_BIG:
            return top
    return None


def network_evidence(output: str, width: int = 300) -> str | None:
    """The line of ``output`` showing that the run tried to reach a host, cut to ``width``
    characters ending with its marker (None: no such line)."""
    for line in output.splitlines():
        found = NETWORK_MARKERS.search(line)
        if found:
            start = max(0, found.end() - width)
            return ("…" if start else "") + line[start : found.end()].strip()
    return None


def machine_cause(output: str) -> Cause | None:
    """Why a golden completion whose runs printed ``output`` (its error and its output's tail)
    failed, when the cause is the machine; None when nothing in the output says so (the failure
    is then the completion's own, ``golden_fails``)."""
    package = left_out_package(output)
    if package is not None:
        return Cause(
            DropReason.TOOLCHAIN_MISSING,
            f"needs {package}, which --provision leaves out on purpose (too big to install by default): "
            f"install it by hand into the programs' environment (pip install {package}) to gate this instance",
        )
    evidence = network_evidence(output)
    if evidence is not None:
        return Cause(
            DropReason.NEEDS_NETWORK,
            f"the program reaches for a host on the network, which the sandbox never gives ({evidence})",
        )
    return None
