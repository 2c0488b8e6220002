import type { FileUrlSigner } from '@filigrane/core';

/** Bound in the container by the gateway: which URLs are the service's files, and their signed form. */
export const FILE_URLS = Symbol.for('filigrane.gateway.FileUrls');

/** The service's own file URLs (REST's file routes) and their signed forms. */
export class FileUrls {
  constructor(
    private readonly signer: FileUrlSigner,
    private readonly isFilePath: (path: string) => boolean,
  ) {}

  /** The path of a file URL of this service (absolute on `baseUrl`, or a path), else null. */
  filePath(url: string, baseUrl: string): string | null {
    const local = url.startsWith(`${baseUrl}/`) ? url.slice(baseUrl.length) : url.startsWith('/') && !url.startsWith('//') ? url : null;
    if (local === null) return null;
    const path = local.split(/[?#]/)[0]!;
    return this.isFilePath(path) ? path : null;
  }

  sign(accountId: number, url: string): { url: string; expires: Date } {
    return this.signer.sign(accountId, url);
  }

  /** A copy of a GraphQL result's data with every file URL of this service signed for the account. */
  signAll<T>(data: T, baseUrl: string, accountId: number): T {
    const walk = (v: unknown): unknown => {
      if (typeof v === 'string') return this.filePath(v, baseUrl) !== null && !v.includes('signature=') ? this.signer.sign(accountId, v).url : v;
      if (Array.isArray(v)) return v.map(walk);
      if (v && typeof v === 'object' && !(v instanceof Date)) return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, walk(x)]));
      return v;
    };
    return walk(data) as T;
  }
}
