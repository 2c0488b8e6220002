/**
 * A plugin's logger: one line per call, prefixed with the plugin id (and the job queue in jobs).
 * Services get it from `TOKENS.Loggers.for('<plugin id>')`, jobs from `ctx.log`, hooks from `ctx.logger`.
 */
export interface Logger {
  info(message: string): void;
  warn(message: string): void;
  error(message: string, err?: unknown): void;
  /** A logger whose lines carry one more scope (`crawler` -> `crawler.frontier`). */
  child(scope: string): Logger;
}

export interface LoggerFactory {
  for(scope: string): Logger;
}

/** Lines to one sink (the gateway's log), each `[scope] message`; errors add their message, never a stack of secrets. */
export function prefixedLogger(sink: (line: string) => void, scope: string): Logger {
  return {
    info: (message) => sink(`[${scope}] ${message}`),
    warn: (message) => sink(`[${scope}] warning: ${message}`),
    error: (message, err) => sink(`[${scope}] error: ${message}${err instanceof Error ? `: ${err.message}` : ''}`),
    child: (child) => prefixedLogger(sink, `${scope}.${child}`),
  };
}

export const loggerFactory = (sink: (line: string) => void): LoggerFactory => ({ for: (scope) => prefixedLogger(sink, scope) });
