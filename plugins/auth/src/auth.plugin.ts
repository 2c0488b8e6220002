import { ContainerModule } from 'inversify';
import { definePlugin, TOKENS } from '@filigrane/core';
import { AccessToken, Account, AccountPermission, ApiKey, OAuthApplication } from './auth.entities.js';
import { AuthAccountDirectory1764300001000, AuthInit1763700001000, AuthThrottle1764100002000 } from './auth.migration.js';
import { CredentialThrottle } from './credential-throttle.service.js';
import { ApiKeyService } from './api-key.service.js';
import { AuthenticatorService } from './authenticator.service.js';
import { IdentityService } from './identity.service.js';
import { OAuthResolver } from './oauth.resolver.js';
import { oauthRoutes } from './oauth.routes.js';
import { OAuthService } from './oauth.service.js';

/** Credentials: accounts as identities, API keys, OAuth applications and bearer tokens, permissions. */
export const authPlugin = definePlugin({
  id: 'auth',
  entities: [Account, ApiKey, OAuthApplication, AccessToken, AccountPermission],
  migrations: [AuthInit1763700001000, AuthThrottle1764100002000, AuthAccountDirectory1764300001000],
  bindings: new ContainerModule(({ bind }) => {
    bind(CredentialThrottle).toSelf().inSingletonScope();
    bind(IdentityService).toSelf().inSingletonScope();
    bind(ApiKeyService).toSelf().inSingletonScope();
    bind(OAuthService).toSelf().inSingletonScope();
    bind(AuthenticatorService).toSelf().inSingletonScope();
    bind(TOKENS.Authenticator).toService(AuthenticatorService);
  }),
  routes: oauthRoutes,
  resolvers: [OAuthResolver],
  jobs: (container) => [
    { queue: 'auth.purge-expired-tokens', schedule: '17 * * * *', handler: async () => void (await container.get(OAuthService).purgeExpired()) },
    { queue: 'auth.purge-throttle', schedule: '23 * * * *', handler: () => container.get(CredentialThrottle).purge() },
  ],
});
