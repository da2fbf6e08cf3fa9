import pg from 'pg';

/** Whether a PostgreSQL server answers at `url` within 3 s (decides whether PostgreSQL lanes run or are skipped loudly). */
export async function pgReachable(url: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 3000 });
  try {
    await client.connect();
    await client.query('select 1');
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => {});
  }
}
