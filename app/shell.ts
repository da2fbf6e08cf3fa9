/**
 * The desktop shell's logic (ARCHITECTURE §8), with Electron injected so it can be tested with a
 * fake: single instance, the server in-process with its data in the user's application-data
 * folder, one window on the server's own pages, a tray with status, and a clean shutdown.
 *
 * Closing the window does not stop the server: the appliance keeps serving the tablets on the LAN
 * and stays in the tray. "Afsluiten" in the tray (or quitting the app) drains requests and closes
 * the database before the process ends.
 */
import os from 'node:os';
import path from 'node:path';
import { backupDir, makeBackup } from '../server/backup.js';
import { loadConfig, type Config } from '../server/config.js';
import type { Started, StartOptions } from '../server/main.js';

// ── The parts of Electron the shell uses (structural, so a fake satisfies them) ────────────────
export interface QuitEvent {
  preventDefault(): void;
}

export interface AppLike {
  requestSingleInstanceLock(): boolean;
  whenReady(): Promise<unknown>;
  getPath(name: 'userData'): string;
  on(event: 'second-instance' | 'window-all-closed' | 'activate', listener: () => void): unknown;
  on(event: 'before-quit', listener: (event: QuitEvent) => void): unknown;
  quit(): void;
  exit(code?: number): void;
  /** Chromium's command line (Electron `app.commandLine`): switches for the processes Electron starts. */
  commandLine?: { appendSwitch(name: string, value?: string): void };
}

export interface WindowLike {
  loadURL(url: string): Promise<unknown>;
  show(): void;
  focus(): void;
  restore(): void;
  isMinimized(): boolean;
  isDestroyed(): boolean;
  on(event: 'closed', listener: () => void): unknown;
}

export interface TrayLike {
  setToolTip(text: string): void;
  setContextMenu(menu: unknown): void;
  destroy(): void;
}

export interface MenuItemSpec {
  label?: string;
  enabled?: boolean;
  type?: 'separator' | 'normal';
  click?: () => void;
}

export interface ElectronLike {
  app: AppLike;
  BrowserWindow: new (options: Record<string, unknown>) => WindowLike;
  Tray: new (icon: unknown) => TrayLike;
  Menu: { buildFromTemplate(template: MenuItemSpec[]): unknown };
  nativeImage: { createFromPath(p: string): unknown };
  dialog?: { showErrorBox(title: string, content: string): void };
  /** Opens a folder in the system's file manager ("Logboek openen"). */
  shell?: { openPath(p: string): Promise<string> };
}

export interface ShellDeps {
  /** server/main.ts start(); injected so tests can observe it (they pass the real one). */
  start: (config: Config, opts?: StartOptions) => Promise<Started>;
  env?: NodeJS.ProcessEnv;
  /** Where the tray icon lives (app/assets/tray.png next to the built files). */
  iconPath?: string;
  /** How often the tray re-checks the database; 0 turns it off. */
  statusIntervalMs?: number;
  /** The machine's network interfaces (os.networkInterfaces), injectable for tests. */
  interfaces?: () => NodeJS.Dict<os.NetworkInterfaceInfo[]>;
}

export interface Shell {
  /** 'second' when another instance already runs (this one quits). */
  state: 'second' | 'running' | 'failed';
  server?: Started;
  window?: WindowLike;
  tray?: TrayLike;
  /** The URL the window shows. */
  url?: string;
  refreshStatus(): Promise<string>;
  /** The address the tablets on the restaurant's network use (the staff app on this PC's LAN address). */
  tabletUrl?: string;
  /** "Nu back-up maken": resolves with the tray's message about it. */
  backupNow(): Promise<string>;
  /** Where the server writes its log (LOG_FILE). */
  logFile?: string;
  /** Resolves when the server and database are closed after a quit. */
  closed: Promise<void>;
}

export const WINDOW_TITLE = 'Restaurant service';

/**
 * V8's memory flags for the long-running processes (issue 29 point 4; bench/README.md "session 12"):
 * a young generation of 2 MiB semi-spaces instead of up to 16 MiB, and an old generation that grows
 * by 20 % instead of V8's own factor, so transient garbage (sync pages, compiled statements) is
 * collected before the heap grows over it. `npm start` runs node with them (package.json; a test
 * keeps the two the same).
 */
