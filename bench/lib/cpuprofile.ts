import fs from 'node:fs';

/** The parts of a V8 `.cpuprofile` (node --cpu-prof) that the bench's profile readers use. */
export interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number; columnNumber: number };
  children?: number[];
}

export interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

/** A CPU profile (node:inspector, 500 µs sampling) of this process from now until `stop`, written as `<dir>/<name>-<pid>.cpuprofile`. */
export async function startCpuProfile(): Promise<{ stop(dir: string, name: string): Promise<string> }> {
  const { Session } = await import('node:inspector');
  const session = new Session();
  session.connect();
  const post = (method: string, params?: object) => new Promise<unknown>((resolve, reject) => session.post(method, params ?? {}, (err, res) => (err ? reject(err) : resolve(res))));
  await post('Profiler.enable');
  await post('Profiler.setSamplingInterval', { interval: 500 });
  await post('Profiler.start');
  return {
    async stop(dir, name) {
      const { profile } = (await post('Profiler.stop')) as { profile: unknown };
      session.disconnect();
      const file = `${dir}/${name}-${process.pid}.cpuprofile`;
      fs.writeFileSync(file, JSON.stringify(profile));
      return file;
    },
  };
}
