"""JavaScript and TypeScript programs: run by ``node_launcher.js``, a worker thread per program.

Node.js (18 or newer) runs them. The launcher runs each program in a ``worker_threads`` Worker of
its own (``node_program.js``, a file that loads nothing the program does not): its own globals,
``require`` cache and copy of ``process.env``; ``process.exit`` ends only the worker; the run ends
when the worker's event loop is empty, as a fresh process's would. A fresh run does the same, so
that both modes judge a program by the same code:

* fresh (``warm=False``): ``node node_launcher.js --run`` per program, sandboxed, in an empty
  folder of its own; the token comes through ``$SIMPILOT_PROOF`` (``proof.Channel``); the CPU
  budget is the kernel's limit on the whole process;
* warm (``warm=True``): one sandboxed ``node node_launcher.js --serve`` per runner, speaking the
  JUnit server's line protocol so that :meth:`warm.JUnitServer.run` does the reading, the CPU
  budget (the server's CPU time, polled), the timeout and the restarts (after ``MAX_RUNS``, a
  timeout, a death, or a run that left a process running). Node's start-up, the TypeScript
  compiler and the declarations it reads are paid once, and a spare worker is always booting
  while a run goes on (it has run nothing but ``node_program.js``'s wait for its program). After every
  run the server deletes what the run added to the sandbox's private ``/tmp`` and this side
  empties the scratch folder, the program's working folder (a worker cannot ``chdir``).

The program's ``__filename`` and ``__dirname`` point into the scratch folder, which stays empty (the
program's text is not written there), and it sees itself as the main module (``require.main``,
``isMainThread``). The rule of a pass (the launcher's header has it in full): the program
compiled, its last top-level statement ran (a call under a random name is appended after it), its
event loop then drained without ``process.exit`` ever being called (not even after the last
statement: asynchronous checks may still have been pending), nothing went uncaught (``'exit'``
listeners included) and ``process.exitCode`` stayed 0. Failures are recorded as ``AssertionError:
...`` (node's ``AssertionError [ERR_ASSERTION]``), ``TypeError: ...``, ``EarlyExit: ...``,
``NonZeroExit: ...`` or ``compile error: ...``. Unlike a bare ``node program.js``, ``process.chdir``
throws (as in any worker), signals never reach the program, and a ``beforeExit`` listener that
prints keeps the event loop alive. Node gets ``--disable-wasm-trap-handler`` and a 512 MiB cap per
WebAssembly memory, and workers a 128 MB code range: the sandbox caps the address space, which V8
would otherwise reserve by the gigabyte (``fetch`` in node 20 runs on WebAssembly).

TypeScript is compiled by the ``typescript`` package, pinned to 5.x (7.x has no JavaScript API,
6.x changes tsc's defaults and deprecates options the check uses): type-checked as ``tsc`` does with
its defaults (not strict) plus ``esModuleInterop``, against ``@types/node`` and the provisioned
packages' own declarations, then emitted with ``ts.transpileModule`` (CommonJS, ES2020). Syntax
errors are ``compile error: SyntaxError: 12.ts:5: ... (TS1005)``, type errors ``compile error:
12.ts:5: ... (TS2339)``. On DevBench's 300 TypeScript instances, 299 golden programs type-check
with the packages they import provisioned (the other reads ``.message`` of a catch variable typed
``unknown``) and 250 with ``@types/node`` alone (the rest: "Cannot find module"); DevBench's harness
compiles with tsc, so programs are type-checked. A JavaScript syntax error is ``compile error:
SyntaxError: 12.js:5: ...``. JavaScript programs run as CommonJS: one written as an ES module
(``import``/``export``; 14 of DevBench's 300), which CommonJS rejects, is rewritten to CommonJS by
the same ``typescript`` package (``transpileModule``, no type check, target ESNext: only the module
syntax changes) and run like the others, with the provisioned packages; node's own ES module
loader would resolve packages without ``NODE_PATH``. Without the TypeScript environment such a
program fails with "Cannot use import statement outside a module".

Packages come from npm: :func:`needs` reads the programs' ``require``/``import`` names,
:func:`provision` installs them into a folder whose ``node_modules`` the programs get as
``NODE_PATH``.
"""

