/**
 * Event reads: one event by id (A1), the resource/complex query (A2) and the list (A3), always scoped by
 * events.policy.ts.
 */
import { AppError } from '@stratum/http-kit';
import type { Identity } from '@stratum/identity';
import { isAdmin } from '@stratum/identity';
import type { Event } from '@stratum/traits';
import type { Filter, Sort } from 'mongodb';
import { type EventDoc, toEvent } from './events.model';
import { visibilityFilter } from './events.policy';
import { type SimpleQuery, type SortSpec, translateComplexFilter, translateSimpleQuery, withTiebreak } from './events.query';
import type { EventsRepository } from './events.repository';

export interface EventLimits {
  /** Rows returned when the client gives no limit (Panko `default_api_return_limit`). */
  defaultLimit: number;
  /** Largest limit a client may ask for; above it: 400. */
  maxLimit: number;
}

const SORT_KEYS: Record<string, string> = { generated: 'generated', message_id: '_id', event_type: 'event_type' };

/**
 * AND of filters. Disjoint plain conditions are merged into one object rather than `$and`, because FerretDB pushes
 * only plain top-level conditions down to its backend (same meaning on MongoDB).
 */
function and(...parts: Filter<EventDoc>[]): Filter<EventDoc> {
  const nonEmpty = parts.filter((p) => Object.keys(p).length > 0);
  const merged: Record<string, unknown> = {};
  const rest: Filter<EventDoc>[] = [];
  for (const p of nonEmpty) {
    const keys = Object.keys(p);
    if (keys.some((k) => k.startsWith('$') || k in merged)) rest.push(p);
    else Object.assign(merged, p);
  }
  if (rest.length === 0) return merged as Filter<EventDoc>;
  return { $and: [merged as Filter<EventDoc>, ...rest] };
}

function toSort(spec: SortSpec): Sort {
  return Object.fromEntries(spec) as Sort;
}

export class EventsService {
  constructor(
    private readonly repo: EventsRepository,
    private readonly limits: EventLimits,
  ) {}

  /** A1. @throws AppError 404 `Event <id> Not Found` when missing or not visible to the caller. */
  async get(identity: Identity, messageId: string): Promise<Event> {
    const doc = await this.repo.findOne(and({ _id: messageId }, visibilityFilter(identity)));
    if (!doc) throw new AppError(404, `Event ${messageId} Not Found`);
    return toEvent(doc);
  }

  private limitOf(limit: number | undefined): number {
    if (limit === undefined) return this.limits.defaultLimit;
    if (limit > this.limits.maxLimit) {
      throw new AppError(
        400,
        `Invalid input for field/attribute limit. Value: '${limit}'. the limit may not exceed ${this.limits.maxLimit}.`,
      );
    }
    return limit;
  }

  /**
   * A3: Panko's list. Default order `generated asc, message_id asc`.
   * @param sort `key[:dir]` strings, keys generated, message_id, event_type.
   */
  async list(identity: Identity, q: SimpleQuery[], limit: number | undefined, sort: string[]): Promise<Event[]> {
    const { filter, allTenants } = translateSimpleQuery(q, isAdmin(identity));
    const spec: SortSpec = [];
    for (const s of sort) {
      const [key = '', dir = 'asc'] = s.split(':');
      const path = SORT_KEYS[key];
      if (!path) {
        throw new AppError(
          400,
          `Invalid input for field/attribute sort. Value: '${s}'. the supported sort keys are: ('message_id', 'generated', 'event_type')`,
        );
      }
      if (dir !== 'asc' && dir !== 'desc') {
        throw new AppError(
          400,
          `Invalid input for field/attribute sort direction. Value: '${s}'. the supported sort directions are: ('asc', 'desc')`,
        );
      }
      spec.push([path, dir === 'desc' ? -1 : 1]);
    }
    if (spec.length === 0) spec.push(['generated', 1]);
    const docs = await this.repo.find(and(filter, visibilityFilter(identity, allTenants)), toSort(withTiebreak(spec)), this.limitOf(limit));
    return docs.map(toEvent);
  }

  /** A2: a complex query; default order `timestamp desc`. */
  async query(identity: Identity, filter: unknown, sort: SortSpec, limit: number | undefined): Promise<Event[]> {
    const translated = filter === undefined ? {} : translateComplexFilter(filter);
    const docs = await this.repo.find(and(translated, visibilityFilter(identity)), toSort(sort), this.limitOf(limit));
    return docs.map(toEvent);
  }
}
