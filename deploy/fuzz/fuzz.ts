/**
 * The fuzz suite's runner: requests generated with fast-check for every operation of the gateway's `/openapi.json`
 * (generate.ts, from the valid-ish request of valid.ts and the mutations of mutations*.ts), sent raw through the real gateway (wire.ts), each answer judged by one oracle:
 * - no 5xx (no fault is injected, so not even a 503), no hang (a time limit per request), no connection closed
 *   without an answer (except on a body over the limit, which the gateway may refuse before reading it);
 * - every 4xx in its group's error shape: Panko `{"error_message":{faultcode,faultstring,debuginfo}}` for event
 *   paths, Octavia `{faultcode,faultstring,debuginfo}` for load balancer quota paths, Keystone
 *   `{"error":{code,title,message}}` for department quota paths and for the gateway's own answers (its 401 anywhere);
 * - no answer echoes an untrusted `X-Forwarded-Host` (as oslo.middleware's HTTPProxyToWSGI trusts no proxy by default);
 * - without a valid token (none, an unknown one, identity headers forged by the client) nothing but the public
 *   operations answers below 400;
 * - a member or reader never gets another project's events or load balancer quotas.
 * A 2xx to a request the document says is invalid (e.g. a body its schema refuses, a registry id with control
 * characters) and an answer without X-Openstack-Request-Id are warnings, listed apart.
 *
 * Used by the jest sample (deploy/test/fuzz.test.ts) and by `pnpm fuzz` (run.ts).
 */
import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import type { Fixtures, FuzzRequest, Who } from './draft';
import { operationArbitraries } from './generate';
import { expectedGroup, type GroupMap, operationsOf, SHAPE_OF, type Shape } from './operations';
import { QUOTA_ITEMS } from './valid';
import { sendRaw, type WireOutcome } from './wire';

export type { Fixtures, FuzzRequest, Who } from './draft';

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

interface Count {
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

const inc = <K>(map: Map<K, number>, k: K, n = 1) => map.set(k, (map.get(k) ?? 0) + n);

const isObject = (x: unknown): x is Record<string, unknown> => x !== null && typeof x === 'object' && !Array.isArray(x);

/** Why `body` is not a 4xx `status` in `shape`, or null when it is. */
export function shapeProblem(shape: Shape, status: number, body: Buffer): string | null {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body.toString('utf8'));
  } catch {
    return body.length === 0 ? 'empty body' : `not JSON: ${clip(body.toString('utf8'), 120)}`;
  }
  const fault = (o: unknown) =>
    isObject(o) && typeof o.faultcode === 'string' && typeof o.faultstring === 'string' && Object.hasOwn(o, 'debuginfo');
  if (shape === 'panko')
    return isObject(parsed) && fault(parsed.error_message) ? null : `not Panko's shape: ${clip(JSON.stringify(parsed), 160)}`;
  if (shape === 'octavia') return fault(parsed) ? null : `not Octavia's shape: ${clip(JSON.stringify(parsed), 160)}`;
  const e = isObject(parsed) ? parsed.error : undefined;
  const ok = isObject(e) && e.code === status && typeof e.title === 'string' && typeof e.message === 'string';
  return ok ? null : `not Keystone's shape: ${clip(JSON.stringify(parsed), 160)}`;
}

const clip = (s: string, n: number) => (s.length > n ? `${s.slice(0, n)}… (${s.length} chars)` : s);
const printable = (b: Buffer) => {
  const s = b.toString('utf8');
  return Buffer.from(s, 'utf8').equals(b) && ![...s].some((ch) => ch < ' ' && !'\t\n\r'.includes(ch))
    ? JSON.stringify(clip(s, 300))
    : `base64:${clip(b.toString('base64'), 300)}`;
};

