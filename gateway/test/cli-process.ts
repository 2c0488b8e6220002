import { spawn, type ChildProcess } from 'node:child_process';
import { resolve } from 'node:path';

/** The `filigrane` command as users run it (gateway/bin/filigrane.js, built). */
export const CLI = resolve(__dirname, '..', '..', 'bin', 'filigrane.js');

/** Environment of a CLI process on the embedded database under `dataDir` (never DATABASE_URL). */
export function cliEnv(dataDir: string, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, DATA_DIR: dataDir, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'silent', TOOL_BUILD: 'off', ...extra };
  delete env.DATABASE_URL;
  delete env.FILIGRANE_MASTER_KEY;
  return env;
}

export interface Started {
  child: ChildProcess;
  url: string;
  output: () => string;
  /** SIGTERM, then the exit code. */
  stop(): Promise<number | null>;
}

/** `filigrane start`, resolved once it prints its URL (or rejected with its output if it exits first). */
export function startServer(env: NodeJS.ProcessEnv, onLine?: (line: string) => void, timeoutMs = 120_000): Promise<Started> {
  const child = spawn(process.execPath, [CLI, 'start'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  return new Promise((resolveStart, reject) => {
    const timer = setTimeout(() => reject(new Error(`no URL after ${timeoutMs} ms:\n${out}`)), timeoutMs);
    const take = (chunk: Buffer) => {
      const text = chunk.toString();
      out += text;
      for (const line of text.split('\n')) if (line) onLine?.(line);
      const m = /Filigrane listening on (http:\/\/\S+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolveStart({
          child,
          url: m[1]!,
          output: () => out,
          async stop() {
            if (child.exitCode === null) child.kill('SIGTERM');
            return exited;
          },
        });
      }
    };
    child.stdout!.on('data', take);
    child.stderr!.on('data', take);
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`filigrane start exited (${code}) before listening:\n${out}`));
    });
  });
}

/** Runs a CLI command to its end. */
export function runCli(args: string[], env: NodeJS.ProcessEnv, stdin?: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [CLI, ...args], { env, stdio: [stdin === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'] });
  if (stdin !== undefined) child.stdin!.end(stdin);
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (c: Buffer) => (stdout += c.toString()));
  child.stderr!.on('data', (c: Buffer) => (stderr += c.toString()));
  return new Promise((r) => child.once('exit', (code) => r({ code, stdout, stderr })));
}
