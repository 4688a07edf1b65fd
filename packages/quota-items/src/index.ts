export * from './lbaas';
export * from './domain';
