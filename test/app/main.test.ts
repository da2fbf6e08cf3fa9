import { EventEmitter } from 'node:events';
import http from 'node:http';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it, onTestFinished, vi } from 'vitest';
import { runShell, V8_MEMORY_FLAGS, type ElectronLike, type MenuItemSpec, type QuitEvent } from '../../app/shell.js';
import { start as realStart } from '../../server/main.js';
import type { Config } from '../../server/config.js';
import { lane } from '../helpers/db.js';
import { decodeQrPng } from '../helpers/qr.js';

/**
 * The Electron main process with a fake `electron` (the real binary is never needed): single
 * instance, the real server started in-process on the user's data folder, the window on the
 * server's own URL, the tray, and a quit that closes the server before the app ends.
 */
class FakeApp extends EventEmitter {
  quitCalls = 0;
  exitCode: number | undefined;
  constructor(
    private readonly lock: boolean,
    readonly userData: string,
  ) {
    super();
  }
  requestSingleInstanceLock() {
    return this.lock;
  }
  whenReady() {
    return Promise.resolve();
  }
  getPath(name: string) {
    if (name !== 'userData') throw new Error(`unexpected getPath(${name})`);
    return this.userData;
  }
  /** Like Electron: quit emits before-quit, which a listener may prevent. */
  quit() {
    this.quitCalls += 1;
    let prevented = false;
    const event: QuitEvent = { preventDefault: () => (prevented = true) };
    this.emit('before-quit', event);
    if (!prevented) this.emit('did-quit');
  }
  exit(code = 0) {
    this.exitCode = code;
  }
  switches: Array<[string, string | undefined]> = [];
  commandLine = { appendSwitch: (name: string, value?: string) => void this.switches.push([name, value]) };
}

class FakeWindow extends EventEmitter {
  static all: FakeWindow[] = [];
  url?: string;
  shown = 0;
  focused = 0;
  restored = 0;
  minimized = false;
  destroyed = false;
  constructor(readonly options: Record<string, unknown>) {
    super();
    FakeWindow.all.push(this);
  }
  loadURL(url: string) {
    this.url = url;
    return Promise.resolve();
  }
  show() {
    this.shown += 1;
  }
  focus() {
    this.focused += 1;
  }
  restore() {
    this.restored += 1;
    this.minimized = false;
  }
  isMinimized() {
    return this.minimized;
  }
  isDestroyed() {
    return this.destroyed;
  }
  close() {
    this.destroyed = true;
    this.emit('closed');
  }
}

class FakeTray {
  static all: FakeTray[] = [];
  tooltip = '';
  menu: MenuItemSpec[] = [];
  destroyed = false;
  constructor(readonly icon: unknown) {
    FakeTray.all.push(this);
  }
  setToolTip(t: string) {
    this.tooltip = t;
  }
  setContextMenu(menu: unknown) {
    this.menu = menu as MenuItemSpec[];
  }
  destroy() {
    this.destroyed = true;
  }
}

function fakeElectron(opts: { lock?: boolean } = {}) {
  const userData = fs.mkdtempSync(path.join(os.tmpdir(), 'restaurant-electron-'));
  onTestFinished(() => fs.rmSync(userData, { recursive: true, force: true }));
  FakeWindow.all = [];
  FakeTray.all = [];
  const app = new FakeApp(opts.lock ?? true, userData);
  const dialog = { showErrorBox: vi.fn() };
  const openPath = vi.fn(async (_p: string) => '');
  const electron: ElectronLike = {
    shell: { openPath },
    app,
    BrowserWindow: FakeWindow,
    Tray: FakeTray,
    Menu: { buildFromTemplate: (t: MenuItemSpec[]) => t },
    nativeImage: { createFromPath: (p: string) => ({ path: p }) },
    dialog,
  };
  return { electron, app, dialog, userData, openPath };
}

const env = { PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'silent' };