from __future__ import annotations

import base64
import dataclasses
import functools
import json
import re
import shutil
import subprocess
from collections.abc import Iterable
from pathlib import Path

from replay.core.errors import SimpilotError
from replay.core.paths import cache_root
from replay.environments.environment import allow_reading
from replay.execution.programs import INSIDE, Program, Runner, remove
from replay.execution.programs.scratch import budgeted, run_folder, runner_home
from replay.execution.proof.check import Channel
from replay.execution.runners.warm import JUnitServer, _Resident
from replay.execution.sandbox.bubblewrap import ProcessResult, Sandbox

LANGUAGES = ("javascript", "typescript")
LAUNCHER = INSIDE / "node_launcher.js"
MIN_NODE = 18  # worker_threads, fs.rmSync, Atomics on SharedArrayBuffer in workers
TYPESCRIPT = "typescript"
NODE_TYPES = "@types/node"
# What npm installs for a needed name, where the latest is not what the launcher can use
TYPESCRIPT_SPEC = "typescript@5"
NPM_TIMEOUT = 1800.0
VERSION_TIMEOUT = 30.0
WASM_MAX_PAGES = 8192  # 64 KiB pages: 512 MiB of address space per WebAssembly memory (see node_flags)
NOT_INSTALLED = "not-installed.json"  # in a provisioned folder: the needed packages npm could not install

# Node's built-in modules (``require('module').builtinModules``, first path segment): never installed
BUILTINS = frozenset(
    "assert async_hooks buffer child_process cluster console constants crypto dgram diagnostics_channel dns domain"
    " events fs http http2 https inspector module net os path perf_hooks process punycode querystring readline repl"
    " stream string_decoder sys timers tls trace_events tty url util v8 vm wasi worker_threads zlib test".split()
)
_NPM_NAME = re.compile(r"(?:@[a-z0-9][\w.~-]*/)?[A-Za-z0-9][\w.~-]*")
# Module specifiers: require('x') (TypeScript's import x = require('x') too), import/export ... from 'x',
# import 'x', import('x')
_SPECIFIER = re.compile(
    r"""\brequire\s*\(\s*(['"`])([^'"`\n]+)\1\s*\)"""
    r"""|^[ \t]*(?:import|export)\b[^'"`;]*?\bfrom\s*(['"])([^'"\n]+)\3"""
    r"""|^[ \t]*import\s*(['"])([^'"\n]+)\5"""
    r"""|\bimport\s*\(\s*(['"])([^'"\n]+)\7\s*\)""",
    re.M,
)
# Strings are kept (a specifier is one), comments dropped (a commented-out require needs nothing)
_STRING_OR_COMMENT = re.compile(r"""'(?:\\.|[^'\\\n])*'|"(?:\\.|[^"\\\n])*"|`(?:\\.|[^`\\])*`|/\*.*?\*/|//[^\n]*""", re.S)
# What only TypeScript writes (a guess, used when needs() is not told the language): declarations,
# annotations, assertions and modifiers, outside comments and strings. On DevBench: 299 of 300
# TypeScript programs, none of the 300 JavaScript ones.
_TYPESCRIPT = re.compile(
    r"""^[ \t]*(?:export[ \t]+)?(?:declare[ \t]+)?(?:interface|enum|namespace|abstract[ \t]+class)[ \t]+[A-Za-z_$][\w$]*"""
    r"""|^[ \t]*(?:export[ \t]+)?type[ \t]+[A-Za-z_$][\w$]*(?:<[^>\n]*>)?[ \t]*="""
    r"""|^[ \t]*import[ \t]+type\b"""
    r"""|\b(?:let|const|var)[ \t]+[A-Za-z_$][\w$]*[ \t]*:[ \t]*[A-Za-z_${\[(]"""
    r"""|[(,][ \t]*[A-Za-z_$][\w$]*\??[ \t]*:[ \t]*(?:string|number|boolean|any|unknown|void|never|object|Record<|Promise<|Array<)"""
    r"""|\)[ \t]*:[ \t]*(?:string|number|boolean|any|unknown|void|never|Promise<)"""
    r"""|\bas[ \t]+(?:const|any|unknown|string|number|boolean)\b"""
    r"""|^[ \t]*(?:private|public|protected|readonly)[ \t]+(?:readonly[ \t]+)?[A-Za-z_$][\w$]*[ \t]*[:?;=(]"""
    r"""|\bclass[ \t]+\w+(?:[ \t]+extends[ \t]+[\w.]+)?[ \t]+implements\b""",
    re.M,
)


