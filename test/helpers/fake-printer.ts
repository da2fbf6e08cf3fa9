import net from 'node:net';

/**
 * A fake network printer (raw TCP, like port 9100) on 127.0.0.1 for tests (issue 24): it records
 * the bytes of every connection and can be told to refuse connections (it stops listening), hang
 * (it accepts and never reads) or drop the connection mid-ticket (it reads a little and resets).
 * `tickets` are the streams read to their end (what a real printer would have printed whole).
 */
export type PrinterMode = 'ok' | 'refuse' | 'hang' | 'drop';

export interface FakePrinter {
  port: number;
  tickets: Buffer[];
  /** Bytes of connections dropped mid-ticket (never a whole ticket). */
  partial: Buffer[];
  connections: number;
  mode: PrinterMode;
  setMode(mode: PrinterMode): Promise<void>;
  /** Resolves when `n` whole tickets have arrived. */
  waitForTickets(n: number, timeoutMs?: number): Promise<Buffer[]>;
  close(): Promise<void>;
}

export async function startFakePrinter(opts: { port?: number; mode?: PrinterMode } = {}): Promise<FakePrinter> {
  const sockets = new Set<net.Socket>();
  let server: net.Server | null = null;
  const state: FakePrinter = {
    port: opts.port ?? 0,
    tickets: [],
    partial: [],
    connections: 0,
    mode: 'ok',
    setMode,
    waitForTickets,
    close,
  };

  function onConnection(socket: net.Socket): void {
    state.connections += 1;
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => {});
    if (state.mode === 'hang') {
      socket.pause();
      return;
    }
    const chunks: Buffer[] = [];
    if (state.mode === 'drop') {
      socket.once('data', (d: Buffer) => {
        state.partial.push(d.subarray(0, Math.max(1, Math.floor(d.length / 2))));
        socket.resetAndDestroy();
      });
      return;
    }
    socket.on('data', (d: Buffer) => chunks.push(d));
    socket.on('end', () => {
      state.tickets.push(Buffer.concat(chunks));
      socket.end();
    });
  }

  async function listen(): Promise<void> {
    server = net.createServer({ allowHalfOpen: true }, onConnection);
    await new Promise<void>((resolve, reject) => {
      server!.once('error', reject);
      server!.listen(state.port, '127.0.0.1', () => resolve());
    });
    state.port = (server!.address() as net.AddressInfo).port;
  }

  async function stopListening(): Promise<void> {
    const s = server;
    server = null;
    for (const sock of sockets) sock.destroy();
    if (s) await new Promise<void>((resolve) => s.close(() => resolve()));
  }

  async function setMode(mode: PrinterMode): Promise<void> {
    const was = state.mode;
    state.mode = mode;
    if (mode === 'refuse' && server) await stopListening();
    if (mode !== 'refuse' && !server) await listen();
    if (was === 'hang' && mode !== 'hang') for (const sock of sockets) sock.destroy();
  }

  async function waitForTickets(n: number, timeoutMs = 10_000): Promise<Buffer[]> {
    const deadline = Date.now() + timeoutMs;
    while (state.tickets.length < n) {
      if (Date.now() > deadline) throw new Error(`fake printer: ${state.tickets.length} of ${n} tickets after ${timeoutMs} ms`);
      await new Promise((r) => setTimeout(r, 20));
    }
    return state.tickets;
  }

  async function close(): Promise<void> {
    await stopListening();
  }

  if (opts.mode === 'refuse') {
    // Take a free port, then stop listening on it: connections are refused until setMode('ok').
    await listen();
    await stopListening();
    state.mode = 'refuse';
  } else {
    await listen();
    state.mode = opts.mode ?? 'ok';
  }
  return state;
}
