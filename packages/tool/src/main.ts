#!/usr/bin/env node
import { run } from './cli';

run(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    process.stderr.write(`internal error: ${String(err)}\n`);
    process.exitCode = 1;
  },
);
