export { buildApp } from './app';
export { type LbaasQuotaConfig, loadConfig } from './config';
export { contract, LBAAS_QUOTA_ROOTS } from './contract';
export { createDeps, type LbaasQuotaDeps } from './deps';
