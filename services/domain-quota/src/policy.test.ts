import { join } from 'node:path';
import { checkSampleFile } from '@stratum/policy';
import { DOMAIN_POLICY_TITLE, DOMAIN_SERVICE_RULES } from './policy';

describe('domain-quota policy sample', () => {
  it('etc/policy.yaml.sample lists every rule with its default (UPDATE_POLICY_SAMPLES=1 rewrites it)', () => {
    const { actual, expected } = checkSampleFile(
      join(__dirname, '..', 'etc', 'policy.yaml.sample'),
      DOMAIN_POLICY_TITLE,
      DOMAIN_SERVICE_RULES,
    );
    expect(actual).toBe(expected);
  });
});
