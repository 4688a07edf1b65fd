export { buildGateway, type GatewayApp } from './app';
export { type GatewayConfig, loadConfig } from './config';
export { createGatewayDeps, type GatewayDeps, type GatewayDepsOptions } from './deps';
export { GatewayMetrics, metricsServer } from './metrics/metrics';
export { GROUPS, resolve } from './routes';
export { identityOfToken } from './tokens/tokens.keystone';
export { StaticTokens, type TokensFile } from './tokens/tokens.static';
export { IdentityUnavailable, type TokenValidator } from './tokens/tokens.types';
