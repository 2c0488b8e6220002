import { inject, injectable } from 'inversify';
import type { DataSource } from 'typeorm';
import { ApiError, codecApiError, conflict, requireBlob, withTempFile, CORE_SETTINGS, TOKENS, type CoreSettings, type BlobStore, type ExtensionRegistry, type JobQueue, type SecretBox, type WorkPool } from '@filigrane/core';
import { ACCEPTED_VIDEOS, probeVideo, sampleFrames, sniffVideo, VideoError } from '@filigrane/video';
import { VIDEO_QUEUE } from './video-processing.service.js';
import { AccountService, AccountUsageService } from '@filigrane/plugin-account';
import { decodeRaw, getSharp, probeImage } from '@filigrane/vision';
import { decodeLmk, pixelHash, type Registration, type ReducedOriginal } from '@filigrane/watermark';
import { Media } from './media.entity.js';
import { MEDIA_EVENTS, type RegisteredMedia } from './media-events.js';
import { blobKeys, MediaService } from './media.service.js';
import { nameOf, parentOf, type MediaPath } from './media-path.js';
import type { Metadata } from '@filigrane/core';
import { decodeReduced, encodeReduced, renderReduced, renderThumbnail } from './reduced-image.js';

/** What a PUT carries once its transport (binary body, URL, data URI) is resolved. */
export type RegistrationInput = { kind: 'lmk'; file: Buffer } | { kind: 'image'; bytes: Buffer } | { kind: 'video'; bytes: Buffer };

interface Prepared {
  row: Partial<Media>;
  blobs: { key: keyof ReturnType<typeof blobKeys>; data: Buffer }[];
  reduced?: ReducedOriginal;
  image?: Buffer;
}

export const ANNOUNCE_QUEUE = 'media.announce';

export const LMK_MAGIC = Buffer.from('FLMK', 'latin1');


/** Registration of media: from registration files (watermarked) or plain images (similarity only). */
@injectable()
export class RegistrationService {
  constructor(
    @inject(TOKENS.DataSource) private readonly db: DataSource,
    @inject(TOKENS.BlobStore) private readonly blobs: BlobStore,
    @inject(TOKENS.SecretBox) private readonly box: SecretBox,
    @inject(CORE_SETTINGS.token) private readonly core: CoreSettings,
    @inject(TOKENS.Extensions) private readonly extensions: ExtensionRegistry,
    @inject(MediaService) private readonly media: MediaService,
    @inject(AccountService) private readonly accounts: AccountService,
    @inject(AccountUsageService) private readonly usage: AccountUsageService,
    @inject(TOKENS.JobQueue) private readonly jobs: JobQueue,
    @inject(TOKENS.WorkPool) private readonly pool: WorkPool,
  ) {}

  private log(message: string): void {
    console.error(message);
  }

  async register(location: MediaPath, input: RegistrationInput, metadata: Metadata): Promise<Media> {
    if (location.names.length === 0) throw new ApiError(400, 'filename_required', 'PUT needs a file name below the home directory.');
    const ownerId = await this.media.accountIdOfHome(location.home);
    let prepared: Prepared;
    try {
      // Decoding is the memory-heavy part: bounded (503 + Retry-After when the pool is full).
      prepared = await this.pool.run(() =>
        input.kind === 'lmk' ? this.fromRegistrationFile(ownerId, input.file) : input.kind === 'video' ? this.fromVideo(input.bytes) : this.fromImage(input.bytes),
      );
    } catch (err) {
      throw codecApiError(err, ACCEPTED_VIDEOS);
    }
    const size = input.kind === 'lmk' ? input.file.length : input.bytes.length;
    const watermarked = prepared.row.kind === 'watermarked';
    const written: string[] = [];
    let media: Media;
    try {
      media = await this.db.transaction(async (m) => {
        await this.media.ensureParents(m, ownerId, location);
        const inserted = await m
          .createQueryBuilder()
          .insert()
          .into(Media)
          .values({
            ...prepared.row,
            accountId: ownerId,
            path: location.path,
            parent: parentOf(location.path),
            name: nameOf(location.path),
            type: prepared.row.type ?? 'image',
            diskUsage: size,
            metadata,
            credit: typeof metadata['user.credit'] === 'string' ? metadata['user.credit'] : null,
          })
          .orIgnore()
          .returning('*')
          .execute();
        const row = inserted.raw[0] as Record<string, unknown> | undefined;
        if (!row) {
          const existing = await m.findOne(Media, { where: { path: location.path } });
          throw existing?.type === 'folder'
            ? conflict('is_a_folder', `${location.path} is a folder.`)
            : conflict('already_exists', `${location.path} is already registered; DELETE it first to register another file there.`);
        }
        await this.usage.apply(m, ownerId, {
          images: 1,
          bytes: size,
          counters: { [watermarked ? 'uploaded_marks' : 'uploaded_images']: 1, active_paths_in_home: 1, paths_in_home: 1 },
        });
        const id = Number(row.id);
        const keys = blobKeys(id);
        // Blobs are written before the commit: a committed media always has its files.
        for (const blob of prepared.blobs) {
          await this.blobs.put(keys[blob.key], blob.data);
          written.push(keys[blob.key]);
        }
        return (await m.findOne(Media, { where: { id } }))!;
      });
    } catch (err) {
      for (const key of written) await this.blobs.delete(key).catch(() => undefined);
      if (err instanceof ApiError && err.code === 'quota_exceeded') await this.usage.recordQuotaExceeded(ownerId);
      throw err;
    }
    if (media.type === 'video') {
      // Fingerprinting takes seconds to minutes: a job does it; the media says `processing`.
      await this.jobs.send(VIDEO_QUEUE, { mediaId: media.id });
      return media;
    }
    await this.announce(media, { media, reduced: prepared.reduced, image: prepared.image });
    return media;
  }

