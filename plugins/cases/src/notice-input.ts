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
  const recipient = r.object('recipient', ['name', 'email']);
  const input: NoticeInput = {
    type: type as NoticeInput['type'],
    lang: lang as NoticeInput['lang'],
    rightsHolder: r.rightsHolder('rights_holder'),
    recipient: recipient && { name: r.text('recipient.name', { max: 200 }, recipient.name), email: r.email('recipient.email', recipient.email) },
    signature: r.text('signature', { max: 200 }),
    explanation: r.text('explanation', { max: 5000, multiline: true }),
  };
  r.done();
  return input;
}

