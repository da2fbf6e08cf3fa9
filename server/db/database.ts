/**
 * Table types as Kysely sees them, one file per area in ./tables/<area>.ts (its table interfaces and
 * `<Area>Tables`, the tables by name); `Database` composes them. Kept by hand beside the migrations
 * (server/db/migrations): a migration that adds a table or column adds it to its area's file too, and
 * test/server/db/table-types.test.ts fails on both lanes when the types and the migrated schema differ
 * (a table or column on one side only, or a different nullability). Both engines return the same JS
 * types because every column is one of: text, integer (cents, counts, 0/1 booleans), bigint (parsed
 * to number on PostgreSQL), or text holding JSON. Timestamps are ISO-8601 UTC strings.
 */
import type { TenantsTables } from './tables/tenants.js';
import type { UsersTables } from './tables/users.js';
import type { AuthTables } from './tables/auth.js';
import type { CoreTables } from './tables/core.js';
import type { MenuTables } from './tables/menu.js';
import type { OrdersTables } from './tables/orders.js';
import type { SyncTables } from './tables/sync.js';
import type { ApiKeysTables } from './tables/apikeys.js';
import type { WebhooksTables } from './tables/webhooks.js';
import type { StockTables } from './tables/stock.js';
import type { FloorTables } from './tables/floor.js';
import type { ReservationsTables } from './tables/reservations.js';
import type { PaymentsTables } from './tables/payments.js';
import type { PublicTables } from './tables/public.js';
import type { LoyaltyTables } from './tables/loyalty.js';
import type { HaccpTables } from './tables/haccp.js';
import type { ShiftsTables } from './tables/shifts.js';
import type { WasteTables } from './tables/waste.js';
import type { PrintingTables } from './tables/printing.js';
import type { JournalTables } from './tables/journal.js';

export type * from './tables/tenants.js';
export type * from './tables/users.js';
export type * from './tables/auth.js';
export type * from './tables/core.js';
export type * from './tables/menu.js';
export type * from './tables/orders.js';
export type * from './tables/sync.js';
export type * from './tables/apikeys.js';
export type * from './tables/webhooks.js';
export type * from './tables/stock.js';
export type * from './tables/floor.js';
export type * from './tables/reservations.js';
export type * from './tables/payments.js';
export type * from './tables/public.js';
export type * from './tables/loyalty.js';
export type * from './tables/haccp.js';
export type * from './tables/shifts.js';
export type * from './tables/waste.js';
export type * from './tables/printing.js';
export type * from './tables/journal.js';

/** Every table by name (a new area adds its `<Area>Tables` here). */
export interface Database
  extends TenantsTables,
    UsersTables,
    AuthTables,
    CoreTables,
    MenuTables,
    OrdersTables,
    SyncTables,
    ApiKeysTables,
    WebhooksTables,
    StockTables,
    FloorTables,
    ReservationsTables,
    PaymentsTables,
    PublicTables,
    LoyaltyTables,
    HaccpTables,
    ShiftsTables,
    WasteTables,
    PrintingTables,
    JournalTables {}