/** The document says every response carries X-Openstack-Request-Id: a warning when one does not. */
function missingRequestId(klass: string, status: number, headers: Record<string, string>): { klass: string; warning?: string } {
  return headers['x-openstack-request-id'] ? { klass } : { klass, warning: `${status} without X-Openstack-Request-Id` };
}

/** The verdict on one answer: a failure or warning cause (null when fine), and the status class. */
export function judge(
  groups: GroupMap,
  req: FuzzRequest,
  outcome: WireOutcome,
  fx?: Fixtures,
): { klass: string; failure?: string; warning?: string; detail?: string; closedOnOversized?: boolean } {
  // What went wrong; record() adds the group and the mutations to make the cause.
  if (outcome.kind === 'timeout') return { klass: 'timeout', failure: 'no answer in time' };
  if (outcome.kind === 'closed') {
    if (req.wire.abandon) return { klass: 'abandoned' };
    if (req.oversized) return { klass: 'closed', closedOnOversized: true };
    return { klass: 'closed', failure: `connection closed without an answer (${outcome.error})`, detail: outcome.partial };
  }
  const { status, headers, body } = outcome.response;
  const klass = `${Math.floor(status / 100)}xx`;
  if (status >= 500) return { klass, failure: `${status}`, detail: clip(body.toString('utf8'), 300) };
  if (req.tags.includes('X-Forwarded-Host: untrusted')) {
    const echoed = [...Object.values(headers), body.toString('utf8')].some((v) => v.includes('evil.example'));
    if (echoed) {
      const where = ['link', 'www-authenticate', 'location'].filter((h) => headers[h]?.includes('evil.example'));
      return {
        klass,
        failure: `untrusted X-Forwarded-Host echoed (${where.length > 0 ? where.join(', ') : 'body'})`,
        detail: where.map((h) => `${h}: ${headers[h]}`).join('; '),
      };
    }
  }
  // A HEAD answer has no body to judge.
  if (status >= 400 && req.wire.method !== 'HEAD') {
    // An absolute-form target (`http://host/path`, RFC 9112 §3.2.2, which a server must accept) names its path after the authority.
    const path = req.wire.target.replace(/^[a-zA-Z][a-zA-Z0-9+.-]*:\/\/[^/?]*/, '').split('?')[0] as string;
    const shape: Shape = SHAPE_OF[expectedGroup(groups, path)];
    const problem = shapeProblem(shape, status, body);
    // The gateway's own 401 is Keystone's on every path; a service's own 401 (e.g. a health check path forwarded
    // with another method) is in its group's shape: either will do.
    const accepted = problem === null || (status === 401 && shapeProblem('keystone', status, body) === null);
    if (!accepted) return { klass, failure: `${status} ${problem.split(':')[0]} (${shape} expected)`, detail: problem };
    return missingRequestId(klass, status, headers);
  }
  const foreign = status < 300 && fx ? foreignData(req, fx, body) : null;
  if (foreign) return { klass, failure: `${status} with another project's data`, detail: foreign };
  // Every operation but the public ones (versions, health checks, documentation) needs a valid token.
  if ((req.who === 'none' || req.who === 'badToken') && !req.op.public && status < 400) {
    return { klass, failure: `${status} without a valid token` };
  }
  if (req.mustRefuse && status < 300) return { klass, warning: `${status} to an invalid request` };
  return missingRequestId(klass, status, headers);
}

/**
 * What a project-scoped persona (member, reader) got of another project, or null: events whose `project_id` or
 * `tenant_id` trait names another project (as Panko's RBAC limits a member to its project's events), load balancer
 * quotas of another project (Octavia's `load-balancer:read-quota` is the owner's; `/default` is not checked).
 */
