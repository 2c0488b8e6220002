import type { Container } from 'inversify';
import type { JobSpec } from '@filigrane/core';
import { DELIVER_QUEUE, SWEEP_QUEUE, WebhookDeliveryService, type DeliverJob } from './webhook-delivery.service.js';
import { WEBHOOKS_SETTINGS, type WebhooksSettings } from './webhooks.settings.js';

export function webhookJobs(container: Container): JobSpec<never>[] {
  const service = container.get(WebhookDeliveryService);
  const settings = container.get<WebhooksSettings>(WEBHOOKS_SETTINGS.token);
  const deliver: JobSpec<DeliverJob> = {
    queue: DELIVER_QUEUE,
    handler: (job) => service.deliver(job.deliveryId),
    concurrency: settings.concurrency,
    pollingIntervalSeconds: 0.5,
  };
  const sweep: JobSpec<object> = { queue: SWEEP_QUEUE, schedule: '* * * * *', handler: async () => void (await service.sweep()) };
  return [deliver, sweep] as JobSpec<never>[];
}
