/**
 * domain-quota in-process with hooks between the steps of every edit (createDeps' `editHooks`), a short edit lease
 * and a fast reconciler, on a database of its own holding `registry` (a bootstrap document, as `pnpm load --registry`
 * reads it). For tests that stop or fail an edit between its steps, as a crash or a store failure would.
 */
import { randomBytes } from 'node:crypto';
import { loadRegistryFile } from '@stratum/deploy';
import { buildApp, createDeps, type DomainQuotaDeps, loadConfig } from '@stratum/domain-quota';
import { signIdentity } from '@stratum/identity';
import pino from 'pino';
import request from 'supertest';
import { stringify } from 'yaml';

type EditHooks = NonNullable<Parameters<typeof createDeps>[2]>['editHooks'];

export interface EditHarness {
  deps: DomainQuotaDeps;
  /** PATCH `path` with `body` as a cloud admin, signed as the gateway signs it. */
  patch(path: string, body: unknown): request.Test;
  /** The quota node of `owner` in region R1. */
  node(owner: string): Promise<Awaited<ReturnType<DomainQuotaDeps['tree']['readQuotaSet']>>['state']>;
  close(): Promise<void>;
}

/** Starts the service with `editHooks` and loads `registry`; EDIT_LEASE_MS 1000, EDIT_RECONCILE_INTERVAL_MS 200. */
export async function startWithEditHooks(editHooks: EditHooks, registry: unknown): Promise<EditHarness> {
  const secret = randomBytes(24).toString('hex');
  const cloudAdmin = { userId: 'admin', projectId: 'admin', domainId: 'default', roles: ['admin'] };
  const deps = await createDeps(
    loadConfig({
      MONGODB_URI: process.env.STRATUM_TEST_MONGODB_URI,
      MONGODB_DATABASE: `t_${randomBytes(6).toString('hex')}`,
      STRATUM_IDENTITY_SECRET: secret,
      LOG_LEVEL: 'silent',
      REDIS_URL: '',
      EDIT_LEASE_MS: '1000',
      EDIT_RECONCILE_INTERVAL_MS: '200',
    }),
    pino({ level: 'silent' }),
    { editHooks },
  );
  const app = buildApp(deps);
  await loadRegistryFile(deps.store.db, stringify(registry));
  return {
    deps,
    patch: (path, body) => {
      const text = JSON.stringify(body);
      return request(app)
        .patch(path)
        .set({ ...signIdentity(cloudAdmin, secret, { method: 'PATCH', url: path, body: text }), 'Content-Type': 'application/json' })
        .send(text);
    },
    node: async (owner) => (await deps.tree.readQuotaSet('R1', owner)).state,
    close: () => deps.close(),
  };
}
