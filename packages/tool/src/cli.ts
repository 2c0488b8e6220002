/** The offline tool: <tool> [options] <input_image> <output_image> <registration_file> <public_key.der>. */
import { randomBytes } from 'node:crypto';
import { renameSync, unlinkSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { MediaError } from '@filigrane/vision';
import { embed, encodeLmk, generateKey, type Registration } from '@filigrane/watermark';
import { BANNER, TOOL_NAME, TOOL_VERSION, USAGE } from './about';
import { ExitCode, ToolError, type ExitCodeValue } from './exit-codes';
import { fullCollection } from './full-collection';
import { checkPreconditions, parseArguments } from './preconditions';

export interface Io {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
}

const processIo: Io = {
  stdout: (t) => process.stdout.write(t),
  stderr: (t) => process.stderr.write(t),
};

/** Writes both files next to their targets first, then renames: never a half-written output. */
function writeAtomically(files: { path: string; data: Buffer }[]): void {
  const temps: string[] = [];
  try {
    for (const f of files) {
      const tmp = join(dirname(resolve(f.path)), `.${basename(f.path)}.${randomBytes(6).toString('hex')}.tmp`);
      temps.push(tmp);
      writeFileSync(tmp, f.data, { flag: 'wx', mode: 0o644 });
    }
    files.forEach((f, i) => renameSync(temps[i], f.path));
  } catch (err) {
    for (const t of temps) {
      try {
        unlinkSync(t);
      } catch {
        /* already renamed or never created */
      }
    }
    throw new ToolError(ExitCode.writeFailed, `writing the outputs failed: ${(err as Error).message}`);
  }
}

export async function run(argv: readonly string[], io: Io = processIo): Promise<ExitCodeValue> {
  io.stderr(`${BANNER}\n`);
  try {
    const inv = parseArguments(argv);
    if (inv.help) {
      io.stdout(`${USAGE}\n`);
      return ExitCode.ok;
    }
    if (inv.version) {
      io.stdout(`${TOOL_NAME} ${TOOL_VERSION}\n`);
      return ExitCode.ok;
    }
    const checked = await checkPreconditions(inv);
    // The .lmk is sealed while libvips codes and verifies the output (embed's `seal`); the header
    // read by the preconditions is not read again.
    const seal = (r: Registration): Buffer => encodeLmk(r, checked.publicKey);
    let result;
    try {
      result = await embed(checked.input, generateKey(), { transactional: inv.transactional, seal, info: checked.info, collectGarbage: fullCollection() });
    } catch (err) {
      if (err instanceof MediaError) throw new ToolError(ExitCode.inputUnsupported, `${inv.input}: ${err.message} (${err.code})`);
      throw err;
    }
    const lmk = result.sealed ?? seal(result.registration);
    writeAtomically([
      { path: inv.output, data: result.image },
      { path: inv.registration, data: lmk },
    ]);
    const r = result.report;
    io.stderr(
      `watermarked ${inv.input} -> ${inv.output} (${r.width}x${r.height}, PSNR ${r.psnr.toFixed(2)} dB, ${Math.round(r.totalMs)} ms)\n` +
        `registration file ${inv.registration} (${inv.transactional ? 'transactional' : 'normal'}, ${lmk.length} bytes)\n`,
    );
    return ExitCode.ok;
  } catch (err) {
    if (err instanceof ToolError) {
      io.stderr(`error: ${err.message}\n`);
      if (err.exitCode === ExitCode.usage) io.stderr(`Try '${TOOL_NAME} --help'.\n`);
      return err.exitCode;
    }
    io.stderr(`internal error: ${(err as Error).stack ?? String(err)}\n`);
    return ExitCode.internal;
  }
}

/** Runs the tool as a process entry point: sets the exit code, never throws. */
export function runMain(argv: readonly string[]): void {
  run(argv).then(
    (code) => {
      process.exitCode = code;
    },
    (err: unknown) => {
      process.stderr.write(`internal error: ${String(err)}\n`);
      process.exitCode = ExitCode.internal;
    },
  );
}
