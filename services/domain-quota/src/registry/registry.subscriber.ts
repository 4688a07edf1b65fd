/**
 * Keeps the registry following the cloud: reads the identity and volume type events the event service forwards
 * (exchange REGISTRY_EVENTS_EXCHANGE, by default `stratum.events`; body = the stored event) from one durable queue and
 * applies them through RegistryService, so events obey the admin endpoints' rules.
 *
 * - `identity.domain.created|updated` → the department (its name from Keystone when configured, else its id);
 *   `identity.domain.deleted` → the department is deleted (refused while it has projects: logged, not retried).
 * - `identity.project.created|updated` → the project and its department, from Keystone (`GET /v3/projects/{id}`):
 *   Keystone's notifications carry only the id. Without Keystone these are skipped (use the admin endpoint).
 *   `identity.project.deleted` → its allocations are released, then it is removed.
 * - `volume_type.create|update|delete` → the volume types of REGISTRY_VOLUME_TYPE_REGION (or the only region).
 *
 * Delivery is at least once and every change is idempotent, so a redelivered event does no harm. A fault that
 * passes (store, Keystone or contended records) requeues the message after a pause; a refusal (e.g. a volume type
 * whose quotas are still held) is logged and acknowledged, since redelivery cannot change it.
 */
import { AppError, isStoreDown } from '@stratum/http-kit';
import { type KeystoneClient, KeystoneError } from '@stratum/keystone';
import { RevisionConflictError } from '@stratum/revisions';
import { type Event, EventSchema } from '@stratum/traits';
import type { Logger } from 'pino';
import { type AsyncMessage, type Connection, type Consumer, ConsumerStatus } from 'rabbitmq-client';
import type { AuditActor } from '../audit/audit.log';
import type { RegistryRepository } from './registry.repository';
import type { RegistryService } from './registry.service';

/** The forwarded event types this subscriber binds. */
export const REGISTRY_EVENT_TYPES = ['identity.project.*', 'identity.domain.*', 'volume_type.*'] as const;

export interface RegistrySubscriberOptions {
  /** The forward exchange (EVENTS_FORWARD_EXCHANGE unless configured otherwise). */
  exchange: string;
  queue: string;
  /** See REGISTRY_VOLUME_TYPE_REGION. */
  volumeTypeRegion: string;
  /** Pause before a message that met a passing fault is redelivered, in milliseconds. */
  retryDelayMs?: number;
}

export interface RegistrySubscriberStats {
  ready: number;
  received: number;
  applied: number;
  skipped: number;
  retried: number;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const traitOf = (e: Event, name: string) => e.traits.find((t) => t.name === name)?.value;

/** True for faults that pass by themselves, so the event is worth redelivering. */
function isPassing(err: unknown): boolean {
  if (err instanceof KeystoneError) return err.status === 0 || err.status >= 500 || err.status === 401 || err.status === 403;
  return isStoreDown(err) || err instanceof RevisionConflictError;
}

export class RegistrySubscriber {
  readonly stats: RegistrySubscriberStats = { ready: 0, received: 0, applied: 0, skipped: 0, retried: 0 };
  private consumer?: Consumer;

  constructor(
    private readonly connection: Connection,
    private readonly service: RegistryService,
    private readonly repo: RegistryRepository,
    private readonly keystone: KeystoneClient | undefined,
    private readonly opts: RegistrySubscriberOptions,
    private readonly logger: Logger,
  ) {}

  /** Declares the queue and its bindings and starts consuming; resolves once the consumer is ready. */
  async start(): Promise<void> {
    this.consumer = this.connection.createConsumer(
      {
        queue: this.opts.queue,
        queueOptions: { durable: true },
        qos: { prefetchCount: 1 },
        concurrency: 1,
        exchanges: [{ exchange: this.opts.exchange, type: 'topic', durable: true }],
        queueBindings: REGISTRY_EVENT_TYPES.map((routingKey) => ({ exchange: this.opts.exchange, routingKey })),
        requeue: true,
      },
      (msg) => this.handle(msg),
    );
    this.consumer.on('ready', () => {
      this.stats.ready++;
    });
    this.consumer.on('error', (err) => this.logger.warn({ err: String(err) }, 'registry subscriber error'));
    await new Promise<void>((resolve) => this.consumer?.once('ready', resolve));
    this.logger.info({ queue: this.opts.queue }, 'registry subscriber ready');
  }

  async close(): Promise<void> {
    await this.consumer?.close();
  }

