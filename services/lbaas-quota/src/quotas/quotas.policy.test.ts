import { join } from 'node:path';
import { checkSampleFile } from '@stratum/policy';
import { QUOTA_RULES } from './quotas.policy';

describe('lbaas-quota policy sample', () => {
  it('etc/policy.yaml.sample lists every rule with its default (UPDATE_POLICY_SAMPLES=1 rewrites it)', () => {
    const { actual, expected } = checkSampleFile(
      join(__dirname, '..', '..', 'etc', 'policy.yaml.sample'),
      'Policy of the lbaas-quota service (Octavia quota API): every rule, commented out at its default.',
      QUOTA_RULES,
    );
    expect(actual).toBe(expected);
  });
});
