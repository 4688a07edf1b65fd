import { join } from 'node:path';
import { checkSampleFile } from '@stratum/policy';
import { EVENT_SERVICE_RULES } from './events.policy';

describe('event-query policy sample', () => {
  it('etc/policy.yaml.sample lists every rule with its default (UPDATE_POLICY_SAMPLES=1 rewrites it)', () => {
    const { actual, expected } = checkSampleFile(
      join(__dirname, '..', '..', 'etc', 'policy.yaml.sample'),
      'Policy of the event-query service (Panko API): every rule, commented out at its default.',
      EVENT_SERVICE_RULES,
    );
    expect(actual).toBe(expected);
  });
});
