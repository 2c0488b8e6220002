import { inject, injectable } from 'inversify';
import type { DataSource } from 'typeorm';
import { CORE_SETTINGS, returnedRows, TOKENS, type BlobStore, type Clock, type CoreSettings, type EventPublisher, type Logger, type LoggerFactory, type MatchPipeline } from '@filigrane/core';
import { BatchFinisher } from './batch-finisher.js';
import { BatchWriter } from './batch-writer.service.js';
import { CrawlFrontier } from './crawl-frontier.js';
import { CrawlRun, runPrefix } from './crawl-run.js';
import { CRAWLER_SETTINGS, type CrawlerConfig } from './crawl-settings.js';
import { CrawlWrites } from './crawl-writes.js';
import { ImageSightings } from './image-sightings.js';
import { PageDigester } from './page-digester.js';
import { PageProcessor } from './page-processor.js';
import { FetchCancelled, PoliteFetcher } from './polite-fetcher.js';
import { RunFetcher, type RunFetch } from './run-fetcher.js';
import { VideoSightings } from './video-sightings.js';

/** Takeovers after which a page is skipped: it was tried this many times and its worker stopped each time. */
export const MAX_PAGE_TAKEOVERS = 3;

// The crawl's pieces, for the modules and tests that name them here.
export { sessionPrefix } from './crawl-run.js';
export { IMAGE_ACCEPT } from './image-sightings.js';
export { videosOf } from './page-processor.js';

/**
 * Runs crawls: a pool of loops per process takes pages of the session's frontier (CrawlFrontier:
 * claimed from PostgreSQL a few at a time), fetches them politely (RunFetcher), processes each page
 * (PageProcessor: links, then its videos and images to their sightings, VideoSightings and
 * ImageSightings) and buffers what it learns (CrawlWrites: one statement per few pages). The
 * worker that finds the frontier empty writes the one batch of the crawl (BatchFinisher).
 */
@injectable()
export class CrawlRunner {
  private readonly digester = new PageDigester();
  private readonly frontier: CrawlFrontier;
  private readonly fetcher: RunFetcher;
  private readonly pages: PageProcessor;
  private readonly finisher: BatchFinisher;
  private readonly running = new Map<string, Promise<void>>();
  private stopping = false;
  /** The process log (JSON lines with level and scope), not bare lines on stderr an operator's pipeline cannot read. */
  private readonly log: Logger;

  constructor(
    @inject(TOKENS.DataSource) private readonly db: DataSource,
    @inject(CRAWLER_SETTINGS.token) private readonly cfg: CrawlerConfig,
    @inject(CORE_SETTINGS.token) core: CoreSettings,
    @inject(TOKENS.BlobStore) private readonly blobs: BlobStore,
    @inject(TOKENS.Clock) clock: Clock,
    @inject(TOKENS.Events) events: EventPublisher,
    // The one way into the match pipeline: its token (as any tracking source, first-party or not).
    @inject(TOKENS.MatchPipeline) pipeline: MatchPipeline,
    @inject(TOKENS.Loggers) loggers: LoggerFactory,
  ) {
    this.log = loggers.for('crawler');
    this.frontier = new CrawlFrontier(db, cfg);
    this.fetcher = new RunFetcher(new PoliteFetcher(db, cfg, [...core.fetchAllowHosts]), this.digester, cfg, clock);
    const images = new ImageSightings(this.frontier, this.fetcher, this.digester, pipeline, blobs, cfg, clock);
    const videos = new VideoSightings(this.frontier, this.fetcher, this.digester, pipeline, clock);
    this.pages = new PageProcessor(this.digester, images, videos, cfg, this.log);
    this.finisher = new BatchFinisher(db, blobs, new BatchWriter(db, blobs), events, cfg);
  }

  /** Joins the crawl `cycle` of a session in this process (a no-op when already joined). */
  join(sessionId: number, cycle: number): void {
    const key = `${sessionId}:${cycle}`;
    if (this.stopping || this.running.has(key)) return;
    const run = this.run(sessionId, cycle)
      .catch((err) => this.log.error(`crawl ${key} stopped: ${(err as Error).message}`, err))
      .finally(() => this.running.delete(key));
    this.running.set(key, run);
  }

