import { ACCOUNT_DELETED_HOOKS, ContainerModule, contribute, definePlugin, EVENT_LISTENERS, type DomainEvent } from '@filigrane/plugin-api';
import { WEBHOOK_EVENT_TYPES } from '@filigrane/plugin-webhooks';
import { CaseService } from './case.service.js';
import { CASE_EVENTS } from './cases.events.js';
import { CasesInit1795641910181 } from './cases.migration.js';
import { CasesEvidenceStatus1795643406196 } from './cases-evidence-status.migration.js';
import { CasesResolver } from './cases.resolver.js';
import { CaseEventsResolver } from './case-events.resolver.js';
import { caseRoutes } from './cases.routes.js';
import { NoticeService } from './notice.service.js';

/** The match ids a `match.reviewed` event names (one match, or a bulk change). */
function reviewedIds(event: DomainEvent): string[] {
  const d = event.data as { id?: unknown; match_id?: unknown; match_ids?: unknown };
  const ids = Array.isArray(d.match_ids) ? d.match_ids : [d.match_id ?? d.id];
  return ids.filter((x) => typeof x === 'string' || typeof x === 'number').map(String);
}

/**
 * Cases and takedown notices (issue 21 items 4 and 5): infringing matches grouped by site or by
 * hand, states open -> notice_sent -> resolved -> closed with their history, evidence packs by
 * reference, DMCA and DSA article 16 notices as text and PDF, mailed through notifications.
 */
export const casesPlugin = definePlugin({
  id: 'cases',
  pluginApi: '^1.4.0',
  requires: ['account', 'matches', 'notifications', 'review', 'evidence', 'webhooks'],
  migrations: [CasesInit1795641910181, CasesEvidenceStatus1795643406196],
  bindings: new ContainerModule(({ bind }) => {
    bind(CaseService).toSelf().inSingletonScope();
    bind(NoticeService).toSelf().inSingletonScope();
    bind(CasesResolver).toSelf().inSingletonScope();
  }),
  routes: caseRoutes,
  resolvers: [CasesResolver, CaseEventsResolver],
  contributions: [
    contribute(WEBHOOK_EVENT_TYPES, () => [...CASE_EVENTS]),
    contribute(EVENT_LISTENERS, (c) => (event: DomainEvent) => (event.type === 'match.reviewed' ? c.get(CaseService).onReviewed(event.accountId, reviewedIds(event)) : undefined)),
    contribute(EVENT_LISTENERS, (c) => (event: DomainEvent) => (event.type === 'evidence.captured' ? c.get(CaseService).onPackCaptured(event.accountId, String((event.data as { id?: unknown }).id ?? '')) : undefined)),
    contribute(ACCOUNT_DELETED_HOOKS, (c) => async (accountId: number) => {
      await c.get(NoticeService).forgetAccount(accountId);
      await c.get(CaseService).forgetAccount(accountId);
    }),
  ],
});
