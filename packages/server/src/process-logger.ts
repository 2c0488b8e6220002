import { hostname } from 'node:os';
import pino, { type Logger as PinoLogger } from 'pino';
import type { Logger, LoggerFactory } from '@filigrane/core';

/** The log of a `start` or `worker` process: JSON lines on standard output at LOG_LEVEL, like the request log. */
export function processLogger(level: string, role: string): PinoLogger {
  // The machine's name as on the request log's lines: on several machines a pid alone names no process.
  return pino({ level, base: { pid: process.pid, hostname: hostname(), role } });
}

/** Plugins' loggers on the process log, each line at its level with its scope (`crawler`, `search.run`). */
export function pinoLoggerFactory(root: PinoLogger): LoggerFactory {
  const make = (scope: string): Logger => {
    const log = root.child({ scope });
    return {
      info: (message) => log.info(message),
      warn: (message) => log.warn(message),
      // The error's message and stack (where it was thrown), never its other properties.
      // (A null prototype: pino's error serializer names a plain object's type "Object", not the error's.)
      error: (message, err) => (err instanceof Error ? log.error({ err: Object.assign(Object.create(null) as object, { name: err.name, message: err.message, stack: err.stack }) }, message) : log.error(message)),
      child: (child) => make(`${scope}.${child}`),
    };
  };
  return { for: make };
}
