/**
 * The local store as processes, shared by the launcher (`npm start`, the benchmarks; @stratum/deploy) and the test
 * harness (@stratum/testing), so neither imports the other for it: the install check, PostgreSQL clusters of the
 * project's own (postgres.ts), FerretDB 2.5 on them and a store per purpose (store.ts), free ports, stopping a child
 * and waiting for its health check (child.ts), and the repository root.
 */
export * from './child';
export * from './postgres';
export * from './store';