describe.runIf(lane === 'sqlite')('desktop shell (app/shell.ts with a fake electron)', () => {
  it('starts the server on the user data folder, opens the window on it, shows status in the tray, and closes the server on quit', async () => {
    const { electron, app, userData } = fakeElectron();
    const configs: Config[] = [];
    const start = vi.fn(async (config: Config, o?: { handleSignals?: boolean }) => {
      configs.push(config);
      return realStart(config, o);
    });

    const shell = await runShell(electron, { start, env, statusIntervalMs: 0, iconPath: '/icons/tray.png' });
    onTestFinished(() => shell.server?.close());
    expect(shell.state).toBe('running');

    // V8's memory flags for the processes Electron starts (the window), the same as `npm start`'s.
    expect(app.switches).toEqual([['js-flags', V8_MEMORY_FLAGS.join(' ')]]);
    // The server runs in-process with its data in the user's folder, without process signal handlers.
    expect(start).toHaveBeenCalledTimes(1);
    expect(start.mock.calls[0]![1]).toEqual({ handleSignals: false });
    expect(configs[0]!.dataDir).toBe(path.join(userData, 'data'));
    expect(configs[0]!.role).toBe('local');
    expect(fs.existsSync(path.join(userData, 'data', 'restaurant.sqlite'))).toBe(true);

    // One window, on the server's own pages; the page it shows is really served (first-run setup).
    expect(FakeWindow.all).toHaveLength(1);
    const win = FakeWindow.all[0]!;
    const port = new URL(shell.server!.url).port;
    expect(win.url).toBe(`http://127.0.0.1:${port}/`);
    expect(win.options.webPreferences).toMatchObject({ contextIsolation: true, nodeIntegration: false });
    const page = await fetch(win.url!);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('Stel je restaurant in');

    // Tray: status and a way to quit.
    const tray = FakeTray.all[0]!;
    expect(tray.icon).toEqual({ path: '/icons/tray.png' });
    expect(tray.tooltip).toBe('Restaurant service: actief (zonder cloud)');
    expect(tray.menu.map((i) => i.label)).toEqual(expect.arrayContaining(['Status: actief (zonder cloud)', 'Dashboard openen', 'Nu back-up maken', 'Logboek openen', 'Afsluiten']));

    // Closing the window keeps serving the tablets; "Venster openen" brings a new one.
    win.close();
    app.emit('window-all-closed');
    expect((await fetch(`${win.url!}api/v1/health`)).status).toBe(200);
    tray.menu.find((i) => i.label === 'Dashboard openen')!.click!();
    expect(FakeWindow.all).toHaveLength(2);
    expect(FakeWindow.all[1]!.url).toBe(win.url);

    // Quit from the tray: held until the server is closed, then the app quits for real.
    const quitted = new Promise<void>((r) => app.once('did-quit', () => r()));
    tray.menu.find((i) => i.label === 'Afsluiten')!.click!();
    await shell.closed;
    await quitted;
    expect(app.quitCalls).toBe(2); // the held one, then the real one after shutdown
    expect(tray.destroyed).toBe(true);
    await expect(fetch(`${win.url!}api/v1/health`)).rejects.toThrow();
    expect(await shell.server!.handle.ping()).toBe(false); // the database is closed too
  });

  it('a second instance starts no server, quits, and the first one focuses its window', async () => {
    const second = fakeElectron({ lock: false });
    const start = vi.fn(realStart);
    const shell2 = await runShell(second.electron, { start, env, statusIntervalMs: 0 });
    expect(shell2.state).toBe('second');
    expect(start).not.toHaveBeenCalled();
    expect(second.app.quitCalls).toBe(1);
    expect(FakeWindow.all).toHaveLength(0);

    const first = fakeElectron();
    const shell = await runShell(first.electron, { start, env, statusIntervalMs: 0 });
    onTestFinished(() => shell.server?.close());
    const win = FakeWindow.all[0]!;
    win.minimized = true;
    first.app.emit('second-instance');
    expect(win.restored).toBe(1);
    expect(win.focused).toBe(1);
    expect(FakeWindow.all).toHaveLength(1);
  });

  it('a server that cannot start shows a Dutch error and exits 1', async () => {
    const { electron, app, dialog } = fakeElectron();
    const start = vi.fn(async () => {
      throw Object.assign(new Error('poort 8080 is al in gebruik'), { code: 'EADDRINUSE' });
    });
    const shell = await runShell(electron, { start, env, statusIntervalMs: 0 });
    expect(shell.state).toBe('failed');
    expect(dialog.showErrorBox).toHaveBeenCalledWith('De restaurantserver kon niet starten', 'poort 8080 is al in gebruik');
    expect(app.exitCode).toBe(1);
    expect(FakeWindow.all).toHaveLength(0);
  });

  it('the tray: the tablets\' LAN address with a QR code that decodes to it, back up now, open logs, and the sync status', async () => {
    const { electron, userData, openPath } = fakeElectron();
    const interfaces = () => ({ lo: [{ address: '127.0.0.1', family: 'IPv4', internal: true }], eth0: [{ address: '192.168.1.20', family: 'IPv4', internal: false }] }) as never;
    // An appliance whose cloud cannot be reached: it serves on, and the tray says offline.
    const shell = await runShell(electron, { start: realStart, env: { ...env, LOG_LEVEL: 'info', CLOUD_URL: 'http://127.0.0.1:9', SYNC_KEY: 'sk_test_0123456789abcdef' }, statusIntervalMs: 0, interfaces });
    onTestFinished(() => shell.server?.close());
    const port = new URL(shell.server!.url).port;
    expect(shell.tabletUrl).toBe(`http://192.168.1.20:${port}/app/`);
    await vi.waitFor(async () => expect(await shell.refreshStatus()).toBe('actief, offline'), { timeout: 10_000 });
    const tray = FakeTray.all[0]!;
    expect(tray.tooltip).toBe('Restaurant service: actief, offline');

    // "Adres voor tablets" opens a window with the address and a QR code that decodes to it.
    tray.menu.find((i) => i.label === `Adres voor tablets: ${shell.tabletUrl}`)!.click!();
    await vi.waitFor(() => expect(FakeWindow.all.some((w) => w.url?.startsWith('data:text/html'))).toBe(true));
    const html = decodeURIComponent(FakeWindow.all.find((w) => w.url?.startsWith('data:text/html'))!.url!.split(',').slice(1).join(','));
    expect(html).toContain(shell.tabletUrl);
    expect(decodeQrPng(Buffer.from(/src="data:image\/png;base64,([^"]+)"/.exec(html)![1]!, 'base64'))).toBe(shell.tabletUrl);

    // "Nu back-up maken": a verified copy in DATA_DIR/backups, and the tray says so.
    const note = await shell.backupNow();
    expect(note).toMatch(/^Back-up gemaakt: restaurant-\d{8}T\d{9}Z\.sqlite$/);
    expect(fs.readdirSync(path.join(userData, 'data', 'backups')).filter((n) => n.endsWith('.sqlite'))).toHaveLength(1);
    expect(tray.menu.map((i) => i.label)).toContain(note);

    // "Logboek openen": the log folder, where the server writes its log.
    tray.menu.find((i) => i.label === 'Logboek openen')!.click!();
    expect(openPath).toHaveBeenCalledWith(path.join(userData, 'logs'));
    await vi.waitFor(() => expect(fs.readFileSync(path.join(userData, 'logs', 'server.log'), 'utf8')).toContain('restaurant service ready'));
  });

  it('quit drains a request in flight: its answer arrives before the server and database close', async () => {
    const { electron, app } = fakeElectron();
    const shell = await runShell(electron, { start: realStart, env, statusIntervalMs: 0 });
    onTestFinished(() => shell.server?.close());
    const server = shell.server!;
    // A login whose body is still arriving when quit is asked for.
    const body = JSON.stringify({ slug: 'nergens', pin: '9999' });
    const answer = new Promise<{ status: number; text: string }>((resolve, reject) => {
      const req = http.request(`${shell.url}api/v1/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } }, (res) => {
        let text = '';
        res.on('data', (c: Buffer) => (text += c.toString()));
        res.on('end', () => resolve({ status: res.statusCode!, text }));
      });
      req.on('error', reject);
      req.write(body.slice(0, 10));
      setTimeout(() => {
        app.quit(); // the quit is held while the server drains
        setTimeout(() => req.end(body.slice(10)), 200);
      }, 200);
    });
    const res = await answer;
    expect(res.status).toBe(401); // answered as usual (no such restaurant), not cut off
    expect(JSON.parse(res.text)).toMatchObject({ code: 'UNAUTHORIZED' });
    await shell.closed;
    expect(await server.handle.ping()).toBe(false);
  });
});
