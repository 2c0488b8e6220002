/**
 * Internal API: p-values and scores. Import it as '@filigrane/watermark/internal' from benchmarks
 * and logs only; nothing here may reach a REST, GraphQL or CSV output.
 */
export { analyseDetection, log10PValueForKey } from './detect';
export type { AnalyseOptions, DetectionAnalysis, DetectionMode, HypothesisFeatures, ModeOutcome } from './detect';
export { log10PValue, logIncompleteBetaSeries, logGamma, logBeta, normalisedCorrelation, bonferroniLog10 } from './p-value';
export { gaussianCarrier } from './carrier';
export { bandIndices, bandColumns } from './band';
export { dct2d, idct2d } from './dct';
export { fft } from './fft';
export { canonicalPattern } from './pattern';
export { codecSampleBands, lastEmbedStages, lastEmbedTimeline } from './embed';