# -- the machine's tools -------------------------------------------------------------------------


@functools.cache
def node() -> tuple[str, int] | None:
    """Node.js on ``PATH`` and its major version (None: not installed or not runnable)."""
    path = shutil.which("node")
    if path is None:
        return None
    try:
        version = subprocess.run([path, "--version"], capture_output=True, text=True, timeout=VERSION_TIMEOUT).stdout
    except (OSError, subprocess.TimeoutExpired):
        return None
    found = re.match(r"v(\d+)\.", version.strip())
    return (path, int(found.group(1))) if found else None


@functools.cache
def node_flags(path: str) -> tuple[str, ...]:
    """The flags every run's node gets, where node knows them. The sandbox caps the address space
    (``prlimit --as``); with its WebAssembly trap handler V8 reserves some 10 GB of it for each
    WebAssembly memory (node's own ``fetch`` parses HTTP with one), which fails with "Out of
    memory", and without it a memory with no declared maximum reserves all the space left. So
    bounds are checked explicitly and a WebAssembly memory is at most 512 MiB."""
    flags = ("--disable-wasm-trap-handler", f"--wasm-max-mem-pages={WASM_MAX_PAGES}")
    try:
        done = subprocess.run([path, *flags, "-e", "0"], capture_output=True, timeout=VERSION_TIMEOUT)
    except (OSError, subprocess.TimeoutExpired):
        return ()
    return flags if done.returncode == 0 else ()


def default_environment(language: str) -> Path:
    """Where ``simpilot import devbench --provision`` installs ``language``'s packages (a runner
    without an environment of its own looks for TypeScript there)."""
    return cache_root() / "programs" / language


def typescript_home(environment: Path | None) -> Path | None:
    """The first of ``environment`` and the default TypeScript environment whose ``node_modules``
    holds a usable ``typescript`` (one with its JavaScript API) and ``@types/node``."""
    for folder in (environment, default_environment("typescript")):
        if folder is None:
            continue
        modules = folder / "node_modules"
        if (modules / TYPESCRIPT / "lib" / "typescript.js").is_file() and (modules / "@types" / "node" / "package.json").is_file():
            return folder
    return None


def missing(language: str) -> str | None:
    """Why this machine cannot run ``language``'s programs, or None. TypeScript needs the
    compiler provisioned in the default TypeScript environment (a runner given an environment of
    its own looks there first)."""
    why = _node_missing(language)
    if why is None and language == "typescript" and typescript_home(None) is None:
        return _no_typescript(default_environment("typescript"))
    return why


def _node_missing(language: str) -> str | None:
    if language not in LANGUAGES:
        return f"the Node.js program harness runs JavaScript and TypeScript programs, not {language}"
    found = node()
    if found is None:
        return f"{language} programs need Node.js {MIN_NODE} or newer (node): install it (Debian/Ubuntu: apt-get install nodejs)"
    if found[1] < MIN_NODE:
        return f"{language} programs need Node.js {MIN_NODE} or newer, and {found[0]} is version {found[1]}: install a newer one"
    return None


