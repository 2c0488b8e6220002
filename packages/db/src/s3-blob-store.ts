import { Transform, type Readable } from 'node:stream';
import {
  DeleteObjectCommand,
  DeleteObjectsCommand,
  GetObjectCommand,
  HeadBucketCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
  type S3ClientConfig,
} from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { assertBlobKey, BlobStoreUnavailableError, type BlobStore, type ByteRange } from '@filigrane/core';

export interface S3BlobStoreOptions {
  bucket: string;
  /** Prepended to every key (`prefix/`), may be empty. */
  prefix: string;
  /** S3_ENDPOINT: MinIO, Garage, Ceph, R2...; unset: AWS. */
  endpoint?: string;
  /** S3_FORCE_PATH_STYLE: `endpoint/bucket/key` instead of `bucket.endpoint/key` (most self-hosted stores). */
  forcePathStyle?: boolean;
  /** Credentials and region otherwise come from the AWS SDK's standard chain (AWS_ACCESS_KEY_ID, AWS_PROFILE, roles...). */
  client?: S3ClientConfig;
}

/** Parts of a streamed upload: 8 MiB, two in flight (16 MiB of memory per upload at most). */
const PART_SIZE = 8 * 1024 * 1024;

const missing = (err: unknown) => {
  const e = err as { name?: string; $metadata?: { httpStatusCode?: number } };
  return e.name === 'NoSuchKey' || e.name === 'NotFound' || (e.$metadata?.httpStatusCode === 404 && e.name !== 'NoSuchBucket');
};

/**
 * BlobStore on any S3-compatible service, so processes that share no folder share files.
 * Large writes are multipart uploads streamed from their source; reads are streamed, ranged ones
 * with an HTTP Range (video seeking).
 */
export class S3BlobStore implements BlobStore {
  readonly client: S3Client;
  private readonly bucket: string;
  private readonly prefix: string;

  constructor(options: S3BlobStoreOptions) {
    this.bucket = options.bucket;
    this.prefix = options.prefix.replace(/^\/+|\/+$/g, '');
    this.client = new S3Client({
      region: process.env.AWS_REGION || process.env.AWS_DEFAULT_REGION || 'us-east-1',
      ...(options.endpoint ? { endpoint: options.endpoint } : {}),
      forcePathStyle: options.forcePathStyle ?? false,
      // Checksums only where S3 requires them: several S3-compatible stores reject the newer defaults.
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
      ...options.client,
    });
  }

  private key(key: string): string {
    assertBlobKey(key);
    return this.prefix ? `${this.prefix}/${key}` : key;
  }

  /** The store failing (unreachable, refused, no bucket) is an error of its own, naming the operation and key. */
  private async call<T>(operation: string, key: string, run: () => Promise<T>): Promise<T> {
    try {
      return await run();
    } catch (err) {
      if (err instanceof BlobStoreUnavailableError) throw err;
      throw new BlobStoreUnavailableError(operation, `s3://${this.bucket}/${key}`, err);
    }
  }

  /** A read: null when the object is not there, the store's failure as in `call`. */
  private async read<T>(operation: string, key: string, run: () => Promise<T>): Promise<T | null> {
    try {
      return await run();
    } catch (err) {
      if (missing(err)) return null;
      throw new BlobStoreUnavailableError(operation, `s3://${this.bucket}/${key}`, err);
    }
  }

