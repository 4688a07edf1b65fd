/**
 * Loads a registry bootstrap file (the format of shared/samples/registry.yaml and deploy/registry.yaml) into the
 * store, replacing what it names. Sums (`allocated`) are computed here, so the stored registry is consistent.
 */
import { canonicalItemName, FIXED_ITEMS, type ItemSpec, regionItems, toMilli, UNLIMITED } from '@stratum/quota-items';
import { parse } from 'yaml';
import { z } from 'zod';
import {
  CLOUD_DOMAIN_ID,
  emptyQuotaSet,
  type ProjectQuotaState,
  type QuotaSetState,
  quotaSetId,
  type RegistryRepository,
} from './registry.repository';

const Values = z.record(z.string(), z.number());
const PerRegion = z.record(z.string(), Values);

export const RegistryFile = z.object({
  regions: z.array(
    z.object({ name: z.string().min(1), volume_types: z.array(z.string().min(1)).default([]), products: z.array(z.string()).default([]) }),
  ),
  departments: z.array(z.object({ id: z.string().min(1), name: z.string(), quotas: PerRegion.default({}) })),
  projects: z
    .array(z.object({ id: z.string().min(1), name: z.string(), domain_id: z.string().min(1), quotas: PerRegion.default({}) }))
    .default([]),
  usage: z.record(z.string(), z.object({ collected_at: z.string(), values: Values })).default({}),
});
export type RegistryFile = z.infer<typeof RegistryFile>;

/** Converts a region's wire values to milli-units. @throws Error naming the first bad item. */
function toMilliMap(values: Record<string, number>, items: Map<string, ItemSpec>, where: string): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [rawName, value] of Object.entries(values)) {
    const name = canonicalItemName(rawName);
    const spec = items.get(name) ?? FIXED_ITEMS[name];
    if (!spec) throw new Error(`${where}: unknown quota item ${rawName}`);
    const m = toMilli(value, spec);
    if (!m.ok) throw new Error(`${where}: ${rawName}=${value}: ${m.reason}`);
    out[name] = m.milli;
  }
  return out;
}

/** Adds a child's quotas into its parent's `allocated` (finite values) and `unlimited` (count of -1). */
function addInto(parent: QuotaSetState, values: Record<string, number>): void {
  for (const [k, v] of Object.entries(values)) {
    if (v === UNLIMITED) parent.unlimited[k] = (parent.unlimited[k] ?? 0) + 1;
    else parent.allocated[k] = (parent.allocated[k] ?? 0) + v;
  }
}

/**
 * Parses YAML text and writes the registry.
 * @returns counts of what was written.
 * @throws Error (with the offending path) when the file does not match the format.
 */
export async function loadRegistry(repo: RegistryRepository, yamlText: string): Promise<Record<string, number>> {
  const file = RegistryFile.parse(parse(yamlText));
  const itemsOf = new Map(file.regions.map((r) => [r.name, regionItems({ volumeTypes: r.volume_types, products: r.products })]));
  const regionNames = [...itemsOf.keys()];
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
  if (!file.departments.some((d) => d.id === CLOUD_DOMAIN_ID))
    throw new Error('the registry needs the department `default` (the cloud platform)');

  const projectQuotas: ProjectQuotaState[] = [];
  for (const p of file.projects) {
    if (!file.departments.some((d) => d.id === p.domain_id)) throw new Error(`project ${p.id}: unknown department ${p.domain_id}`);
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

  const usage = Object.entries(file.usage).map(([region, u]) => ({
    _id: region,
    collected_at: u.collected_at,
    values: toMilliMap(u.values, known(region, 'usage'), `usage ${region}`),
  }));

  const replaceAll = async <T extends { _id: string }>(col: import('mongodb').Collection<T>, docs: T[]) => {
    for (const doc of docs) await col.replaceOne({ _id: doc._id } as import('mongodb').Filter<T>, doc, { upsert: true });
  };
  await replaceAll(
    repo.regions,
    file.regions.map((r) => ({ _id: r.name, volume_types: r.volume_types, products: r.products })),
  );
  await replaceAll(
    repo.departments,
    file.departments.map((d) => ({ _id: d.id, name: d.name })),
  );
  await replaceAll(
    repo.projects,
    file.projects.map((p) => ({ _id: p.id, domain_id: p.domain_id, name: p.name })),
  );
  // Quota nodes are written as new revisions, so running edits and caches see the load like any change.
  for (const s of sets.values()) await repo.quotaSets.update(quotaSetId(s.region, s.domain_id), () => ({ next: s, result: undefined }));
  for (const q of projectQuotas)
    await repo.projectQuotas.update(quotaSetId(q.region, q.project_id), () => ({ next: q, result: undefined }));
  await replaceAll(repo.usage, usage);
  return {
    regions: file.regions.length,
    departments: file.departments.length,
    projects: file.projects.length,
    project_quotas: projectQuotas.length,
  };
}
