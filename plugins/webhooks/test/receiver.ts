import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Received {
  headers: IncomingHttpHeaders;
  body: string;
}

/** A loopback webhook receiver: records every request; `answer` decides the status of each. */
export class Receiver {
  readonly received: Received[] = [];
  answer: (n: number, req: Received) => number | Promise<number> = () => 204;
  private server!: Server;
  url = '';

  async start(): Promise<this> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', async () => {
        const got = { headers: req.headers, body: Buffer.concat(chunks).toString('utf8') };
        this.received.push(got);
        res.statusCode = await this.answer(this.received.length, got);
        res.end('ok');
      });
    });
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/hook`;
    return this;
  }

  ids(): string[] {
    return this.received.map((r) => String(r.headers['webhook-id']));
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

/**
 * The Standard Webhooks verification written from the specification, not with the package the
 * service signs with: HMAC-SHA256, keyed by the base64 secret after `whsec_`, over
 * `${webhook-id}.${webhook-timestamp}.${body}`, sent as space-separated `v1,<base64>` entries.
 */
export function verifyStandardWebhook(secret: string, headers: IncomingHttpHeaders, body: string): boolean {
  const id = headers['webhook-id'];
  const timestamp = headers['webhook-timestamp'];
  const signatures = headers['webhook-signature'];
  if (typeof id !== 'string' || typeof timestamp !== 'string' || typeof signatures !== 'string') return false;
  if (!/^\d+$/.test(timestamp)) return false;
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  const expected = createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest();
  return signatures.split(' ').some((entry) => {
    const [version, sig] = entry.split(',');
    if (version !== 'v1' || !sig) return false;
    const given = Buffer.from(sig, 'base64');
    return given.length === expected.length && timingSafeEqual(given, expected);
  });
}

/** Polls until `check` returns a value that is not undefined, null or false, or fails after `ms`. */
export async function eventually<T>(check: () => Promise<T | undefined | null | false> | T | undefined | null | false, ms = 20_000, what = 'condition'): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await check();
    if (value !== undefined && value !== null && value !== false) return value as T;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
