import { randomBytes } from 'node:crypto';
import { type Identity, signIdentity } from '@stratum/identity';
import type { Proc } from './procs';

// Part 2: quota enforcement across replicas

export const SERVICE_IDENTITY: Identity = { userId: 'octavia', projectId: 'service', domainId: 'default', roles: ['service'] };
export const ADMIN_IDENTITY: Identity = { userId: 'bench-admin', projectId: 'admin', domainId: 'default', roles: ['admin'] };

/** One request with the identity signed for it, as the gateway signs it (a signature is bound to its request). */
export function signedFetch(base: string, secret: string, who: Identity, method: string, path: string, body?: unknown): Promise<Response> {
  const text = body === undefined ? undefined : JSON.stringify(body);
  const headers: Record<string, string> = { ...signIdentity(who, secret, { method, url: path, ...(text ? { body: text } : {}) }) };
  if (text) headers['Content-Type'] = 'application/json';
  return fetch(`${base}${path}`, { method, headers, body: text });
}

/** Counts of statuses, e.g. `200 × 50, 403 × 150`. */
export const statusList = (counts: Map<string, number>) =>
  [...counts]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([s, n]) => `${s} × ${n.toLocaleString('en')}`)
    .join(', ');

/**
 * 200 concurrent consumes of one load balancer against a limit of 50 on a fresh project, sent by `send(i, path,
 * body)`. @returns the table row: statuses, in_use after.
 */
export async function enforcementRound(
  label: string,
  replicas: Proc[],
  secret: string,
  send: (i: number, path: string, body: unknown) => Promise<Response>,
): Promise<string> {
  const project = randomBytes(16).toString('hex');
  const base = `/v2.0/lbaas/quotas/${project}`;
  const put = await signedFetch((replicas[0] as Proc).url, secret, ADMIN_IDENTITY, 'PUT', base, { quota: { load_balancer: 50 } });
  if (put.status !== 202) throw new Error(`PUT ${base} answered ${put.status}: ${(await put.text()).slice(0, 300)}`);
  const statuses = new Map<string, number>();
  const results = await Promise.all(
    Array.from({ length: 200 }, async (_, i) => {
      try {
        const r = await send(i, `${base}/usage`, { consume: { load_balancer: 1 } });
        await r.arrayBuffer();
        return String(r.status);
      } catch (err) {
        return `error (${(err as Error).message})`;
      }
    }),
  );
  for (const s of results) statuses.set(s, (statuses.get(s) ?? 0) + 1);
  const inUse = await Promise.all(
    replicas.map(async (r) => {
      const res = await signedFetch(r.url, secret, ADMIN_IDENTITY, 'GET', `${base}/usage`);
      return ((await res.json()) as { usage: { load_balancer: { in_use: number } } }).usage.load_balancer.in_use;
    }),
  );
  const ok = statuses.get('200') ?? 0;
  const verdict = ok === 50 && inUse.every((n) => n === 50) ? '**exactly 50**' : '**WRONG**';
  return `| ${label} | 200 | ${statusList(statuses)} | ${inUse.join(' / ')} | ${verdict} |`;
}
