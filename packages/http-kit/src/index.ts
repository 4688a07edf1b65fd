export * from './app';
export * from './body';
export * from './config';
export * from './errors';
export * from './middleware';
export * from './readiness';
export * from './serve';
export * from './store';
