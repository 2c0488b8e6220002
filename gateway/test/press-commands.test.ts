import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import test from 'ava';
import { PDFDocument, StandardFonts } from 'pdf-lib';
import { cliEnv, runCli, startServer } from './cli-process.js';

/** The operator's press commands against a running server: grant press:ingest, ingest, wait. */
test('account grant and press ingest --wait go through the running server', async (t) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'filigrane-press-cli-'));
  const env = cliEnv(dataDir);
  const doc = await PDFDocument.create();
  doc.addPage([300, 300]).drawText('Edition du soir', { x: 20, y: 250, size: 14, font: await doc.embedFont(StandardFonts.Helvetica) });
  const pdf = join(dataDir, 'soir.pdf');
  writeFileSync(pdf, await doc.save());
  const server = await startServer(env);
  try {
    const created = await runCli(['account', 'create', '--username', 'desk', '--email', 'desk@example.com', '--json'], env);
    t.is(created.code, 0, created.stderr);
    const { api_key: key } = JSON.parse(created.stdout) as { api_key: string };
    const refused = await fetch(`${server.url}/api/v3/press/issues/`, { headers: { authorization: `Token ${key}` } });
    t.is(refused.status, 403);
    const granted = await runCli(['account', 'grant', '--username', 'desk', '--permission', 'press:ingest'], env);
    t.is(granted.code, 0, granted.stderr);
    t.is((await runCli(['press', 'ingest', pdf, '--name', 'Le Soir'], env)).code, 2, '--date is required');
    const ingested = await runCli(['press', 'ingest', pdf, '--name', 'Le Soir', '--date', '2026-11-22', '--wait', '--json'], env);
    t.is(ingested.code, 0, ingested.stderr);
    t.like(JSON.parse(ingested.stdout.trim().split('\n').pop()!), { name: 'Le Soir', date: '2026-11-22', origin: 'cli', status: 'complete', pages: { done: 1, total: 1 } });
    await new Promise((r) => setTimeout(r, 5500)); // API-key principals are cached 5 s
    const list = await fetch(`${server.url}/api/v3/press/issues/`, { headers: { authorization: `Token ${key}` } });
    t.is(list.status, 200);
    t.is(((await list.json()) as { count: number }).count, 1);
  } finally {
    t.is(await server.stop(), 0, server.output());
    rmSync(dataDir, { recursive: true, force: true });
  }
});
