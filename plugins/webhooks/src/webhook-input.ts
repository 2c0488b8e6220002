import { AllowList, checkTarget, FetchError } from '@filigrane/net';
import { labelError, validationError, type ErrorItem } from '@filigrane/core';

export interface EndpointInput {
  url?: string;
  events?: string[];
  description?: string;
  enabled?: boolean;
}

const FIELDS = ['url', 'events', 'description', 'enabled'];

/**
 * A POST (every field but `description` required) or PATCH body of an endpoint. The URL is
 * checked here for what needs no DNS (http(s), no credentials, no private IP literal); the
 * fetcher checks again at every delivery, after resolution.
 */
export function parseEndpointInput(body: unknown, partial: boolean, allowHosts: readonly string[], known: readonly string[]): EndpointInput {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    throw validationError([{ field: 'non_field_errors', code: 'invalid', details: 'Expected a JSON object.' }]);
  }
  const b = body as Record<string, unknown>;
  const errors: ErrorItem[] = Object.keys(b)
    .filter((k) => !FIELDS.includes(k))
    .map((k) => ({ field: k, code: 'unknown_field', details: `Unknown field "${k}".` }));
  const out: EndpointInput = {};

  if (b.url !== undefined || !partial) {
    if (typeof b.url !== 'string' || b.url === '') errors.push({ field: 'url', code: 'required', details: 'url (http or https) is required.' });
    else if (b.url.length > 2000) errors.push({ field: 'url', code: 'max_length', details: 'url has at most 2000 characters.' });
    else {
      try {
        out.url = checkTarget(b.url, new AllowList(allowHosts)).toString();
      } catch (err) {
        if (!(err instanceof FetchError)) throw err;
        errors.push({ field: 'url', code: err.code, details: `url is not acceptable: ${err.message}.` });
      }
    }
  }
  if (b.events !== undefined || !partial) {
    const events = b.events;
    if (!Array.isArray(events) || events.length === 0 || !events.every((e) => typeof e === 'string')) {
      errors.push({ field: 'events', code: 'required', details: `events is a non-empty list of: ${known.join(', ')}.` });
    } else {
      const unknown = (events as string[]).filter((e) => !known.includes(e));
      if (unknown.length) errors.push({ field: 'events', code: 'invalid_choice', details: `Unknown event types: ${unknown.join(', ')} (known: ${known.join(', ')}).` });
      else out.events = [...new Set(events as string[])];
    }
  }
  if (b.description !== undefined) {
    const bad = typeof b.description === 'string' ? labelError('description', b.description) : null;
    if (typeof b.description !== 'string' || b.description.length > 255) errors.push({ field: 'description', code: 'invalid', details: 'description is a string of at most 255 characters.' });
    else if (bad) errors.push(bad);
    else out.description = b.description;
  }
  if (b.enabled !== undefined) {
    if (!partial) errors.push({ field: 'enabled', code: 'read_only', details: 'A new endpoint is always enabled.' });
    else if (typeof b.enabled !== 'boolean') errors.push({ field: 'enabled', code: 'invalid', details: 'enabled is a boolean.' });
    else out.enabled = b.enabled;
  }
  if (errors.length) throw validationError(errors);
  return out;
}
