/**
 * PGlite served over the PostgreSQL wire protocol on loopback, with a password.
 *
 * Written in place of @electric-sql/pglite-socket's server for two reasons:
 * - that server accepts any local connection without authentication, so any local user could
 *   write to the database; here every connection must pass an MD5 password exchange;
 * - it runs one message at a time from any connection, so the extended-protocol messages of two
 *   connections (Parse/Bind/Execute/Sync, all on PGlite's one unnamed statement) interleave
 *   ("bind message supplies 1 parameters, but prepared statement requires 4"). Here a
 *   connection's messages up to Sync (or a simple Query) run as one uninterrupted turn, and while
 *   a connection holds an open transaction only it runs.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { createServer, type Server, type Socket } from 'node:net';
import type { PGlite } from '@electric-sql/pglite';

const SSL_REQUEST = 80877103;
const CANCEL_REQUEST = 80877102;
const PROTOCOL_3 = 196608;
const MAX_MESSAGE = 256 * 1024 * 1024;
/** Message types that end a turn: Sync, simple Query, Flush. */
const TURN_END = new Set(['S', 'Q', 'H']);

interface Turn {
  conn: Connection;
  /** Messages to run in order; null means "roll back the connection's open transaction". */
  messages: Buffer[] | null;
  resolve(): void;
  reject(err: unknown): void;
}

/** One PGlite shared by many connections: turns run one at a time, a transaction keeps its owner. */
class Backend {
  private owner: Connection | null = null;
  private busy = false;
  private waiting: Turn[] = [];

  constructor(private readonly db: PGlite) {}

  run(conn: Connection, messages: Buffer[] | null): Promise<void> {
    return new Promise((resolve, reject) => {
      this.waiting.push({ conn, messages, resolve, reject });
      this.pump();
    });
  }

  /** A connection went away: drop its queued turns and roll back its transaction. */
  release(conn: Connection): void {
    for (const t of this.waiting.filter((w) => w.conn === conn)) t.reject(new Error('connection closed'));
    this.waiting = this.waiting.filter((w) => w.conn !== conn);
    if (this.owner === conn) void this.run(conn, null).catch(() => undefined);
  }

  private pump(): void {
    if (this.busy) return;
    const i = this.waiting.findIndex((w) => this.owner === null || w.conn === this.owner);
    if (i < 0) return;
    const turn = this.waiting.splice(i, 1)[0]!;
    this.busy = true;
    this.db
      .runExclusive(async () => {
        if (turn.messages === null) {
          // As a wire message: db.exec() would wait for the lock this turn holds, for ever.
          if (this.db.isInTransaction()) await this.db.execProtocolRawStream(ROLLBACK, { onRawData: () => undefined });
          return;
        }
        for (const m of turn.messages) {
          // PGlite hands out views of its own memory, reused by the next chunk, and a busy socket
          // queues what it is given by reference: copy, or a large result goes out corrupted.
          await this.db.execProtocolRawStream(new Uint8Array(m.buffer, m.byteOffset, m.byteLength), { onRawData: (d) => turn.conn.write(Buffer.from(d)) });
        }
      })
      .then(
        () => {
          // A turn ended by Flush (a portal read in steps) keeps the backend until its Sync too.
          const flushed = turn.messages !== null && turn.messages[turn.messages.length - 1]?.[0] === 0x48;
          this.owner = turn.messages !== null && (this.db.isInTransaction() || flushed) ? turn.conn : null;
          // Its connection closed while the turn ran (should the database yield mid-turn): release() saw
          // no transaction yet, so roll it back now, or the dead connection would hold the backend for ever.
          if (this.owner?.closed) void this.run(this.owner, null).catch(() => undefined);
          turn.resolve();
        },
        (err: unknown) => {
          this.owner = null;
          turn.reject(err);
        },
      )
      .finally(() => {
        this.busy = false;
        this.pump();
      });
  }
}

const md5 = (s: string | Buffer) => createHash('md5').update(s).digest('hex');

function message(type: string, body: Buffer): Buffer {
  const head = Buffer.alloc(5);
  head.write(type, 0, 'latin1');
  head.writeInt32BE(body.length + 4, 1);
  return Buffer.concat([head, body]);
}

/** A simple Query that rolls back the transaction a closed connection left open. */
const ROLLBACK = new Uint8Array(message('Q', Buffer.from('ROLLBACK\0', 'latin1')));

function errorResponse(code: string, text: string): Buffer {
  const fields = [`SFATAL`, `VFATAL`, `C${code}`, `M${text}`].map((f) => Buffer.from(`${f}\0`, 'utf8'));
  return message('E', Buffer.concat([...fields, Buffer.from([0])]));
}

/** Startup parameters: user, database, ... (NUL-separated pairs after the protocol version). */
function startupParams(startup: Buffer): Map<string, string> {
  const parts = startup.subarray(8).toString('utf8').split('\0');
  const params = new Map<string, string>();
  for (let i = 0; i + 1 < parts.length && parts[i]; i += 2) params.set(parts[i]!, parts[i + 1]!);
  return params;
}

