import { spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import test from 'ava';
import { cliEnv, startServer } from './cli-process.js';

/**
 * Issue 10 part 3: a first `filigrane start` with an empty tool folder builds the linux-x64 tool in
 * the background; meanwhile the download information says it is being built, then lists it, and
 * the file served runs. The one slow test of the suite (the build: about a minute on 2 cores).
 */
test('the first start builds the tool in the background; the download endpoint then serves it', async (t) => {
  t.timeout(10 * 60_000);
  const root = mkdtempSync(join(tmpdir(), 'filigrane-first-start-'));
  const toolDir = join(root, 'tool');
  const lines: string[] = [];
  let built!: () => void;
  let building!: () => void;
  const builtLine = new Promise<void>((r) => (built = r));
  const buildingLine = new Promise<void>((r) => (building = r));
  let keyed!: (key: string) => void;
  const demoKey = new Promise<string>((r) => (keyed = r));
  const t0 = Date.now();
  const server = await startServer(cliEnv(join(root, 'data'), { TOOL_DIR: toolDir, TOOL_BUILD: 'auto' }), (line) => {
    lines.push(line);
    const key = /API key: (\S+)/.exec(line);
    if (key) keyed(key[1]!);
    if (/Building the offline tool filigrane-mark-linux-x64 in the background/.test(line)) building();
    if (/Offline tool built|tool build failed|could not be built/.test(line)) built();
  });
  try {
    const apiKey = await demoKey; // printed after the listening line
    const get = (path: string) => fetch(`${server.url}${path}`, { headers: { authorization: `Token ${apiKey}` } });
    await buildingLine; // logged right after the listening line

    type Info = { software: Record<string, string>; building?: string[] };
    // The build process takes its lock a moment after the log line (its own Node start-up).
    let during: Info = { software: {} };
    for (let i = 0; i < 100 && !during.building; i++) {
      during = (await (await get('/api/v4/account/download/')).json()) as Info;
      if (!during.building) await new Promise((r) => setTimeout(r, 100));
    }
    t.deepEqual(during.software, {}, 'nothing half-built is listed');
    t.deepEqual(during.building, ['filigrane-mark-linux-x64']);
    const early = await get('/api/v4/account/download/software/filigrane-mark-linux-x64');
    t.is(early.status, 503);
    t.like(await early.json(), { code: 'tool_building' });

    await builtLine;
    t.log(`tool built ${((Date.now() - t0) / 1000).toFixed(0)} s after the start`);
    const after = (await (await get('/api/v4/account/download/')).json()) as Info;
    t.deepEqual(Object.keys(after.software), ['filigrane-mark-linux-x64'], lines.join('\n'));
    t.is(after.building, undefined);
    const res = await get(new URL(after.software['filigrane-mark-linux-x64']!, server.url).pathname);
    t.is(res.status, 200);
    const exe = join(root, 'filigrane-mark');
    writeFileSync(exe, Buffer.from(await res.arrayBuffer()));
    chmodSync(exe, 0o755);
    const run = spawnSync(exe, ['--version'], { env: { PATH: '/usr/bin:/bin', FILIGRANE_CACHE_DIR: join(root, 'cache') }, encoding: 'utf8' });
    t.is(run.status, 0, run.stderr);
    t.regex(run.stdout + run.stderr, /filigrane-mark.*\d+\.\d+\.\d+/, 'the downloaded file runs without Node');
    t.notRegex(run.stderr, /warning/i, 'and prints no runtime warning');
    t.deepEqual(readdirSync(toolDir).filter((n) => !n.startsWith('.')), ['filigrane-mark-linux-x64'], 'no work files left in the tool folder');
  } finally {
    await server.stop();
    rmSync(root, { recursive: true, force: true });
  }
});
