/**
 * What the group B integration files share: a stack whose load balancer defaults are random per run, with one pinned
 * to unlimited, as Octavia's functional tests do, so -1 is always exercised; and the steps both files repeat.
 */
import { randomBytes } from 'node:crypto';
import { startTestStack, type TestStack, tokenOf } from '@stratum/testing';
import request from 'supertest';

/** Octavia's functional tests randomise the defaults each run and pin one to unlimited so -1 is always exercised. */
const rnd = () => String(Math.floor(Math.random() * 9000));
const DEFAULTS = { load_balancer: rnd(), listener: rnd(), member: rnd(), pool: '-1', health_monitor: rnd(), l7policy: rnd(), l7rule: '3' };

/** This run's defaults, as numbers. */
export const defaults = Object.fromEntries(Object.entries(DEFAULTS).map(([k, v]) => [k, Number(v)]));

/** The stack with this run's defaults (DEFAULT_<RESOURCE>_QUOTA). */
export const startQuotaStack = (): Promise<TestStack> =>
  startTestStack({
    lbaasEnv: Object.fromEntries(Object.entries(DEFAULTS).map(([k, v]) => [`DEFAULT_${k.toUpperCase()}_QUOTA`, v])),
  });

/** A fresh project id. */
export const project = () => randomBytes(16).toString('hex');

/** A persona's token header, and a quota record arranged as the admin (PUT must answer 202), on `stack()`. */
export function quotaSteps(stack: () => TestStack) {
  const as = (who: keyof TestStack['personas']) => tokenOf(stack(), who);
  const putQuota = (projectId: string, quota: Record<string, number | null>) =>
    request(stack().gateway).put(`/v2.0/lbaas/quotas/${projectId}`).set(as('admin')).send({ quota }).expect(202);
  return { as, putQuota };
}
