// One error type for REST and GraphQL: the adapters turn it into the spec's error body
// {status_code, code, details, errors?}.
export interface ErrorItem {
  field?: string;
  code: string;
  details: string;
}

/** Brand shared by every copy of this package (Symbol.for), so a plugin's second copy still counts. */
const API_ERROR_BRAND = Symbol.for('filigrane.ApiError');

export class ApiError extends Error {
  /** `err instanceof ApiError` fails across two copies of the package; this brand does not. */
  static is(err: unknown): err is ApiError {
    return typeof err === 'object' && err !== null && (err as Record<symbol, unknown>)[API_ERROR_BRAND] === true;
  }

  // `instanceof ApiError` works across copies too; a subclass keeps the ordinary prototype check.
  static override [Symbol.hasInstance](this: unknown, value: unknown): boolean {
    return this === ApiError ? ApiError.is(value) : Function.prototype[Symbol.hasInstance].call(this, value);
  }

  constructor(
    readonly statusCode: number,
    readonly code: string,
    readonly details: unknown,
    readonly errors?: ErrorItem[],
    readonly headers: Record<string, string> = {},
  ) {
    super(typeof details === 'string' ? details : code);
    this.name = 'ApiError';
    Object.defineProperty(this, API_ERROR_BRAND, { value: true });
  }

  toBody(): ErrorBody {
    return errorBody(this);
  }
}

/** The spec's error body of an ApiError (from any copy of this package). */
export function errorBody(err: ApiError): ErrorBody {
  const body: ErrorBody = { status_code: err.statusCode, code: err.code, details: err.details };
  const errors = err.errors?.length ? err.errors : fieldErrors(err);
  if (errors.length > 0) body.errors = errors;
  return body;
}

/**
 * `details` of the `{field: [messages]}` form, raised without a list (a filter, a query parameter),
 * as the `errors` list every per-field error carries: one item per message, with the error's code.
 */
function fieldErrors(err: ApiError): ErrorItem[] {
  const d = err.details;
  if (d === null || typeof d !== 'object' || Array.isArray(d)) return [];
  const entries = Object.entries(d as Record<string, unknown>);
  if (!entries.every(([, v]) => typeof v === 'string' || (Array.isArray(v) && v.every((m) => typeof m === 'string')))) return [];
  return entries.flatMap(([field, v]) => [v as string | string[]].flat().map((details) => ({ field, code: err.code, details })));
}

export interface ErrorBody {
  status_code: number;
  code: string;
  details: unknown;
  errors?: ErrorItem[];
}

export const badRequest = (code: string, details: unknown, errors?: ErrorItem[]) =>
  new ApiError(400, code, details, errors);
export const unauthorized = (code: string, details: string, headers: Record<string, string> = {}) =>
  new ApiError(401, code, details, undefined, headers);
export const forbidden = (details = 'You do not have permission to perform this action.') =>
  new ApiError(403, 'permission_denied', details);
export const notFound = (details = 'Not found.') => new ApiError(404, 'not_found', details);
export const conflict = (code: string, details: string) => new ApiError(409, code, details);
export const unprocessable = (code: string, details: string) => new ApiError(422, code, details);

/** A validation failure on several fields: 400 with one entry per field. */
export function validationError(errors: ErrorItem[]): ApiError {
  // No prototype: a field named `__proto__` (hostile input echoed back) is an ordinary key.
  const details: Record<string, string[]> = Object.create(null) as Record<string, string[]>;
  for (const e of errors) (details[e.field ?? 'non_field_errors'] ??= []).push(e.details);
  return new ApiError(400, 'invalid', details, errors);
}

/**
 * Maps the typed errors of the codec packages (watermark, vision, video: an Error with a string
 * `code`) to API errors; anything else is returned unchanged.
 */
export function codecApiError(err: unknown, unsupportedHint?: string): unknown {
  const code = (err as { code?: unknown } | null)?.code;
  if (typeof code !== 'string' || !(err instanceof Error) || err instanceof ApiError) return err;
  // The caller may say what is accepted instead (the video containers, from @filigrane/video).
  if (code === 'unsupported_format') return new ApiError(415, code, unsupportedHint ? `${err.message}. ${unsupportedHint}` : err.message);
  if (code === 'video_unreadable' || code === 'video_no_stream' || code === 'video_empty') return new ApiError(422, code, err.message);
  if (code === 'video_too_long' || code === 'video_too_large') return new ApiError(413, code, err.message);
  if (code === 'video_timeout') return new ApiError(422, code, err.message);
  if (code === 'lmk_truncated' || code === 'lmk_invalid') return new ApiError(400, code, `Invalid registration file: ${err.message}`);
  if (code.startsWith('lmk_') || ['image_too_large', 'image_too_small', 'corrupt_image'].includes(code)) return new ApiError(422, code, err.message);
  return err;
}
