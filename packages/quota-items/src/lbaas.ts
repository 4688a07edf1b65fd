/**
 * Load balancer quota resources, as Octavia's `models.Quotas` columns (`octavia/db/models.py`).
 *
 * Octavia's canonical API names since Rocky are `loadbalancer`/`healthmonitor`; the old `load_balancer`/`health_monitor`
 * spellings are what every client reads (python-octaviaclient, openstacksdk, gophercloud), so responses carry both.
 */
import { z } from 'zod';

/** Storage keys of the seven limits (Octavia DB column names). */
export const LBAAS_RESOURCES = ['load_balancer', 'listener', 'member', 'pool', 'health_monitor', 'l7policy', 'l7rule'] as const;
export type LbaasResource = (typeof LBAAS_RESOURCES)[number];

/** Octavia's `QUOTA_UNLIMITED`, `MIN_QUOTA`, `MAX_QUOTA` (`octavia/common/constants.py`). */
export const QUOTA_UNLIMITED = -1;
export const MIN_QUOTA = -1;
export const MAX_QUOTA = 2_000_000_000;

/** Octavia's canonical (new) API spelling of each resource; equal to the storage key except two. */
export const LBAAS_NEW_NAME: Readonly<Record<LbaasResource, string>> = {
  load_balancer: 'loadbalancer',
  listener: 'listener',
  member: 'member',
  pool: 'pool',
  health_monitor: 'healthmonitor',
  l7policy: 'l7policy',
  l7rule: 'l7rule',
};

/**
 * The `in_use_*` field name of each resource (note `in_use_load_balancer`, `in_use_health_monitor`;
 * docs/api/lbaas-quota.md, "Resource fields").
 */
export const LBAAS_IN_USE_NAME: Readonly<Record<LbaasResource, string>> = {
  load_balancer: 'in_use_load_balancer',
  listener: 'in_use_listener',
  member: 'in_use_member',
  pool: 'in_use_pool',
  health_monitor: 'in_use_health_monitor',
  l7policy: 'in_use_l7policy',
  l7rule: 'in_use_l7rule',
};

/** Octavia's display name of each resource (`data_models.X._name()`), used in `Quota has been met for resources: <Name>`. */
export const LBAAS_DISPLAY_NAME: Readonly<Record<LbaasResource, string>> = {
  load_balancer: 'Load Balancer',
  listener: 'Listener',
  member: 'Member',
  pool: 'Pool',
  health_monitor: 'Health Monitor',
  l7policy: 'L7 Policy',
  l7rule: 'L7 Rule',
};

/** Every accepted input spelling → storage key. */
export const LBAAS_INPUT_NAMES: Readonly<Record<string, LbaasResource>> = Object.fromEntries(
  LBAAS_RESOURCES.flatMap((r) => [
    [r, r],
    [LBAAS_NEW_NAME[r], r],
  ]),
);

/** A limit value: an integer in [-1, 2000000000]; -1 unlimited, 0 nothing allowed. */
export const QuotaLimit = z.number().int().min(MIN_QUOTA).max(MAX_QUOTA);

/** Limits as stored per project: null = "use the deployment default". */
export type LbaasLimits = Record<LbaasResource, number | null>;
/** Effective limits (defaults filled in). */
export type LbaasResolved = Record<LbaasResource, number>;
