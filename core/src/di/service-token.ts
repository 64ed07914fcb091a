/**
 * A typed reference to a service. Plugins name their dependencies with tokens
 * (`deps: { info: CoreTokens.ChainInfo }`) and receive exactly those services.
 */
export type ServiceToken<T> = symbol & { readonly __service?: T };

/** The service type a token refers to. */
export type ServiceOf<K> = K extends ServiceToken<infer T> ? T : never;

/** Creates a token. The name appears in error messages, so make it the service's name. */
export function defineToken<T>(name: string): ServiceToken<T> {
  return Symbol(name);
}

export function tokenName(token: symbol): string {
  return token.description ?? 'unnamed service';
}
