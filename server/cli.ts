/**
 * The operator command line (CONTRACT §15): `npm run cli -- <command> [--flags]`.
 *
 * Every success prints one JSON object on stdout. Bad input prints a plain Dutch message on stderr
 * and exits 2 (usage or validation) or 1 (anything else: a taken slug, an unknown restaurant, a
 * database that cannot be reached). Never a stack trace. The CLI opens the same database as the
 * server (the same environment variables) and closes it before it exits.
 *
 * Adding a command is one entry in COMMANDS.
 */
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { ZodError } from 'zod';
import { ConfigError, loadConfig, type Config } from './config.js';
import type { Runtime } from './runtime.js';
import { AppError, type FieldError } from './shared/errors.js';
import { describeIssues, summarise } from './shared/validation.js';

type Options = NonNullable<ParseArgsConfig['options']>;
type Values = Record<string, string | boolean | undefined>;

export interface CommandContext {
  values: Values;
  /** Plain arguments, for a command with `positionals`. */
  args: string[];
  /** The configuration with logging off (the CLI's output is its JSON). */
  config: Config;
  env: NodeJS.ProcessEnv;
  io: Io;
  /** Opens the database (migrating it) once per command; closed by the CLI when the command ends. */
  runtime(): Promise<Runtime>;
}

export interface Command {
  /** Words after `cli`, e.g. `tenant create`. */
  name: string;
  summary: string;
  /** The flags as printed in the usage text. */
  usage: string;
  options: Options;
  /** Flags that must be present (checked before the database is opened). */
  required?: string[];
  /** How many plain arguments (e.g. a file name) the command takes; default none. */
  positionals?: number;
  /** Request field → flag, so validation messages name what the operator typed. */
  fields?: Record<string, string>;
  run(ctx: CommandContext): Promise<unknown>;
}

/** Usage and validation problems: exit 2. */
export class UsageError extends Error {}

const str = (v: Values, key: string): string | undefined => (typeof v[key] === 'string' ? (v[key] as string) : undefined);

function integerFlag(v: Values, key: string): number | undefined {
  const raw = str(v, key);
  if (raw === undefined) return undefined;
  if (!/^-?\d+$/.test(raw.trim())) throw new UsageError(`Ongeldige invoer: '--${key}' moet een geheel getal zijn (bijvoorbeeld 1450 voor € 14,50).`);
  return Number(raw);
}

async function tenantBySlug(rt: Runtime, slug: string) {
  const tenant = await rt.services.tenants.bySlug(slug);
  if (!tenant || tenant.archived_at) throw new AppError('NOT_FOUND', `Restaurant '${slug}' niet gevonden.`);
  return tenant;
}

