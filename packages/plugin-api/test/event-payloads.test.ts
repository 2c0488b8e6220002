import test from 'ava';
import { onEvent, type DomainEvent, type TypedEvent } from '../src/index.js';

// An outside plugin declares its events on the package it depends on, @filigrane/plugin-api (not on
// @filigrane/core, which it does not list): the augmentation reaches the interface the API re-exports.
// This file compiling is half the test: the payload below is typed from it.
declare module '../src/index.js' {
  interface EventPayloads {
    'probe-feed.checked': { feedId: number; images: number };
  }
}

test('events declared on @filigrane/plugin-api type their listeners (onEvent)', async (t) => {
  const seen: number[] = [];
  const listener = onEvent('probe-feed.checked', (event: TypedEvent<'probe-feed.checked'>) => {
    const feedId: number = event.data.feedId; // typed by the declaration above
    seen.push(feedId);
  });
  // @ts-expect-error an event nobody declared is refused at compile time
  onEvent('probe-feed.nope', () => undefined);
  const event = (type: string, data: object): DomainEvent => ({ type, accountId: 1, data: data as Record<string, unknown>, occurredAt: new Date() });
  await listener(event('probe-feed.checked', { feedId: 7, images: 2 }));
  await listener(event('match.created', { feedId: 8 }));
  t.deepEqual(seen, [7], 'only its own type reaches the handler');
});
