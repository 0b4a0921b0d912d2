import { sql } from 'drizzle-orm';
import type { Executor } from '../../db/client.js';
import { vulndbSources } from '../../db/schema/index.js';

/** How many vulnerability feeds this instance has imported (instance-wide data: no company). */
export async function importedFeedCount(db: Executor): Promise<number> {
  const [row] = await db.select({ n: sql<number>`count(*)::int` }).from(vulndbSources);
  return row?.n ?? 0;
}
