export { buildApp } from './app';
export { checkRegistrySums, reportLines, sumsIntact } from './cli';
export { type DomainQuotaConfig, loadConfig } from './config';
export { createDeps, type DomainQuotaDeps } from './deps';
export { type CheckReport, describeDiscrepancy, type SumDiscrepancy, TreeIntegrity } from './domain-quotas/domain-quotas.integrity';
export { QuotaTreeRepository } from './domain-quotas/domain-quotas.repository';
export { type LoadMode, loadRegistry, RegistryNotEmptyError } from './registry/registry.bootstrap';
export { RegistryRepository } from './registry/registry.repository';
