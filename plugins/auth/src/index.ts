// Public surface of the auth plugin: what other plugins and the gateway may use.
export { authPlugin } from './auth.plugin.js';
export { IdentityService, USERNAME_PATTERN, type NewAccount, type AccountIdentity } from './identity.service.js';
export { ApiKeyService, requireTokenScheme } from './api-key.service.js';
export { OAuthService } from './oauth.service.js';
export { PasswordService, checkPassword, PASSWORD_MIN_LENGTH } from './password.service.js';
export { SessionService, SESSION_COOKIE, CSRF_HEADER, type BrowserSession } from './session.service.js';
