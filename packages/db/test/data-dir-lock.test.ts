import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import test from 'ava';
import { dataDirHolder, DataDirLockedError, lockDataDir, lockPath } from '../src/index.js';

const dir = () => join(mkdtempSync(join(tmpdir(), 'filigrane-lock-')), 'pg');

test('one holder at a time; the error names it; release frees the directory', (t) => {
  const d = dir();
  const lock = lockDataDir(d);
  lock.listening('127.0.0.1', 5555);
  t.like(dataDirHolder(d), { pid: process.pid, port: 5555, host: '127.0.0.1' });
  const err = t.throws(() => lockDataDir(d), { instanceOf: DataDirLockedError });
  t.is(err!.holder.pid, process.pid);
  t.regex(err!.message, new RegExp(`in use by process ${process.pid} \\(.+\\), started \\d{4}-`));
  lock.release();
  t.false(existsSync(lockPath(d)));
  t.is(dataDirHolder(d), null);
  lockDataDir(d).release();
});

test('a lock left by a killed process (dead pid, or a pid reused by another process) is replaced', (t) => {
  const d = dir();
  const dead = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))']).stdout.toString();
  writeFileSync(lockPath(d), JSON.stringify({ pid: Number(dead), command: 'node killed', started: '2026-01-01T00:00:00Z', procStart: '1', port: 1 }));
  t.is(dataDirHolder(d), null);
  const lock = lockDataDir(d);
  t.is(JSON.parse(readFileSync(lockPath(d), 'utf8')).pid, process.pid);
  lock.release();
  // Our own pid with another kernel start time: the holder that wrote it is gone.
  writeFileSync(lockPath(d), JSON.stringify({ pid: process.pid, command: 'node earlier', started: '2026-01-01T00:00:00Z', procStart: '1' }));
  t.is(dataDirHolder(d), null);
  lockDataDir(d).release();
});

test('a lock file without a record yet (being written) is not taken over; an old unreadable one is', (t) => {
  const d = dir();
  writeFileSync(lockPath(d), '');
  t.throws(() => lockDataDir(d), { instanceOf: DataDirLockedError });
  utimesSync(lockPath(d), new Date(Date.now() - 60_000), new Date(Date.now() - 60_000));
  lockDataDir(d).release();
});
