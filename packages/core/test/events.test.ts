import test from 'ava';
import { EventBus, type DomainEvent } from '../src/index.js';

test('every listener receives the stamped event; a failing listener is logged and the others still run', async (t) => {
  const seen: DomainEvent[] = [];
  const logs: string[] = [];
  const bus = new EventBus(
    () => [
      () => {
        throw new Error('boom');
      },
      (e) => {
        seen.push(e);
      },
    ],
    (m) => logs.push(m),
  );
  await bus.publish({ type: 'match.created', accountId: 7, data: { id: '1' } });
  t.is(seen.length, 1);
  t.is(seen[0]!.accountId, 7);
  t.true(seen[0]!.occurredAt instanceof Date);
  t.regex(logs[0]!, /match\.created: boom/);
});
