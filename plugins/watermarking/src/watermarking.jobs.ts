import type { Container } from 'inversify';
import { isBlobStoreOutage, type JobSpec } from '@filigrane/core';
import { PURGE_QUEUE, WATERMARKING_QUEUE, WatermarkingService } from './watermarking.service.js';

/** Every 10 minutes: assets outlive their expiry date on disk by 10 minutes at most (clients get 404 at once). */
export const PURGE_SCHEDULE = '*/10 * * * *';

export function watermarkingJobs(container: Container): JobSpec<never>[] {
  const service = () => container.get(WatermarkingService);
  return [
    {
      queue: WATERMARKING_QUEUE,
      handler: (data: { id: string }) => service().run(data.id),
      // Its worker killed at every try (an image that exhausts memory), or the file store down
      // through every retry: the job says failed, not running forever.
      onFinalFailure: (data: { id: string }, failure) => service().abandon(data.id, isBlobStoreOutage(failure)),
    },
    { queue: PURGE_QUEUE, schedule: PURGE_SCHEDULE, handler: async () => void (await service().purgeExpired()) },
  ];
}
