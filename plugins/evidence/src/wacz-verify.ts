// Offline verification of an evidence pack: every file's hash and size against datapackage.json,
// the digest and signature of datapackage.json, and its RFC 3161 time stamp. Used by the gateway's
// `filigrane evidence verify FILE.wacz`; docs/rights.md says how to do the same with unzip and openssl.
import { createHash, createPublicKey, verify } from 'node:crypto';
import { fromBufferPromise, type Entry, type ZipFile } from 'yauzl';
import { keyIdOf } from './signing-key.service.js';
import { checkTimeStampReply } from './time-stamp.js';

export interface VerifyOptions {
  /** The service's published public key (PEM): the pack must be signed by it. Without it, the key the pack carries is used and named. */
  publicKeyPem?: string;
  /** Certificates (PEM) the time stamp authority's certificate must chain to; without them only the token's own signature is checked. */
  trustedTsaCertsPem?: string;
  /** A pack without a time stamp fails instead of passing with a warning. */
  requireTimeStamp?: boolean;
}

export interface VerifyCheck {
  name: string;
  ok: boolean;
  details: string;
}

export interface WaczVerification {
  ok: boolean;
  checks: VerifyCheck[];
  warnings: string[];
  keyId: string | null;
  timeStamp: { time: string; authority: string } | null;
}

/** Bounds against a crafted zip: entries, and bytes of any one entry. */
const MAX_ENTRIES = 10_000;
const MAX_ENTRY_BYTES = 2 * 1024 * 1024 * 1024;

const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');

async function readEntries(zip: ZipFile): Promise<Map<string, Buffer>> {
  const files = new Map<string, Buffer>();
  for await (const entry of zip.eachEntry() as AsyncIterable<Entry>) {
    if (files.size >= MAX_ENTRIES) throw new Error(`more than ${MAX_ENTRIES} files`);
    if (entry.fileName.endsWith('/')) continue;
    if (files.has(entry.fileName)) throw new Error(`${entry.fileName} is in the zip twice`);
    if (entry.uncompressedSize > MAX_ENTRY_BYTES) throw new Error(`${entry.fileName} is too large`);
    const stream = await zip.openReadStreamPromise(entry);
    const chunks: Buffer[] = [];
    for await (const chunk of stream) chunks.push(chunk as Buffer);
    files.set(entry.fileName, Buffer.concat(chunks));
  }
  return files;
}

const pemCerts = (pem: string) => [...pem.matchAll(/-----BEGIN CERTIFICATE-----([\s\S]+?)-----END CERTIFICATE-----/g)].map((m) => Buffer.from(m[1]!.replace(/\s+/g, ''), 'base64'));

