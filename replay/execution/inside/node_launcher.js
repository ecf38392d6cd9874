'use strict';
/*
 * simpilot's launcher for JavaScript and TypeScript programs (see node.py).
 *
 *   node node_launcher.js --run --source FILE --name NAME --language LANG [TOOLS]   one program, a fresh process
 *   node node_launcher.js --serve [--clean-tmp] [TOOLS]                             the warm server
 *
 * TOOLS: --modules DIR (the provisioned node_modules), --typescript DIR (the typescript package),
 * --types DIR (the @types folder holding node). The working folder is the program's scratch folder.
 *
 * Either way the program runs in a worker thread of its own (its own globals, require cache and
 * process.env copy), so that a fresh process and the warm server judge a program the same way.
 * The worker is started first and then sent the program (the server keeps one booting ahead of
 * the next run). The program sees itself as node's main module: require.main is its module,
 * require('worker_threads').isMainThread is true, __filename is NAME in the scratch folder (which
 * stays empty: the file is not written there; a TypeScript program's NAME ends in .js, as tsc's
 * output would).
 *
 * The worker's code is node_program.js, a file of its own: a worker loads nothing but what the
 * program needs (node's start-up of a worker is most of a warm run's cost).
 *
 * The rule of a pass, checked when the worker has ended:
 *   1. the program compiled (TypeScript: no syntax or type error; JavaScript: no syntax error);
 *   2. its last top-level statement ran: a marker call appended after it, under a random name
 *      made per run, was made (a top-level `return` or an exception skips it; a program would
 *      have to read its own compiled wrapper to find the name: cheating, not a completion);
 *   3. its event loop then drained ('beforeExit'): process.exit() was never called, not even
 *      after the last statement (asynchronous checks may still have been pending);
 *   4. no exception or promise rejection went uncaught, 'exit' listeners included;
 *   5. the exit code it ended with (process.exitCode) is 0.
 * The record start comes before any of the program's code runs; test passed and end only when
 * all of the above hold. Otherwise: test failed, one error naming the class (AssertionError: ...,
 * TypeError: ..., EarlyExit: ..., NonZeroExit: ..., or "compile error: ..."), and end.
 *
 * Records are TOKEN<TAB>JSON lines. A fresh run takes the token from the pipe named in
 * $SIMPILOT_PROOF (TOKEN_FD:REPORT_FD) before any of the program's code is loaded and writes the
 * records to REPORT_FD. The server gets one request a line (tab-separated arguments --name NAME
 * --language LANG --source64 BASE64 --token TOKEN, as simpilot's JUnit server does); it answers
 * with the program's output lines (forwarded as they come, whole lines only),
 * the records, maybe SIMPILOT-RESTART (replace this server), then SIMPILOT-EXIT TOKEN STATUS.
 * The program never sees the token: it lives in the main thread, the program in the worker.
 */

const fs = require('fs');
const path = require('path');
const vm = require('vm');
const crypto = require('crypto');
const { Worker } = require('worker_threads');

const TEST = 'program';
const COMPILE_ERROR = 'compile error: ';
const MAX_MESSAGE = 2000; // characters of an error message kept in its record
const MAX_LINE = 10000; // characters of one output line the server forwards
const PARAMS = ['exports', 'require', 'module', '__filename', '__dirname'];
const CODE_RANGE_MB = 128;
// The worker's own file: it becomes the program (the slots of the run's shared state are its)
const PROGRAM = path.join(__dirname, 'node_program.js');
const { COMPLETED, EXITED, EXIT_ARG, DRAINED } = require(PROGRAM);

// -- the main thread -----------------------------------------------------------------------------

async function main(argv) {
    const options = parseArguments(argv);
    const tools = new Tools(options);
    if (options.serve) {
        await serve(tools, options);
        return;
    }
    const channel = openChannel();
    const source = fs.readFileSync(options.source, 'utf8');
    const status = await runOnce(tools, new Workers(false, false), options, source, channel.token, (line) => channel.write(line), passThrough());
    process.exitCode = status;
}