export function foreignData(req: FuzzRequest, fx: Fixtures, body: Buffer): string | null {
  const own = fx.projectOf[req.who];
  if (!own || req.wire.method === 'HEAD') return null;
  let parsed: unknown;
  try {
    parsed = JSON.parse(body.toString('utf8'));
  } catch {
    return null;
  }
  if (req.op.group === 'event') {
    const events = Array.isArray(parsed) ? parsed : [parsed];
    for (const e of events) {
      const traits = isObject(e) && Array.isArray(e.traits) ? (e.traits as unknown[]) : [];
      for (const t of traits) {
        if (isObject(t) && (t.name === 'project_id' || t.name === 'tenant_id') && t.value !== own) {
          return `event ${String((e as Record<string, unknown>).message_id)} has ${t.name} ${JSON.stringify(t.value)} (the caller's project is ${own})`;
        }
      }
    }
    return null;
  }
  if (req.op.group === 'lbaas') {
    const path = req.wire.target.split('?')[0] as string;
    const m = /\/quotas\/([^/]+)(\/[^/]*)?$/.exec(path);
    const named = m ? safeDecode(m[1] as string) : undefined;
    if (named !== undefined && named !== 'defaults' && m?.[2] !== '/default' && named !== own) {
      return `the quota of project ${JSON.stringify(named)} (the caller's project is ${own})`;
    }
    const list = isObject(parsed) && Array.isArray(parsed.quotas) ? (parsed.quotas as unknown[]) : [];
    const other = list.find((q) => isObject(q) && q.project_id !== undefined && q.project_id !== own);
    if (other)
      return `a list with project ${JSON.stringify((other as Record<string, unknown>).project_id)} (the caller's project is ${own})`;
  }
  return null;
}

