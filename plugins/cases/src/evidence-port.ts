// TEMPORARY (until 21-evidence's public module lands on main): the evidence plugin's interface as
// /work/notes/GUIDE.md defines it.
export const EVIDENCE_SERVICE = Symbol.for('filigrane.evidence.service');

export interface EvidencePackInfo {
  id: string;
  sha256: string;
  size: number;
  matchIds: string[];
  createdAt: Date;
  status: string;
}

export interface EvidenceService {
  capture(accountId: number, matchIds: string[]): Promise<{ id: string }>;
  get(accountId: number, packId: string): Promise<EvidencePackInfo | null>;
}
