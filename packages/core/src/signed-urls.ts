/**
 * Short-lived signed URLs of the service's own files (thumbnails, images, artifacts), so a browser
 * can put them in <img> and links without an Authorization header. The signature binds the path
 * and query, the account and an expiry; only GET and HEAD of file routes accept it. Bound by the
 * gateway under FILE_URL_SIGNER.
 */
export interface FileUrlSigner {
  /** The URL (absolute, or a path) with `expires`, `account` and `signature` added. */
  sign(accountId: number, url: string): { url: string; expires: Date };
}

export const FILE_URL_SIGNER = Symbol.for('filigrane.FileUrlSigner') as symbol & { __type?: FileUrlSigner };
