import { labelProblem, validationError, type ErrorItem } from '@filigrane/plugin-api';

/** A JSON object body, or 400. */
export function objectBody(body: unknown): Record<string, unknown> {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    throw validationError([{ field: 'non_field_errors', code: 'invalid', details: 'Expected a JSON object.' }]);
  }
  return body as Record<string, unknown>;
}

/** Collects per-field errors, then throws them all at once (400 `invalid`). */
export class FieldReader {
  readonly errors: ErrorItem[] = [];
  constructor(
    private readonly body: Record<string, unknown>,
    allowed: readonly string[],
  ) {
    for (const key of Object.keys(body)) if (!allowed.includes(key)) this.errors.push({ field: key, code: 'unknown_field', details: `Unknown field (allowed: ${allowed.join(', ')}).` });
  }

  /** A trimmed string without control characters (NUL cannot be stored), at most `max` characters. */
  text(field: string, options: { max: number; required?: boolean; multiline?: boolean }, value = this.body[field]): string | undefined {
    if (value === undefined || value === null) {
      if (options.required) this.errors.push({ field, code: 'required', details: 'This field is required.' });
      return undefined;
    }
    if (typeof value !== 'string') return this.fail(field, 'invalid', 'Expected a string.');
    const bad = options.multiline ? /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/ : /[\u0000-\u001f\u007f]/;
    if (bad.test(value)) return this.fail(field, 'invalid', 'Control characters are not allowed.');
    // One-line texts (titles, names printed on notices) are labels: nothing invisible that reorders them.
    const spoof = options.multiline ? null : labelProblem(value);
    if (spoof) return this.fail(field, 'invalid_character', spoof);
    const v = value.trim();
    if (v.length > options.max) return this.fail(field, 'max_length', `At most ${options.max} characters.`);
    if (v === '' && options.required) return this.fail(field, 'blank', 'This field may not be blank.');
    return v === '' ? undefined : v;
  }

  email(field: string, value: unknown, required = false): string | undefined {
    const v = this.text(field, { max: 254, required }, value);
    if (v !== undefined && !/^[^\s@<>(),;:"[\]\\]+@[^\s@<>(),;:"[\]\\]+\.[^\s@<>(),;:"[\]\\]+$/.test(v)) return this.fail(field, 'invalid', 'Enter a valid e-mail address.');
    return v;
  }

  boolean(field: string): boolean | undefined {
    const v = this.body[field];
    if (v === undefined) return undefined;
    if (typeof v !== 'boolean') return this.fail(field, 'invalid', 'Expected true or false.');
    return v;
  }

  /** A non-empty list of match ids (v4 ids: decimal strings or integers), at most `max`, without repeats. */
  matchIds(field: string, max = 1000): string[] | undefined {
    const v = this.body[field];
    if (!Array.isArray(v) || v.length === 0) return this.fail(field, 'required', 'A non-empty list of match ids.');
    if (v.length > max) return this.fail(field, 'max_length', `At most ${max} match ids.`);
    const ids: string[] = [];
    for (const item of v) {
      const s = typeof item === 'number' && Number.isSafeInteger(item) ? String(item) : item;
      if (typeof s !== 'string' || !/^[1-9]\d{0,17}$/.test(s)) return this.fail(field, 'invalid', 'Match ids are positive integers (as strings, as the API shows them).');
      ids.push(s);
    }
    return [...new Set(ids)];
  }

  /** A nested object with only these keys (undefined when absent or null). */
  object(field: string, keys: readonly string[]): Record<string, unknown> | undefined {
    const v = this.body[field];
    if (v === undefined || v === null) return undefined;
    if (typeof v !== 'object' || Array.isArray(v)) return this.fail(field, 'invalid', `Expected an object with ${keys.join(', ')}.`);
    for (const k of Object.keys(v)) if (!keys.includes(k)) this.fail(`${field}.${k}`, 'unknown_field', `Unknown field (allowed: ${keys.join(', ')}).`);
    return v as Record<string, unknown>;
  }

  /** The rights holder named in notices: name, e-mail, postal address, telephone (each optional). */
  rightsHolder(field: string): { name?: string; email?: string; address?: string; phone?: string } | undefined {
    const h = this.object(field, ['name', 'email', 'address', 'phone']);
    if (!h) return undefined;
    const out = {
      name: this.text(`${field}.name`, { max: 200 }, h.name),
      email: this.email(`${field}.email`, h.email),
      address: this.text(`${field}.address`, { max: 500 }, h.address),
      phone: this.text(`${field}.phone`, { max: 50 }, h.phone),
    };
    return Object.fromEntries(Object.entries(out).filter(([, v]) => v !== undefined));
  }

  fail(field: string, code: string, details: string): undefined {
    this.errors.push({ field, code, details });
    return undefined;
  }

  done(): void {
    if (this.errors.length) throw validationError(this.errors);
  }
}

/** A path id (`/cases/:id/`): digits only, else a 404 like any unknown id. */
export const idParam = (raw: string | undefined): number => (raw && /^[1-9]\d{0,8}$/.test(raw) ? Number(raw) : NaN);
