/**
 * The .lmk registration file (media type application/lmk), sealed for one account: a clear header,
 * the content key wrapped with RSA-OAEP-SHA256 under the account's public key, then the payload
 * under AES-256-GCM with the header as associated data. Layout: docs/lmk-format.md.
 */
import { createCipheriv, createDecipheriv, createHash, createPublicKey, privateDecrypt, publicEncrypt, randomBytes, constants, createPrivateKey, type KeyObject } from 'node:crypto';
import { deflateRawSync, inflateRawSync } from 'node:zlib';
import type { ImageFormat } from '@filigrane/vision';
import {
  InvalidAccountKeyError,
  LmkInvalidError,
  LmkTamperedError,
  LmkTruncatedError,
  LmkUnknownVersionError,
  LmkWrongKeyError,
} from './errors';
import { MEDIA_KEY_BYTES } from './key';
import { ALGORITHM_VERSION, type EmbeddingParams } from './params';
import type { Registration } from './registration';

export const LMK_MEDIA_TYPE = 'application/lmk';
export const LMK_VERSION = 1;
const MAGIC = Buffer.from('FLMK', 'latin1');
const HEADER_FIXED = 4 + 1 + 1 + 2 + 32 + 2; // magic, version, flags, reserved, recipient, wrapped length
const IV_BYTES = 12;
const TAG_BYTES = 16;
const FLAG_TRANSACTIONAL = 1;

const FORMATS: readonly (ImageFormat | 'raw')[] = ['raw', 'jpeg', 'png', 'gif'];
/** Largest side of a registered original: libvips' own limit (VIPS_MAX_COORD), so no codec the service uses reads more. */
export const MAX_ORIGINAL_SIDE = 10_000_000;
/** Largest target PSNR a file may declare (dB): far above any visible watermark. */
const MAX_PSNR = 200;

function publicKeyOf(der: Uint8Array | KeyObject): KeyObject {
  try {
    const key = der instanceof Uint8Array ? createPublicKey({ key: Buffer.from(der), format: 'der', type: 'spki' }) : der;
    if (key.asymmetricKeyType !== 'rsa') throw new Error(`${key.asymmetricKeyType} key`);
    if ((key.asymmetricKeyDetails?.modulusLength ?? 0) < 2048) throw new Error('RSA key shorter than 2048 bits');
    return key;
  } catch (err) {
    throw new InvalidAccountKeyError(`not an RSA public key in SPKI DER form: ${(err as Error).message}`);
  }
}

function privateKeyOf(der: Uint8Array | KeyObject): KeyObject {
  try {
    return der instanceof Uint8Array ? createPrivateKey({ key: Buffer.from(der), format: 'der', type: 'pkcs8' }) : der;
  } catch (err) {
    throw new InvalidAccountKeyError(`not an RSA private key in PKCS#8 DER form: ${(err as Error).message}`);
  }
}

/** SHA-256 of the account's SPKI DER: says which account a file was sealed for. */
export function accountKeyFingerprint(publicKey: Uint8Array | KeyObject): Buffer {
  const spki = publicKeyOf(publicKey).export({ format: 'der', type: 'spki' });
  return createHash('sha256').update(spki).digest();
}

/** Validates an account public key (SPKI DER, RSA >= 2048 bits); throws InvalidAccountKeyError. */
export function assertAccountPublicKey(der: Uint8Array): void {
  publicKeyOf(der);
}

// ---- payload (plaintext inside GCM) ----

/**
 * Reduced-copy filter: each sample minus its left neighbour (the one above for the first column),
 * modulo 2^16, then all high bytes followed by all low bytes. Deflate then finds the long runs of
 * the high plane: about 25 % smaller than plain little-endian samples.
 */
function filterReduced(luma: Uint16Array, width: number): Buffer {
  const n = luma.length;
  const out = Buffer.alloc(2 * n);
  for (let i = 0; i < n; i++) {
    const pred = i % width > 0 ? luma[i - 1] : i >= width ? luma[i - width] : 0;
    const d = (luma[i] - pred) & 0xffff;
    out[i] = d >> 8;
    out[n + i] = d & 0xff;
  }
  return out;
}

function unfilterReduced(planes: Buffer, width: number): Uint16Array {
  const n = planes.length / 2;
  const luma = new Uint16Array(n);
  for (let i = 0; i < n; i++) {
    const pred = i % width > 0 ? luma[i - 1] : i >= width ? luma[i - width] : 0;
    luma[i] = (pred + ((planes[i] << 8) | planes[n + i])) & 0xffff;
  }
  return luma;
}