def _no_typescript(folder: Path) -> str:
    return (
        f"TypeScript programs need the npm packages {TYPESCRIPT_SPEC} and {NODE_TYPES}, not provisioned in {folder}: "
        "run `simpilot import devbench FOLDER --languages typescript --provision` (npm must be installed and reach its registry)"
    )


# -- what programs need --------------------------------------------------------------------------


def _code(source: str, strings: bool = True) -> str:
    """``source`` without its comments, and without the text of its strings unless ``strings``."""

    def keep(match: re.Match[str]) -> str:
        text = match.group(0)
        if text.startswith("/"):
            return ""
        return text if strings else text[0] * 2

    return _STRING_OR_COMMENT.sub(keep, source)


def package_of(specifier: str) -> str | None:
    """The npm package a module specifier names (``lodash/fp`` → ``lodash``, ``@scope/pkg/sub`` →
    ``@scope/pkg``), or None: relative and absolute paths, ``node:`` and built-in modules, URLs."""
    if specifier.startswith((".", "/", "#")) or ":" in specifier:
        return None
    parts = specifier.split("/")
    if specifier.startswith("@"):
        if len(parts) < 2 or not parts[1]:
            return None
        name = "/".join(parts[:2])
    else:
        name = parts[0]
        if name in BUILTINS:
            return None
    return name if _NPM_NAME.fullmatch(name) else None


def required(source: str) -> set[str]:
    """The npm packages ``source`` requires or imports (comments left out)."""
    found: set[str] = set()
    for match in _SPECIFIER.finditer(_code(source)):
        specifier = next(group for group in match.groups()[1::2] if group)
        name = package_of(specifier.strip())
        if name is not None:
            found.add(name)
    return found


def looks_like_typescript(source: str) -> bool:
    """Whether ``source`` has something only TypeScript writes (annotations, interfaces...)."""
    return _TYPESCRIPT.search(_code(source, strings=False)) is not None


def needs(sources: Iterable[str], language: str | None = None) -> list[str]:
    """The npm packages the programs name, sorted; for TypeScript also ``typescript`` and
    ``@types/node``. Without ``language`` the programs are TypeScript when one of them looks so."""
    texts = list(sources)
    names: set[str] = set()
    for text in texts:
        names |= required(text)
    typescript = language == "typescript" or (language is None and any(looks_like_typescript(t) for t in texts))
    if typescript:
        names |= {TYPESCRIPT, NODE_TYPES}
    return sorted(names)


def npm_spec(name: str) -> str:
    """What npm is asked to install for ``name``: the latest version, except the TypeScript 5
    compiler and the ``@types/node`` of this machine's Node.js major version."""
    if name == TYPESCRIPT:
        return TYPESCRIPT_SPEC
    if name == NODE_TYPES:
        found = node()
        return f"{NODE_TYPES}@{found[1]}" if found is not None else NODE_TYPES
    return name


def provision(needed: Iterable[str], folder: Path) -> dict[str, str]:
    """Install ``needed`` from npm into ``folder`` (a ``package.json`` of its own; all in one go,
    and when that fails one by one, leaving out those that do not install); the lock is each
    installed package's version from ``package-lock.json``."""
    names = sorted(set(needed))
    npm = shutil.which("npm")
    if npm is None:
        raise SimpilotError("installing the programs' npm packages needs npm: install it (Debian/Ubuntu: apt-get install npm)")
    folder.mkdir(parents=True, exist_ok=True)
    manifest = folder / "package.json"
    if not manifest.is_file():
        manifest.write_text(json.dumps({"name": "simpilot-programs", "private": True}, indent=1) + "\n")
    failed: list[str] = []
    last_error = ""
    if names:
        ok, last_error = _npm_install(npm, folder, [npm_spec(n) for n in names])
        if not ok:
            for name in names:
                ok, error = _npm_install(npm, folder, [npm_spec(name)])
                if not ok:
                    failed.append(name)
                    last_error = error
    installed = installed_versions(folder, names)
    (folder / NOT_INSTALLED).write_text(json.dumps([n for n in names if n not in installed]) + "\n")
    if names and not installed:
        raise SimpilotError(
            f"no npm package could be installed into {folder} ({', '.join(failed or names)}): is the npm registry reachable? "
            f"npm said: {last_error or 'nothing'}"
        )
    return installed


