import type { IncomingMessage } from 'node:http';

/**
 * A request's target as a URL, or undefined when it is none: Node's parser lets through targets
 * such as `//a:99999` that `URL` refuses by throwing, and one thrown in an `upgrade` listener
 * would stop the node.
 */
export function requestTarget(req: IncomingMessage): URL | undefined {
  try {
    return new URL(req.url ?? '/', 'http://gateway');
  } catch {
    return undefined;
  }
}
