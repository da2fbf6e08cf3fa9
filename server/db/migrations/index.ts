import type { Migration } from 'kysely';
import * as m0001 from './0001_foundation.js';
import * as m0002 from './0002_menu_orders.js';
import * as m0003 from './0003_sync.js';
import * as m0004 from './0004_consumers.js';
import * as m0005 from './0005_orders_live_index.js';
import * as m0006 from './0006_sync_snapshot.js';
import * as m0007 from './0007_sync_trust.js';
import * as m0008 from './0008_stock.js';
import * as m0009 from './0009_loyalty.js';
import * as m0010 from './0010_haccp.js';
import * as m0011 from './0011_floor.js';
import * as m0012 from './0012_webhooks.js';
import * as m0013 from './0013_payments.js';
import * as m0014 from './0014_insights.js';
import * as m0015 from './0015_sync_echo.js';
import * as m0016 from './0016_stock_snapshot_order.js';
import * as m0017 from './0017_upload_blobs.js';
import * as m0018 from './0018_menu_depth.js';
import * as m0019 from './0019_table_public_code.js';
import * as m0020 from './0020_order_item_options.js';
import * as m0021 from './0021_stations.js';
import * as m0022 from './0022_order_fires_voids.js';
import * as m0024 from './0024_printing.js';
import * as m0025 from './0025_till.js';
import * as m0026 from './0026_journal.js';
import * as m0027 from './0027_change_log_as_sent.js';
import * as m0028 from './0028_webhook_deliveries_fillfactor.js';

/**
 * Every migration, in order. Forward-only and additive (new tables, nullable or defaulted
 * columns), so an appliance one version behind can still sync (ARCHITECTURE §4).
 * A static list rather than a folder scan: works the same under tsx, tsc output and asar.
 */
export const migrations: Record<string, Migration> = {
  '0001_foundation': m0001,
  '0002_menu_orders': m0002,
  '0003_sync': m0003,
  '0004_consumers': m0004,
  '0005_orders_live_index': m0005,
  '0006_sync_snapshot': m0006,
  '0007_sync_trust': m0007,
  '0008_stock': m0008,
  '0009_loyalty': m0009,
  '0010_haccp': m0010,
  '0011_floor': m0011,
  '0012_webhooks': m0012,
  '0013_payments': m0013,
  '0014_insights': m0014,
  '0015_sync_echo': m0015,
  '0016_stock_snapshot_order': m0016,
  '0017_upload_blobs': m0017,
  '0018_menu_depth': m0018,
  '0019_table_public_code': m0019,
  '0020_order_item_options': m0020,
  '0021_stations': m0021,
  '0022_order_fires_voids': m0022,
  '0024_printing': m0024,
  '0025_till': m0025,
  '0026_journal': m0026,
  '0027_change_log_as_sent': m0027,
  '0028_webhook_deliveries_fillfactor': m0028,
};

export const SCHEMA_VERSION = Object.keys(migrations).length;
