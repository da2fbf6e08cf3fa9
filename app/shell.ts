/**
 * The desktop shell's logic (ARCHITECTURE §8), with Electron injected so it can be tested with a
 * fake: single instance, the server in-process with its data in the user's application-data
 * folder, one window on the server's own pages, a tray with status, and a clean shutdown.
 *
 * Closing the window does not stop the server: the appliance keeps serving the tablets on the LAN
 * and stays in the tray. "Afsluiten" in the tray (or quitting the app) drains requests and closes
 * the database before the process ends.
 */
import path from 'node:path';
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
}

export interface ShellDeps {
  /** server/main.ts start(); injected so tests can observe it (they pass the real one). */
  start: (config: Config, opts?: StartOptions) => Promise<Started>;
  env?: NodeJS.ProcessEnv;
  /** Where the tray icon lives (app/assets/tray.png next to the built files). */
  iconPath?: string;
  /** How often the tray re-checks the database; 0 turns it off. */
  statusIntervalMs?: number;
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
  /** Resolves when the server and database are closed after a quit. */
  closed: Promise<void>;
}

export const WINDOW_TITLE = 'Restaurant service';

/** The configuration the desktop app runs with: the environment, with data in the user's folder. */
export function shellConfig(userData: string, env: NodeJS.ProcessEnv = process.env): Config {
  return loadConfig({ ...env, ROLE: 'local', DATA_DIR: env.DATA_DIR ?? path.join(userData, 'data') });
}

export async function runShell(electron: ElectronLike, deps: ShellDeps): Promise<Shell> {
  const { app } = electron;
  let resolveClosed!: () => void;
  const closed = new Promise<void>((r) => (resolveClosed = r));
  const shell: Shell = { state: 'running', refreshStatus: async () => '', closed };

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

  // ── Tray with status ─────────────────────────────────────────────────────────────────────────
  const tray = new electron.Tray(electron.nativeImage.createFromPath(deps.iconPath ?? ''));
  shell.tray = tray;
  const renderTray = (status: string) => {
    tray.setToolTip(`${WINDOW_TITLE}: ${status}`);
    tray.setContextMenu(
      electron.Menu.buildFromTemplate([
        { label: `Status: ${status}`, enabled: false },
        { label: `Adres voor tablets: poort ${port}`, enabled: false },
        { type: 'separator' },
        { label: 'Venster openen', click: showWindow },
        { label: 'Afsluiten', click: () => app.quit() },
      ]),
    );
  };
  shell.refreshStatus = async () => {
    const reachable = shell.server ? await shell.server.handle.ping() : false;
    const status = reachable ? 'actief' : 'database niet bereikbaar';
    renderTray(status);
    return status;
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
