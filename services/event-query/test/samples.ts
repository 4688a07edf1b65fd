/**
 * Real notification bodies from deploy/samples (captured from OpenStack services), re-owned for one test: a fresh
 * message_id, and the project/resource ids the test chooses, so each test owns its events.
 */
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from '@stratum/store-runtime';

const bodies: Record<string, unknown>[] = readFileSync(join(ROOT, 'deploy/samples/notifications.jsonl'), 'utf8')
  .trim()
  .split('\n')
  .map((l) => JSON.parse(l));

const inner = (b: Record<string, unknown>) => JSON.parse(b['oslo.message'] as string) as Record<string, unknown>;

/** The first sample of `eventType`, decoded (the oslo.message envelope removed). */
export function sample(eventType: string): Record<string, unknown> {
  const b = bodies.find((x) => inner(x).event_type === eventType);
  if (!b) throw new Error(`no sample of ${eventType}`);
  return inner(b);
}

/**
 * A sample re-owned: new message_id; every occurrence of the captured project id replaced by `projectId`; the
 * captured resource id replaced by `resourceId`; the timestamp set to `timestamp` (`YYYY-MM-DD HH:MM:SS.ffffff`).
 * @returns the AMQP body in the oslo 2.0 envelope, as services publish it.
 */
export function reowned(eventType: string, o: { projectId: string; resourceId?: string; timestamp?: string }): Record<string, unknown> {
  const msg = sample(eventType);
  let text = JSON.stringify({ ...msg, message_id: randomUUID(), ...(o.timestamp ? { timestamp: o.timestamp } : {}) });
  text = text.split('2f66f0d537d740d79ad1e52238df492a').join(o.projectId);
  if (o.resourceId) {
    const p = msg.payload as Record<string, unknown>;
    const original = (p.instance_id ?? (p.port as Record<string, unknown> | undefined)?.id ?? p.id) as string;
    text = text.split(original).join(o.resourceId);
  }
  return { 'oslo.version': '2.0', 'oslo.message': text };
}

export const messageIdOf = (body: Record<string, unknown>) => JSON.parse(body['oslo.message'] as string).message_id as string;
