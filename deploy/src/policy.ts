/**
 * `pnpm policy`: the services' policy files, as oslo.policy's command-line tools do for OpenStack services.
 *
 *   pnpm policy sample [<service>]        print a service's sample policy file (oslopolicy-sample-generator)
 *   pnpm policy sample --write            rewrite every services/<service>/etc/policy.yaml.sample
 *   pnpm policy check <service> <file>    load a policy file as the service would at start (exit 1 with the error)
 *
 * Services: event-query, lbaas-quota, domain-quota.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DOMAIN_POLICY_TITLE, DomainQuotaPolicy } from '../../services/domain-quota/src/policy';
import { EVENT_POLICY_TITLE, EventPolicy } from '../../services/event-query/src/events/events.policy';
import { QUOTA_POLICY_TITLE, QuotaPolicy } from '../../services/lbaas-quota/src/quotas/quotas.policy';

const ROOT = join(__dirname, '..', '..');

/** Each service's loader (its rules, optionally overridden by a file) and the first line of its sample. */
const SERVICES = {
  'event-query': { load: (f?: string) => EventPolicy.load(f).policy, title: EVENT_POLICY_TITLE },
  'lbaas-quota': { load: (f?: string) => QuotaPolicy.load(f).policy, title: QUOTA_POLICY_TITLE },
  'domain-quota': { load: (f?: string) => DomainQuotaPolicy.load(f).policy, title: DOMAIN_POLICY_TITLE },
} as const;
type Service = keyof typeof SERVICES;

const usage = () => {
  console.error(
    'usage: pnpm policy sample [<service>] | pnpm policy sample --write | pnpm policy check <service> <file>\n' +
      `services: ${Object.keys(SERVICES).join(', ')}`,
  );
  process.exit(2);
};
const serviceOf = (name: string | undefined): Service => {
  if (name === undefined || !Object.hasOwn(SERVICES, name)) usage();
  return name as Service;
};

function main(args: string[]): void {
  const [command, ...rest] = args;
  if (command === 'sample') {
    if (rest[0] === '--write') {
      for (const name of Object.keys(SERVICES) as Service[]) {
        const path = join(ROOT, 'services', name, 'etc', 'policy.yaml.sample');
        writeFileSync(path, SERVICES[name].load().sample(SERVICES[name].title));
        console.log(`wrote ${path}`);
      }
      return;
    }
    const names = rest.length > 0 ? [serviceOf(rest[0])] : (Object.keys(SERVICES) as Service[]);
    for (const name of names) process.stdout.write(SERVICES[name].load().sample(SERVICES[name].title));
    return;
  }
  if (command === 'check') {
    const name = serviceOf(rest[0]);
    const file = rest[1];
    if (!file) usage();
    try {
      const policy = SERVICES[name].load(file);
      const changed = [...policy.overridden];
      console.log(`${file}: valid for ${name}; ${changed.length} rule(s) set: ${changed.join(', ') || '(none)'}`);
    } catch (err) {
      console.error(err instanceof Error ? err.message : String(err));
      process.exit(1);
    }
    return;
  }
  usage();
}

main(process.argv.slice(2));
