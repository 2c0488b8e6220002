import test from 'ava';
import { generateKeyPairSync } from 'node:crypto';
import { decodeLmk, encodeLmk, encodePayload, MAX_ORIGINAL_SIDE, readLmkHeader, sealLmkPayload } from '../src/lmk-format';
import {
  InvalidAccountKeyError,
  LmkInvalidError,
  LmkTamperedError,
  LmkTruncatedError,
  LmkUnknownVersionError,
  LmkWrongKeyError,
} from '../src/errors';
import { generateKey } from '../src/key';
import type { Registration } from '../src/registration';

function account(): { pub: Buffer; priv: Buffer } {
  const { publicKey, privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  return {
    pub: publicKey.export({ type: 'spki', format: 'der' }),
    priv: privateKey.export({ type: 'pkcs8', format: 'der' }),
  };
}

const alice = account();
const bob = account();

function registration(mode: 'normal' | 'transactional'): Registration {
  const luma = Uint16Array.from({ length: 40 * 30 }, (_, i) => (i * 97) % 65536);
  const r: Registration = {
    mode,
    key: generateKey(),
    pixelHash: Buffer.alloc(32, 7),
    params: { algorithm: 1, canonicalSize: 512, gridWidth: 40, gridHeight: 30, bandLow: 0.02, bandHigh: 0.12, laCap: 5, targetPsnr: 44, psnr: 44.02 },
    original: { width: 40, height: 30, format: 'png' },
  };
  if (mode === 'normal') r.reduced = { width: 40, height: 30, luma };
  return r;
}

test('normal and transactional registrations round-trip', (t) => {
  for (const mode of ['normal', 'transactional'] as const) {
    const r = registration(mode);
    const file = encodeLmk(r, alice.pub);
    t.deepEqual(decodeLmk(file, alice.priv), r);
    t.is(readLmkHeader(file).transactional, mode === 'transactional');
  }
  t.true(encodeLmk(registration('transactional'), alice.pub).length < 600);
});

test('a truncated file is lmk_truncated', (t) => {
  const file = encodeLmk(registration('normal'), alice.pub);
  for (const cut of [3, 20, 300, file.length - 1]) {
    const err = t.throws(() => decodeLmk(file.subarray(0, cut), alice.priv), { instanceOf: LmkTruncatedError });
    t.is(err?.code, 'lmk_truncated');
  }
});

test('any changed byte after the header is lmk_tampered', (t) => {
  const file = encodeLmk(registration('normal'), alice.pub);
  for (const at of [45, 300, 320, file.length - 40, file.length - 1]) {
    const bad = Buffer.from(file);
    bad[at] ^= 0x01;
    const err = t.throws(() => decodeLmk(bad, alice.priv), { instanceOf: LmkTamperedError });
    t.is(err?.code, 'lmk_tampered');
  }
  const flag = Buffer.from(file);
  flag[5] ^= 1; // the transactional flag is authenticated too
  t.throws(() => decodeLmk(flag, alice.priv), { instanceOf: LmkTamperedError });
  t.throws(() => decodeLmk(Buffer.concat([file, Buffer.from([0])]), alice.priv), { instanceOf: LmkTamperedError });
});

test("another account's key is lmk_wrong_key", (t) => {
  const file = encodeLmk(registration('normal'), alice.pub);
  const err = t.throws(() => decodeLmk(file, bob.priv), { instanceOf: LmkWrongKeyError });
  t.is(err?.code, 'lmk_wrong_key');
});

test('an unknown version is lmk_unknown_version, a foreign file lmk_invalid', (t) => {
  const file = encodeLmk(registration('normal'), alice.pub);
  const future = Buffer.from(file);
  future[4] = 9;
  const err = t.throws(() => decodeLmk(future, alice.priv), { instanceOf: LmkUnknownVersionError });
  t.is(err?.code, 'lmk_unknown_version');
  t.throws(() => decodeLmk(Buffer.from('GIF89a not a registration'), alice.priv), { instanceOf: LmkInvalidError });
});

test('sealing needs an RSA SPKI DER public key', (t) => {
  t.throws(() => encodeLmk(registration('normal'), Buffer.from('not a key')), { instanceOf: InvalidAccountKeyError });
  const ec = generateKeyPairSync('ec', { namedCurve: 'P-256' }).publicKey.export({ type: 'spki', format: 'der' });
  t.throws(() => encodeLmk(registration('normal'), ec), { instanceOf: InvalidAccountKeyError });
});

test('every payload field out of range is lmk_invalid (anyone can seal a file with the public key)', (t) => {
  // Offsets in the payload (docs/lmk-format.md).
  const crafted: [string, (p: Buffer) => void][] = [
    ['mode byte 2', (p) => p.writeUInt8(2, 0)],
    ['width 2^32-1', (p) => p.writeUInt32LE(2 ** 32 - 1, 66)],
    ['width 0', (p) => p.writeUInt32LE(0, 66)],
    ['height past the largest side', (p) => p.writeUInt32LE(MAX_ORIGINAL_SIDE + 1, 70)],
    ['format byte 9', (p) => p.writeUInt8(9, 74)],
    ['reserved bytes', (p) => p.writeUInt16LE(1, 81)],
    ['band NaN', (p) => p.writeDoubleLE(Number.NaN, 83)],
    ['laCap NaN', (p) => p.writeDoubleLE(Number.NaN, 99)],
    ['laCap infinite', (p) => p.writeDoubleLE(Number.POSITIVE_INFINITY, 99)],
    ['target PSNR negative', (p) => p.writeDoubleLE(-3, 107)],
    ['target PSNR infinite', (p) => p.writeDoubleLE(Number.POSITIVE_INFINITY, 107)],
    ['achieved PSNR NaN', (p) => p.writeDoubleLE(Number.NaN, 115)],
    ['achieved PSNR negative', (p) => p.writeDoubleLE(-1, 115)],
  ];
  for (const [label, change] of crafted) {
    const payload = encodePayload(registration('normal'));
    change(payload);
    const err = t.throws(() => decodeLmk(sealLmkPayload(payload, false, alice.pub), alice.priv), { instanceOf: LmkInvalidError }, label);
    t.is(err?.code, 'lmk_invalid', label);
  }
  // The widest original the service supports, and an unchanged image (infinite PSNR), still open.
  const r = registration('normal');
  r.original.width = MAX_ORIGINAL_SIDE;
  r.params.psnr = Number.POSITIVE_INFINITY;
  t.deepEqual(decodeLmk(encodeLmk(r, alice.pub), alice.priv), r);
});
