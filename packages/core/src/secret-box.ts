import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';

/** What a plugin may do with the master key: seal a secret for storage, open it again (TOKENS.Secrets). */
export interface SecretSealer {
  seal(plain: Buffer | string): string;
  open(sealed: string): Buffer;
}

/**
 * Encrypts secrets at rest (API keys, private keys) with the service's master key:
 * AES-256-GCM, output `v1.<iv>.<tag>.<ciphertext>` in base64url.
 */
export class SecretBox implements SecretSealer {
  private readonly key: Buffer;

  constructor(masterKey: Buffer) {
    if (masterKey.length < 32) throw new Error('master key must be at least 32 bytes');
    // Derive a dedicated key so the master key can serve other purposes later.
    this.key = createHash('sha256').update('filigrane/secret-box/v1').update(masterKey).digest();
  }

  seal(plain: Buffer | string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    const data = Buffer.concat([cipher.update(plain), cipher.final()]);
    return ['v1', iv, cipher.getAuthTag(), data].map((p) => (typeof p === 'string' ? p : p.toString('base64url'))).join('.');
  }

  open(sealed: string): Buffer {
    const [version, iv, tag, data] = sealed.split('.');
    if (version !== 'v1' || !iv || !tag || data === undefined) throw new Error('not a sealed secret');
    const decipher = createDecipheriv('aes-256-gcm', this.key, Buffer.from(iv, 'base64url'));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    return Buffer.concat([decipher.update(Buffer.from(data, 'base64url')), decipher.final()]);
  }
}

/** SHA-256 hex digest, used to look secrets up without storing them. */
export function sha256Hex(value: string | Buffer): string {
  return createHash('sha256').update(value).digest('hex');
}
