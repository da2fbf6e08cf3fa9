import { lane } from './db.js';

/**
 * How many runs a fast-check property makes: the test's own variable when set (an exact count, e.g.
 * SYNC_PROPERTY_RUNS=5000), else its default for the lane times FC_RUNS_SCALE (default 1; a
 * factor, e.g. FC_RUNS_SCALE=2 for the run counts CI used before it was made faster, 10 for a
 * long local or nightly run).
 */
export function fcRuns(defaults: { sqlite: number; postgres: number }, ...envVars: string[]): number {
  for (const name of envVars) {
    const v = process.env[name];
    if (v !== undefined && v !== '') return Number(v);
  }
  const scale = Number(process.env.FC_RUNS_SCALE ?? 1);
  return Math.max(1, Math.round(defaults[lane] * (Number.isFinite(scale) && scale > 0 ? scale : 1)));
}

/** Whether the run count was raised above the CI default (a longer time limit then applies). */
export function fcRunsRaised(defaults: { sqlite: number; postgres: number }, ...envVars: string[]): boolean {
  return fcRuns(defaults, ...envVars) > defaults[lane];
}
