import type { JobSpec } from '../../plugins/scheduler.js';
import type { AuthService } from './auth.service.js';

/** Name of the session clean-up job. */
export const PURGE_JOB = 'auth-purge';

/** The auth module's cron jobs: hourly, expired sessions and login failures past the lock-out window go. */
export const authJobs = (deps: { auth: AuthService }): JobSpec[] => [
  { name: PURGE_JOB, cron: '41 * * * *', run: () => deps.auth.purgeExpired().then(() => {}) },
];
