/**
 * Events crafted for one test (the rule under test decides each field), stored through the events repository.
 */
import { startTestStack, type TestStack, tokenOf, uuid } from '@stratum/testing';
import type { Event, Trait } from '@stratum/traits';
import type request from 'supertest';
import { EventsRepository, toEventDoc } from '../src';

export interface Spec {
  type: string;
  generated: string;
  project?: string | null;
  resource?: string;
  traits?: Trait[];
}

/** An event with a fresh message_id: `service`, then `project_id` and `resource_id` when given, then `traits`. */
export function event(s: Spec): Event {
  const traits: Trait[] = [{ name: 'service', type: 'String', value: 'test' }];
  if (s.project) traits.push({ name: 'project_id', type: 'String', value: s.project });
  if (s.resource) traits.push({ name: 'resource_id', type: 'String', value: s.resource });
  traits.push(...(s.traits ?? []));
  return { message_id: uuid(), event_type: s.type, generated: s.generated, traits, raw: {} };
}

/** `2026-11-20T10:<minute>:00.000000`. */
export const at = (minute: number) => `2026-11-20T10:${String(minute).padStart(2, '0')}:00.000000`;

/** Stores events in the stack's database, expecting every one to be new. @returns the events. */
export function seeder(stack: () => TestStack): (events: Event[]) => Promise<Event[]> {
  return async (events) => {
    const r = await new EventsRepository(stack().db).insertMany(events.map(toEventDoc));
    expect(r.inserted).toBe(events.length);
    return events;
  };
}

/** The message_ids of a list response, in order. */
export const ids = (res: request.Response): string[] => res.body.map((e: { message_id: string }) => e.message_id);

/**
 * The stack of a describe block that crafts its own events: started before its tests (EVENTS_MAX_LIMIT 200, so
 * paging tests can ask for large pages) and closed after them, with `seed` and `as` bound to it.
 */
export function craftedStack(): {
  readonly stack: TestStack;
  seed: (events: Event[]) => Promise<Event[]>;
  as: (who: keyof TestStack['personas']) => Record<string, string>;
} {
  let current: TestStack | undefined;
  beforeAll(async () => {
    current = await startTestStack({ eventEnv: { EVENTS_MAX_LIMIT: '200' } });
  });
  afterAll(() => current?.close());
  const stack = () => {
    if (!current) throw new Error('the stack is only available inside tests and hooks');
    return current;
  };
  return {
    get stack() {
      return stack();
    },
    seed: seeder(stack),
    as: (who) => tokenOf(stack(), who),
  };
}
