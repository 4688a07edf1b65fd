/**
 * Bundles one process for its image: `node deploy/containers/bundle.mjs <service> <outDir>`.
 *
 * <service> is gateway | event-query | lbaas-quota | domain-quota. Writes the image's /app tree into <outDir>:
 *   dist/server.js      the entry point (src/server.ts) and every production dependency, one CommonJS file;
 *   etc/                the service's etc/ (event-query reads etc/event_definitions.yaml next to dist/, the same
 *                       `../etc` its src/config.ts resolves from src/; the policy samples are for operators);
 *   node_modules/…      packages read from disk at run time: swagger-ui-dist (the gateway's /docs assets);
 *   console/dist/       the gateway's operator console (built by gateway/console/build.sh when stale), served at
 *                       /console/ from `../console/dist` beside dist/, as gateway/src/console.ts resolves it from src/;
 *   package.json        name and version of the service.
 * The mongodb driver's optional native and cloud-auth modules stay external: the driver loads them only when a
 * URI asks for them (Kerberos, zstd, AWS, client-side encryption) and reports a clear error otherwise.
 * Exits 1 with esbuild's message when the bundle fails.
 */
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const DIRS = {
  gateway: 'gateway',
  'event-query': 'services/event-query',
  'lbaas-quota': 'services/lbaas-quota',
  'domain-quota': 'services/domain-quota',
};
/** Packages the gateway resolves on disk at run time (require.resolve), copied whole. */
const ON_DISK = { gateway: ['swagger-ui-dist'] };
/** Optional peers of the mongodb driver (its package.json peerDependenciesMeta) and of pino/ws-style modules. */
const EXTERNAL = [
  'kerberos',
  '@mongodb-js/zstd',
  '@aws-sdk/credential-providers',
  'gcp-metadata',
  'snappy',
  'socks',
  'aws4',
  'mongodb-client-encryption',
  'pino-pretty',
];

const [service, outArg] = process.argv.slice(2);
const dir = DIRS[service];
if (!dir || !outArg) {
  console.error(`usage: node deploy/containers/bundle.mjs <${Object.keys(DIRS).join('|')}> <outDir>`);
  process.exit(2);
}
const pkgDir = join(ROOT, dir);
const out = resolve(outArg);
rmSync(out, { recursive: true, force: true });
mkdirSync(join(out, 'dist'), { recursive: true });

try {
  await build({
    entryPoints: [join(pkgDir, 'src', 'server.ts')],
    outfile: join(out, 'dist', 'server.js'),
    bundle: true,
    platform: 'node',
    target: 'node20',
    format: 'cjs',
    minify: false,
    sourcemap: false,
    legalComments: 'none',
    external: [...EXTERNAL, ...(ON_DISK[service] ?? [])],
    // Libraries branch on it; the image sets it too, but the bundle should not depend on that.
    define: { 'process.env.NODE_ENV': '"production"' },
    logLevel: 'warning',
    absWorkingDir: pkgDir,
  });
} catch {
  process.exit(1); // esbuild has printed the errors
}

if (existsSync(join(pkgDir, 'etc'))) cpSync(join(pkgDir, 'etc'), join(out, 'etc'), { recursive: true });
if (service === 'gateway') {
  execFileSync('sh', [join(pkgDir, 'console', 'build.sh')], { stdio: 'inherit' });
  cpSync(join(pkgDir, 'console', 'dist'), join(out, 'console', 'dist'), { recursive: true });
}
const requireFromPkg = createRequire(join(pkgDir, 'package.json'));
for (const name of ON_DISK[service] ?? []) {
  const from = dirname(requireFromPkg.resolve(`${name}/package.json`));
  // Source maps are half of swagger-ui-dist and no browser asks for them from /docs.
  cpSync(from, join(out, 'node_modules', name), { recursive: true, dereference: true, filter: (f) => !f.endsWith('.map') });
}
const pkg = JSON.parse(readFileSync(join(pkgDir, 'package.json'), 'utf8'));
writeFileSync(
  join(out, 'package.json'),
  `${JSON.stringify({ name: pkg.name, version: pkg.version, private: true, main: 'dist/server.js' }, null, 2)}\n`,
);
