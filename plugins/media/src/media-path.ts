import { badRequest, canActOnHome, forbidden, SPOOFING_CHARACTER, type Principal } from '@filigrane/core';

/** A location in the media tree: `/<homedir>/<path>/<name>`, names NFC-normalised. */
export interface MediaPath {
  /** `/<homedir>` */
  home: string;
  /** Names below the home directory (empty for the home itself). */
  names: string[];
  /** The whole path, `/<homedir>/a/b`. */
  path: string;
}

const MAX_NAME_BYTES = 255;
const MAX_DEPTH = 64;

const invalid = (details: string) => badRequest('invalid_path', details);

/**
 * Characters drawn like '/' that compatibility normalisation (NFKC) does not turn into one: a name
 * `a<U+2215>b.jpg` would list as the path `a/b.jpg`.
 */
const SLASH_LOOKALIKE = /[\u2044\u2215\u2571\u27CB\u29F8]/u;

/**
 * Why a new name would display as something it is not, or null. Invisible format characters and
 * C1 controls (core's SPOOFING_CHARACTER: `report<U+202E>fdp.exe` lists as `reportexe.pdf`); a
 * character drawn as '/' (the look-alikes above, or one NFKC maps to '/', like U+FF0F); dot
 * look-alikes making it read as '.', '..' or a hidden name (NFKC: U+FF0E, U+2024); a leading or
 * trailing space of any kind (`x.jpg ` lists as `x.jpg`; a blank name shows nothing). Decision
 * recorded in docs/api-decisions.md.
 */
function spoofingProblem(nfc: string): string | null {
  const spoof = SPOOFING_CHARACTER.exec(nfc);
  if (spoof) {
    const code = spoof[0].codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0');
    return `Names cannot contain invisible formatting or control characters (U+${code}): they can make a name display as another.`;
  }
  const compatible = nfc.normalize('NFKC');
  if (SLASH_LOOKALIKE.test(nfc) || compatible.includes('/')) return 'Names cannot contain a character drawn like "/": the name would display as a path.';
  if (compatible.startsWith('.')) return 'Names cannot begin with a character drawn like "." (names beginning with "." are reserved, hidden).';
  if (/^\s|\s$/u.test(nfc)) return 'Names cannot begin or end with a space (of any kind): the name would display as another.';
  return null;
}

/**
 * Checks one decoded name; hidden names (leading '.') only when `allowHidden` (reading); names
 * that display as another only when `creating` (names stored before the rule stay reachable).
 */
export function checkName(name: string, allowHidden: boolean, creating = false): string {
  const nfc = name.normalize('NFC');
  if (nfc === '') throw invalid('Empty names are not allowed.');
  if (nfc.includes('/')) throw invalid(`"/" is not allowed in a name ("${nfc}").`);
  if (/[\u0000-\u001f\u007f]/.test(nfc)) throw invalid('Control characters are not allowed in a name.');
  if (nfc === '.' || nfc === '..') throw invalid('"." and ".." are not names.');
  if (nfc.startsWith('.') && !allowHidden) throw invalid(`Names cannot begin with "." (reserved, hidden): "${nfc}".`);
  const spoof = creating ? spoofingProblem(nfc) : null;
  if (spoof) throw badRequest('invalid_name', spoof);
  if (Buffer.byteLength(nfc) > MAX_NAME_BYTES) throw invalid(`Names are limited to ${MAX_NAME_BYTES} bytes.`);
  return nfc;
}

/**
 * Parses the part of a request path after `/media` as sent (still percent-encoded), so that
 * encoded slashes and dot segments are seen for what they are, then checks the caller may act on
 * the home directory it names. An empty path means the caller's own home.
 */
export function parseMediaPath(raw: string, principal: Principal, options: { allowHidden?: boolean; creating?: boolean } = {}): MediaPath {
  const parts = raw.split('/');
  if (parts[0] === '') parts.shift();
  if (parts.length && parts[parts.length - 1] === '') parts.pop();
  if (parts.length > MAX_DEPTH) throw invalid(`Paths are limited to ${MAX_DEPTH} levels.`);
  const names = parts.map((p) => {
    let decoded: string;
    try {
      decoded = decodeURIComponent(p);
    } catch {
      throw invalid('The path is not valid percent-encoded UTF-8.');
    }
    return checkName(decoded, options.allowHidden ?? false, options.creating ?? false);
  });
  const home = names.length ? `/${names.shift()}` : principal.home;
  if (!canActOnHome(principal, home)) throw forbidden(`You do not have permission to act on ${home}.`);
  return { home, names, path: [home, ...names].join('/') };
}

export function parentOf(path: string): string | null {
  const i = path.lastIndexOf('/');
  return i <= 0 ? null : path.slice(0, i);
}

export function nameOf(path: string): string {
  return path.slice(path.lastIndexOf('/') + 1);
}

/** The path percent-encoded segment by segment, for URLs. */
export { encodeMediaPath as encodePath } from '@filigrane/core';
