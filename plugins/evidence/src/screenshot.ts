import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';
import { isCaptured, type CaptureSession } from './capture-session.js';

/** A full-page screenshot, or why there is none. */
export type ScreenshotResult =
  | { png: Buffer; width: number; height: number; takenAt: Date; chromium: string }
  | { png: null; reason: string };

/** Pages taller than this are cut (a screenshot of an endless page would never end). */
const MAX_HEIGHT = 16_000;
const VIEWPORT = { width: 1280, height: 900 };

/**
 * Renders `url` in headless Chromium (the operating system's, at `executable`; never downloaded)
 * and takes a full-page PNG. Every request the browser makes is answered from the capture
 * session, i.e. through the SSRF-safe fetcher, and so lands in the pack's WARC; anything the
 * routing cannot answer (WebSockets, a request around it) meets a proxy that does not exist.
 */
export async function screenshot(executable: string, url: string, session: CaptureSession, timeoutMs: number): Promise<ScreenshotResult> {
  if (!existsSync(executable)) return { png: null, reason: `Chromium was not found at ${executable} (CHROMIUM_PATH): no screenshot was taken` };
  let browser: Browser | null = null;
  const deadline = Date.now() + timeoutMs;
  // A hostile page can hang what has no timeout of its own (a script looping after load blocks
  // evaluate): past the deadline plus a grace period the browser is closed, which ends every call.
  let expired = false;
  const guard = setTimeout(() => {
    expired = true;
    void browser?.close().catch(() => undefined);
  }, timeoutMs + 5_000);
  try {
    browser = await chromium.launch({
      executablePath: executable,
      headless: true,
      timeout: timeoutMs,
      args: ['--no-sandbox', '--proxy-server=http://127.0.0.1:9', '--proxy-bypass-list=<-loopback>', '--disable-background-networking', '--no-first-run'],
    });
    const context = await browser.newContext({ viewport: VIEWPORT, serviceWorkers: 'block', acceptDownloads: false, javaScriptEnabled: true });
    await context.route('**/*', async (route) => {
      const request = route.request();
      if (request.method() !== 'GET' || !/^https?:/i.test(request.url())) return route.abort('blockedbyclient');
      const res = await session.fetch(request.url());
      if (!isCaptured(res)) return route.abort('blockedbyclient');
      return route.fulfill({ status: res.status, contentType: res.contentType ?? 'application/octet-stream', body: res.body });
    });
    await context.routeWebSocket(/.*/, (ws) => ws.close());
    const page = await context.newPage();
    page.setDefaultTimeout(Math.max(1000, deadline - Date.now()));
    await page.goto(url, { waitUntil: 'load', timeout: Math.max(1000, deadline - Date.now()) });
    // Late images and fonts: a short settle, bounded by the deadline.
    await page.waitForLoadState('networkidle', { timeout: Math.max(500, Math.min(3000, deadline - Date.now())) }).catch(() => undefined);
    const height = Math.min(MAX_HEIGHT, await page.evaluate('Math.max(document.documentElement.scrollHeight, document.body ? document.body.scrollHeight : 0)') as number);
    const png = await page.screenshot({ type: 'png', fullPage: height <= MAX_HEIGHT, clip: height > MAX_HEIGHT ? { x: 0, y: 0, width: VIEWPORT.width, height: MAX_HEIGHT } : undefined, timeout: Math.max(1000, deadline - Date.now()) });
    return { png, width: VIEWPORT.width, height: Math.max(VIEWPORT.height, height), takenAt: new Date(), chromium: browser.version() };
  } catch (err) {
    if (expired) return { png: null, reason: `the screenshot failed: the page did not render within ${Math.round(timeoutMs / 1000)} s` };
    return { png: null, reason: `the screenshot failed: ${((err as Error).message ?? String(err)).split('\n')[0]!.slice(0, 300)}` };
  } finally {
    clearTimeout(guard);
    await browser?.close().catch(() => undefined);
  }
}
