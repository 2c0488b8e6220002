import { parseArgs } from 'node:util';
import { printSchema } from 'graphql';
import { ApiError } from '@filigrane/core';
import { readFile } from 'node:fs/promises';
import { basename } from 'node:path';
import { AccountDeletionService, AccountService } from '@filigrane/plugin-account';
import { NotificationService } from '@filigrane/plugin-notifications';
import { ApiKeyService, checkPassword, IdentityService, PasswordService } from '@filigrane/plugin-auth';
import { PressIssueService } from '@filigrane/plugin-press';
import { boot, ensureDemoAccount } from './server.js';
import { buildGraphQLSchema, loadConfig, type FiligraneApp } from '@filigrane/server';
import { pluginsFromConfig } from './plugins.js';
import { settingsDocument } from './settings-document.js';
import { buildToolInBackground } from './tool-build.js';
import { pack, pluginNew } from './scaffold/scaffold-commands.js';
import { evidenceVerify } from './evidence-command.js';

const USAGE = `Usage: filigrane <command> [options]

Commands:
  start [--no-workers]          API + job workers (embedded PostgreSQL under DATA_DIR unless DATABASE_URL);
                                --no-workers: the API alone (needs DATABASE_URL: \`worker\` processes run its jobs)
  worker [--queues P[,P...]]    job workers only (needs DATABASE_URL); --queues: only the queues these
                                patterns name (\`*\` matches anything: --queues 'crawler.*,search.run')
  migrate                       apply database migrations and exit
  account create --username U --email E [--full-name F] [--image-quota N] [--disk-quota BYTES]
                 [--password P | --password-stdin] [--json]
                                create an account and print its API key (a password lets it sign in to the console)
  account set-password --username U [--password P]
                                set the password the account signs in to the console with (read from standard
                                input without --password); its other browser sessions end
  account rotate-key --username U [--json]
                                issue a new API key for the account (the old one stops working at once)
  account grant --username U --permission P
                                give an account a permission (home:/<user>, press:ingest)
  account delete --username U --yes [--json]
                                delete the account and everything it stored (media and their files, matches,
                                crawls and their artifacts, watermarkings, webhooks, searches...); irreversible
  press ingest FILE.pdf --name NAME --date YYYY-MM-DD [--domain D] [--wait] [--json]
                                queue a press issue for analysis (workers of \`start\` or \`worker\` do it);
                                --wait polls until it is complete or failed
  evidence verify FILE.wacz [--key KEY.pem] [--tsa-ca CA.pem] [--require-time-stamp] [--json]
                                check an evidence pack offline: every file's hash, the signature (by the key
                                the pack names, or KEY.pem), the RFC 3161 time stamp (chained to CA.pem);
                                exits 1 when any check fails (docs/rights.md)
  schema                        print the GraphQL schema (SDL)
  settings                      print every setting (environment variable) as a Markdown table
  outbox [--limit N]            print the latest notification mails (the outbox when SMTP_URL is unset)
  plugin new NAME --dir FOLDER [--packages TARBALLS | --registry]
                                write a plugin package (docs/plugins.md), with Filigrane's packages packed into
                                FOLDER/filigrane-packages (or from TARBALLS of \`filigrane pack\`, or by version)
  pack [--out FOLDER]           npm pack the public packages (plugin-api, testing, tsconfig) and what they load

Environment: PORT (8080), HOST (127.0.0.1), DATA_DIR (./data), DATABASE_URL, FILIGRANE_PLUGINS...
  \`filigrane settings\` lists them all (docs/configuration.md).

While \`filigrane start\` runs on the embedded database, the other commands use its database
(through the port it records in DATA_DIR/pg.lock); a second \`start\` on the same DATA_DIR fails.`;

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  switch (command) {
    case 'start':
      return start(rest);
    case 'worker':
      return worker(rest);
    case 'migrate': {
      const running = await boot('migrate');
      await running.stop();
      console.log('migrations applied');
      return 0;
    }
    case 'account':
      if (rest[0] === 'create') return createAccount(rest.slice(1));
      if (rest[0] === 'rotate-key') return rotateKey(rest.slice(1));
      if (rest[0] === 'set-password') return setPassword(rest.slice(1));
      if (rest[0] === 'grant') return grantPermission(rest.slice(1));
      if (rest[0] === 'delete') return deleteAccount(rest.slice(1));
      break;
    case 'press':
      if (rest[0] === 'ingest') return pressIngest(rest.slice(1));
      break;
    case 'outbox':
      return printOutbox(rest);
    case 'plugin':
      if (rest[0] === 'new') return pluginNew(rest.slice(1));
      break;
    case 'pack':
      return pack(rest);
    case 'evidence':
      if (rest[0] === 'verify') return evidenceVerify(rest.slice(1));
      break;
    case 'settings':
      console.log(settingsDocument(await pluginsFromConfig()).trimEnd());
      return 0;
    case 'schema': {
      const running = await boot('migrate');
      try {
        console.log(printSchema(await buildGraphQLSchema(running.app.plugins, running.app.container)));
      } finally {
        await running.stop();
      }
      return 0;
    }
    case undefined:
    case 'help':
    case '--help':
    case '-h':
      console.log(USAGE);
      return command === undefined ? 2 : 0;
  }
  console.error(`unknown command: ${argv.join(' ')}\n\n${USAGE}`);
  return 2;
}

