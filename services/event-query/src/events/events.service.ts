/**
 * Event reads (ids as in docs/api/events.md): one event by id (A1), the complex query (A2), the list (A3), event
 * types, trait descriptions and trait values; every one authorized and scoped by events.policy.ts.
 */
import type { Identity } from '@stratum/identity';
import type { Trait } from '@stratum/traits';
import type { Filter, Sort } from 'mongodb';
import * as errors from '../errors';
import { translateComplexFilter } from './events.complex';
import { type EventDoc, encodeTraitName, type StoredEvent, traitsOf } from './events.model';
import { afterMarker, type SortSpec, translateListSort, translateOrderBy, withTiebreak } from './events.order';
import { DEFAULT_EVENT_POLICY, type EventPolicy } from './events.policy';
import { checkTraitName, mergeAnd, type SimpleQuery, translateSimpleQuery } from './events.query';
import type { EventsRepository, TraitDescription } from './events.repository';

export interface EventLimits {
  /** Rows returned when the client gives no limit (Panko `default_api_return_limit`). */
  defaultLimit: number;
  /** Largest limit a client may ask for; above it: 400. */
  maxLimit: number;
}

/** One page of a list: the rows, and the message_id to pass as `marker` for the next page when more rows exist. */
export interface Page<T> {
  rows: T[];
  limit: number;
  next: string | undefined;
}

/** A parsed `POST /v2/query/events` body (filter and orderby already parsed from their JSON text). */
export interface ComplexQuery {
  filter: unknown;
  orderby: unknown;
  desc: boolean;
  limit: number | undefined;
  allTenants: boolean;
}

function toSort(spec: SortSpec): Sort {
  return Object.fromEntries(spec) as Sort;
}

export class EventsService {
  constructor(
    private readonly repo: EventsRepository,
    private readonly limits: EventLimits,
    private readonly policy: EventPolicy = DEFAULT_EVENT_POLICY,
  ) {}

  /**
   * A1. `allTenants` lets an admin read any project's event, as on the list.
   * @throws AppError 404 `Event <id> Not Found` when missing or not visible to the caller.
   */
  async get(identity: Identity, messageId: string, allTenants = false): Promise<StoredEvent> {
    this.policy.authorize(identity, 'telemetry:events:show');
    const doc = await this.repo.findById(messageId);
    if (!doc || !this.policy.canSee(identity, doc.project_id, allTenants)) throw errors.eventNotFound(messageId);
    return doc;
  }

  /** The effective limit. @throws AppError 400 above the configured maximum. */
  private limitOf(limit: number | undefined): number {
    if (limit === undefined) return Math.min(this.limits.defaultLimit, this.limits.maxLimit);
    if (limit > this.limits.maxLimit) {
      throw errors.limitTooLarge(limit, this.limits.maxLimit);
    }
    return limit;
  }

  /**
   * One page in `sort` order after `marker`, fetching one row more than asked to learn whether a next page exists.
   * @throws AppError 400 `Marker <id> not found.` when the marker is unknown or not visible to the caller (Panko: 500).
   */
  private async page(
    identity: Identity,
    filter: Filter<EventDoc>,
    allTenants: boolean,
    sort: SortSpec,
    limit: number,
    marker: string | undefined,
  ): Promise<Page<StoredEvent>> {
    let after = {};
    if (marker !== undefined) {
      const keys = await this.repo.sortKeysOf(marker);
      if (!keys || !this.policy.canSee(identity, keys.project_id, allTenants)) throw errors.markerNotFound(marker);
      after = afterMarker(sort, keys);
    }
    const where = mergeAnd(filter, this.policy.visibilityFilter(identity, allTenants), after) as Filter<EventDoc>;
    const rows = await this.repo.find(where, toSort(sort), limit + 1);
    const more = rows.length > limit;
    if (more) rows.length = limit;
    return { rows, limit, next: more ? rows.at(-1)?._id : undefined };
  }

  /**
   * A3: Panko's list. Default order `generated asc, message_id asc`.
   * @param sort `key[:dir]` strings, keys generated, message_id, event_type.
   */
  async list(identity: Identity, q: SimpleQuery[], limit: number | undefined, sort: string[], marker?: string): Promise<Page<StoredEvent>> {
    this.policy.authorize(identity, 'telemetry:events:index');
    const { filter, allTenants } = translateSimpleQuery(q, this.policy.unsegregated(identity));
    return this.page(identity, filter, allTenants, translateListSort(sort), this.limitOf(limit), marker);
  }

  /** A2: a complex query; default order `timestamp desc` (the `desc=false` sort mode of docs/api/events.md A2 turns it to ascending). */
  async query(identity: Identity, q: ComplexQuery): Promise<StoredEvent[]> {
    this.policy.authorize(identity, 'telemetry:events:index');
    const filter = q.filter === undefined ? {} : translateComplexFilter(q.filter, { ownProject: this.policy.nameableProject(identity) });
    const sort = q.orderby === undefined ? withTiebreak([['generated', q.desc ? -1 : 1]]) : translateOrderBy(q.orderby);
    const { rows } = await this.page(identity, filter, q.allTenants, sort, this.limitOf(q.limit), undefined);
    return rows;
  }

  /** `GET /v2/event_types`: the event types of the events the caller may see, sorted. */
  async eventTypes(identity: Identity, allTenants: boolean): Promise<string[]> {
    this.policy.authorize(identity, 'telemetry:event_types:index');
    return this.repo.eventTypes(this.policy.visibilityFilter(identity, allTenants));
  }

  /** `GET /v2/event_types/{type}/traits`: distinct trait names and types of that type (`[]` for an unknown type). */
  async traitDescriptions(identity: Identity, eventType: string, allTenants: boolean): Promise<TraitDescription[]> {
    this.policy.authorize(identity, 'telemetry:event_types:index');
    return this.repo.traitDescriptions(eventType, this.policy.visibilityFilter(identity, allTenants));
  }

  /**
   * `GET /v2/event_types/{type}/traits/{name}`: the trait's values across the visible events of that type, in time
   * order, paged like the list (Panko returned every instance unbounded).
   * @throws AppError 400 for an empty name or one with NUL (no stored trait can have it).
   */
  async traitValues(
    identity: Identity,
    eventType: string,
    name: string,
    o: { limit?: number; marker?: string; allTenants: boolean },
  ): Promise<Page<Trait>> {
    this.policy.authorize(identity, 'telemetry:event_types:index');
    checkTraitName(name, 'trait name');
    const filter = { event_type: eventType, [`t.${encodeTraitName(name)}`]: { $exists: true } } as Filter<EventDoc>;
    const page = await this.page(identity, filter, o.allTenants, withTiebreak([['generated', 1]]), this.limitOf(o.limit), o.marker);
    const rows = page.rows.flatMap((doc) => traitsOf(doc).filter((t) => t.name === name));
    return { rows, limit: page.limit, next: page.next };
  }
}
