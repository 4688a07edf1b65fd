export * from './domain';
export * from './lbaas';
