import type { Container } from 'inversify';
import { ACCOUNT_DELETED_HOOKS, CORE_SETTINGS, TOKENS, type AccountLifecycle, type ExtensionRegistry, type Fetcher, type SettingValues } from '@filigrane/core';
import { safeFetch } from '@filigrane/net';
import type { OutboxEventBus } from '../events/outbox-event-bus.js';

/** The platform's fetcher token: @filigrane/net's safeFetch with the operator's FETCH_ALLOW_HOSTS applied. */
export function platformFetcher(container: Container): Fetcher {
  const settings = () => container.get<SettingValues<typeof CORE_SETTINGS.specs>>(CORE_SETTINGS.token);
  return {
    async fetch(url, options = {}) {
      const res = await safeFetch(url, { ...options, allowHosts: [...settings().fetchAllowHosts] });
      return { url: res.url, status: res.status, contentType: res.contentType, body: res.body };
    },
  };
}

/**
 * Runs every contributed account-deleted hook in plugin load order (the first failure stops it), then
 * drops the account's events from the platform's outbox (after the hooks, which might still publish).
 */
export function accountLifecycle(container: Container, extensions: ExtensionRegistry): AccountLifecycle {
  return {
    async accountDeleted(accountId) {
      for (const hook of extensions.get(ACCOUNT_DELETED_HOOKS)) await hook(accountId);
      await container.get<OutboxEventBus>(TOKENS.Events).forgetAccount(accountId);
    },
  };
}

export function bindPlatformServices(container: Container, extensions: ExtensionRegistry): void {
  container.bind(TOKENS.Fetcher).toConstantValue(platformFetcher(container));
  container.bind(TOKENS.AccountLifecycle).toConstantValue(accountLifecycle(container, extensions));
}
