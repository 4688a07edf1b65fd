export * from './ferretdb';
export * from './keystone';
export * from './load';
export * from './processes';
export * from './tokens';
