/**
 * Signed identity headers between the gateway and the services.
 *
 * The gateway validates `X-Auth-Token`, strips every client-sent identity header and forwards the validated identity
 * as keystonemiddleware does (`X-User-Id`, `X-Project-Id`, `X-Domain-Id`, `X-Roles`, `X-Identity-Status`) plus
 * `X-Identity-Timestamp` (epoch seconds), `X-Identity-Body-SHA256` (hex SHA-256 of the body bytes it forwards),
 * `X-Identity-Version` (the format, IDENTITY_VERSION) and `X-Identity-Signature` (hex HMAC-SHA256 with the shared
 * secret).
 *
 * The signature binds the identity to one request: it covers the method, the request target (path and query exactly
 * as sent on the wire, which is what the service sees as `req.originalUrl`), the body digest, the identity and the
 * timestamp. A captured header set is refused on any other method, path, query or body, and on the same request once
 * it is older than the service's window (`IDENTITY_MAX_AGE_SECONDS`). A service reached directly, without the
 * gateway, cannot produce a valid signature and refuses the request.
 *
 * The format is a contract between two processes deployed apart (gateway/README.md "Versions and rolling
 * upgrades"): a service accepts the versions in SUPPORTED_IDENTITY_VERSIONS, takes a request without
 * `X-Identity-Version` as version 1 (what gateways sent before the header existed), and refuses any other version
 * as `unknown_version`. Each version signs a canonical form of its own, so a version header changed in transit
 * never verifies.
 */
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';

/** The validated caller, as Keystone describes a token's scope. */
export interface Identity {
  userId: string;
  /** null for a domain-scoped or unscoped token. */
  projectId: string | null;
  /** The scope's domain (domain-scoped token) or the project's domain; null when unknown. */
  domainId: string | null;
  /** Role names, lower case, e.g. `admin`, `member`, `reader`. */
  roles: string[];
}

/** Header names, lower case as Node delivers them. */
export const IdentityHeaders = {
  userId: 'x-user-id',
  projectId: 'x-project-id',
  domainId: 'x-domain-id',
  roles: 'x-roles',
  status: 'x-identity-status',
  timestamp: 'x-identity-timestamp',
  bodyDigest: 'x-identity-body-sha256',
  signature: 'x-identity-signature',
  version: 'x-identity-version',
} as const;

/** The identity format version this build signs (`X-Identity-Version`). */
export const IDENTITY_VERSION = 1;

/** The first element of each version's canonical form, which the HMAC covers: the version is part of what is signed. */
const CANONICAL_TAG: Readonly<Record<number, string>> = {
  // Named before versions were numbered; it is version 1's, and stays so that a request from a gateway that sends
  // no X-Identity-Version verifies. A later version gets a tag of its own.
  1: 'stratum-identity-v2',
};

/** The identity format versions this build verifies. */
export const SUPPORTED_IDENTITY_VERSIONS: readonly number[] = Object.keys(CANONICAL_TAG).map(Number);

/**
 * Every identity header a client might send to impersonate someone (keystonemiddleware's set plus ours).
 * The gateway removes all of them before forwarding.
 */
export const CLIENT_IDENTITY_HEADERS: readonly string[] = [
  ...Object.values(IdentityHeaders),
  'x-user',
  'x-user-name',
  'x-user-domain-id',
  'x-user-domain-name',
  'x-project-name',
  'x-project-domain-id',
  'x-project-domain-name',
  'x-domain-name',
  'x-tenant',
  'x-tenant-id',
  'x-tenant-name',
  'x-role',
  'x-service-catalog',
  'x-service-identity-status',
  'x-service-roles',
  'x-service-user-id',
  'x-service-project-id',
  'x-is-admin-project',
  'x-system-scope',
  'x-trust-id',
  'x-auth-token',
  'x-service-token',
  'x-subject-token',
];

/** Hex SHA-256 of `body` (bytes, or a string as UTF-8); of no bytes when omitted. */
export function bodyDigest(body?: Uint8Array | string): string {
  return createHash('sha256')
    .update(body ?? '')
    .digest('hex');
}

/** The digest of a request without a body (`e3b0c442…b855`). */
export const EMPTY_BODY_SHA256 = bodyDigest();

/** The request a signature is bound to. */
export interface RequestBinding {
  /** HTTP method as sent, upper case. */
  method: string;
  /** Request target as sent on the wire: path and query, percent-encoding untouched (the service's `req.originalUrl`). */
  url: string;
  /** Hex SHA-256 of the body bytes the service receives (`bodyDigest`); EMPTY_BODY_SHA256 when there is none. */
  bodyDigest: string;
}

/** Default window of a signature, in seconds, either way; see `verifyIdentity`. */
export const DEFAULT_IDENTITY_MAX_AGE_SECONDS = 10;

// A JSON array: no field can smuggle a separator into another (a user id with a newline, a URL with a comma).
function canonical(version: number, id: Omit<Identity, 'roles'>, roles: string, req: RequestBinding, timestamp: number): string {
  return JSON.stringify([
    CANONICAL_TAG[version],
    req.method,
    req.url,
    req.bodyDigest,
    id.userId,
    id.projectId ?? '',
    id.domainId ?? '',
    roles,
    timestamp,
  ]);
}

function hmac(secret: string, data: string): Buffer {
  return createHmac('sha256', secret).update(data).digest();
}

/**
 * Headers carrying `identity`, signed with `secret` at `now` (epoch milliseconds) for exactly one request.
 * @param request the method, the request target the service will receive, and the body's digest (or the body).
 * @returns a header map to set on the upstream request.
 */