function parseArguments(argv) {
    const options = { serve: false, cleanTmp: false, run: false, source: '', name: 'program', language: 'javascript', token: '' };
    const valued = {
        '--source': 'source',
        '--name': 'name',
        '--language': 'language',
        '--modules': 'modules',
        '--typescript': 'typescript',
        '--types': 'types',
        '--transpiler': 'transpiler',
        '--token': 'token',
    };
    for (let i = 0; i < argv.length; i++) {
        const arg = argv[i];
        if (arg === '--serve') options.serve = true;
        else if (arg === '--run') options.run = true;
        else if (arg === '--clean-tmp') options.cleanTmp = true;
        else if (arg === '--source64') options.source64 = argv[++i];
        else if (valued[arg]) options[valued[arg]] = argv[++i];
        else throw new Error(`unknown argument ${arg}`);
    }
    return options;
}

/** The run's token and report descriptor, taken from $SIMPILOT_PROOF before any program code loads. */
function openChannel() {
    const spec = process.env.SIMPILOT_PROOF || '';
    delete process.env.SIMPILOT_PROOF;
    const [tokenFd, reportFd] = spec.split(':').map((part) => Number.parseInt(part, 10));
    if (!Number.isInteger(tokenFd) || !Number.isInteger(reportFd)) {
        return { token: '', write: () => {} };
    }
    const token = fs.readFileSync(tokenFd, 'utf8').trim();
    fs.closeSync(tokenFd);
    return { token, write: (line) => fs.writeSync(reportFd, line) };
}

/** Where a fresh run's program output goes: straight on to this process's own streams. */
function passThrough() {
    return { stdout: false, attach: () => {}, finish: () => {} };
}

/**
 * One program: compile, run in a worker, judge; writes the records through `write` (lines) and
 * returns the exit status (0: passed).
 */
async function runOnce(tools, workers, options, source, token, write, output) {
    const record = (obj) => write(`${token}\t${JSON.stringify(obj)}\n`);
    record({ event: 'start' });
    const name = path.basename(options.name || 'program') || 'program';
    const scratch = process.cwd();
    let failure;
    try {
        const compiled = compile(tools, options.language, name, path.join(scratch, name), source);
        if (compiled.error !== undefined) {
            failure = COMPILE_ERROR + compiled.error;
        } else {
            const runtimeName = options.language === 'typescript' ? `${name.replace(/\.tsx?$/, '')}.js` : name;
            const outcome = await runInThread(compiled.code, path.join(scratch, runtimeName), compiled.marker, output, workers);
            failure = judge(outcome);
        }
    } catch (err) {
        // not the program's doing (the compiler would not load, a worker would not start): say so
        writeStack(err, output);
        failure = `the launcher failed: ${describeError(err)}`;
    }
    if (failure === undefined) {
        record({ event: 'test', id: TEST, outcome: 'passed' });
        record({ event: 'end' });
        return 0;
    }
    record({ event: 'test', id: TEST, outcome: 'failed' });
    record({ event: 'error', message: clip(failure) });
    record({ event: 'end' });
    return 1;
}

/** The program as the worker runs it (with its marker), or the first compile error. */
function compile(tools, language, name, filename, source) {
    let code = source;
    if (language === 'typescript') {
        const ts = tools.typescript();
        const error = tools.checker().firstError(filename, source);
        if (error !== undefined) {
            return { error };
        }
        const out = ts.transpileModule(source, { compilerOptions: tools.emitOptions(), fileName: filename, reportDiagnostics: true });
        const syntax = (out.diagnostics || []).find((d) => d.category === ts.DiagnosticCategory.Error);
        if (syntax !== undefined) {
            return { error: describeDiagnostic(ts, syntax, name) };
        }
        code = out.outputText;
    } else if (tools.options.transpiler && isModule(code, filename)) {
        code = tools.asCommonJs(source, filename);
    }
    const marker = `__simpilot_end_${crypto.randomBytes(12).toString('hex')}`;
    const withMarker = `${code}\n;${marker}();\n`;
    // The program alone first: an unclosed bracket would otherwise be reported in the marker's line
    for (const text of [code, withMarker]) {
        try {
            vm.compileFunction(text, PARAMS, { filename });
        } catch (err) {
            return { error: describeSyntaxError(err, name) };
        }
    }
    return { code: withMarker, marker };
}

