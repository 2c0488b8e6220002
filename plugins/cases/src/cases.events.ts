// The payloads of the events this plugin publishes (through the outbox), typed for listeners.
export interface CaseEventData {
  id: string;
  title: string;
  site: string | null;
  state: 'open' | 'notice_sent' | 'resolved' | 'closed';
  resolution: 'removed' | 'licensed_afterwards' | 'paid' | null;
  match_ids: string[];
  /** What changed: `action` (opened, transition, notice_sent, matches_added...), states, actor, note, and what it touched. */
  change: Record<string, unknown> & { action: string };
}

export const CASE_EVENTS = ['case.opened', 'case.updated'] as const;

declare module '@filigrane/core' {
  interface EventPayloads {
    'case.opened': CaseEventData;
    'case.updated': CaseEventData;
  }
}
