import { SyncRegistry } from '../../sync/registry.js';
import type { EntityDescriptor, TableName } from '../../sync/types.js';
import { menuSync } from './menu/menu.sync.js';
import { ordersSync } from './orders/orders.sync.js';
import { loyaltySync } from './loyalty/loyalty.sync.js';
import { floorSync } from './floor/floor.sync.js';
import { reservationsSync } from './reservations/reservations.sync.js';
import { stockSync } from './stock/stock.sync.js';
import { tenantsSync } from './tenants/tenants.sync.js';
import { usersSync } from './users/users.sync.js';
import { apiKeysSync } from './apikeys/apikeys.sync.js';
import { webhooksSync } from './webhooks/webhooks.sync.js';
import { shiftsSync } from './shifts/shifts.sync.js';
import { PAYMENTS_LOCAL_ONLY, paymentsSync } from './payments/payments.sync.js';
import { publicSync } from './public/public.sync.js';
import { wasteSync } from './waste/waste.sync.js';
import { haccpSync } from './haccp/haccp.sync.js';
import { journalSync } from './journal/journal.sync.js';
import { tillSync } from './till/till.sync.js';

/**
 * The composition root's half of sync (AREAS.md "Offline-first"): every module's replicated
 * entities, and the module tables that stay on their node, with the reason. sync/ is the framework
 * and imports no module; it gets this registry from here.
 *
 * Adding an area: write `server/modules/<area>/<area>.sync.ts` exporting `EntityDescriptor[]` (see
 * sync/types.ts for the contract and an example) and add it below, after the entities it refers to
 * (a snapshot copies entities in this order: tenant before its users, menu before orders). A table
 * that must not replicate goes in MODULE_LOCAL_ONLY with its reason. test/sync/sync.test.ts fails
 * on any table classified nowhere.
 */
export const MODULE_DESCRIPTORS: EntityDescriptor[] = [
  ...tenantsSync,
  ...usersSync,
  ...menuSync,
  ...ordersSync,
  ...loyaltySync,
  ...floorSync,
  ...reservationsSync,
  ...stockSync,
  ...apiKeysSync,
  ...webhooksSync,
  ...shiftsSync,
  ...paymentsSync,
  ...publicSync,
  ...wasteSync,
  ...haccpSync,
  ...journalSync,
  ...tillSync,
];

/** Module tables that never leave the node, and why. */
export const MODULE_LOCAL_ONLY: Partial<Record<TableName, string>> = {
  stock_levels: 'derived: each node maintains it from its own copy of the stock ledger (stock_movements) in the same transaction as each movement; `cli stock verify` rebuilds it',
  api_key_usage: "when this node last saw each API key (last_used_at): per node, written at most once a minute per key, never a change-log entry",
  webhook_deliveries: "the sending node's delivery queue and history (the cloud, or a stand-alone appliance): each event is sent by one node, so the queue stays there",
  ...PAYMENTS_LOCAL_ONLY,
  loyalty_accounts: 'derived: what each holder (the pool, an appliance) may spend per customer, maintained with every loyalty ledger row on each node and rebuildable from the replicated ledger (docs/loyalty.md)',
  upload_blobs: "the cloud's copy of uploaded photos' bytes (issue 28 point 16), which every cloud node reads; photos never sync (an appliance keeps its own on its disk, the entry's photo_type/photo_bytes say one exists)",
  printers: "the restaurant's printers on its own network (docs/kitchen.md): configured on the node that prints (the appliance or a stand-alone server); a cloud never opens a printer connection, so it has no printers",
  print_jobs: "this node's outbox to its own printers (docs/kitchen.md): each ticket is printed by the node that made the job; synced orders make their jobs on arrival (the 'printing' change-log consumer)",
  floor_table_status: "the table status last announced to this node's tablets: each node derives statuses from its own bills, orders and reservations and announces its own changes",
};

/** The one registry: the engine (appliance), the cloud and the tests use it. */
export const syncRegistry = new SyncRegistry(MODULE_DESCRIPTORS, MODULE_LOCAL_ONLY);
