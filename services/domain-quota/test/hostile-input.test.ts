/**
 * Client input the department quota service must refuse with a 400 in Keystone's shape, never a 5xx or a 2xx:
 * quota items named after Object.prototype's members, and control or bidirectional formatting characters in the ids
 * and names the registry stores.
 */
import { loadRegistryFile } from '@stratum/deploy';
import { startTestStack, type TestStack, tokenOf } from '@stratum/testing';
import request from 'supertest';
import { stringify } from 'yaml';

const PROTO_NAMES = ['constructor', 'toString', 'hasOwnProperty', '__proto__', 'valueOf'];
const REG = '/v3/domain_quota_registry';

describe('hostile input to the department quota service', () => {
  let stack: TestStack;
  beforeAll(async () => {
    stack = await startTestStack();
    await loadRegistryFile(
      stack.db,
      stringify({
        regions: [{ name: 'R1', volume_types: ['ssd'], products: [] }],
        departments: [
          { id: 'default', name: 'Cloud', quotas: { R1: { cores: 100 } } },
          { id: 'dept-h', name: 'H', quotas: { R1: { cores: 10 } } },
        ],
        projects: [{ id: 'p-h', name: 'h', domain_id: 'dept-h', quotas: { R1: { cores: 1 } } }],
      }),
    );
  });
  afterAll(() => stack.close());

  const admin = () => tokenOf(stack, 'admin');
  /** A raw JSON body (so `__proto__` is an own key, as JSON.parse makes it). */
  const send = (method: 'patch' | 'put', path: string, json: string) =>
    request(stack.gateway)[method](path).set(admin()).set('Content-Type', 'application/json').send(json);
  const expect400 = (res: request.Response, what: string) => {
    expect([what, res.status]).toEqual([what, 400]);
    expect(res.body.error).toMatchObject({ code: 400, title: 'Bad Request' });
  };

  it('quota items named after prototype members are unknown items (400), in department, cloud and project PATCHes and usage', async () => {
    for (const name of PROTO_NAMES) {
      const item = `"${name}": 1`;
      expect400(await send('patch', '/v3/domain_quotas/dept-h', `{"domain": {"region": "R1", ${item}}}`), `department ${name}`);
      expect400(await send('patch', '/v3/domain_quotas/default', `{"domain": {"region": "R1", ${item}}}`), `cloud ${name}`);
      expect400(await send('patch', '/v3/domain_quotas/dept-h/projects/p-h', `{"project": {"region": "R1", ${item}}}`), `project ${name}`);
      const mixed = await send('patch', '/v3/domain_quotas/dept-h', `{"domain": {"region": "R1", "cores": 5, ${item}}}`);
      expect400(mixed, `department cores + ${name}`);
      expect(mixed.body.error.details).toEqual([expect.objectContaining({ item: name, reason: 'unknown_item' })]);
      const usage = await send('put', `${REG}/usage/R1`, `{"usage": {"values": {${item}}}}`);
      expect([name, usage.status < 500]).toEqual([name, true]);
    }
    // Nothing was applied.
    const view = await request(stack.gateway).get('/v3/domain_quotas/dept-h').set(admin()).expect(200);
    expect(view.body.domain.R1.quotas.cores).toBe(10);
  });

  it('control and bidirectional formatting characters in stored ids and names are 400s', async () => {
    const bad = [
      '\u0000',
      '\u0007',
      '\u001f',
      '\u007f',
      '\u200e',
      '\u200f',
      '\u202a',
      '\u202e',
      '\u2066',
      '\u2069',
      '\u0085',
      '\u200b',
      '\u2060',
      '\ufeff',
      '\u2028',
    ];
    for (const ch of bad) {
      const id = `evil${ch}id`;
      const hex = `U+${ch.charCodeAt(0).toString(16).padStart(4, '0')}`;
      const path = (collection: string) => `${REG}/${collection}/${encodeURIComponent(id)}`;
      const body = (o: unknown) => JSON.stringify(o);
      // Ids in the path: a domain, a project, a region.
      expect400(await send('put', path('domains'), body({ domain: { name: 'ok' } })), `domain id ${hex}`);
      expect400(await send('put', path('projects'), body({ project: { domain_id: 'dept-h', name: 'ok' } })), `project id ${hex}`);
      expect400(await send('put', path('regions'), body({ region: { volume_types: [], products: [] } })), `region ${hex}`);
      // Names, a project's department and a volume type in bodies.
      expect400(await send('put', `${REG}/domains/fine-id`, body({ domain: { name: `name${ch}` } })), `domain name ${hex}`);
      expect400(
        await send('put', `${REG}/projects/fine-p`, body({ project: { domain_id: 'dept-h', name: `n${ch}` } })),
        `project name ${hex}`,
      );
      expect400(await send('put', `${REG}/projects/fine-p`, body({ project: { domain_id: id, name: 'n' } })), `project domain_id ${hex}`);
      expect400(
        await send('put', `${REG}/regions/R1`, body({ region: { volume_types: ['ssd', `t${ch}`], products: [] } })),
        `volume type ${hex}`,
      );
    }
    // None of them was stored.
    const domains = (await request(stack.gateway).get(`${REG}/domains`).set(admin()).expect(200)).body.domains as { id: string }[];
    expect(domains.map((d) => d.id).sort()).toEqual(['default', 'dept-h']);
    const projects = (await request(stack.gateway).get(`${REG}/projects`).set(admin()).expect(200)).body.projects as { id: string }[];
    expect(projects.map((p) => p.id)).toEqual(['p-h']);
  });
});
