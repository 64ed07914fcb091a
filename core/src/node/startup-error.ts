const STARTUP_ERROR_BRAND = Symbol.for('evmnode.startup-error');

/**
 * A reason the node refuses to start: bad configuration, a plugin that cannot be loaded, a locked
 * database. The message is for the operator: it names what is wrong and how to fix it.
 */
export class StartupError extends Error {
  readonly [STARTUP_ERROR_BRAND] = true;

  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'StartupError';
  }
}

export function isStartupError(value: unknown): value is StartupError {
  return typeof value === 'object' && value !== null && STARTUP_ERROR_BRAND in value;
}