export const V8_MEMORY_FLAGS = ['--max-semi-space-size=2', '--heap-growing-percent=20'] as const;

/** The configuration the desktop app runs with: the environment, with data and logs in the user's folder. */
export function shellConfig(userData: string, env: NodeJS.ProcessEnv = process.env): Config {
  return loadConfig({ ...env, ROLE: 'local', DATA_DIR: env.DATA_DIR ?? path.join(userData, 'data'), LOG_FILE: env.LOG_FILE ?? path.join(userData, 'logs', 'server.log') });
}

/** The first IPv4 address on the restaurant's network (not loopback), for the tablets; loopback when there is none. */
export function lanAddress(interfaces: NodeJS.Dict<os.NetworkInterfaceInfo[]> = os.networkInterfaces()): string {
  for (const list of Object.values(interfaces)) {
    for (const i of list ?? []) if (i.family === 'IPv4' && !i.internal) return i.address;
  }
  return '127.0.0.1';
}

/** A one-line tray status: server, internet (sync), changes waiting. */
export function describeStatus(s: { reachable: boolean; sync?: { enabled: boolean; state: string; pending: number } }): string {
  if (!s.reachable) return 'database niet bereikbaar';
  if (!s.sync?.enabled) return 'actief (zonder cloud)';
  const net = s.sync.state === 'online' ? 'online' : s.sync.state === 'stopped' ? 'synchronisatie gestopt' : 'offline';
  return s.sync.pending > 0 ? `actief, ${net}, ${s.sync.pending} wijziging${s.sync.pending === 1 ? '' : 'en'} wachten op sync` : `actief, ${net}`;
}

/** A small page with the tablets' address and its QR code, shown by "Adres voor tablets". */
export async function addressPage(url: string): Promise<string> {
  // qrcode is loaded when the page is asked for, not when the shell starts the server (issue 29 point 5).
  const { default: QRCode } = await import('qrcode');
  const qr = await QRCode.toDataURL(url, { margin: 1, width: 320 });
  const html = `<!doctype html><html lang="nl"><head><meta charset="utf-8"><title>Adres voor tablets</title><style>body{font-family:system-ui,sans-serif;text-align:center;padding:24px}code{font-size:1.4em}</style></head><body><h1>Adres voor tablets</h1><p>Open op een tablet in het netwerk van het restaurant:</p><p><code>${url}</code></p><img alt="QR-code met het adres" src="${qr}"></body></html>`;
  return `data:text/html;charset=utf-8,${encodeURIComponent(html)}`;
}

