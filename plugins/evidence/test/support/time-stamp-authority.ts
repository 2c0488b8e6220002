// A local RFC 3161 time stamp authority for tests: a throwaway CA and TSA certificate made with
// openssl in a temp folder, served on loopback by a tiny HTTP server that answers each
// TimeStampReq with `openssl ts -reply`.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface TimeStampAuthority {
  url: string;
  dir: string;
  /** The root CA's certificate (PEM file path). */
  caFile: string;
  /** The TSA's certificate (PEM file path). */
  tsaCertFile: string;
  requests: number;
  close(): Promise<void>;
}

const openssl = (dir: string, args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });

export async function startTimeStampAuthority(): Promise<TimeStampAuthority> {
  const dir = mkdtempSync(join(tmpdir(), 'filigrane-tsa-'));
  openssl(dir, ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'ca.key', '-out', 'ca.pem', '-subj', '/CN=Filigrane Test Root CA', '-days', '2',
    '-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,keyCertSign,cRLSign']);
  openssl(dir, ['req', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'tsa.key', '-out', 'tsa.csr', '-subj', '/CN=Filigrane Test TSA/O=Tests']);
  writeFileSync(join(dir, 'tsa-ext.cnf'), 'basicConstraints=CA:FALSE\nkeyUsage=critical,digitalSignature\nextendedKeyUsage=critical,timeStamping\n');
  openssl(dir, ['x509', '-req', '-in', 'tsa.csr', '-CA', 'ca.pem', '-CAkey', 'ca.key', '-CAcreateserial', '-out', 'tsa.pem', '-days', '2', '-extfile', 'tsa-ext.cnf']);
  writeFileSync(join(dir, 'tsaserial'), '01\n');
  writeFileSync(
    join(dir, 'tsa.cnf'),
    `[ tsa ]\ndefault_tsa = tsa_config1\n[ tsa_config1 ]\ndir = ${dir}\nserial = $dir/tsaserial\ncrypto_device = builtin\nsigner_cert = $dir/tsa.pem\n` +
      'certs = $dir/ca.pem\nsigner_key = $dir/tsa.key\nsigner_digest = sha256\ndefault_policy = 1.2.3.4.1\nother_policies = 1.2.3.4.5\ndigests = sha256, sha384, sha512\n' +
      'accuracy = secs:1\nordering = yes\ntsa_name = yes\ness_cert_id_chain = no\ness_cert_id_alg = sha256\n',
  );
  let n = 0;
  const authority: TimeStampAuthority = {
    url: '',
    dir,
    caFile: join(dir, 'ca.pem'),
    tsaCertFile: join(dir, 'tsa.pem'),
    get requests() {
      return n;
    },
    close: async () => {
      // A client's idle keep-alive connection (a worker killed with kill -9 never closes its own) must not hold the close.
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      rmSync(dir, { recursive: true, force: true });
    },
  };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      n += 1;
      try {
        if (req.method !== 'POST' || req.headers['content-type'] !== 'application/timestamp-query') throw new Error('not a time stamp query');
        const query = join(dir, `q${n}.tsq`);
        const reply = join(dir, `r${n}.tsr`);
        writeFileSync(query, Buffer.concat(chunks));
        openssl(dir, ['ts', '-reply', '-config', join(dir, 'tsa.cnf'), '-queryfile', query, '-out', reply]);
        res.writeHead(200, { 'content-type': 'application/timestamp-reply' }).end(readFileSync(reply));
      } catch (err) {
        res.writeHead(400, { 'content-type': 'text/plain' }).end((err as Error).message);
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  authority.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/tsr`;
  return authority;
}
