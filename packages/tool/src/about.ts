/** Name, version and licence: printed on stderr at every run (spec: "always writes version and licence"). */
// eslint-disable-next-line @typescript-eslint/no-require-imports
const pkg = require('../../package.json') as { version: string };

export const TOOL_NAME = 'filigrane-mark';
export const TOOL_VERSION = pkg.version;

export const BANNER = [
  `${TOOL_NAME} ${TOOL_VERSION} - Filigrane offline watermarking tool`,
  'Copyright (C) the Filigrane authors. Licence: GNU AGPL-3.0-or-later <https://www.gnu.org/licenses/agpl-3.0.html>.',
  'This program comes with ABSOLUTELY NO WARRANTY; it is free software, and you are welcome to redistribute it',
  'under the terms of that licence.',
].join('\n');

export const USAGE = `Usage: ${TOOL_NAME} [options] <input_image> <output_image> <registration_file> <public_key.der>

Watermarks <input_image> (JPEG, PNG or GIF) into <output_image> (same format, same metadata) and
writes the encrypted registration file to send to the media endpoint.

Arguments:
  input_image        full-resolution input, JPEG, PNG or GIF
  output_image       watermarked output; its extension must match the input format
  registration_file  encrypted registration data (.lmk)
  public_key.der     the account's encryption key (RSA, SPKI DER), downloaded from the account

Options:
  -t             transactional: a small registration file (pixel hash, key and parameters only),
                 for an image whose first (normal) registration file was already registered
  -h, --help     show this help and exit
  -V, --version  show the version and exit

Exit codes: 0 success, 1 internal error, 2 usage, 3 input unreadable, 4 input unsupported or
corrupt, 5 output extension does not match the input format, 6 invalid public key, 7 an output
path is not writable or would overwrite the input, 8 writing the outputs failed.`;
