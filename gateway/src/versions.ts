/**
 * Versions documents, one per group, each in its upstream's shape.
 */

/** The base URL links point at: PUBLIC_URL, a trusted proxy's forwarded origin, or the request's own (public-url.ts). */
export type BaseUrl = string;

/**
 * Octavia's `GET /` (octavia/api/root_controller.py): a list of versions whose links point at `<base>/v2`.
 * openstacksdk's discovery needs the `v2` link.
 */
export function octaviaVersions(base: BaseUrl) {
  const link = [{ href: `${base}/v2`, rel: 'self' }];
  return {
    versions: [
      { id: 'v2.0', status: 'SUPPORTED', updated: '2016-12-11T00:00:00Z', links: link },
      { id: 'v2.27', status: 'CURRENT', updated: '2023-05-05T00:00:00Z', links: link },
    ],
  };
}

/** Panko's `GET /` (panko/api/controllers/root.py). */
export function pankoVersions(base: BaseUrl) {
  return {
    versions: {
      values: [
        {
          id: 'v2',
          status: 'stable',
          updated: '2013-02-13T00:00:00Z',
          links: [
            { href: `${base}/v2`, rel: 'self' },
            { href: 'https://docs.openstack.org/', rel: 'describedby', type: 'text/html' },
          ],
          'media-types': [{ base: 'application/json', type: 'application/vnd.openstack.telemetry-v2+json' }],
        },
      ],
    },
  };
}

/** Keystone-style version document for the department quota group (`/v3`). */
export function domainQuotaVersions(base: BaseUrl) {
  return {
    versions: {
      values: [
        {
          id: 'v3.0',
          status: 'stable',
          updated: '2026-11-01T00:00:00Z',
          links: [{ href: `${base}/v3/`, rel: 'self' }],
          'media-types': [{ base: 'application/json', type: 'application/vnd.openstack.identity-v3+json' }],
        },
      ],
    },
  };
}