/**
 * Whether a JavaScript program is an ES module (import or export statements, import.meta), which
 * a CommonJS wrapper rejects. Such a program is rewritten to CommonJS (the typescript package's
 * transpileModule, no type check), so that it runs like any other: in a worker, with the
 * provisioned packages (NODE_PATH, which node's ES module loader ignores).
 */
function isModule(code, filename) {
    try {
        vm.compileFunction(code, PARAMS, { filename });
        return false;
    } catch (err) {
        const message = String((err && err.message) || '');
        return /Cannot use import statement outside a module|Unexpected token 'export'|Cannot use 'import\.meta' outside a module/.test(message);
    }
}

function describeSyntaxError(err, name) {
    const stack = String((err && err.stack) || '');
    const where = /^.*:(\d+)$/.exec(stack.split('\n', 1)[0]);
    const line = where ? `${name}:${where[1]}: ` : `${name}: `;
    return `${(err && err.name) || 'SyntaxError'}: ${line}${(err && err.message) || err}`;
}

function describeDiagnostic(ts, diagnostic, name) {
    const text = ts.flattenDiagnosticMessageText(diagnostic.messageText, ' ');
    let where = `${name}: `;
    if (diagnostic.file && diagnostic.start !== undefined) {
        const { line } = diagnostic.file.getLineAndCharacterOfPosition(diagnostic.start);
        where = `${path.basename(diagnostic.file.fileName) === path.basename(name) ? name : diagnostic.file.fileName}:${line + 1}: `;
    }
    // Syntax errors are TS1xxx: named as such, as a JavaScript syntax error is
    const kind = diagnostic.code >= 1000 && diagnostic.code < 2000 ? 'SyntaxError: ' : '';
    return `${kind}${where}${text} (TS${diagnostic.code})`;
}

/**
 * Fresh workers, each for one run. With `spare` one is always booting or booted ahead of the next
 * run (a worker's start-up, some 20 ms, is then off the run's path); it has run nothing but
 * awaitProgram(), so it is as fresh as one started for the run.
 */
class Workers {
    constructor(capture, spare) {
        this.capture = capture; // whether the run's output is read here (else it goes to this process's own)
        this.spare = spare;
        this.next = spare ? this.start() : undefined;
    }

    start() {
        const worker = new Worker(PROGRAM, {
            workerData: { simpilotWorker: true },
            env: { ...process.env },
            argv: [],
            stdout: this.capture,
            stderr: this.capture,
            // V8 reserves 512 MB of address space for a worker's code by default: the sandbox caps
            // the address space, which the server's main thread, a spare and the run's worker share
            resourceLimits: { codeRangeSizeMb: CODE_RANGE_MB },
        });
        // A spare that fails before its run (out of memory while idle) must not take this process down
        worker.on('error', () => {});
        worker.on('exit', () => {
            worker.simpilotGone = true;
        });
        return worker;
    }

    take() {
        const spare = this.next;
        const worker = spare !== undefined && !spare.simpilotGone ? spare : this.start();
        this.next = this.spare ? this.start() : undefined;
        return worker;
    }
}

/** Run `code` as the program `filename` in a fresh worker; what happened, once it has ended. */
function runInThread(code, filename, marker, output, workers) {
    return new Promise((resolve) => {
        const shared = new SharedArrayBuffer(4 * 4);
        const state = new Int32Array(shared);
        let error;
        let worker;
        try {
            worker = workers.take();
        } catch (err) {
            resolve({ error: err, hasError: true, exitCode: 1, state });
            return;
        }
        output.attach(worker);
        worker.on('error', (err) => {
            if (error === undefined) {
                error = { value: err };
                writeStack(err, output);
            }
        });
        worker.on('exit', (exitCode) => {
            output.finish();
            resolve({ error: error && error.value, hasError: error !== undefined, exitCode, state });
        });
        worker.postMessage({ state: shared, code, filename, marker });
    });
}

/** An uncaught error's stack, where node would print it: in the program's output. */
function writeStack(err, output) {
    let text = err && err.stack ? String(err.stack) : `Uncaught ${inspect(err)}`;
    const lines = text.split('\n');
    const ours = lines.findIndex((line) => line.includes(__filename) || line.includes(PROGRAM));
    if (ours > 0) {
        // the frames from the launcher on (the module loader, the worker's start) are not the program's
        const kept = lines.slice(0, ours);
        if (kept.length && /Module\._compile/.test(kept[kept.length - 1])) kept.pop();
        text = kept.join('\n');
    }
    if (output.write) output.write(`${text}\n`);
    else process.stderr.write(`${text}\n`);
}

