/**
 * The fuzz run's tally: every judged request counted by status class and operation, failures and warnings by cause
 * (kind, group and the mutations that made the request), with one reproduction per cause.
 */
import type { Fixtures, FuzzRequest, Who } from './draft';
import type { GroupMap } from './operations';
import { clip, judge, printable } from './oracle';
import type { WireOutcome } from './wire';

/** One reproduction: the request as sent and what came back. */
export interface Repro {
  seed: number;
  /** Batch and index of the request in the run (a run with the same seed sends the same requests). */
  at: string;
  who: Who;
  method: string;
  target: string;
  headers: [string, string][];
  body?: string;
  bodyNote?: string;
  answer: string;
  /** What is wrong with the answer, when the status alone does not say it. */
  problem?: string;
}

export interface Count {
  /** What went wrong (`500`, `431 empty body (keystone expected)`, …), in which group, after which mutations. */
  kind: string;
  group: string;
  tags: string[];
  count: number;
  example: Repro;
  /** Operation → requests of this cause. */
  operations: Map<string, number>;
}

export interface Tally {
  seed: number;
  requests: number;
  seconds: number;
  /** Per operation (`METHOD /template`): requests and status classes. */
  perOperation: Map<string, Record<string, number>>;
  /** Status class (2xx, 3xx, 4xx, 5xx, timeout, closed) → requests. */
  classes: Record<string, number>;
  statuses: Map<number, number>;
  /** Distinct failure causes (kind, status, operation, mutations), each with its first reproduction. */
  failures: Map<string, Count>;
  /** Failures counted by mutation tag (a request with two tags counts under both). */
  failuresByTag: Map<string, number>;
  warnings: Map<string, Count>;
  /** Bodies over the limit the gateway refused by closing before an answer was read (allowed). */
  closedOnOversized: number;
  /** Requests per mutation tag. */
  tags: Map<string, number>;
  failed: number;
}

export function emptyTally(seed: number): Tally {
  return {
    seed,
    requests: 0,
    seconds: 0,
    perOperation: new Map(),
    classes: {},
    statuses: new Map(),
    failures: new Map(),
    failuresByTag: new Map(),
    warnings: new Map(),
    closedOnOversized: 0,
    tags: new Map(),
    failed: 0,
  };
}

export const inc = <K>(map: Map<K, number>, k: K, n = 1) => map.set(k, (map.get(k) ?? 0) + n);

function reproOf(seed: number, at: string, req: FuzzRequest, outcome: WireOutcome): Repro {
  const answer =
    outcome.kind === 'response'
      ? `${outcome.response.status} ${clip(outcome.response.body.toString('utf8'), 300)}`
      : `${outcome.kind} after ${outcome.ms} ms${outcome.kind === 'closed' ? ` (${outcome.error})` : ''}`;
  return {
    seed,
    at,
    who: req.who,
    method: req.wire.method,
    target: clip(req.wire.target, 300),
    headers: req.wire.headers.map(([k, v]): [string, string] => [k, k === 'X-Auth-Token' ? `<${req.who} token>` : clip(v, 120)]),
    ...(req.wire.body ? { body: printable(req.wire.body) } : {}),
    ...(req.bodyNote ? { bodyNote: req.bodyNote } : {}),
    answer,
  };
}

const causeKey = (kind: string, group: string, tags: string[]) => `${kind} [${group}] ← ${tags.join(' + ')}`;

/**
 * The causes with those of two mutations folded into the cause of one of them alone (same failure, same group) when
 * that one failed alone too: `500 ← id: malformed + query: repeated` counts under `500 ← id: malformed`.
 */
export function foldedCauses(causes: Map<string, Count>): [string, Count][] {
  const out = new Map<string, Count>();
  for (const [k, c] of causes) {
    if (c.tags.length === 1) out.set(k, { ...c, operations: new Map(c.operations) });
  }
  for (const [k, c] of causes) {
    if (c.tags.length === 1) continue;
    const into = c.tags.map((t) => out.get(causeKey(c.kind, c.group, [t]))).find((x) => x !== undefined);
    if (!into) {
      out.set(k, { ...c, operations: new Map(c.operations) });
      continue;
    }
    into.count += c.count;
    for (const [op, n] of c.operations) inc(into.operations, op, n);
  }
  return [...out.entries()].sort((a, b) => b[1].count - a[1].count);
}

/** Causes merged whatever the mutations (warnings are about the answer, not the request): one per kind and group. */
export function byKindAndGroup(causes: Map<string, Count>): [string, Count][] {
  const out = new Map<string, Count>();
  for (const c of causes.values()) {
    const key = `${c.kind} [${c.group}]`;
    const into = out.get(key);
    if (!into) {
      out.set(key, { ...c, operations: new Map(c.operations) });
      continue;
    }
    into.count += c.count;
    for (const [op, n] of c.operations) inc(into.operations, op, n);
  }
  return [...out.entries()].sort((a, b) => b[1].count - a[1].count);
}

/** Adds one judged request to the tally. */
export function record(t: Tally, at: string, req: FuzzRequest, outcome: WireOutcome, groups: GroupMap, fx?: Fixtures): void {
  const v = judge(groups, req, outcome, fx);
  t.requests++;
  t.classes[v.klass] = (t.classes[v.klass] ?? 0) + 1;
  if (outcome.kind === 'response') inc(t.statuses, outcome.response.status);
  const per = t.perOperation.get(req.op.key) ?? {};
  per.requests = (per.requests ?? 0) + 1;
  per[v.klass] = (per[v.klass] ?? 0) + 1;
  t.perOperation.set(req.op.key, per);
  for (const tag of req.tags) inc(t.tags, tag);
  if (v.closedOnOversized) t.closedOnOversized++;
  const put = (map: Map<string, Count>, kind: string) => {
    // An echoed forwarded host is the header's doing, whatever else was mutated.
    const tags = kind.startsWith('untrusted X-Forwarded-Host')
      ? ['X-Forwarded-Host: untrusted']
      : req.tags.length > 0
        ? req.tags
        : ['valid-ish'];
    const key = causeKey(kind, req.op.group, tags);
    const c = map.get(key);
    if (c) {
      c.count++;
      inc(c.operations, req.op.key);
    } else {
      const example = { ...reproOf(t.seed, at, req, outcome), ...(v.detail ? { problem: v.detail } : {}) };
      map.set(key, { kind, group: req.op.group, tags, count: 1, example, operations: new Map([[req.op.key, 1]]) });
    }
  };
  if (v.failure) {
    t.failed++;
    put(t.failures, v.failure);
    for (const tag of req.tags.length > 0 ? req.tags : ['valid-ish']) inc(t.failuresByTag, tag);
  }
  if (v.warning) put(t.warnings, v.warning);
}
