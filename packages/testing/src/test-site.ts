import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A page of a test site: a body with its type, or a handler for anything more. */
export type SitePage = { type: string; body: string | Buffer; status?: number; headers?: Record<string, string> } | ((req: IncomingMessage, res: ServerResponse) => void);

export interface SiteRequest {
  path: string;
  headers: IncomingMessage['headers'];
}

/** A real HTTP site on loopback (127.0.0.1) that records each request; other paths answer 404. */
export interface TestSite {
  /** Base URL, `http://127.0.0.1:<port>`. */
  origin: string;
  url(path: string): string;
  requests: SiteRequest[];
  /** Replaces or adds a page while the site runs. */
  set(path: string, page: SitePage): void;
  close(): Promise<void>;
}

export async function serveSite(pages: Record<string, SitePage> = {}): Promise<TestSite> {
  const routes = new Map(Object.entries(pages));
  const requests: SiteRequest[] = [];
  const server: Server = createServer((req, res) => {
    requests.push({ path: req.url ?? '/', headers: req.headers });
    const page = routes.get((req.url ?? '/').split('?')[0]!);
    if (!page) return void res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
    if (typeof page === 'function') return page(req, res);
    res.writeHead(page.status ?? 200, { 'content-type': page.type, ...page.headers }).end(page.body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    origin,
    url: (path) => new URL(path, origin).toString(),
    requests,
    set: (path, page) => void routes.set(path, page),
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
