import { randomUUID } from 'node:crypto';
import { inject, injectable } from 'inversify';
import { In, type DataSource } from 'typeorm';
import { ApiError, BlobMissingError, badRequest, isBlobStoreOutage, notFound, TOKENS, type Clock, type EventPublisher, type ExtensionRegistry, type JobQueue, type WorkPool, type LoggerFactory } from '@filigrane/core';
import { Search } from './search.entity.js';
import { SEARCH_EXECUTORS, type SearchExecutor, type SearchScope } from './search-executors.js';

export const SEARCH_QUEUE = 'search.run';

export interface SubmitResult {
  status: 200 | 201;
  body: Record<string, unknown>;
}

export const searchUrl = (baseUrl: string, id: string) => `${baseUrl}/api/v4/searches/${id}/`;

/** Runs searches now (sync) or as jobs (async, polled at /api/v4/searches/<id>/). */
@injectable()
export class SearchService {
  constructor(
    @inject(TOKENS.DataSource) private readonly db: DataSource,
    @inject(TOKENS.Extensions) private readonly extensions: ExtensionRegistry,
    @inject(TOKENS.JobQueue) private readonly jobs: JobQueue,
    @inject(TOKENS.Clock) private readonly clock: Clock,
    @inject(TOKENS.Events) private readonly events: EventPublisher,
    @inject(TOKENS.WorkPool) private readonly pool: WorkPool,
    @inject(TOKENS.Loggers) private readonly loggers: LoggerFactory,
  ) {}

  /** The account-deleted hook: its searches (a queued one finds its row gone and stops). */
  async forgetAccount(accountId: number): Promise<void> {
    await this.db.query('DELETE FROM searches WHERE account_id = $1', [accountId]);
  }

  private executor(body: Record<string, unknown>): SearchExecutor {
    const executors = [...this.extensions.get(SEARCH_EXECUTORS)].sort((a, b) => (b.priority ?? 0) - (a.priority ?? 0));
    const executor = executors.find((e) => e.accepts(body));
    if (!executor) throw new ApiError(501, 'search_kind_unavailable', 'No installed plugin handles this kind of search.');
    return executor;
  }

  private byKind(kind: string): SearchExecutor {
    const executor = this.extensions.get(SEARCH_EXECUTORS).find((e) => e.kind === kind);
    if (!executor) throw new Error(`no executor for searches of kind ${kind}`);
    return executor;
  }

  async submit(body: unknown, scope: SearchScope): Promise<SubmitResult> {
    if (body === null || typeof body !== 'object' || Array.isArray(body)) throw badRequest('invalid', 'Expected a JSON object (or a multipart form for an image).');
    const input = body as Record<string, unknown>;
    const executor = this.executor(input);
    const { query, sync, name } = await executor.parse(input, scope);
    // A synchronous search works inside the request: bounded (503 + Retry-After when the pool is full).
    if (sync) {
      const matches = await this.pool.run(() => executor.run(query, scope));
      // Nothing is stored for a synchronous search: the event alone goes through the outbox (one INSERT, no transaction needed).
      await this.events.enqueue({ type: 'search.completed', accountId: scope.accountId, data: { id: null, url: null, type: executor.kind, name, status: 'complete', sync: true, match_count: matches.length } }, this.db);
      await this.events.flush();
      return { status: 200, body: { status: 'complete', matches } };
    }
    const search = this.db.manager.create(Search, {
      id: randomUUID(),
      accountId: scope.accountId,
      home: scope.home,
      baseUrl: scope.baseUrl,
      kind: executor.kind,
      name,
      query: query as Record<string, unknown>,
      status: 'pending',
      matches: null,
      error: null,
      finished: null,
    });
    await this.db.manager.save(search);
    await this.jobs.send(SEARCH_QUEUE, { id: search.id });
    return { status: 201, body: this.view(search) };
  }

