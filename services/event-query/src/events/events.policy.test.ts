import { join } from 'node:path';
import { checkSampleFile } from '@stratum/policy';
import { EVENT_POLICY_TITLE, EVENT_SERVICE_RULES } from './events.policy';

describe('event-query policy sample', () => {
  it('etc/policy.yaml.sample lists every rule with its default (UPDATE_POLICY_SAMPLES=1 rewrites it)', () => {
    const { actual, expected } = checkSampleFile(
      join(__dirname, '..', '..', 'etc', 'policy.yaml.sample'),
      EVENT_POLICY_TITLE,
      EVENT_SERVICE_RULES,
    );
    expect(actual).toBe(expected);
  });
});
