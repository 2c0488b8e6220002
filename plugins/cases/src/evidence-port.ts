// TEMPORARY (until 21-evidence's public module lands on main): the evidence plugin's interface, as
// its branch defines it (GUIDE.md's contract). Replaced by an import from '@filigrane/plugin-evidence'.
export const EVIDENCE_SERVICE = Symbol.for('filigrane.evidence.service');

export type EvidencePackStatus = 'pending' | 'complete' | 'failed';

export interface EvidencePackSummary {
  id: string;
  sha256: string | null;
  size: number | null;
  matchIds: string[];
  createdAt: Date;
  completedAt: Date | null;
  status: EvidencePackStatus;
  error: string | null;
}

export interface EvidenceService {
  capture(accountId: number, matchIds: string[]): Promise<{ id: string }>;
  get(accountId: number, packId: string): Promise<EvidencePackSummary | null>;
}