/** The plaintext payload of a registration (docs/lmk-format.md). */
export function encodePayload(r: Registration): Buffer {
  const p = r.params;
  const head = Buffer.alloc(2 + MEDIA_KEY_BYTES + 32 + 4 + 4 + 1 + 2 + 2 + 2 + 2 + 8 * 5);
  let o = 0;
  o = head.writeUInt8(r.mode === 'transactional' ? 1 : 0, o);
  o = head.writeUInt8(p.algorithm, o);
  o += r.key.copy(head, o);
  o += r.pixelHash.copy(head, o);
  o = head.writeUInt32LE(r.original.width, o);
  o = head.writeUInt32LE(r.original.height, o);
  o = head.writeUInt8(FORMATS.indexOf(r.original.format), o);
  o = head.writeUInt16LE(p.canonicalSize, o);
  o = head.writeUInt16LE(p.gridWidth, o);
  o = head.writeUInt16LE(p.gridHeight, o);
  o = head.writeUInt16LE(0, o); // reserved
  for (const v of [p.bandLow, p.bandHigh, p.laCap, p.targetPsnr, p.psnr]) o = head.writeDoubleLE(v, o);
  if (!r.reduced) return head;
  const { width, height, luma } = r.reduced;
  // Level 6: within 0.5 % of level 9's size on photographs, at a quarter of its time (~30 vs ~130 ms
  // for a 512 x 288 copy); the format does not depend on the level.
  const packed = deflateRawSync(filterReduced(luma, width), { level: 6 });
  const reducedHead = Buffer.alloc(8);
  reducedHead.writeUInt16LE(width, 0);
  reducedHead.writeUInt16LE(height, 2);
  reducedHead.writeUInt32LE(packed.length, 4);
  return Buffer.concat([head, reducedHead, packed]);
}

function decodePayload(buf: Buffer): Registration {
  const fixed = 2 + MEDIA_KEY_BYTES + 32 + 4 + 4 + 1 + 2 + 2 + 2 + 2 + 8 * 5;
  // The payload was authenticated by GCM: a malformed one means a writer bug, reported as tampering.
  if (buf.length < fixed) throw new LmkTamperedError('registration payload is too short');
  let o = 0;
  const modeByte = buf.readUInt8(o++);
  const transactional = modeByte === 1;
  const algorithm = buf.readUInt8(o++);
  const key = Buffer.from(buf.subarray(o, (o += MEDIA_KEY_BYTES)));
  const pixelHash = Buffer.from(buf.subarray(o, (o += 32)));
  const width = buf.readUInt32LE(o);
  const height = buf.readUInt32LE(o + 4);
  const format = FORMATS[buf.readUInt8(o + 8)];
  o += 9;
  const canonicalSize = buf.readUInt16LE(o);
  const gridWidth = buf.readUInt16LE(o + 2);
  const gridHeight = buf.readUInt16LE(o + 4);
  const reserved = buf.readUInt16LE(o + 6);
  o += 8;
  const [bandLow, bandHigh, laCap, targetPsnr, psnr] = [0, 1, 2, 3, 4].map((i) => buf.readDoubleLE(o + 8 * i));
  o += 40;
  const params: EmbeddingParams = { algorithm, canonicalSize, gridWidth, gridHeight, bandLow, bandHigh, laCap, targetPsnr, psnr };
  // The envelope only proves who sealed the file, and the account key is public: check the values.
  // Every field is bounded (the database stores the sides in integer columns).
  const sane =
    (modeByte === 0 || modeByte === 1) &&
    format !== undefined &&
    reserved === 0 &&
    width >= 1 && width <= MAX_ORIGINAL_SIDE && height >= 1 && height <= MAX_ORIGINAL_SIDE &&
    algorithm === ALGORITHM_VERSION &&
    canonicalSize >= 16 && canonicalSize <= 4096 &&
    gridWidth >= 1 && gridHeight >= 1 && Math.max(gridWidth, gridHeight) <= canonicalSize &&
    gridWidth <= width && gridHeight <= height &&
    bandLow > 0 && bandLow < bandHigh && bandHigh < 0.5 &&
    laCap > 0 && laCap <= 255 &&
    targetPsnr > 0 && targetPsnr <= MAX_PSNR &&
    // Infinite when the embedding changed no pixel (a flat, saturated image); never NaN or negative.
    psnr >= 0;
  if (!sane) throw new LmkInvalidError('registration parameters out of range');
  const registration: Registration = {
    mode: transactional ? 'transactional' : 'normal',
    key,
    pixelHash,
    params,
    original: { width, height, format: format! },
  };
  if (!transactional) {
    if (buf.length < o + 8) throw new LmkTamperedError('reduced copy missing');
    const rw = buf.readUInt16LE(o);
    const rh = buf.readUInt16LE(o + 2);
    const len = buf.readUInt32LE(o + 4);
    if (rw !== gridWidth || rh !== gridHeight) throw new LmkInvalidError('reduced copy does not match the canonical grid');
    let planes: Buffer;
    try {
      // Bounded: anyone holding the (public) account key can seal a file, so never trust lengths.
      planes = inflateRawSync(buf.subarray(o + 8, o + 8 + len), { maxOutputLength: rw * rh * 2 });
    } catch {
      throw new LmkInvalidError('reduced copy cannot be decompressed');
    }
    if (planes.length !== rw * rh * 2) throw new LmkInvalidError('reduced copy has the wrong size');
    registration.reduced = { width: rw, height: rh, luma: unfilterReduced(planes, rw) };
  }
  return registration;
}

