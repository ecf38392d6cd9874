'use strict';
/*
 * The worker of simpilot's node launcher (node_launcher.js): it becomes the program. Its own file,
 * kept small, so that a worker loads nothing but what the program needs: node's start-up of a
 * worker is most of what a warm run costs, and anything more loaded here is loaded for every run.
 *
 * Booted ahead of its run (the warm server keeps one spare), the worker waits for the program,
 * then becomes it; until then it has run nothing but this file. The launcher's main thread reads
 * the run's shared state (an Int32Array) when the worker has ended, at the slots exported here.
 */

const threads = require('worker_threads');

// Slots of the run's shared state (the worker writes them, the launcher's main thread reads them)
const COMPLETED = 0; // the marker after the last statement ran
const EXITED = 1; // process.exit was called
const EXIT_ARG = 2; // with this code
const DRAINED = 3; // 'beforeExit' fired: the event loop emptied

/** Wait for the program, then become it. */
function awaitProgram() {
    threads.parentPort.once('message', (data) => {
        threads.parentPort.unref(); // the program's own work, not this port, keeps the worker alive from here
        runInWorker(data);
    });
}

function runInWorker(data) {
    const Module = require('module');
    const path = require('path');
    const state = new Int32Array(data.state);
    // The program runs as node's main module would: what it asks worker_threads about itself says so.
    const asMain = Object.assign(Object.create(null), threads, {
        isMainThread: true,
        parentPort: null,
        workerData: null,
        threadId: 0,
    });
    const realLoad = Module._load;
    Module._load = function load(request, parent, isMain) {
        if (request === 'worker_threads' || request === 'node:worker_threads') {
            return asMain;
        }
        return realLoad.call(this, request, parent, isMain);
    };
    const realExit = process.exit;
    process.exit = function exit(code) {
        if (Atomics.compareExchange(state, EXITED, 0, 1) === 0) {
            const value = code === undefined ? process.exitCode : code;
            Atomics.store(state, EXIT_ARG, Number.isInteger(Number(value)) ? Number(value) : 0);
        }
        return realExit.apply(process, arguments);
    };
    process.on('beforeExit', () => Atomics.store(state, DRAINED, 1));
    Object.defineProperty(globalThis, data.marker, {
        value: () => Atomics.store(state, COMPLETED, 1),
        enumerable: false,
        configurable: true,
        writable: false,
    });
    const filename = data.filename;
    process.argv = [process.execPath, filename];
    const program = new Module(filename, null);
    program.filename = filename;
    program.paths = Module._nodeModulePaths(path.dirname(filename));
    Module._cache[filename] = program;
    process.mainModule = program;
    program._compile(data.code, filename);
    program.loaded = true;
}

if (!threads.isMainThread && threads.workerData && threads.workerData.simpilotWorker) {
    awaitProgram();
}

module.exports = { COMPLETED, EXITED, EXIT_ARG, DRAINED };
