/**
 * Signed identity headers between the gateway and the services.
 *
 * The gateway validates `X-Auth-Token`, strips every client-sent identity header and forwards the validated identity
 * as keystonemiddleware does (`X-User-Id`, `X-Project-Id`, `X-Domain-Id`, `X-Roles`, `X-Identity-Status`) plus
 * `X-Identity-Timestamp` (epoch seconds) and `X-Identity-Signature` (hex HMAC-SHA256 over the canonical string of those
 * headers). A service reached directly, without the gateway, cannot produce a valid signature and refuses the request.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

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
  signature: 'x-identity-signature',
} as const;

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

function canonical(id: Identity, timestamp: number): string {
  return [id.userId, id.projectId ?? '', id.domainId ?? '', id.roles.join(','), String(timestamp)].join('\n');
}

function hmac(secret: string, data: string): string {
  return createHmac('sha256', secret).update(data).digest('hex');
}

/**
 * Headers carrying `identity`, signed with `secret` at `now` (epoch milliseconds).
 * @returns a header map to set on the upstream request.
 */
export function signIdentity(identity: Identity, secret: string, now = Date.now()): Record<string, string> {
  const ts = Math.floor(now / 1000);
  const headers: Record<string, string> = {
    [IdentityHeaders.userId]: identity.userId,
    [IdentityHeaders.roles]: identity.roles.join(','),
    [IdentityHeaders.status]: 'Confirmed',
    [IdentityHeaders.timestamp]: String(ts),
    [IdentityHeaders.signature]: hmac(secret, canonical(identity, ts)),
  };
  if (identity.projectId) headers[IdentityHeaders.projectId] = identity.projectId;
  if (identity.domainId) headers[IdentityHeaders.domainId] = identity.domainId;
  return headers;
}

/** Why a request's identity was refused. */
export type IdentityRefusal = 'missing' | 'bad_signature' | 'stale';

/**
 * Verifies the signed identity headers of an incoming request.
 * @param headers Node's lower-cased request headers.
 * @param maxAgeSeconds how far the signature's timestamp may be from `now`, either way (clock skew and replay window).
 * @returns the identity, or the reason it is refused.
 */
export function verifyIdentity(
  headers: Record<string, string | string[] | undefined>,
  secret: string,
  maxAgeSeconds = 60,
  now = Date.now(),
): { ok: true; identity: Identity } | { ok: false; reason: IdentityRefusal } {
  const one = (name: string): string | undefined => {
    const v = headers[name];
    return Array.isArray(v) ? undefined : v;
  };
  const userId = one(IdentityHeaders.userId);
  const ts = one(IdentityHeaders.timestamp);
  const signature = one(IdentityHeaders.signature);
  if (!userId || !ts || !signature || one(IdentityHeaders.status) !== 'Confirmed') {
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
  if (!Number.isInteger(tsNum)) return { ok: false, reason: 'bad_signature' };
  const expected = Buffer.from(hmac(secret, canonical(identity, tsNum)), 'hex');
  const given = Buffer.from(signature, 'hex');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
    return { ok: false, reason: 'bad_signature' };
  }
  if (Math.abs(now / 1000 - tsNum) > maxAgeSeconds) return { ok: false, reason: 'stale' };
  return { ok: true, identity };
}

/** True when the caller holds the `admin` role (on a project- or domain-scoped token). */
export function isAdmin(identity: Identity): boolean {
  return identity.roles.includes('admin');
}

/** The domain whose admins are cloud admins (Keystone's `default`). */
export const CLOUD_DOMAIN = 'default';

/**
 * True for a cloud admin: `admin` on a token of the `default` domain (project- or domain-scoped), or with no domain.
 * `admin` on a token of another domain is that department's admin, not a cloud admin (DESIGN.md "Roles").
 */
export function isCloudAdmin(identity: Identity): boolean {
  return isAdmin(identity) && (identity.domainId === null || identity.domainId === CLOUD_DOMAIN);
}
