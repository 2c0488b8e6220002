import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { ApiError } from '@filigrane/core';

/** What a GraphQL request names its document by (GraphQL over HTTP, or Apollo's persisted queries). */
export interface DocumentParams {
  query?: unknown;
  documentId?: unknown;
  extensions?: unknown;
}

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/**
 * GRAPHQL_TRUSTED_DOCUMENTS: the only operations this server runs, by the SHA-256 of their text.
 * The file is GraphQL Codegen's persisted documents (`{"<sha256>": "<document>"}`) or Apollo's
 * persisted-query manifest (`{"operations": [{"id", "body"}]}`); each hash is checked against its
 * text when loaded, so a wrong file stops the boot instead of opening a hole.
 */
export class TrustedDocuments {
  private constructor(private readonly byHash: Map<string, string>) {}

  static load(path: string): TrustedDocuments {
    let parsed: unknown;
    try {
      parsed = JSON.parse(readFileSync(path, 'utf8'));
    } catch (err) {
      throw new Error(`GRAPHQL_TRUSTED_DOCUMENTS: cannot read ${path}: ${(err as Error).message}`);
    }
    const entries: [string, unknown][] =
      parsed && typeof parsed === 'object' && Array.isArray((parsed as { operations?: unknown }).operations)
        ? (parsed as { operations: { id?: unknown; body?: unknown }[] }).operations.map((o) => [String(o.id), o.body])
        : Object.entries((parsed ?? {}) as Record<string, unknown>);
    const byHash = new Map<string, string>();
    for (const [hash, body] of entries) {
      if (typeof body !== 'string' || sha256(body) !== hash.replace(/^sha256:/, '')) throw new Error(`GRAPHQL_TRUSTED_DOCUMENTS: entry ${hash} is not the SHA-256 of its document`);
      byHash.set(sha256(body), body);
    }
    if (byHash.size === 0) throw new Error(`GRAPHQL_TRUSTED_DOCUMENTS: ${path} lists no document`);
    return new TrustedDocuments(byHash);
  }

  get size(): number {
    return this.byHash.size;
  }

  /** The trusted text the request names (by id, by persisted-query hash, or by its own text), or a 400. */
  resolve(params: DocumentParams): string {
    const persisted = (params.extensions as { persistedQuery?: { sha256Hash?: unknown } } | undefined)?.persistedQuery?.sha256Hash;
    const id = typeof params.documentId === 'string' ? params.documentId.replace(/^sha256:/, '') : typeof persisted === 'string' ? persisted : null;
    if (id !== null) {
      const text = this.byHash.get(id);
      if (text === undefined) throw new ApiError(400, 'persisted_query_not_found', `No trusted document has the id ${id.slice(0, 80)}.`);
      return text;
    }
    if (typeof params.query === 'string' && this.byHash.has(sha256(params.query))) return params.query;
    throw new ApiError(400, 'untrusted_document', 'This server runs trusted documents only (GRAPHQL_TRUSTED_DOCUMENTS): send a documentId ("sha256:<hash>") of the allow-list.');
  }
}
