import { ApiError, BlobMissingError, BlobStoreUnavailableError } from '@filigrane/core';

/** Maps anything thrown while serving a request to the spec's error body. */
export function toApiError(err: unknown): ApiError {
  if (err instanceof ApiError) return err;
  // Its key goes to the log (the error handler logs every 5xx with its cause), not to the client.
  if (err instanceof BlobMissingError) return new ApiError(500, 'file_missing', 'A stored file is missing. The operators have been told; please retry later.');
  if (err instanceof BlobStoreUnavailableError) return new ApiError(503, 'blob_store_unavailable', 'The file store cannot be reached. The operators have been told; please retry later.');
  const e = err as { code?: string; statusCode?: number; message?: string; validation?: unknown };
  switch (e.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new ApiError(413, 'request_too_large', 'The request body is too large.');
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new ApiError(415, 'unsupported_media_type', e.message ?? 'Unsupported media type.');
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return new ApiError(400, 'invalid_content_length', 'Content-Length does not match the body.');
    case 'FST_ERR_BAD_URL':
      return new ApiError(400, 'bad_url', 'The request URL is malformed.');
  }
  if (typeof e.statusCode === 'number' && e.statusCode >= 400 && e.statusCode < 500) {
    return new ApiError(e.statusCode, 'bad_request', e.message ?? 'Bad request.');
  }
  return new ApiError(500, 'server_error', 'A server error occurred. Please retry later.');
}
