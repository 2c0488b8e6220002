// TEMPORARY stand-in for the review plugin (21-review), until it lands on main: states in memory,
// `match.reviewed` through the outbox. Deleted when the real plugin is merged.
import { ContainerModule, definePlugin, TOKENS, type EventPublisher, type Principal } from '@filigrane/plugin-api';
import { REVIEW_SERVICE } from '../../src/review-port.js';

const states = new Map<string, { state: string; licenseId: null; changedAt: Date }>();

export const reviewStandIn = definePlugin({
  id: 'review',
  pluginApi: '^1.2.0',
  requires: ['matches'],
  bindings: new ContainerModule(({ bind }) => {
    bind(REVIEW_SERVICE).toDynamicValue((ctx) => {
      const events = ctx.get<EventPublisher>(TOKENS.Events);
      return {
        async states(accountId: number, ids: string[]) {
          return new Map(ids.map((id) => [id, states.get(`${accountId}:${id}`) ?? { state: 'new', licenseId: null, changedAt: new Date() }]));
        },
        async setState(p: Principal, ids: string[], state: string) {
          for (const id of ids) {
            states.set(`${p.accountId}:${id}`, { state, licenseId: null, changedAt: new Date() });
            await events.publish({ type: 'match.reviewed', accountId: p.accountId, data: { id, state } });
          }
        },
      };
    });
  }),
});
