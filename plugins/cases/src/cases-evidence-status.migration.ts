import type { MigrationInterface, QueryRunner } from '@filigrane/plugin-api';

/** An attached pack's state as the evidence plugin reports it (pending, complete, failed) and why it failed. */
export class CasesEvidenceStatus1795643406196 implements MigrationInterface {
  name = 'CasesEvidenceStatus1795643406196';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE cases_evidence ADD COLUMN status text NOT NULL DEFAULT 'complete', ADD COLUMN error text`);
    await q.query('CREATE INDEX cases_evidence_pack ON cases_evidence (account_id, pack_id)');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP INDEX cases_evidence_pack');
    await q.query('ALTER TABLE cases_evidence DROP COLUMN status, DROP COLUMN error');
  }
}
