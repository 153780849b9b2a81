/** `svc/adapters`: the handler contract, the registry and the demo handlers. Side effects happen only here. */
export * from './adapters/index.js';
