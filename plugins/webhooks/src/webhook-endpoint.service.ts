import { inject, injectable } from 'inversify';
import type { DataSource, Repository } from 'typeorm';
import { CORE_SETTINGS, notFound, TOKENS, type CoreSettings, type ExtensionRegistry, type SecretBox } from '@filigrane/core';
import { WebhookEndpoint } from './webhook.entities.js';
import { parseEndpointInput } from './webhook-input.js';
import { WEBHOOK_EVENT_TYPES, webhookEventTypes } from './webhook-events.js';
import { newSecret } from './webhook-signer.js';

/** An account's endpoints; every query is scoped by the account, another's id is a 404. */
@injectable()
export class WebhookEndpointService {
  private readonly repo: Repository<WebhookEndpoint>;

  constructor(
    @inject(TOKENS.DataSource) db: DataSource,
    @inject(TOKENS.SecretBox) private readonly box: SecretBox,
    @inject(CORE_SETTINGS.token) private readonly core: CoreSettings,
    @inject(TOKENS.Extensions) private readonly extensions: ExtensionRegistry,
  ) {
    this.repo = db.getRepository(WebhookEndpoint);
  }

  /** The event types an endpoint may subscribe to: the built-in ones and those plugins contribute. */
  eventTypes(): string[] {
    return webhookEventTypes(this.extensions.get(WEBHOOK_EVENT_TYPES));
  }

  /** Registers an endpoint; the plain secret is returned this once and only stored sealed. */
  async create(accountId: number, body: unknown): Promise<{ endpoint: WebhookEndpoint; secret: string }> {
    const input = parseEndpointInput(body, false, this.core.fetchAllowHosts, this.eventTypes());
    const secret = newSecret();
    const endpoint = await this.repo.save(
      this.repo.create({ accountId, url: input.url!, events: input.events!, description: input.description ?? '', secretSealed: this.box.seal(secret), enabled: true, disabledReason: null, failingSince: null }),
    );
    return { endpoint, secret };
  }

  list(accountId: number, offset: number, limit: number): Promise<[WebhookEndpoint[], number]> {
    return this.repo.findAndCount({ where: { accountId }, order: { id: 'ASC' }, skip: offset, take: limit });
  }

  async get(accountId: number, id: number): Promise<WebhookEndpoint> {
    const endpoint = Number.isSafeInteger(id) ? await this.repo.findOneBy({ id, accountId }) : null;
    if (!endpoint) throw notFound('No such webhook endpoint.');
    return endpoint;
  }

  /** Changes url, events, description; `enabled: true` re-enables a disabled endpoint and clears its reason. */
  async update(accountId: number, id: number, body: unknown): Promise<WebhookEndpoint> {
    const endpoint = await this.get(accountId, id);
    const input = parseEndpointInput(body, true, this.core.fetchAllowHosts, this.eventTypes());
    if (input.url !== undefined) endpoint.url = input.url;
    if (input.events !== undefined) endpoint.events = input.events;
    if (input.description !== undefined) endpoint.description = input.description;
    if (input.enabled !== undefined) {
      endpoint.enabled = input.enabled;
      endpoint.disabledReason = input.enabled ? null : 'Disabled by the account.';
      endpoint.failingSince = null;
    }
    return this.repo.save(endpoint);
  }

  async remove(accountId: number, id: number): Promise<void> {
    await this.get(accountId, id);
    await this.repo.delete({ id, accountId });
  }

  /** The account-deleted hook: its endpoints, and with them (cascade) their deliveries, so none is sent after. */
  async forgetAccount(accountId: number): Promise<void> {
    await this.repo.delete({ accountId });
  }

  secretOf(endpoint: WebhookEndpoint): string {
    return this.box.open(endpoint.secretSealed).toString('utf8');
  }
}
