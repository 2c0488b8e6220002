export { casesPlugin, casesPlugin as default } from './cases.plugin.js';
export { CASE_EVENTS, type CaseEventData } from './cases.events.js';
export { CASE_STATES, RESOLUTIONS, type CaseState, type Resolution } from './case-states.js';
export { CaseType, CaseMatchType, CaseEvidenceType, CaseHistoryType, CaseActorType, TakedownNoticeType } from './cases.resolver.js';
export { CaseEvent, CaseChangeType, CaseEventKind } from './case-events.resolver.js';
