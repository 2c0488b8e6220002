import { ContainerModule } from 'inversify';
import { definePlugin, TOKENS } from '@filigrane/core';
import { AccessToken, Account, AccountPermission, ApiKey, OAuthApplication } from './auth.entities.js';
import { AuthAccountDirectory1764300001000, AuthInit1763700001000, AuthSessions1764900001000, AuthThrottle1764100002000 } from './auth.migration.js';
import { AUTH_SETTINGS } from './auth.settings.js';
import { PasswordService } from './password.service.js';
import { SessionResolver } from './session.resolver.js';
import { sessionRoutes } from './session.routes.js';
import { SessionService } from './session.service.js';
import { CredentialThrottle } from './credential-throttle.service.js';
import { ApiKeyService } from './api-key.service.js';
import { AuthenticatorService } from './authenticator.service.js';
import { IdentityService } from './identity.service.js';
import { OAuthResolver } from './oauth.resolver.js';
import { oauthRoutes } from './oauth.routes.js';
import { OAuthService } from './oauth.service.js';

/** Credentials: accounts as identities, API keys, OAuth applications and bearer tokens, passwords and browser sessions, permissions. */
export const authPlugin = definePlugin({
  id: 'auth',
  settings: AUTH_SETTINGS,
  entities: [Account, ApiKey, OAuthApplication, AccessToken, AccountPermission],
  migrations: [AuthInit1763700001000, AuthThrottle1764100002000, AuthAccountDirectory1764300001000, AuthSessions1764900001000],
  bindings: new ContainerModule(({ bind }) => {
    bind(CredentialThrottle).toSelf().inSingletonScope();
    bind(IdentityService).toSelf().inSingletonScope();
    bind(ApiKeyService).toSelf().inSingletonScope();
    bind(OAuthService).toSelf().inSingletonScope();
    bind(AuthenticatorService).toSelf().inSingletonScope();
    bind(TOKENS.Authenticator).toService(AuthenticatorService);
    bind(PasswordService).toSelf().inSingletonScope();
    bind(SessionService).toSelf().inSingletonScope();
    bind(TOKENS.Sessions).toService(SessionService);
  }),
  routes: [...oauthRoutes, ...sessionRoutes],
  resolvers: [OAuthResolver, SessionResolver],
  jobs: (container) => [
    { queue: 'auth.purge-expired-tokens', schedule: '17 * * * *', handler: async () => void (await container.get(OAuthService).purgeExpired()) },
    { queue: 'auth.purge-sessions', schedule: '29 * * * *', handler: () => container.get(SessionService).purge() },
    { queue: 'auth.purge-throttle', schedule: '23 * * * *', handler: () => container.get(CredentialThrottle).purge() },
  ],
});
