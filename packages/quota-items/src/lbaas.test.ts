import { LBAAS_IN_USE_NAME, LBAAS_INPUT_NAMES, LBAAS_NEW_NAME, LBAAS_RESOURCES, MAX_QUOTA, QuotaLimit } from './lbaas';

describe('load balancer quota resources', () => {
  it("accepts Octavia's old and new spelling of every resource as input", () => {
    expect(LBAAS_INPUT_NAMES.loadbalancer).toBe('load_balancer');
    expect(LBAAS_INPUT_NAMES.load_balancer).toBe('load_balancer');
    expect(LBAAS_INPUT_NAMES.healthmonitor).toBe('health_monitor');
    expect(LBAAS_INPUT_NAMES.health_monitor).toBe('health_monitor');
    expect(Object.keys(LBAAS_INPUT_NAMES)).toHaveLength(LBAAS_RESOURCES.length + 2);
    for (const r of LBAAS_RESOURCES) expect(LBAAS_INPUT_NAMES[LBAAS_NEW_NAME[r]]).toBe(r);
  });

  it('names every in_use field after the storage key', () => {
    for (const r of LBAAS_RESOURCES) expect(LBAAS_IN_USE_NAME[r]).toBe(`in_use_${r}`);
  });

  it.each([
    [-2, false],
    [-1, true],
    [0, true],
    [MAX_QUOTA, true],
    [MAX_QUOTA + 1, false],
    [1.5, false],
    ['1', false],
  ])('QuotaLimit %p is valid: %p (an integer from -1 to 2,000,000,000)', (value, ok) => {
    expect(QuotaLimit.safeParse(value).success).toBe(ok);
  });
});