export async function runShell(electron: ElectronLike, deps: ShellDeps): Promise<Shell> {
  const { app } = electron;
  // The window (a renderer process) gets the memory flags; Electron reads `js-flags` for its main
  // process, where the server runs, only from the command line it was launched with (app/main.ts).
  app.commandLine?.appendSwitch('js-flags', V8_MEMORY_FLAGS.join(' '));
  let resolveClosed!: () => void;
  const closed = new Promise<void>((r) => (resolveClosed = r));
  const shell: Shell = { state: 'running', refreshStatus: async () => '', backupNow: async () => '', closed };

  // ── Single instance: a second start focuses the first window and leaves ─────────────────────
  if (!app.requestSingleInstanceLock()) {
    shell.state = 'second';
    app.quit();
    resolveClosed();
    return shell;
  }

  const showWindow = () => {
    const win = shell.window && !shell.window.isDestroyed() ? shell.window : openWindow();
    if (!win) return;
    if (win.isMinimized()) win.restore();
    win.show();
    win.focus();
  };
  const openWindow = (): WindowLike | undefined => {
    if (!shell.url) return undefined;
    const win = new electron.BrowserWindow({
      width: 1280,
      height: 860,
      title: WINDOW_TITLE,
      show: true,
      webPreferences: { contextIsolation: true, nodeIntegration: false, sandbox: true },
    });
    win.on('closed', () => {
      if (shell.window === win) shell.window = undefined;
    });
    void win.loadURL(shell.url);
    shell.window = win;
    return win;
  };

  app.on('second-instance', showWindow);
  app.on('activate', showWindow);
  // Closing the window keeps the server (and the tray) running: the tablets still need it.
  app.on('window-all-closed', () => {});

  // ── Clean shutdown: the first quit is held until the server drained and the database closed ──
  let timer: NodeJS.Timeout | undefined;
  let shuttingDown: Promise<void> | undefined;
  let done = false;
  app.on('before-quit', (event) => {
    if (done) return;
    event.preventDefault();
    shuttingDown ??= (async () => {
      if (timer) clearInterval(timer);
      try {
        await shell.server?.close();
      } finally {
        shell.tray?.destroy();
        done = true;
        resolveClosed();
        app.quit();
      }
    })();
  });

  await app.whenReady();

  let config: Config;
  try {
    config = shellConfig(app.getPath('userData'), deps.env ?? process.env);
    shell.server = await deps.start(config, { handleSignals: false });
  } catch (err) {
    shell.state = 'failed';
    const reason = err instanceof Error ? err.message : String(err);
    electron.dialog?.showErrorBox('De restaurantserver kon niet starten', reason);
    done = true;
    resolveClosed();
    app.exit(1);
    return shell;
  }

  if (shuttingDown) {
    // Quit was asked for while the server was starting: close what just opened.
    await shell.server.close();
    return shell;
  }

  const port = Number(new URL(shell.server.url).port);
  shell.url = `http://127.0.0.1:${port}/`;
  shell.tabletUrl = `http://${lanAddress(deps.interfaces?.())}:${port}/app/`;
  shell.logFile = config.logFile;

  // ── Tray with status ─────────────────────────────────────────────────────────────────────────
  const tray = new electron.Tray(electron.nativeImage.createFromPath(deps.iconPath ?? ''));
  shell.tray = tray;
  let lastStatus = '';
  let backupNote = '';
  const showAddress = async () => {
    const win = new electron.BrowserWindow({ width: 420, height: 560, title: 'Adres voor tablets', webPreferences: { contextIsolation: true, nodeIntegration: false, sandbox: true } });
    await win.loadURL(await addressPage(shell.tabletUrl!));
  };
  const renderTray = (status: string) => {
    lastStatus = status;
    tray.setToolTip(`${WINDOW_TITLE}: ${status}`);
    tray.setContextMenu(
      electron.Menu.buildFromTemplate([
        { label: `Status: ${status}`, enabled: false },
        ...(backupNote ? [{ label: backupNote, enabled: false }] : []),
        { type: 'separator' },
        { label: 'Dashboard openen', click: showWindow },
        { label: `Adres voor tablets: ${shell.tabletUrl}`, click: () => void showAddress() },
        { label: 'Nu back-up maken', click: () => void shell.backupNow() },
        { label: 'Logboek openen', click: () => void electron.shell?.openPath(path.dirname(config.logFile ?? config.dataDir)) },
        { type: 'separator' },
        { label: 'Afsluiten', click: () => app.quit() },
      ]),
    );
  };
  shell.refreshStatus = async () => {
    const server = shell.server;
    const reachable = server ? await server.handle.ping() : false;
    const sync = reachable && server ? await server.services.sync.board.own().catch(() => undefined) : undefined;
    const status = describeStatus({ reachable, sync });
    renderTray(status);
    return status;
  };
  shell.backupNow = async () => {
    try {
      const info = await makeBackup(shell.server!.handle, backupDir(config), new Date());
      backupNote = `Back-up gemaakt: ${path.basename(info.file)}`;
    } catch (err) {
      backupNote = `Back-up mislukt: ${err instanceof Error ? err.message : String(err)}`;
    }
    renderTray(lastStatus);
    return backupNote;
  };
  await shell.refreshStatus();
  const every = deps.statusIntervalMs ?? 30_000;
  if (every > 0) {
    timer = setInterval(() => void shell.refreshStatus(), every);
    timer.unref();
  }

  openWindow();
  return shell;
}
