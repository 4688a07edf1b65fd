/**
 * `pnpm registry check [--repair]`: verifies every sum of the department quota tree (the cloud's and each
 * department's `allocated` against what their children hold, per region and item) in the store of MONGODB_URI /
 * MONGODB_DATABASE (defaults: the embedded stack's store), printing each wrong one; with `--repair`, sets each to
 * what the children hold (audited as `stratum-registry-check`). Safe beside running services: see
 * domain-quotas.integrity.ts.
 *
 * Exit status: 0 when every sum is right (or was repaired), 1 when a sum is wrong and was not repaired (or a node
 * kept changing while it was verified), 2 on failure.
 */
import { connectStore } from '@stratum/http-kit';
import type { Db } from 'mongodb';
import { AuditLog } from './audit/audit.log';
import { type CheckReport, describeDiscrepancy, SYSTEM_ACTOR, TreeIntegrity } from './domain-quotas/domain-quotas.integrity';
import { QuotaTreeRepository } from './domain-quotas/domain-quotas.repository';

const USAGE = 'usage: pnpm registry check [--repair]';

/**
 * Runs the sum check on the registry in `db`, repairing with `repair` (audited as the system actor).
 * @returns the report (see TreeIntegrity.check).
 */
export function checkRegistrySums(db: Db, repair: boolean): Promise<CheckReport> {
  return new TreeIntegrity(new QuotaTreeRepository(db), new AuditLog(db)).check({ repair, actor: SYSTEM_ACTOR });
}

/** Whether a report leaves no sum wrong. */
export const sumsIntact = (r: CheckReport) => r.busy.length === 0 && r.discrepancies.every((d) => d.repaired);

/** The report as lines for an operator. */
export function reportLines(r: CheckReport): string[] {
  const lines = r.discrepancies.map(describeDiscrepancy);
  for (const key of r.busy) lines.push(`${key}: kept changing while verified; run the check again`);
  const wrong = r.discrepancies.filter((d) => !d.repaired).length;
  const fixed = r.discrepancies.length - wrong;
  lines.push(
    `${r.nodes} quota nodes verified: ${r.discrepancies.length === 0 && r.busy.length === 0 ? 'every sum intact' : `${wrong} wrong, ${fixed} repaired, ${r.busy.length} busy`}`,
  );
  return lines;
}

async function main(argv: string[]): Promise<number> {
  const args = argv.filter((a) => a !== '--');
  if (args[0] !== 'check' || args.slice(1).some((a) => a !== '--repair')) {
    console.error(USAGE);
    return 2;
  }
  const repair = args.includes('--repair');
  const store = await connectStore(process.env.MONGODB_URI ?? 'mongodb://127.0.0.1:27117/', process.env.MONGODB_DATABASE ?? 'stratum');
  try {
    const report = await checkRegistrySums(store.db, repair);
    for (const line of reportLines(report)) console.log(line);
    if (!sumsIntact(report) && !repair) console.log('run `pnpm registry check --repair` to set each to what the children hold');
    return sumsIntact(report) ? 0 : 1;
  } finally {
    await store.close();
  }
}

if (require.main === module) {
  main(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (err) => {
      console.error(`registry check: ${err instanceof Error ? err.message : err}`);
      process.exit(2);
    },
  );
}