const safeDecode = (s: string): string | undefined => {
  try {
    return decodeURIComponent(s);
  } catch {
    return undefined;
  }
};

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
function byKindAndGroup(causes: Map<string, Count>): [string, Count][] {
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

export interface FuzzTarget {
  host: string;
  port: number;
}

export interface RunOptions {
  target: FuzzTarget;
  /** The gateway's OpenAPI document (fetched from it: `fetchOpenApi`). */
  doc: unknown;
  fixtures: Fixtures;
  seed: number;
  /** Stop after this many requests… */
  requests: number;
  /** …or after this many seconds, whichever comes first. */
  seconds: number;
  /** Requests in flight at once. */
  concurrency: number;
  /** Time limit of one request (a request over it is a hang). */
  timeoutMs: number;
  /** Requests generated per batch, spread evenly over the operations (each operation's from its own seed). */
  batchSize?: number;
  /** Only the operations whose key (`METHOD /template`) matches. */
  only?: RegExp;
  /** Called with every answer (e.g. to print them). */
  onAnswer?: (req: FuzzRequest, outcome: WireOutcome) => void;
  /** Called between batches (e.g. to restore fixtures that fuzzed DELETEs removed). */
  betweenBatches?: (tally: Tally) => Promise<void>;
}

/** GETs the gateway's `/openapi.json`. */
export async function fetchOpenApi(target: FuzzTarget): Promise<unknown> {
  const res = await fetch(`http://${target.host}:${target.port}/openapi.json`);
  if (!res.ok) throw new Error(`GET /openapi.json: ${res.status}`);
  return res.json();
}

/**
 * Generates and sends requests until `requests` were sent or `seconds` passed, `concurrency` at a time.
 * @returns the tally (never throws for what the gateway answers).
 */
export async function runFuzz(opts: RunOptions): Promise<Tally> {
  const all = operationsOf(opts.doc);
  const { groups, resolve } = all;
  const operations = all.operations.filter((op) => !opts.only || opts.only.test(op.key));
  const arbs = operations.map((op) => operationArbitraries(op, resolve, opts.fixtures));
  const tally = emptyTally(opts.seed);
  const t0 = performance.now();
  const deadline = t0 + opts.seconds * 1000;
  // Round robin over the operations, so that even a short run sends every operation its share.
  const perOp = Math.max(1, Math.round((opts.batchSize ?? 2 * operations.length) / operations.length));
  for (let batch = 0; tally.requests < opts.requests && performance.now() < deadline; batch++) {
    // Request k of operation i: its (batch·perOp + k + i)-th arbitrary, cycling through its mutation kinds.
    const reqs: FuzzRequest[] = [];
    for (let k = 0; k < perOp; k++) {
      for (const [i, list] of arbs.entries()) {
        const arb = list[(batch * perOp + k + i) % list.length] as fc.Arbitrary<FuzzRequest>;
        reqs.push(fc.sample(arb, { seed: (opts.seed + batch * 7919 + k * 131 + i) | 0, numRuns: 1 })[0] as FuzzRequest);
      }
    }
    reqs.splice(opts.requests - tally.requests);
    let next = 0;
    const worker = async () => {
      while (next < reqs.length && performance.now() < deadline) {
        const i = next++;
        const req = reqs[i] as FuzzRequest;
        const outcome = await sendRaw(opts.target.host, opts.target.port, req.wire, opts.timeoutMs);
        record(tally, `batch ${batch}, request ${i}`, req, outcome, groups, opts.fixtures);
        opts.onAnswer?.(req, outcome);
      }
    };
    await Promise.all(Array.from({ length: opts.concurrency }, worker));
    if (opts.betweenBatches) await opts.betweenBatches(tally);
  }
  tally.seconds = (performance.now() - t0) / 1000;
  return tally;
}

// ---- fixtures ----------------------------------------------------------------------------------------------------

export interface FixtureIds {
  projectA: string;
  projectB: string;
  deptDomainId: string;
}

const EVENT_TYPES = ['compute.instance.create.end', 'port.update.end', 'volume.delete.start'];
const TRAITS = ['project_id', 'tenant_id', 'resource_id', 'host', 'state', 'user_id'];

/**
 * Puts what valid-ish requests name into the stack through the gateway as admin: a region, departments and projects
 * in the registry with quotas, load balancer quotas and usage, a few events. Idempotent (PUTs and PATCHes of fixed
 * values, events with new ids). @returns one `METHOD path → status` line per call.
 */
export async function seedFixtures(target: FuzzTarget, fx: Fixtures, ids: FixtureIds): Promise<string[]> {
  const base = `http://${target.host}:${target.port}`;
  const lines: string[] = [];
  const call = async (method: string, path: string, body: unknown) => {
    try {
      const res = await fetch(`${base}${path}`, {
        method,
        headers: { 'X-Auth-Token': fx.tokens.admin, 'Content-Type': 'application/json' },
        body: JSON.stringify(body),
        signal: AbortSignal.timeout(10_000),
      });
      await res.arrayBuffer();
      lines.push(`${method} ${path} → ${res.status}`);
    } catch (err) {
      lines.push(`${method} ${path} → ${(err as Error).message}`);
    }
  };
  const region = fx.regions[0] ?? 'RegionOne';
  await call('PUT', `/v3/domain_quota_registry/regions/${region}`, {
    region: { volume_types: ['ssd', 'sata'], products: ['secure_container'] },
  });
  await call('PUT', '/v3/domain_quota_registry/domains/default', { domain: { name: 'Default' } });
  await call('PUT', `/v3/domain_quota_registry/domains/${ids.deptDomainId}`, { domain: { name: 'Fuzz department' } });
  for (const p of [ids.projectA, ids.projectB]) {
    await call('PUT', `/v3/domain_quota_registry/projects/${p}`, {
      project: { domain_id: ids.deptDomainId, name: `fuzz-${p.slice(0, 6)}` },
    });
  }
  const items = (n: number) => Object.fromEntries(QUOTA_ITEMS.map((item) => [item, n]));
  await call('PATCH', '/v3/domain_quotas/default', { domain: { region, ...items(1_000_000) } });
  await call('PATCH', `/v3/domain_quotas/${ids.deptDomainId}`, { domain: { region, ...items(100_000) } });
  await call('PATCH', `/v3/domain_quotas/${ids.deptDomainId}/projects/${ids.projectA}`, { project: { region, cores: 10, instances: 5 } });
  await call('PUT', `/v3/domain_quota_registry/usage/${region}`, { usage: { values: { cores: 10, instances: 2 } } });
  for (const p of [ids.projectA, ids.projectB]) {
    await call('PUT', `/v2.0/lbaas/quotas/${p}`, { quota: { load_balancer: 50, listener: 50, member: 500, pool: 50, health_monitor: 20 } });
    await call('POST', `/v2.0/lbaas/quotas/${p}/usage`, { consume: { load_balancer: 1, member: 3 } });
  }
  const now = Date.now();
  const events = [ids.projectA, ids.projectB, ids.projectA].flatMap((p, i) =>
    EVENT_TYPES.map((type, j) => {
      const message_id = randomUUID();
      fx.messageIds.push(message_id);
      return {
        message_id,
        event_type: type,
        generated: new Date(now - (i * 3 + j) * 60_000).toISOString(),
        traits: [
          ['project_id', 1, p],
          ['tenant_id', 1, p],
          ['resource_id', 1, randomUUID()],
          ['host', 1, `compute-${i}`],
          ['state', 1, 'active'],
          ['user_id', 1, 'fuzz-user'],
        ],
        raw: {},
      };
    }),
  );
  await call('POST', '/v2/ingest/events', events);
  // Keep the list of known ids short: the newest are those that exist.
  fx.messageIds.splice(0, Math.max(0, fx.messageIds.length - 30));
  return lines;
}

/** Fixtures for a stack: tokens of its personas and the ids `seedFixtures` creates. */
export function fixturesFor(tokens: Fixtures['tokens'], ids: FixtureIds, maxBodyBytes = 1_048_576): Fixtures {
  return {
    tokens,
    projects: [ids.projectA, ids.projectB],
    domains: [ids.deptDomainId, 'default'],
    regions: ['RegionOne'],
    messageIds: [],
    // Names the hostile ingested events store, so that queries name them too.
    eventTypes: [...EVENT_TYPES, 'constructor', '__proto__'],
    traitNames: [...TRAITS, 'constructor', '__proto__', 'hasOwnProperty', 'a.b.c', '$set', '\u202eevil'],
    maxBodyBytes,
    projectOf: { member: ids.projectA, reader: ids.projectA, otherMember: ids.projectB },
  };
}

// ---- report ------------------------------------------------------------------------------------------------------

const fmt = (n: number) => n.toLocaleString('en-US');
const cell = (s: string) => s.replace(/\|/g, '\\|').replace(/\n/g, ' ');

/** ` on N operations (METHOD /a ×n, …)`: where a cause was seen. */
function onOperations(c: Count): string {
  const ops = [...c.operations.entries()].sort((a, b) => b[1] - a[1]);
  const shown = ops.slice(0, 4).map(([op, n]) => `${op} ×${n}`);
  return ` — on ${ops.length} operation${ops.length === 1 ? '' : 's'} (${shown.join(', ')}${ops.length > 4 ? ', …' : ''})`;
}

/** One reproduction as markdown lines. */
export function reproText(r: Repro): string {
  const lines = [
    `  - seed ${r.seed}, ${r.at}; as ${r.who}`,
    `  - \`${r.method} ${r.target.replace(/`/g, '\\`')}\``,
    `  - headers: ${r.headers.map(([k, v]) => `${k}: ${JSON.stringify(v)}`).join('; ')}`,
  ];
  if (r.body !== undefined) lines.push(`  - body: ${r.bodyNote ? `${r.bodyNote}; ` : ''}${r.body}`);
  lines.push(`  - answer: ${r.answer.replace(/\n/g, ' ')}`);
  if (r.problem && !r.answer.includes(r.problem)) lines.push(`  - problem: ${r.problem.replace(/\n/g, ' ')}`);
  return lines.join('\n');
}

