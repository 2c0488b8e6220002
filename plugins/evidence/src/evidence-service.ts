/** The token of the evidence service (EvidenceService), for other plugins: `@inject(EVIDENCE_SERVICE)`. */
export const EVIDENCE_SERVICE = Symbol.for('filigrane.evidence.service');

export type EvidencePackStatus = 'pending' | 'complete' | 'failed';

/** An evidence pack as other plugins see it (cases print its sha256 in notices). */
export interface EvidencePackSummary {
  id: string;
  /** SHA-256 (hex) of the WACZ file; null until the pack is complete. */
  sha256: string | null;
  /** Bytes of the WACZ file; null until the pack is complete. */
  size: number | null;
  /** v4 match ids (strings), in the order asked. */
  matchIds: string[];
  createdAt: Date;
  completedAt: Date | null;
  status: EvidencePackStatus;
  /** Why the pack failed; null otherwise. */
  error: string | null;
}

/** Evidence packs of an account: ask for one (built by a job), read it. */
export interface EvidenceService {
  /**
   * Queues a pack for these matches of the account (1 to 20 v4 match ids); an id that is not one of
   * the account's matches is a 400 (ApiError `invalid_matches`). The pack is built by a job.
   */
  capture(accountId: number, matchIds: string[]): Promise<{ id: string }>;
  /** The account's pack, or null (another account's pack is null too). */
  get(accountId: number, packId: string): Promise<EvidencePackSummary | null>;
}
