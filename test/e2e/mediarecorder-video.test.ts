import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import test from 'ava';
import { chromium } from 'playwright-core';
import { startTestServer, type TestServer } from '@filigrane/testing';
import { FFPROBE } from '@filigrane/video';

// A video as browsers record it (MediaRecorder: WebM with no duration in its header), made by
// Chromium and registered through REST. Run once: in the embedded suite only (skipped when
// DATABASE_URL is set), as the other browser tests.
const run = process.env.DATABASE_URL ? test.skip : test.serial;

let server: TestServer;
test.before(async () => {
  if (process.env.DATABASE_URL) return;
  server = await startTestServer({ plugins: ['search'], workers: true });
});
test.after.always(async () => server?.close());

/** Four seconds of a canvas animation recorded by Chromium's MediaRecorder (VP8 in WebM, chunks of 0.5 s). */
async function record(): Promise<Buffer> {
  const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox', '--disable-dev-shm-usage'] });
  try {
    const page = await browser.newPage();
    // Page code as a string: this package compiles without the DOM's types.
    const base64 = await page.evaluate<string>(`(async () => {
      const canvas = document.createElement('canvas');
      canvas.width = 320;
      canvas.height = 240;
      document.body.appendChild(canvas);
      const g = canvas.getContext('2d');
      const recorder = new MediaRecorder(canvas.captureStream(25), { mimeType: 'video/webm;codecs=vp8' });
      const chunks = [];
      recorder.ondataavailable = (e) => chunks.push(e.data);
      let frame = 0;
      const timer = setInterval(() => {
        g.fillStyle = 'hsl(' + ((frame * 7) % 360) + ',70%,50%)';
        g.fillRect(0, 0, 320, 240);
        g.fillStyle = '#fff';
        g.fillRect((frame * 5) % 300, 100, 20, 20);
        g.font = '40px sans-serif';
        g.fillText(String(frame++), 20, 60);
      }, 40);
      recorder.start(500);
      await new Promise((r) => setTimeout(r, 4000));
      const stopped = new Promise((r) => (recorder.onstop = r));
      recorder.stop();
      await stopped;
      clearInterval(timer);
      const bytes = new Uint8Array(await new Blob(chunks).arrayBuffer());
      let binary = '';
      for (const b of bytes) binary += String.fromCharCode(b);
      return btoa(binary);
    })()`);
    return Buffer.from(base64, 'base64');
  } finally {
    await browser.close();
  }
}

run('a WebM recorded by a browser (no duration in its header) registers with its duration measured and is fingerprinted', async (t) => {
  t.timeout(120_000);
  const webm = await record();
  const file = join(mkdtempSync(join(tmpdir(), 'filigrane-mediarecorder-')), 'recorded.webm');
  writeFileSync(file, webm);
  const header = execFileSync(FFPROBE, ['-v', 'error', '-show_entries', 'format=duration', '-of', 'csv=p=0', file], { encoding: 'utf8' }).trim();
  t.true(header === '' || header === 'N/A', `the recording has no duration in its header (${header})`);

  const { apiKey: key } = await server.createAccount('recorder');
  const res = await server.call('PUT', '/api/v4/media/recorder/recorded.webm', { key, body: webm, headers: { 'content-type': 'video/webm' } });
  t.is(res.status, 201, res.text);
  t.like(res.json.video, { format: 'webm', width: 320, height: 240 });
  t.true(res.json.video.duration > 3 && res.json.video.duration < 5, `duration ${res.json.video.duration}`);
  let status = 'pending';
  for (let i = 0; i < 240 && status === 'pending'; i++) {
    await new Promise((r) => setTimeout(r, 250));
    status = (await server.call('GET', '/api/v4/media/recorder/recorded.webm', { key })).json.video.status;
  }
  t.is(status, 'ready');
});
