export { buildApp, LBAAS_PREFIXES } from './app';
export { type LbaasQuotaConfig, loadConfig } from './config';
export { createDeps, type LbaasQuotaDeps } from './deps';
