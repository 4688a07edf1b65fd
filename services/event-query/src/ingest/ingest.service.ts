/**
 * Ingestion: decoded events are stored durably (idempotent on message_id) and the configured types are forwarded
 * to subscribers. Every entry point (the AMQP consumer, the HTTP publisher endpoint, the import CLI) goes through
 * `store`, so they share one behaviour.
 */
import type { Event } from '@stratum/traits';
import type { Publisher } from 'rabbitmq-client';
import { toEventDoc } from '../events/events.model';
import type { EventsRepository } from '../events/events.repository';
import { globToRegExp } from './definitions';
import { RejectedRecord } from './notification';

/** Publishes stored events of the configured types to the forward exchange (`stratum.events`, see EVENTS_FORWARD_EXCHANGE). */
export class EventForwarder {
  private readonly patterns: RegExp[];

  /**
   * @param publisher a confirming publisher: `send` resolves once the broker has the message, so an event is
   *   forwarded before the notification it came from is acknowledged.
   * @param exchange the durable topic exchange subscribers bind to.
   * @param eventTypes fnmatch globs, e.g. `identity.project.*`.
   */
  constructor(
    private readonly publisher: Publisher,
    private readonly exchange: string,
    eventTypes: readonly string[],
  ) {
    this.patterns = eventTypes.map(globToRegExp);
  }

  wants(eventType: string): boolean {
    return this.patterns.some((p) => p.test(eventType));
  }

  /** Publishes the wanted events; the broker queues them for each subscriber, so a slow one never holds this up. */
  async forward(events: readonly Event[]): Promise<number> {
    const wanted = events.filter((e) => this.wants(e.event_type));
    await Promise.all(
      wanted.map((e) =>
        this.publisher.send(
          {
            exchange: this.exchange,
            routingKey: e.event_type,
            durable: true,
            contentType: 'application/json',
            messageId: e.message_id,
          },
          JSON.stringify(e),
        ),
      ),
    );
    return wanted.length;
  }
}

export interface StoreResult {
  stored: number;
  duplicates: number;
}

export class IngestService {
  constructor(
    private readonly repo: EventsRepository,
    private readonly forwarder?: EventForwarder,
  ) {}

  /**
   * Stores events (a duplicate message_id is counted, not stored again) and forwards the configured types.
   * @throws RejectedRecord when an event cannot be stored at all (its generated is not a timestamp);
   *   the driver's error when the store is unavailable (nothing may be acknowledged then).
   */
  async store(events: readonly Event[]): Promise<StoreResult> {
    const docs = events.map((e) => {
      try {
        return toEventDoc(e);
      } catch (err) {
        throw new RejectedRecord(`event ${e.message_id}: ${(err as Error).message}`);
      }
    });
    const r = await this.repo.insertMany(docs);
    // Duplicates are forwarded again too: an earlier delivery may have been stored but not forwarded.
    if (this.forwarder) await this.forwarder.forward(events);
    return { stored: r.inserted, duplicates: r.duplicates };
  }
}
