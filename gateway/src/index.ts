export { buildGateway, type GatewayDeps } from './app';
export { type GatewayConfig, loadConfig } from './config';
export { GROUPS, resolve } from './routes';
export { StaticTokens, type TokensFile, type TokenValidator } from './tokens';
