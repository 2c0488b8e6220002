import { readFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { verifyWacz } from '@filigrane/plugin-evidence';

/**
 * `filigrane evidence verify FILE.wacz [--key KEY.pem] [--tsa-ca CA.pem] [--require-time-stamp] [--json]`:
 * checks an evidence pack offline (hashes, signature, time stamp); exit 0 when every check passes, 1 otherwise.
 */
export async function evidenceVerify(args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    strict: true,
    options: { key: { type: 'string' }, 'tsa-ca': { type: 'string' }, 'require-time-stamp': { type: 'boolean', default: false }, json: { type: 'boolean', default: false } },
  });
  if (positionals.length !== 1) {
    console.error('evidence verify needs one FILE.wacz');
    return 2;
  }
  const [file] = positionals as [string];
  let bytes: Buffer;
  try {
    bytes = await readFile(file);
  } catch (err) {
    console.error(`error: cannot read ${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
    return 1;
  }
  const result = await verifyWacz(bytes, {
    ...(values.key ? { publicKeyPem: await readFile(values.key, 'utf8') } : {}),
    ...(values['tsa-ca'] ? { trustedTsaCertsPem: await readFile(values['tsa-ca'], 'utf8') } : {}),
    requireTimeStamp: values['require-time-stamp'],
  });
  if (values.json) console.log(JSON.stringify(result, null, 2));
  else {
    for (const c of result.checks) console.log(`${c.ok ? 'ok  ' : 'FAIL'} ${c.name}: ${c.details}`);
    for (const w of result.warnings) console.log(`note ${w}`);
    console.log(result.ok ? `${file}: verified` : `${file}: NOT verified (${result.checks.filter((c) => !c.ok).length} failed checks)`);
  }
  return result.ok ? 0 : 1;
}
