import { validationError, type ErrorItem } from '@filigrane/plugin-api';
import { normaliseDomain } from '@filigrane/plugin-blacklist';
import { label, text, unknownFields } from './review-input.js';

/** A licensee as POST sets it (PATCH sets some fields). */
export interface LicenseeInput {
  name?: string;
  domain?: string;
  include_subdomains?: boolean;
  media_path?: string | null;
  media_id?: string | null;
  valid_from?: Date | null;
  valid_until?: Date | null;
  reference?: string | null;
}

const FIELDS = ['name', 'domain', 'include_subdomains', 'media_path', 'media_id', 'valid_from', 'valid_until', 'reference'];
const DATE = /^\d{4}-\d{2}-\d{2}$/;
const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,6})?)?(Z|[+-]\d{2}:\d{2})$/;

/** `YYYY-MM-DD` names a day the calendar has (Date would roll 2026-02-30 over to 2026-03-02). */
const isCalendarDay = (day: string) => {
  const d = new Date(`${day}T00:00:00Z`);
  return !Number.isNaN(d.getTime()) && d.toISOString().startsWith(day);
};

/**
 * A date (a whole UTC day: from its start, until its end) or a date-time; null clears it.
 * `end`: a date as the last instant of that day (valid_until includes the day it names).
 */
function instant(value: unknown, field: string, end: boolean, errors: ErrorItem[]): Date | null | undefined {
  if (value === undefined) return undefined;
  if (value === null) return null;
  if (typeof value === 'string' && (DATE.test(value) || DATE_TIME.test(value))) {
    const d = new Date(DATE.test(value) ? `${value}T00:00:00Z` : value);
    if (!Number.isNaN(d.getTime()) && d.getUTCFullYear() >= 1900 && d.getUTCFullYear() <= 9999 && isCalendarDay(value.slice(0, 10))) {
      return DATE.test(value) && end ? new Date(d.getTime() + 86_399_999) : d;
    }
  }
  errors.push({ field, code: 'invalid', details: `${field} is a date (YYYY-MM-DD) or a date-time (ISO 8601 with a time zone).` });
  return undefined;
}

/** Parses a licensee body: every field checked, all mistakes reported at once. */
export function parseLicensee(body: unknown, partial: boolean): LicenseeInput {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    throw validationError([{ field: 'non_field_errors', code: 'invalid', details: 'Expected a JSON object.' }]);
  }
  const b = body as Record<string, unknown>;
  const errors: ErrorItem[] = [];
  unknownFields(b, FIELDS, errors);
  const out: LicenseeInput = {};
  if (b.name !== undefined || !partial) out.name = label(b.name, 'name', 200, errors, true)?.trim();
  if (b.domain !== undefined || !partial) {
    const raw = text(b.domain, 'domain', 2048, errors, true);
    if (raw !== undefined) {
      const domain = normaliseDomain(raw);
      if (!domain) errors.push({ field: 'domain', code: 'invalid_domain', details: `"${raw.slice(0, 100)}" is not a domain name with an extension (for example example.com).` });
      else out.domain = domain;
    }
  }
  if (b.include_subdomains !== undefined) {
    if (typeof b.include_subdomains !== 'boolean') errors.push({ field: 'include_subdomains', code: 'invalid', details: 'include_subdomains is a boolean.' });
    else out.include_subdomains = b.include_subdomains;
  } else if (!partial) out.include_subdomains = true;
  if (b.media_path !== undefined) {
    if (b.media_path === null) out.media_path = null;
    else {
      const path = text(b.media_path, 'media_path', 1024, errors);
      if (path !== undefined) {
        if (!path.startsWith('/') || path.split('/').some((s) => s === '.' || s === '..')) {
          errors.push({ field: 'media_path', code: 'invalid', details: 'media_path is an absolute media path or folder (/user/folder).' });
        } else out.media_path = path.length > 1 ? path.replace(/\/+$/, '') : path;
      }
    }
  }
  if (b.media_id !== undefined) {
    if (b.media_id === null) out.media_id = null;
    else if ((typeof b.media_id === 'number' && Number.isSafeInteger(b.media_id) && b.media_id > 0) || (typeof b.media_id === 'string' && /^[1-9]\d{0,14}$/.test(b.media_id))) {
      out.media_id = String(b.media_id);
    } else errors.push({ field: 'media_id', code: 'invalid', details: 'media_id is a media id.' });
  }
  if (out.media_id && out.media_path) errors.push({ field: 'media_id', code: 'invalid', details: 'Give media_path (a media or folder) or media_id, not both.' });
  const from = instant(b.valid_from, 'valid_from', false, errors);
  const until = instant(b.valid_until, 'valid_until', true, errors);
  if (from !== undefined) out.valid_from = from;
  if (until !== undefined) out.valid_until = until;
  if (from && until && from > until) errors.push({ field: 'valid_until', code: 'invalid', details: 'valid_until is after valid_from.' });
  if (b.reference !== undefined) out.reference = b.reference === null ? null : (label(b.reference, 'reference', 200, errors)?.trim() ?? undefined);
  if (errors.length) throw validationError(errors);
  return out;
}
