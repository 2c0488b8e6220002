import type { JsonSchema } from '@filigrane/core';
import { NOTIFICATION_KEYS } from './account.entities.js';

/** JSON Schemas of the account responses, for the OpenAPI document (`/api/schema/`). */
const intOrNull = { anyOf: [{ type: 'integer' }, { type: 'null' }] };

export const ACCOUNT_SCHEMA: JsonSchema = {
  type: 'object',
  required: ['username', 'full_name', 'email', 'image_count', 'image_quota', 'disk_usage', 'disk_quota', 'home', 'permissions', 'quotas'],
  properties: {
    username: { type: 'string' },
    full_name: { type: 'string' },
    email: { type: 'string' },
    incidents: { anyOf: [{ type: 'string', enum: ['free trial expired', 'payment overdue', 'quota exceeded'] }, { type: 'null' }] },
    // The spec's type is "date": the day the account will be deleted (a PostgreSQL date, no time).
    expires: { anyOf: [{ type: 'string', format: 'date' }, { type: 'null' }] },
    image_count: { type: 'integer', minimum: 0 },
    image_quota: intOrNull,
    disk_usage: { type: 'integer', minimum: 0 },
    disk_quota: intOrNull,
    home: { type: 'string', pattern: '^/' },
    permissions: { type: 'array', items: { type: 'string' } },
    quotas: { type: 'object', additionalProperties: intOrNull },
  },
};

export const SETTINGS_SCHEMA: JsonSchema = {
  type: 'object',
  required: ['lang', 'notifications', 'notif_site_countries'],
  additionalProperties: false,
  properties: {
    lang: { type: 'string', enum: ['fr', 'en'] },
    notifications: {
      type: 'object',
      required: [...NOTIFICATION_KEYS],
      additionalProperties: false,
      properties: Object.fromEntries(NOTIFICATION_KEYS.map((k) => [k, { type: 'boolean' }])),
    },
    notif_site_countries: { type: 'array', items: { type: 'string', pattern: '^[A-Z]{2}$' } },
  },
};

export const SETTINGS_UPDATE_SCHEMA: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    lang: { type: 'string', enum: ['fr', 'en'] },
    notifications: { type: 'object', additionalProperties: { type: 'boolean' } },
    notif_site_countries: { type: 'array', items: { type: 'string' } },
  },
};

/** The spec's Download information (`building`: executables still being built after the first start). */
export const DOWNLOAD_SCHEMA: JsonSchema = {
  type: 'object',
  required: ['version', 'key', 'software'],
  properties: {
    version: { type: 'string' },
    key: { type: 'object', additionalProperties: { type: 'string' } },
    software: { type: 'object', additionalProperties: { type: 'string' } },
    building: { type: 'array', items: { type: 'string' } },
  },
};
