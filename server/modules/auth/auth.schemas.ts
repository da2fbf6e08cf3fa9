import { z } from 'zod';
import '../../shared/validation.js';

export const StaffLoginBody = z
  .object({
    slug: z.string().trim().min(1).max(60),
    pin: z.string().regex(/^\d{4,8}$/, { message: 'moet uit 4 tot 8 cijfers bestaan.' }),
  })
  .strict();

export const AdminLoginBody = z
  .object({
    slug: z.string().trim().min(1).max(60),
    email: z.email(),
    password: z.string().min(1).max(200),
  })
  .strict();

export const SessionInfo = z
  .object({
    tenant: z.object({ id: z.string(), slug: z.string(), name: z.string() }),
    user: z.object({ id: z.string(), name: z.string(), email: z.string().optional() }),
    role: z.enum(['admin', 'staff']),
    expires_at: z.string().meta({ description: 'When the session ends if it stays idle (sliding).' }),
    absolute_expires_at: z.string().meta({ description: 'When the session ends regardless of activity (8 hours after login).' }),
  })
  .meta({ id: 'SessionInfo' });
export type SessionInfo = z.infer<typeof SessionInfo>;
