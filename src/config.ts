/** `svc/config`: reading and validating `svc.yml`. */
export { loadConfig, parseConfig, resolveFromConfig, DEFAULT_CONFIG_FILE, DEFAULT_LEDGER_PATH, type LoadedConfig } from './config/load-config.js';
export { svcConfigSchema, type SvcConfig } from './config/schema.js';
