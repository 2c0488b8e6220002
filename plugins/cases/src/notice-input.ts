import { FieldReader, objectBody } from './case-input.js';
import type { NoticeInput } from './notice.service.js';

/** A notice request (REST body, or GraphQL arguments in the same shape), checked field by field. */
export function noticeInput(body: unknown): NoticeInput {
  const b = objectBody(body);
  const r = new FieldReader(b, ['type', 'lang', 'rights_holder', 'signature', 'recipient', 'explanation']);
  const type = b.type;
  if (type !== 'dmca' && type !== 'dsa') r.fail('type', 'invalid_choice', 'type is dmca (17 U.S.C. § 512(c)(3)) or dsa (Digital Services Act, article 16).');
  const lang = b.lang;
  if (lang !== undefined && lang !== 'fr' && lang !== 'en') r.fail('lang', 'invalid_choice', 'lang is fr or en (default: the account\'s language).');
  const sub = (field: string, keys: string[]) => {
    const v = b[field];
    if (v === undefined || v === null) return undefined;
    if (typeof v !== 'object' || Array.isArray(v)) return r.fail(field, 'invalid', `Expected an object with ${keys.join(', ')}.`);
    for (const k of Object.keys(v)) if (!keys.includes(k)) r.fail(`${field}.${k}`, 'unknown_field', `Unknown field (allowed: ${keys.join(', ')}).`);
    return v as Record<string, unknown>;
  };
  const holder = sub('rights_holder', ['name', 'email', 'address', 'phone']);
  const recipient = sub('recipient', ['name', 'email']);
  const input: NoticeInput = {
    type: type as NoticeInput['type'],
    lang: lang as NoticeInput['lang'],
    rightsHolder: holder && {
      name: r.text('rights_holder.name', { max: 200 }, holder.name),
      email: r.email('rights_holder.email', holder.email),
      address: r.text('rights_holder.address', { max: 500 }, holder.address),
      phone: r.text('rights_holder.phone', { max: 50 }, holder.phone),
    },
    recipient: recipient && { name: r.text('recipient.name', { max: 200 }, recipient.name), email: r.email('recipient.email', recipient.email) },
    signature: r.text('signature', { max: 200 }),
    explanation: r.text('explanation', { max: 5000, multiline: true }),
  };
  r.done();
  return input;
}

