import { DEFAULT_THRESHOLD } from '@filigrane/watermark';
import { CRAWL_ARCHIVE, type ArchivedFetch, type CrawlArchive } from '@filigrane/plugin-crawler';
import { MatchQueryService } from '@filigrane/plugin-matches';
import { inject, injectable, optional, TOKENS, type Clock, type Fetcher, type Logger, type LoggerFactory, type MediaReader, type MediaRecord } from '@filigrane/plugin-api';
import { CaptureSession, isCaptured } from './capture-session.js';
import { EVIDENCE_SETTINGS, type EvidenceSettings } from './evidence.settings.js';
import { screenshot } from './screenshot.js';
import { SigningKeyService } from './signing-key.service.js';
import { requestTimeStamp } from './time-stamp.js';
import { cdxjIndex, datapackage, pagesJsonl, sha256, zipWacz, type WaczFile, type WaczPage } from './wacz-writer.js';

export const SOFTWARE = 'Filigrane evidence 1.0';
/** What the fixed threshold means, said once in the facts. */
const THRESHOLD_MEANING =
  'A copy is called watermarked when the probability that an unmarked image shows this much correlation with the key is under the threshold (the p-value itself is kept secret).';

/** The pack's short account of itself, kept with its row. */
export interface PackSummary {
  matches: number;
  screenshots: number;
  screenshotMissing: string | null;
  crawlRecords: number;
  capturedResources: number;
  timeStamp: { genTime: string; authority: string } | null;
  timeStampMissing: string | null;
  keyId: string;
  files: number;
}

export interface BuiltPack {
  wacz: Buffer;
  summary: PackSummary;
}

interface MatchRowLike {
  id: string;
  kind: string;
  source?: string;
  media_id: string | null;
  watermarked: boolean;
  sessions: number[];
  host: string | null;
  page_url: string;
  query_url: string;
  page: Record<string, unknown>;
  date_created: Date;
  date_updated: Date;
  site_name: string | null;
  site_domain: string | null;
  site_country: string | null;
}

/** Builds an evidence pack (WACZ bytes) for matches of an account: capture, screenshot, thumbnail, facts, signature, time stamp. */
@injectable()
export class PackBuilder {
  private readonly log: Logger;

  constructor(
    @inject(MatchQueryService) private readonly matches: MatchQueryService,
    @inject(TOKENS.MediaReader) private readonly media: MediaReader,
    @inject(TOKENS.Fetcher) private readonly fetcher: Fetcher,
    @inject(TOKENS.Clock) private readonly clock: Clock,
    @inject(SigningKeyService) private readonly keys: SigningKeyService,
    @inject(EVIDENCE_SETTINGS.token) private readonly settings: EvidenceSettings,
    @inject(TOKENS.Loggers) loggers: LoggerFactory,
    @inject(CRAWL_ARCHIVE) @optional() private readonly crawl: CrawlArchive | undefined,
  ) {
    this.log = loggers.for('evidence');
  }

