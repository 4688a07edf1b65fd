/**
 * A deterministic, realistic event population for the million-event benchmark: resources owned by projects, each
 * emitting the event types of its family over a time span, with the trait sets Ceilometer's shipped
 * event_definitions.yaml gives those families (docs/upstream/events.md §12): compute.instance.*, port.*, image.*,
 * volume.*. Same seed → same events, so reruns measure the same data.
 */
import type { Event, Trait } from '@stratum/traits';

export interface PopulationOptions {
  events: number;
  resources: number;
  projects: number;
  days: number;
  /** Last day of the span (UTC, exclusive), ISO date. */
  until: string;
  seed: number;
}

/** mulberry32: small, fast, good enough for spreading test data. */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

type Family = 'compute' | 'port' | 'volume' | 'image';

/** Family shares of resources, and each family's event types with relative frequencies. */
const FAMILIES: { family: Family; share: number; types: [string, number][] }[] = [
  {
    family: 'compute',
    share: 0.4,
    types: [
      ['compute.instance.create.start', 1],
      ['compute.instance.create.end', 1],
      ['compute.instance.update', 6],
      ['compute.instance.exists', 8],
      ['compute.instance.power_off.start', 1],
      ['compute.instance.power_off.end', 1],
      ['compute.instance.power_on.start', 1],
      ['compute.instance.power_on.end', 1],
      ['compute.instance.delete.start', 0.3],
      ['compute.instance.delete.end', 0.3],
    ],
  },
  {
    family: 'port',
    share: 0.3,
    types: [
      ['port.create.start', 1],
      ['port.create.end', 1],
      ['port.update.start', 6],
      ['port.update.end', 6],
      ['port.delete.start', 0.3],
      ['port.delete.end', 0.3],
    ],
  },
  {
    family: 'volume',
    share: 0.2,
    types: [
      ['volume.create.start', 1],
      ['volume.create.end', 1],
      ['volume.attach.start', 3],
      ['volume.attach.end', 3],
      ['volume.detach.start', 3],
      ['volume.detach.end', 3],
      ['volume.exists', 6],
      ['volume.resize.end', 0.5],
      ['volume.delete.end', 0.3],
    ],
  },
  {
    family: 'image',
    share: 0.1,
    types: [
      ['image.create', 1],
      ['image.upload', 1],
      ['image.update', 4],
      ['image.send', 6],
      ['image.delete', 0.3],
    ],
  },
];

const FLAVORS = [
  { name: 'm1.tiny', id: '1', memory: 512, disk: 1, vcpus: 1 },
  { name: 'm1.small', id: '2', memory: 2048, disk: 20, vcpus: 1 },
  { name: 'm1.medium', id: '3', memory: 4096, disk: 40, vcpus: 2 },
  { name: 'm1.large', id: '4', memory: 8192, disk: 80, vcpus: 4 },
];

interface Resource {
  id: string;
  family: Family;
  project: string;
  user: string;
  host: string;
  name: string;
  flavor: (typeof FLAVORS)[number];
  created: string;
  size: number;
}

