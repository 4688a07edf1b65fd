/**
 * The fuzz run's oracle: the verdict on one answer (no 5xx, no hang, every 4xx in its group's error shape, no echoed
 * untrusted host, nothing below 400 without a valid token) and whether it shows another project's data.
 */
import type { Fixtures, FuzzRequest } from './draft';
import { expectedGroup, type GroupMap, SHAPE_OF, type Shape } from './operations';
import type { WireOutcome } from './wire';

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

export const clip = (s: string, n: number) => (s.length > n ? `${s.slice(0, n)}… (${s.length} chars)` : s);
export const printable = (b: Buffer) => {
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
