import type { FailPoint } from './engine.js';

/** Every named point where a crash is interesting (sync/README.md, "Fail-points"). */
export const FAIL_POINTS: readonly FailPoint[] = [
  'outbox.after_commit_before_push',
  'push.after_response_before_ack',
  'pull.after_apply_before_cursor',
];

/**
 * Fail-points for real processes (the end-to-end test and `bench/sync-chaos.ts`): with
 * `SYNC_FAILPOINT=<name>` set, the appliance kills itself with SIGKILL the `SYNC_FAILPOINT_HIT`-th
 * time (default 1) it reaches that point, with no cleanup at all, as a power cut would. Without the
 * variable this returns undefined and the engine runs exactly as in production.
 */
export function envFailpoint(
  env: NodeJS.ProcessEnv = process.env,
  kill: () => void = () => process.kill(process.pid, 'SIGKILL'),
): ((name: FailPoint) => void) | undefined {
  const wanted = env.SYNC_FAILPOINT?.trim();
  if (!wanted) return undefined;
  if (!(FAIL_POINTS as readonly string[]).includes(wanted)) {
    throw new Error(`SYNC_FAILPOINT '${wanted}' bestaat niet; kies uit: ${FAIL_POINTS.join(', ')}.`);
  }
  const hit = Number(env.SYNC_FAILPOINT_HIT ?? '1');
  if (!Number.isInteger(hit) || hit < 1) throw new Error(`SYNC_FAILPOINT_HIT moet een geheel getal ≥ 1 zijn (was '${env.SYNC_FAILPOINT_HIT}').`);
  let seen = 0;
  return (name) => {
    if (name !== wanted) return;
    seen += 1;
    if (seen < hit) return;
    // One line on stderr (synchronously, before the kill) so a test can tell the point was reached.
    process.stderr.write(`SYNC_FAILPOINT ${name} hit ${seen}: SIGKILL\n`);
    kill();
  };
}
