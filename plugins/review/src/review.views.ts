import type { JsonSchema } from '@filigrane/plugin-api';
import type { LicenseeRow } from './licensee.service.js';
import type { MatchReview, ReviewChange } from './review.api.js';
import { REVIEW_STATES } from './review-states.js';

const iso = (d: Date | string | null) => (d === null ? null : new Date(d).toISOString());

/** A match's review as REST shows it. */
export const reviewView = (matchId: string, r: MatchReview) => ({
  match_id: matchId,
  state: r.state,
  license_id: r.licenseId,
  note: r.note,
  automatic: r.automatic,
  changed_at: r.changedAt.toISOString(),
});

export const changeView = (c: ReviewChange) => ({
  id: c.id,
  match_id: c.matchId,
  state: c.state,
  previous_state: c.previousState,
  license_id: c.licenseId,
  note: c.note,
  actor: { type: c.actor.type, account_id: c.actor.accountId, username: c.actor.username, application_id: c.actor.applicationId },
  changed_at: c.changedAt.toISOString(),
});

export const licenseeView = (r: LicenseeRow) => ({
  id: r.id,
  name: r.name,
  domain: r.domain,
  include_subdomains: r.include_subdomains,
  media_path: r.media_path,
  media_id: r.media_id,
  valid_from: iso(r.valid_from),
  valid_until: iso(r.valid_until),
  reference: r.reference,
  created: iso(r.created),
  updated: iso(r.updated),
});

export const LICENSEE_CSV_COLUMNS = ['id', 'name', 'domain', 'include_subdomains', 'media_path', 'media_id', 'valid_from', 'valid_until', 'reference', 'created', 'updated'];
export const REVIEW_CSV_COLUMNS = ['match_id', 'state', 'license_id', 'note', 'automatic', 'changed_at', 'page_url', 'image_url', 'site_domain', 'media_id'];

const nullable = (schema: JsonSchema): JsonSchema => ({ anyOf: [schema, { type: 'null' }] });
const dateTime: JsonSchema = { type: 'string', format: 'date-time' };
const STATE: JsonSchema = { type: 'string', enum: [...REVIEW_STATES] };

export const REVIEW_SCHEMA: JsonSchema = {
  type: 'object',
  required: ['match_id', 'state', 'license_id', 'note', 'automatic', 'changed_at'],
  properties: {
    match_id: { type: 'string' },
    state: STATE,
    license_id: nullable({ type: 'string', description: 'The licensee the match is licensed under' }),
    note: nullable({ type: 'string' }),
    automatic: { type: 'boolean', description: 'Set by a licensee rule (re-applied when the licensees change), not by a person' },
    changed_at: { ...dateTime, description: 'Last change; for a match never reviewed, when it was first seen' },
  },
};

export const REVIEW_LIST_ITEM_SCHEMA: JsonSchema = {
  ...REVIEW_SCHEMA,
  required: [...(REVIEW_SCHEMA.required as string[]), 'page_url', 'image_url', 'site_domain', 'media_id'],
  properties: {
    ...(REVIEW_SCHEMA.properties as object),
    page_url: nullable({ type: 'string' }),
    image_url: { type: 'string' },
    site_domain: nullable({ type: 'string' }),
    media_id: nullable({ type: 'string' }),
  },
};

export const CHANGE_SCHEMA: JsonSchema = {
  type: 'object',
  required: ['id', 'match_id', 'state', 'previous_state', 'license_id', 'note', 'actor', 'changed_at'],
  properties: {
    id: { type: 'string' },
    match_id: { type: 'string' },
    state: STATE,
    previous_state: STATE,
    license_id: nullable({ type: 'string' }),
    note: nullable({ type: 'string' }),
    actor: {
      type: 'object',
      required: ['type', 'account_id', 'username', 'application_id'],
      properties: {
        type: { type: 'string', enum: ['account', 'application', 'licensee'] },
        account_id: nullable({ type: 'integer' }),
        username: nullable({ type: 'string' }),
        application_id: nullable({ type: 'integer', description: 'The OAuth application whose token made the change' }),
      },
    },
    changed_at: dateTime,
  },
};

export const SET_STATE_SCHEMA: JsonSchema = {
  type: 'object',
  required: ['state'],
  additionalProperties: false,
  properties: {
    state: STATE,
    note: { type: 'string', maxLength: 2000 },
    license_id: { type: 'string', description: 'With state licensed: the licensee it is licensed under' },
  },
};

export const BULK_SCHEMA: JsonSchema = {
  type: 'object',
  required: ['state'],
  additionalProperties: false,
  description: 'Either ids or filter: filter takes the query parameters of GET /api/v4/matches/ ({"site.domain": "example.com", "review_state": "new"}); {} selects every match',
  properties: {
    ...(SET_STATE_SCHEMA.properties as object),
    ids: { type: 'array', items: { type: 'string' }, minItems: 1, maxItems: 10000 },
    filter: { type: 'object', additionalProperties: { anyOf: [{ type: 'string' }, { type: 'array', items: { type: 'string' } }, { type: 'number' }, { type: 'boolean' }] } },
  },
};

export const BULK_RESULT_SCHEMA: JsonSchema = {
  type: 'object',
  required: ['state', 'matched', 'changed'],
  properties: { state: STATE, matched: { type: 'integer', minimum: 0 }, changed: { type: 'integer', minimum: 0 } },
};

export const LICENSEE_SCHEMA: JsonSchema = {
  type: 'object',
  required: ['id', 'name', 'domain', 'include_subdomains', 'media_path', 'media_id', 'valid_from', 'valid_until', 'reference', 'created', 'updated'],
  properties: {
    id: { type: 'string' },
    name: { type: 'string' },
    domain: { type: 'string', description: 'The licensed site (normalised domain name)' },
    include_subdomains: { type: 'boolean' },
    media_path: nullable({ type: 'string', description: 'Only this media, or the media below this folder' }),
    media_id: nullable({ type: 'string', description: 'Only this media' }),
    valid_from: nullable(dateTime),
    valid_until: nullable({ ...dateTime, description: 'A date given as YYYY-MM-DD covers that whole day' }),
    reference: nullable({ type: 'string', description: 'The contract number' }),
    created: dateTime,
    updated: dateTime,
  },
};

export const LICENSEE_INPUT_SCHEMA: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    name: { type: 'string', maxLength: 200 },
    domain: { type: 'string', description: 'A domain name (a URL is reduced to its host)' },
    include_subdomains: { type: 'boolean', default: true },
    media_path: nullable({ type: 'string' }),
    media_id: nullable({ type: 'string' }),
    valid_from: nullable({ type: 'string', description: 'YYYY-MM-DD or an ISO 8601 date-time' }),
    valid_until: nullable({ type: 'string', description: 'YYYY-MM-DD (through that day) or an ISO 8601 date-time' }),
    reference: nullable({ type: 'string', maxLength: 200 }),
  },
};
