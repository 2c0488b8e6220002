import sharp from 'sharp';
import { MatchRecorder } from '@filigrane/plugin-matches';
import type { TestAccount, TestServer } from '@filigrane/testing';

/** A registered picture (similarity tracking), its media id. */
export async function register(account: TestAccount, path: string, colour: string): Promise<string> {
  const png = await sharp({ create: { width: 64, height: 48, channels: 3, background: colour } }).png().toBuffer();
  const res = await account.call('PUT', `/api/v4/media/${account.username}${path}`, { json: { url: `data:image/png;base64,${png.toString('base64')}` } });
  if (res.status !== 201) throw new Error(res.text);
  return new URL(res.json.thumbnail).pathname.split('/')[4]!;
}

/** A web match of the media on a page (as a tracking source would record it); its v4 id. */
export async function sighted(server: TestServer, account: TestAccount, mediaId: string, pageUrl: string, imageUrl: string, seenAt: Date): Promise<string> {
  const recorded = await server.get(MatchRecorder).record({
    sighting: { accountId: account.id, source: 'test', kind: 'web', image: {}, imageUrl, page: { url: pageUrl }, seenAt },
    mediaId: Number(mediaId),
    watermarked: true,
    exclusive: null,
    query: { width: 640, height: 480, format: 'jpeg' },
  });
  return String(recorded.id);
}
