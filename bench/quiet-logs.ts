// Imported first by a bench whose stdout is its figures: the platform's JSON logs, warnings and
// worse only, go to stderr. Set before platform/logger.ts reads the configuration.
process.env.ORRERY_LOG_LEVEL ??= 'warn';
process.env.ORRERY_LOG_DESTINATION ??= 'stderr';
