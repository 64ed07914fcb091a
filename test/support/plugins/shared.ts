import { defineToken } from '@evmnode/core';

/** What the fixture plugins did, in order, for tests to read. */
export const fixtureEvents: string[] = [];

/** A service the recorder fixture provides and the consumer fixture depends on. */
export const EventLog = defineToken<string[]>('EventLog');

/** A service nothing provides. */
export const Unprovided = defineToken<string>('UnprovidedService');

/** A service the greeting-provider fixture provides and the greeting-consumer fixture serves a method with. */
export const Greeter = defineToken<{ greet(name: string): string }>('Greeter');