async function printOutbox(args: string[]): Promise<number> {
  const { values } = parseArgs({ args, options: { limit: { type: 'string', default: '50' } }, strict: true });
  const limit = Number(values.limit);
  if (!Number.isInteger(limit) || limit < 1) throw new Error('--limit must be a positive whole number');
  const running = await boot('migrate');
  try {
    const messages = await running.app.container.get(NotificationService).outbox(limit);
    if (messages.length === 0) console.log('The outbox is empty.');
    for (const m of messages) {
      console.log(`#${m.id} ${m.created.toISOString()} [${m.status}] ${m.reason}\nTo: ${m.toAddress}\nSubject: ${m.subject}\n\n${m.body}\n${'-'.repeat(60)}`);
    }
    return 0;
  } finally {
    await running.stop();
  }
}

function untilSignal(): Promise<string> {
  return new Promise((resolve) => {
    process.once('SIGINT', () => resolve('SIGINT'));
    process.once('SIGTERM', () => resolve('SIGTERM'));
  });
}

async function start(args: string[]): Promise<number> {
  const { values } = parseArgs({ args, options: { 'no-workers': { type: 'boolean', default: false } }, strict: true });
  const config = loadConfig();
  const running = await boot('start', config, { workers: !values['no-workers'] });
  const demo = await ensureDemoAccount(running.app);
  // The address this process is bound to (PUBLIC_URL, the same on every replica, is the one links use).
  const bound = running.app.http?.server.address();
  const listening = bound && typeof bound === 'object' ? `http://${bound.family === 'IPv6' ? `[${bound.address}]` : bound.address}:${bound.port}`.replace('[::1]', 'localhost') : running.url;
  console.log(
    `Filigrane listening on ${listening} (${config.publicUrl ? `public URL ${config.publicUrl}; ` : ''}database: ${running.db.embedded ? 'embedded, under DATA_DIR' : 'DATABASE_URL'}; files: ${config.blobStoreUrl ?? 'DATA_DIR/blobs'}; ${values['no-workers'] ? 'API only, no job workers' : 'API and job workers'}; ${config.metricsToken ? 'metrics: GET /metrics' : 'no /metrics: METRICS_TOKEN unset'})`,
  );
  if (demo) {
    console.log(`Created account "demo". API key: ${demo.apiKey}\n  curl -H "Authorization: Token ${demo.apiKey}" ${running.url}/api/v4/account/`);
    console.log(`Console: open ${running.url}/ and sign in as "demo" with the password ${demo.password}\n  (change it in the console's settings, or: npx filigrane account set-password --username demo)`);
  }
  const tool = buildToolInBackground(config, (line) => console.log(line));
  const signal = await untilSignal();
  console.log(`${signal}: stopping`);
  tool?.stop();
  await running.stop();
  return 0;
}

async function worker(args: string[]): Promise<number> {
  const { values } = parseArgs({ args, options: { queues: { type: 'string', multiple: true } }, strict: true });
  const queues = values.queues?.flatMap((v) => v.split(',')).map((q) => q.trim()).filter(Boolean);
  if (values.queues && !queues?.length) throw new Error('--queues needs at least one queue name or pattern');
  const config = loadConfig();
  const running = await boot('worker', config, { queues });
  console.log(`Filigrane workers running (${queues ? `queues ${queues.join(', ')}` : 'every queue'}; files: ${config.blobStoreUrl ?? 'DATA_DIR/blobs'}${config.metricsToken ? '' : '; no metrics endpoint: METRICS_TOKEN unset'})`);
  const signal = await untilSignal();
  console.log(`${signal}: stopping (jobs running finish first)`);
  await running.stop();
  return 0;
}

