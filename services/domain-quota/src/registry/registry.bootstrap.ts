/**
 * Loads a registry bootstrap file (the format of deploy/samples/registry.yaml) into the store, in one of three modes:
 *
 * - `empty` (the default): only into a registry that holds nothing; refused otherwise (RegistryNotEmptyError), so
 *   loading samples again never undoes what the API changed.
 * - `merge`: what the file names is added or set (a region's volume types and products are added to what it has;
 *   a department's or project's quotas are set item by item), everything else is kept.
 * - `replace`: afterwards the registry holds exactly the file: regions, departments, projects and usage (of regions
 *   and of projects) the file
 *   does not name are deleted, and quota nodes it does not name are emptied (new revisions, never deleted, so caches
 *   and edits in flight see the change like any other).
 *
 * Sums (`allocated`, `unlimited`) are computed from the file for an empty registry; after a merge or a replace they
 * are recomputed from the whole tree (domain-quotas.integrity.ts), so they always equal what the tree holds.
 */
import { canonicalItemName, FIXED_ITEMS, type ItemSpec, regionItems, toMilli, UNLIMITED } from '@stratum/quota-items';
import type { Collection, Filter, WithoutId } from 'mongodb';
import { parse } from 'yaml';
import { z } from 'zod';
import { TreeIntegrity } from '../domain-quotas/domain-quotas.integrity';
import {
  CLOUD_DOMAIN_ID,
  emptyQuotaSet,
  type ProjectQuotaState,
  type QuotaSetState,
  quotaSetId,
  type Values as StoredValues,
} from '../domain-quotas/domain-quotas.repository';
import { type ProjectUsageDoc, projectUsageId, type RegionDoc, type RegistryRepository } from './registry.repository';
import { KeystoneId, PathSafeName, RegionName, SafeText } from './registry.schema';

const Values = z.record(z.string(), z.number());
const PerRegion = z.record(z.string(), Values);

/** The file's ids and names follow the API's rules (registry.schema.ts). */
export const RegistryFile = z.object({
  regions: z.array(
    z.object({ name: RegionName, volume_types: z.array(PathSafeName).default([]), products: z.array(z.string()).default([]) }),
  ),
  departments: z.array(z.object({ id: KeystoneId, name: SafeText, quotas: PerRegion.default({}) })),
  projects: z.array(z.object({ id: KeystoneId, name: SafeText, domain_id: KeystoneId, quotas: PerRegion.default({}) })).default([]),
  usage: z.record(z.string(), z.object({ collected_at: z.string(), values: Values })).default({}),
  /** project id → region → that project's actual use (optional). */
  project_usage: z.record(KeystoneId, z.record(z.string(), z.object({ collected_at: z.string(), values: Values }))).default({}),
});
export type RegistryFile = z.infer<typeof RegistryFile>;

/** Converts a region's wire values to milli-units. @throws Error naming the first bad item. */
function toMilliMap(values: Record<string, number>, items: Map<string, ItemSpec>, where: string): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [rawName, value] of Object.entries(values)) {
    const name = canonicalItemName(rawName);
    const spec = items.get(name) ?? (Object.hasOwn(FIXED_ITEMS, name) ? FIXED_ITEMS[name] : undefined);
    if (!spec) throw new Error(`${where}: unknown quota item ${rawName}`);
    const m = toMilli(value, spec);
    if (!m.ok) throw new Error(`${where}: ${rawName}=${value}: ${m.reason}`);
    out[name] = m.milli;
  }
  return out;
}

/** A file's time as ISO-8601 UTC (the API's form); a time without an offset is UTC. @throws Error when not a time. */
function utcTime(text: string, where: string): string {
  const hasOffset = /(Z|[+-]\d\d:?\d\d)$/i.test(text);
  const ms = Date.parse(hasOffset ? text : `${text.replace(/(\.\d{3})\d+$/, '$1')}Z`);
  if (Number.isNaN(ms)) throw new Error(`${where}: collected_at ${text} is not an ISO-8601 time`);
  return new Date(ms).toISOString();
}

/** Adds a child's quotas into its parent's `allocated` (finite values) and `unlimited` (count of -1). */
function addInto(parent: QuotaSetState, values: Record<string, number>): void {
  for (const [k, v] of Object.entries(values)) {
    if (v === UNLIMITED) parent.unlimited[k] = (parent.unlimited[k] ?? 0) + 1;
    else parent.allocated[k] = (parent.allocated[k] ?? 0) + v;
  }
}

/** How a file is loaded into a registry that may already hold data (see the module comment). */
export type LoadMode = 'empty' | 'merge' | 'replace';

