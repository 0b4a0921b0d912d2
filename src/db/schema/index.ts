export * from './companies.js';
export * from './users.js';
export * from './api-keys.js';
export * from './audit.js';
export * from './instance.js';
export * from './products.js';
export * from './sign-in-failures.js';
