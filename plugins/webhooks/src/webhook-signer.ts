import { randomBytes, randomUUID } from 'node:crypto';
import { Webhook } from 'standardwebhooks';

/** A new signing secret in the Standard Webhooks form: `whsec_` + base64 of 24 random bytes. */
export const newSecret = (): string => `whsec_${randomBytes(24).toString('base64')}`;

/** A message id, the same on every retry so receivers can drop duplicates. */
export const newMessageId = (): string => `msg_${randomUUID().replace(/-/g, '')}`;

/**
 * The three Standard Webhooks headers for one attempt: the signature is HMAC-SHA256 over
 * `id.timestamp.body` with the endpoint's secret, computed by the `standardwebhooks` package.
 */
export function signedHeaders(secret: string, id: string, at: Date, body: string): Record<string, string> {
  return {
    'webhook-id': id,
    'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
    'webhook-signature': new Webhook(secret).sign(id, at, body),
  };
}
