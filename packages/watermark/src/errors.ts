/** Typed errors of the watermark package; image errors come from @filigrane/vision and share the base class. */
import { MediaError } from '@filigrane/vision';

export {
  MediaError,
  UnsupportedFormatError,
  ImageTooLargeError,
  ImageTooSmallError,
  CorruptImageError,
} from '@filigrane/vision';

/** Base of every .lmk decoding failure. */
export class LmkError extends MediaError {}

/** Shorter than its header or its declared lengths. */
export class LmkTruncatedError extends LmkError {
  constructor(message = 'registration file is truncated') {
    super('lmk_truncated', message);
  }
}

/** Authentication failed: some byte was changed after sealing. */
export class LmkTamperedError extends LmkError {
  constructor(message = 'registration file was modified or is corrupt') {
    super('lmk_tampered', message);
  }
}

/** Sealed for another account's public key. */
export class LmkWrongKeyError extends LmkError {
  constructor(message = 'registration file was encrypted for another account') {
    super('lmk_wrong_key', message);
  }
}

/** A format version this code does not know (written by a newer release). */
export class LmkUnknownVersionError extends LmkError {
  constructor(readonly version: number) {
    super('lmk_unknown_version', `unknown registration file version ${version}`);
  }
}

/** Not a registration file at all (bad magic). */
export class LmkInvalidError extends LmkError {
  constructor(message = 'not a Filigrane registration file') {
    super('lmk_invalid', message);
  }
}

/** The account key given to seal or open a registration file is not a usable RSA key. */
export class InvalidAccountKeyError extends MediaError {
  constructor(message: string) {
    super('invalid_account_key', message);
  }
}

/** A media key that is not 32 bytes. */
export class InvalidMediaKeyError extends MediaError {
  constructor(message = 'a media key is exactly 32 bytes') {
    super('invalid_media_key', message);
  }
}
