import { definePlugin, TOKENS } from '@filigrane/core';
import { EventOutbox1764300000000 } from './event-outbox.migration.js';
import { EVENTS_QUEUE, OutboxEventBus } from './outbox-event-bus.js';

/**
 * Built into the gateway: the event outbox's table and its delivery job. A delivery job is sent
 * after each commit that enqueued events; the schedule (every minute) and the one sent at start
 * deliver what a process that died between its commit and that send left behind.
 */
export const eventOutboxPlugin = definePlugin({
  id: 'event-outbox',
  migrations: [EventOutbox1764300000000],
  jobs: (c) => [
    {
      queue: EVENTS_QUEUE,
      schedule: '* * * * *',
      pollingIntervalSeconds: 0.5,
      handler: async () => {
        const bus = c.get<OutboxEventBus>(TOKENS.Events);
        await bus.deliverPending();
        await bus.scheduleRetry();
        await bus.purge();
      },
    },
  ],
  async onStart({ container }) {
    await container.get<OutboxEventBus>(TOKENS.Events).flush();
  },
});
