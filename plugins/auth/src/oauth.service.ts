import { randomBytes } from 'node:crypto';
import { inject, injectable } from 'inversify';
import type { DataSource } from 'typeorm';
import { ApiError, sha256Hex, TOKENS, type AppConfig, type Clock } from '@filigrane/core';
import { AccessToken, OAuthApplication } from './auth.entities.js';
import { CredentialThrottle } from './credential-throttle.service.js';
import { hashSecret, newSecret, verifySecret } from './secrets.js';

/** An RFC 6749 error inside our error body: `code` and `error` carry the RFC's error code. */
export class OAuthError extends ApiError {
  constructor(statusCode: number, code: string, description: string, headers: Record<string, string> = {}) {
    super(statusCode, code, description, undefined, headers);
  }

  override toBody() {
    return { ...super.toBody(), error: this.code, error_description: String(this.details) };
  }
}

export interface IssuedToken {
  access_token: string;
  expires_in: number;
  token_type: 'Bearer';
  scope: 'openid';
}

/** OAuth applications and the client-credentials grant. */
@injectable()
export class OAuthService {
  constructor(
    @inject(TOKENS.DataSource) private readonly db: DataSource,
    @inject(TOKENS.Config) private readonly config: AppConfig,
    @inject(TOKENS.Clock) private readonly clock: Clock,
    @inject(CredentialThrottle) private readonly throttle: CredentialThrottle,
  ) {}

  async createApplication(accountId: number, name: string): Promise<{ application: OAuthApplication; clientSecret: string }> {
    const clientSecret = newSecret('fcs');
    const application = await this.db.manager.save(
      this.db.manager.create(OAuthApplication, {
        accountId,
        name,
        clientId: randomBytes(20).toString('base64url'),
        clientSecretHash: await hashSecret(clientSecret),
      }),
    );
    return { application, clientSecret };
  }

  async listApplications(accountId: number, offset: number, limit: number): Promise<[OAuthApplication[], number]> {
    return this.db.manager.findAndCount(OAuthApplication, { where: { accountId }, order: { id: 'ASC' }, skip: offset, take: limit });
  }

  getApplication(accountId: number, id: number): Promise<OAuthApplication | null> {
    return this.db.manager.findOne(OAuthApplication, { where: { accountId, id } });
  }

  /** Deleting an application revokes its tokens at once (cascade in the same statement). */
  async deleteApplication(accountId: number, id: number): Promise<boolean> {
    const result = await this.db.manager.delete(OAuthApplication, { accountId, id });
    return (result.affected ?? 0) > 0;
  }

  /** The client-credentials grant; `address` is the caller's, for the throttle on failed secrets. */
  async issueToken(clientId: string, clientSecret: string, address = 'unknown'): Promise<IssuedToken> {
    const application = await this.throttle.guard({ address, client: clientId }, async () => {
      const app = await this.db.manager.findOne(OAuthApplication, { where: { clientId } });
      return app && (await verifySecret(clientSecret, app.clientSecretHash)) ? app : null;
    });
    if (!application) {
      throw new OAuthError(401, 'invalid_client', 'Client authentication failed.', { 'www-authenticate': 'Basic realm="filigrane"' });
    }
    const token = newSecret('fat');
    const lifetime = this.config.tokenLifetimeSeconds;
    await this.db.manager.save(
      this.db.manager.create(AccessToken, {
        applicationId: application.id,
        tokenHash: sha256Hex(token),
        expires: new Date(this.clock.now().getTime() + lifetime * 1000),
      }),
    );
    return { access_token: token, expires_in: lifetime, token_type: 'Bearer', scope: 'openid' };
  }

  /** Drops expired tokens; run by a scheduled job. */
  async purgeExpired(): Promise<number> {
    const result = await this.db.manager
      .createQueryBuilder()
      .delete()
      .from(AccessToken)
      .where('expires < :now', { now: this.clock.now() })
      .execute();
    return result.affected ?? 0;
  }
}
