/**
 * What the fuzz generator builds: who calls, what the stack holds (Fixtures), a request under construction (Draft) and
 * the mutations that edit it, and the finished request with what the oracle needs (FuzzRequest).
 */
import type { Operation } from './operations';
import type { WireRequest } from './wire';

/** Who calls: a persona of the stack, no token, or a token the gateway does not know. */
export type Who = 'admin' | 'member' | 'reader' | 'otherMember' | 'deptAdmin' | 'none' | 'badToken';

/** What the stack holds that requests may name (ids that exist make the valid-ish requests reach deeper). */
export interface Fixtures {
  tokens: Record<Exclude<Who, 'none' | 'badToken'>, string>;
  projects: string[];
  domains: string[];
  regions: string[];
  messageIds: string[];
  eventTypes: string[];
  traitNames: string[];
  /** The gateway's body limit (MAX_BODY_BYTES). */
  maxBodyBytes: number;
  /** The project of each project-scoped persona (what it may see of events and load balancer quotas). */
  projectOf: Partial<Record<Who, string>>;
}

/** One generated request: the bytes to send and what the oracle needs to judge the answer. */
export interface FuzzRequest {
  op: Operation;
  who: Who;
  /** Mutation tags, e.g. `id: malformed percent-encoding`; empty for a valid-ish request. */
  tags: string[];
  wire: WireRequest;
  /** How the body was built, when the bytes do not say it (e.g. `gzip of 3 MiB of spaces`). */
  bodyNote?: string;
  /** The request is invalid by the document (a 2xx is then reported as accepted input, a warning). */
  mustRefuse: boolean;
  /** The body is over the limit: the gateway may answer and close before reading it all. */
  oversized: boolean;
}

/** A request under construction: mutations edit it, `finish` turns it into bytes. */
export interface Draft {
  method: string;
  prefix: string;
  /** Path segments, each already percent-encoded (or deliberately malformed). */
  path: string;
  params: Record<string, string>;
  query: [string, string][];
  /** Replaces the whole query string when set (odd syntax, raw malformed encoding). */
  rawQuery?: string;
  headers: [string, string][];
  body?: { json: unknown } | { bytes: Buffer; note?: string };
  contentType?: string;
  contentEncoding?: string;
  /** How the body is compressed: a valid encoding of it, or garbage / a bomb that replaces it. */
  encode?: 'valid' | 'garbage' | 'bomb' | 'truncated';
  chunked?: boolean;
  abandon?: boolean;
  version?: string;
  /** Replaces the request target (path and query) as sent. */
  rawTarget?: (target: string) => string;
  tags: string[];
  mustRefuse: boolean;
  oversized: boolean;
}

export type Mutation = { tag: string; apply: (d: Draft) => void };

/** A mutation named `tag`; `refuse`: the request it makes is invalid by the document. */
export const m = (tag: string, apply: (d: Draft) => void, refuse = false): Mutation => ({
  tag,
  apply: (d) => {
    apply(d);
    if (refuse) d.mustRefuse = true;
  },
});
