import { spawn } from 'node:child_process';
import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** Runs a command to its end; rejects with its output's tail when it fails. Returns seconds taken. */
export function run(command: string, args: string[], cwd: string, env: Record<string, string | undefined> = {}): Promise<number> {
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output = (output + d.toString()).slice(-20_000)));
    child.stderr.on('data', (d: Buffer) => (output = (output + d.toString()).slice(-20_000)));
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve((Date.now() - started) / 1000) : reject(new Error(`${command} ${args.join(' ')} in ${cwd} exited ${code}:\n${output.slice(-6000)}`))));
  });
}

/** Copies an example package (sources, tsconfig, package.json) out of the checkout, with its Filigrane packages from the tarballs. */
export function copyExample(from: string, to: string, tarballs: Record<string, string>): void {
  for (const entry of ['src', 'test', 'tsconfig.json', 'package.json', 'README.md']) {
    try {
      cpSync(join(from, entry), join(to, entry), { recursive: true });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    }
  }
  const file = join(to, 'package.json');
  const pkg = JSON.parse(readFileSync(file, 'utf8')) as { devDependencies?: Record<string, string> };
  for (const name of Object.keys(pkg.devDependencies ?? {})) if (tarballs[name]) pkg.devDependencies![name] = `file:${tarballs[name]}`;
  writeFileSync(file, JSON.stringify(pkg, null, 2) + '\n');
}
