/**
 * Everything checked before a single byte is written: arguments, input, output names, key, paths.
 * A failed check leaves the file system untouched.
 */
import { accessSync, constants, existsSync, readFileSync, realpathSync, statSync } from 'node:fs';
import { basename, dirname, extname, resolve } from 'node:path';
import { MediaError, probeImage, type ImageFormat, type ImageInfo } from '@filigrane/vision';
import { assertAccountPublicKey } from '@filigrane/watermark';
import { ExitCode, ToolError } from './exit-codes';

export interface Invocation {
  help: boolean;
  version: boolean;
  transactional: boolean;
  input: string;
  output: string;
  registration: string;
  publicKey: string;
}

export function parseArguments(argv: readonly string[]): Invocation {
  const positional: string[] = [];
  const inv = { help: false, version: false, transactional: false };
  let optionsEnded = false;
  for (const arg of argv) {
    if (!optionsEnded && arg === '--') optionsEnded = true;
    else if (!optionsEnded && (arg === '-h' || arg === '--help')) inv.help = true;
    else if (!optionsEnded && (arg === '-V' || arg === '--version')) inv.version = true;
    else if (!optionsEnded && arg === '-t') inv.transactional = true;
    else if (!optionsEnded && arg.startsWith('-') && arg !== '-') throw new ToolError(ExitCode.usage, `unknown option ${arg}`);
    else positional.push(arg);
  }
  if (inv.help || inv.version) return { ...inv, input: '', output: '', registration: '', publicKey: '' };
  if (positional.length !== 4) {
    throw new ToolError(ExitCode.usage, `expected 4 arguments (input, output, registration file, public key), got ${positional.length}`);
  }
  const [input, output, registration, publicKey] = positional;
  return { ...inv, input, output, registration, publicKey };
}

const EXTENSIONS: Record<ImageFormat, readonly string[]> = {
  jpeg: ['.jpg', '.jpeg', '.jpe', '.jfif'],
  png: ['.png'],
  gif: ['.gif'],
};

function readOrFail(path: string, code: typeof ExitCode.inputUnreadable | typeof ExitCode.invalidKey, what: string): Buffer {
  try {
    if (statSync(path).isDirectory()) throw new Error('is a directory');
    return readFileSync(path);
  } catch (err) {
    throw new ToolError(code, `cannot read ${what} ${path}: ${(err as Error).message}`);
  }
}

/** Canonical path of a file that may not exist yet: real directory + base name. */
function canonical(path: string): string {
  const abs = resolve(path);
  try {
    return realpathSync(abs);
  } catch {
    try {
      return resolve(realpathSync(dirname(abs)), basename(abs));
    } catch {
      return abs;
    }
  }
}

function assertWritable(path: string, what: string): void {
  const dir = dirname(resolve(path));
  try {
    if (!statSync(dir).isDirectory()) throw new Error('not a directory');
    accessSync(dir, constants.W_OK);
  } catch (err) {
    throw new ToolError(ExitCode.outputPath, `cannot write the ${what} in ${dir}: ${(err as Error).message}`);
  }
  if (existsSync(path)) {
    try {
      if (statSync(path).isDirectory()) throw new Error('is a directory');
      accessSync(path, constants.W_OK);
    } catch (err) {
      throw new ToolError(ExitCode.outputPath, `cannot overwrite the ${what} ${path}: ${(err as Error).message}`);
    }
  }
}

export interface Checked {
  input: Buffer;
  info: ImageInfo;
  publicKey: Buffer;
}

export async function checkPreconditions(inv: Invocation): Promise<Checked> {
  const input = readOrFail(inv.input, ExitCode.inputUnreadable, 'the input image');
  let info: ImageInfo;
  try {
    info = await probeImage(input);
  } catch (err) {
    if (err instanceof MediaError) throw new ToolError(ExitCode.inputUnsupported, `${inv.input}: ${err.message} (${err.code})`);
    throw err;
  }
  const ext = extname(inv.output).toLowerCase();
  if (!EXTENSIONS[info.format].includes(ext)) {
    throw new ToolError(
      ExitCode.outputFormatMismatch,
      `the input is ${info.format.toUpperCase()}: the output name must end with ${EXTENSIONS[info.format].join(', ')} (got "${ext || 'no extension'}")`,
    );
  }
  const publicKey = readOrFail(inv.publicKey, ExitCode.invalidKey, 'the public key');
  try {
    assertAccountPublicKey(publicKey);
  } catch (err) {
    throw new ToolError(ExitCode.invalidKey, `${inv.publicKey}: ${(err as Error).message}`);
  }
  const inPath = canonical(inv.input);
  const outPath = canonical(inv.output);
  const regPath = canonical(inv.registration);
  if (outPath === inPath) throw new ToolError(ExitCode.outputPath, 'the output image would overwrite the input image');
  if (regPath === inPath) throw new ToolError(ExitCode.outputPath, 'the registration file would overwrite the input image');
  if (regPath === canonical(inv.publicKey)) throw new ToolError(ExitCode.outputPath, 'the registration file would overwrite the public key');
  if (outPath === regPath) throw new ToolError(ExitCode.outputPath, 'the output image and the registration file are the same path');
  assertWritable(inv.output, 'output image');
  assertWritable(inv.registration, 'registration file');
  return { input, info, publicKey };
}
