// autocannon ships no types and @types/autocannon is not installed: the part the benches use.
declare module 'autocannon' {
  interface Histogram {
    average: number;
    mean: number;
    stddev: number;
    min: number;
    max: number;
    p50: number;
    p90: number;
    p99: number;
    p99_9?: number;
    total?: number;
  }
  interface Result {
    requests: Histogram & { sent: number };
    latency: Histogram;
    throughput: Histogram;
    errors: number;
    timeouts: number;
    non2xx: number;
    duration: number;
    '2xx': number;
  }
  interface Options {
    url: string;
    connections?: number;
    duration?: number;
    /** Stop after this many requests (overrides duration). */
    amount?: number;
    pipelining?: number;
    method?: string;
    headers?: Record<string, string>;
    body?: string;
    timeout?: number;
  }
  function autocannon(opts: Options): Promise<Result>;
  export default autocannon;
}
