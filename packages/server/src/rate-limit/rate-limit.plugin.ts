import { ContainerModule } from 'inversify';
import { definePlugin, TOKENS } from '@filigrane/core';
import { RateLimitInit1763700000000 } from './rate-limit.migration.js';
import { RateLimiter } from './rate-limiter.service.js';

/** Built into the gateway: the request windows behind the X-RateLimit-* headers and 429. */
export const rateLimitPlugin = definePlugin({
  id: 'rate-limit',
  migrations: [RateLimitInit1763700000000],
  bindings: new ContainerModule(({ bind }) => {
    bind(RateLimiter).toSelf().inSingletonScope();
    bind(TOKENS.RateLimiter).toService(RateLimiter);
  }),
  jobs: (container) => [
    {
      queue: 'rate-limit.purge',
      schedule: '*/10 * * * *',
      handler: () => container.get(RateLimiter).purge(),
    },
  ],
});