/** A uuid-shaped id from the generator (deterministic, unlike randomUUID). */
function uuidFrom(next: () => number): string {
  const hex = Array.from({ length: 32 }, () => Math.floor(next() * 16).toString(16)).join('');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-a${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

function pick<T>(next: () => number, items: readonly T[]): T {
  return items[Math.floor(next() * items.length)] as T;
}

function pickWeighted(next: () => number, items: [string, number][]): string {
  const total = items.reduce((s, [, w]) => s + w, 0);
  let r = next() * total;
  for (const [v, w] of items) {
    r -= w;
    if (r <= 0) return v;
  }
  return (items.at(-1) as [string, number])[0];
}

const text = (name: string, value: string): Trait => ({ name, type: 'String', value });
const int = (name: string, value: number): Trait => ({ name, type: 'integer', value: String(value) });
const datetime = (name: string, value: string): Trait => ({ name, type: 'datetime', value });

/** The population: projects, resources and a generator of `events` events in batches. */
export class Population {
  readonly projects: string[];
  readonly resources: Resource[];
  private readonly next: () => number;
  private readonly start: number;
  private readonly spanMs: number;

  constructor(readonly o: PopulationOptions) {
    this.next = rng(o.seed);
    this.projects = Array.from({ length: o.projects }, () => uuidFrom(this.next).replace(/-/g, ''));
    const users = this.projects.map(() => uuidFrom(this.next).replace(/-/g, ''));
    this.spanMs = o.days * 86_400_000;
    this.start = Date.parse(`${o.until}T00:00:00Z`) - this.spanMs;
    this.resources = Array.from({ length: o.resources }, (_, i) => {
      let r = this.next();
      const family = (
        FAMILIES.find((f) => {
          r -= f.share;
          return r <= 0;
        }) ?? FAMILIES[0]
      )?.family as Family;
      const p = i % o.projects;
      return {
        id: uuidFrom(this.next),
        family,
        project: this.projects[p] as string,
        user: users[p] as string,
        host: `compute-${String(Math.floor(this.next() * 100)).padStart(3, '0')}`,
        name: `${family}-${i}`,
        flavor: pick(this.next, FLAVORS),
        created: this.timestamp(this.start + Math.floor(this.next() * 86_400_000)),
        size: 1 + Math.floor(this.next() * 500),
      };
    });
  }

  private timestamp(ms: number): string {
    const micros = String(Math.floor(this.next() * 1e6)).padStart(6, '0');
    return `${new Date(ms).toISOString().slice(0, 19)}.${micros}`;
  }

  /** One event of `r`, at a uniformly random time in the span. */
  event(r: Resource): Event {
    const family = FAMILIES.find((f) => f.family === r.family) as (typeof FAMILIES)[number];
    const type = pickWeighted(this.next, family.types);
    const generated = this.timestamp(this.start + Math.floor(this.next() * this.spanMs));
    const request = `req-${uuidFrom(this.next)}`;
    const common = [text('request_id', request), text('project_id', r.project), text('tenant_id', r.project)];
    let traits: Trait[];
    switch (r.family) {
      case 'compute':
        traits = [
          text('service', 'compute'),
          ...common,
          text('user_id', r.user),
          text('instance_id', r.id),
          text('display_name', r.name),
          text('resource_id', r.id),
          text('cell_name', ''),
          text('host', r.host),
          text('state', type.includes('power_off') ? 'stopped' : 'active'),
          datetime('launched_at', r.created),
          int('memory_mb', r.flavor.memory),
          int('disk_gb', r.flavor.disk),
          int('root_gb', r.flavor.disk),
          int('ephemeral_gb', 0),
          int('vcpus', r.flavor.vcpus),
          text('instance_type_id', r.flavor.id),
          text('instance_flavor_id', r.flavor.id),
          text('instance_type', r.flavor.name),
          text('os_architecture', 'x86_64'),
          text('os_distro', 'ubuntu'),
          text('os_version', '24.04'),
          ...(type === 'compute.instance.create.end' ? [text('availability_zone', 'nova')] : []),
        ];
        break;
      case 'port':
        traits = [
          text('service', `network.${r.host}`),
          ...common,
          text('user_id', r.user),
          text('name', r.name),
          text('resource_id', r.id),
        ];
        break;
      case 'volume':
        traits = [
          text('service', `volume.${r.host}@lvm`),
          ...common,
          text('user_id', r.user),
          text('availability_zone', 'nova'),
          text('display_name', r.name),
          text('replication_status', 'disabled'),
          text('status', type.includes('attach') ? 'in-use' : 'available'),
          datetime('created_at', r.created),
          text('resource_id', r.id),
          text('host', `${r.host}@lvm#lvm`),
          int('size', r.size),
          text('type', '__DEFAULT__'),
        ];
        break;
      default:
        traits = [
          text('service', 'image.localhost'),
          ...common,
          text('resource_id', r.id),
          text('name', `${r.name}.qcow2`),
          text('status', 'active'),
          datetime('created_at', r.created),
          text('user_id', r.project),
          int('size', r.size * 1_048_576),
        ];
    }
    return { message_id: uuidFrom(this.next), event_type: type, generated, traits, raw: {} };
  }

  /** Yields the population's events in batches of `size`, each resource getting an equal share. */
  *batches(size: number): Generator<Event[]> {
    let batch: Event[] = [];
    for (let i = 0; i < this.o.events; i++) {
      batch.push(this.event(this.resources[i % this.resources.length] as Resource));
      if (batch.length === size) {
        yield batch;
        batch = [];
      }
    }
    if (batch.length > 0) yield batch;
  }
}
