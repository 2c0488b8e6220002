// Loaded by ava in every test worker (package.json "ava.require"). AVA waits for a worker to exit on
// its own once its tests are done; a handle a test leaves open (seen once: three sockets after the
// suite passed) would then hold CI until its time limit. Give the worker a grace period, then name
// what was left open and exit, so a leak is reported instead of hanging the run.
import { registerCompletionHandler } from 'ava';

const GRACE_MS = 15_000;

registerCompletionHandler(() => {
  setTimeout(() => {
    const open = process._getActiveHandles().map((h) => h?.constructor?.name ?? typeof h);
    process.stderr.write(`ava-exit-when-done: a test file left handles open after its tests finished (${open.join(', ')}); exiting the worker\n`);
    process.exit(0);
  }, GRACE_MS).unref();
});
