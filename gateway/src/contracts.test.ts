/**
 * The services' contracts are what the gateway imports from them (routes.ts, openapi.document.ts): paths and zod
 * schemas only. Loading them must not load a web framework, a cache client, a logger or the store's driver, which
 * would mean a service's app, router or repository came along (and the console bundles them for a browser). Checked in a fresh node process, where the module cache shows what was loaded.
 */
import { execFileSync } from 'node:child_process';

const PROBE = `
const before = new Set(Object.keys(require.cache));
for (const s of ['event-query', 'lbaas-quota', 'domain-quota']) {
  const { contract } = require('@stratum/' + s + '/contract');
  if (!contract || contract.paths.length === 0) throw new Error(s + ' has no contract');
}
const loaded = Object.keys(require.cache).filter((p) => !before.has(p));
process.stdout.write(JSON.stringify(loaded));
`;

describe("the services' contracts", () => {
  it('load no express, ioredis, pino, http-proxy-middleware or the mongodb driver', () => {
    const out = execFileSync(process.execPath, ['--import', 'tsx', '-e', PROBE], { cwd: __dirname, encoding: 'utf8' });
    const loaded = JSON.parse(out) as string[];
    expect(loaded.some((p) => p.includes('/services/lbaas-quota/src/contract.ts'))).toBe(true);
    const forbidden = loaded.filter((p) => /\/node_modules\/(\.pnpm\/)?(express|ioredis|pino|http-proxy-middleware|mongodb)[@/]/.test(p));
    expect(forbidden).toEqual([]);
  });
});
