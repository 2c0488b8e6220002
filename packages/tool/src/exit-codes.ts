/** Exit codes of filigrane-mark; documented in docs/tool.md and in --help. */
export const ExitCode = {
  ok: 0,
  internal: 1,
  usage: 2,
  inputUnreadable: 3,
  inputUnsupported: 4,
  outputFormatMismatch: 5,
  invalidKey: 6,
  outputPath: 7,
  writeFailed: 8,
} as const;

export type ExitCodeValue = (typeof ExitCode)[keyof typeof ExitCode];

/** A precondition failure: message for stderr and the exit code. */
export class ToolError extends Error {
  constructor(
    readonly exitCode: ExitCodeValue,
    message: string,
  ) {
    super(message);
  }
}
