import test from 'ava';
import { execFile } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';

// The import-boundary lint (`npm run lint`, .dependency-cruiser.cjs) must fail on a violation, not only pass
// on a clean tree: fixture plugins that break each rule are linted and the run must fail naming the rule.
// It needs no database: it runs in the embedded suite only (not again when DATABASE_URL is set).
const run = process.env.DATABASE_URL ? test.serial.skip : test.serial;
const root = join(__dirname, '..', '..', '..');
const exec = promisify(execFile);

async function lint(files: Record<string, string>, top: 'plugins' | 'packages' | 'examples' = 'plugins'): Promise<{ code: number; output: string }> {
  const dir = join(root, top, `.lint-fixture-${process.pid}`);
  rmSync(dir, { recursive: true, force: true });
  try {
    for (const [name, source] of Object.entries(files)) {
      mkdirSync(join(dir, name, '..'), { recursive: true });
      writeFileSync(join(dir, name), source);
    }
    const args = ['depcruise', '--config', '.dependency-cruiser.cjs', '--output-type', 'err', join(top, `.lint-fixture-${process.pid}`)];
    try {
      const { stdout, stderr } = await exec('npx', args, { cwd: root, timeout: 60_000 });
      return { code: 0, output: stdout + stderr };
    } catch (err) {
      const e = err as { code?: number; stdout?: string; stderr?: string };
      return { code: typeof e.code === 'number' ? e.code : 1, output: `${e.stdout ?? ''}${e.stderr ?? ''}` };
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

run('importing another plugin through its public module passes the lint', async (t) => {
  const r = await lint({ 'src/good.ts': `import { MEDIA_EVENTS } from '@filigrane/plugin-media';\nexport const point = MEDIA_EVENTS;\n` });
  t.is(r.code, 0, r.output);
});

run("importing another plugin's entity fails the lint", async (t) => {
  const r = await lint({ 'src/bad.ts': `import { Media } from '../../media/src/media.entity.js';\nexport const entity = Media;\n` });
  t.not(r.code, 0);
  t.regex(r.output, /plugin-internals: plugins\/\.lint-fixture-\d+\/src\/bad\.ts → plugins\/media\/src\/media\.entity\.ts/);
});

run("a deep import of another plugin's built files fails the lint", async (t) => {
  const r = await lint({ 'test/deep.ts': `import { blobKeys } from '@filigrane/plugin-media/dist/src/media.service.js';\nexport const keys = blobKeys;\n` });
  t.not(r.code, 0);
  t.regex(r.output, /plugin-internals: .*deep\.ts → plugins\/media\/dist\/src\/media\.service\.js/);
});

run('a public module exporting an entity fails the lint', async (t) => {
  const r = await lint({
    'src/thing.entity.ts': `export class Thing { id!: number; }\n`,
    'src/index.ts': `export { Thing } from './thing.entity.js';\n`,
  });
  t.not(r.code, 0);
  t.regex(r.output, /public-module-exports-entity: .*src\/index\.ts → .*src\/thing\.entity\.ts/);
});

run('a plugin test importing the gateway fails the lint (tests boot servers with @filigrane/testing)', async (t) => {
  const r = await lint({ 'test/boot.test.ts': `import { defaultPlugins } from '@filigrane/gateway';\nexport const all = defaultPlugins;\n` });
  t.not(r.code, 0);
  t.regex(r.output, /plugin-imports-gateway: .*test\/boot\.test\.ts → gateway\/dist\/src\/index\.js/);
});

run('a package importing the gateway or a plugin fails the lint (the test kit stays below them)', async (t) => {
  const r = await lint(
    {
      'src/kit.ts': `import { defaultPlugins } from '@filigrane/gateway';\nimport { accountPlugin } from '@filigrane/plugin-account';\nexport const all = [defaultPlugins, accountPlugin];\n`,
    },
    'packages',
  );
  t.not(r.code, 0);
  t.regex(r.output, /package-imports-gateway: packages\/\.lint-fixture-\d+\/src\/kit\.ts → gateway\/dist\/src\/index\.js/);
  t.regex(r.output, /package-imports-plugin: packages\/\.lint-fixture-\d+\/src\/kit\.ts → plugins\/account\/dist\/src\/index\.js/);
});

run("a third-party plugin (examples/) reaching past the plugin API fails the lint; the API and the kit pass", async (t) => {
  const bad = await lint({ 'src/reach.ts': `import { SecretBox } from '@filigrane/core';\nimport { blobKeys } from '@filigrane/plugin-media/dist/src/media.service.js';\nexport const x = [SecretBox, blobKeys];\n` }, 'examples');
  t.not(bad.code, 0);
  t.regex(bad.output, /third-party-internals: examples\/\.lint-fixture-\d+\/src\/reach\.ts → packages\/core\//);
  t.regex(bad.output, /third-party-internals: .*reach\.ts → plugins\/media\/dist\/src\/media\.service\.js/);
  const good = await lint({ 'test/good.ts': `import { TOKENS } from '@filigrane/plugin-api';\nimport { startTestServer } from '@filigrane/testing';\nexport const x = [TOKENS, startTestServer];\n` }, 'examples');
  t.is(good.code, 0, good.output);
});
