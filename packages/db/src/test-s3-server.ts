import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface TestS3Server {
  /** S3_ENDPOINT of the server (path-style, any credentials accepted). */
  endpoint: string;
  bucket: string;
  /** The environment a process needs to use it (BLOB_STORE_URL, S3_*, AWS_*). */
  env(prefix?: string): Record<string, string>;
  /** An outage: the server stops listening; its files stay. */
  stop(): Promise<void>;
  /** Back from the outage, on the same port with the same files. */
  resume(): Promise<void>;
  close(): Promise<void>;
}

interface S3rverInstance {
  run(): Promise<{ address: string; port: number }>;
  close(): Promise<void>;
}

/** A real S3 server (s3rver, a dev dependency) on a loopback port with one bucket, for tests. */
export async function startTestS3Server(bucket = 'filigrane-test'): Promise<TestS3Server> {
  const directory = mkdtempSync(join(tmpdir(), 'filigrane-s3-'));
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const S3rver = require('s3rver') as new (options: object) => S3rverInstance;
  const at = (port: number) => new S3rver({ address: '127.0.0.1', port, silent: true, directory, configureBuckets: [{ name: bucket, configs: [] }] });
  let server: S3rverInstance | null = at(0);
  const { port } = await server.run();
  const endpoint = `http://127.0.0.1:${port}`;
  return {
    endpoint,
    bucket,
    env: (prefix = '') => ({
      BLOB_STORE_URL: `s3://${bucket}${prefix ? `/${prefix}` : ''}`,
      S3_ENDPOINT: endpoint,
      S3_FORCE_PATH_STYLE: 'true',
      AWS_ACCESS_KEY_ID: 'S3RVER',
      AWS_SECRET_ACCESS_KEY: 'S3RVER',
      AWS_REGION: 'us-east-1',
    }),
    async stop() {
      await server?.close();
      server = null;
    },
    async resume() {
      if (server) return;
      server = at(port);
      await server.run();
    },
    async close() {
      await server?.close();
      server = null;
      rmSync(directory, { recursive: true, force: true });
    },
  };
}
