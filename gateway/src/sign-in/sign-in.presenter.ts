/**
 * The answer of `GET /console/auth/tokens`: the caller's validated identity (@stratum/identity `Identity`, as
 * tokens/tokens.keystone.ts `identityOfToken` maps a Keystone token and tokens/tokens.static.ts maps a static one)
 * in Keystone's words.
 */
import type { Identity } from '@stratum/identity';
import type { CallerToken } from './sign-in.schema';

type TokenScope = CallerToken['token']['scope'];

/**
 * What a token is scoped to, read from its identity, in this order:
 * - a project id → `project` (a project-scoped token; its identity's domain is the project's domain);
 * - a domain id without a project → `domain` (a domain-scoped token: a department admin holds `admin` there);
 * - roles without either → `system` (a system-scoped token; a static token without project and domain);
 * - no roles → `unscoped` (identityOfToken gives an unscoped Keystone token no roles; a static token always has one).
 */
export function scopeOf(identity: Identity): TokenScope {
  if (identity.projectId) return 'project';
  if (identity.domainId) return 'domain';
  return identity.roles.length > 0 ? 'system' : 'unscoped';
}

/** The caller's identity as `GET /console/auth/tokens` answers it (CallerToken). */
export function callerToken(identity: Identity): CallerToken {
  const scope = scopeOf(identity);
  const domain = identity.domainId ? { id: identity.domainId } : null;
  return {
    token: {
      user: { id: identity.userId },
      project: identity.projectId ? { id: identity.projectId, domain } : null,
      domain: scope === 'domain' ? domain : null,
      roles: identity.roles.map((name) => ({ name })),
      scope,
    },
  };
}
