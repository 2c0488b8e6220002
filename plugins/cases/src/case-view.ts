import { pageSchema, type JsonSchema } from '@filigrane/plugin-api';
import type { CaseMatchRow, CaseRow, EvidenceRow, HistoryRow } from './case.service.js';
import { CASE_STATES, RESOLUTIONS } from './case-states.js';
import type { NoticeRow } from './notice.service.js';

const iso = (d: Date | string | null) => (d === null ? null : new Date(d).toISOString());
export const caseUrl = (baseUrl: string, id: number | string) => `${baseUrl}/api/v4/cases/${id}/`;
const noticeUrl = (baseUrl: string, n: NoticeRow) => `${caseUrl(baseUrl, n.case_id)}notices/${n.id}/`;

/** A case in lists, CSV rows and events. */
export function caseView(c: CaseRow, baseUrl: string, matchIds: string[]) {
  return {
    id: String(c.id),
    url: caseUrl(baseUrl, c.id),
    title: c.title,
    site: c.site,
    state: c.state,
    resolution: c.resolution,
    created: iso(c.created),
    updated: iso(c.updated),
    match_count: c.match_count,
    match_ids: matchIds,
    evidence_count: c.evidence_count,
    notice_count: c.notice_count,
    last_notice_sent: iso(c.last_notice_sent),
  };
}

export function caseDetailView(c: CaseRow, baseUrl: string, parts: { matches: CaseMatchRow[]; evidence: EvidenceRow[]; notices: NoticeRow[]; history: HistoryRow[] }) {
  return {
    ...caseView(c, baseUrl, parts.matches.map((m) => m.match_id)),
    matches: parts.matches.map((m) => ({
      id: m.match_id,
      url: `${baseUrl}/api/v4/matches/${m.match_id}/`,
      media_id: m.media_id,
      site: m.site,
      page_url: m.page_url,
      image_url: m.image_url,
      first_seen: iso(m.first_seen),
      last_seen: iso(m.last_seen),
      added: iso(m.added),
    })),
    evidence: parts.evidence.map(evidenceView),
    notices: parts.notices.map((n) => noticeView(n, baseUrl, false)),
    history: parts.history.map(historyView),
  };
}

export const evidenceView = (e: EvidenceRow) => ({ pack_id: e.pack_id, status: e.status, error: e.error, sha256: e.sha256, size: e.size === null ? null : Number(e.size), captured: iso(e.captured), match_ids: e.match_ids, added: iso(e.added) });

export const historyView = (h: HistoryRow) => ({
  at: iso(h.at),
  action: h.action,
  from_state: h.from_state,
  to_state: h.to_state,
  resolution: h.resolution,
  actor: h.actor,
  note: h.note,
  ...h.detail,
});

export function noticeView(n: NoticeRow, baseUrl: string, withBody = true) {
  const url = noticeUrl(baseUrl, n);
  return {
    id: String(n.id),
    url,
    case: caseUrl(baseUrl, n.case_id),
    type: n.type,
    lang: n.lang,
    created: iso(n.created),
    actor: n.actor,
    pdf: `${url}pdf/`,
    text: `${url}text/`,
    pdf_sha256: n.pdf_sha256,
    pdf_size: n.pdf_size,
    sent_at: iso(n.sent_at),
    sent_to: n.sent_to,
    sent_via: n.sent_via,
    ...(withBody ? { facts: n.facts, body: n.body } : {}),
  };
}

// JSON Schemas for the OpenAPI document (/api/schema/).
const text: JsonSchema = { type: 'string' };
const nullable = (s: JsonSchema): JsonSchema => ({ anyOf: [s, { type: 'null' }] });
const dateTime: JsonSchema = { type: 'string', format: 'date-time' };
const url: JsonSchema = { type: 'string', format: 'uri' };
const actor: JsonSchema = {
  type: 'object',
  properties: { type: { type: 'string', enum: ['account', 'application', 'system'] }, account_id: nullable({ type: 'integer' }), application_id: nullable({ type: 'integer' }) },
};

