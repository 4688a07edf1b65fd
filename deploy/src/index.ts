export * from './child';
export * from './keystone';
export * from './load';
export * from './postgres';
export * from './processes';
export * from './store';
export * from './supervisor';
export * from './tokens';
