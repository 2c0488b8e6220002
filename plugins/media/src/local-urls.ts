import { createExtensionPoint, type Principal } from '@filigrane/core';

/**
 * Resolves URLs of this very service (for example a watermarking result's registration URL)
 * without an HTTP round trip to ourselves, which the SSRF rules would refuse anyway.
 * A resolver returns the bytes, or null when the URL is not one of its own.
 */
export type LocalUrlResolver = (url: URL, principal: Principal) => Promise<Buffer | null>;

export const LOCAL_URLS = createExtensionPoint<LocalUrlResolver>('media.local-urls');