def _npm_install(npm: str, folder: Path, specs: list[str]) -> tuple[bool, str]:
    """Whether ``npm install specs`` succeeded in ``folder``, and what npm said went wrong."""
    command = [npm, "install", "--no-audit", "--no-fund", "--omit=dev", "--no-progress", *specs]
    try:
        done = subprocess.run(command, cwd=folder, capture_output=True, text=True, timeout=NPM_TIMEOUT)
    except subprocess.TimeoutExpired:
        return False, f"npm install did not finish in {NPM_TIMEOUT:.0f} s"
    except OSError as exc:
        return False, str(exc)
    # npm's first error lines say what went wrong (its code, then the failing request); the last one names its log
    errors = [line[len("npm error") :].strip() for line in done.stderr.splitlines() if line.startswith("npm error")]
    said = "; ".join([e for e in errors if e and not e.startswith("A complete log")][:2])
    return done.returncode == 0, said or done.stderr.strip()[-300:]


def installed_versions(folder: Path, names: Iterable[str]) -> dict[str, str]:
    """name → version of the ``names`` that ``folder``'s ``package-lock.json`` has installed."""
    try:
        lock = json.loads((folder / "package-lock.json").read_text())
    except (OSError, ValueError):
        return {}
    packages = lock.get("packages") or {}
    found: dict[str, str] = {}
    for name in names:
        entry = packages.get(f"node_modules/{name}")
        if isinstance(entry, dict) and isinstance(entry.get("version"), str) and (folder / "node_modules" / name).is_dir():
            found[name] = entry["version"]
    return found


# -- running programs ----------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True, slots=True)
class Tools:
    """What a run needs: node, the provisioned ``node_modules`` (``NODE_PATH``), for
    TypeScript the compiler and the folder holding ``@types/node``, and for JavaScript the
    ``typescript`` package that rewrites an ES module to CommonJS (``transpiler``)."""

    node: str
    modules: Path | None = None
    typescript: Path | None = None
    types: Path | None = None
    transpiler: Path | None = None

    def command(self, *arguments: str) -> list[str]:
        """``node [flags] node_launcher.js arguments... [tools]``."""
        return [self.node, *node_flags(self.node), str(LAUNCHER), *arguments, *self.arguments()]

    def arguments(self) -> list[str]:
        found = [("--modules", self.modules), ("--typescript", self.typescript), ("--types", self.types), ("--transpiler", self.transpiler)]
        return [part for flag, path in found if path is not None for part in (flag, str(path))]

    def env(self) -> dict[str, str]:
        return {"NODE_PATH": str(self.modules)} if self.modules is not None else {}


def tools(language: str, environment: Path | None) -> Tools:
    """The tools to run ``language``'s programs with the packages of ``environment``; a
    :class:`SimpilotError` saying what to install when something is missing. The folders are made
    readable in every sandbox (they usually live in simpilot's cache, under a hidden home)."""
    why = _node_missing(language)
    found = node()
    if why is not None or found is None:
        raise SimpilotError(why or "Node.js is not installed")
    modules = environment / "node_modules" if environment is not None and (environment / "node_modules").is_dir() else None
    typescript = types = transpiler = None
    home = typescript_home(environment)
    if language == "typescript":
        if home is None:
            raise SimpilotError(_no_typescript(environment or default_environment("typescript")))
        typescript, types = home / "node_modules" / TYPESCRIPT, home / "node_modules" / "@types"
        modules = modules or home / "node_modules"
    elif home is not None:  # JavaScript: the compiler only rewrites ES modules, loaded by the first one
        transpiler = home / "node_modules" / TYPESCRIPT
    if home is not None:
        allow_reading(str(home))
    if environment is not None:
        allow_reading(str(environment))
    return Tools(found[0], modules, typescript, types, transpiler)