/** The tally as markdown: status classes, per operation, failures by cause with one reproduction each, warnings. */
export function tallyMarkdown(t: Tally, opts: { maxCauses?: number } = {}): string {
  const maxCauses = opts.maxCauses ?? 80;
  const classes = ['2xx', '3xx', '4xx', '5xx', 'timeout', 'closed', 'abandoned'];
  const out: string[] = [];
  const failures = foldedCauses(t.failures);
  const warnings = byKindAndGroup(t.warnings);
  out.push(
    `- ${fmt(t.requests)} requests in ${t.seconds.toFixed(1)} s (${fmt(Math.round(t.requests / Math.max(t.seconds, 0.001)))}/s), seed ${t.seed}`,
    `- status classes: ${classes.map((c) => `${c} ${fmt(t.classes[c] ?? 0)}`).join(', ')}`,
    `- statuses: ${[...t.statuses.entries()]
      .sort((a, b) => a[0] - b[0])
      .map(([s, n]) => `${s} ×${fmt(n)}`)
      .join(', ')}`,
    `- failures: ${fmt(t.failed)} requests, ${failures.length} distinct causes; warnings (a 2xx to a request the document says is invalid, an answer without X-Openstack-Request-Id): ${fmt([...t.warnings.values()].reduce((a, c) => a + c.count, 0))}`,
    `- bodies over the limit refused by closing the connection before an answer was read: ${t.closedOnOversized}`,
    `- requests per mutation kind (a request carries none, one or two): ${[...t.tags.entries()]
      .sort((a, b) => b[1] - a[1])
      .map(([tag, n]) => `${tag} ${fmt(n)}`)
      .join('; ')}`,
    '',
    '| operation | requests | 2xx | 3xx | 4xx | 5xx | timeout | closed | abandoned by the client |',
    '|---|---|---|---|---|---|---|---|---|',
  );
  for (const [op, c] of [...t.perOperation.entries()].sort((a, b) => a[0].localeCompare(b[0]))) {
    out.push(`| ${cell(op)} | ${fmt(c.requests ?? 0)} | ${classes.map((k) => fmt(c[k] ?? 0)).join(' | ')} |`);
  }
  if (t.failures.size > 0) {
    out.push('', '**Failures by mutation** (a request with two mutations counts under both):', '');
    for (const [tag, n] of [...t.failuresByTag.entries()].sort((a, b) => b[1] - a[1]))
      out.push(`- ${tag}: ${fmt(n)} of ${fmt(t.tags.get(tag) ?? t.requests)}`);
    out.push(
      '',
      `**Failures by cause** (${failures.length}; one reproduction each${failures.length > maxCauses ? `, the ${maxCauses} most frequent` : ''}):`,
      '',
    );
    for (const [cause, c] of failures.slice(0, maxCauses)) {
      out.push(`- ×${c.count} ${cause}${onOperations(c)}`, reproText(c.example));
    }
  }
  if (t.warnings.size > 0) {
    out.push(
      '',
      `**Warnings** (${warnings.length} causes: a 2xx to a request the document says is invalid, or no X-Openstack-Request-Id):`,
      '',
    );
    for (const [cause, c] of warnings.slice(0, 30)) {
      out.push(`- ×${c.count} ${cause}${onOperations(c)}`, reproText(c.example));
    }
  }
  return out.join('\n');
}

/** Replaces (or appends) the `## title` section of the markdown `doc` (as `pnpm bench` does for its sections). */
export function withSection(doc: string, title: string, body: string): string {
  const heading = `## ${title}`;
  const start = doc.indexOf(`${heading}\n`);
  if (start < 0) return `${doc.trimEnd()}\n\n${heading}\n\n${body}\n`;
  const next = doc.indexOf('\n## ', start + heading.length);
  return `${doc.slice(0, start)}${heading}\n\n${body}\n${next < 0 ? '' : doc.slice(next)}`;
}
