import { describe, expect, it } from 'vitest';
import { envFailpoint, FAIL_POINTS } from '../../sync/failpoint.js';

describe('SYNC_FAILPOINT (fail-points for real processes)', () => {
  it('is off unless the variable is set', () => {
    expect(envFailpoint({})).toBeUndefined();
    expect(envFailpoint({ SYNC_FAILPOINT: '' })).toBeUndefined();
  });

  it('kills at the named point on the SYNC_FAILPOINT_HIT-th time only, ignoring the other points', () => {
    let kills = 0;
    const fp = envFailpoint({ SYNC_FAILPOINT: 'pull.after_apply_before_cursor', SYNC_FAILPOINT_HIT: '2' }, () => (kills += 1))!;
    fp('push.after_response_before_ack');
    fp('outbox.after_commit_before_push');
    fp('pull.after_apply_before_cursor');
    expect(kills).toBe(0);
    fp('pull.after_apply_before_cursor');
    expect(kills).toBe(1);
  });

  it('refuses a name that does not exist or a bad hit count, instead of silently never firing', () => {
    expect(() => envFailpoint({ SYNC_FAILPOINT: 'push.typo' })).toThrow(/bestaat niet/);
    expect(() => envFailpoint({ SYNC_FAILPOINT: FAIL_POINTS[0], SYNC_FAILPOINT_HIT: '0' })).toThrow(/SYNC_FAILPOINT_HIT/);
  });
});