  /** Job handler: runs a pending search and stores its matches or its error. */
  async run(id: string): Promise<void> {
    const search = await this.db.manager.findOne(Search, { where: { id } });
    if (!search || search.status === 'complete' || search.status === 'failed') return;
    await this.db.manager.update(Search, { id }, { status: 'running' });
    const scope = { accountId: search.accountId, home: search.home, baseUrl: search.baseUrl };
    try {
      const matches = await this.byKind(search.kind).run(search.query, scope);
      await this.complete(search, { status: 'complete', matches: matches as never, finished: this.clock.now() });
    } catch (err) {
      // The store out of reach passes: the job is retried later, the search stays running.
      if (isBlobStoreOutage(err)) throw err;
      // A server fault is logged with its cause (a missing file's key); the client sees its code only.
      if (!(err instanceof ApiError)) this.loggers.for('search').error(`search ${id} failed`, err);
      const e = err instanceof ApiError
        ? { code: err.code, details: err.details }
        : err instanceof BlobMissingError
          ? { code: 'file_missing', details: 'A stored file of this search is missing; the operators have been told.' }
          : { code: 'server_error', details: 'The search failed; retry later.' };
      await this.complete(search, { status: 'failed', error: e as never, finished: this.clock.now() });
    }
  }

  /**
   * A search whose runs all stopped without an outcome (the worker killed or crashed each time):
   * failed as a server fault, its event sent, unless it ended meanwhile. Called by the job runner
   * once the retries are used up.
   */
  async abandon(id: string, storeDown = false): Promise<void> {
    const search = await this.db.manager.findOne(Search, { where: { id } });
    if (!search || (search.status !== 'pending' && search.status !== 'running')) return;
    const error = storeDown
      ? { code: 'blob_store_unavailable', details: 'The file store could not be reached for several minutes (the operators have been told); run the search again later.' }
      : { code: 'server_error', details: 'The search was tried several times and stopped each time on the service\'s side (logged for its operators); run it again later.' };
    await this.complete(search, { status: 'failed', error: error as never, finished: this.clock.now() }, ['pending', 'running']);
  }

  /**
   * The outcome of an asynchronous search and its one `search.completed`, in one transaction (the
   * outbox): the event is delivered if and only if the outcome was stored. A search deleted meanwhile
   * (its account went) publishes nothing; `from`: only a search in one of these states changes.
   */
  private async complete(search: Search, outcome: Partial<Search>, from?: string[]): Promise<void> {
    const done = { ...search, ...outcome } as Search;
    const stored = await this.db.transaction(async (m) => {
      const updated = await m.update(Search, from ? { id: search.id, status: In(from) } : { id: search.id }, outcome as never);
      if (!updated.affected) return false;
      await this.events.enqueue(
        {
          type: 'search.completed',
          accountId: done.accountId,
          data: {
            id: done.id, url: searchUrl(done.baseUrl, done.id), type: done.kind, kind: done.kind, name: done.name, status: done.status,
            sync: false, match_count: done.matches?.length ?? 0, matches: done.matches?.length ?? 0, error: done.error,
          },
        },
        m,
        { key: `search:${done.id}` },
      );
      return true;
    });
    if (stored) await this.events.flush();
  }

  async get(accountId: number, id: string, baseUrl: string): Promise<Record<string, unknown>> {
    if (!/^[0-9a-f-]{36}$/i.test(id)) throw notFound('No such search.');
    const search = await this.db.manager.findOne(Search, { where: { id, accountId } });
    if (!search) throw notFound('No such search.');
    return this.view(search, baseUrl);
  }

  async list(accountId: number, offset: number, limit: number): Promise<[Search[], number]> {
    return this.db.manager.findAndCount(Search, { where: { accountId }, order: { created: 'DESC' }, skip: offset, take: limit });
  }

  view(s: Search, baseUrl = s.baseUrl): Record<string, unknown> {
    const view: Record<string, unknown> = {
      id: s.id,
      url: searchUrl(baseUrl, s.id),
      name: s.name,
      type: s.kind,
      status: s.status,
      created: s.created.toISOString(),
      finished: s.finished?.toISOString() ?? null,
      query: this.byKind(s.kind).describe(s.query),
    };
    if (s.status === 'complete') view.matches = s.matches ?? [];
    if (s.status === 'failed') view.error = s.error;
    return view;
  }
}