class Connection {
  private buffer: Buffer = Buffer.alloc(0);
  private state: 'startup' | 'password' | 'ready' | 'closed' = 'startup';
  private startup: Buffer | null = null;
  private user = '';
  private readonly salt = randomBytes(4);
  private pending: Buffer[] = [];
  /** Turns of this connection run in order. */
  private chain: Promise<void> = Promise.resolve();

  constructor(
    private readonly socket: Socket,
    private readonly backend: Backend,
    private readonly password: string,
  ) {
    socket.setNoDelay(true);
    socket.on('data', (d: Buffer) => this.onData(d));
    socket.on('error', () => this.close());
    socket.on('close', () => this.close());
  }

  get closed(): boolean {
    return this.state === 'closed';
  }

  write(data: Uint8Array): void {
    if (this.state !== 'closed' && this.socket.writable) this.socket.write(data);
  }

  close(): void {
    if (this.state === 'closed') return;
    this.state = 'closed';
    this.backend.release(this);
    this.socket.destroy();
  }

  private fail(code: string, text: string): void {
    this.write(errorResponse(code, text));
    this.socket.end();
    this.state = 'closed';
    this.backend.release(this);
  }

  private onData(data: Buffer): void {
    if (this.state === 'closed') return;
    this.buffer = this.buffer.length ? Buffer.concat([this.buffer, data]) : data;
    try {
      for (;;) {
        const untyped = this.state === 'startup';
        const header = untyped ? 4 : 5;
        if (this.buffer.length < header) return;
        const length = untyped ? this.buffer.readInt32BE(0) : 1 + this.buffer.readInt32BE(1);
        if (length < header - 1 || length > MAX_MESSAGE) return this.fail('08P01', 'invalid message length');
        if (this.buffer.length < length) return;
        const msg = this.buffer.subarray(0, length);
        this.buffer = this.buffer.subarray(length);
        if (untyped) this.onStartup(Buffer.from(msg));
        else if (this.state === 'password') this.onPassword(msg);
        else this.onMessage(Buffer.from(msg));
        if ((this.state as string) === 'closed') return;
      }
    } catch {
      this.fail('08P01', 'protocol violation');
    }
  }

  private onStartup(msg: Buffer): void {
    const code = msg.length >= 8 ? msg.readInt32BE(4) : 0;
    if (code === SSL_REQUEST) return void this.write(Buffer.from('N'));
    if (code === CANCEL_REQUEST) return this.close(); // not supported
    if (code !== PROTOCOL_3) return this.fail('08P01', 'unsupported protocol version');
    this.startup = msg;
    this.user = startupParams(msg).get('user') ?? '';
    this.state = 'password';
    const body = Buffer.alloc(8);
    body.writeInt32BE(5, 0); // AuthenticationMD5Password
    this.salt.copy(body, 4);
    this.write(message('R', body));
  }

  private onPassword(msg: Buffer): void {
    if (String.fromCharCode(msg[0]!) !== 'p') return this.fail('08P01', 'expected a password message');
    const sent = Buffer.from(msg.subarray(5).toString('utf8').replace(/\0$/, ''));
    const expected = Buffer.from('md5' + md5(Buffer.concat([Buffer.from(md5(this.password + this.user)), this.salt])));
    if (sent.length !== expected.length || !timingSafeEqual(sent, expected)) {
      return this.fail('28P01', `password authentication failed for user "${this.user}"`);
    }
    this.state = 'ready';
    // PGlite answers the startup message itself: AuthenticationOk, parameters, ReadyForQuery.
    this.enqueue([this.startup!]);
  }

  private onMessage(msg: Buffer): void {
    const type = String.fromCharCode(msg[0]!);
    if (type === 'X') return this.close(); // Terminate
    this.pending.push(msg);
    if (TURN_END.has(type)) {
      const turn = this.pending;
      this.pending = [];
      this.enqueue(turn);
    }
  }

  private enqueue(messages: Buffer[]): void {
    this.chain = this.chain
      .then(() => (this.state === 'closed' ? undefined : this.backend.run(this, messages)))
      .catch(() => this.close());
  }
}

export interface WireServer {
  /** host:port */
  address: string;
  stop(): Promise<void>;
}

/** Serves `db` on 127.0.0.1:`port` (0: any free port); every client must give `password`. */
export async function serveWire(db: PGlite, options: { port: number; password: string; maxConnections?: number }): Promise<WireServer> {
  const backend = new Backend(db);
  const connections = new Set<Connection>();
  const server: Server = createServer((socket) => {
    const conn = new Connection(socket, backend, options.password);
    connections.add(conn);
    socket.on('close', () => connections.delete(conn));
  });
  server.maxConnections = options.maxConnections ?? 64;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, '127.0.0.1', () => resolve());
  });
  const port = (server.address() as { port: number }).port;
  return {
    address: `127.0.0.1:${port}`,
    async stop() {
      for (const c of connections) c.close();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
