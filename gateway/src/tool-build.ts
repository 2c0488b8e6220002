import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, openSync, closeSync, readFileSync } from 'node:fs';
import { setPriority } from 'node:os';
import { join } from 'node:path';
import { CHECKOUT, type GatewayConfig } from '@filigrane/server';

export const TOOL_NAME = 'filigrane-mark-linux-x64';
const BUILD_SCRIPT = join(CHECKOUT, 'packages', 'tool', 'scripts', 'build-sea.js');

export interface ToolBuild {
  /** Resolves when the build ends (true: the executable is in the tool folder). */
  done: Promise<boolean>;
  stop(): void;
}

/**
 * The offline tool on the first start: when the tool folder has no linux-x64 executable, builds it
 * in the background (packages/tool/scripts/build-sea.js, lowest CPU priority) so that the download
 * endpoint serves it about a minute later. TOOL_BUILD=off skips it (tests, servers that ship the
 * tool another way). Returns null when nothing is to be built.
 */
export function buildToolInBackground(config: GatewayConfig, log: (line: string) => void): ToolBuild | null {
  if (config.toolBuild === 'off' || process.platform !== 'linux' || process.arch !== 'x64') return null;
  const target = join(config.toolDir, TOOL_NAME);
  if (existsSync(target)) return null;
  if (!existsSync(BUILD_SCRIPT)) {
    log(`The offline tool is not in ${config.toolDir} and this installation cannot build it (no ${BUILD_SCRIPT}).`);
    return null;
  }
  mkdirSync(config.toolDir, { recursive: true });
  const logFile = join(config.toolDir, '.build.log');
  const out = openSync(logFile, 'w');
  const t0 = Date.now();
  let child: ChildProcess;
  try {
    child = spawn(process.execPath, [BUILD_SCRIPT, '--out', config.toolDir], { stdio: ['ignore', out, out] });
  } finally {
    closeSync(out);
  }
  if (child.pid) {
    try {
      setPriority(child.pid, 19); // the API keeps the CPU; the build takes what is left
    } catch {
      // not permitted here: the build runs at normal priority
    }
  }
  log(`Building the offline tool ${TOOL_NAME} in the background (about a minute; log ${logFile}); GET /api/v4/account/download/ lists it once built.`);
  const done = new Promise<boolean>((resolveDone) => {
    child.once('error', (err) => {
      log(`The offline tool could not be built: ${err.message}`);
      resolveDone(false);
    });
    child.once('exit', (code) => {
      const seconds = ((Date.now() - t0) / 1000).toFixed(0);
      if (code === 0 && existsSync(target)) log(`Offline tool built in ${seconds} s: ${target}`);
      else if (code === 3) log(`The offline tool is being built by another process (${logFile}).`);
      else log(`The offline tool build failed after ${seconds} s (exit ${code}): ${tail(logFile)}`);
      resolveDone(code === 0);
    });
  });
  return {
    done,
    stop() {
      if (child.exitCode === null) child.kill('SIGTERM');
    },
  };
}

function tail(file: string): string {
  try {
    return readFileSync(file, 'utf8').trim().split('\n').slice(-3).join(' | ');
  } catch {
    return '(no log)';
  }
}
