import test from 'ava';
import { execFile, execFileSync } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { chmodSync, existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { decodeLmk } from '@filigrane/watermark';

const main = join(__dirname, '..', 'src', 'main.js');

interface Outcome {
  code: number;
  stdout: string;
  stderr: string;
}

function tool(args: string[], cwd: string): Promise<Outcome> {
  return new Promise((resolve) => {
    execFile(process.execPath, [main, ...args], { cwd }, (err, stdout, stderr) => {
      resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, stdout, stderr });
    });
  });
}

const { publicKey, privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
let dir = '';

test.before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'filigrane-mark-'));
  const px = Buffer.alloc(320 * 240 * 3);
  for (let i = 0; i < px.length; i++) px[i] = (i * 31 + ((i / 960) | 0) * 7) % 251;
  writeFileSync(join(dir, 'in.jpg'), await sharp(px, { raw: { width: 320, height: 240, channels: 3 } }).jpeg().toBuffer());
  writeFileSync(join(dir, 'in.png'), await sharp(px, { raw: { width: 320, height: 240, channels: 3 } }).png().toBuffer());
  writeFileSync(join(dir, 'key.der'), publicKey.export({ type: 'spki', format: 'der' }));
  writeFileSync(join(dir, 'bad.der'), 'not a key');
  writeFileSync(join(dir, 'notes.txt'), 'hello');
});

function banner(t: { true(v: boolean, m?: string): void }, o: Outcome): void {
  t.true(/filigrane-mark \d+\.\d+\.\d+/.test(o.stderr), 'version on stderr');
  t.true(o.stderr.includes('AGPL-3.0-or-later'), 'licence on stderr');
}

test('watermarks and writes a registration file that the account can open', async (t) => {
  const o = await tool(['in.jpg', 'out.jpg', 'out.lmk', 'key.der'], dir);
  t.is(o.code, 0, o.stderr);
  banner(t, o);
  t.is((await sharp(readFileSync(join(dir, 'out.jpg'))).metadata()).format, 'jpeg');
  // The PSNR the tool prints is the written file's, as ImageMagick measures it.
  const printed = Number(/PSNR ([0-9.]+) dB/.exec(o.stderr)![1]);
  let cmp: string;
  try {
    cmp = execFileSync('compare', ['-metric', 'PSNR', join(dir, 'in.jpg'), join(dir, 'out.jpg'), 'null:'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  } catch (err) {
    cmp = String((err as { stderr: Buffer }).stderr);
  }
  const measured = Number(cmp.trim().split(/\s/)[0]);
  t.true(measured >= 44, `compare PSNR ${measured}`);
  t.true(Math.abs(measured - printed) <= 0.01, `printed ${printed}, compare ${measured}`);
  const reg = decodeLmk(readFileSync(join(dir, 'out.lmk')), privateKey.export({ type: 'pkcs8', format: 'der' }));
  t.is(reg.mode, 'normal');
  t.truthy(reg.reduced);
  const tx = await tool(['-t', 'in.png', 'out-t.png', 'out-t.lmk', 'key.der'], dir);
  t.is(tx.code, 0, tx.stderr);
  const small = readFileSync(join(dir, 'out-t.lmk'));
  t.true(small.length < 1000);
  t.is(decodeLmk(small, privateKey.export({ type: 'pkcs8', format: 'der' })).mode, 'transactional');
});

test('--help and --version exit 0 and still print the banner', async (t) => {
  const help = await tool(['--help'], dir);
  t.is(help.code, 0);
  t.true(help.stdout.includes('Usage: filigrane-mark [options] <input_image> <output_image> <registration_file> <public_key.der>'));
  banner(t, help);
  const version = await tool(['--version'], dir);
  t.is(version.code, 0);
  t.regex(version.stdout, /^filigrane-mark \d+\.\d+\.\d+\n$/);
  banner(t, version);
});

const failures: [string, string[], number, RegExp, string[]][] = [
  ['usage: missing arguments', ['in.jpg', 'o.jpg'], 2, /expected 4 arguments/, []],
  ['usage: unknown option', ['-x', 'in.jpg', 'o.jpg', 'o.lmk', 'key.der'], 2, /unknown option -x/, []],
  ['input missing', ['nope.jpg', 'o.jpg', 'o.lmk', 'key.der'], 3, /cannot read the input image/, ['o.jpg', 'o.lmk']],
  ['input unsupported', ['notes.txt', 'o.jpg', 'o.lmk', 'key.der'], 4, /not a JPEG, PNG or GIF/, ['o.jpg', 'o.lmk']],
  ['output extension mismatch', ['in.jpg', 'o.png', 'o.lmk', 'key.der'], 5, /output name must end with \.jpg/, ['o.png', 'o.lmk']],
  ['invalid key', ['in.jpg', 'o.jpg', 'o.lmk', 'bad.der'], 6, /not an RSA public key/, ['o.jpg', 'o.lmk']],
  ['missing key', ['in.jpg', 'o.jpg', 'o.lmk', 'missing.der'], 6, /cannot read the public key/, ['o.jpg', 'o.lmk']],
  ['output overwrites the input', ['in.jpg', './in.jpg', 'o.lmk', 'key.der'], 7, /overwrite the input/, ['o.lmk']],
  ['registration overwrites the input', ['in.jpg', 'o.jpg', 'in.jpg', 'key.der'], 7, /overwrite the input/, ['o.jpg']],
  ['output equals registration', ['in.jpg', 'same.jpg', 'same.jpg', 'key.der'], 7, /same path/, ['same.jpg']],
  ['output directory missing', ['in.jpg', 'no/such/dir/o.jpg', 'o.lmk', 'key.der'], 7, /cannot write the output image/, ['o.lmk']],
];

for (const [name, args, code, message, mustNotExist] of failures) {
  test(`exit ${code}: ${name}, nothing written`, async (t) => {
    const o = await tool(args, dir);
    t.is(o.code, code, o.stderr);
    banner(t, o);
    t.regex(o.stderr, message);
    for (const f of mustNotExist) t.false(existsSync(join(dir, f)), `${f} must not be written`);
  });
}

test('exit 7 when the output directory is read-only', async (t) => {
  if (process.getuid?.() === 0) {
    t.pass('root ignores directory permissions');
    return;
  }
  const ro = mkdtempSync(join(tmpdir(), 'filigrane-ro-'));
  chmodSync(ro, 0o500);
  const o = await tool(['in.jpg', join(ro, 'o.jpg'), 'o2.lmk', 'key.der'], dir);
  t.is(o.code, 7);
});
