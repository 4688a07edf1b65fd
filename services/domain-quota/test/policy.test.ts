/**
 * POLICY_FILE: an operator's policy file changes who may do what without a code change, and a bad one stops the
 * service at start with a message naming the file, the rule and the position.
 */
import { join } from 'node:path';
import { startWithPolicy, writePolicyFile } from '@stratum/policy/testing';
import { startTestStack, type TestStack, tokenOf } from '@stratum/testing';
import request from 'supertest';

describe('domain-quota policy file', () => {
  let byDefault: TestStack;
  let granted: TestStack;
  beforeAll(async () => {
    byDefault = await startTestStack();
    // Department admins may read their own department's audit log (by default only the cloud admin may).
    const file = writePolicyFile('"identity:get_domain_quota_audit": "rule:cloud_admin or rule:domain_admin"\n');
    granted = await startTestStack({ domainEnv: { POLICY_FILE: file } });
  });
  afterAll(async () => {
    await byDefault?.close();
    await granted?.close();
  });

  it("by default a department admin may not read its department's audit log", async () => {
    const res = await request(byDefault.gateway)
      .get(`/v3/domain_quotas/${byDefault.deptDomainId}/audit`)
      .set(tokenOf(byDefault, 'deptAdmin'));
    expect(res.status).toBe(403);
    expect(res.body.error.message).toBe('You are not authorized to perform the requested action.');
  });

  it("a file granting it lets the department admin read its own department's audit log, not another's", async () => {
    const own = await request(granted.gateway).get(`/v3/domain_quotas/${granted.deptDomainId}/audit`).set(tokenOf(granted, 'deptAdmin'));
    expect(own.status).toBe(200);
    expect(Array.isArray(own.body.audit)).toBe(true);
    const other = await request(granted.gateway).get('/v3/domain_quotas/default/audit').set(tokenOf(granted, 'deptAdmin'));
    expect(other.status).toBe(403);
    // Everything else keeps its default: the department admin still may not change its quotas.
    const patch = await request(granted.gateway)
      .patch(`/v3/domain_quotas/${granted.deptDomainId}`)
      .set(tokenOf(granted, 'deptAdmin'))
      .send({ domain: { quotas: {} } });
    expect(patch.status).toBe(403);
  });

  it.each([
    [
      'a check that does not parse',
      'domain_admin: "role:admin and (domain_id:%(target.domain.id)s"\n',
      [':1:15', 'rule "domain_admin"', 'column 16'],
    ],
    ['an unknown rule name', '"identity:get_domain_quotas": "@"\n', ['rule "identity:get_domain_quotas"', 'unknown rule name']],
    ['a rule referring to nothing', '"identity:get_domain_usage": "rule:cloud_admins"\n', ['rule:cloud_admins, which is not defined']],
  ])('%s stops the service at start with a clear error', async (_what, text, parts) => {
    const { code, output, file } = await startWithPolicy(join(__dirname, '..', 'src', 'server.ts'), text, { REDIS_URL: '', AMQP_URL: '' });
    expect(code).toBe(1);
    expect(output).toContain(`policy file ${file}`);
    for (const p of parts) expect(output).toContain(p);
  });
});