  async stop(): Promise<void> {
    this.stopping = true;
    await Promise.allSettled([...this.running.values()]);
    await this.digester.close();
  }

  private async run(sessionId: number, cycle: number): Promise<void> {
    const started = returnedRows(await this.db.query(
      `UPDATE crawl_sessions SET state = 'running', stime = COALESCE(stime, now()), mtime = now(), heartbeat = now(),
         deadline = COALESCE(deadline, now() + make_interval(secs => crawl_delay))
       WHERE id = $1 AND cycle = $2 AND state IN ('pending', 'running') RETURNING id`,
      [sessionId, cycle],
    ));
    if (started.length === 0) return;
    const s = await this.frontier.state(sessionId);
    if (!s || s.cycle !== cycle) return;
    // The crawl's own start and end in the process log: its `crawler.crawl` job only made this process join it.
    const began = Date.now();
    this.log.info(`crawl ${sessionId}:${cycle} joined`);
    const run = new CrawlRun(s, (st) => new CrawlWrites(this.db, this.blobs, st.id, st.cycle, `${runPrefix(st)}/w`, this.cfg.maxQueryVariants), Math.min(64, this.cfg.concurrency * 2));
    const renewal = setInterval(
      () => void this.frontier.renew(run).catch((err) => this.log.error(`crawl ${sessionId}:${cycle}: lease renewal: ${(err as Error).message}`, err)),
      Math.max(500, (this.cfg.claimLease * 1000) / 3),
    );
    const watch = setInterval(() => void this.frontier.watch(run).catch(() => undefined), 1000);
    try {
      await Promise.all(Array.from({ length: this.cfg.concurrency }, () => this.loop(run)));
    } finally {
      clearInterval(renewal);
      clearInterval(watch);
    }
    // Every loop is out: write what they learnt, hand back the pages claimed but not crawled.
    await run.writes.flush().catch((err) => this.log.error(`crawl ${sessionId}:${cycle}: ${(err as Error).message}`, err));
    await this.frontier.release(run);
    const ended = run.end?.finish && !this.stopping ? await this.finisher.finish(run.s, run.end.limit) : null;
    const here = `${Date.now() - began} ms in this process`;
    if (ended) this.log.info(`crawl ${sessionId}:${cycle} ${ended.state}${ended.reason ? ` (${ended.reason})` : ''}: batch ${ended.batch} written, ${here}`);
    else this.log.info(`crawl ${sessionId}:${cycle} left, ${here} (${this.stopping ? 'the process is stopping' : run.end?.finish ? 'another process wrote its batch' : 'paused, deleted, or ended by another process'})`);
  }

  /**
   * One crawl loop: one request at a time, pipelined: while a fetched page is processed (parsed,
   * its images fetched and matched, its writes buffered), the loop already fetches the next one.
   */
  private async loop(run: CrawlRun): Promise<void> {
    let processing: Promise<void> = Promise.resolve();
    try {
      for (;;) {
        if (this.stopping || run.end) return;
        const claim = await this.frontier.next(run);
        if (!claim) {
          if (run.end) return;
          await processing;
          if (await this.frontier.idle(run)) return;
          continue;
        }
        let got: RunFetch | Error;
        try {
          // A page whose workers all stopped while crawling it (a page that crashes the process or exhausts its memory) is not tried again.
          if (claim.takeovers >= MAX_PAGE_TAKEOVERS) throw new Error(`skipped: its worker stopped ${claim.takeovers} times while crawling it (killed, or out of memory)`);
          got = await this.fetcher.fetch(run, claim.url, claim, this.cfg.maxPageBytes, undefined, true);
        } catch (err) {
          if (err instanceof FetchCancelled) {
            // Not fetched: handed back with the other unstarted claims, crawled on resume.
            run.inflight--;
            run.queue.unshift(claim);
            continue;
          }
          got = err as Error;
        }
        await processing; // at most one page of this loop is processed while the next is fetched
        processing = this.pages.process(run, claim, got);
      }
    } finally {
      await processing;
    }
  }
}
