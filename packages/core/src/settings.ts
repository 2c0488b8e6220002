/**
 * Typed settings: each plugin declares the environment variables it reads (type, default, bounds,
 * description). The gateway parses them once at boot (a bad value is a boot error naming the plugin
 * and the variable), binds the values to the declaration's token, and prints every declaration as
 * one table (`filigrane settings`, docs/configuration.md). A plugin sees only its own settings.
 */

export type SettingType = 'integer' | 'number' | 'string' | 'boolean' | 'list' | 'url';

export interface SettingSpec<T = unknown> {
  /** Environment variable name. */
  env: string;
  type: SettingType;
  /** Used when the variable is unset or empty; `undefined` makes the setting optional. */
  default?: T;
  description: string;
  min?: number;
  max?: number;
  /** For strings: the allowed values. */
  choices?: readonly string[];
  /** Never printed (tables show "set"/"unset"). */
  secret?: boolean;
  /** Phantom field carrying the value type. */
  readonly __value?: T;
}

type Opts<T> = Omit<SettingSpec<T>, 'type' | '__value'>;

/** Builders that carry the value type into the declaration. */
export const setting = {
  integer: (o: Opts<number> & { default: number }): SettingSpec<number> => ({ ...o, type: 'integer' }),
  number: (o: Opts<number> & { default: number }): SettingSpec<number> => ({ ...o, type: 'number' }),
  boolean: (o: Opts<boolean> & { default: boolean }): SettingSpec<boolean> => ({ ...o, type: 'boolean' }),
  string: (o: Opts<string> & { default: string }): SettingSpec<string> => ({ ...o, type: 'string' }),
  optionalString: (o: Omit<Opts<string>, 'default'>): SettingSpec<string | undefined> => ({ ...o, type: 'string' }),
  optionalUrl: (o: Omit<Opts<string>, 'default'>): SettingSpec<string | undefined> => ({ ...o, type: 'url' }),
  list: (o: Opts<string[]> & { default: string[] }): SettingSpec<string[]> => ({ ...o, type: 'list' }),
};

export type SettingSpecs = Record<string, SettingSpec<any>>; // eslint-disable-line @typescript-eslint/no-explicit-any
export type SettingValues<S extends SettingSpecs> = { readonly [K in keyof S]: S[K] extends SettingSpec<infer T> ? T : never };

export interface SettingsDeclaration<S extends SettingSpecs = SettingSpecs> {
  /** Who declares them (a plugin id, or `core` for the platform's own). */
  owner: string;
  specs: S;
  /** Inversify token the parsed values are bound to: `@inject(MY_SETTINGS.token)`. */
  token: symbol & { __type?: SettingValues<S> };
}

export function defineSettings<S extends SettingSpecs>(owner: string, specs: S): SettingsDeclaration<S> {
  return { owner, specs, token: Symbol.for(`filigrane.settings.${owner}`) as symbol & { __type?: SettingValues<S> } };
}

export class SettingsError extends Error {
  override name = 'SettingsError';
}

const TRUE = new Set(['1', 'true', 'yes', 'on']);
const FALSE = new Set(['0', 'false', 'no', 'off']);

function parseOne(owner: string, spec: SettingSpec, raw: string): unknown {
  const fail = (expected: string): never => {
    const shown = spec.secret ? '(hidden)' : `"${raw}"`;
    throw new SettingsError(`plugin "${owner}": setting ${spec.env} must be ${expected}, got ${shown}`);
  };
  switch (spec.type) {
    case 'integer':
    case 'number': {
      const n = Number(raw.trim());
      if (raw.trim() === '' || !Number.isFinite(n) || (spec.type === 'integer' && !Number.isInteger(n))) fail(spec.type === 'integer' ? 'an integer' : 'a number');
      if (spec.min !== undefined && n < spec.min) fail(`>= ${spec.min}`);
      if (spec.max !== undefined && n > spec.max) fail(`<= ${spec.max}`);
      return n;
    }
    case 'boolean': {
      const v = raw.trim().toLowerCase();
      if (TRUE.has(v)) return true;
      if (FALSE.has(v)) return false;
      return fail('a boolean (true/false, 1/0, yes/no, on/off)');
    }
    case 'list':
      return raw.split(/[\s,]+/).filter((e) => e !== '');
    case 'url': {
      try {
        return new URL(raw).toString() && raw;
      } catch {
        return fail('a URL');
      }
    }
    default:
      if (spec.choices && !spec.choices.includes(raw)) fail(`one of ${spec.choices.join(', ')}`);
      return raw;
  }
}

/** Parses one declaration from an environment; throws a SettingsError naming the owner and variable. */
export function parseSettings<S extends SettingSpecs>(decl: SettingsDeclaration<S>, env: Record<string, string | undefined>): SettingValues<S> {
  const values: Record<string, unknown> = {};
  for (const [key, spec] of Object.entries(decl.specs)) {
    const raw = env[spec.env];
    values[key] = raw === undefined || raw === '' ? spec.default : parseOne(decl.owner, spec, raw);
  }
  return Object.freeze(values) as SettingValues<S>;
}

/** Parsed settings for tests or scripts, with overrides by variable name. */
export function settingsFor<S extends SettingSpecs>(decl: SettingsDeclaration<S>, env: Record<string, string | undefined> = {}): SettingValues<S> {
  return parseSettings(decl, env);
}

function defaultText(spec: SettingSpec): string {
  const d = spec.default as unknown;
  if (d === undefined) return 'unset';
  if (Array.isArray(d)) return d.length ? `\`${d.join(',')}\`` : 'empty';
  return `\`${String(d)}\``;
}

/** One Markdown table of every declared setting (generated: `filigrane settings`). */
export function settingsTable(declarations: SettingsDeclaration[]): string {
  const rows = ['| variable | owner | type | default | meaning |', '|---|---|---|---|---|'];
  for (const decl of declarations) {
    for (const spec of Object.values(decl.specs)) {
      const bounds = [spec.min !== undefined ? `>= ${spec.min}` : '', spec.max !== undefined ? `<= ${spec.max}` : '', spec.choices ? spec.choices.join(' / ') : ''].filter(Boolean).join(', ');
      rows.push(`| \`${spec.env}\` | ${decl.owner} | ${spec.type}${bounds ? ` (${bounds})` : ''} | ${defaultText(spec)} | ${spec.description.replace(/\|/g, '\\|')} |`);
    }
  }
  return rows.join('\n') + '\n';
}

/**
 * The platform's own settings, read by several plugins: one parse instead of one per plugin.
 * Inject with `@inject(CORE_SETTINGS.token)`.
 */
export const CORE_SETTINGS = defineSettings('core', {
  maxImagePixels: setting.integer({ env: 'MAX_IMAGE_PIXELS', default: 40_000_000, min: 1, description: 'Largest decoded image (pixels) accepted anywhere (uploads, sightings, watermarking); bigger is refused as a decompression bomb' }),
  maxVideoSeconds: setting.integer({ env: 'MAX_VIDEO_SECONDS', default: 3600, min: 1, description: 'Longest video accepted (registration, search, crawled videos); longer is refused with 413 video_too_long (bounds decoding time and the visual index, 2 frames a second)' }),
  fetchAllowHosts: setting.list({ env: 'FETCH_ALLOW_HOSTS', default: [], description: 'Hosts, IPs or CIDRs the SSRF-safe fetcher may reach although private (for example `127.0.0.1` for a local test server)' }),
});
export type CoreSettings = SettingValues<typeof CORE_SETTINGS.specs>;
