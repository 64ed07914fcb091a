/**
 * A command line the CLI cannot run as written; it exits 2. Without a message the line names no
 * command, and the whole usage text is printed instead.
 */
export class UsageError extends Error {
  override readonly name = 'UsageError';

  constructor(message = '') {
    super(message);
  }
}
