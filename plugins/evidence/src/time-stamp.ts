// RFC 3161 time stamps with PKI.js (pkijs + asn1js): the request built here, the reply read and
// checked here, and the same code verifies a stamp offline (wacz-verify.ts).
import { createHash, randomBytes, webcrypto } from 'node:crypto';
import * as asn1js from 'asn1js';
import * as pkijs from 'pkijs';

const SHA256_OID = '2.16.840.1.101.3.4.2.1';
const TST_INFO_OID = '1.2.840.113549.1.9.16.1.4';

let engineSet = false;
function engine(): void {
  if (engineSet) return;
  pkijs.setEngine('node', new pkijs.CryptoEngine({ name: 'node', crypto: webcrypto as unknown as ConstructorParameters<typeof pkijs.CryptoEngine>[0]['crypto'] }));
  engineSet = true;
}

const view = (b: Buffer) => b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength) as ArrayBuffer;

/** A DER TimeStampReq for the SHA-256 of `data`, asking for the TSA's certificate, with a nonce. */
export function timeStampRequest(data: Buffer): { der: Buffer; nonce: Buffer } {
  engine();
  const nonce = randomBytes(8);
  nonce[0] = nonce[0]! & 0x7f; // a positive INTEGER
  const req = new pkijs.TimeStampReq({
    version: 1,
    messageImprint: new pkijs.MessageImprint({
      hashAlgorithm: new pkijs.AlgorithmIdentifier({ algorithmId: SHA256_OID }),
      hashedMessage: new asn1js.OctetString({ valueHex: view(createHash('sha256').update(data).digest()) }),
    }),
    certReq: true,
    nonce: new asn1js.Integer({ valueHex: view(nonce) }),
  });
  return { der: Buffer.from(req.toSchema().toBER(false)), nonce };
}

export interface TimeStampInfo {
  /** The authority's time of the stamp. */
  genTime: Date;
  serialNumber: string;
  /** The policy OID the authority stamped under. */
  policy: string;
  /** The signer certificate's subject, as "CN=..., O=...". */
  authority: string;
}

export class TimeStampError extends Error {
  override name = 'TimeStampError';
}

function subjectOf(cert: pkijs.Certificate): string {
  const names: Record<string, string> = { '2.5.4.3': 'CN', '2.5.4.10': 'O', '2.5.4.11': 'OU', '2.5.4.6': 'C', '2.5.4.7': 'L', '2.5.4.8': 'ST' };
  return cert.subject.typesAndValues.map((tv) => `${names[tv.type] ?? tv.type}=${(tv.value.valueBlock as { value?: string }).value ?? ''}`).join(', ');
}

/**
 * Reads a DER TimeStampResp and checks it: granted, a SHA-256 imprint of `data`, the nonce when
 * given, and the token's signature by the certificate it carries (chained to `trustedCerts` when
 * some are given). Throws TimeStampError naming what is wrong.
 */
export async function checkTimeStampReply(reply: Buffer, data: Buffer, options: { nonce?: Buffer; trustedCerts?: Buffer[] } = {}): Promise<TimeStampInfo> {
  engine();
  let resp: pkijs.TimeStampResp;
  try {
    resp = pkijs.TimeStampResp.fromBER(view(reply));
  } catch {
    throw new TimeStampError('the time stamp is not a DER TimeStampResp');
  }
  const status = resp.status.status;
  if (status !== 0 && status !== 1) throw new TimeStampError(`the time stamp authority refused the request (status ${status}${resp.status.statusStrings?.length ? `: ${resp.status.statusStrings.map((s) => s.valueBlock.value).join('; ')}` : ''})`);
  if (!resp.timeStampToken) throw new TimeStampError('the reply holds no time stamp token');
  const signed = new pkijs.SignedData({ schema: resp.timeStampToken.content });
  if (signed.encapContentInfo.eContentType !== TST_INFO_OID || !signed.encapContentInfo.eContent) throw new TimeStampError('the token holds no TSTInfo');
  const tst = pkijs.TSTInfo.fromBER(signed.encapContentInfo.eContent.getValue());
  if (tst.messageImprint.hashAlgorithm.algorithmId !== SHA256_OID) throw new TimeStampError('the stamp is not of a SHA-256 digest');
  const digest = createHash('sha256').update(data).digest();
  if (!Buffer.from(tst.messageImprint.hashedMessage.valueBlock.valueHexView).equals(digest)) throw new TimeStampError('the stamp is of other data (message imprint differs)');
  if (options.nonce) {
    const got = tst.nonce ? Buffer.from(tst.nonce.valueBlock.valueHexView) : null;
    if (!got || !got.equals(options.nonce)) throw new TimeStampError('the reply does not carry the request nonce');
  }
  const trusted = (options.trustedCerts ?? []).map((der) => pkijs.Certificate.fromBER(view(der)));
  let verified: boolean;
  try {
    const result = await signed.verify({ signer: 0, data: view(data), checkChain: trusted.length > 0, trustedCerts: trusted, extendedMode: true });
    verified = typeof result === 'boolean' ? result : result.signatureVerified === true;
  } catch (err) {
    const message = (err as { message?: string }).message ?? String(err);
    throw new TimeStampError(`the time stamp token's signature does not verify${trusted.length ? ' against the trusted certificates' : ''}: ${message}`);
  }
  if (!verified) throw new TimeStampError('the time stamp token\'s signature does not verify');
  const certs = (signed.certificates ?? []).filter((c): c is pkijs.Certificate => c instanceof pkijs.Certificate);
  return {
    genTime: tst.genTime,
    serialNumber: Buffer.from(tst.serialNumber.valueBlock.valueHexView).toString('hex'),
    policy: tst.policy,
    authority: certs[0] ? subjectOf(certs[0]) : 'unknown (no certificate in the token)',
  };
}

/** Asks the authority at `url` to stamp `data` (POST application/timestamp-query) and checks its reply. */
export async function requestTimeStamp(url: string, data: Buffer, timeoutMs: number): Promise<{ reply: Buffer; info: TimeStampInfo }> {
  const { der, nonce } = timeStampRequest(data);
  let res: Response;
  try {
    res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/timestamp-query' }, body: der, signal: AbortSignal.timeout(timeoutMs), redirect: 'error' });
  } catch (err) {
    throw new TimeStampError(`the time stamp authority could not be reached (${(err as Error).name})`);
  }
  if (!res.ok) throw new TimeStampError(`the time stamp authority answered HTTP ${res.status}`);
  const reply = Buffer.from(await res.arrayBuffer());
  return { reply, info: await checkTimeStampReply(reply, data, { nonce }) };
}
