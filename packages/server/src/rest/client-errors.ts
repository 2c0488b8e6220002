import type { Socket } from 'node:net';
import { randomUUID } from 'node:crypto';
import { STATUS_CODES } from 'node:http';
import { ApiError } from '@filigrane/core';

/** What Node's HTTP parser refused, as the spec's error (the request never reached Fastify). */
export function clientErrorToApiError(err: NodeJS.ErrnoException): ApiError {
  switch (err.code) {
    case 'HPE_HEADER_OVERFLOW':
      return new ApiError(431, 'headers_too_large', 'The request headers are too large.');
    case 'ERR_HTTP_REQUEST_TIMEOUT':
    case 'ERR_HTTP_HEADERS_TIMEOUT':
      return new ApiError(408, 'request_timeout', 'The request was not received in time.');
    case 'HPE_INVALID_CONTENT_LENGTH':
    case 'HPE_UNEXPECTED_CONTENT_LENGTH':
      return new ApiError(400, 'invalid_content_length', 'The Content-Length header is not valid.');
    case 'HPE_INVALID_TRANSFER_ENCODING':
    case 'HPE_INVALID_CHUNK_SIZE':
      return new ApiError(400, 'invalid_transfer_encoding', 'The chunked body or its Transfer-Encoding is not valid.');
    case 'HPE_INVALID_METHOD':
      return new ApiError(400, 'invalid_method', 'The request method is not valid.');
    default:
      return new ApiError(400, 'malformed_request', 'The request is not valid HTTP.');
  }
}

/**
 * Fastify's clientErrorHandler: errors of Node's HTTP parser (header too large, malformed request
 * line or headers, bad Content-Length or chunking) answered with the spec's error body and an
 * X-Request-Id, like every other answer; the connection is then closed (it cannot be resynchronised).
 */
export function answerClientError(err: NodeJS.ErrnoException, socket: Socket): void {
  // A reset connection has nobody to answer.
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  if (socket.writable) {
    const api = clientErrorToApiError(err);
    const body = JSON.stringify(api.toBody());
    socket.write(
      [
        `HTTP/1.1 ${api.statusCode} ${STATUS_CODES[api.statusCode] ?? 'Error'}`,
        'Content-Type: application/json; charset=utf-8',
        `Content-Length: ${Buffer.byteLength(body)}`,
        `X-Request-Id: ${randomUUID()}`,
        'Connection: close',
        '',
        body,
      ].join('\r\n'),
    );
  }
  socket.destroy(err);
}
