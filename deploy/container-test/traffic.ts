/**
 * What the container test sends: GETs through the gateways (one, or a load spread round-robin with failures counted
 * by status), the gateways' per-replica counters, and Nova notifications on this run's own exchange.
 */
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from '@stratum/store-runtime';
import { Connection } from 'rabbitmq-client';
import { Failed } from './checks';

/** This run's RabbitMQ names (the machine's broker is shared: its own queues and exchanges, deleted at the end). */
export function busNames(runId: string) {
  const p = `stratum.ctr-${runId}`;
  return {
    ingestQueue: `${p}.notifications`,
    deadLetterQueue: `${p}.notifications.dead`,
    registryQueue: `${p}.registry`,
    novaExchange: `${p}.nova`,
    forwardExchange: `${p}.events`,
    auditExchange: `${p}.audit`,
  };
}
export type BusNames = ReturnType<typeof busNames>;
/** Notifications published to the ingestion queue, to show both event-query replicas consume it. */
export const NOTIFICATIONS = 200;

/** A route of each group, with the token's answer expected 200. */
export const GROUP_PATHS = {
  event: '/v2/events?limit=1',
  lbaas: '/v2.0/lbaas/quotas/defaults',
  domain: '/v3/domain_usage',
} as const;

/** One GET (with the token as X-Auth-Token when given); the status and the body's text. */
export async function get(url: string, token?: string, timeoutMs = 10_000): Promise<{ status: number; body: string }> {
  const res = await fetch(url, { headers: token ? { 'X-Auth-Token': token } : {}, signal: AbortSignal.timeout(timeoutMs) });
  return { status: res.status, body: await res.text() };
}

export interface LoadResult {
  sent: number;
  ok: number;
  /** Answers other than 200, and requests that got no answer ('error'), by status. */
  failures: Record<string, number>;
}

/**
 * Sends GETs of `path` round-robin to `gateways` with `concurrency` in flight until `n` are sent or `stop()` is true.
 */
export async function load(
  gateways: string[],
  path: string,
  token: string,
  opts: { n?: number; stop?: () => boolean; concurrency?: number },
) {
  const r: LoadResult = { sent: 0, ok: 0, failures: {} };
  const more = () => (opts.n === undefined ? !opts.stop?.() : r.sent < opts.n);
  const worker = async () => {
    while (more()) {
      const url = `${gateways[r.sent % gateways.length]}${path}`;
      r.sent++;
      const status = await get(url, token).then(
        (x) => String(x.status),
        (err: Error & { cause?: { code?: string } }) => `error ${err.cause?.code ?? err.name}`,
      );
      if (status === '200') r.ok++;
      else r.failures[status] = (r.failures[status] ?? 0) + 1;
    }
  };
  await Promise.all(Array.from({ length: opts.concurrency ?? 4 }, worker));
  return r;
}

export const failedCount = (r: LoadResult) => r.sent - r.ok;
export const describeLoad = (r: LoadResult) =>
  `${r.ok}/${r.sent} answered 200${failedCount(r) ? ` (failures by status: ${JSON.stringify(r.failures)})` : ''}`;

/** Sums the gateways' stratum_gateway_upstream_requests_total by replica URL. */
export async function replicaCounts(metricsUrls: string[]): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  for (const url of metricsUrls) {
    const { body } = await get(url);
    for (const m of body.matchAll(/^stratum_gateway_upstream_requests_total\{([^}]*)\} (\d+(?:\.\d+)?)$/gm)) {
      const replica = /replica="([^"]+)"/.exec(m[1] ?? '')?.[1];
      if (replica) counts[replica] = (counts[replica] ?? 0) + Number(m[2]);
    }
  }
  return counts;
}

/** The machine's RabbitMQ (what the forwarder at 10.89.18.1:5672 leads to). */
export const AMQP_URL = 'amqp://guest:guest@127.0.0.1:5672';

/**
 * Publishes NOTIFICATIONS Nova notifications (the captured samples, deploy/samples, cycled with fresh message_ids) to
 * this run's nova exchange, as oslo.messaging does (topic `notifications.info`), with publisher confirms.
 * @returns their message_ids (the stored events' _id).
 */
export async function publishNotifications(bus: BusNames): Promise<string[]> {
  const manifest = readFileSync(join(ROOT, 'deploy/samples/notifications.manifest.jsonl'), 'utf8').trim().split('\n');
  const bodies = readFileSync(join(ROOT, 'deploy/samples/notifications.jsonl'), 'utf8').trim().split('\n');
  const nova = manifest
    .map((l, i) => ({ m: JSON.parse(l) as { exchange: string; routing_key: string; message_id: string }, body: bodies[i] ?? '' }))
    .filter((x) => x.m.exchange === 'nova' && x.m.routing_key === 'notifications.info');
  if (nova.length === 0) throw new Failed('no nova notifications in deploy/samples');
  const amqp = new Connection(AMQP_URL);
  const publisher = amqp.createPublisher({ confirm: true });
  const ids: string[] = [];
  try {
    // Non-durable, as the consumer declares it (INGEST_EXCHANGES_DURABLE=false, oslo.messaging's default).
    await amqp.exchangeDeclare({ exchange: bus.novaExchange, type: 'topic', durable: false });
    for (let i = 0; i < NOTIFICATIONS; i++) {
      const sample = nova[i % nova.length];
      if (!sample) continue;
      const id = randomUUID();
      ids.push(id);
      await publisher.send(
        {
          exchange: bus.novaExchange,
          routingKey: 'notifications.info',
          contentType: 'application/json',
          contentEncoding: 'utf-8',
          durable: true,
        },
        Buffer.from(sample.body.split(sample.m.message_id).join(id)),
      );
    }
  } finally {
    await publisher.close();
    await amqp.close();
  }
  return ids;
}
