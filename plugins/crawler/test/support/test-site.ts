import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface SiteRequest {
  path: string;
  at: number;
  headers: IncomingMessage['headers'];
}

export type Route = (req: IncomingMessage, res: ServerResponse) => void;

/** A real HTTP site on loopback that records every request it receives. */
export class TestSite {
  readonly requests: SiteRequest[] = [];
  private server!: Server;
  port = 0;

  constructor(private readonly routes: Record<string, Route | { type: string; body: string | Buffer; etag?: string }>) {}

  async start(host = '127.0.0.1'): Promise<this> {
    this.server = createServer((req, res) => {
      const path = (req.url ?? '/').split('?')[0]!;
      this.requests.push({ path: req.url ?? '/', at: Date.now(), headers: req.headers });
      const route = this.routes[path];
      if (!route) {
        res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
        return;
      }
      if (typeof route === 'function') return route(req, res);
      if (route.etag && req.headers['if-none-match'] === route.etag) {
        res.writeHead(304, { etag: route.etag }).end();
        return;
      }
      res.writeHead(200, { 'content-type': route.type, ...(route.etag ? { etag: route.etag } : {}) }).end(route.body);
    });
    await new Promise<void>((resolve) => this.server.listen(0, host, resolve));
    this.port = (this.server.address() as AddressInfo).port;
    return this;
  }

  url(path: string, host = '127.0.0.1'): string {
    return `http://${host}:${this.port}${path}`;
  }

  hits(path: string): SiteRequest[] {
    return this.requests.filter((r) => r.path === path);
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

export async function waitFor<T>(what: string, probe: () => Promise<T | null | undefined | false>, timeoutMs = 60_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}
