/**
 * Emits the audit log as notifications for the event service (docs/upstream/domain-quota.md §6.8): each entry
 * becomes one oslo.messaging v2 notification `domain_quota.update` with a CADF activity payload (as Keystone's
 * `notification_format = cadf`), published with confirms to AUDIT_NOTIFICATION_EXCHANGE, routing key
 * `notifications.info`, and only then marked published (a transactional outbox: the entry is written with the
 * change, the notification follows). The notification's message_id is the entry's `_id`, so a notification sent
 * twice (a crash between the publish and the mark, or two replicas) is stored once by the event service.
 */
import { hostname } from 'node:os';
import { FIXED_ITEMS, VOLUME_TYPE_ITEMS } from '@stratum/quota-items';
import type { Logger } from 'pino';
import type { Publisher } from 'rabbitmq-client';
import type { AuditEntry, AuditLog } from './audit.log';

export const AUDIT_EVENT_TYPE = 'domain_quota.update';
const BATCH = 100;

/** The unit of an item (`count`, `MiB`, `GiB`, `cores`), or undefined for a name the catalogue does not know. */
function unitOf(item: string | null): string | undefined {
  if (!item) return undefined;
  const fixed = Object.hasOwn(FIXED_ITEMS, item) ? FIXED_ITEMS[item] : undefined;
  if (fixed) return fixed.unit;
  return Object.entries(VOLUME_TYPE_ITEMS).find(([prefix]) => item.startsWith(prefix))?.[1].unit;
}

/** oslo's timestamp format: `YYYY-MM-DD hh:mm:ss.ffffff` (UTC). */
const osloTime = (iso: string) => `${iso.replace('T', ' ').replace('Z', '')}000`;

/** The oslo.messaging v2 envelope of one audit entry. */
export function auditNotification(e: AuditEntry, publisherId: string): { 'oslo.version': string; 'oslo.message': string } {
  const payload = {
    typeURI: 'http://schemas.dmtf.org/cloud/audit/1.0/event',
    eventType: 'activity',
    id: e._id,
    eventTime: e.at.replace('Z', '+0000'),
    action: 'update',
    outcome: e.outcome === 'accepted' ? 'success' : 'failure',
    observer: { id: 'stratum-domain-quota', typeURI: 'service/quota' },
    initiator: {
      id: e.user_id,
      typeURI: 'service/security/account/user',
      user_id: e.user_id,
      project_id: e.actor_project_id,
      domain_id: e.actor_domain_id,
      request_id: e.request_id,
    },
    target: {
      id: e.project_id ?? e.domain_id,
      typeURI: e.project_id ? 'data/quota/project' : 'data/quota/domain',
      domain_id: e.domain_id,
      ...(e.project_id ? { project_id: e.project_id } : {}),
    },
    quota: { region: e.region, item: e.item, old: e.old, new: e.new, unit: unitOf(e.item) },
    ...(e.outcome === 'refused'
      ? { reason: { reasonType: 'HTTP', reasonCode: String(e.status ?? ''), detail: e.reason, message: e.message } }
      : {}),
  };
  const message = {
    message_id: e._id,
    publisher_id: publisherId,
    event_type: AUDIT_EVENT_TYPE,
    priority: 'INFO',
    payload,
    timestamp: osloTime(e.at),
  };
  return { 'oslo.version': '2.0', 'oslo.message': JSON.stringify(message) };
}

export class AuditPublisher {
  private timer?: NodeJS.Timeout;
  private running: Promise<void> | null = null;
  private readonly publisherId = `domain_quota.${hostname()}`;
  /** Entries published since start. */
  published = 0;

  constructor(
    private readonly audit: AuditLog,
    private readonly publisher: Publisher,
    private readonly exchange: string,
    private readonly intervalMs: number,
    private readonly logger: Logger,
  ) {}

  /** Publishes what is pending now and then every `intervalMs`; a failed round is retried on the next one. */
  start(): void {
    this.timer = setInterval(() => this.kick(), this.intervalMs);
    this.timer.unref();
    this.kick();
  }

  /** Starts a round unless one is running. */
  kick(): void {
    this.running ??= this.publishPending()
      .then(() => undefined)
      .catch((err) => this.logger.warn({ err: String(err) }, 'audit notifications not published; retrying'))
      .finally(() => {
        this.running = null;
      });
  }

  /** Publishes every unpublished entry, in batches. @returns how many were published. */
  async publishPending(): Promise<number> {
    let total = 0;
    for (;;) {
      const entries = await this.audit.unpublished(BATCH);
      if (entries.length === 0) return total;
      for (const e of entries) {
        await this.publisher.send(
          { exchange: this.exchange, routingKey: 'notifications.info', durable: true, contentType: 'application/json', messageId: e._id },
          JSON.stringify(auditNotification(e, this.publisherId)),
        );
      }
      await this.audit.markPublished(entries.map((e) => e._id));
      total += entries.length;
      this.published += entries.length;
    }
  }

  async close(): Promise<void> {
    clearInterval(this.timer);
    await this.running;
  }
}
