/**
 * The launcher's library: the sample and file loaders (load.ts, also used by tests to arrange data the way `pnpm load`
 * does), the stack as supervised processes (processes.ts, supervisor.ts) and the embedded default's tokens
 * (tokens.ts). The store itself is @stratum/store-runtime.
 */
export * from './load';
export * from './processes';
export * from './supervisor';
export * from './tokens';