def runner(language: str, sandbox: Sandbox, environment: Path | None, warm: bool, workdir: Path | None = None) -> Runner:
    """A runner of ``language``'s programs with the packages of ``environment``; its scratch
    folders are made in a folder of its own in ``workdir`` (None: the system's temporary folder)
    and deleted when it closes."""
    made = tools(language, environment)
    if workdir is not None:
        workdir.mkdir(parents=True, exist_ok=True)
    return WarmRunner(language, sandbox, made, workdir) if warm else FreshRunner(language, sandbox, made, workdir)


def file_name(program: Program) -> str:
    """The program's file name as the program sees it (``12.ts``): no folder, no blanks (the
    server's requests are tab-separated)."""
    name = re.sub(r"\s", "_", Path(program.name).name)
    return name or "program" + (".ts" if program.language == "typescript" else ".js")


class FreshRunner:
    """A node process per program, in an empty folder of its own; the CPU budget is the whole
    process's CPU time (start-up and, for TypeScript, compilation included), enforced by the kernel."""

    def __init__(self, language: str, sandbox: Sandbox, made: Tools, workdir: Path | None):
        self.language, self.sandbox, self.tools = language, sandbox, made
        self.home = runner_home("simpilot-node-", workdir)

    def run(self, program: Program, timeout: float, cpu: float | None = None) -> ProcessResult:
        with run_folder(self.home, program, "program") as (folder, source):
            command = self.tools.command("--run", "--source", str(source), "--name", file_name(program), "--language", program.language)
            with Channel() as channel:
                # how it ended (CPU time at the budget, memory, ...) the sandbox decides, by its limits
                return budgeted(self.sandbox, cpu).run(command, folder / "work", timeout, self.tools.env(), channel)

    def close(self) -> None:
        remove(self.home)


class _NodeServer(JUnitServer):
    """``node_launcher.js --serve``: it speaks the JUnit server's protocol (a request line of
    tab-separated arguments ending in ``--token TOKEN``; the output, the records, maybe
    ``SIMPILOT-RESTART``, then ``SIMPILOT-EXIT TOKEN STATUS``), so its reading, CPU budget and
    restarts are :meth:`JUnitServer.run`'s."""

    def __init__(self, sandbox: Sandbox, workdir: Path, command: list[str], env: dict[str, str]):
        _Resident.__init__(self, sandbox, workdir, command, env)


class WarmRunner:
    """One resident node process for many programs, a worker thread per program (see the module's
    docstring)."""

    def __init__(self, language: str, sandbox: Sandbox, made: Tools, workdir: Path | None):
        self.language = language
        self.home = runner_home("simpilot-node-warm-", workdir)
        self.work = self.home / "work"
        self.work.mkdir()
        command = made.command("--serve", *(["--clean-tmp"] if sandbox.enabled else []))
        self.server = _NodeServer(sandbox, self.work, command, made.env())

    @property
    def starts(self) -> int:
        """How many node processes this runner has started (a restart is one more)."""
        return self.server.starts

    def run(self, program: Program, timeout: float, cpu: float | None = None) -> ProcessResult:
        encoded = base64.b64encode(program.source.encode("utf-8")).decode("ascii")
        try:
            return self.server.run(["--name", file_name(program), "--language", program.language, "--source64", encoded], timeout, cpu)
        finally:
            remove(self.work, keep=True)

    def close(self) -> None:
        self.server.close()
        remove(self.home)
