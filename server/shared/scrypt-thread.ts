import crypto from 'node:crypto';
import { promisify } from 'node:util';
import { Worker } from 'node:worker_threads';

/**
 * scrypt on one thread of its own (issue 29, memory; bench/README.md "Session 16, mem"). A hash at
 * the production cost needs one 16 MiB block. On libuv's thread pool (`crypto.scrypt`) each of its
 * four threads allocates that block in its own glibc arena, and after the first one glibc serves
 * such a block from the arena and keeps it when freed (its mmap threshold rises to the block's size
 * at the first free): a server that had a few logins held 48–64 MiB more for good. On one thread of
 * its own it holds one block (and the thread's ≈ 10 MiB), and the pool stays free for the file
 * system and DNS while a login hashes. Hashes are computed one after another, in the order asked.
 *
 * The thread starts at the first hash and runs plain JavaScript (no loader), unreferenced while no
 * hash is waiting (it never keeps a process alive by itself, and a CLI command's hash is awaited).
 * If it cannot start, or stops, hashes fall back to the pool (`crypto.scrypt`), as before.
 */
const THREAD_CODE = `
const { parentPort } = require('node:worker_threads');
const crypto = require('node:crypto');
parentPort.on('message', (m) => {
  try {
    parentPort.postMessage({ id: m.id, key: crypto.scryptSync(m.password, m.salt, m.keylen, m.options) });
  } catch (err) {
    parentPort.postMessage({ id: m.id, error: { message: String(err && err.message), code: err && err.code } });
  }
});
`;

/** A hash waiting for the thread: its answer, or `retry` on the pool if the thread stopped first. */
type Waiting = { resolve(key: Buffer): void; reject(err: Error): void; retry(): void };
type Answer = { id: number; key?: Uint8Array; error?: { message: string; code?: string } };

const onPool = promisify(crypto.scrypt) as (password: string, salt: Buffer, keylen: number, options: crypto.ScryptOptions) => Promise<Buffer>;

let thread: Worker | null = null;
/** The thread could not be started: the pool from then on. */
let unavailable = false;
let nextId = 1;
const waiting = new Map<number, Waiting>();

function startThread(): Worker | null {
  if (thread || unavailable) return thread;
  let w: Worker;
  try {
    w = new Worker(THREAD_CODE, { eval: true, name: 'scrypt' });
  } catch {
    unavailable = true;
    return null;
  }
  w.unref();
  w.on('message', (m: Answer) => {
    const entry = waiting.get(m.id);
    if (!entry) return;
    waiting.delete(m.id);
    if (waiting.size === 0) w.unref();
    if (m.key) entry.resolve(Buffer.from(m.key.buffer, m.key.byteOffset, m.key.byteLength));
    else entry.reject(Object.assign(new Error(m.error?.message ?? 'scrypt failed'), m.error?.code ? { code: m.error.code } : {}));
  });
  const stopped = () => {
    if (thread !== w) return;
    thread = null;
    // Whatever was waiting on it is hashed on the pool instead (a new thread starts at the next hash).
    const pending = [...waiting.values()];
    waiting.clear();
    for (const p of pending) p.retry();
  };
  w.on('error', stopped);
  w.on('exit', stopped);
  thread = w;
  return w;
}

/** `crypto.scrypt` on the scrypt thread (the pool if the thread is not available). */
export function scrypt(password: string, salt: Buffer, keylen: number, options: crypto.ScryptOptions): Promise<Buffer> {
  const w = startThread();
  if (!w) return onPool(password, salt, keylen, options);
  const id = nextId++;
  return new Promise<Buffer>((resolve, reject) => {
    if (waiting.size === 0) w.ref();
    waiting.set(id, { resolve, reject, retry: () => void onPool(password, salt, keylen, options).then(resolve, reject) });
    w.postMessage({ id, password, salt, keylen, options });
  });
}
