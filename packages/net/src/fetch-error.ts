export type FetchErrorCode =
  | 'invalid_url'
  | 'scheme_not_allowed'
  | 'address_not_allowed'
  | 'dns_error'
  | 'too_large'
  | 'timeout'
  | 'too_many_redirects'
  | 'http_error'
  | 'network_error'
  | 'invalid_data_uri';

/**
 * Every refusal or failure of the fetcher. Messages name the URL's host at most, never a resolved
 * address, so they can be shown to the user who gave the URL without mapping the internal network.
 */
export class FetchError extends Error {
  constructor(
    readonly code: FetchErrorCode,
    message: string,
    /** Upstream status, set for 'http_error'. */
    readonly status?: number,
  ) {
    super(message);
    this.name = 'FetchError';
  }
}
