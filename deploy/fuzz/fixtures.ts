/**
 * What the fuzz run's requests may name: the stack seeded with projects, departments, quotas and events of known ids,
 * and the Fixtures built from them.
 */
import { randomUUID } from 'node:crypto';
import type { Fixtures } from './draft';
import type { FuzzTarget } from './fuzz';
import { QUOTA_ITEMS } from './valid';

export interface FixtureIds {
  projectA: string;
  projectB: string;
  deptDomainId: string;
}

const EVENT_TYPES = ['compute.instance.create.end', 'port.update.end', 'volume.delete.start'];
const TRAITS = ['project_id', 'tenant_id', 'resource_id', 'host', 'state', 'user_id'];

/**
 * Puts what valid-ish requests name into the stack through the gateway as admin: a region, departments and projects
 * in the registry with quotas, load balancer quotas and usage, a few events. Idempotent (PUTs and PATCHes of fixed
 * values, events with new ids). @returns one `METHOD path → status` line per call.
 */
export async function seedFixtures(target: FuzzTarget, fx: Fixtures, ids: FixtureIds): Promise<string[]> {
  const base = `http://${target.host}:${target.port}`;
  const lines: string[] = [];
  const call = async (method: string, path: string, body: unknown) => {
    try {
      const res = await fetch(`${base}${path}`, {
        method,
        headers: { 'X-Auth-Token': fx.tokens.admin, 'Content-Type': 'application/json' },
        body: JSON.stringify(body),
        signal: AbortSignal.timeout(10_000),
      });
      await res.arrayBuffer();
      lines.push(`${method} ${path} → ${res.status}`);
    } catch (err) {
      lines.push(`${method} ${path} → ${(err as Error).message}`);
    }
  };
  const region = fx.regions[0] ?? 'RegionOne';
  await call('PUT', `/v3/domain_quota_registry/regions/${region}`, {
    region: { volume_types: ['ssd', 'sata'], products: ['secure_container'] },
  });
  await call('PUT', '/v3/domain_quota_registry/domains/default', { domain: { name: 'Default' } });
  await call('PUT', `/v3/domain_quota_registry/domains/${ids.deptDomainId}`, { domain: { name: 'Fuzz department' } });
  for (const p of [ids.projectA, ids.projectB]) {
    await call('PUT', `/v3/domain_quota_registry/projects/${p}`, {
      project: { domain_id: ids.deptDomainId, name: `fuzz-${p.slice(0, 6)}` },
    });
  }
  const items = (n: number) => Object.fromEntries(QUOTA_ITEMS.map((item) => [item, n]));
  await call('PATCH', '/v3/domain_quotas/default', { domain: { region, ...items(1_000_000) } });
  await call('PATCH', `/v3/domain_quotas/${ids.deptDomainId}`, { domain: { region, ...items(100_000) } });
  await call('PATCH', `/v3/domain_quotas/${ids.deptDomainId}/projects/${ids.projectA}`, { project: { region, cores: 10, instances: 5 } });
  await call('PUT', `/v3/domain_quota_registry/usage/${region}`, { usage: { values: { cores: 10, instances: 2 } } });
  for (const p of [ids.projectA, ids.projectB]) {
    await call('PUT', `/v2.0/lbaas/quotas/${p}`, { quota: { load_balancer: 50, listener: 50, member: 500, pool: 50, health_monitor: 20 } });
    await call('POST', `/v2.0/lbaas/quotas/${p}/usage`, { consume: { load_balancer: 1, member: 3 } });
  }
  const now = Date.now();
  const events = [ids.projectA, ids.projectB, ids.projectA].flatMap((p, i) =>
    EVENT_TYPES.map((type, j) => {
      const message_id = randomUUID();
      fx.messageIds.push(message_id);
      return {
        message_id,
        event_type: type,
        generated: new Date(now - (i * 3 + j) * 60_000).toISOString(),
        traits: [
          ['project_id', 1, p],
          ['tenant_id', 1, p],
          ['resource_id', 1, randomUUID()],
          ['host', 1, `compute-${i}`],
          ['state', 1, 'active'],
          ['user_id', 1, 'fuzz-user'],
        ],
        raw: {},
      };
    }),
  );
  await call('POST', '/v2/ingest/events', events);
  // Keep the list of known ids short: the newest are those that exist.
  fx.messageIds.splice(0, Math.max(0, fx.messageIds.length - 30));
  return lines;
}

/** Fixtures for a stack: tokens of its personas and the ids `seedFixtures` creates. */
export function fixturesFor(tokens: Fixtures['tokens'], ids: FixtureIds, maxBodyBytes = 1_048_576): Fixtures {
  return {
    tokens,
    projects: [ids.projectA, ids.projectB],
    domains: [ids.deptDomainId, 'default'],
    regions: ['RegionOne'],
    messageIds: [],
    // Names the hostile ingested events store, so that queries name them too.
    eventTypes: [...EVENT_TYPES, 'constructor', '__proto__'],
    traitNames: [...TRAITS, 'constructor', '__proto__', 'hasOwnProperty', 'a.b.c', '$set', '\u202eevil'],
    maxBodyBytes,
    projectOf: { member: ids.projectA, reader: ids.projectA, otherMember: ids.projectB },
  };
}

// ---- report ------------------------------------------------------------------------------------------------------