/** Verifies a WACZ evidence pack; never throws for a bad pack (the checks say what failed). */
export async function verifyWacz(bytes: Buffer, options: VerifyOptions = {}): Promise<WaczVerification> {
  const checks: VerifyCheck[] = [];
  const warnings: string[] = [];
  const result = (keyId: string | null = null, timeStamp: WaczVerification['timeStamp'] = null): WaczVerification => ({ ok: checks.every((c) => c.ok), checks, warnings, keyId, timeStamp });
  const check = (name: string, ok: boolean, details: string) => {
    checks.push({ name, ok, details });
    return ok;
  };

  let files: Map<string, Buffer>;
  try {
    const zip = await fromBufferPromise(bytes, { lazyEntries: true, validateEntrySizes: true, strictFileNames: true });
    files = await readEntries(zip);
  } catch (err) {
    check('zip', false, `not a readable zip: ${(err as Error).message}`);
    return result();
  }
  check('zip', true, `${files.size} files`);

  const dp = files.get('datapackage.json');
  const digestFile = files.get('datapackage-digest.json');
  if (!check('datapackage.json', !!dp, dp ? 'present' : 'missing') || !check('datapackage-digest.json', !!digestFile, digestFile ? 'present' : 'missing')) return result();

  // Every file's hash and size, as datapackage.json lists them; no file left out of the list.
  let resources: { path: string; hash: string; bytes: number }[];
  try {
    resources = (JSON.parse(dp!.toString('utf8')) as { resources: { path: string; hash: string; bytes: number }[] }).resources;
    if (!Array.isArray(resources)) throw new Error('no resources list');
  } catch (err) {
    check('datapackage.json', false, `unreadable: ${(err as Error).message}`);
    return result();
  }
  const listed = new Set<string>();
  for (const r of resources) {
    listed.add(r.path);
    const data = files.get(r.path);
    if (!data) check(`file ${r.path}`, false, 'listed in datapackage.json but missing from the zip');
    else {
      const hash = `sha256:${sha256(data)}`;
      check(`file ${r.path}`, hash === r.hash && data.length === r.bytes, hash === r.hash && data.length === r.bytes ? `${r.bytes} bytes, ${hash}` : `expected ${r.hash} (${r.bytes} bytes), found ${hash} (${data.length} bytes)`);
    }
  }
  for (const name of files.keys()) {
    if (name !== 'datapackage.json' && name !== 'datapackage-digest.json' && !listed.has(name)) check(`file ${name}`, false, 'in the zip but not listed in datapackage.json');
  }

  // The digest of datapackage.json, its signature, its time stamp.
  let digest: { path?: string; hash?: string; signedData?: Record<string, unknown> };
  try {
    digest = JSON.parse(digestFile!.toString('utf8')) as typeof digest;
  } catch {
    check('datapackage-digest.json', false, 'not JSON');
    return result();
  }
  const dpHash = `sha256:${sha256(dp!)}`;
  check('datapackage digest', digest.path === 'datapackage.json' && digest.hash === dpHash && digest.signedData?.hash === dpHash, digest.hash === dpHash ? dpHash : `datapackage.json hashes to ${dpHash}, the digest says ${String(digest.hash)}`);

  const signed = digest.signedData ?? {};
  let keyId: string | null = null;
  try {
    const embedded = String(signed.publicKey ?? '');
    keyId = keyIdOf(embedded);
    const key = createPublicKey(options.publicKeyPem ?? embedded);
    if (options.publicKeyPem) check('signing key', keyIdOf(options.publicKeyPem) === keyId, keyIdOf(options.publicKeyPem) === keyId ? `the pack is signed by the given key ${keyId}` : `the pack names key ${keyId}, not the given key ${keyIdOf(options.publicKeyPem)}`);
    else warnings.push(`Signed by key ${keyId}, carried by the pack: compare it with the keys published at ${String(signed.keyUrl ?? 'the service')} (or pass --key).`);
    const ok = verify('sha256', dp!, key, Buffer.from(String(signed.signature ?? ''), 'base64'));
    check('signature', ok, ok ? `ECDSA P-384 signature of datapackage.json by key ${keyId}` : 'the signature of datapackage.json does not verify');
  } catch (err) {
    check('signature', false, `cannot be checked: ${(err as Error).message}`);
  }

  let timeStamp: WaczVerification['timeStamp'] = null;
  if (typeof signed.timeStamp === 'string' && signed.timeStamp) {
    try {
      const trustedCerts = options.trustedTsaCertsPem ? pemCerts(options.trustedTsaCertsPem) : [];
      const info = await checkTimeStampReply(Buffer.from(signed.timeStamp, 'base64'), dp!, { trustedCerts });
      timeStamp = { time: info.genTime.toISOString(), authority: info.authority };
      check('time stamp', true, `RFC 3161 stamp of datapackage.json at ${timeStamp.time} by ${info.authority}${trustedCerts.length ? ', chained to the trusted certificates' : ''}`);
      if (!trustedCerts.length) warnings.push('The time stamp authority\'s certificate was not checked against a trusted root (pass --tsa-ca).');
    } catch (err) {
      check('time stamp', false, (err as Error).message);
    }
  } else if (options.requireTimeStamp) {
    check('time stamp', false, 'the pack carries no time stamp');
  } else {
    warnings.push('The pack carries no time stamp (no time stamp authority was configured when it was made).');
  }
  return result(keyId, timeStamp);
}
