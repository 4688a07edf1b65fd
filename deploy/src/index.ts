export * from './ferretdb';
export * from './load';
export * from './processes';
export * from './tokens';
