import { z } from 'zod';
import { Password } from '../tenants/tenants.schemas.js';

export const Pin = z.string().regex(/^\d{4,8}$/, { message: 'moet uit 4 tot 8 cijfers bestaan.' });
export const Role = z.enum(['admin', 'staff']);

export const User = z
  .object({
    id: z.string(),
    name: z.string(),
    role: Role,
    email: z.string().nullable(),
    hourly_wage_cents: z.number().int().nullable(),
    job: z.string().nullable(),
    has_pin: z.boolean(),
    created_at: z.string(),
    updated_at: z.string(),
    archived_at: z.string().nullable(),
  })
  .meta({ id: 'User' });
export type User = z.infer<typeof User>;

export const CreateUserBody = z
  .object({
    name: z.string().trim().min(1).max(120),
    role: Role.default('staff'),
    pin: Pin.optional(),
    email: z.email().optional(),
    password: Password.optional(),
    hourly_wage_cents: z.number().int().min(0).max(100_000).optional(),
    job: z.string().trim().min(1).max(60).optional(),
  })
  .strict();
export type CreateUserInput = z.input<typeof CreateUserBody>;

export const UpdateUserBody = z
  .object({
    name: z.string().trim().min(1).max(120),
    role: Role,
    pin: Pin.nullable(),
    email: z.email().nullable(),
    password: Password,
    hourly_wage_cents: z.number().int().min(0).max(100_000).nullable(),
    job: z.string().trim().min(1).max(60).nullable(),
  })
  .partial()
  .strict();
export type UpdateUserInput = z.infer<typeof UpdateUserBody>;

export const UserParams = z.object({ id: z.uuid() });
