/** A document refused as a whole (encrypted, malformed, too big, active content): `failed` with this code. */
export class DocumentError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}