  /**
   * A HEAD answers a bare 404 both for a missing object and a missing bucket (no body to tell them
   * apart): the bucket gone (deleted, a wrong bucket) is the store failing, not the file missing.
   */
  private async bucketThere(operation: string, key: string): Promise<void> {
    await this.call(operation, key, async () => {
      try {
        await this.client.send(new HeadBucketCommand({ Bucket: this.bucket }));
      } catch (err) {
        if ((err as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode === 404) throw new Error(`the bucket "${this.bucket}" does not exist`, { cause: err });
        throw err;
      }
    });
  }

  /** At boot: the bucket exists and the credentials are accepted, or the process does not start. */
  async check(): Promise<void> {
    const where = `BLOB_STORE_URL s3://${this.bucket}${this.prefix ? `/${this.prefix}` : ''}`;
    try {
      await this.client.send(new HeadBucketCommand({ Bucket: this.bucket }));
    } catch (err) {
      const e = err as { name?: string; message?: string; $metadata?: { httpStatusCode?: number } };
      const status = e.$metadata?.httpStatusCode;
      const why =
        status === 404 || e.name === 'NoSuchBucket' ? `the bucket "${this.bucket}" does not exist (create it, or fix BLOB_STORE_URL or S3_ENDPOINT)`
        : status === 403 || status === 401 ? 'the credentials were refused (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_PROFILE or the instance role)'
        : `the store could not be reached (S3_ENDPOINT, S3_FORCE_PATH_STYLE, AWS_REGION): ${e.name ?? ''} ${e.message ?? String(err)}`.trim();
      throw new Error(`${where}: ${why}`, { cause: err });
    }
  }

  async put(key: string, data: Buffer): Promise<void> {
    const Key = this.key(key);
    await this.call('put', Key, () => this.client.send(new PutObjectCommand({ Bucket: this.bucket, Key, Body: data, ContentLength: data.length })));
  }

  async putStream(key: string, source: Readable): Promise<number> {
    let bytes = 0;
    const counted = source.pipe(
      new Transform({
        transform(chunk: Buffer, _enc, done) {
          bytes += chunk.length;
          done(null, chunk);
        },
      }),
    );
    source.once('error', (err) => counted.destroy(err));
    const Key = this.key(key);
    const upload = new Upload({ client: this.client, params: { Bucket: this.bucket, Key, Body: counted }, partSize: PART_SIZE, queueSize: 2, leavePartsOnError: false });
    try {
      await upload.done();
    } catch (err) {
      // The source's own failure is the caller's; the store's is the operators'.
      if (source.errored || counted.errored) throw err;
      throw new BlobStoreUnavailableError('upload', `s3://${this.bucket}/${Key}`, err);
    }
    return bytes;
  }

  async open(key: string, pick?: (size: number) => ByteRange | null): Promise<{ stream: Readable; size: number; range: ByteRange | null } | null> {
    const Key = this.key(key);
    const head = await this.read('open', Key, () => this.client.send(new HeadObjectCommand({ Bucket: this.bucket, Key })));
    if (!head) {
      await this.bucketThere('open', Key);
      return null;
    }
    const size = head.ContentLength ?? 0;
    const range = pick ? pick(size) : null;
    const out = await this.read('open', Key, () => this.client.send(new GetObjectCommand({ Bucket: this.bucket, Key, ...(range ? { Range: `bytes=${range.start}-${range.end}` } : {}) })));
    if (!out) return null;
    return { stream: out.Body as Readable, size, range };
  }

  async get(key: string): Promise<Buffer | null> {
    const Key = this.key(key);
    return this.read('get', Key, async () => Buffer.from(await (await this.client.send(new GetObjectCommand({ Bucket: this.bucket, Key }))).Body!.transformToByteArray()));
  }

  async delete(key: string): Promise<void> {
    const Key = this.key(key);
    await this.call('delete', Key, () => this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key })));
  }

  async deletePrefix(prefix: string): Promise<void> {
    let batch: string[] = [];
    const flush = async () => {
      if (!batch.length) return;
      const out = await this.call('delete', `${this.key(prefix)}/`, () => this.client.send(new DeleteObjectsCommand({ Bucket: this.bucket, Delete: { Objects: batch.map((Key) => ({ Key })), Quiet: true } })));
      if (out.Errors?.length) throw new Error(`could not delete ${out.Errors.length} blob(s) under ${prefix}: ${out.Errors[0]?.Code} ${out.Errors[0]?.Message}`);
      batch = [];
    };
    for await (const key of this.list(prefix)) {
      batch.push(this.key(key));
      if (batch.length === 1000) await flush();
    }
    await flush();
  }

  async *list(prefix: string): AsyncIterable<string> {
    const full = `${this.key(prefix)}/`;
    const strip = this.prefix ? this.prefix.length + 1 : 0;
    let token: string | undefined;
    do {
      const page = await this.call('list', full, () => this.client.send(new ListObjectsV2Command({ Bucket: this.bucket, Prefix: full, ContinuationToken: token })));
      for (const o of page.Contents ?? []) if (o.Key) yield o.Key.slice(strip);
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
  }
}
