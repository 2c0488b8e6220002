// The evidence plugin's public module: the service other plugins (cases, the console) use, its
// token and types, the pack verifier (the gateway's `filigrane evidence verify`), the event.
export { evidencePlugin } from './evidence.plugin.js';
export { EVIDENCE_SERVICE, type EvidenceService, type EvidencePackSummary, type EvidencePackStatus } from './evidence-service.js';
export { verifyWacz, type WaczVerification, type VerifyOptions } from './wacz-verify.js';
export { EvidencePackType } from './evidence.resolver.js';
export { EvidenceCapturedEvent } from './evidence-events.resolver.js';

declare module '@filigrane/core' {
  interface EventPayloads {
    /** An evidence pack was built (or could not be): its id, state, sha256 and size, and the matches it covers. */
    'evidence.captured': { id: string; status: 'complete' | 'failed'; match_ids: string[]; sha256: string | null; size: number | null; url: string; error: string | null };
  }
}
