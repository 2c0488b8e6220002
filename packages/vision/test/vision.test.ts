import test from 'ava';
import sharp from 'sharp';
import {
  AreaReducer,
  apply,
  areaReduce,
  computeOrbFeatures,
  estimateJpegQuality,
  jpegChromaSubsampling,
  invert,
  multiply,
  registerQuery,
  resizeMap,
  probeQuery,
  sniffFormat,
  sniffQueryFormat,
  toGray8,
  warpToGrid,
  DESCRIPTOR_BYTES,
  type Mat3,
  type OrbFeatures,
} from '../src/index';

test('sniffFormat reads magic bytes only', async (t) => {
  const px = { create: { width: 40, height: 40, channels: 3 as const, background: '#369' } };
  t.is(sniffFormat(await sharp(px).jpeg().toBuffer()), 'jpeg');
  t.is(sniffFormat(await sharp(px).png().toBuffer()), 'png');
  t.is(sniffFormat(await sharp(px).gif().toBuffer()), 'gif');
  t.is(sniffFormat(await sharp(px).webp().toBuffer()), undefined);
  t.is(sniffFormat(Buffer.from('hello')), undefined);
});

test('sniffQueryFormat adds WebP and AVIF (also as a compatible brand); probeQuery reads their size, HEIC and SVG are refused', async (t) => {
  const px = { create: { width: 40, height: 36, channels: 3 as const, background: '#369' } };
  const webp = await sharp(px).webp().toBuffer();
  const avif = await sharp(px).avif().toBuffer();
  t.is(sniffQueryFormat(await sharp(px).jpeg().toBuffer()), 'jpeg');
  t.is(sniffQueryFormat(webp), 'webp');
  t.is(sniffQueryFormat(avif), 'avif');
  // A 'mif1' major brand listing 'avif' among its compatible brands.
  const mif1 = Buffer.concat([Buffer.from([0, 0, 0, 24]), Buffer.from('ftypmif1\0\0\0\0mif1avif', 'latin1')]);
  t.is(sniffQueryFormat(mif1), 'avif');
  const heic = Buffer.concat([Buffer.from([0, 0, 0, 24]), Buffer.from('ftypheic\0\0\0\0mif1heic', 'latin1')]);
  t.is(sniffQueryFormat(heic), undefined);
  t.is(sniffQueryFormat(Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"/>')), undefined);
  t.like(await probeQuery(webp), { format: 'webp', width: 40, height: 36, pages: 1 });
  t.like(await probeQuery(avif), { format: 'avif', width: 40, height: 36 });
  await t.throwsAsync(probeQuery(heic), { code: 'unsupported_format' } as never);
  await t.throwsAsync(probeQuery(webp, { maxPixels: 1000 }), { code: 'image_too_large' } as never);
});

test('estimateJpegQuality recovers the IJG quality', async (t) => {
  for (const q of [50, 75, 90]) {
    const jpeg = await sharp({ create: { width: 64, height: 64, channels: 3, background: '#888' } }).jpeg({ quality: q }).toBuffer();
    const est = estimateJpegQuality(jpeg)!;
    t.true(Math.abs(est - q) <= 2, `q${q} -> ${est}`);
  }
});

test('area reduction preserves the mean and matches streaming', (t) => {
  const w = 101;
  const h = 67;
  const plane = Float32Array.from({ length: w * h }, (_, i) => (i * 37) % 256);
  const small = areaReduce(plane, w, h, 40, 27);
  const mean = (p: Float32Array): number => p.reduce((a, b) => a + b, 0) / p.length;
  t.true(Math.abs(mean(small) - mean(plane)) < 1e-3);
  const r = new AreaReducer(w, h, 40, 27);
  for (let y = 0; y < h; y++) r.push(plane.subarray(y * w, (y + 1) * w));
  t.deepEqual(r.result(), small);
  t.throws(() => new AreaReducer(10, 10, 20, 5), { instanceOf: RangeError });
});

test('prefix-sum area reduction equals the exact overlap integral', (t) => {
  // Reference: each destination cell averages the source over [j s, (j + 1) s) per axis, pixel by
  // pixel with the overlap length as weight (the form the reducer used before prefix sums).
  const overlap = (i: number, lo: number, hi: number): number => Math.max(0, Math.min(i + 1, hi) - Math.max(i, lo));
  for (const [w, h, w0, h0] of [[101, 67, 40, 27], [97, 89, 64, 61], [50, 30, 50, 7], [33, 21, 1, 1]]) {
    const plane = Float32Array.from({ length: w * h }, (_, i) => 127 + 120 * Math.sin(i * 0.37) * Math.cos(i * 0.011));
    const r = new AreaReducer(w, h, w0, h0, new Float32Array(w0 * h0));
    for (let y = 0; y < h; y++) r.push(plane.subarray(y * w, (y + 1) * w));
    const got = r.result();
    const sx = w / w0;
    const sy = h / h0;
    let worst = 0;
    for (let j = 0; j < h0; j++)
      for (let i = 0; i < w0; i++) {
        let s = 0;
        for (let y = Math.floor(j * sy); y < Math.min(h, Math.ceil((j + 1) * sy)); y++)
          for (let x = Math.floor(i * sx); x < Math.min(w, Math.ceil((i + 1) * sx)); x++)
            s += plane[y * w + x] * overlap(x, i * sx, (i + 1) * sx) * overlap(y, j * sy, (j + 1) * sy);
        worst = Math.max(worst, Math.abs(got[j * w0 + i] - s / (sx * sy)));
      }
    t.true(worst < 1e-4, `${w}x${h} -> ${w0}x${h0}: ${worst}`);
  }
});

test('homography helpers compose and invert', (t) => {
  const a: Mat3 = [1.1, 0.1, 5, -0.05, 0.9, -3, 1e-4, 2e-4, 1];
  const inv = invert(a)!;
  const [x, y] = apply(multiply(inv, a), 17, 23);
  t.true(Math.abs(x - 17) < 1e-9 && Math.abs(y - 23) < 1e-9);
  const [cx] = apply(resizeMap(200, 100, 100, 50), 199.5, 0);
  t.true(Math.abs(cx - 99.5) < 1e-9, 'right edge maps to right edge');
});

test('warpToGrid samples through the map and erodes the border', (t) => {
  const w = 64;
  const h = 48;
  const plane = Float32Array.from({ length: w * h }, (_, i) => i % w);
  const warped = warpToGrid(plane, w, h, [1, 0, 0, 0, 1, 0, 0, 0, 1], w, h, 2);
  t.is(warped.values[10 * w + 20], 20);
  t.is(warped.mask[0], 0);
  t.is(warped.mask[10 * w + 20], 1);
  // valid source span is [0, w-1] x [0, h-1]; eroding by 2 leaves (w - 4) x (h - 4)
  t.is(warped.valid, (w - 4) * (h - 4));
});

test('ORB + RANSAC recovers a known similarity', async (t) => {
  const w = 320;
  const h = 240;
  // random grey discs on a gradient: corners and blobs at many scales, nothing periodic
  const px = Buffer.alloc(w * h);
  let seed = 7;
  const rnd = (): number => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);
  const discs = Array.from({ length: 60 }, () => ({ x: rnd() * w, y: rnd() * h, r: 4 + rnd() * 30, v: rnd() * 255 }));
  for (let y = 0; y < h; y++)
    for (let x = 0; x < w; x++) {
      let v = 60 + (120 * x) / w;
      for (const d of discs) if ((x - d.x) ** 2 + (y - d.y) ** 2 < d.r * d.r) v = 0.3 * v + 0.7 * d.v;
      px[y * w + x] = v;
    }
  const ref = await computeOrbFeatures(px, w, h);
  t.true(ref.count > 100);
  t.is(ref.descriptors.length, ref.count * 32);
  // query = reference downscaled by 0.75 (grey, lanczos)
  const small = await sharp(px, { raw: { width: w, height: h, channels: 1 } }).resize({ width: 240, height: 180 }).extractChannel(0).raw().toBuffer();
  const q = await computeOrbFeatures(small, 240, 180);
  for (const model of ['scale', 'affine', 'perspective'] as const) {
    const reg = await registerQuery(q, ref, model);
    t.truthy(reg, model);
    const [x, y] = apply(reg!.homography, 120, 90);
    const [ex, ey] = apply(resizeMap(240, 180, w, h), 120, 90);
    t.true(Math.hypot(x - ex, y - ey) < 2, `${model}: ${x},${y} vs ${ex},${ey}`);
  }
  t.is(toGray8(Float32Array.from([-3, 12.4, 300])).join(), '0,12,255');

  // A quarter turn (an EXIF orientation baked in) registers under scale, mapped through the turn;
  // a free rotation does not (affine adds rotation).
  for (const angle of [90, 180, 270]) {
    const turned = await sharp(small, { raw: { width: 240, height: 180, channels: 1 } }).rotate(angle).extractChannel(0).raw().toBuffer({ resolveWithObject: true });
    const tq = await computeOrbFeatures(turned.data, turned.info.width, turned.info.height);
    const reg = await registerQuery(tq, ref, 'scale');
    t.truthy(reg, `scale, turned ${angle}`);
    // The small image's centre (120, 90) is the turned image's centre too.
    const [x, y] = apply(reg!.homography, turned.info.width / 2, turned.info.height / 2);
    const [ex, ey] = apply(resizeMap(240, 180, w, h), 120, 90);
    t.true(Math.hypot(x - ex, y - ey) < 3, `turned ${angle}: ${x},${y} vs ${ex},${ey}`);
  }
  const tilted = await sharp(small, { raw: { width: 240, height: 180, channels: 1 } }).rotate(30, { background: '#808080' }).extractChannel(0).raw().toBuffer({ resolveWithObject: true });
  const tilt = await computeOrbFeatures(tilted.data, tilted.info.width, tilted.info.height);
  t.falsy(await registerQuery(tilt, ref, 'scale'), 'a 30 degree rotation is not a scale');
  t.truthy(await registerQuery(tilt, ref, 'affine'), 'a 30 degree rotation is an affine');
});

test('a fit whose inliers sit on one spot (a corner matched at several pyramid levels) is no registration; the same count spread over the image is', async (t) => {
  // Matches built by hand: descriptor i of the query equals descriptor i of the reference (and no
  // other: random bytes lie ~128 bits apart), so every pair passes the ratio test. 120 pairs at
  // random places (noise), plus 16 whose query points are their reference points (identity).
  let state = 7;
  const byte = () => (state = (state * 1103515245 + 12345) >>> 0) >>> 24;
  const features = (points: number[]): OrbFeatures => {
    const count = points.length / 2;
    const descriptors = new Uint8Array(count * DESCRIPTOR_BYTES);
    return { width: 512, height: 384, count, points: Float32Array.from(points), descriptors };
  };
  const withDescriptors = (q: OrbFeatures, r: OrbFeatures) => {
    for (let i = 0; i < q.descriptors.length; i++) q.descriptors[i] = r.descriptors[i] = byte();
  };
  const build = (agreeing: (i: number) => [number, number]) => {
    const ref: number[] = [], query: number[] = [];
    for (let i = 0; i < 16; i++) {
      const [x, y] = agreeing(i);
      ref.push(x, y);
      query.push(x, y);
    }
    for (let i = 0; i < 120; i++) {
      ref.push(byte() * 2, byte() * 1.5);
      query.push(byte() * 2, byte() * 1.5);
    }
    const q = features(query), r = features(ref);
    withDescriptors(q, r);
    return { q, r };
  };
  const spot = build((i) => [260 + (i % 4) * 0.6, 30 + Math.floor(i / 4) * 0.6]);
  t.falsy(await registerQuery(spot.q, spot.r, 'scale'), '16 inliers within 2 px: one spot, not a copy');
  t.falsy(await registerQuery(spot.q, spot.r, 'affine'));
  const spread = build((i) => [40 + (i % 4) * 120, 30 + Math.floor(i / 4) * 100]);
  const reg = await registerQuery(spread.q, spread.r, 'scale');
  t.truthy(reg, '16 inliers over the image');
  t.true(reg!.inliers >= 16);
});

test('estimateJpegQuality is exact on libjpeg files; jpegChromaSubsampling reads the frame header', async (t) => {
  const img = (): sharp.Sharp => sharp({ create: { width: 64, height: 48, channels: 3, background: '#836' } });
  for (const q of [10, 35, 50, 63, 75, 92, 98, 100]) t.is(estimateJpegQuality(await img().jpeg({ quality: q }).toBuffer()), q);
  t.is(jpegChromaSubsampling(await img().jpeg({ chromaSubsampling: '4:2:0' }).toBuffer()), '4:2:0');
  t.is(jpegChromaSubsampling(await img().jpeg({ chromaSubsampling: '4:4:4' }).toBuffer()), '4:4:4');
  t.is(jpegChromaSubsampling(await img().toColourspace('b-w').jpeg().toBuffer()), undefined);
  // SOF0 with Y 2x1 and chroma 1x1 (4:2:2) spliced into a real file
  const jpeg = Buffer.from(await img().jpeg({ chromaSubsampling: '4:4:4' }).toBuffer());
  const sof = jpeg.indexOf(Buffer.from([0xff, 0xc0]));
  jpeg[sof + 11] = 0x21;
  t.is(jpegChromaSubsampling(jpeg), '4:2:2');
  jpeg[sof + 11] = 0x12;
  t.is(jpegChromaSubsampling(jpeg), '4:4:0');
  t.is(jpegChromaSubsampling(Buffer.from('not a jpeg')), undefined);
});
