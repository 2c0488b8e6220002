import type { Container } from 'inversify';
import { ACCOUNT_DELETED_HOOKS, CORE_SETTINGS, TOKENS, type AccountLifecycle, type ExtensionRegistry, type Fetcher, type SettingValues } from '@filigrane/core';
import { safeFetch } from '@filigrane/net';

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

/** Runs every contributed account-deleted hook in plugin load order; the first failure stops it. */
export function accountLifecycle(extensions: ExtensionRegistry): AccountLifecycle {
  return {
    async accountDeleted(accountId) {
      for (const hook of extensions.get(ACCOUNT_DELETED_HOOKS)) await hook(accountId);
    },
  };
}

export function bindPlatformServices(container: Container, extensions: ExtensionRegistry): void {
  container.bind(TOKENS.Fetcher).toConstantValue(platformFetcher(container));
  container.bind(TOKENS.AccountLifecycle).toConstantValue(accountLifecycle(extensions));
}
