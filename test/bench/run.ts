// `npm run bench -- <name> [args]`: runs test/bench/<name>.bench.ts, which exports run(args).
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

async function main(): Promise<void> {
  const [name, ...args] = process.argv.slice(2);
  const available = readdirSync(__dirname)
    .filter((f) => f.endsWith('.bench.js'))
    .map((f) => f.replace(/\.bench\.js$/, ''));
  const names = name ? [name] : available;
  for (const n of names) {
    const file = join(__dirname, `${n}.bench.js`);
    if (!/^[a-z0-9-]+$/.test(n) || !existsSync(file)) {
      console.error(`unknown benchmark "${n}"; available: ${available.join(', ')}`);
      process.exitCode = 2;
      return;
    }
    const mod = (await import(file)) as { run(args: string[]): Promise<void> };
    console.log(`== bench ${n}`);
    await mod.run(args);
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