export const COMMANDS: Command[] = [
  {
    name: 'tenant create',
    summary: 'een restaurant met zijn eerste beheerder aanmaken',
    usage: '--slug S --name N --admin-email E --admin-password P [--admin-name N] [--timezone Europe/Amsterdam]',
    options: {
      slug: { type: 'string' },
      name: { type: 'string' },
      'admin-email': { type: 'string' },
      'admin-password': { type: 'string' },
      'admin-name': { type: 'string' },
      timezone: { type: 'string' },
    },
    required: ['slug', 'name', 'admin-email', 'admin-password'],
    fields: { slug: 'slug', name: 'name', admin_email: 'admin-email', admin_password: 'admin-password', admin_name: 'admin-name', timezone: 'timezone' },
    async run({ values: v, runtime }) {
      const rt = await runtime();
      const { tenant, admin } = await rt.services.tenants.create({
        slug: str(v, 'slug')!,
        name: str(v, 'name')!,
        admin_email: str(v, 'admin-email')!,
        admin_password: str(v, 'admin-password')!,
        ...(str(v, 'admin-name') ? { admin_name: str(v, 'admin-name') } : {}),
        ...(str(v, 'timezone') ? { timezone: str(v, 'timezone') } : {}),
      });
      return { tenant, admin: { id: admin.id, name: admin.name, email: admin.email, role: admin.role } };
    },
  },
  {
    name: 'user create',
    summary: 'een medewerker (pincode) of beheerder (e-mail en wachtwoord) toevoegen',
    usage: '--tenant S --name N --pin 1234 [--role staff|admin] [--hourly-wage-cents C] [--job J] [--email E --password P]',
    options: {
      tenant: { type: 'string' },
      name: { type: 'string' },
      pin: { type: 'string' },
      role: { type: 'string' },
      'hourly-wage-cents': { type: 'string' },
      job: { type: 'string' },
      email: { type: 'string' },
      password: { type: 'string' },
    },
    required: ['tenant', 'name'],
    fields: { name: 'name', pin: 'pin', role: 'role', hourly_wage_cents: 'hourly-wage-cents', job: 'job', email: 'email', password: 'password' },
    async run({ values: v, runtime }) {
      const role = str(v, 'role') ?? 'staff';
      if (role !== 'staff' && role !== 'admin') throw new UsageError(`Ongeldige invoer: '--role' moet staff of admin zijn.`);
      if (role === 'staff' && v.pin === undefined) throw new UsageError(`Ongeldige invoer: '--pin' is verplicht voor een medewerker.`);
      const hourly = integerFlag(v, 'hourly-wage-cents');
      const rt = await runtime();
      const tenant = await tenantBySlug(rt, str(v, 'tenant')!);
      const user = await rt.services.users.create(tenant.id, {
        name: str(v, 'name')!,
        role,
        ...(v.pin !== undefined ? { pin: str(v, 'pin') } : {}),
        ...(hourly !== undefined ? { hourly_wage_cents: hourly } : {}),
        ...(str(v, 'job') ? { job: str(v, 'job') } : {}),
        ...(str(v, 'email') ? { email: str(v, 'email') } : {}),
        ...(str(v, 'password') ? { password: str(v, 'password') } : {}),
      });
      return { tenant: { id: tenant.id, slug: tenant.slug, name: tenant.name }, user };
    },
  },
  {
    name: 'demo',
    summary: 'een leeg apparaat vullen met het demorestaurant (--serve: daarna de server starten)',
    usage: '[--serve]',
    options: { serve: { type: 'boolean' } },
    async run({ values: v, env, io, runtime }) {
      const rt = await runtime();
      const { seedDemo } = await import('./demo/seed.js');
      const result = await seedDemo(rt);
      if (!v.serve) return result;
      // Seeded (or already there): print the login first, then serve exactly like `npm start`
      // (with its logging, so the configuration without the CLI's silence).
      await rt.close();
      io.stdout(`${JSON.stringify(result, null, 2)}\n`);
      const serverConfig = loadConfig(env);
      const { start } = await import('./main.js');
      const started = await start(serverConfig);
      io.stderr(`Demorestaurant draait op ${started.url}\n`);
      return KEEP_RUNNING;
    },
  },
  {
    name: 'device create',
    summary: 'een apparaat (appliance) registreren; geeft eenmalig de SYNC_KEY (alleen in de cloud)',
    usage: '--tenant S --name N',
    options: { tenant: { type: 'string' }, name: { type: 'string' } },
    required: ['tenant', 'name'],
    async run({ values: v, config, runtime }) {
      if (config.role !== 'cloud') throw new UsageError(`'device create' werkt alleen in de cloud: zet ROLE=cloud en DATABASE_URL.`);
      const name = str(v, 'name')!.trim();
      if (name.length > 120) throw new UsageError(`Ongeldige invoer: '--name' mag hoogstens 120 tekens zijn.`);
      const rt = await runtime();
      const tenant = await tenantBySlug(rt, str(v, 'tenant')!);
      const { device, sync_key } = await rt.services.sync.createDevice(tenant.id, name);
      return { tenant: { id: tenant.id, slug: tenant.slug, name: tenant.name }, device, sync_key };
    },
  },
  {
    name: 'apikey create',
    summary: 'een API-sleutel voor een partner maken; de sleutel staat alleen in deze uitvoer (alleen de hash wordt bewaard)',
    usage: '--tenant S --name N --scopes read,write',
    options: { tenant: { type: 'string' }, name: { type: 'string' }, scopes: { type: 'string' } },
    required: ['tenant', 'name', 'scopes'],
    fields: { name: 'name', scopes: 'scopes' },
    async run({ values: v, runtime }) {
      const scopes = str(v, 'scopes')!.split(',').map((s) => s.trim()).filter(Boolean);
      const { CreateApiKeyBody, SCOPES } = await import('./modules/apikeys/apikeys.schemas.js');
      if (scopes.length === 0 || scopes.some((s) => !(SCOPES as readonly string[]).includes(s))) {
        throw new UsageError(`Ongeldige invoer: '--scopes' moet een lijst zijn van ${SCOPES.join(', ')} (bijvoorbeeld read,write).`);
      }
      const input = CreateApiKeyBody.parse({ name: str(v, 'name'), scopes });
      const rt = await runtime();
      const tenant = await tenantBySlug(rt, str(v, 'tenant')!);
      const { key, ...apiKey } = await rt.services.apiKeys.create(tenant.id, input, null);
      return { tenant: { id: tenant.id, slug: tenant.slug, name: tenant.name }, api_key: apiKey, key };
    },
  },
  {
    name: 'backup',
    summary: 'een back-up van de database van dit apparaat maken in DATA_DIR/backups (de nieuwste 14 blijven)',
    usage: '',
    options: {},
    async run({ config, runtime }) {
      if (config.databaseUrl) throw new UsageError(`'backup' is voor een apparaat met SQLite; maak in de cloud een back-up met pg_dump.`);
      const rt = await runtime();
      const { backupDir, makeBackup } = await import('./backup.js');
      return { backup: await makeBackup(rt.handle, backupDir(config), new Date()) };
    },
  },
  {
    name: 'restore',
    summary: 'een back-up terugzetten (alleen als de server niet draait; de huidige database wordt eerst bewaard)',
    usage: 'FILE',
    options: {},
    positionals: 1,
    async run({ args, config }) {
      const file = args[0];
      if (!file) throw new UsageError(`Ontbrekend argument voor 'restore': het back-upbestand.`);
      const { restoreBackup } = await import('./backup.js');
      return { restored: restoreBackup(config, file, new Date()) };
    },
  },
  {
    name: 'stock verify',
    summary: 'de voorraadniveaus opnieuw uit het grootboek van mutaties opbouwen en elk verschil melden (--dry-run: alleen melden)',
    usage: '[--tenant S] [--dry-run]',
    options: { tenant: { type: 'string' }, 'dry-run': { type: 'boolean' } },
    async run({ values: v, runtime }) {
      const rt = await runtime();
      const slug = str(v, 'tenant');
      const tenant = slug ? await tenantBySlug(rt, slug) : undefined;
      return rt.services.stock.verify({ tenantId: tenant?.id, repair: v['dry-run'] !== true });
    },
  },
];