/** A load in mode `empty` into a registry that holds something: nothing was written. */
export class RegistryNotEmptyError extends Error {
  constructor() {
    super('the registry in the store is not empty: nothing loaded (load with --merge or --replace to change it)');
    this.name = 'RegistryNotEmptyError';
  }
}

/**
 * Parses YAML text and writes the registry.
 * @returns counts of what was written, and for a merge or replace how many sums the recomputation changed.
 * @throws RegistryNotEmptyError in mode `empty` when the registry holds anything; Error (with the offending path)
 *   when the file does not match the format (nothing written); store errors as the driver raises them.
 */
export async function loadRegistry(repo: RegistryRepository, yamlText: string, mode: LoadMode = 'empty'): Promise<Record<string, number>> {
  const file = RegistryFile.parse(parse(yamlText));
  // A merge may refer to the regions and departments the store already has.
  const stored = mode === 'merge' ? { regions: await repo.listRegions(), departments: await repo.listDepartments() } : null;
  const catalogue = new Map((stored?.regions ?? []).map((r) => [r._id, { volumeTypes: r.volume_types, products: r.products }]));
  for (const r of file.regions) {
    const cur = catalogue.get(r.name);
    catalogue.set(r.name, {
      volumeTypes: [...new Set([...(cur?.volumeTypes ?? []), ...r.volume_types])],
      products: [...new Set([...(cur?.products ?? []), ...r.products])],
    });
  }
  const itemsOf = new Map([...catalogue].map(([name, c]) => [name, regionItems(c)]));
  const regionNames = file.regions.map((r) => r.name);
  const departmentIds = new Set([...(stored?.departments ?? []).map((d) => d._id), ...file.departments.map((d) => d.id)]);
  const known = (region: string, where: string) => {
    const items = itemsOf.get(region);
    if (!items) throw new Error(`${where}: unknown region ${region}`);
    return items;
  };

  const sets = new Map<string, QuotaSetState>();
  const setOf = (region: string, domainId: string) => {
    const id = quotaSetId(region, domainId);
    let s = sets.get(id);
    if (!s) {
      s = emptyQuotaSet(region, domainId);
      sets.set(id, s);
    }
    return s;
  };
  for (const d of file.departments) {
    for (const region of regionNames) setOf(region, d.id);
    for (const [region, values] of Object.entries(d.quotas)) {
      setOf(region, d.id).quotas = toMilliMap(values, known(region, `department ${d.id}`), `department ${d.id} ${region}`);
    }
  }
  if (!departmentIds.has(CLOUD_DOMAIN_ID)) throw new Error('the registry needs the department `default` (the cloud platform)');

  const projectQuotas: ProjectQuotaState[] = [];
  for (const p of file.projects) {
    if (!departmentIds.has(p.domain_id)) throw new Error(`project ${p.id}: unknown department ${p.domain_id}`);
    for (const [region, values] of Object.entries(p.quotas)) {
      const quotas = toMilliMap(values, known(region, `project ${p.id}`), `project ${p.id} ${region}`);
      projectQuotas.push({ region, project_id: p.id, domain_id: p.domain_id, quotas });
      addInto(setOf(region, p.domain_id), quotas);
    }
  }
  // The cloud's allocation: every department's quota (its own projects are already in its allocated).
  for (const s of sets.values()) {
    if (s.domain_id !== CLOUD_DOMAIN_ID) addInto(setOf(s.region, CLOUD_DOMAIN_ID), s.quotas);
  }

  const regionDocs: RegionDoc[] = file.regions.map((r) => ({ _id: r.name, volume_types: r.volume_types, products: r.products }));
  const departmentDocs = file.departments.map((d) => ({ _id: d.id, name: d.name }));
  const projectDocs = file.projects.map((p) => ({ _id: p.id, domain_id: p.domain_id, name: p.name }));
  const usage = Object.entries(file.usage).map(([region, u]) => ({
    _id: region,
    collected_at: u.collected_at,
    values: toMilliMap(u.values, known(region, 'usage'), `usage ${region}`),
  }));

  // In a merge, a report may name a project the store already has (read only when there are reports).
  const reportsToMerge = mode === 'merge' && Object.keys(file.project_usage).length > 0;
  const projectIds = new Set([...(reportsToMerge ? (await repo.listProjects()).map((p) => p._id) : []), ...file.projects.map((p) => p.id)]);
  const projectUsage: ProjectUsageDoc[] = Object.entries(file.project_usage).flatMap(([projectId, perRegion]) => {
    if (!projectIds.has(projectId)) throw new Error(`project_usage: unknown project ${projectId}`);
    return Object.entries(perRegion).map(([region, u]) => {
      const where = `project_usage ${projectId} ${region}`;
      const values = toMilliMap(u.values, known(region, where), where);
      if (Object.values(values).some((v) => v === UNLIMITED)) throw new Error(`${where}: -1 is not a usage`);
      return {
        _id: projectUsageId(projectId, region),
        project_id: projectId,
        region,
        values,
        collected_at: utcTime(u.collected_at, where),
      };
    });
  });

  const counts = {
    regions: file.regions.length,
    departments: file.departments.length,
    projects: file.projects.length,
    project_quotas: projectQuotas.length,
    project_usage: projectUsage.length,
  };
  if (mode === 'empty') {
    if (!(await repo.isEmpty())) throw new RegistryNotEmptyError();
    await upsertAll(repo.regions, regionDocs);
    await upsertAll(repo.departments, departmentDocs);
    await upsertAll(repo.projects, projectDocs);
    // Quota nodes are written as new revisions, so running edits and caches see the load like any change.
    for (const s of sets.values()) await repo.tree.writeQuotaSet(s);
    for (const q of projectQuotas) await repo.tree.writeProjectQuota(q);
    await upsertAll(repo.usage, usage);
    await upsertAll(repo.projectUsage, projectUsage);
    return counts;
  }

  const replace = mode === 'replace';
  // Catalogue documents: a merge keeps what a region offers and adds the file's; a replace also drops what the file
  // does not name.
  for (const r of regionDocs) {
    const cur = replace ? null : await repo.findRegion(r._id);
    await repo.putRegion(
      cur
        ? {
            ...cur,
            volume_types: [...new Set([...cur.volume_types, ...r.volume_types])],
            products: [...new Set([...cur.products, ...r.products])],
          }
        : r,
    );
  }
  await upsertAll(repo.departments, departmentDocs);
  await upsertAll(repo.projects, projectDocs);
  await upsertAll(repo.usage, usage);
  await upsertAll(repo.projectUsage, projectUsage);
  if (replace) {
    const keep = (docs: { _id: string }[]) => ({ _id: { $nin: docs.map((d) => d._id) } });
    await repo.regions.deleteMany(keep(regionDocs));
    await repo.departments.deleteMany(keep(departmentDocs));
    await repo.projects.deleteMany(keep(projectDocs));
    await repo.usage.deleteMany(keep(usage));
    await repo.projectUsage.deleteMany(keep(projectUsage));
  }
  // Quotas: set what the file names (item by item for a merge, whole for a replace), keeping each node's sums and
  // edits in flight; a replace empties the nodes the file does not name. The sums are recomputed below.
  const setQuotas = (current: StoredValues, given: StoredValues | undefined) => (replace ? (given ?? {}) : { ...current, ...given });
  const named = new Set(sets.keys());
  const nodeKeys = new Set([
    ...named,
    ...(replace ? (await repo.tree.allQuotaSets()).map((n) => quotaSetId(n.state.region, n.state.domain_id)) : []),
  ]);
  for (const key of nodeKeys) {
    const s = sets.get(key);
    const [region, owner] = s ? [s.region, s.domain_id] : splitKey(key);
    if (!s && !replace) continue;
    await repo.tree.changeQuotaSet(region, owner, (cur) => ({
      next: { ...cur.state, quotas: setQuotas(cur.state.quotas, s?.quotas) },
      result: undefined,
    }));
  }
  const projectByKey = new Map(projectQuotas.map((q) => [quotaSetId(q.region, q.project_id), q]));
  const projectKeys = new Set([
    ...projectByKey.keys(),
    ...(replace ? (await repo.tree.allProjectQuotas()).map((p) => quotaSetId(p.state.region, p.state.project_id)) : []),
  ]);
  for (const key of projectKeys) {
    const q = projectByKey.get(key);
    const [region, projectId] = q ? [q.region, q.project_id] : splitKey(key);
    await repo.tree.changeProjectQuota(region, projectId, q?.domain_id ?? CLOUD_DOMAIN_ID, (cur) => ({
      next: { ...cur.state, ...(q ? { domain_id: q.domain_id } : {}), quotas: setQuotas(cur.state.quotas, q?.quotas) },
      result: undefined,
    }));
  }
  const report = await new TreeIntegrity(repo.tree).check({ repair: true });
  return { ...counts, sums_recomputed: report.discrepancies.length };
}

/** `<region>/<owner>` → [region, owner] (region names have no slash). */
function splitKey(key: string): [string, string] {
  const i = key.indexOf('/');
  return [key.slice(0, i), key.slice(i + 1)];
}

/** Inserts or replaces each document by `_id`. */
async function upsertAll<T extends { _id: string }>(col: Collection<T>, docs: T[]): Promise<void> {
  for (const doc of docs) await col.replaceOne({ _id: doc._id } as Filter<T>, doc as WithoutId<T>, { upsert: true });
}
