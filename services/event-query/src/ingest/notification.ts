/**
 * Minimal oslo.messaging notification → event conversion, following the trait tables of Ceilometer's shipped
 * `event_definitions.yaml` (reference/events.md §11-§12) for the families Stratum serves. The full definitions-file
 * converter (JSONPath, plugins, last match wins) replaces this in the ingestion work; the output shape is the same.
 */
import { canonicalTimestamp, type Event, type Trait, type TraitType } from '@stratum/traits';

/** The decoded message inside either envelope. */
export interface Notification {
  message_id: string;
  event_type: string;
  publisher_id: string | null;
  priority: string;
  timestamp: string;
  payload: Record<string, unknown>;
  [context: `_context_${string}`]: unknown;
}

/**
 * Decodes an AMQP body: the oslo.messaging 2.0 envelope (`{"oslo.version","oslo.message":"<json text>"}`) or the
 * plain message dict.
 * @throws Error naming what is missing when the body is not a notification.
 */
export function parseNotification(body: unknown): Notification {
  let msg = body as Record<string, unknown>;
  if (msg && typeof msg === 'object' && typeof msg['oslo.message'] === 'string') {
    msg = JSON.parse(msg['oslo.message'] as string) as Record<string, unknown>;
  }
  if (!msg || typeof msg !== 'object') throw new Error('not a JSON object');
  for (const key of ['message_id', 'event_type', 'timestamp'] as const) {
    if (typeof msg[key] !== 'string' || msg[key] === '') throw new Error(`missing ${key}`);
  }
  if (msg.payload === null || typeof msg.payload !== 'object') throw new Error('missing payload');
  return msg as unknown as Notification;
}

type Json = unknown;

/** Python `str()` of a JSON scalar, as Ceilometer stores text traits. */
function pyStr(v: Json): string {
  if (v === true) return 'True';
  if (v === false) return 'False';
  return typeof v === 'string' ? v : JSON.stringify(v);
}

function get(obj: Json, path: string): Json {
  let cur: Json = obj;
  for (const part of path.split('.')) {
    if (cur === null || typeof cur !== 'object') return undefined;
    cur = (cur as Record<string, Json>)[part];
  }
  return cur;
}

/** First non-null of several values (Ceilometer's `fields` list). */
function first(...values: Json[]): Json {
  return values.find((v) => v !== undefined && v !== null);
}

class TraitList {
  private readonly traits = new Map<string, Trait>();

  /** Adds (or replaces) a trait, converting as Ceilometer's `Trait.convert_value`: None → dropped, '' → dropped unless text. */
  set(name: string, type: TraitType, value: Json): void {
    if (value === undefined || value === null) return;
    if (value === '' && type !== 'String') return;
    let text: string | undefined;
    switch (type) {
      case 'integer': {
        const n = typeof value === 'number' ? value : Number(value);
        text = Number.isFinite(n) ? String(Math.trunc(n)) : undefined;
        break;
      }
      case 'float': {
        const n = typeof value === 'number' ? value : Number(value);
        text = Number.isFinite(n) ? String(n) : undefined;
        break;
      }
      case 'datetime':
        text = typeof value === 'string' ? canonicalTimestamp(value) : undefined;
        break;
      default:
        text = pyStr(value).slice(0, 255);
    }
    if (text === undefined) return;
    this.traits.delete(name);
    this.traits.set(name, { name, type, value: text });
  }

  list(): Trait[] {
    return [...this.traits.values()];
  }
}

const NEUTRON_KINDS = ['network', 'subnet', 'port', 'router', 'floatingip', 'security_group', 'security_group_rule'];

/**
 * Converts a notification into an event: default traits (service, request_id, project_id, user_id, tenant_id),
 * then the family's traits. `generated` is the notification's emission time, normalised to naive UTC.
 * @throws Error when the timestamp cannot be parsed.
 */
