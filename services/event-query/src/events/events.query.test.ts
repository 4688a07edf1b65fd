import { translateComplexFilter, translateOrderBy, translateSimpleQuery } from './events.query';

describe('query translation', () => {
  it('maps timestamp to generated in canonical form and traits to the t map', () => {
    expect(translateComplexFilter({ and: [{ '>=': { timestamp: '2026-11-20T00:00:00' } }, { '=': { 'resource.id': 'x' } }] })).toEqual({
      $and: [{ generated: { $gte: '2026-11-20T00:00:00.000000' } }, { 't.resource%2Eid': { $eq: 'x' } }],
    });
  });

  it('bounds nesting depth so a hostile filter cannot cost unbounded work', () => {
    let f: unknown = { '=': { a: 1 } };
    for (let i = 0; i < 40; i++) f = { not: f };
    expect(() => translateComplexFilter(f)).toThrow(/nested deeper than/);
  });

  it('appends message_id as a tiebreaker to the order', () => {
    expect(translateOrderBy([{ timestamp: 'DESC' }])).toEqual([
      ['generated', -1],
      ['_id', -1],
    ]);
  });

  it('lets only admins lift the project restriction with all_tenants', () => {
    expect(translateSimpleQuery([{ field: 'all_tenants', op: 'eq', value: 'True', type: '' }], true).allTenants).toBe(true);
    const member = translateSimpleQuery([{ field: 'all_tenants', op: 'eq', value: 'True', type: '' }], false);
    expect(member.allTenants).toBe(false);
    expect(member.filter).toEqual({ 't.all_tenants': { $eq: 'True' } });
  });
});
