/** The route table: which group, upstream path and prefix a request path resolves to (pure). */
import { CONTRACTS, GROUPS, type Group, IDENTITY_LOOKUPS, INGEST_PATH, resolve } from './routes';

describe('GROUPS', () => {
  it('takes each group its paths from the service contract of that group', () => {
    for (const group of Object.keys(GROUPS) as Group[]) {
      expect([group, CONTRACTS[group].group]).toEqual([group, group]);
      expect(GROUPS[group].paths).toBe(CONTRACTS[group].paths);
      expect(GROUPS[group].paths.length).toBeGreaterThan(0);
    }
    expect(GROUPS.event.paths).toContain(INGEST_PATH);
  });

  it('gives each group a distinct prefix that no path of any group starts with', () => {
    const prefixes = Object.values(GROUPS).map((g) => g.prefix);
    expect(new Set(prefixes).size).toBe(prefixes.length);
    for (const spec of Object.values(GROUPS)) {
      for (const prefix of prefixes) for (const p of spec.paths) expect([p, p.startsWith(`${prefix}/`)]).toEqual([p, false]);
    }
  });
});

describe('resolve', () => {
  it.each([
    ['/v2/events', 'event', '/v2/events'],
    ['/v2/events/abc', 'event', '/v2/events/abc'],
    ['/v2/query/events', 'event', '/v2/query/events'],
    ['/v2/event_types/compute.instance.create.end/traits', 'event', '/v2/event_types/compute.instance.create.end/traits'],
    [INGEST_PATH, 'event', INGEST_PATH],
    ['/v2.0/lbaas/quotas', 'lbaas', '/v2.0/lbaas/quotas'],
    ['/v2/lbaas/quotas/p1', 'lbaas', '/v2/lbaas/quotas/p1'],
    ['/v2.0/quotas/defaults', 'lbaas', '/v2.0/quotas/defaults'],
    ['/v2/quotas/p1/usage', 'lbaas', '/v2/quotas/p1/usage'],
    ['/v3/domain_quotas/d1/projects/p1', 'domain', '/v3/domain_quotas/d1/projects/p1'],
    ['/v3/domain_usage', 'domain', '/v3/domain_usage'],
    ['/v3/domain_quota_registry/regions/r1', 'domain', '/v3/domain_quota_registry/regions/r1'],
  ])('proxies %s at the root to %s as %s', (path, group, upstream) => {
    expect(resolve(path)).toEqual({ kind: 'proxy', group, path: upstream, prefix: '' });
  });

  it.each([
    ['/event/v2/events/abc', 'event', '/v2/events/abc', '/event'],
    ['/load-balancer/v2/lbaas/quotas', 'lbaas', '/v2/lbaas/quotas', '/load-balancer'],
    ['/load-balancer/v2.0/quotas/p1', 'lbaas', '/v2.0/quotas/p1', '/load-balancer'],
    ['/domain-quota/v3/domain_usage', 'domain', '/v3/domain_usage', '/domain-quota'],
  ])('proxies %s under its group prefix to %s as %s', (path, group, upstream, prefix) => {
    expect(resolve(path)).toEqual({ kind: 'proxy', group, path: upstream, prefix });
  });

  it('matches whole path segments only', () => {
    for (const path of ['/v2/eventsx', '/v2/events.json', '/v2.0/lbaas/quotasx', '/v3/domain_usage2', '/v2', '/v3', '/eventx/v2/events']) {
      expect([path, resolve(path).kind]).toEqual([path, 'none']);
    }
  });

  it("does not serve a group's path under another group's prefix as that group's", () => {
    // The path after a foreign prefix is not one of that group's paths; the whole path is no group's either.
    expect(resolve('/event/v2.0/lbaas/quotas')).toEqual({ kind: 'none' });
    expect(resolve('/load-balancer/v3/domain_usage')).toEqual({ kind: 'none' });
  });

  it('serves the versions document at each prefix, with or without a trailing slash', () => {
    for (const group of Object.keys(GROUPS) as Group[]) {
      const prefix = GROUPS[group].prefix;
      expect(resolve(prefix)).toEqual({ kind: 'versions', group, prefix });
      expect(resolve(`${prefix}/`)).toEqual({ kind: 'versions', group, prefix });
    }
  });

  it("answers a group's health check under its prefix only", () => {
    expect(resolve('/event/healthcheck')).toEqual({ kind: 'health', group: 'event', prefix: '/event' });
    expect(resolve('/load-balancer/healthcheck')).toEqual({ kind: 'health', group: 'lbaas', prefix: '/load-balancer' });
    expect(resolve('/domain-quota/healthcheck')).toEqual({ kind: 'health', group: 'domain', prefix: '/domain-quota' });
    // The root health check is the gateway's own.
    expect(resolve('/healthcheck')).toEqual({ kind: 'none' });
    expect(resolve('/event/healthcheck/x')).toEqual({ kind: 'none' });
  });

  it('finds the Keystone look-ups at the root and under any group prefix', () => {
    for (const collection of IDENTITY_LOOKUPS) {
      for (const path of [collection, `${collection}/abc`, `/load-balancer${collection}/abc`, `/event${collection}`]) {
        expect([path, resolve(path)]).toEqual([path, { kind: 'identity' }]);
      }
    }
    expect(resolve('/projectsx')).toEqual({ kind: 'none' });
    expect(resolve('/v3/projects')).toEqual({ kind: 'none' });
  });

  it("leaves the gateway's own paths to it", () => {
    for (const path of ['/', '/ready', '/openapi.json', '/docs', '/docs/init.js', '/nowhere']) {
      expect([path, resolve(path)]).toEqual([path, { kind: 'none' }]);
    }
  });
});
