/**
 * Typed errors shared by vision and watermark. Every error carries a stable `code` string so that
 * callers (REST plugins, the offline tool) can map it to a status or an exit code without parsing text.
 */
export class MediaError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = new.target.name;
  }
}

/** Not JPEG, PNG or GIF, or a variant of them that we refuse (animated GIF, CMYK JPEG). */
export class UnsupportedFormatError extends MediaError {
  constructor(message: string) {
    super('unsupported_format', message);
  }
}

/** More pixels than the configured maximum, or a header announcing a decompression bomb. */
export class ImageTooLargeError extends MediaError {
  constructor(
    message: string,
    readonly pixels: number,
    readonly maxPixels: number,
  ) {
    super('image_too_large', message);
  }
}

/** Smaller than the smallest image the watermark supports. */
export class ImageTooSmallError extends MediaError {
  constructor(message: string) {
    super('image_too_small', message);
  }
}

/** The bytes claim a supported format but cannot be decoded. */
export class CorruptImageError extends MediaError {
  constructor(message: string) {
    super('corrupt_image', message);
  }
}
