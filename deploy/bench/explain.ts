/**
 * The store's plan of a find, for the benchmark reports: on FerretDB 2.5 `explain` answers with DocumentDB's
 * PostgreSQL plan only (`queryPlanner.Plan`; no actual rows or times).
 */
import type { Db, Document } from 'mongodb';

/** Node types and index names of a PostgreSQL plan tree, in order (e.g. `Limit > Index Scan(project_generated_asc)`). */
function planSummary(plan: Document | undefined): string {
  if (!plan) return '(no plan)';
  const here = plan['Index Name'] ? `${plan['Node Type']}(${plan['Index Name']})` : String(plan['Node Type']);
  const children = (plan.Plans as Document[] | undefined) ?? [];
  return children.length === 0 ? here : `${here} > ${children.map(planSummary).join(', ')}`;
}

/** @returns `PostgreSQL: <plan summary>` for `find(filter).sort(sort).limit(limit)` on `collection`. */
export async function explainFind(db: Db, collection: string, filter: Document, sort: Document, limit: number): Promise<string> {
  // An empty sort is an error on FerretDB 2.5 ("$sort stage must have at least one sort key").
  const r = await db.command({ explain: { find: collection, filter, ...(Object.keys(sort).length > 0 ? { sort } : {}), limit } });
  return `PostgreSQL: ${planSummary((r.queryPlanner as Document | undefined)?.Plan as Document | undefined)}`;
}
