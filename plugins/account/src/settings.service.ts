import { inject, injectable } from 'inversify';
import type { DataSource } from 'typeorm';
import { TOKENS, validationError, type ErrorItem } from '@filigrane/core';
import { AccountProfile, NOTIFICATION_KEYS } from './account.entities.js';
import { AccountService } from './account.service.js';
import { ISO_COUNTRIES } from './countries.js';

export interface SettingsView {
  lang: string;
  notifications: Record<string, boolean>;
  notif_site_countries: string[];
}

const LANGS = ['fr', 'en'];

export function settingsView(p: AccountProfile): SettingsView {
  const notifications: Record<string, boolean> = {};
  for (const k of NOTIFICATION_KEYS) notifications[k] = p.notifications[k] ?? false;
  return { lang: p.lang, notifications, notif_site_countries: p.notifSiteCountries };
}

/** Validates a partial settings update; every problem is reported, per field. */
export function parseSettingsUpdate(body: unknown): Partial<SettingsView> {
  const errors: ErrorItem[] = [];
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    throw validationError([{ code: 'invalid', details: 'Expected a JSON object.' }]);
  }
  const input = body as Record<string, unknown>;
  const update: Partial<SettingsView> = {};
  for (const key of Object.keys(input)) {
    if (!['lang', 'notifications', 'notif_site_countries'].includes(key)) {
      errors.push({ field: key, code: 'unknown_field', details: `Unknown setting "${key}".` });
    }
  }
  if ('lang' in input) {
    if (typeof input.lang === 'string' && LANGS.includes(input.lang)) update.lang = input.lang;
    else errors.push({ field: 'lang', code: 'invalid_choice', details: `"${String(input.lang)}" is not a valid choice; use fr or en.` });
  }
  if ('notifications' in input) {
    const n = input.notifications;
    if (n === null || typeof n !== 'object' || Array.isArray(n)) {
      errors.push({ field: 'notifications', code: 'invalid', details: 'Expected an object of booleans.' });
    } else {
      update.notifications = {};
      for (const [k, v] of Object.entries(n)) {
        if (!(NOTIFICATION_KEYS as readonly string[]).includes(k)) {
          errors.push({ field: `notifications.${k}`, code: 'unknown_field', details: `Unknown notification "${k}".` });
        } else if (typeof v !== 'boolean') {
          errors.push({ field: `notifications.${k}`, code: 'invalid', details: 'Must be a boolean.' });
        } else update.notifications[k] = v;
      }
    }
  }
  if ('notif_site_countries' in input) {
    const c = input.notif_site_countries;
    if (!Array.isArray(c)) {
      errors.push({ field: 'notif_site_countries', code: 'invalid', details: 'Expected a list of ISO 3166-1 alpha-2 codes.' });
    } else {
      c.forEach((code, i) => {
        if (typeof code !== 'string' || !ISO_COUNTRIES.has(code.toUpperCase())) {
          errors.push({ field: `notif_site_countries.${i}`, code: 'invalid_choice', details: `"${String(code)}" is not an ISO 3166-1 alpha-2 country code.` });
        }
      });
      update.notif_site_countries = [...new Set(c.filter((x): x is string => typeof x === 'string').map((x) => x.toUpperCase()))];
    }
  }
  if (errors.length) throw validationError(errors);
  return update;
}

@injectable()
export class SettingsService {
  constructor(
    @inject(TOKENS.DataSource) private readonly db: DataSource,
    @inject(AccountService) private readonly accounts: AccountService,
  ) {}

  async get(accountId: number): Promise<SettingsView> {
    return settingsView(await this.accounts.profile(accountId));
  }

  /** Partial update: absent keys (and absent notification flags) keep their value. */
  async update(accountId: number, update: Partial<SettingsView>): Promise<SettingsView> {
    await this.db.transaction(async (m) => {
      const p = await m.findOne(AccountProfile, { where: { accountId }, lock: { mode: 'pessimistic_write' } });
      if (!p) return;
      if (update.lang) p.lang = update.lang;
      if (update.notifications) p.notifications = { ...p.notifications, ...update.notifications };
      if (update.notif_site_countries) p.notifSiteCountries = update.notif_site_countries;
      await m.save(p);
    });
    return this.get(accountId);
  }
}