/** The failure of an ended run (undefined: it passed; see the rule at the top). */
function judge(outcome) {
    const { state } = outcome;
    if (outcome.hasError) {
        return describeError(outcome.error);
    }
    const completed = Atomics.load(state, COMPLETED) === 1;
    if (Atomics.load(state, EXITED) === 1) {
        const code = Atomics.load(state, EXIT_ARG);
        return completed
            ? `EarlyExit: process.exit(${code}) was called after the program's last statement but before its event loop drained, so asynchronous checks may not have run`
            : `EarlyExit: process.exit(${code}) was called before the program's end, so its checks did not all run`;
    }
    if (!completed) {
        return "EarlyExit: the program's top level ended before its last statement (a top-level return), so its checks did not all run";
    }
    if (Atomics.load(state, DRAINED) !== 1) {
        return 'EarlyExit: the program ended before its event loop drained';
    }
    if (outcome.exitCode !== 0) {
        return `NonZeroExit: the program ended with exit code ${outcome.exitCode} (process.exitCode)`;
    }
    return undefined;
}

/** `Class: message` of an uncaught value (node's AssertionError [ERR_ASSERTION] is AssertionError). */
function describeError(err) {
    if (err !== null && typeof err === 'object' && typeof err.message === 'string') {
        const name = String(err.name || (err.constructor && err.constructor.name) || 'Error').replace(/\s*\[[A-Z0-9_]+\]$/, '');
        const message = err.message.split('\n').map((l) => l.trim()).filter(Boolean).join(' ');
        return message ? `${name}: ${message}` : name;
    }
    return `Uncaught ${inspect(err)}`;
}

function inspect(value) {
    try {
        return require('util').inspect(value, { depth: 2, breakLength: Infinity });
    } catch (_) {
        return String(value);
    }
}

function clip(text) {
    return text.length > MAX_MESSAGE ? `${text.slice(0, MAX_MESSAGE)}...` : text;
}

// -- TypeScript ----------------------------------------------------------------------------------

/** The tools a run may need, loaded once per process (the warm server: once for all runs). */
class Tools {
    constructor(options) {
        this.options = options;
        this._ts = undefined;
        this._checker = undefined;
    }

    typescript() {
        if (this._ts === undefined) {
            if (!this.options.typescript) {
                throw new Error('TypeScript programs need the typescript package: provision the TypeScript environment (see node.py)');
            }
            this._ts = require(this.options.typescript);
        }
        return this._ts;
    }

    emitOptions() {
        const ts = this.typescript();
        return { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2020, esModuleInterop: true };
    }

    /** An ES module's text as CommonJS: only the module syntax changes (target ESNext). */
    asCommonJs(source, filename) {
        if (this._transpiler === undefined) {
            this._transpiler = require(this.options.transpiler);
        }
        const ts = this._transpiler;
        const options = { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ESNext, esModuleInterop: true };
        return ts.transpileModule(source, { compilerOptions: options, fileName: filename }).outputText;
    }

    checker() {
        if (this._checker === undefined) {
            this._checker = new Checker(this.typescript(), this.emitOptions(), this.options);
        }
        return this._checker;
    }
}

/**
 * Type-checks one program at a time as tsc would (its defaults: not strict), with @types/node
 * and the provisioned packages' own types. The library and package declarations never change
 * during a process's life, so they are parsed once and kept (the warm server's gain); the
 * program's own file is never kept.
 */
