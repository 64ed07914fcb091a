import type { EVMInterface, Message } from '@ethereumjs/evm';

/**
 * The message an EVM is running, for precompiles. ethereumjs hands a precompile its call data and
 * gas only, not the message that reached it, so a precompile cannot see whether it runs in a
 * static context or with value. The EVM's public `beforeMessage` event announces every message
 * (top-level and nested) just before it runs, and nothing else runs between a call's message and
 * the precompile it reaches: the last message announced is the precompile's own. An EVM runs one
 * message at a time, so one slot per EVM is enough.
 */
export class CurrentMessage {
  #message: Message | undefined;

  /** Follows the messages of `evm`, the EVM the precompiles run in. */
  follow(evm: EVMInterface): void {
    if (evm.events === undefined) throw new Error('the EVM does not announce its messages');
    evm.events.on('beforeMessage', (message) => {
      this.#message = message;
    });
  }

  get(): Message {
    if (this.#message === undefined) throw new Error('no EVM message is running');
    return this.#message;
  }
}
