export { matchesPlugin } from './matches.plugin.js';
export { MatchRecorder, type MatchInput, type RecordedMatch } from './match-recorder.service.js';
export { MatchQueryService } from './match-query.service.js';
export { siteOf } from './site-info.js';
