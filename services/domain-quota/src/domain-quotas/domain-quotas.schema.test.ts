/**
 * The department quota request schemas and the reading of a PATCH body's items: the wire texts of each refusal
 * (through the routes' InvalidRequestErrors), and every item's bounds (MIN−1/MIN/MAX/MAX+1) and units (three
 * decimals where the item allows them, integers otherwise).
 */
import type { InvalidRequestError, RequestPart } from '@stratum/http-kit';
import { FIXED_ITEMS, MAX_ITEM_VALUE, regionItems, SECURE_CONTAINER_PRODUCT, UNLIMITED } from '@stratum/quota-items';
import type { z } from 'zod';
import { invalidQuotaPatch, invalidRequest } from '../errors';
import { AuditQuery, DomainPatchBody, DryRunQuery, ProjectPatchBody } from './domain-quotas.schema';
import { type Catalog, patchRequestOf } from './domain-quotas.service';

/** What a route answers for `input` in `part`: its value, or the status, message and details of its refusal. */
function outcome(schema: z.ZodType, input: unknown, part: RequestPart = 'body', invalid: InvalidRequestError = invalidQuotaPatch) {
  const parsed = schema.safeParse(input);
  if (parsed.success) return { ok: parsed.data };
  const e = invalid({ part, issues: parsed.error.issues });
  return { status: e.status, message: e.message, details: e.details };
}

/** A thrown error's status, message and details (or the value when nothing was thrown). */
function attempt<T>(f: () => T) {
  try {
    return { ok: f() };
  } catch (e) {
    const err = e as { status: number; message: string; details?: unknown[] };
    return { status: err.status, message: err.message, details: err.details };
  }
}

/** A region with one volume type and, when `secure`, the secure container product. */
const buildCatalog = (secure = true): Map<string, Catalog> => {
  const products = secure ? [SECURE_CONTAINER_PRODUCT] : [];
  return new Map([['R1', { items: regionItems({ volumeTypes: ['ssd'], products }), products }]]);
};

describe('PATCH body shape (quotaPatchBody)', () => {
  it.each([
    [undefined, 'Invalid input: the body must be {"domain": {...}}'],
    [[], 'Invalid input: the body must be {"domain": {...}}'],
    ['x', 'Invalid input: the body must be {"domain": {...}}'],
    [{}, 'Invalid input: the body must have exactly one member, "domain"'],
    [{ other: {} }, 'Invalid input: the body must have exactly one member, "domain"'],
    [{ domain: { region: 'R1', cores: 1 }, other: 1 }, 'Invalid input: the body must have exactly one member, "domain"'],
    [{ domain: { cores: 1 }, other: 1 }, 'Invalid input: the body must have exactly one member, "domain"'],
    [{ domain: 1 }, 'Invalid input: "domain" must be an object'],
    [{ domain: [] }, 'Invalid input: "domain" must be an object'],
    [{ domain: { cores: 1 } }, 'Invalid input: "domain.region" is required and must be a string'],
    [{ domain: { region: '' } }, 'Invalid input: "domain.region" is required and must be a string'],
    [{ domain: { region: 5 } }, 'Invalid input: "domain.region" is required and must be a string'],
  ])('%j is a 400: %s (no details)', (body, message) => {
    expect(outcome(DomainPatchBody, body)).toEqual({ status: 400, message, details: undefined });
  });

  it('names the project wrapper in a project PATCH', () => {
    expect(outcome(ProjectPatchBody, { domain: { region: 'R1' } }).message).toBe(
      'Invalid input: the body must have exactly one member, "project"',
    );
  });

  it('passes the inner object on as given, so an own `__proto__` member reaches the item check', () => {
    const body = JSON.parse('{"domain": {"region": "R1", "cores": 5, "__proto__": 1}}');
    const parsed = DomainPatchBody.parse(body);
    expect(Object.keys(parsed.domain)).toEqual(['region', 'cores', '__proto__']);
    expect(attempt(() => patchRequestOf(parsed.domain, buildCatalog())).details).toEqual([
      { region: 'R1', item: '__proto__', reason: 'unknown_item' },
    ]);
  });
});