  private async handle(msg: AsyncMessage): Promise<ConsumerStatus> {
    this.stats.received++;
    let event: Event;
    try {
      const text = Buffer.isBuffer(msg.body)
        ? msg.body.toString('utf8')
        : typeof msg.body === 'string'
          ? msg.body
          : JSON.stringify(msg.body);
      event = EventSchema.parse(JSON.parse(text));
    } catch (err) {
      this.stats.skipped++;
      this.logger.warn({ err: String(err), routingKey: msg.routingKey }, 'forwarded message is not an event; dropped');
      return ConsumerStatus.ACK;
    }
    try {
      const outcome = await this.apply(event);
      if (outcome === 'applied') this.stats.applied++;
      else {
        this.stats.skipped++;
        this.logger.info({ event_type: event.event_type, message_id: event.message_id, reason: outcome }, 'registry event skipped');
      }
      return ConsumerStatus.ACK;
    } catch (err) {
      if (isPassing(err)) {
        this.stats.retried++;
        this.logger.warn({ err: String(err), event_type: event.event_type }, 'registry event will be retried');
        await sleep(this.opts.retryDelayMs ?? 1000);
        return ConsumerStatus.REQUEUE;
      }
      this.stats.skipped++;
      const level = err instanceof AppError ? 'warn' : 'error';
      this.logger[level]({ err: String(err), event_type: event.event_type, message_id: event.message_id }, 'registry event refused');
      return ConsumerStatus.ACK;
    }
  }

  /**
   * Applies one event to the registry.
   * @returns 'applied', or why it was skipped.
   * @throws AppError when the registry refuses it; faults of the store or of Keystone.
   */
  async apply(event: Event): Promise<string> {
    const id = traitOf(event, 'resource_id');
    if (!id) return 'no resource_id trait';
    const outcome = traitOf(event, 'outcome');
    if (outcome && outcome !== 'success') return `outcome ${outcome}`;
    const actor: AuditActor = {
      userId: traitOf(event, 'initiator_id') ?? traitOf(event, 'user_id') ?? 'keystone',
      projectId: traitOf(event, 'project_id') ?? null,
      domainId: null,
      requestId: traitOf(event, 'request_id') ?? event.message_id,
    };
    const [, kind, action] = event.event_type.split('.');
    if (event.event_type.startsWith('identity.domain.')) return this.domainEvent(id, action ?? '', actor);
    if (event.event_type.startsWith('identity.project.')) return this.projectEvent(id, action ?? '', actor);
    if (event.event_type.startsWith('volume_type.') && event.event_type.split('.').length === 2) {
      return this.volumeTypeEvent(id, traitOf(event, 'name'), kind ?? '');
    }
    return `not followed: ${event.event_type}`;
  }

  private async domainEvent(domainId: string, action: string, actor: AuditActor): Promise<string> {
    if (action === 'deleted') {
      if (!(await this.repo.findDepartment(domainId))) return 'unknown domain';
      await this.service.deleteDepartment(domainId, actor);
      return 'applied';
    }
    if (action !== 'created' && action !== 'updated') return `action ${action}`;
    if (this.keystone) {
      const d = await this.keystone.getDomain(domainId);
      if (!d) return 'no longer in Keystone';
      await this.service.putDepartment(domainId, d.name);
      return 'applied';
    }
    if (await this.repo.findDepartment(domainId)) return 'no Keystone to read the new name from';
    await this.service.putDepartment(domainId, domainId);
    return 'applied';
  }

  private async projectEvent(projectId: string, action: string, actor: AuditActor): Promise<string> {
    if (action === 'deleted') {
      if (!(await this.repo.findProject(projectId))) return 'unknown project';
      await this.service.deleteProject(projectId, actor);
      return 'applied';
    }
    if (action !== 'created' && action !== 'updated') return `action ${action}`;
    if (!this.keystone) return 'no Keystone to read the project’s domain from (KEYSTONE_URL); register it with the admin endpoint';
    const p = await this.keystone.getProject(projectId);
    if (!p) return 'no longer in Keystone';
    if (p.is_domain) return 'a project acting as a domain';
    if (!(await this.repo.findDepartment(p.domain_id))) {
      const d = await this.keystone.getDomain(p.domain_id);
      await this.service.putDepartment(p.domain_id, d?.name ?? p.domain_id);
    }
    await this.service.putProject(projectId, { domain_id: p.domain_id, name: p.name });
    return 'applied';
  }

  private async volumeTypeEvent(typeId: string, name: string | undefined, action: string): Promise<string> {
    if (!name) return 'no name trait';
    const region = await this.volumeTypeRegion();
    if (!region) return 'no region for volume types (set REGISTRY_VOLUME_TYPE_REGION)';
    // An unknown region is the service's 404, logged as a refusal.
    if (action === 'create') await this.service.addVolumeType(region, name, typeId);
    else if (action === 'update') await this.service.renameVolumeType(region, typeId, name);
    else if (action === 'delete') await this.service.removeVolumeType(region, name, typeId);
    else return `action ${action}`;
    return 'applied';
  }

  private async volumeTypeRegion(): Promise<string | undefined> {
    if (this.opts.volumeTypeRegion) return this.opts.volumeTypeRegion;
    const regions = await this.repo.listRegions();
    return regions.length === 1 ? regions[0]?._id : undefined;
  }
}