class Checker {
    constructor(ts, emitOptions, folders) {
        this.ts = ts;
        const options = { ...emitOptions, noEmit: true, skipLibCheck: true, types: [] };
        if (folders.types) {
            options.typeRoots = [folders.types];
            options.types = ['node'];
        }
        if (folders.modules) {
            options.baseUrl = folders.modules;
            options.paths = { '*': ['*', '@types/*'] };
        }
        this.options = options;
        const host = ts.createCompilerHost(options);
        const files = new Map();
        const exists = new Map();
        const directories = new Map();
        const memo = (cache, key, compute) => {
            if (!cache.has(key)) cache.set(key, compute());
            return cache.get(key);
        };
        this.current = { name: '', text: '' };
        const current = this.current;
        const getSourceFile = host.getSourceFile.bind(host);
        const fileExists = host.fileExists.bind(host);
        const readFile = host.readFile.bind(host);
        const directoryExists = host.directoryExists ? host.directoryExists.bind(host) : undefined;
        host.getSourceFile = (name, version, onError, create) => {
            if (name === current.name) {
                return ts.createSourceFile(name, current.text, version, true);
            }
            const key = `${name}\0${typeof version === 'object' ? `${version.languageVersion}/${version.impliedNodeFormat}` : version}`;
            return memo(files, key, () => getSourceFile(name, version, onError, create));
        };
        host.fileExists = (name) => name === current.name || memo(exists, name, () => fileExists(name));
        host.readFile = (name) => (name === current.name ? current.text : readFile(name));
        if (directoryExists) {
            host.directoryExists = (name) => memo(directories, name, () => directoryExists(name));
        }
        this.host = host;
    }

    /** The first error diagnostic of the program `text` (named `name`), or undefined. */
    firstError(filename, text) {
        const ts = this.ts;
        this.current.name = filename;
        this.current.text = text;
        try {
            const program = ts.createProgram({ rootNames: [filename], options: this.options, host: this.host });
            const file = program.getSourceFile(filename);
            const groups = [
                () => program.getSyntacticDiagnostics(file),
                () => program.getOptionsDiagnostics(),
                () => program.getGlobalDiagnostics(),
                () => program.getSemanticDiagnostics(file),
            ];
            for (const group of groups) {
                const found = group().find((d) => d.category === ts.DiagnosticCategory.Error);
                if (found !== undefined) {
                    return describeDiagnostic(ts, found, path.basename(filename));
                }
            }
            return undefined;
        } finally {
            this.current.name = '';
            this.current.text = '';
        }
    }
}

// -- the warm server -----------------------------------------------------------------------------

/**
 * Many runs in one process: startup, the compiler and the library declarations are paid once.
 * Each run gets a fresh worker; afterwards the private /tmp of the sandbox is emptied here
 * (--clean-tmp) and the scratch folder (this process's working folder) by the caller.
 */
async function serve(tools, options) {
    const out = (text) => writeAll(1, text);
    const tmp = options.cleanTmp ? new TmpFolder(require('os').tmpdir()) : undefined;
    warmUp(tools, options);
    const workers = new Workers(true, true);
    await runInThread(';__simpilot_warm();\n', path.join(process.cwd(), 'warm-up.js'), '__simpilot_warm', quietOutput(), workers);
    out('SIMPILOT-READY\n');
    const readline = require('readline');
    const requests = readline.createInterface({ input: process.stdin, crlfDelay: Infinity });
    for await (const line of requests) {
        let request;
        let status = 2;
        let restart = '';
        const forward = forwardedOutput(out);
        try {
            request = parseArguments(line.split('\t'));
        } catch (err) {
            out(`SIMPILOT-USAGE ${err.message}\n`);
            out('SIMPILOT-EXIT  2\n');
            continue;
        }
        const token = request.token;
        const merged = { ...options, ...request, serve: false };
        const lines = [];
        try {
            const source = Buffer.from(request.source64 || '', 'base64').toString('utf8');
            status = await runOnce(tools, workers, merged, source, token, (text) => lines.push(text), forward);
        } catch (err) {
            forward.write(`${err && err.stack ? err.stack : err}\n`);
            lines.push(`${token}\t${JSON.stringify({ event: 'error', message: `the launcher failed: ${describeError(err)}` })}\n`);
            restart = 'the launcher failed';
        }
        forward.finish();
        if (tmp !== undefined && !tmp.clean()) {
            restart = 'a run left files in /tmp that cannot be deleted';
        }
        out(lines.join(''));
        if (restart) out(`SIMPILOT-RESTART ${restart}\n`);
        out(`SIMPILOT-EXIT ${token} ${status}\n`);
    }
}

