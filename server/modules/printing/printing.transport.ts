import net from 'node:net';

/** Sends a job's bytes to a printer; resolves only when the printer took every byte. */
export type PrinterTransport = (target: { host: string; port: number }, bytes: Uint8Array, timeoutMs: number) => Promise<void>;

/**
 * Raw TCP (port 9100, "JetDirect"): connect, write every byte, close our side, and wait until the
 * printer closes its side. A raw-port printer reads until the end of the stream and then closes, so
 * its close tells that it read every byte; a write error, a reset (a printer that drops the
 * connection mid-ticket) or no close within `timeoutMs` (a printer that hangs) is a failure.
 * Errors in Dutch: they are shown to the staff as the printer's last error.
 */
export const tcpTransport: PrinterTransport = ({ host, port }, bytes, timeoutMs) =>
  new Promise<void>((resolve, reject) => {
    let written = false;
    let peerEnded = false;
    let failure: Error | null = null;
    const socket = net.connect({ host, port });
    const fail = (message: string) => {
      if (!failure) failure = new Error(message);
      socket.destroy();
    };
    socket.setTimeout(timeoutMs, () => fail(`Printer reageert niet binnen ${Math.round(timeoutMs / 1000)} s (time-out).`));
    const timer = setTimeout(() => fail(`Printer reageert niet binnen ${Math.round(timeoutMs / 1000)} s (time-out).`), timeoutMs);
    socket.once('connect', () => {
      socket.write(bytes, (err) => {
        if (err) return fail(`Verbinding verbroken tijdens het printen (${(err as NodeJS.ErrnoException).code ?? err.message}).`);
        written = true;
        socket.end();
      });
    });
    // A printer may answer status bytes: read and drop them, so its close can reach us.
    socket.on('data', () => {});
    socket.on('end', () => {
      peerEnded = true;
    });
    socket.on('error', (err: NodeJS.ErrnoException) => {
      const code = err.code ?? '';
      if (code === 'ECONNREFUSED') failure ??= new Error(`Printer weigert de verbinding (${host}:${port}); staat hij aan?`);
      else if (code === 'EHOSTUNREACH' || code === 'ENETUNREACH' || code === 'ENOTFOUND' || code === 'EAI_AGAIN') failure ??= new Error(`Printer niet bereikbaar (${host}:${port}).`);
      else failure ??= new Error(`Verbinding verbroken tijdens het printen (${code || err.message}).`);
    });
    socket.once('close', () => {
      clearTimeout(timer);
      if (failure) return reject(failure);
      if (written && peerEnded) return resolve();
      reject(new Error('Verbinding verbroken tijdens het printen.'));
    });
  });
