export { buildApp } from './app';
export { type DomainQuotaConfig, loadConfig } from './config';
export { createDeps, type DomainQuotaDeps } from './deps';
export { loadRegistry } from './registry/registry.bootstrap';
export { RegistryRepository } from './registry/registry.repository';
