/**
 * The route table: which group (and so which upstream and error shape) serves a path. The paths each group serves
 * are its service's contract (`@stratum/<service>/contract`), stated there once.
 *
 * Every path of the API contract (docs/api/README.md) is served at the root and also under one prefix per group, so
 * a Keystone catalog can give each service type its own endpoint (docs/decisions.md "Discovery").
 */
import { contract as domainContract } from '@stratum/domain-quota/contract';
import { contract as eventContract, INGEST_PATH } from '@stratum/event-query/contract';
import { type ErrorRenderer, renderKeystoneError, renderOctaviaError, renderPankoError } from '@stratum/http-kit';
import { contract as lbaasContract } from '@stratum/lbaas-quota/contract';
import type { ServiceContract } from '@stratum/openapi';
import { domainQuotaVersions, octaviaVersions, pankoVersions } from './versions';

export type Group = ServiceContract['group'];

/** Each group's service contract: its paths, error body and OpenAPI sections. */
export const CONTRACTS: Record<Group, ServiceContract> = { event: eventContract, lbaas: lbaasContract, domain: domainContract };

/**
 * Where Ceilometer's `http://` publisher posts events (admin only; one of the event group's paths). Not
 * `POST /v2/events`, which the API gives to listing. Ceilometer's publisher cannot send `X-Auth-Token`, only HTTP
 * Basic credentials from its URL, so on this path the gateway also takes the token from the Basic password
 * (`http://ceilometer:<token>@host/v2/ingest/events`).
 */
export { INGEST_PATH };

export interface GroupSpec {
  /** Catalog-style prefix, e.g. `/load-balancer`. */
  prefix: string;
  /** Paths (after the prefix) this group serves, from its contract; matched as whole path segments. */
  paths: readonly string[];
  render: ErrorRenderer;
  versions: (base: string) => unknown;
  /** Human name in outage messages. */
  name: string;
}

export const GROUPS: Record<Group, GroupSpec> = {
  event: {
    prefix: '/event',
    paths: CONTRACTS.event.paths,
    render: renderPankoError,
    versions: pankoVersions,
    name: 'event query',
  },
  lbaas: {
    prefix: '/load-balancer',
    paths: CONTRACTS.lbaas.paths,
    render: renderOctaviaError,
    versions: octaviaVersions,
    name: 'load balancer quota',
  },
  domain: {
    prefix: '/domain-quota',
    paths: CONTRACTS.domain.paths,
    render: renderKeystoneError,
    versions: domainQuotaVersions,
    name: 'department quota',
  },
};

const startsWithSegment = (path: string, prefix: string) => path === prefix || path.startsWith(`${prefix}/`);

/**
 * Keystone v3 collections that the official CLI looks up on the service endpoint itself when it is given an endpoint
 * and a token without Keystone (`--os-auth-type admin_token --os-endpoint URL`): `loadbalancer quota set <project>`
 * first asks `GET <URL>/projects/<id>`. A 404 there stops the CLI ("No project with a name or ID of … exists."); a 403
 * makes it use the id as given (osc `identity_common._find_identity_resource`), as against a Keystone that does not
 * let the caller read projects. So the gateway answers these look-ups 403 to any valid token.
 */
export const IDENTITY_LOOKUPS = ['/projects', '/domains', '/users', '/groups', '/roles'];

/** Where a request path goes. */
export type Resolution =
  | { kind: 'proxy'; group: Group /** path for the upstream (group prefix removed) */; path: string; prefix: string }
  | { kind: 'versions'; group: Group; prefix: string }
  /** `<prefix>/healthcheck`: the group's own health check, public like Panko's and Octavia's. */
  | { kind: 'health'; group: Group; prefix: string }
  /** A Keystone look-up (IDENTITY_LOOKUPS) at the root or under a group's prefix. */
  | { kind: 'identity' }
  | { kind: 'none' };

/** Resolves a path (no query string). */
export function resolve(path: string): Resolution {
  for (const [group, spec] of Object.entries(GROUPS) as [Group, GroupSpec][]) {
    if (path === spec.prefix || path === `${spec.prefix}/`) return { kind: 'versions', group, prefix: spec.prefix };
    if (path === `${spec.prefix}/healthcheck`) return { kind: 'health', group, prefix: spec.prefix };
    const inner = startsWithSegment(path, spec.prefix) ? path.slice(spec.prefix.length) : null;
    for (const p of spec.paths) {
      if (inner !== null && startsWithSegment(inner, p)) return { kind: 'proxy', group, path: inner, prefix: spec.prefix };
    }
  }
  for (const [group, spec] of Object.entries(GROUPS) as [Group, GroupSpec][]) {
    for (const p of spec.paths) if (startsWithSegment(path, p)) return { kind: 'proxy', group, path, prefix: '' };
  }
  const inner = Object.values(GROUPS).find((spec) => startsWithSegment(path, spec.prefix));
  const rest = inner ? path.slice(inner.prefix.length) : path;
  if (IDENTITY_LOOKUPS.some((p) => startsWithSegment(rest, p))) return { kind: 'identity' };
  return { kind: 'none' };
}
