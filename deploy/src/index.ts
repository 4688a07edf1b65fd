export * from './load';
export * from './processes';
export * from './supervisor';
export * from './tokens';
