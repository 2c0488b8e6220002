import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { getSharp } from '@filigrane/vision';
import type { CallResult, TestServer } from '@filigrane/testing';

/**
 * A photo-like test image: smooth gradients plus deterministic texture, so the perceptual mask
 * gives the watermark room (a flat image would take almost none).
 */
export async function testImage(format: 'png' | 'jpeg' | 'gif', width = 320, height = 240, seed = 1): Promise<Buffer> {
  const data = Buffer.alloc(width * height * 3);
  let s = seed >>> 0 || 1;
  const rand = () => ((s = (s * 1664525 + 1013904223) >>> 0) / 2 ** 32);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const o = (y * width + x) * 3;
      const base = 128 + 60 * Math.sin(x / 17 + seed) * Math.cos(y / 23) + 30 * Math.sin((x + y) / 7);
      const noise = (rand() - 0.5) * 40;
      data[o] = clamp(base + noise);
      data[o + 1] = clamp(base * 0.8 + 40 + noise);
      data[o + 2] = clamp(255 - base + noise);
    }
  }
  const img = getSharp()(data, { raw: { width, height, channels: 3 } });
  return format === 'png' ? img.png().toBuffer() : format === 'jpeg' ? img.jpeg({ quality: 92 }).toBuffer() : img.gif().toBuffer();
}

const clamp = (v: number) => Math.max(0, Math.min(255, Math.round(v)));

/** Raw RGB pixels of an encoded image. */
export async function pixels(image: Buffer): Promise<Buffer> {
  return getSharp()(image).removeAlpha().raw().toBuffer();
}

export const dataUri = (bytes: Buffer, type: string) => `data:${type};base64,${bytes.toString('base64')}`;

/** GETs a status URL until the job is complete or failed (or `ms` passes). */
export async function pollUntilDone(server: TestServer, url: string, key: string, ms = 60_000): Promise<CallResult> {
  const deadline = Date.now() + ms;
  for (;;) {
    const res = await server.call('GET', new URL(url).pathname, { key });
    if (res.status !== 200 || ['complete', 'failed'].includes(res.json.status) || Date.now() > deadline) return res;
    await sleep(250);
  }
}

/** A plain HTTP server on loopback serving one file, to test fetching by URL. */
export async function serveFile(body: Buffer, contentType: string): Promise<{ url: string; close(): Promise<void> }> {
  const server: Server = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': contentType, 'content-length': body.length });
    res.end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/image`, close: () => new Promise((resolve) => server.close(() => resolve())) };
}