  /**
   * Tells MEDIA_EVENTS listeners (the visual index) about a committed media. The media is saved
   * whatever they do: a failure is retried by the `media.announce` job (which rebuilds the event
   * from the stored blobs), never answered as a failed registration.
   */
  private async announce(media: Media, event: RegisteredMedia): Promise<void> {
    try {
      for (const listener of this.extensions.get(MEDIA_EVENTS)) await listener.registered(event);
    } catch (err) {
      this.log(`media ${media.id}: indexing failed (${(err as Error).message}); retried by a job`);
      await this.jobs
        .send(ANNOUNCE_QUEUE, { mediaId: media.id }, { retryLimit: 10, retryDelaySeconds: 2 })
        .catch((e: Error) => this.log(`media ${media.id}: could not queue the indexing retry (${e.message})`));
    }
  }

  /** Job `media.announce`: the registration event of a stored media, rebuilt from its blobs. */
  async reannounce(mediaId: number): Promise<void> {
    const media = await this.db.manager.findOne(Media, { where: { id: mediaId } });
    if (!media || media.type !== 'image') return; // deleted since: nothing to index
    const keys = blobKeys(media.id);
    const event: RegisteredMedia = { media };
    if (media.kind === 'watermarked') {
      event.reduced = decodeReduced(await requireBlob(this.blobs, keys.reduced));
    } else {
      event.image = await requireBlob(this.blobs, keys.original);
    }
    for (const listener of this.extensions.get(MEDIA_EVENTS)) await listener.registered(event);
  }

  private async fromRegistrationFile(ownerId: number, file: Buffer): Promise<Prepared> {
    const registration: Registration = decodeLmk(file, await this.accounts.privateKey(ownerId));
    const row: Partial<Media> = {
      kind: 'watermarked',
      mode: registration.mode,
      width: registration.original.width,
      height: registration.original.height,
      format: registration.original.format,
      pixelHash: registration.pixelHash,
      sealedKey: this.box.seal(registration.key),
      params: { ...registration.params } as unknown as Record<string, number>,
    };
    let reduced = registration.reduced;
    if (registration.mode === 'transactional') {
      // The reduced copy comes from the first, normal registration of the same pixels.
      const original = await this.db.manager.findOne(Media, {
        where: { accountId: ownerId, pixelHash: registration.pixelHash, kind: 'watermarked', mode: 'normal' },
        order: { id: 'ASC' },
      });
      const stored = original ? await requireBlob(this.blobs, blobKeys(original.id).reduced) : null;
      if (!original || !stored) {
        throw new ApiError(422, 'original_not_registered', 'No registered original has the same pixels: register the first (non-transactional) registration file of this image first, and do not change its pixels.');
      }
      reduced = decodeReduced(stored);
    }
    if (!reduced) throw new ApiError(400, 'lmk_invalid', 'The registration file has no reduced copy.');
    const { thumbnail, preview } = await renderReduced(reduced);
    return {
      row,
      reduced,
      blobs: [
        { key: 'original', data: file },
        { key: 'reduced', data: encodeReduced(reduced) },
        { key: 'thumbnail', data: thumbnail },
        { key: 'preview', data: preview },
      ],
    };
  }

  private async fromVideo(bytes: Buffer): Promise<Prepared> {
    return withTempFile(bytes, async (file) => {
      const info = await probeVideo(file, { maxDuration: this.core.maxVideoSeconds });
      let thumbnail: Buffer | null = null;
      for await (const f of sampleFrames(file, { fps: 1, side: 256, width: info.width, height: info.height, maxFrames: 1 })) {
        thumbnail = await getSharp()(Buffer.from(f.luma), { raw: { width: f.width, height: f.height, channels: 1 } }).jpeg({ quality: 80 }).toBuffer();
      }
      if (!thumbnail) throw new VideoError('video_empty', 'no frame could be decoded');
      return {
        row: { type: 'video', kind: 'plain', mode: null, width: info.width, height: info.height, format: info.format, duration: info.duration, processing: 'pending' },
        blobs: [
          { key: 'original', data: bytes },
          { key: 'thumbnail', data: thumbnail },
        ],
      };
    });
  }

  private async fromImage(bytes: Buffer): Promise<Prepared> {
    // A CMYK JPEG (press archives have many) is registered as it is, identified through its sRGB rendering.
    const limits = { maxPixels: this.core.maxImagePixels, cmykAsRgb: true };
    const info = await probeImage(bytes, limits);
    const raw = await decodeRaw(bytes, info, limits);
    return {
      row: { kind: 'plain', mode: null, width: info.width, height: info.height, format: info.format, pixelHash: pixelHash(raw) },
      image: bytes,
      blobs: [
        { key: 'original', data: bytes },
        { key: 'thumbnail', data: await renderThumbnail(bytes) },
      ],
    };
  }
}

/** A registration file, a video or an image, told apart by their first bytes. */
export function inputOf(bytes: Buffer): RegistrationInput {
  if (bytes.subarray(0, 4).equals(LMK_MAGIC)) return { kind: 'lmk', file: bytes };
  return sniffVideo(bytes) ? { kind: 'video', bytes } : { kind: 'image', bytes };
}