/** Returned by a command that has handed the process over to a server. */
const KEEP_RUNNING = Symbol('keep-running');

export function usage(): string {
  const width = Math.max(...COMMANDS.map((c) => c.name.length));
  const lines = COMMANDS.map((c) => `  ${c.name.padEnd(width)}  ${c.usage}\n  ${' '.repeat(width)}  ${c.summary}`);
  return [
    'Gebruik: npm run cli -- <opdracht> [opties]',
    '',
    'Opdrachten:',
    ...lines,
    '',
    'De database komt uit dezelfde omgevingsvariabelen als de server (DATA_DIR of DATABASE_URL).',
    'Elke opdracht schrijft bij succes één JSON-object naar stdout.',
  ].join('\n');
}

function findCommand(argv: string[]): { command: Command; rest: string[] } | undefined {
  for (const command of COMMANDS) {
    const words = command.name.split(' ');
    if (words.every((w, i) => argv[i] === w)) return { command, rest: argv.slice(words.length) };
  }
  return undefined;
}

function parseFlags(command: Command, rest: string[]): { values: Values; args: string[] } {
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({ args: rest, options: command.options, strict: true, allowPositionals: (command.positionals ?? 0) > 0 });
    if (parsed.positionals.length > (command.positionals ?? 0)) {
      throw Object.assign(new Error(`Unexpected argument '${parsed.positionals[command.positionals ?? 0]}'`), { code: 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL' });
    }
  } catch (err) {
    const code = (err as { code?: string }).code;
    const message = (err as Error).message;
    const flag = /'(-{1,2}[^' ]+)/.exec(message)?.[1];
    if (code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') throw new UsageError(`Onbekende optie ${flag ?? ''} voor '${command.name}'.`);
    if (code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE') throw new UsageError(`Optie ${flag ?? ''} heeft een waarde nodig.`);
    if (code === 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL') throw new UsageError(`Onverwacht argument voor '${command.name}': ${message.match(/'([^']*)'/)?.[1] ?? ''}`);
    throw new UsageError(`Ongeldige opties voor '${command.name}'.`);
  }
  const values = parsed.values as Values;
  const missing = (command.required ?? []).filter((k) => typeof values[k] !== 'string' || (values[k] as string).trim() === '');
  if (missing.length) {
    const list = missing.map((k) => `--${k}`).join(', ');
    throw new UsageError(`Ontbrekende ${missing.length === 1 ? 'optie' : 'opties'} voor '${command.name}': ${list}.`);
  }
  return { values, args: parsed.positionals };
}

/** One problem on one line; several as a list, so the operator can fix them all at once. */
function formatDetails(details: FieldError[]): string {
  if (details.length <= 1) return summarise(details);
  return ['Ongeldige invoer:', ...details.map((d) => `  - ${d.error}`)].join('\n');
}

/** Validation details name request fields (`admin_email`); the operator typed flags (`--admin-email`). */
function renameFields(details: FieldError[], fields: Record<string, string>): FieldError[] {
  return details.map((d) => {
    const flag = fields[d.field];
    return flag ? { field: `--${flag}`, error: d.error.replace(`'${d.field}'`, `'--${flag}'`) } : d;
  });
}

/** The first `code` along the cause chain (a failed migration wraps the driver's error). */
function errorCode(err: unknown): string | undefined {
  for (let e = err, depth = 0; e && typeof e === 'object' && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string') return code;
    // AggregateError (e.g. ECONNREFUSED on both ::1 and 127.0.0.1)
    const inner = (e as { errors?: unknown[] }).errors?.[0];
    if (inner && typeof (inner as { code?: unknown }).code === 'string') return (inner as { code: string }).code;
  }
  return undefined;
}

export interface Failure {
  message: string;
  exitCode: 1 | 2;
}

/** Any error → one Dutch line and an exit code; never a stack trace. */
export function describeFailure(err: unknown, command?: Command): Failure {
  const fields = command?.fields ?? {};
  if (err instanceof UsageError || err instanceof ConfigError) return { message: err.message, exitCode: 2 };
  if (err instanceof Error && err.name === 'BackupError') return { message: err.message, exitCode: 1 };
  if (err instanceof ZodError) {
    const details = renameFields(describeIssues(err.issues), fields);
    return { message: formatDetails(details), exitCode: 2 };
  }
  if (err instanceof AppError) {
    const message = err.details?.length ? formatDetails(renameFields(err.details, fields)) : err.message;
    return { message, exitCode: err.code === 'VALIDATION' ? 2 : 1 };
  }
  const code = errorCode(err);
  if (code === 'ECONNREFUSED' || code === 'ENOTFOUND' || code === 'ETIMEDOUT' || /^(08|28|3D)/.test(code ?? '')) {
    // 08xxx: connection, 28xxx: login refused, 3D000: no such database (PostgreSQL SQLSTATE classes).
    return { message: `De database is niet bereikbaar of weigert de verbinding (${code}). Controleer DATABASE_URL.`, exitCode: 1 };
  }
  if (code === 'SQLITE_CANTOPEN' || code === 'EACCES') {
    return { message: `Het databasebestand kan niet worden geopend (${code}). Controleer DATA_DIR.`, exitCode: 1 };
  }
  // An operator can act on the driver's own words (the innermost cause), but never on a stack trace.
  const messages: string[] = [];
  for (let e = err, depth = 0; e && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    messages.push(e instanceof Error ? e.message.split('\n')[0]! : String(e));
  }
  const detail = messages.length > 1 ? `${messages[0]} (${messages[messages.length - 1]})` : (messages[0] ?? String(err));
  return { message: `Er ging iets mis: ${detail}`, exitCode: 1 };
}

export interface Io {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
}

/** Runs one command line; resolves to the exit code, or undefined when a server keeps running. */
export async function runCli(argv: string[], env: NodeJS.ProcessEnv = process.env, io: Io = defaultIo): Promise<number | undefined> {
  if (argv.length === 0 || argv[0] === 'help' || argv[0] === '--help' || argv[0] === '-h') {
    io[argv.length === 0 ? 'stderr' : 'stdout'](`${usage()}\n`);
    return argv.length === 0 ? 2 : 0;
  }
  const found = findCommand(argv);
  if (!found) {
    io.stderr(`Onbekende opdracht: '${argv.slice(0, 2).join(' ')}'.\n\n${usage()}\n`);
    return 2;
  }
  const { command, rest } = found;
  let rt: Runtime | undefined;
  try {
    if (rest.includes('--help') || rest.includes('-h')) {
      io.stdout(`Gebruik: npm run cli -- ${command.name} ${command.usage}\n  ${command.summary}\n`);
      return 0;
    }
    const { values, args } = parseFlags(command, rest);
    const config = loadConfig(env, { logLevel: 'silent' });
    const result = await command.run({
      values,
      args,
      config,
      env,
      io,
      // Loaded on first use, so usage errors answer without loading the whole server.
      runtime: async () => (rt ??= await (await import('./runtime.js')).createRuntime(config)),
    });
    if (result === KEEP_RUNNING) {
      rt = undefined; // the command closed it and handed over to the server
      return undefined;
    }
    io.stdout(`${JSON.stringify(result, null, 2)}\n`);
    return 0;
  } catch (err) {
    const failure = describeFailure(err, command);
    io.stderr(`${failure.message}\n`);
    if (failure.exitCode === 2 && err instanceof UsageError) io.stderr(`Gebruik: npm run cli -- ${command.name} ${command.usage}\n`);
    return failure.exitCode;
  } finally {
    await rt?.close().catch(() => {});
  }
}

const defaultIo: Io = {
  stdout: (t) => process.stdout.write(t),
  stderr: (t) => process.stderr.write(t),
};

const isEntry = import.meta.url === `file://${process.argv[1]}` || process.argv[1]?.endsWith('server/cli.ts');
if (isEntry) {
  runCli(process.argv.slice(2)).then(
    (code) => {
      if (code !== undefined) process.exitCode = code;
    },
    (err: unknown) => {
      process.stderr.write(`${describeFailure(err).message}\n`);
      process.exitCode = 1;
    },
  );
}
