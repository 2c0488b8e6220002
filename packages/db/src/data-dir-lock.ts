import { readFileSync, renameSync, unlinkSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';

/** Who holds an embedded database directory, as recorded in the lock file beside it. */
export interface DataDirHolder {
  pid: number;
  /** The holder's command line. */
  command: string;
  /** ISO time the holder took the lock. */
  started: string;
  /** Kernel start time of the pid (/proc/<pid>/stat field 22): tells a live holder from a reused pid. */
  procStart: string | null;
  /** Loopback port of the holder's wire-protocol server, once it listens. */
  port?: number;
  host?: string;
}

export class DataDirLockedError extends Error {
  constructor(
    readonly dataDir: string,
    readonly holder: DataDirHolder,
  ) {
    super(
      `the embedded database ${dataDir} is in use by process ${holder.pid} (${holder.command}), started ${holder.started}. ` +
        'Stop that process first, or use another DATA_DIR; operator commands (filigrane account ...) connect to it while it runs.',
    );
    this.name = 'DataDirLockedError';
  }
}

/** The lock file beside a data directory: `<dir>.lock` (DATA_DIR/pg.lock for DATA_DIR/pg). */
export function lockPath(dataDir: string): string {
  return join(dirname(dataDir), `${basename(dataDir)}.lock`);
}

function procStart(pid: number): string | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name, which may itself hold spaces and parentheses.
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19] ?? null;
  } catch {
    return null;
  }
}

function alive(holder: DataDirHolder): boolean {
  try {
    process.kill(holder.pid, 0);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  // Same pid, another process (the holder died and the pid was reused): the lock is stale.
  const now = procStart(holder.pid);
  return holder.procStart === null || now === null || now === holder.procStart;
}

function read(file: string): DataDirHolder | null {
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as DataDirHolder;
  } catch {
    return null;
  }
}

/** The live process holding `dataDir`, or null (no lock, or a stale one left by a killed process). */
export function dataDirHolder(dataDir: string): DataDirHolder | null {
  const holder = read(lockPath(dataDir));
  return holder && alive(holder) ? holder : null;
}

export interface DataDirLock {
  /** Records the wire-protocol address, for the operator commands that connect to it. */
  listening(host: string, port: number): void;
  release(): void;
}

/**
 * Takes the directory for this process, or throws DataDirLockedError naming the live holder.
 * The lock file is created exclusively (O_EXCL); a stale one (dead pid) is replaced.
 */
export function lockDataDir(dataDir: string): DataDirLock {
  const file = lockPath(dataDir);
  const me: DataDirHolder = {
    pid: process.pid,
    command: process.argv.map((a) => (a.includes(' ') ? JSON.stringify(a) : a)).join(' '),
    started: new Date().toISOString(),
    procStart: procStart(process.pid),
  };
  for (let attempt = 0; ; attempt++) {
    try {
      writeFileSync(file, JSON.stringify(me), { flag: 'wx', mode: 0o600 });
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST' || attempt >= 3) throw err;
      const holder = read(file);
      if (holder && alive(holder)) throw new DataDirLockedError(dataDir, holder);
      // Stale: moved aside atomically, so that of two processes replacing it only one succeeds.
      const aside = `${file}.stale-${process.pid}`;
      try {
        renameSync(file, aside);
        // Between our read and our rename another process may have replaced it: put that one back.
        if (read(aside)?.pid !== holder?.pid) renameSync(aside, file);
        else unlinkSync(aside);
      } catch {
        // Another process replaced it first; try again.
      }
    }
  }
  const ours = () => read(file)?.pid === process.pid;
  const onExit = () => {
    if (ours()) unlinkSync(file);
  };
  process.once('exit', onExit);
  return {
    listening(host, port) {
      if (!ours()) return;
      // Rewritten through a temporary name: readers never see half a file.
      writeFileSync(`${file}.${process.pid}`, JSON.stringify({ ...me, host, port }), { mode: 0o600 });
      renameSync(`${file}.${process.pid}`, file);
    },
    release() {
      process.removeListener('exit', onExit);
      try {
        onExit();
      } catch {
        // Already gone.
      }
    },
  };
}
