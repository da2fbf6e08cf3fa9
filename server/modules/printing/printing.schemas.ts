import { z } from 'zod';
import '../../shared/validation.js';
import { Station } from '../menu/menu.schemas.js';

export const PRINT_JOB_KINDS = ['ticket', 'void', 'receipt', 'reprint', 'test'] as const;
export const PRINT_JOB_STATUSES = ['queued', 'done', 'failed'] as const;
export const PRINTER_STATUSES = ['online', 'offline', 'unknown'] as const;

/** A host name or IPv4/IPv6 address on the restaurant's network (no scheme, no port). */
const Host = z
  .string()
  .trim()
  .min(1)
  .max(253)
  .regex(/^[A-Za-z0-9.:-]+$/, { message: "moet een IP-adres of hostnaam zijn, zoals 192.168.1.50 (zonder 'http://' of poort)." });

export const CreatePrinterBody = z
  .object({
    name: z.string().trim().min(1).max(60),
    host: Host,
    port: z.number().int().min(1).max(65535).default(9100),
    width_mm: z.union([z.literal(58), z.literal(80)], { message: 'moet 58 of 80 zijn.' }).default(80),
    stations: z.array(Station).max(20).default([]),
    receipts: z.boolean().default(false),
    fallback_printer_id: z.uuid().nullable().optional(),
  })
  .meta({ id: 'CreatePrinter' });
export type CreatePrinterInput = z.infer<typeof CreatePrinterBody>;

export const UpdatePrinterBody = z
  .object({
    name: CreatePrinterBody.shape.name,
    host: Host,
    port: z.number().int().min(1).max(65535),
    width_mm: z.union([z.literal(58), z.literal(80)], { message: 'moet 58 of 80 zijn.' }),
    stations: z.array(Station).max(20),
    receipts: z.boolean(),
    fallback_printer_id: z.uuid().nullable(),
  })
  .partial()
  .meta({ id: 'UpdatePrinter' });
export type UpdatePrinterInput = z.infer<typeof UpdatePrinterBody>;

export const Printer = z
  .object({
    id: z.string(),
    name: z.string(),
    host: z.string(),
    port: z.number().int(),
    width_mm: z.number().int(),
    stations: z.array(z.string()),
    receipts: z.boolean(),
    fallback_printer_id: z.string().nullable(),
    status: z.enum(PRINTER_STATUSES).meta({ description: 'online: the last send succeeded; offline: the last attempt failed; unknown: nothing sent yet' }),
    last_error: z.string().nullable(),
    queued: z.number().int().meta({ description: 'Jobs waiting for this printer (queued or failed, moved ones counted at the fallback)' }),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .meta({ id: 'Printer' });
export type Printer = z.infer<typeof Printer>;

export const PrintJob = z
  .object({
    id: z.string(),
    printer_id: z.string(),
    order_id: z.string().nullable(),
    kind: z.enum(PRINT_JOB_KINDS),
    status: z.enum(PRINT_JOB_STATUSES).meta({ description: 'queued: waiting or being retried; failed: 3 or more failed attempts and no fallback (still retried); done: the printer took every byte, never sent again' }),
    attempts: z.number().int(),
    last_error: z.string().nullable(),
    moved_to: z.string().nullable().meta({ description: 'The fallback printer the job moved to after 3 failed attempts' }),
    requested_by: z.string().nullable().meta({ description: 'Who asked for a reprint or a test print' }),
    reprint_of: z.string().nullable(),
    stations: z.array(z.string()),
    created_at: z.string(),
    done_at: z.string().nullable(),
  })
  .meta({ id: 'PrintJob' });
export type PrintJob = z.infer<typeof PrintJob>;

export const PrinterParams = z.object({ id: z.uuid() });
export const PrintJobsQuery = z.object({
  status: z.enum(PRINT_JOB_STATUSES).optional(),
  order_id: z.uuid().optional(),
  printer_id: z.uuid().optional(),
});