/** Load the compiler and parse the declarations once, before the first run. */
function warmUp(tools, options) {
    if (!options.typescript) return;
    const probe = path.join(process.cwd(), 'simpilot-warm-up.ts');
    tools.checker().firstError(probe, "import * as fs from 'fs';\nconst n: number = fs.existsSync('.') ? 1 : 0;\nconsole.log(n);\n");
    tools.typescript().transpileModule('export const x = 1;', { compilerOptions: tools.emitOptions() });
}

/** The program's output, forwarded as whole lines while it runs (a timed-out run keeps its tail). */
function forwardedOutput(out) {
    let pending = '';
    const emit = (text) => {
        pending += text;
        const end = pending.lastIndexOf('\n');
        if (end < 0) {
            if (pending.length > MAX_LINE) {
                out(`${pending.slice(0, MAX_LINE)}\n`);
                pending = '';
            }
            return;
        }
        const complete = pending.slice(0, end + 1);
        pending = pending.slice(end + 1);
        out(complete.split('\n').map((l) => (l.length > MAX_LINE ? l.slice(0, MAX_LINE) : l)).join('\n'));
    };
    return {
        stdout: true,
        write: emit,
        attach: (worker) => {
            worker.stdout.setEncoding('utf8');
            worker.stderr.setEncoding('utf8');
            worker.stdout.on('data', emit);
            worker.stderr.on('data', emit);
        },
        finish: () => {
            if (pending) {
                out(`${pending}\n`);
                pending = '';
            }
        },
    };
}

function quietOutput() {
    return { stdout: true, write: () => {}, attach: (w) => { w.stdout.resume(); w.stderr.resume(); }, finish: () => {} };
}

function writeAll(fd, text) {
    const buffer = Buffer.from(text, 'utf8');
    let offset = 0;
    while (offset < buffer.length) {
        try {
            offset += fs.writeSync(fd, buffer, offset);
        } catch (err) {
            if (err.code !== 'EAGAIN') throw err;
        }
    }
}

/**
 * The sandbox's private /tmp as it was before any run: bubblewrap's mount points (the scratch
 * folder and the files bound read-only, when they live under /tmp), the folders leading to them,
 * and their permissions. After each run what the run added goes and the permissions come back;
 * what cannot be put back (a folder renamed) gets this server replaced.
 */
class TmpFolder {
    constructor(root) {
        this.root = root;
        this.device = fs.lstatSync(root).dev;
        this.kept = new Map([[root, fs.lstatSync(root).mode & 0o7777]]);
        this.walk(root, (entry, info) => {
            this.kept.set(entry, info.mode & 0o7777);
            return true;
        });
    }

    /** Visit each path below `folder` on /tmp's own file system (mount points are not entered);
     * a folder is entered when `visit` says so. */
    walk(folder, visit) {
        let entries = [];
        try {
            entries = fs.readdirSync(folder);
        } catch (_) {
            return;
        }
        for (const name of entries) {
            const entry = path.join(folder, name);
            let info;
            try {
                info = fs.lstatSync(entry);
            } catch (_) {
                continue;
            }
            if (info.dev === this.device && visit(entry, info) && info.isDirectory()) this.walk(entry, visit);
        }
    }

    /** Put /tmp back as it was; whether that worked. */
    clean() {
        let clean = true;
        for (const [entry, mode] of this.kept) {
            try {
                if ((fs.lstatSync(entry).mode & 0o7777) !== mode) fs.chmodSync(entry, mode);
            } catch (_) {
                clean = false;
            }
        }
        const added = [];
        this.walk(this.root, (entry) => {
            if (this.kept.has(entry)) return true;
            added.push(entry);
            return false;
        });
        for (const entry of added) {
            try {
                openUp(entry);
                fs.rmSync(entry, { recursive: true, force: true });
            } catch (_) {
                clean = false;
            }
        }
        return clean;
    }
}

/** Give back to the owner the folders below `entry` a run closed (chmod 0), so they can go. */
function openUp(entry) {
    const info = fs.lstatSync(entry);
    if (!info.isDirectory()) return;
    fs.chmodSync(entry, 0o700);
    for (const name of fs.readdirSync(entry)) openUp(path.join(entry, name));
}

// -- start (last: the classes above are defined by now) -----------------------------------------

main(process.argv.slice(2)).catch((err) => {
    process.stderr.write(`simpilot node launcher: ${err && err.stack ? err.stack : err}\n`);
    process.exitCode = 2;
});
