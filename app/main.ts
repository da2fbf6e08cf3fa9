/**
 * Electron main process: thin by design (ARCHITECTURE §8). All logic lives in ./shell.ts, which
 * takes Electron as a parameter so tests drive it with a fake; this file only wires the real one.
 *
 * No preload: the window shows the server's own pages over HTTP and needs no IPC. A later feature
 * that does (e.g. "open backup folder") adds app/preload.ts exposing one typed function per channel.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { start } from '../server/main.js';
import { runShell, type ElectronLike } from './shell.js';

// A computed specifier: `electron` is an optional dependency without types on machines where its
// binary cannot be downloaded, and nothing but this file ever loads it.
const specifier = 'electron';
const loaded = (await import(specifier)) as ElectronLike & { default?: ElectronLike };
const electron: ElectronLike = loaded.app ? loaded : loaded.default!;

// Built layout: dist/app/main.js; the icon ships as app/assets/tray.png (electron-builder `files`).
const here = path.dirname(fileURLToPath(import.meta.url));
const iconPath = path.resolve(here, '..', '..', 'app', 'assets', 'tray.png');

await runShell(electron, { start, iconPath });