describe('PATCH items against the region (patchRequestOf)', () => {
  const catalog = buildCatalog();
  const items = [...(catalog.get('R1') as Catalog).items];
  const read = (item: string, value: unknown) => attempt(() => patchRequestOf({ region: 'R1', [item]: value }, catalog));
  const refusal = (item: string, value: unknown, reason: string) => ({
    status: 400,
    message: `Invalid input: quota item(s) not acceptable in region R1: ${item}`,
    details: [{ region: 'R1', item, requested: value, reason }],
  });

  it.each(items)('%s: -1 is unlimited, 0 and MAX are accepted, -2, -0.5 and MAX+1 are out of range', (item) => {
    expect(read(item, -1).ok?.items.get(item)).toBe(UNLIMITED);
    expect(read(item, 0).ok?.items.get(item)).toBe(0);
    expect(read(item, MAX_ITEM_VALUE).ok?.items.get(item)).toBe(MAX_ITEM_VALUE * 1000);
    for (const bad of [-2, -0.5, MAX_ITEM_VALUE + 1]) expect(read(item, bad)).toEqual(refusal(item, bad, 'out_of_range'));
    expect(read(item, '10')).toEqual(refusal(item, '10', 'not_a_number'));
    expect(read(item, null)).toEqual(refusal(item, null, 'not_a_number'));
  });

  it.each(items)('%s: decimals only where the item is not a count (three at most)', (item, spec) => {
    if (spec.scale === 0) {
      expect(read(item, 1.5)).toEqual(refusal(item, 1.5, 'too_many_decimals'));
    } else {
      expect(read(item, 0.001).ok?.items.get(item)).toBe(1);
      expect(read(item, 1024.125).ok?.items.get(item)).toBe(1_024_125);
      expect(read(item, 0.0001)).toEqual(refusal(item, 0.0001, 'too_many_decimals'));
    }
  });

  it('reads both spellings into the singular, and refuses an item given in both', () => {
    expect([...(read('networks', 3).ok?.items ?? [])]).toEqual([['network', 3000]]);
    expect(attempt(() => patchRequestOf({ region: 'R1', network: 1, networks: 2 }, catalog)).details).toEqual([
      { region: 'R1', item: 'networks', reason: 'duplicate_item' },
    ]);
  });

  it('refuses an unknown region first, then a body without items, then every bad item at once', () => {
    expect(attempt(() => patchRequestOf({ region: 'Nowhere', colour: 1 }, catalog))).toEqual({
      status: 400,
      message: "Region 'Nowhere' does not exist",
      details: [{ region: 'Nowhere', reason: 'unknown_region' }],
    });
    expect(attempt(() => patchRequestOf({ region: 'R1' }, catalog))).toEqual({
      status: 400,
      message: 'Invalid input: no quota items given',
      details: undefined,
    });
    const all = attempt(() => patchRequestOf({ region: 'R1', colour: 1, volumes_nope: 1, cores: 1.5, instances: 2 }, catalog));
    expect(all.message).toBe('Invalid input: quota item(s) not acceptable in region R1: colour, volumes_nope, cores');
    expect(all.details).toEqual([
      { region: 'R1', item: 'colour', reason: 'unknown_item' },
      { region: 'R1', item: 'volumes_nope', reason: 'unknown_volume_type' },
      { region: 'R1', item: 'cores', requested: 1.5, reason: 'too_many_decimals' },
    ]);
  });

  it('secure container items exist only where the product is installed', () => {
    const bare = buildCatalog(false);
    for (const [item, spec] of Object.entries(FIXED_ITEMS)) {
      if (spec.area !== 'secure_container') continue;
      expect(attempt(() => patchRequestOf({ region: 'R1', [item]: 1 }, bare)).details).toEqual([
        { region: 'R1', item, reason: 'item_unavailable' },
      ]);
    }
  });
});

describe('?dry_run= (DryRunQuery)', () => {
  it.each([
    ['1', true],
    ['t', true],
    ['True', true],
    [' yes ', true],
    ['ON', true],
    ['y', true],
    ['0', false],
    ['f', false],
    ['False', false],
    ['no', false],
    ['off', false],
    ['n', false],
  ])('%j reads as %s', (value, dryRun) => {
    expect(DryRunQuery.parse({ dry_run: value })).toEqual({ dry_run: dryRun });
  });

  it('absent is no dry run (undefined)', () => {
    expect(DryRunQuery.parse({})).toEqual({});
  });

  it.each([['maybe'], [''], ['2'], [['true', 'true']]])('%j is a 400 naming dry_run', (value) => {
    expect(outcome(DryRunQuery, { dry_run: value }, 'query')).toEqual({
      status: 400,
      message: 'Invalid input: dry_run must be true or false',
      details: undefined,
    });
  });
});

describe('audit query (AuditQuery)', () => {
  it.each([
    ['1', 1],
    ['100', 100],
    ['1000', 1000],
    ['007', 7],
  ])('limit %j reads as %d', (limit, n) => {
    expect(AuditQuery.parse({ limit }).limit).toBe(n);
  });

  it.each([['0'], ['1001'], ['-1'], ['1.5'], ['ten'], [''], [['1', '2']]])('limit %j is a 400', (limit) => {
    expect(outcome(AuditQuery, { limit }, 'query', invalidRequest)).toEqual({
      status: 400,
      message: 'Invalid input: limit must be an integer from 1 to 1000',
      details: undefined,
    });
  });

  it('a marker is read once; given twice it reads as none (the first page)', () => {
    expect(AuditQuery.parse({ marker: 'abc' })).toEqual({ marker: 'abc' });
    expect(AuditQuery.parse({ marker: ['a', 'b'] }).marker).toBeUndefined();
  });
});
