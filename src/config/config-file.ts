/** The file every command reads unless `--config` names another (DESIGN.md 8a). Its own module so the hook's fast path finds it without loading the YAML parser and the schema. */
export const DEFAULT_CONFIG_FILE = 'svc.yml';