export function signIdentity(
  identity: Identity,
  secret: string,
  request: { method: string; url: string; bodyDigest?: string; body?: Uint8Array | string },
  now = Date.now(),
): Record<string, string> {
  const ts = Math.floor(now / 1000);
  const binding: RequestBinding = {
    method: request.method.toUpperCase(),
    url: request.url,
    bodyDigest: request.bodyDigest ?? bodyDigest(request.body),
  };
  const headers: Record<string, string> = {
    [IdentityHeaders.userId]: identity.userId,
    [IdentityHeaders.roles]: identity.roles.join(','),
    [IdentityHeaders.status]: 'Confirmed',
    [IdentityHeaders.timestamp]: String(ts),
    [IdentityHeaders.bodyDigest]: binding.bodyDigest,
    [IdentityHeaders.version]: String(IDENTITY_VERSION),
    [IdentityHeaders.signature]: hmac(secret, canonical(IDENTITY_VERSION, identity, identity.roles.join(','), binding, ts)).toString('hex'),
  };
  if (identity.projectId) headers[IdentityHeaders.projectId] = identity.projectId;
  if (identity.domainId) headers[IdentityHeaders.domainId] = identity.domainId;
  return headers;
}

/** Why a request's identity was refused. */
export type IdentityRefusal = 'missing' | 'bad_signature' | 'stale' | 'unknown_version';

/** A refused identity; `version` (the header as sent, at most 32 characters) only for `unknown_version`. */
export type IdentityRefused = { ok: false; reason: IdentityRefusal; version?: string };

/**
 * The version a request's `X-Identity-Version` names: 1 when absent (a gateway from before the header), the number
 * when it is one this build verifies, else the header as sent (at most 32 characters, for a log line).
 */
export function identityVersionOf(
  headers: Record<string, string | string[] | undefined>,
): { ok: true; version: number } | { ok: false; given: string } {
  const v = headers[IdentityHeaders.version];
  if (v === undefined) return { ok: true, version: 1 };
  const text = Array.isArray(v) ? v.join(',') : v;
  const n = /^[0-9]{1,6}$/.test(text) ? Number(text) : Number.NaN;
  return SUPPORTED_IDENTITY_VERSIONS.includes(n) ? { ok: true, version: n } : { ok: false, given: text.slice(0, 32) };
}

/**
 * Verifies the signed identity headers of an incoming request against the request itself.
 *
 * The body is not read here: on success the signed body digest is returned, and the caller must compare it with the
 * SHA-256 of the body bytes it reads (EMPTY_BODY_SHA256 when it reads none) before using the body.
 * @param headers Node's lower-cased request headers.
 * @param request the incoming method and request target (`req.method`, `req.originalUrl`).
 * @param maxAgeSeconds how far the signature's timestamp may be from `now`, either way: the replay window of an
 *   identical request, and the clock skew tolerated between the gateway's host and the service's.
 * @returns the identity and the signed body digest, or the reason it is refused: `unknown_version` (with the version
 *   as sent) when `X-Identity-Version` names a version not in SUPPORTED_IDENTITY_VERSIONS.
 */
export function verifyIdentity(
  headers: Record<string, string | string[] | undefined>,
  secret: string,
  request: { method: string; url: string },
  maxAgeSeconds = DEFAULT_IDENTITY_MAX_AGE_SECONDS,
  now = Date.now(),
): { ok: true; identity: Identity; bodyDigest: string } | IdentityRefused {
  const version = identityVersionOf(headers);
  if (!version.ok) return { ok: false, reason: 'unknown_version', version: version.given };
  const one = (name: string): string | undefined => {
    const v = headers[name];
    return Array.isArray(v) ? undefined : v;
  };
  const userId = one(IdentityHeaders.userId);
  const ts = one(IdentityHeaders.timestamp);
  const signature = one(IdentityHeaders.signature);
  const digest = one(IdentityHeaders.bodyDigest);
  if (!userId || !ts || !signature || !digest || one(IdentityHeaders.status) !== 'Confirmed') {
    return { ok: false, reason: 'missing' };
  }
  const identity: Identity = {
    userId,
    projectId: one(IdentityHeaders.projectId) || null,
    domainId: one(IdentityHeaders.domainId) || null,
    roles: (one(IdentityHeaders.roles) ?? '')
      .split(',')
      .map((r) => r.trim().toLowerCase())
      .filter(Boolean),
  };
  const tsNum = Number(ts);
  if (!Number.isInteger(tsNum) || !/^[0-9a-f]{64}$/.test(digest)) return { ok: false, reason: 'bad_signature' };
  // Verified over the roles header as sent: a re-ordered or re-cased list is a bad signature.
  const binding = { method: request.method.toUpperCase(), url: request.url, bodyDigest: digest };
  const expected = hmac(secret, canonical(version.version, identity, one(IdentityHeaders.roles) ?? '', binding, tsNum));
  const given = Buffer.from(signature, 'hex');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
    return { ok: false, reason: 'bad_signature' };
  }
  if (Math.abs(now / 1000 - tsNum) > maxAgeSeconds) return { ok: false, reason: 'stale' };
  return { ok: true, identity, bodyDigest: digest };
}

/** True when the caller holds the `admin` role (on a project- or domain-scoped token). */
export function isAdmin(identity: Identity): boolean {
  return identity.roles.includes('admin');
}

/** The domain whose admins are cloud admins (Keystone's `default`). */
export const CLOUD_DOMAIN = 'default';

/**
 * True for a cloud admin: `admin` on a token of the `default` domain (project- or domain-scoped), or with no domain.
 * `admin` on a token of another domain is that department's admin, not a cloud admin (docs/decisions.md "Roles").
 */
export function isCloudAdmin(identity: Identity): boolean {
  return isAdmin(identity) && (identity.domainId === null || identity.domainId === CLOUD_DOMAIN);
}