// ---- envelope ----

/** Seals a registration for the account whose SPKI DER public key is given. */
export function encodeLmk(registration: Registration, accountPublicKey: Uint8Array | KeyObject): Buffer {
  return sealLmkPayload(encodePayload(registration), registration.mode === 'transactional', accountPublicKey);
}

/** The envelope around a payload (tests seal crafted payloads with it, as anyone holding the public key can). */
export function sealLmkPayload(plaintext: Buffer, transactional: boolean, accountPublicKey: Uint8Array | KeyObject): Buffer {
  const pub = publicKeyOf(accountPublicKey);
  const contentKey = randomBytes(32);
  const wrapped = publicEncrypt({ key: pub, padding: constants.RSA_PKCS1_OAEP_PADDING, oaepHash: 'sha256' }, contentKey);
  const header = Buffer.alloc(HEADER_FIXED);
  MAGIC.copy(header, 0);
  header.writeUInt8(LMK_VERSION, 4);
  header.writeUInt8(transactional ? FLAG_TRANSACTIONAL : 0, 5);
  header.writeUInt16LE(0, 6);
  accountKeyFingerprint(pub).copy(header, 8);
  header.writeUInt16LE(wrapped.length, 40);
  const iv = randomBytes(IV_BYTES);
  const lengthField = Buffer.alloc(4);
  lengthField.writeUInt32LE(plaintext.length, 0);
  const aad = Buffer.concat([header, wrapped, iv, lengthField]);
  const cipher = createCipheriv('aes-256-gcm', contentKey, iv);
  cipher.setAAD(aad);
  const body = Buffer.concat([cipher.update(plaintext), cipher.final()]);
  return Buffer.concat([aad, body, cipher.getAuthTag()]);
}

/** Clear header fields, readable without the private key (e.g. to route a file to its account). */
export interface LmkHeader {
  version: number;
  transactional: boolean;
  recipient: Buffer;
}

export function readLmkHeader(file: Uint8Array): LmkHeader {
  const buf = Buffer.from(file.buffer, file.byteOffset, file.byteLength);
  if (buf.length < 5) throw buf.length === 0 || MAGIC.subarray(0, buf.length).equals(buf) ? new LmkTruncatedError() : new LmkInvalidError();
  if (!buf.subarray(0, 4).equals(MAGIC)) throw new LmkInvalidError();
  const version = buf.readUInt8(4);
  if (version !== LMK_VERSION) throw new LmkUnknownVersionError(version);
  if (buf.length < HEADER_FIXED) throw new LmkTruncatedError();
  return { version, transactional: (buf.readUInt8(5) & FLAG_TRANSACTIONAL) !== 0, recipient: Buffer.from(buf.subarray(8, 40)) };
}

/** Opens a registration file with the account's PKCS#8 DER private key. */
export function decodeLmk(file: Uint8Array, accountPrivateKey: Uint8Array | KeyObject): Registration {
  const buf = Buffer.from(file.buffer, file.byteOffset, file.byteLength);
  const header = readLmkHeader(buf);
  const priv = privateKeyOf(accountPrivateKey);
  if (!header.recipient.equals(accountKeyFingerprint(createPublicKey(priv)))) throw new LmkWrongKeyError();
  const wrappedLength = buf.readUInt16LE(40);
  const ivAt = HEADER_FIXED + wrappedLength;
  const bodyAt = ivAt + IV_BYTES + 4;
  if (buf.length < bodyAt + TAG_BYTES) throw new LmkTruncatedError();
  const bodyLength = buf.readUInt32LE(ivAt + IV_BYTES);
  if (buf.length < bodyAt + bodyLength + TAG_BYTES) throw new LmkTruncatedError();
  if (buf.length > bodyAt + bodyLength + TAG_BYTES) throw new LmkTamperedError('trailing bytes after the registration file');
  let contentKey: Buffer;
  try {
    contentKey = privateDecrypt(
      { key: priv, padding: constants.RSA_PKCS1_OAEP_PADDING, oaepHash: 'sha256' },
      buf.subarray(HEADER_FIXED, ivAt),
    );
  } catch {
    // The recipient fingerprint matched, so a failed unwrap means the wrapped key was altered.
    throw new LmkTamperedError();
  }
  if (contentKey.length !== 32) throw new LmkTamperedError();
  const decipher = createDecipheriv('aes-256-gcm', contentKey, buf.subarray(ivAt, ivAt + IV_BYTES));
  decipher.setAAD(buf.subarray(0, bodyAt));
  decipher.setAuthTag(buf.subarray(bodyAt + bodyLength, bodyAt + bodyLength + TAG_BYTES));
  let plaintext: Buffer;
  try {
    plaintext = Buffer.concat([decipher.update(buf.subarray(bodyAt, bodyAt + bodyLength)), decipher.final()]);
  } catch {
    throw new LmkTamperedError();
  }
  const registration = decodePayload(plaintext);
  if (registration.mode === 'transactional' !== header.transactional) throw new LmkTamperedError('mode flag mismatch');
  return registration;
}
