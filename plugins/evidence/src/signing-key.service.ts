import { createHash, createPrivateKey, createPublicKey, generateKeyPairSync, sign } from 'node:crypto';
import { inject, injectable, TOKENS, type DataSource, type SecretSealer } from '@filigrane/plugin-api';
import { EvidenceKey } from './evidence.entities.js';

/** ECDSA on P-384 with SHA-256, DER signatures: what `openssl dgst -sha256 -verify` reads. */
export const SIGNATURE_ALGORITHM = 'ECDSA-P384-SHA256';

export interface PublicKeyView {
  id: string;
  algorithm: string;
  /** PEM (SubjectPublicKeyInfo). */
  publicKey: string;
  created: Date;
}

/** The key id: the first 16 hex digits of the SHA-256 of the public key's DER (SPKI). */
export const keyIdOf = (publicKeyPem: string) => createHash('sha256').update(createPublicKey(publicKeyPem).export({ type: 'spki', format: 'der' })).digest('hex').slice(0, 16);

/**
 * The service's signing key (one per service): made on first use, the private half sealed with the
 * master key (TOKENS.Secrets), the public half published at GET /api/v4/evidence/keys/.
 */
@injectable()
export class SigningKeyService {
  constructor(
    @inject(TOKENS.DataSource) private readonly db: DataSource,
    @inject(TOKENS.Secrets) private readonly secrets: SecretSealer,
  ) {}

  /** The published keys; the first is made now if there is none yet, so the URL never lists nothing. */
  async publicKeys(): Promise<PublicKeyView[]> {
    await this.current();
    const keys = await this.db.getRepository(EvidenceKey).find({ order: { created: 'ASC' } });
    return keys.map((k) => ({ id: k.id, algorithm: k.algorithm, publicKey: k.publicKey, created: k.created }));
  }

  /** Signs `data` with the current key; returns the DER signature and the key's public view. */
  async sign(data: Buffer): Promise<{ signature: Buffer; key: PublicKeyView }> {
    const key = await this.current();
    const privateKey = createPrivateKey({ key: this.secrets.open(key.sealedPrivateKey), format: 'der', type: 'pkcs8' });
    const signature = sign('sha256', data, { key: privateKey, dsaEncoding: 'der' });
    return { signature, key: { id: key.id, algorithm: key.algorithm, publicKey: key.publicKey, created: key.created } };
  }

  private async current(): Promise<EvidenceKey> {
    const repo = this.db.getRepository(EvidenceKey);
    const existing = await repo.find({ order: { created: 'DESC' }, take: 1 });
    if (existing[0]) return existing[0];
    const { publicKey, privateKey } = generateKeyPairSync('ec', { namedCurve: 'secp384r1' });
    const pem = publicKey.export({ type: 'spki', format: 'pem' }).toString();
    const id = keyIdOf(pem);
    const sealed = this.secrets.seal(privateKey.export({ type: 'pkcs8', format: 'der' }));
    // Two workers making the first key at once: the first insert wins, both then sign with it.
    await this.db.query(
      `INSERT INTO evidence_keys (id, algorithm, public_key, sealed_private_key)
       SELECT $1, $2, $3, $4 WHERE NOT EXISTS (SELECT 1 FROM evidence_keys)`,
      [id, SIGNATURE_ALGORITHM, pem, sealed],
    );
    const [key] = await repo.find({ order: { created: 'ASC' }, take: 1 });
    return key!;
  }
}
