/**
 * POLICY_FILE: an operator's policy file changes who may do what without a code change, and a bad one stops the
 * service at start with a message naming the file, the rule and the position.
 */
import { join } from 'node:path';
import { startWithPolicy, writePolicyFile } from '@stratum/policy/testing';
import { startTestStack, type TestStack, tokenOf } from '@stratum/testing';
import request from 'supertest';

describe('lbaas-quota policy file', () => {
  let byDefault: TestStack;
  let granted: TestStack;
  beforeAll(async () => {
    byDefault = await startTestStack();
    // Readers become global observers: they may read any project's quotas, and still not write them.
    const file = writePolicyFile('"load-balancer:global_observer": "rule:load-balancer:admin or role:reader"\n');
    granted = await startTestStack({ lbaasEnv: { POLICY_FILE: file } });
  });
  afterAll(async () => {
    await byDefault?.close();
    await granted?.close();
  });

  it('by default a reader may not read another project', async () => {
    const res = await request(byDefault.gateway).get(`/v2.0/lbaas/quotas/${byDefault.projectB}`).set(tokenOf(byDefault, 'readerA'));
    expect(res.status).toBe(403);
    expect(res.body.faultstring).toBe('Policy does not allow this request to be performed.');
    const list = await request(byDefault.gateway)
      .get(`/v2.0/lbaas/quotas?project_id=${byDefault.projectB}`)
      .set(tokenOf(byDefault, 'readerA'));
    expect(list.body.quotas).toEqual([]);
  });

  it('a file granting readers global observation lets them read every project, and nothing more', async () => {
    const p = granted.projectB;
    await request(granted.gateway)
      .put(`/v2.0/lbaas/quotas/${p}`)
      .set(tokenOf(granted, 'admin'))
      .send({ quota: { member: 7 } })
      .expect(202);
    const show = await request(granted.gateway).get(`/v2.0/lbaas/quotas/${p}`).set(tokenOf(granted, 'readerA'));
    expect(show.status).toBe(200);
    expect(show.body.quota.member).toBe(7);
    const list = await request(granted.gateway).get(`/v2.0/lbaas/quotas?project_id=${p}`).set(tokenOf(granted, 'readerA'));
    expect(list.body.quotas.map((q: { project_id: string }) => q.project_id)).toEqual([p]);
    const put = await request(granted.gateway)
      .put(`/v2.0/lbaas/quotas/${p}`)
      .set(tokenOf(granted, 'readerA'))
      .send({ quota: { member: 1 } });
    expect(put.status).toBe(403);
    // The grant is to readers only: a department admin (no reader role) is still refused.
    expect((await request(granted.gateway).get(`/v2.0/lbaas/quotas/${p}`).set(tokenOf(granted, 'deptAdmin'))).status).toBe(403);
  });

  it.each([
    [
      'a check that does not parse',
      '"os_load-balancer_api:quota:put": "role:admin or"\n',
      [':1:35', 'rule "os_load-balancer_api:quota:put"', 'column 14'],
    ],
    ['an unknown rule name', '"os_load-balancer_api:quota:putt": "@"\n', ['rule "os_load-balancer_api:quota:putt"', 'unknown rule name']],
    ['a file that is not YAML', '"os_load-balancer_api:quota:put": [\n', ['not valid YAML or JSON']],
  ])('%s stops the service at start with a clear error', async (_what, text, parts) => {
    const { code, output, file } = await startWithPolicy(join(__dirname, '..', 'src', 'server.ts'), text, { REDIS_URL: '' });
    expect(code).toBe(1);
    expect(output).toContain(`policy file ${file}`);
    for (const p of parts) expect(output).toContain(p);
  });
});
