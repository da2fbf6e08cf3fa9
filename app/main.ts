/**
 * Electron main process: thin by design (ARCHITECTURE §8). All logic lives in ./shell.ts, which
 * takes Electron as a parameter so tests drive it with a fake; this file only wires the real one.
 *
 * No preload: the window shows the server's own pages over HTTP and needs no IPC. A later feature
 * that does (e.g. "open backup folder") adds app/preload.ts exposing one typed function per channel.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import v8 from 'node:v8';
import { start } from '../server/main.js';
import { runShell, V8_MEMORY_FLAGS, type ElectronLike } from './shell.js';

// The server runs in this (main) process, whose V8 flags Electron takes only from its launch command
// line (`--js-flags`). Of the memory flags, V8 honours the old generation's growth at run time
// (measured: bench/README.md "session 12"); the semi-space size is fixed when the heap is made, so
// this process keeps V8's default young generation.
for (const flag of V8_MEMORY_FLAGS) if (flag.startsWith('--heap-growing-percent')) v8.setFlagsFromString(flag);

// A computed specifier: `electron` is an optional dependency without types on machines where its
// binary cannot be downloaded, and nothing but this file ever loads it.
const specifier = 'electron';
const loaded = (await import(specifier)) as ElectronLike & { default?: ElectronLike };
const electron: ElectronLike = loaded.app ? loaded : loaded.default!;

// Built layout: dist/app/main.js; the icon ships as app/assets/tray.png (electron-builder `files`).
const here = path.dirname(fileURLToPath(import.meta.url));
const iconPath = path.resolve(here, '..', '..', 'app', 'assets', 'tray.png');

await runShell(electron, { start, iconPath });
