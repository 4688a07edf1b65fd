/**
 * event-query settings, from the environment, parsed once.
 */

import { resolve } from 'node:path';
import { BaseServiceEnv, parseConfig } from '@stratum/http-kit';
import { EVENTS_FORWARD_EXCHANGE } from '@stratum/traits';
import { z } from 'zod';

const list = (dflt: string) =>
  z
    .string()
    .default(dflt)
    .transform((v) =>
      v
        .split(',')
        .map((x) => x.trim())
        .filter((x) => x !== ''),
    );

/** The definitions file shipped with the service. */
export const SHIPPED_DEFINITIONS = resolve(__dirname, '..', 'etc', 'event_definitions.yaml');

export const EventQueryEnv = BaseServiceEnv.extend({
  /** Listen port. */
  PORT: z.coerce.number().int().min(0).max(65535).default(8781),
  /**
   * oslo.policy-style policy file (YAML or JSON) overriding the RBAC rules (`[oslo_policy] policy_file`); '' = the
   * defaults. Read once at start: a bad file stops the service. Every rule is listed in etc/policy.yaml.sample.
   */
  POLICY_FILE: z.string().default(''),
  /** Rows returned when a list gives no limit (Panko `[api] default_api_return_limit`). */
  EVENTS_DEFAULT_LIMIT: z.coerce.number().int().min(1).default(100),
  /** Largest limit a client may ask for; above it the request is a 400. */
  EVENTS_MAX_LIMIT: z.coerce.number().int().min(1).default(1000),
  /**
   * Server-side time limit of one read (MongoDB `maxTimeMS`); past it the request is a 503. 0 = none.
   * Below the gateway's UPSTREAM_TIMEOUT_MS (30 s), so the client gets this service's answer, not a 504.
   */
  EVENTS_QUERY_TIMEOUT_MS: z.coerce.number().int().min(0).default(25_000),

  /** Ceilometer-format definitions (`[event] definitions_cfg_file`); Ceilometer's own file works unchanged. */
  EVENT_DEFINITIONS_FILE: z.string().min(1).default(SHIPPED_DEFINITIONS),
  /** `[event] drop_unmatched_notifications`: false gives unmatched types the default traits. */
  EVENT_DROP_UNMATCHED: z.stringbool().default(false),
  /** `[event] store_raw`: priorities (info, error) whose whole notification is kept as `raw`. */
  EVENT_STORE_RAW: list(''),
  /** `[publisher] telemetry_secret` of the Ceilometer that publishes here; '' accepts unsigned events. */
  TELEMETRY_SECRET: z.string().default(''),

  /** Largest request body (express/bytes syntax); a Ceilometer `http://` batch can be large. */
  INGEST_HTTP_BODY_LIMIT: z.string().default('10mb'),
  /** RabbitMQ URL of the notification bus (`amqp://user:pass@host:5672/vhost`); unset = no AMQP ingestion. */
  INGEST_AMQP_URL: z.string().default(''),
  INGEST_EXCHANGES: list('nova,glance,neutron,openstack,cinder,keystone,octavia,heat,stratum'),
  INGEST_TOPICS: list('notifications'),
  INGEST_QUEUE: z.string().min(1).default('stratum.notifications'),
  INGEST_DEAD_LETTER_QUEUE: z.string().min(1).default('stratum.notifications.dead'),
  /** Exchange and topic of Ceilometer's `notifier://` event publisher; '' disables the binding. */
  INGEST_CEILOMETER_EXCHANGE: z.string().default('ceilometer'),
  INGEST_CEILOMETER_TOPIC: z.string().min(1).default('event'),
  /** oslo.messaging `amqp_durable_queues`: declare the service exchanges durable (must match the publishers). */
  INGEST_EXCHANGES_DURABLE: z.stringbool().default(false),
  INGEST_PREFETCH: z.coerce.number().int().min(1).max(65535).default(1000),
  INGEST_BATCH_SIZE: z.coerce.number().int().min(1).default(250),
  INGEST_BATCH_WAIT_MS: z.coerce.number().int().min(1).default(50),
  INGEST_MAX_IN_FLIGHT: z.coerce.number().int().min(1).default(4),
  /** Event types (fnmatch globs) published to EVENT_FORWARD_EXCHANGE after storing; '' = none. */
  EVENT_FORWARD_TYPES: list('identity.project.*,identity.domain.*,volume_type.*'),
  /** Durable topic exchange of forwarded events (the department quota service's REGISTRY_EVENTS_EXCHANGE). */
  EVENT_FORWARD_EXCHANGE: z.string().min(1).default(EVENTS_FORWARD_EXCHANGE),

  /** `[database] event_time_to_live` in seconds; -1 keeps events forever. */
  EVENT_TIME_TO_LIVE: z.coerce.number().int().min(-1).default(-1),
  /** How often the process runs the expirer, in seconds; 0 = never (run `pnpm events expire` from cron instead). */
  EVENT_EXPIRER_INTERVAL_S: z.coerce.number().int().min(0).default(0),
  /** Events deleted per expirer batch (Panko's `events_delete_batch_size`, but bounded by default). */
  EVENT_EXPIRER_BATCH_SIZE: z.coerce.number().int().min(1).default(1000),
});
export type EventQueryConfig = Readonly<z.infer<typeof EventQueryEnv>>;

export function loadConfig(env: NodeJS.ProcessEnv = process.env): EventQueryConfig {
  return parseConfig(EventQueryEnv, env);
}
