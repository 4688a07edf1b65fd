/**
 * The captured notifications the ingestion benchmarks publish (deploy/samples/notifications.jsonl, one AMQP body a
 * line, and its manifest: the exchange and routing key each was captured on), and the event-query environment that
 * consumes them from a queue of the run's own.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from '@stratum/store-runtime';

/** Where one captured body was published. */
export interface CapturedRoute {
  exchange: string;
  routing_key: string;
  message_id: string;
  timestamp: string;
}

/** The captured bodies (JSON text), their routes (same order) and the exchanges they use. */
export function capturedNotifications(): { bodies: string[]; manifest: CapturedRoute[]; exchanges: string[] } {
  const bodies = readFileSync(join(ROOT, 'deploy/samples/notifications.jsonl'), 'utf8').trim().split('\n');
  const manifest = readFileSync(join(ROOT, 'deploy/samples/notifications.manifest.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as CapturedRoute);
  return { bodies, manifest, exchanges: [...new Set(manifest.map((m) => m.exchange))] };
}

/**
 * event-query's consumer settings for a bench run: its own `queue` (and dead-letter queue) bound to the captured
 * `exchanges` renamed with `prefix` (so a run never takes another's messages), no forwarding.
 */
export function consumerEnv(amqpUrl: string, queue: string, prefix: string, exchanges: string[]): Record<string, string> {
  return {
    INGEST_AMQP_URL: amqpUrl,
    INGEST_QUEUE: queue,
    INGEST_DEAD_LETTER_QUEUE: `${queue}.dead`,
    INGEST_EXCHANGES: exchanges.map((e) => prefix + e).join(','),
    INGEST_TOPICS: 'notifications,versioned_notifications',
    EVENT_FORWARD_TYPES: '',
  };
}
