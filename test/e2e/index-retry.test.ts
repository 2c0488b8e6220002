import test from 'ava';
import { contribute, definePlugin } from '@filigrane/core';
import { startTestServer, type TestServer } from '@filigrane/testing';
import { MEDIA_EVENTS, type MediaEventsListener, type RegisteredMedia } from '@filigrane/plugin-media';
import { syntheticPhoto } from '@filigrane/vision';

// A MEDIA_EVENTS listener (like the visual index) that fails its first call: the media it was told
// about is committed, so the PUT must answer 201 and the event must reach the listener again by a job.
class FlakyIndex implements MediaEventsListener {
  calls: RegisteredMedia[] = [];
  async registered(event: RegisteredMedia): Promise<void> {
    this.calls.push(event);
    if (this.calls.length === 1) throw new Error('index unavailable');
  }
  async deleted(): Promise<void> {}
}
const flaky = new FlakyIndex();
const flakyPlugin = definePlugin({ id: 'test-flaky-index', requires: ['media'], contributions: [contribute(MEDIA_EVENTS, () => flaky)] });

let server: TestServer;
test.before(async () => {
  server = await startTestServer({ plugins: ['media', 'search', flakyPlugin], workers: true });
});
test.after.always(async () => server?.close());

test('a listener failure after the commit answers 201 and the media is indexed by a retried job', async (t) => {
  const { apiKey: key } = await server.createAccount('retry');
  const put = await server.call('PUT', '/api/v4/media/retry/photo.png', { key, body: await syntheticPhoto(5, 320, 240), headers: { 'content-type': 'image/png' } });
  t.is(put.status, 201, put.text);
  t.is((await server.call('GET', '/api/v4/media/retry/photo.png', { key })).status, 200);
  for (let i = 0; i < 100 && flaky.calls.length < 2; i++) await new Promise((r) => setTimeout(r, 200));
  t.is(flaky.calls.length, 2, 'the job announced the media again');
  const again = flaky.calls[1]!;
  t.is(again.media.id, flaky.calls[0]!.media.id);
  t.true(Buffer.isBuffer(again.image) && again.image.length > 0, 'the event is rebuilt from the stored original');
  const [row] = await server.app.dataSource.query('SELECT count(*)::int AS n FROM visual_index WHERE media_id = $1', [again.media.id]);
  t.is(row.n, 1, 'the visual index itself has the media');
});