export function notificationToEvent(n: Notification): Event {
  const generated = canonicalTimestamp(n.timestamp);
  if (!generated) throw new Error(`unparsable timestamp ${n.timestamp}`);
  const p = n.payload;
  const ctx = (k: string) => n[`_context_${k}`];
  const t = new TraitList();
  const type = n.event_type;

  // Ceilometer's default traits.
  t.set('service', 'String', n.publisher_id);
  t.set('request_id', 'String', ctx('request_id'));
  t.set('project_id', 'String', first(p.tenant_id, ctx('project_id'), ctx('tenant')));
  t.set('user_id', 'String', first(p.user_id, ctx('user_id'), ctx('user')));
  t.set('tenant_id', 'String', first(p.tenant_id, ctx('project_id'), ctx('tenant')));

  const family = type.split('.')[0] as string;
  if (type.startsWith('compute.instance.')) {
    t.set('instance_id', 'String', p.instance_id);
    t.set('display_name', 'String', p.display_name);
    t.set('resource_id', 'String', p.instance_id);
    t.set('resource_name', 'String', p.display_name);
    t.set('host', 'String', n.publisher_id?.split('.').slice(1).join('.') || undefined);
    t.set('service', 'String', n.publisher_id?.split('.')[0]);
    t.set('state', 'String', p.state);
    t.set('instance_type', 'String', p.instance_type);
    t.set('instance_type_id', 'String', p.instance_type_id);
    t.set('instance_flavor_id', 'String', p.instance_flavor_id);
    t.set('memory_mb', 'integer', p.memory_mb);
    t.set('disk_gb', 'integer', p.disk_gb);
    t.set('root_gb', 'integer', p.root_gb);
    t.set('ephemeral_gb', 'integer', p.ephemeral_gb);
    t.set('vcpus', 'integer', p.vcpus);
    t.set('created_at', 'datetime', p.created_at);
    t.set('launched_at', 'datetime', p.launched_at);
    t.set('deleted_at', 'datetime', p.deleted_at);
  } else if (NEUTRON_KINDS.includes(family)) {
    t.set('user_id', 'String', ctx('user_id'));
    t.set('project_id', 'String', first(ctx('tenant_id'), ctx('project_id')));
    const obj = p[family] as Record<string, Json> | undefined;
    t.set('name', 'String', obj?.name);
    t.set('resource_id', 'String', first(obj?.id, p.id, p[`${family}_id`]));
    t.set('status', 'String', obj?.status);
  } else if (family === 'image') {
    t.set('project_id', 'String', p.owner);
    t.set('user_id', 'String', p.owner);
    t.set('resource_id', 'String', p.id);
    t.set('name', 'String', p.name);
    t.set('resource_name', 'String', p.name);
    t.set('status', 'String', p.status);
    t.set('created_at', 'datetime', p.created_at);
    t.set('deleted_at', 'datetime', p.deleted_at);
    t.set('size', 'integer', p.size);
  } else if (family === 'volume' || family === 'snapshot') {
    t.set('user_id', 'String', p.user_id);
    t.set('project_id', 'String', p.tenant_id);
    t.set('resource_id', 'String', family === 'volume' ? p.volume_id : p.snapshot_id);
    t.set('display_name', 'String', p.display_name);
    t.set('status', 'String', p.status);
    t.set('created_at', 'datetime', p.created_at);
    t.set('size', 'integer', p.size);
    t.set('type', 'String', p.volume_type);
    if (family === 'snapshot') t.set('volume_id', 'String', p.volume_id);
  } else if (family === 'volume_type') {
    // No Ceilometer definition; the type's id and name are what the department quota registry needs.
    t.set('resource_id', 'String', get(p, 'volume_types.id'));
    t.set('name', 'String', get(p, 'volume_types.name'));
  } else if (type.startsWith('identity.') && typeof p.resource_info === 'string') {
    t.set('resource_id', 'String', p.resource_info);
    t.set('initiator_id', 'String', get(p, 'initiator.id'));
    t.set('project_id', 'String', get(p, 'initiator.project_id'));
    t.set('domain_id', 'String', get(p, 'initiator.domain_id'));
  } else if (type.startsWith('octavia.loadbalancer.')) {
    t.set('resource_id', 'String', p.loadbalancer_id);
    t.set('project_id', 'String', p.project_id);
    t.set('name', 'String', p.name);
    t.set('vip_address', 'String', p.vip_address);
  }

  return { message_id: n.message_id, event_type: type, generated, traits: t.list(), raw: {} };
}