export const CASE_SCHEMA: JsonSchema = {
  type: 'object',
  required: ['id', 'url', 'title', 'site', 'state', 'resolution', 'created', 'updated', 'match_count', 'match_ids'],
  properties: {
    id: text,
    url,
    title: text,
    site: nullable(text),
    state: { type: 'string', enum: [...CASE_STATES] },
    resolution: nullable({ type: 'string', enum: [...RESOLUTIONS] }),
    created: dateTime,
    updated: dateTime,
    match_count: { type: 'integer' },
    match_ids: { type: 'array', items: text },
    evidence_count: { type: 'integer' },
    notice_count: { type: 'integer' },
    last_notice_sent: nullable(dateTime),
  },
};

export const NOTICE_SCHEMA: JsonSchema = {
  type: 'object',
  required: ['id', 'url', 'type', 'lang', 'created', 'pdf', 'text', 'pdf_sha256', 'sent_at'],
  properties: {
    id: text,
    url,
    case: url,
    type: { type: 'string', enum: ['dmca', 'dsa'] },
    lang: { type: 'string', enum: ['fr', 'en'] },
    created: dateTime,
    actor,
    pdf: url,
    text: url,
    pdf_sha256: { type: 'string', pattern: '^[0-9a-f]{64}$' },
    pdf_size: { type: 'integer' },
    sent_at: nullable(dateTime),
    sent_to: nullable(text),
    sent_via: nullable({ type: 'string', enum: ['mail', 'manual'] }),
    facts: {
      type: 'object',
      description: 'What the notice names: works, copies with evidence, rights holder, signer',
      properties: {
        type: text, lang: text, date: dateTime, signer: text, explanation: nullable(text),
        case: { type: 'object', properties: { id: text, title: text, site: nullable(text) } },
        recipient: { type: 'object', properties: { name: nullable(text), email: nullable(text) } },
        rights_holder: { type: 'object', properties: { name: text, email: text, address: nullable(text), phone: nullable(text) } },
        works: { type: 'array', items: { type: 'object', properties: { media_id: text, path: text, registered: dateTime } } },
        copies: {
          type: 'array',
          items: {
            type: 'object',
            properties: {
              match_id: text, page_url: nullable(text), image_url: nullable(text), first_seen: dateTime, last_seen: dateTime,
              evidence: { type: 'array', items: { type: 'object', properties: { pack_id: text, sha256: text, captured: nullable(dateTime) } } },
            },
          },
        },
      },
    },
    body: { type: 'string', description: 'The notice as text' },
  },
};

export const CASE_DETAIL_SCHEMA: JsonSchema = {
  ...CASE_SCHEMA,
  properties: {
    ...(CASE_SCHEMA.properties as Record<string, JsonSchema>),
    matches: {
      type: 'array',
      items: {
        type: 'object',
        properties: { id: text, url, media_id: nullable(text), site: nullable(text), page_url: nullable(text), image_url: nullable(text), first_seen: nullable(dateTime), last_seen: nullable(dateTime), added: dateTime },
      },
    },
    evidence: { type: 'array', items: { type: 'object', properties: { pack_id: text, status: { type: 'string', enum: ['pending', 'complete', 'failed'] }, error: nullable(text), sha256: nullable(text), size: nullable({ type: 'integer' }), captured: nullable(dateTime), match_ids: { type: 'array', items: text }, added: dateTime } } },
    notices: { type: 'array', items: NOTICE_SCHEMA },
    history: {
      type: 'array',
      items: {
        type: 'object',
        description: 'One change: time, action (opened, transition, notice_sent, matches_added...), states, actor, note, and what it touched',
        properties: {
          at: dateTime, action: text, from_state: nullable(text), to_state: nullable(text), resolution: nullable(text), actor, note: nullable(text),
          // What the change touched, by action (absent when it has nothing of the kind).
          match_ids: { type: 'array', items: text }, notice_id: text, pack_id: text, title: text, type: text, lang: text, sent_to: text, sent_via: text, sha256: nullable(text),
        },
      },
    },
  },
};

export const SETTINGS_SCHEMA: JsonSchema = {
  type: 'object',
  properties: {
    auto_group: { type: 'boolean', description: 'A match marked infringing joins its site\'s open case, or opens one (default true)' },
    rights_holder: nullable({ type: 'object', properties: { name: text, email: text, address: text, phone: text }, description: 'Defaults for notices' }),
  },
};

export const pageOf = (item: JsonSchema): JsonSchema => pageSchema(item);
