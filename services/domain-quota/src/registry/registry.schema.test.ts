/**
 * The registry's request schemas at their bounds (MIN−1/MIN/MAX/MAX+1 of each length, every forbidden character),
 * and the 400s the registry routes answer with (errors.invalidRequest).
 */
import { SECURE_CONTAINER_PRODUCT } from '@stratum/quota-items';
import type { z } from 'zod';
import { invalidRequest } from '../errors';
import {
  DomainBody,
  DomainParams,
  KeystoneId,
  PathSafeName,
  ProjectBody,
  ProjectsQuery,
  RegionBody,
  RegionName,
  SafeText,
  UsageBody,
} from './registry.schema';

const ok = (schema: z.ZodType, v: unknown) => schema.safeParse(v).success;
const UNSAFE = ['\u0000', '\u001f', '\u007f', '\u0085', '\u200b', '\u200e', '\u202e', '\u2028', '\u2066', '\ufeff'];

describe('names and ids', () => {
  it.each([
    ['KeystoneId', KeystoneId, 64],
    ['SafeText', SafeText, 255],
    ['PathSafeName', PathSafeName, 255],
    ['RegionName', RegionName, 255],
  ] as const)('%s: 1 to %d characters', (_name, schema, max) => {
    expect(ok(schema, '')).toBe(false);
    expect(ok(schema, 'a')).toBe(true);
    expect(ok(schema, 'a'.repeat(max))).toBe(true);
    expect(ok(schema, 'a'.repeat(max + 1))).toBe(false);
  });

  it.each([
    ['KeystoneId', KeystoneId],
    ['SafeText', SafeText],
    ['PathSafeName', PathSafeName],
    ['RegionName', RegionName],
  ] as const)('%s: no control or bidirectional formatting characters', (_name, schema) => {
    for (const ch of UNSAFE) expect([JSON.stringify(ch), ok(schema, `a${ch}b`)]).toEqual([JSON.stringify(ch), false]);
  });

  it('path-safe names: no dots, $ or whitespace; region names and ids also no slashes; display names allow them', () => {
    for (const bad of ['a.b', 'a$b', 'a b', 'a\tb']) {
      expect([bad, ok(PathSafeName, bad), ok(RegionName, bad), ok(KeystoneId, bad)]).toEqual([bad, false, false, false]);
    }
    expect([ok(PathSafeName, 'a/b'), ok(RegionName, 'a/b'), ok(KeystoneId, 'a/b')]).toEqual([true, false, false]);
    expect(ok(SafeText, 'Finance dept. $1/2')).toBe(true);
  });
});

describe('bodies and parameters through invalidRequest', () => {
  /** The route's answer to `input` in `part`: its value, or its 400's message and details. */
  const answer = (schema: z.ZodType, input: unknown, part: 'params' | 'query' | 'body' = 'body') => {
    const parsed = schema.safeParse(input);
    if (parsed.success) return { value: parsed.data };
    const e = invalidRequest({ part, issues: parsed.error.issues });
    return { status: e.status, message: e.message, details: e.details };
  };

  it('a region body: volume types and products default to none; products are the catalogue', () => {
    expect(answer(RegionBody, { region: {} })).toEqual({ value: { region: { volume_types: [], products: [] } } });
    expect(answer(RegionBody, { region: { products: [SECURE_CONTAINER_PRODUCT] } }).value).toBeDefined();
    const bad = answer(RegionBody, { region: { volume_types: ['ssd', 'a.b'], products: ['nope'] } });
    expect(bad.status).toBe(400);
    expect(bad.details).toEqual([
      { field: 'region.volume_types.1', reason: 'must not contain dots, $ or whitespace' },
      { field: 'region.products.0', reason: expect.any(String) },
    ]);
    expect(bad.message).toMatch(/^Invalid input: region\.volume_types\.1: must not contain dots, \$ or whitespace; region\.products\.0: /);
  });

  it('bodies are strict: an unknown member is refused, at the top and inside', () => {
    expect(answer(DomainBody, { domain: { name: 'x' }, extra: 1 }).status).toBe(400);
    expect(answer(DomainBody, { domain: { name: 'x', extra: 1 } }).status).toBe(400);
    expect(answer(ProjectBody, { project: { domain_id: 'd', name: 'n' } }).value).toBeDefined();
    expect(answer(ProjectBody, { project: { name: 'n' } }).details).toEqual([{ field: 'project.domain_id', reason: expect.any(String) }]);
  });

  it('a body that is not an object names the whole body', () => {
    expect(answer(DomainBody, undefined)).toMatchObject({ status: 400, details: [{ field: '(body)', reason: expect.any(String) }] });
  });

  it('usage: values are numbers per item; collected_at an ISO-8601 time with its offset', () => {
    expect(answer(UsageBody, { usage: { values: { cores: 1.5 } } }).value).toBeDefined();
    expect(answer(UsageBody, { usage: { values: {}, collected_at: '2026-01-01T00:00:00+02:00' } }).value).toBeDefined();
    expect(answer(UsageBody, { usage: { values: {}, collected_at: 'yesterday' } }).details).toEqual([
      { field: 'usage.collected_at', reason: expect.any(String) },
    ]);
    expect(answer(UsageBody, { usage: { values: { cores: '1' } } }).status).toBe(400);
  });

  it('an id in the path: `Invalid input: <param> <reason>`', () => {
    expect(answer(DomainParams, { domain_id: 'a.b' }, 'params')).toEqual({
      status: 400,
      message: 'Invalid input: domain_id must not contain dots, slashes, $ or whitespace',
      details: undefined,
    });
  });

  it('?domain_id= given twice is a 400', () => {
    expect(answer(ProjectsQuery, { domain_id: ['a', 'b'] }, 'query')).toEqual({
      status: 400,
      message: 'Invalid input: domain_id must be given once',
      details: undefined,
    });
    expect(answer(ProjectsQuery, {})).toEqual({ value: {} });
  });
});