async function createAccount(args: string[]): Promise<number> {
  const { values } = parseArgs({
    args,
    options: {
      username: { type: 'string' },
      email: { type: 'string' },
      'full-name': { type: 'string' },
      'image-quota': { type: 'string' },
      'disk-quota': { type: 'string' },
      password: { type: 'string' },
      'password-stdin': { type: 'boolean', default: false },
      json: { type: 'boolean', default: false },
    },
    strict: true,
  });
  if (!values.username || !values.email) {
    console.error('account create needs --username and --email');
    return 2;
  }
  const quota = (v: string | undefined, name: string) => {
    if (v === undefined) return null;
    if (!/^\d+$/.test(v)) throw new Error(`--${name} must be a whole number`);
    return Number(v);
  };
  const password = values['password-stdin'] ? await readPassword() : values.password;
  if (password !== undefined) checkPassword(password);
  const running = await boot('migrate');
  try {
    const { account, apiKey } = await running.app.container.get(AccountService).create(
      { username: values.username, email: values.email, fullName: values['full-name'] },
      { imageQuota: quota(values['image-quota'], 'image-quota'), diskQuota: quota(values['disk-quota'], 'disk-quota') },
    );
    if (password !== undefined) await running.app.container.get(PasswordService).set(account.id, password);
    if (values.json) console.log(JSON.stringify({ username: account.username, email: account.email, home: account.home, api_key: apiKey }));
    else console.log(`Created account "${account.username}" (home ${account.home}).\nAPI key: ${apiKey}`);
    return 0;
  } catch (err) {
    if (err instanceof ApiError) {
      console.error(`error: ${err.code}: ${JSON.stringify(err.details)}`);
      return 1;
    }
    throw err;
  } finally {
    await running.stop();
  }
}

async function rotateKey(args: string[]): Promise<number> {
  const { values } = parseArgs({ args, options: { username: { type: 'string' }, json: { type: 'boolean', default: false } }, strict: true });
  if (!values.username) {
    console.error('account rotate-key needs --username');
    return 2;
  }
  return withAccount(values.username, async (app, account) => {
    const apiKey = await app.container.get(ApiKeyService).rotate(account.id);
    if (values.json) console.log(JSON.stringify({ username: account.username, api_key: apiKey }));
    else console.log(`New API key for "${account.username}" (the previous key no longer works):\n${apiKey}`);
    return 0;
  });
}

/** Boots on the database (migrating it), runs `work` on the named account, stops; exit 1 when there is no such account. */
async function withAccount(username: string, work: (app: FiligraneApp, account: { id: number; username: string }) => Promise<number>, missing = 'no account named'): Promise<number> {
  const running = await boot('migrate');
  try {
    const account = await running.app.container.get(IdentityService).findByUsername(username);
    if (!account) {
      console.error(`error: ${missing} "${username}"`);
      return 1;
    }
    return await work(running.app, account);
  } finally {
    await running.stop();
  }
}

/** A password from standard input: everything up to the end (or the first line on a terminal), without its line break. */
async function readPassword(): Promise<string> {
  if (process.stdin.isTTY) process.stderr.write('Password (shown as you type; pipe it to hide it): ');
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) {
    chunks.push(chunk as Buffer);
    if (process.stdin.isTTY && String(chunk).includes('\n')) break;
  }
  const text = Buffer.concat(chunks).toString('utf8');
  return (process.stdin.isTTY ? text.split('\n')[0]! : text).replace(/\r?\n$/, '');
}

async function setPassword(args: string[]): Promise<number> {
  const { values } = parseArgs({ args, options: { username: { type: 'string' }, password: { type: 'string' } }, strict: true });
  if (!values.username) {
    console.error('account set-password needs --username (the password comes from standard input, or --password)');
    return 2;
  }
  const password = values.password ?? (await readPassword());
  try {
    checkPassword(password);
  } catch (err) {
    if (err instanceof ApiError) {
      console.error(`error: ${Object.values(err.details as Record<string, string[]>).flat().join(' ')}`);
      return 1;
    }
    throw err;
  }
  return withAccount(values.username, async (app, account) => {
    await app.container.get(PasswordService).set(account.id, password);
    console.log(`Password set for "${account.username}": it signs in to the console with it (its other browser sessions have ended).`);
    return 0;
  });
}

