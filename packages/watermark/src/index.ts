export * from './errors';
export { generateKey, MEDIA_KEY_BYTES, type MediaKey } from './key';
export { embed, embedRaw, type EmbedOptions, type EmbedReport, type EmbedResult, type EmbedRawResult } from './embed';
export {
  detect,
  detectAmong,
  orbOfReduced,
  DEFAULT_THRESHOLD,
  type DetectOptions,
  type DetectionResult,
  type DetectionDiagnostics,
  type DetectionReference,
} from './detect';
export { pixelHash } from './pixel-hash';
export { ALGORITHM_VERSION, DEFAULTS, canonicalGrid, type EmbeddingParams } from './params';
export type { Registration, ReducedOriginal, RegistrationMode } from './registration';
export {
  encodeLmk,
  decodeLmk,
  readLmkHeader,
  accountKeyFingerprint,
  assertAccountPublicKey,
  LMK_MEDIA_TYPE,
  LMK_VERSION,
  type LmkHeader,
} from './lmk-format';
export { prepareQuery, PreparedQuery, type GeometricModel } from '@filigrane/vision';
