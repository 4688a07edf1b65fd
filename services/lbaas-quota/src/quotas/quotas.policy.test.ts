import { join } from 'node:path';
import { checkSampleFile } from '@stratum/policy';
import { QUOTA_POLICY_TITLE, QUOTA_RULES } from './quotas.policy';

describe('lbaas-quota policy sample', () => {
  it('etc/policy.yaml.sample lists every rule with its default (UPDATE_POLICY_SAMPLES=1 rewrites it)', () => {
    const { actual, expected } = checkSampleFile(join(__dirname, '..', '..', 'etc', 'policy.yaml.sample'), QUOTA_POLICY_TITLE, QUOTA_RULES);
    expect(actual).toBe(expected);
  });
});
