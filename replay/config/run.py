"""A run's configuration: everything its answers and verdicts depend on besides the tasks.

The composition of a run's configuration from the model's settings as the bridge resolves them
is ``replay/run/configuration.py``; this module holds what is pure: the sections, the verdict's
description, secrets redacted, the hash and what differs between two configurations.

It is stored with the run (a readable JSON and its SHA-256) so that ``--resume`` cannot mix two
configurations in one run: a resume whose configuration differs is refused, naming what differs.
It holds

- the model's settings as the bridge uses them: for an endpoint every setting with its default
  filled in, the prompt mode and stop sequences resolved and the FIM template written out (so
  adding ``temperature = 0`` to ``models.toml``, the default, changes nothing);
- the steps behind each post-processing preset of the run;
- the sandbox (bubblewrap, or none with ``--unsafe-no-sandbox``) and its limits;
- the suite (the tests selected per task, or the repository's own command with ``--full-suite``);
- how a pass is decided (``verdict``: how each repository's verdicts are reached — each selected
  test's own result through the proof channel, a program's output compared with the untouched
  program's, a DevBench program's checks run to their end, JUnit XML reports — and the rule's
  version: per-test proofs, and since the CPU-time limit a busy loop stopped early; a run stored
  before per-test proofs decided by exit status and cannot be continued by this version);
- how answers are asked (simpilot's bridge or another ``--server-command``; ``--session``);
- the test interpreter of each repository with an ``[environment]`` (its cached venv, which is
  named by what built it, or the interpreter given);
- the context strategy the bridge builds prompts with (``replay --context``): its builder,
  budget, tokenizer and options (a run without one stores none, so older runs resume as before).

Settings that change how a request travels but never what comes back (the endpoint's address,
timeouts, retries, backoff, concurrency, the name of the key's variable) are left out, so a run
whose endpoint timed out can be resumed with a longer timeout, or at the address the model moved to; so are the oracle's scenario paths (the scenario hash pins the
tasks) and the raw-output cache's path.

Secrets never reach the store: credentials in a URL (``https://user:secret@host``) and query
parameters named like keys (``?api_key=…``) are replaced by ``***`` before anything is hashed or
stored, in the configuration as in the stored model spec and name.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Mapping
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from replay.config.manifest import Manifest, has_pytest_word

REDACTED = "***"
_SECRET_PARAM = re.compile(r"key|token|secret|passw|pwd|auth|sig|credential", re.IGNORECASE)
# Spec keys that only locate things pinned elsewhere, or never shape an answer.
NOT_ANSWER_KEYS = frozenset({"scenarios", "cache_db", "name"})
ADDRESS = "base_url"

SECTIONS = {
    "model": "model settings differ",
    "presets": "post-processing presets differ",
    "sandbox": "sandbox differs",
    "suite": "test suite differs",
    "requests": "how answers are asked differs",
    "verdict": "how a pass is decided differs",
    "environments": "test environments differ",
    "context": "context strategy differs",
}
# How a repository's verdicts are reached, one way per kind of repository (:func:`verdict_way`).
PER_TEST = "each selected test's own result, through the proof channel"
OUTPUT_COMPARISON = "the program's output, compared line by line with the untouched program's"
PROGRAMS = "each program run to its end by its language's runner, its checks proven through the proof channel"
JUNIT_REPORTS = "each test's own result, from the JUnit XML reports of the repository's test command"
# Bumped whenever the rule deciding a pass changes: a run judged by two rules measures neither.
RULE = "busy loops stopped by CPU time (3)"
VERDICT = f"{PER_TEST}; {RULE}"  # the description of a run whose every repository reports each test's result
LEGACY_VERDICT = "the test command's exit status"
SANDBOXED = "bubblewrap"
UNSANDBOXED = "none (--unsafe-no-sandbox)"
SELECTED = "tests selected per task"
FULL_SUITE = "the repository's whole test command (--full-suite)"
BRIDGE = "simpilot's bridge"


# -- secrets ------------------------------------------------------------------------------------


def redact_url(url: str) -> str:
    """``url`` without the secrets it may carry: the password of its user part (the user too, as
    it is often a key) and the values of query parameters named like keys."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return url
    netloc = parts.netloc
    if "@" in netloc:
        netloc = f"{REDACTED}@{netloc.rpartition('@')[2]}"
    query = parts.query
    pairs = parse_qsl(query, keep_blank_values=True)
    if any(_SECRET_PARAM.search(k) for k, _ in pairs):  # else left as written
        query = urlencode([(k, REDACTED if _SECRET_PARAM.search(k) else v) for k, v in pairs], safe="*")
    return urlunsplit((parts.scheme, netloc, parts.path, query, parts.fragment))


def redact_spec(spec: dict[str, Any]) -> dict[str, Any]:
    """A model spec fit to store: its URL without secrets (a spec holds no key itself, only the
    *name* of the variable holding one)."""
    return {k: redact_url(v) if k == "base_url" and isinstance(v, str) else v for k, v in spec.items()}


