import { z } from 'zod';
import path from 'node:path';
import type { Role } from './shared/role.js';

/**
 * Environment → typed, validated, frozen configuration (CONTRACT §15).
 * A bad value stops start-up with a message that names the variable.
 */
const boolish = z
  .enum(['1', '0', 'true', 'false', 'yes', 'no', ''])
  .transform((v) => v === '1' || v === 'true' || v === 'yes');

const EnvSchema = z.object({
  ROLE: z.enum(['local', 'cloud']).default('local'),
  PORT: z.coerce.number().int().min(0).max(65535).default(8080),
  HOST: z.string().min(1).default('0.0.0.0'),
  DATA_DIR: z.string().min(1).default('./data'),
  DATABASE_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\//, 'moet beginnen met postgres:// of postgresql://')
    .optional(),
  CLOUD_URL: z.url().optional(),
  SYNC_KEY: z.string().min(16).optional(),
  RATE_LIMIT_MUTATIONS_PER_MINUTE: z.coerce.number().int().min(1).max(100000).default(60),
  TRUST_PROXY: boolish.default(false),
  REDIS_URL: z.string().regex(/^rediss?:\/\//, 'moet beginnen met redis://').optional(),
  REDIS_KEY_PREFIX: z.string().regex(/^[\w:.-]{1,64}$/, 'letters, cijfers en : . - _ (hoogstens 64)').default('restaurant:'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  /** Write the server's log to this file instead of stdout (the desktop app: its logs folder). */
  LOG_FILE: z.string().min(1).optional(),
  BODY_LIMIT_BYTES: z.coerce.number().int().min(1024).default(1024 * 1024),
  /** 1: the cloud may send webhooks to private, loopback and link-local addresses (CONTRACT §15; the appliance always may). */
  WEBHOOK_ALLOW_PRIVATE: boolish.default(false),
  /** Where webhooks are sent from (docs/partners.md "Sender thread"): default `thread` in the cloud (on PostgreSQL), `inline` on the appliance. */
  WEBHOOK_SENDER: z.enum(['inline', 'thread']).optional(),
  /** The sender thread's nice value on Linux (docs/partners.md "Sender thread"): 0 = the process's own priority, 19 = the lowest. */
  WEBHOOK_SENDER_NICE: z.coerce.number().int().min(0).max(19).default(10),
  MOLLIE_API_KEY: z.string().regex(/^(test|live)_\w{20,}$/, "moet beginnen met test_ of live_ (de API-sleutel uit het Mollie-dashboard)").optional(),
  PUBLIC_BASE_URL: z.url({ protocol: /^https?$/ }).transform((u) => u.replace(/\/+$/, '')).optional(),
  /** `simulator` chooses the built-in payment simulator explicitly (a cloud needs a provider: MOLLIE_API_KEY or this); `mollie` needs MOLLIE_API_KEY. */
  PAYMENT_PROVIDER: z.enum(['mollie', 'simulator']).optional(),
  /** Tests only: the Mollie API the official client talks to (a fake on 127.0.0.1); unset: Mollie's own. */
  MOLLIE_API_ENDPOINT: z.url({ protocol: /^https?$/ }).optional(),
  /** Kitchen printers (docs/kitchen.md): the first wait after a failed send (doubles per attempt), its cap, and how long a send may take. */
  PRINT_RETRY_BASE_MS: z.coerce.number().int().min(10).max(600_000).default(2000),
  PRINT_RETRY_CAP_MS: z.coerce.number().int().min(10).max(3_600_000).default(60_000),
  PRINT_TIMEOUT_MS: z.coerce.number().int().min(50).max(120_000).default(10_000),
});

/** Where this server runs; defined in server/shared/role.ts (modules import it from there). */
export type { Role };

export interface Config {
  role: Role;
  port: number;
  host: string;
  dataDir: string;
  databaseUrl?: string;
  cloudUrl?: string;
  syncKey?: string;
  rateLimitPerMinute: number;
  trustProxy: boolean;
  redisUrl?: string;
  /** Start of every Redis key and channel of this deployment (REDIS_KEY_PREFIX). */
  redisPrefix?: string;
  logLevel: string;
  logFile?: string;
  bodyLimit: number;
  /** WEBHOOK_ALLOW_PRIVATE (docs/partners.md): webhooks may go to private/loopback/link-local addresses in the cloud too. */
  webhookAllowPrivate: boolean;
  /** WEBHOOK_SENDER: `thread` sends webhooks from a worker thread with its own database pool (PostgreSQL only; SQLite always sends inline). */
  webhookSender: 'inline' | 'thread';
  /** WEBHOOK_SENDER_NICE: the sender thread's nice value on Linux (customer-facing work first, deliveries in the CPU left over). */
  webhookSenderNice: number;
  /** Payments (docs/payments.md): the Mollie key (unset: the built-in simulator), where guests and Mollie reach this server, and the Mollie API endpoint override for tests. */
  mollieApiKey?: string;
  publicBaseUrl?: string;
  mollieApiEndpoint?: string;
  /** PRINT_RETRY_BASE_MS, PRINT_RETRY_CAP_MS, PRINT_TIMEOUT_MS (docs/kitchen.md): back-off of a failing printer and the send time-out. */
  printRetryBaseMs: number;
  printRetryCapMs: number;
  printTimeoutMs: number;
  /**
   * The payment provider of new payments: `mollie` with MOLLIE_API_KEY, else PAYMENT_PROVIDER, else
   * `simulator` on the appliance. Undefined on a cloud that chose none: it refuses to start
   * (servingProblem); the CLI and tests can still use it (with the simulator).
   */
  paymentProvider?: 'mollie' | 'simulator';
  /** Where the SQLite file lives when no DATABASE_URL is set; ':memory:' in tests. */
  sqliteFile: string;
}

export class ConfigError extends Error {}

export function loadConfig(env: NodeJS.ProcessEnv = process.env, overrides: Partial<Config> = {}): Config {
  // Empty strings count as "not set", as shells and .env files commonly produce them.
  const cleaned = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ''));
  const parsed = EnvSchema.safeParse(cleaned);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`);
    throw new ConfigError(`Ongeldige configuratie:\n${lines.join('\n')}`);
  }
  const e = parsed.data;
  if ((e.CLOUD_URL && !e.SYNC_KEY) || (!e.CLOUD_URL && e.SYNC_KEY)) {
    throw new ConfigError('Ongeldige configuratie:\n  CLOUD_URL en SYNC_KEY horen samen: zet beide of geen van beide.');
  }
  if (e.ROLE === 'cloud' && !e.DATABASE_URL) {
    throw new ConfigError('Ongeldige configuratie:\n  ROLE=cloud heeft DATABASE_URL (PostgreSQL) nodig.');
  }
  if (e.MOLLIE_API_KEY && !e.PUBLIC_BASE_URL) {
    throw new ConfigError('Ongeldige configuratie:\n  MOLLIE_API_KEY heeft PUBLIC_BASE_URL nodig: het adres waarop gasten en Mollie deze server bereiken.');
  }
  if (e.PAYMENT_PROVIDER === 'mollie' && !e.MOLLIE_API_KEY) {
    throw new ConfigError('Ongeldige configuratie:\n  PAYMENT_PROVIDER=mollie heeft MOLLIE_API_KEY nodig.');
  }
  if (e.PAYMENT_PROVIDER === 'simulator' && e.MOLLIE_API_KEY) {
    throw new ConfigError('Ongeldige configuratie:\n  PAYMENT_PROVIDER=simulator en MOLLIE_API_KEY sluiten elkaar uit: kies één betaalprovider.');
  }
  const dataDir = path.resolve(e.DATA_DIR);
  return Object.freeze({
    role: e.ROLE,
    port: e.PORT,
    host: e.HOST,
    dataDir,
    databaseUrl: e.DATABASE_URL,
    cloudUrl: e.CLOUD_URL,
    syncKey: e.SYNC_KEY,
    rateLimitPerMinute: e.RATE_LIMIT_MUTATIONS_PER_MINUTE,
    trustProxy: e.TRUST_PROXY,
    redisUrl: e.REDIS_URL,
    redisPrefix: e.REDIS_KEY_PREFIX,
    logLevel: e.LOG_LEVEL,
    logFile: e.LOG_FILE,
    bodyLimit: e.BODY_LIMIT_BYTES,
    webhookAllowPrivate: e.WEBHOOK_ALLOW_PRIVATE,
    webhookSender: e.WEBHOOK_SENDER ?? (e.ROLE === 'cloud' ? 'thread' : 'inline'),
    webhookSenderNice: e.WEBHOOK_SENDER_NICE,
    mollieApiKey: e.MOLLIE_API_KEY,
    publicBaseUrl: e.PUBLIC_BASE_URL,
    mollieApiEndpoint: e.MOLLIE_API_ENDPOINT,
    printRetryBaseMs: e.PRINT_RETRY_BASE_MS,
    printRetryCapMs: e.PRINT_RETRY_CAP_MS,
    printTimeoutMs: e.PRINT_TIMEOUT_MS,
    paymentProvider: e.MOLLIE_API_KEY ? 'mollie' : (e.PAYMENT_PROVIDER ?? (e.ROLE === 'local' ? 'simulator' : undefined)),
    sqliteFile: path.join(dataDir, 'restaurant.sqlite'),
    ...overrides,
  });
}

/**
 * What stops a server (not the CLI) from starting with this configuration, or null. A cloud takes
 * payments from anyone on the internet: without a provider it would run the simulator, where every
 * guest marks their own order paid (issue 28 point 5).
 */
export function servingProblem(config: Pick<Config, 'role' | 'paymentProvider'>): string | null {
  if (config.role === 'cloud' && !config.paymentProvider) {
    return 'Ongeldige configuratie:\n  ROLE=cloud heeft een betaalprovider nodig: zet MOLLIE_API_KEY (met PUBLIC_BASE_URL), of kies de betaalsimulator uitdrukkelijk met PAYMENT_PROVIDER=simulator (alleen voor tests en demo’s: daar kan iedereen zijn eigen bestelling als betaald markeren).';
  }
  return null;
}

/** The warning a cloud running the payment simulator logs at every start and shows in /health; null otherwise. */
export function paymentWarning(config: Pick<Config, 'role' | 'paymentProvider'>): string | null {
  if (config.role !== 'cloud' || config.paymentProvider === 'mollie') return null;
  return 'De betaalsimulator is actief in de cloud: iedereen kan zijn eigen bestelling als betaald markeren. Alleen voor tests en demo’s; zet MOLLIE_API_KEY voor echte betalingen.';
}