  async build(pack: { id: string; accountId: number; matchIds: string[]; baseUrl: string }): Promise<BuiltPack> {
    const created = this.clock.now();
    const session = new CaptureSession(this.fetcher, this.clock, { maxResources: 300, maxBytes: 100 * 1024 * 1024, deadline: Date.now() + this.settings.captureTimeoutMs * Math.max(1, pack.matchIds.length) });
    const files: WaczFile[] = [];
    const pages: WaczPage[] = [];
    const facts: Record<string, unknown>[] = [];
    const crawled: ArchivedFetch[] = [];
    const thumbnails = new Set<number>();
    let screenshots = 0;
    let screenshotMissing: string | null = null;

    for (const matchId of pack.matchIds) {
      const row = (await this.matches.get(pack.accountId, Number(matchId))) as unknown as MatchRowLike | null;
      if (!row) {
        facts.push({ id: matchId, missing: 'This match no longer exists in the account.' });
        continue;
      }
      const [media] = row.media_id === null ? [] : await this.media.byIds([Number(row.media_id)], pack.accountId);
      const fact: Record<string, unknown> = this.matchFacts(row, media ?? null);

      if (media && !thumbnails.has(media.id)) {
        try {
          files.push({ path: `thumbnails/media-${media.id}.jpg`, data: await this.media.thumbnail(media.id) });
          thumbnails.add(media.id);
        } catch (err) {
          this.log.error(`evidence pack ${pack.id}: the thumbnail of media ${media.id} is missing (${(err as Error).message})`);
          fact.thumbnail_missing = 'The registered thumbnail file is missing from storage.';
        }
      }
      if (media && thumbnails.has(media.id)) (fact.media as Record<string, unknown>).thumbnail = `thumbnails/media-${media.id}.jpg`;

      // The crawl's own records of the page and the image, when a crawl saw them.
      const urls = [row.page_url, row.query_url].filter((u) => u && /^https?:/i.test(u));
      const fromCrawl = this.crawl && row.sessions.length ? await this.crawl.records(pack.accountId, row.sessions, urls) : [];
      crawled.push(...fromCrawl.filter((f) => !crawled.some((c) => c.url === f.url && c.sessionId === f.sessionId)));
      fact.crawl = fromCrawl.length
        ? { file: 'archive/crawl.warc.gz', fetches: fromCrawl.map((f) => ({ url: f.url, session_id: f.sessionId, crawl: f.crawlCycle, fetched_at: f.fetchedAt.toISOString() })) }
        : { file: null, note: row.sessions.length ? 'The crawl kept no record of these URLs.' : 'This match was not found by a crawl.' };

      // A fresh capture now: the page, the image, and what Chromium loads to render the page.
      const capture: Record<string, unknown> = { file: 'archive/capture.warc.gz' };
      for (const [what, url] of [['page', row.page_url], ['image', row.query_url]] as const) {
        if (!url || !/^https?:/i.test(url)) continue;
        const res = await session.fetch(url);
        capture[what] = isCaptured(res)
          ? { url, final_url: res.finalUrl, status: res.status, content_type: res.contentType, bytes: res.body.length, sha256: sha256(res.body), fetched_at: res.fetchedAt.toISOString() }
          : { url, error: res.code, details: res.message };
      }
      if (row.page_url && /^https?:/i.test(row.page_url)) {
        const page = capture.page as { status?: number; fetched_at?: string } | undefined;
        pages.push({ url: row.page_url, ts: page?.fetched_at ?? this.clock.now().toISOString(), ...(typeof row.page.headline === 'string' ? { title: row.page.headline } : {}) });
        const shot = await screenshot(this.settings.chromiumPath, row.page_url, session, this.settings.captureTimeoutMs);
        if (shot.png) {
          const path = `screenshots/match-${row.id}.png`;
          files.push({ path, data: shot.png });
          fact.screenshot = { file: path, taken_at: this.clock.now().toISOString(), viewport_width: shot.width, browser: `Chromium ${shot.chromium}`, full_page: true };
          screenshots += 1;
        } else {
          fact.screenshot = { file: null, reason: shot.reason };
          screenshotMissing = shot.reason;
        }
      } else {
        fact.screenshot = { file: null, reason: 'This match has no web page to render.' };
      }
      fact.capture = capture;
      facts.push(fact);
    }

    const failures = await session.failures();
    const captured = await session.resources();
    const warcInfo = { software: SOFTWARE, format: 'WARC File Format 1.1', isPartOf: `evidence-pack-${pack.id}`, description: 'Fetched through the service\'s SSRF-safe fetcher at the time of the pack' };
    const warcs: WaczFile[] = [];
    if (captured.length) warcs.push({ path: 'archive/capture.warc.gz', data: await session.warc('capture.warc.gz', warcInfo) });
    if (crawled.length) warcs.push({ path: 'archive/crawl.warc.gz', data: Buffer.concat(crawled.map((c) => c.warc)) });

    const tsaUrl = this.settings.tsaUrl;
    const document = {
      pack: { id: pack.id, created: created.toISOString(), software: SOFTWARE, url: `${pack.baseUrl}/api/v4/evidence/${pack.id}/` },
      watermark: { threshold: DEFAULT_THRESHOLD, meaning: THRESHOLD_MEANING },
      signature: { algorithm: 'ECDSA P-384 with SHA-256 over the bytes of datapackage.json', public_keys: `${pack.baseUrl}/api/v4/evidence/keys/` },
      time_stamp: tsaUrl ? { authority: tsaUrl, standard: 'RFC 3161, over the SHA-256 of datapackage.json' } : { authority: null, note: 'No time stamp authority is configured (TSA_URL): this pack carries no time stamp.' },
      matches: facts,
      failed_fetches: failures.map((f) => ({ url: f.url, error: f.code, details: f.message })),
    };
    const all: WaczFile[] = [
      ...warcs,
      ...(warcs.length ? [{ path: 'indexes/index.cdxj', data: await cdxjIndex(warcs) }] : []),
      { path: 'pages/pages.jsonl', data: pagesJsonl(pages) },
      ...files,
      { path: 'evidence/facts.json', data: Buffer.from(JSON.stringify(document, null, 2) + '\n', 'utf8') },
    ];
    const first = pages[0];
    const dp = datapackage(all, {
      title: `Evidence pack ${pack.id}`,
      created: created.toISOString(),
      software: SOFTWARE,
      ...(first ? { mainPageUrl: first.url, mainPageDate: first.ts } : {}),
    });
    const hash = `sha256:${sha256(dp)}`;
    const { signature, key } = await this.keys.sign(dp);
    let stamp: { reply: Buffer; genTime: string; authority: string } | null = null;
    if (tsaUrl) {
      const { reply, info } = await requestTimeStamp(tsaUrl, dp, 30_000);
      stamp = { reply, genTime: info.genTime.toISOString(), authority: info.authority };
    }
    const digest = {
      path: 'datapackage.json',
      hash,
      signedData: {
        hash,
        created: created.toISOString(),
        software: SOFTWARE,
        signature: signature.toString('base64'),
        publicKey: key.publicKey,
        keyId: key.id,
        keyUrl: `${pack.baseUrl}/api/v4/evidence/keys/`,
        signatureAlgorithm: 'ECDSA P-384, SHA-256, DER, over the bytes of datapackage.json',
        ...(stamp
          ? { timeStamp: stamp.reply.toString('base64'), timeStampTime: stamp.genTime, timeStampAuthority: stamp.authority, timeStampUrl: tsaUrl }
          : { timeStamp: null, timeStampNote: 'No time stamp authority is configured (TSA_URL): this pack carries no time stamp.' }),
      },
    };
    const zipFiles = [...all, { path: 'datapackage.json', data: dp }, { path: 'datapackage-digest.json', data: Buffer.from(JSON.stringify(digest, null, 2) + '\n', 'utf8') }];
    const wacz = await zipWacz(zipFiles, created);
    return {
      wacz,
      summary: {
        matches: facts.length,
        screenshots,
        screenshotMissing,
        crawlRecords: crawled.length,
        capturedResources: captured.length,
        timeStamp: stamp && { genTime: stamp.genTime, authority: stamp.authority },
        timeStampMissing: stamp ? null : 'TSA_URL is not set',
        keyId: key.id,
        files: zipFiles.length,
      },
    };
  }

  /** The facts of one match: URLs, dates, site, media, the watermark verdict (never the p-value). */
  private matchFacts(row: MatchRowLike, media: MediaRecord | null): Record<string, unknown> {
    return {
      id: String(row.id),
      kind: row.kind,
      source: row.source ?? null,
      first_seen: new Date(row.date_created).toISOString(),
      last_seen: new Date(row.date_updated).toISOString(),
      page_url: row.page_url || null,
      image_url: row.query_url || null,
      host: row.host,
      site: row.site_domain ? { name: row.site_name, domain: row.site_domain, country: row.site_country } : null,
      page: { headline: row.page.headline ?? null, date_published: row.page.date_published ?? null, date_modified: row.page.date_modified ?? null },
      media: media ? { id: String(media.id), path: media.path, type: media.type, date_registered: media.created.toISOString(), credit: media.credit, thumbnail: null } : null,
      watermark: { verdict: row.watermarked ? 'watermarked' : 'not watermarked', watermarked: row.watermarked, threshold: DEFAULT_THRESHOLD, registered_with_key: media?.kind === 'watermarked' },
      crawl_sessions: row.sessions,
    };
  }
}