def redact_model_name(name: str) -> str:
    """A model name fit to store and to name a run: an inline ``KIND:MODEL@URL`` without the
    URL's secrets; other names as they are."""
    head, sep, url = name.rpartition("@")
    return f"{head}@{redact_url(url)}" if sep and url.startswith(("http://", "https://")) else name


# -- the configuration ------------------------------------------------------------------------------


def without_address(config: dict[str, Any]) -> dict[str, Any]:
    """``config`` without the endpoint's address (stored by versions that kept it)."""
    model = config.get("model")
    if isinstance(model, dict) and ADDRESS in model:
        return {**config, "model": {k: v for k, v in model.items() if k != ADDRESS}}
    return config


def verdict_way(manifest: Manifest, full_suite: bool) -> str:
    """How a run reaches the verdicts of ``manifest``'s repository: a program's own checks run to
    their end (``[programs]``, DevBench), its output compared with the untouched program's
    (``compare_output``), the JUnit XML reports of the whole suite's command (``--full-suite``
    with ``junit_xml``, a command that is not pytest), else each test's result through the proof
    channel (simpilot's pytest plugin, its JUnit runner)."""
    if manifest.programs is not None:
        return PROGRAMS
    if manifest.compare_output:
        return OUTPUT_COMPARISON
    if full_suite and manifest.junit_xml and not has_pytest_word(list(manifest.test_command)):
        return JUNIT_REPORTS
    return PER_TEST


def describe_verdicts(ways: Mapping[str, str]) -> str:
    """The run's ``verdict``: how its verdicts are reached (``ways``: repository -> its way) and
    the rule's version. Where every repository reports each test's result it is :data:`VERDICT`,
    as before descriptions named the way; otherwise each way with its repositories, e.g.
    ``the program's output, compared ... (tinyprog); busy loops stopped by CPU time (3)``."""
    repos: dict[str, list[str]] = {}
    for repo, way in sorted(ways.items()):
        repos.setdefault(way, []).append(repo)
    if set(repos) <= {PER_TEST}:
        return VERDICT
    order = (PER_TEST, JUNIT_REPORTS, OUTPUT_COMPARISON, PROGRAMS)
    described = [f"{way} ({', '.join(repos[way])})" for way in sorted(repos, key=lambda w: order.index(w) if w in order else len(order))]
    return "; ".join([*described, RULE])


def _pinned(config: dict[str, Any]) -> dict[str, Any]:
    """``config`` as far as it pins the answers and verdicts: a description of the current rule
    (:func:`describe_verdicts`) stands for the rule itself, so that a run stored before
    descriptions named the way (all :data:`VERDICT`) resumes under the way's own description."""
    verdict = config.get("verdict")
    if isinstance(verdict, str) and verdict != VERDICT and verdict.endswith("; " + RULE):
        return {**config, "verdict": VERDICT}
    return config


def config_hash(config: dict[str, Any]) -> str:
    """SHA-256 of the configuration's canonical JSON (sorted keys, no spaces), the verdict's
    description reduced to its rule (:func:`_pinned`)."""
    return hashlib.sha256(canonical(_pinned(config)).encode("utf-8")).hexdigest()


def canonical(config: dict[str, Any]) -> str:
    return json.dumps(config, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


# -- what differs -----------------------------------------------------------------------------------

_ABSENT = object()


def _flatten(value: Any, prefix: str = "") -> dict[str, Any]:
    """``{"a": {"b": 1}}`` → ``{"a.b": 1}``; lists and scalars are leaves."""
    if not isinstance(value, dict):
        return {prefix: value}
    out: dict[str, Any] = {}
    for key in sorted(value):
        out.update(_flatten(value[key], f"{prefix}.{key}" if prefix else key))
    return out


def _show(value: Any) -> str:
    if value is _ABSENT:
        return "(not set)"
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        return "[" + ", ".join(_show(v) for v in value) + "]"
    return json.dumps(value, ensure_ascii=False)


def differences(stored: dict[str, Any], current: dict[str, Any], known_only: bool = False) -> list[str]:
    """What differs between a run's ``stored`` configuration and the ``current`` one, one line
    per section, e.g. ``model settings differ: temperature 0.2 → 0.0``. With ``known_only``
    only what ``stored`` records is compared (a run from before configurations were stored)."""
    lines = []
    stored, current = _pinned(stored), _pinned(current)
    for section, label in SECTIONS.items():
        if known_only and section not in stored:
            continue
        old = _flatten(stored.get(section, {}))
        new = _flatten(current.get(section, {}))
        keys = list(old) if known_only else sorted(set(old) | set(new))
        changes = []
        for key in keys:
            before, after = old.get(key, _ABSENT), new.get(key, _ABSENT)
            if before != after:
                changes.append(f"{key} {_show(before)} → {_show(after)}" if key else f"{_show(before)} → {_show(after)}")
        if changes:
            lines.append(f"{label}: {', '.join(changes)}")
    return lines
