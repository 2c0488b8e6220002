import test from 'ava';
import type { Sighting } from '@filigrane/core';
import { startTestServer } from '@filigrane/testing';
import { MATCH_ROW_CONTRACT, MatchRecorder } from '@filigrane/plugin-matches';

// The contract the aggregations plugin's triggers rely on, held here by matches: the documented
// columns exist with their types, and a match write fires the statement triggers as documented
// (a new match: INSERT; a repeated sighting: UPDATE that keeps the grouping columns; a deleted media: DELETE).
test('the matches row contract: columns, types and the statements a match write fires', async (t) => {
  const server = await startTestServer({ plugins: ['matches'], workers: false });
  t.teardown(() => server.close());
  const db = server.app.dataSource;
  const columns: { column_name: string; data_type: string }[] = await db.query(
    `SELECT column_name, data_type FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = 'matches'`,
  );
  const types = Object.fromEntries(columns.map((c) => [c.column_name, c.data_type]));
  for (const [column, type] of Object.entries(MATCH_ROW_CONTRACT)) t.is(types[column], type, `matches.${column}`);

  // A probe trigger over the transition tables, as a consumer's trigger sees them.
  const cols = Object.keys(MATCH_ROW_CONTRACT).join(', ');
  await db.query(`CREATE TABLE contract_probe (op text, ${Object.entries(MATCH_ROW_CONTRACT).map(([c, ty]) => `${c} ${ty === 'ARRAY' ? 'integer[]' : ty}`).join(', ')})`);
  for (const [op, ref] of [['INSERT', 'NEW TABLE AS r'], ['UPDATE', 'NEW TABLE AS r'], ['DELETE', 'OLD TABLE AS r']] as const) {
    await db.query(`CREATE FUNCTION contract_probe_${op.toLowerCase()}() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN INSERT INTO contract_probe SELECT '${op}', ${cols} FROM (SELECT (x::matches).* FROM r x) m; RETURN NULL; END $$`);
    await db.query(`CREATE TRIGGER contract_probe_${op.toLowerCase()} AFTER ${op} ON matches REFERENCING ${ref} FOR EACH STATEMENT EXECUTE FUNCTION contract_probe_${op.toLowerCase()}()`);
  }

  const account = await server.createAccount('contract');
  const recorder = server.app.container.get(MatchRecorder);
  const s: Sighting = { accountId: account.id, source: 'test', kind: 'web', image: {}, imageUrl: 'https://img.example.com/a.jpg', page: { url: 'https://news.example.com/a' }, sessionId: 7, credit: 'Studio' };
  const input = { sighting: s, mediaId: null, kind: 'credit' as const, watermarked: false, exclusive: null, query: { width: 1, height: 1, format: 'jpeg' } };
  const first = await recorder.record(input);
  await recorder.record({ ...input, sighting: { ...s, sessionId: 8 } });
  const probe: Record<string, unknown>[] = await db.query('SELECT * FROM contract_probe');
  t.deepEqual(probe.map((r) => r.op), ['INSERT', 'UPDATE'], 'one statement per write: INSERT, then UPDATE for the repeated sighting');
  t.like(probe[0], { id: String(first.id), account_id: account.id, media_id: null, kind: 'credit', page_url: 'https://news.example.com/a', query_url: 'https://img.example.com/a.jpg', sessions: [7] });
  t.like(probe[1], { id: String(first.id), account_id: account.id, kind: 'credit', page_url: 'https://news.example.com/a', sessions: [7, 8] });
  t.true(probe.every((r) => r.site_id !== null && r.date_created instanceof Date && r.date_updated instanceof Date));

  await db.query('DELETE FROM matches WHERE id = $1', [first.id]);
  const after: { op: string }[] = await db.query('SELECT op FROM contract_probe');
  t.deepEqual(after.map((r) => r.op), ['INSERT', 'UPDATE', 'DELETE']);
});