/**
 * Marks the account (its credentials stop working at once), then deletes it here and now. A deletion
 * job is queued as well, due in 10 minutes: if this command dies midway, workers finish it.
 */
async function deleteAccount(args: string[]): Promise<number> {
  const { values } = parseArgs({ args, options: { username: { type: 'string' }, yes: { type: 'boolean', default: false }, json: { type: 'boolean', default: false } }, strict: true });
  if (!values.username) {
    console.error('account delete needs --username');
    return 2;
  }
  if (!values.yes) {
    console.error(`account delete removes "${values.username}" and everything it stored, for ever: add --yes to confirm`);
    return 2;
  }
  return withAccount(values.username, async (app, account) => {
    const deletion = app.container.get(AccountDeletionService);
    await deletion.request(account.id, { startAfterSeconds: 600 });
    let outcome;
    try {
      outcome = await deletion.run(account.id);
    } catch (err) {
      // The file store or the database failing mid-way (S3 unreachable from this machine...): the
      // account is marked, its key no longer works, and the job queued above finishes the deletion.
      console.error(`error: account "${account.username}" is marked for deletion, but its deletion stopped here: ${(err as Error).message}\n  A worker (queue account.delete) finishes it within 10 minutes; or run this command again once that is fixed.`);
      return 1;
    }
    if (values.json) console.log(JSON.stringify({ username: account.username, deleted: outcome !== 'not-marked' }));
    else console.log(`Deleted account "${account.username}" and everything it stored.`);
    return outcome === 'not-marked' ? 1 : 0;
  });
}

async function grantPermission(args: string[]): Promise<number> {
  const { values } = parseArgs({ args, options: { username: { type: 'string' }, permission: { type: 'string' } }, strict: true });
  if (!values.username || !values.permission || !/^(home:\/[A-Za-z0-9][A-Za-z0-9_-]{1,63}|press:ingest)$/.test(values.permission)) {
    console.error('account grant needs --username and --permission (home:/<user> or press:ingest)');
    return 2;
  }
  const permission = values.permission;
  return withAccount(values.username, async (app, account) => {
    await app.container.get(IdentityService).grant(account.id, permission);
    console.log(`Granted ${permission} to "${account.username}" (permissions apply within 5 s).`);
    return 0;
  }, 'no account');
}

async function pressIngest(args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    options: {
      name: { type: 'string' },
      date: { type: 'string' },
      domain: { type: 'string' },
      wait: { type: 'boolean', default: false },
      json: { type: 'boolean', default: false },
    },
    allowPositionals: true,
    strict: true,
  });
  if (positionals.length !== 1 || !values.name || !values.date) {
    console.error('press ingest needs FILE.pdf, --name and --date');
    return 2;
  }
  const data = await readFile(positionals[0]!);
  const running = await boot('migrate');
  try {
    const issues = running.app.container.get(PressIssueService);
    let issue = await issues.ingest({
      data, name: values.name, date: values.date, domain: values.domain, origin: 'cli', ingestedBy: null,
      filename: basename(positionals[0]!), sourceUrl: null, baseUrl: issues.defaultBaseUrl(),
    });
    const print = () => {
      const view = issues.view(issue);
      if (values.json) console.log(JSON.stringify(view));
      else console.log(`press issue ${issue.id} "${issue.name}" ${issue.date}: ${issue.status}, pages ${issue.pagesDone}/${issue.pagesTotal ?? '?'}${issue.error ? `, ${issue.error.code}: ${issue.error.details}` : ''}`);
    };
    print();
    while (values.wait && issue.status !== 'complete' && issue.status !== 'failed') {
      await new Promise((r) => setTimeout(r, 1000));
      const next = await issues.get(issue.id);
      const changed = next.status !== issue.status || next.pagesDone !== issue.pagesDone;
      issue = next;
      if (changed && !values.json) print();
    }
    if (values.wait && values.json) print();
    return issue.status === 'failed' ? 1 : 0;
  } catch (err) {
    if (err instanceof ApiError) {
      console.error(`error: ${err.code}: ${JSON.stringify(err.details)}`);
      return 1;
    }
    throw err;
  } finally {
    await running.stop();
  }
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err: unknown) => {
    console.error(err instanceof Error ? `error: ${err.message}` : err);
    process.exit(1);
  },
);
